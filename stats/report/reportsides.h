/* reportsides.h — what a report page shows: one side of runs, or a base and a
 * new side for A/B, with the comparison that judged them; and what the page
 * (reportpage.c) and its figures (reportfigs.c) both read of it, the levels in
 * order and a series' name. */
#ifndef LOADGEN_STATS_REPORTSIDES_H
#define LOADGEN_STATS_REPORTSIDES_H

#include <stddef.h>

#include "stats/compare/comparison.h"
#include "stats/report/reportrun.h"

/* Several runs of the same test (a comma-separated list on the command line). */
struct report_side {
    const char *label; /* "base", "new", or "" on a page of one side */
    struct report_run *runs;
    size_t n_runs;
};

struct report_page {
    struct report_side sides[2]; /* with --base: sides[0] base, sides[1] new */
    size_t n_sides;
    /* with --base: `loadstats compare BASE RUN`'s rows, and how they were judged */
    const struct stats_compare_report *comparison;
    const struct stats_compare_settings *compare_settings;
};

/* The levels of the page, in the order the first run ran them, then any
 * other run's that the first lacks. *clients is malloc'd (free it). */
int report_page_levels(const struct report_page *page, unsigned long **clients, size_t *n);

/* "c16", or "base c16" / "new #2 c16" for a series of a side's run. */
void report_series_name(const struct report_page *page, size_t side, size_t run,
                        unsigned long clients, char *buf, size_t size);

#endif
