/* reportpage.h — the report page: the page around its parts and its tables
 * (reportpage.c), which places the runs' identities (reportidentity.h) and
 * the figures (reportfigs.h); what it shows is in reportsides.h. */
#ifndef LOADGEN_STATS_REPORTPAGE_H
#define LOADGEN_STATS_REPORTPAGE_H

#include <stdio.h>

#include "stats/report/reportsides.h"

/* Writes the whole page. Returns 0, or -1 when memory ran out (the page is then unusable). */
int report_page_write(FILE *out, const struct report_page *page);

#endif
