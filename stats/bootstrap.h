/* bootstrap.h — how sure is a ratio between two sets of runs? A hierarchical
 * bootstrap: each resample draws a side's runs with replacement, then, for
 * each run drawn, its samples with replacement, and takes the side's
 * statistic (the mean over its runs of each run's statistic). The spread of a
 * side's resampled statistic (on a log scale, corrected by k/(k−1) for the k
 * runs it resamples) is its standard error; the two sides' run-to-run spreads
 * are pooled (the runs of one machine vary alike), and the interval is the
 * log ratio ± Student's t for kb + kn − 2 degrees of freedom × the pooled
 * error, so that two runs a side, which know little of their own noise, give
 * a wide interval (t = 4.3 at 95%). Run-to-run variation is in it when a side
 * has several runs; with one run a side it is the within-run uncertainty
 * alone (normal quantiles). Where a statistic can be 0 (counts
 * of errors), no log exists and the interval is the middle `confidence` of
 * the resampled ratios. Seeded: the same inputs give the same interval. */
#ifndef LOADGEN_STATS_BOOTSTRAP_H
#define LOADGEN_STATS_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/rng.h"
#include "stats/runset.h"

struct stats_bootstrap {
    enum stats_statistic statistic;
    double confidence;  /* 0 < c < 1, e.g. 0.95 */
    unsigned resamples; /* e.g. 2000 */
    uint64_t seed;
};

struct stats_interval {
    double low, high;
    double
        df; /* degrees of freedom of the t quantile; INFINITY for none (normal, or percentiles) */
    bool percentiles; /* a statistic was 0: the resampled ratios' own percentiles */
};

/* The interval of the ratio of the statistic of `current` over that of
 * `base`, each given as its runs (present ones only, with their bootstrap
 * windows). A resample whose base is 0 has the ratio 1 when its new value is
 * 0 too, +inf otherwise. Returns 0, or -1 when memory runs out. */
int stats_bootstrap_ratio(const struct stats_run_metric *const *base, size_t n_base,
                          const struct stats_run_metric *const *current, size_t n_current,
                          const struct stats_bootstrap *settings, struct stats_interval *out);

/* One resampled value of a run's statistic (exposed for its tests). */
double stats_bootstrap_run(const struct stats_run_metric *run, enum stats_statistic statistic,
                           struct stats_rng *rng);

#endif
