/* summarytext.h — `loadstats summary`'s rows, and the table it prints for
 * people: per level its exact counts as one column of integers, the
 * per-request samples as a percentile table and the per-second series as a
 * short one, each row in a unit chosen for it (µs, ms, s, KiB, MiB, req/s),
 * never wider than the width asked for (--wide prints every statistic). */
#ifndef LOADGEN_STATS_SUMMARYTEXT_H
#define LOADGEN_STATS_SUMMARYTEXT_H

#include <stddef.h>
#include <stdio.h>

#include "stats/math/stats.h"
#include "stats/read/units.h"

/* One metric of the document, or of several runs of one test. */
struct summary_row {
    char *key;
    enum stats_unit unit;
    struct stats_summary summary; /* as the harness rounds it (--json, --wide) */
    struct stats_summary exact;   /* the same unrounded (over runs: the mean of the runs') */
    size_t position;              /* in the document, to keep its order within a level */
    size_t runs;                  /* runs with the metric; over several, the spreads are set */
    struct stats_summary spread, exact_spread;
};

struct summary_rows {
    struct summary_row *rows;
    size_t count, cap;
};

/* The table's width when the terminal's is not asked for: what fits beside
 * a terminal's scroll bar at 120 columns. */
#define SUMMARY_TEXT_WIDTH 120

/* Writes the rows, sorted by level (summary_rows_sort), as the table for
 * people, each line at most `width` columns but where one metric's name is
 * longer than that. */
void summary_text_write(FILE *out, const struct summary_rows *all, int width);

/* Sorts levels in ascending client count, keys without a level last,
 * document order within a level. */
void summary_rows_sort(struct summary_rows *all);

#endif
