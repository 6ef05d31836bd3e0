/* compare.h — is a move between two runs real? The judgement behind
 * `loadstats compare`: a ratio beyond the allowed factor in the worse direction
 * that is also material (above the time resolution) and above the baseline's noise. */
#ifndef LOADGEN_STATS_COMPARE_H
#define LOADGEN_STATS_COMPARE_H

#include <stdbool.h>

#include "stats/stats.h"
#include "stats/units.h"

struct stats_thresholds {
    double maximum_factor;             /* allowed ratio, default 1.1 */
    double minimum_time_resolution_ms; /* smallest material move of a time metric, default 1 */
    double noise_factor;               /* multiplies the baseline's cv, default 1 */
};
#define STATS_THRESHOLDS_DEFAULT                                                                   \
    {                                                                                              \
        1.1, 1.0, 1.0                                                                              \
    }

enum stats_verdict {
    STATS_VERDICT_OK,        /* within the factor */
    STATS_VERDICT_TINY,      /* beyond the factor, but below the time resolution */
    STATS_VERDICT_NOISY,     /* beyond the factor, but within the baseline's own noise */
    STATS_VERDICT_IMPROVED,  /* a real move in the better direction */
    STATS_VERDICT_REGRESSED, /* a real move in the worse direction: `significant` */
};

struct stats_comparison {
    double base_median, new_median;
    double delta_abs; /* new − base, rounded to 2 decimals like the medians */
    double delta_pct; /* delta_abs / base · 100; NaN when base is 0 and new is not */
    double ratio;     /* new / base; 1 when both are 0, +inf when only base is 0 */
    bool significant;
    enum stats_verdict verdict;
};

/* Compares the medians of two summaries of a metric measured in `unit`. */
void stats_compare(const struct stats_summary *base, const struct stats_summary *current,
                   enum stats_unit unit, const struct stats_thresholds *thresholds,
                   struct stats_comparison *out);

/* "regressed", "improved", "noisy", "tiny", "ok". */
const char *stats_verdict_name(enum stats_verdict verdict);

#endif
