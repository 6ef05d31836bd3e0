/* bootstrap.c — the hierarchical bootstrap of a ratio (see bootstrap.h).
 * Resampling n samples and selecting the k-th smallest is the same as taking
 * the sample at a rank drawn from the k-th order statistic of n uniforms,
 * Beta(k, n − k + 1): one beta draw instead of n draws and a selection, so a
 * run of millions of samples costs what a run of ten does. */
#include "stats/bootstrap.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "stats/stats.h"
#include "stats/studentt.h"
#include "stats/variates.h"

/* The sample at 0-based rank i of a run's sorted samples, from its window;
 * a rank outside it (< 1e-15 likely) takes the window's edge. */
static double at_rank(const struct stats_run_metric *run, size_t i)
{
    if (i < run->from) i = run->from;
    if (i >= run->from + run->len) i = run->from + run->len - 1;
    return run->window[i - run->from];
}

/* The rank of a uniform quantile u among n samples. */
static size_t rank_of(double u, size_t n)
{
    double r = floor(u * (double)n);
    return r >= (double)n ? n - 1 : (size_t)r;
}

static double resampled_percentile(const struct stats_run_metric *run, double q,
                                   struct stats_rng *rng)
{
    size_t n = run->n;
    /* the percentile's definition: rank q(n−1), interpolated between the
     * order statistics k and k+1 (0-based) */
    double h = q * (double)(n - 1);
    size_t k = (size_t)floor(h);
    double w = h - (double)k;
    double u = stats_beta(rng, (double)k + 1.0, (double)(n - k));
    double lower = at_rank(run, rank_of(u, n));
    if (w == 0.0 || k + 1 >= n) return lower;
    /* the next order statistic lies above u, at the smallest of the n−k−1 uniforms beyond it */
    double next = u + (1.0 - u) * stats_beta(rng, 1.0, (double)(n - k - 1));
    double upper = at_rank(run, rank_of(next, n));
    return stats_interpolate(lower, upper, w);
}

static double resampled_mean(const struct stats_run_metric *run, struct stats_rng *rng)
{
    if (run->len == run->n) { /* a small run: resampled sample by sample */
        struct stats_running_mean sum = {0};
        for (size_t i = 0; i < run->n; i++)
            stats_running_mean_add(&sum, run->window[stats_rng_below(rng, run->n)]);
        return stats_running_mean_value(&sum);
    }
    /* a large run: its resampled means are normal around its mean (within
     * the doubles, which a mean near the largest could leave) */
    double mean = run->mean + run->stddev / sqrt((double)run->n) * stats_normal(rng);
    return isfinite(mean) ? mean : copysign(DBL_MAX, mean);
}

double stats_bootstrap_run(const struct stats_run_metric *run, enum stats_statistic statistic,
                           struct stats_rng *rng)
{
    static const double q[] = {0.5, 0.9, 0.99};
    if (statistic == STATS_STAT_MEAN) return resampled_mean(run, rng);
    return resampled_percentile(run, q[statistic], rng);
}

/* One resample of a side: its runs drawn with replacement, each resampled. */
static double resampled_side(const struct stats_run_metric *const *runs, size_t n,
                             enum stats_statistic statistic, struct stats_rng *rng)
{
    struct stats_running_mean sum = {0};
    for (size_t i = 0; i < n; i++)
        stats_running_mean_add(&sum,
                               stats_bootstrap_run(runs[stats_rng_below(rng, n)], statistic, rng));
    return stats_running_mean_value(&sum);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The percentile definition of stats.h, with infinities kept (inf − inf). */
static double interval_end(const double *sorted, size_t n, double q)
{
    double h = q * (double)(n - 1);
    size_t k = (size_t)floor(h);
    double w = h - (double)k;
    if (w == 0.0 || k + 1 >= n) return sorted[k];
    if (isinf(sorted[k + 1])) return sorted[k + 1];
    return sorted[k] + (sorted[k + 1] - sorted[k]) * w;
}

/* The variance of the logs of a side's resampled values, corrected for
 * resampling k runs (whose spread the bootstrap sees as (k − 1)/k of it). */
static double log_variance(const double *values, size_t b, size_t k)
{
    double sum = 0.0, squares = 0.0;
    for (size_t i = 0; i < b; i++)
        sum += log(values[i]);
    double mean = sum / (double)b;
    for (size_t i = 0; i < b; i++)
        squares += (log(values[i]) - mean) * (log(values[i]) - mean);
    double variance = b > 1 ? squares / (double)(b - 1) : 0.0;
    return k > 1 ? variance * (double)k / (double)(k - 1) : variance;
}

static double side_value(const struct stats_run_metric *const *runs, size_t n)
{
    struct stats_running_mean sum = {0};
    for (size_t i = 0; i < n; i++)
        stats_running_mean_add(&sum, runs[i]->value);
    return stats_running_mean_value(&sum);
}

static bool all_positive(const double *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(values[i] > 0.0)) return false;
    return true;
}

/* The variance of the log ratio and its degrees of freedom. With runs on a
 * side, each side's variance is a spread of its runs, s² / k: the runs of the
 * two sides are taken to vary alike (the same machine's noise, on a log
 * scale), so their spreads are pooled as in a two-sample t test, known to
 * kb + kn − 2 degrees of freedom (a side of one run takes the other's). With
 * one run a side there is no run-to-run spread: the within-run variances add,
 * and the quantile is the normal's. */
static double pooled_variance(double vb, size_t kb, double vn, size_t kn, double *df)
{
    if (kb < 2 && kn < 2) {
        *df = INFINITY;
        return vb + vn;
    }
    double kb_ = (double)kb, kn_ = (double)kn;
    double spread = ((kb_ - 1.0) * vb * kb_ + (kn_ - 1.0) * vn * kn_) / (kb_ + kn_ - 2.0);
    *df = kb_ + kn_ - 2.0;
    return spread * (1.0 / kb_ + 1.0 / kn_);
}

int stats_bootstrap_ratio(const struct stats_run_metric *const *base, size_t n_base,
                          const struct stats_run_metric *const *current, size_t n_current,
                          const struct stats_bootstrap *settings, struct stats_interval *out)
{
    size_t b = settings->resamples > 1 ? settings->resamples : 2;
    double *before = malloc(b * sizeof *before), *after = malloc(b * sizeof *after);
    if (before == NULL || after == NULL) {
        free(before);
        free(after);
        return -1;
    }
    struct stats_rng rng;
    stats_rng_seed(&rng, settings->seed);
    for (size_t i = 0; i < b; i++) {
        before[i] = resampled_side(base, n_base, settings->statistic, &rng);
        after[i] = resampled_side(current, n_current, settings->statistic, &rng);
    }
    double point_before = side_value(base, n_base), point_after = side_value(current, n_current);
    double tail = (1.0 - settings->confidence) / 2.0;
    out->df = INFINITY;
    out->percentiles = !(point_before > 0.0 && point_after > 0.0 && all_positive(before, b) &&
                         all_positive(after, b));
    if (!out->percentiles) {
        double vb = log_variance(before, b, n_base), vn = log_variance(after, b, n_current);
        double variance = pooled_variance(vb, n_base, vn, n_current, &out->df);
        double half = stats_t_quantile(1.0 - tail, out->df) * sqrt(variance);
        double center = log(point_after / point_before);
        out->low = exp(center - half);
        out->high = exp(center + half);
    } else {
        for (size_t i = 0; i < b; i++) /* the ratios, in `before` */
            before[i] = before[i] != 0.0 ? after[i] / before[i] : after[i] == 0.0 ? 1.0 : INFINITY;
        qsort(before, b, sizeof *before, by_value);
        out->low = interval_end(before, b, tail);
        out->high = interval_end(before, b, 1.0 - tail);
    }
    free(before);
    free(after);
    return 0;
}
