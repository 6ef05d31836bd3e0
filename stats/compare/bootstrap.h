/* bootstrap.h — how sure is a ratio between two sets of runs? A hierarchical
 * bootstrap: each resample draws a side's runs with replacement, then, for
 * each run drawn, its samples with replacement, and takes the side's
 * statistic (the mean over its runs of each run's statistic). The standard
 * deviation of a side's resampled statistic, corrected by k/(k−1) for the k
 * runs it resamples, is its standard error; relative to the statistic it is,
 * to first order, the error of the statistic's logarithm, and unlike the
 * spread of the logarithms it needs no resample to be above 0. The two sides'
 * relative run-to-run spreads are pooled (the runs of one machine vary
 * alike), and the interval is the log ratio ± Student's t for kb + kn − 2
 * degrees of freedom × the pooled error, so that two runs a side, which know
 * little of their own noise, give a wide interval (t = 4.3 at 95%).
 * Run-to-run variation is in it when a side has several runs; with one run a
 * side it is the within-run uncertainty alone (normal quantiles).
 *
 * A statistic can be 0 (counts, seconds and rates of errors often are). A
 * side "can be 0" when its runs' statistics put it there (their mean less
 * the normal's quantile of their standard errors reaches 0), or, a side of
 * one run, when its resamples are 0 in more than the interval's tail: it has
 * no logarithm at this confidence. Over a base that
 * can be 0 the ratio is undefined (no interval), except over a base 0 in
 * every resample: 1 for a new side 0 in every one too, infinite for one that
 * cannot be 0 (a move from nothing). A new side that can be 0 over a base
 * that cannot has an interval from 0 up, each side's statistic ± t standard
 * errors on the linear scale. Seeded: the same inputs give the same
 * interval. */
#ifndef LOADGEN_STATS_BOOTSTRAP_H
#define LOADGEN_STATS_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/math/rng.h"
#include "stats/runs/runset.h"

struct stats_bootstrap {
    enum stats_statistic statistic;
    double confidence;  /* 0 < c < 1, e.g. 0.95 */
    unsigned resamples; /* e.g. 2000 */
    uint64_t seed;
};

struct stats_interval {
    double low, high; /* NaN: undefined (zero_base) */
    double df; /* degrees of freedom of the t quantile; INFINITY for the normal (one run a side) */
    bool zero_base; /* the base's statistic is 0, or 0 in more than the tail of its resamples */
};

/* The interval of the ratio of the statistic of `current` over that of
 * `base`, each given as its runs (present ones only, with their bootstrap
 * windows). Where the base can be 0 (zero_base) the ratio has no interval
 * (NaN), except where the base is 0 in every resample: [1, 1] when the new
 * side is 0 in every one too, [inf, inf] when it is clear of 0 (0 in no
 * more than the tail of its resamples; a move from nothing). Returns 0, or
 * -1 when memory runs out. */
int stats_bootstrap_ratio(const struct stats_run_metric *const *base, size_t n_base,
                          const struct stats_run_metric *const *current, size_t n_current,
                          const struct stats_bootstrap *settings, struct stats_interval *out);

/* One resampled value of a run's statistic (exposed for its tests). */
double stats_bootstrap_run(const struct stats_run_metric *run, enum stats_statistic statistic,
                           struct stats_rng *rng);

#endif
