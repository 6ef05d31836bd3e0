/* comparison.h — `loadstats compare` as a library: two sets of runs in, one
 * judged row per metric out (nothing printed), so a report can be built on
 * the same numbers the command prints. */
#ifndef LOADGEN_STATS_COMPARISON_H
#define LOADGEN_STATS_COMPARISON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/compare/bootstrap.h"
#include "stats/compare/compare.h"
#include "stats/runs/runset.h"

struct stats_compare_settings {
    struct stats_thresholds thresholds;
    struct stats_bootstrap bootstrap; /* statistic, confidence, resamples, seed */
};
#define STATS_COMPARE_SETTINGS_DEFAULT                                                             \
    {                                                                                              \
        STATS_THRESHOLDS_DEFAULT,                                                                  \
        {                                                                                          \
            STATS_STAT_MEDIAN, 0.99, 2000, 1                                                       \
        }                                                                                          \
    }

struct stats_compare_row {
    const char *key; /* owned by the base run set */
    enum stats_unit unit;
    struct stats_comparison result;
    double interval_df; /* the t quantile's degrees of freedom; INFINITY: the normal's */
    bool has_p99;       /* a latency (time samples): its p99 beside the statistic */
    double base_p99, new_p99;
    bool counted; /* in the tally and the exit status; not a part of another row's quantity
                     (a command of a watched tree, metrickinds.def's PART) */
};

struct stats_compare_report {
    struct stats_compare_row *rows; /* in the base's first-seen order */
    size_t n_rows;
    char **only_base, **only_new; /* keys in one side only (owned by the run sets) */
    size_t n_only_base, n_only_new;
    char **conflicts; /* one line per key whose unit differs between the sides (owned) */
    size_t n_conflicts;
};

/* Compares `current` with `base`, both read with the statistic of `settings`
 * and windows. Returns 0, or -1 when memory runs out. */
int stats_compare_runsets(const struct stats_runset *base, const struct stats_runset *current,
                          const struct stats_compare_settings *settings,
                          struct stats_compare_report *out);

void stats_compare_report_free(struct stats_compare_report *report);

/* The verdicts of the counted rows, each measured quantity once. */
struct stats_compare_tally {
    size_t verdicts[STATS_VERDICTS];
    size_t compared, parts; /* rows counted, and rows shown but not counted */
};

void stats_compare_tally(const struct stats_compare_report *report,
                         struct stats_compare_tally *out);

/* compare's last line: "17 compared: 2 regressed, 0 improved, 1 changed,
 * 9 noisy, 1 tiny, 4 ok", and where rows are parts "; 10 rows of commands
 * in watched trees shown, not counted". */
void stats_compare_tally_text(const struct stats_compare_report *report, char *buf, size_t size);

/* Whether a counted row regressed: compare's exit status 1. */
bool stats_compare_regressed(const struct stats_compare_report *report);

#endif
