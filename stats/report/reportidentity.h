/* reportidentity.h — the runs' identities on the report page
 * (reportidentity.c), which the page (reportpage.c) places; they read the
 * page's sides, never the page's writer. */
#ifndef LOADGEN_STATS_REPORTIDENTITY_H
#define LOADGEN_STATS_REPORTIDENTITY_H

#include <stdio.h>

#include "stats/report/reportsides.h"

/* The runs' identities from their descriptors, and the machine they ran on
 * once. Returns 0 or -1 (out of memory). */
int report_identity_write(FILE *out, const struct report_page *page);

#endif
