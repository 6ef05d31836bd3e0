/* reportfigs.h — the report's figures (reportfigs.c), which the page
 * (reportpage.c) places; a figure reads the page's sides, never the page's
 * writer. */
#ifndef LOADGEN_STATS_REPORTFIGS_H
#define LOADGEN_STATS_REPORTFIGS_H

#include <stdio.h>

#include "stats/report/reportsides.h"

/* Every figure; *figures counts them. Returns 0 or -1 (out of memory). */
int report_figures_write(FILE *out, const struct report_page *page, int *figures);

/* The --watch trees' figures across levels (none without a tree). */
int report_watch_figures(FILE *out, const struct report_page *page, int *figures);

#endif
