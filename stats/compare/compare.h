/* compare.h — is a move between two sets of runs real? The rule behind
 * `loadstats compare`: a ratio is called a regression only when its interval
 * (bootstrap.h) lies entirely beyond the allowed factor in the worse
 * direction, the move is material (above the time resolution, for times),
 * and, when a side has a single run (so run-to-run noise is unknown), the
 * move also clears the baseline's own spread. */
#ifndef LOADGEN_STATS_COMPARE_H
#define LOADGEN_STATS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/math/stats.h"
#include "stats/read/units.h"

struct stats_thresholds {
    double maximum_factor;             /* allowed ratio, default 1.1 */
    double minimum_time_resolution_ms; /* smallest material move of a time metric, default 1 */
    double noise_factor; /* multiplies the baseline's cv (one run a side), default 1 */
};
#define STATS_THRESHOLDS_DEFAULT                                                                   \
    {                                                                                              \
        1.1, 1.0, 1.0                                                                              \
    }

enum stats_verdict {
    STATS_VERDICT_OK,        /* within the factor */
    STATS_VERDICT_TINY,      /* beyond the factor, but below the time resolution */
    STATS_VERDICT_NOISY,     /* beyond the factor, but its interval straddles the factor, or
                                (one run a side) within the baseline's own noise */
    STATS_VERDICT_IMPROVED,  /* a real move in the better direction */
    STATS_VERDICT_CHANGED,   /* a real move of a metric with no better direction */
    STATS_VERDICT_REGRESSED, /* a real move in the worse direction: `significant` */
};
#define STATS_VERDICTS (STATS_VERDICT_REGRESSED + 1)

/* Why a move is noisy. */
enum stats_noise {
    STATS_NOISE_NONE,
    STATS_NOISE_INTERVAL, /* the interval reaches back inside the factor */
    STATS_NOISE_BASELINE, /* one run a side: |ratio − 1| within the baseline's cv × noise factor */
    STATS_NOISE_RUNS,     /* several runs given on a side, but the metric is in one of them:
                             its run-to-run noise is unknown */
    STATS_NOISE_ZERO_BASE, /* the base can be 0: the ratio has no interval (bootstrap.h) */
};

/* One metric's move and the judgement on it. */
struct stats_comparison {
    /* what moved: the statistic of each side, the mean over its runs of each
     * run's statistic; base and current as `summary` rounds them */
    double base, current;
    double delta_abs;             /* current − base (unrounded), rounded to 2 decimals */
    double delta_pct;             /* delta_abs / base · 100; NaN when base is 0 and new is not */
    double ratio;                 /* current / base, unrounded; 1 when both are 0, +inf when
                                     only base is 0 */
    double ratio_low, ratio_high; /* the ratio's interval at the confidence asked; NaN for
                                     none (the base can be 0) */
    /* what it is judged against */
    size_t base_runs, new_runs;   /* runs of each side with the metric */
    size_t base_given, new_given; /* runs given on each side */
    uint64_t base_samples, new_samples;
    double base_cv;      /* the baseline's cv (the mean of its runs'), one run a side */
    bool lower_is_worse; /* rates and counts of work done (metrickinds.def) */
    bool directionless;  /* neither direction is worse (metrickinds.def): a real move is
                            "changed" */
    /* the judgement */
    bool significant; /* regressed */
    enum stats_verdict verdict;
    enum stats_noise noise;
};

/* Fills delta_abs, delta_pct and ratio from base/current values (unrounded)
 * and rounds base and current as summary does. */
void stats_comparison_move(struct stats_comparison *c, double base, double current);

/* Judges a comparison whose move, interval, runs and direction are filled in,
 * for a metric in `unit`: sets verdict, noise and significant. Without an
 * interval (NaN) a move beyond the factor is never shown to be real. */
void stats_judge(struct stats_comparison *c, enum stats_unit unit,
                 const struct stats_thresholds *thresholds);

/* True when neither side has the metric in two runs: its run-to-run noise is
 * unknown (the interval is within-run only). */
bool stats_comparison_single_run(const struct stats_comparison *c);

/* True when the ratio has no interval: the base can be 0 (bootstrap.h). */
bool stats_comparison_undefined(const struct stats_comparison *c);

/* Why a row is noisy or tiny, or that its ratio has no interval, in the words
 * of compare's table and the report's; "" for none. */
void stats_comparison_note(const struct stats_comparison *c,
                           const struct stats_thresholds *thresholds, char *buf, size_t size);

/* "regressed", "improved", "changed", "noisy", "tiny", "ok". */
const char *stats_verdict_name(enum stats_verdict verdict);

#endif
