/* bootstrap.c — the hierarchical bootstrap of a ratio (see bootstrap.h).
 * Resampling n samples and selecting the k-th smallest is the same as taking
 * the sample at a rank drawn from the k-th order statistic of n uniforms,
 * Beta(k, n − k + 1): one beta draw instead of n draws and a selection, so a
 * run of millions of samples costs what a run of ten does. */
#include "stats/compare/bootstrap.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "stats/math/stats.h"
#include "stats/math/studentt.h"
#include "stats/math/variates.h"

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

static double side_value(const struct stats_run_metric *const *runs, size_t n)
{
    struct stats_running_mean sum = {0};
    for (size_t i = 0; i < n; i++)
        stats_running_mean_add(&sum, runs[i]->value);
    return stats_running_mean_value(&sum);
}

/* What the resamples and the runs say of one side. */
struct side {
    double point;             /* the side's statistic, the mean of its runs' */
    size_t runs;              /* k */
    double runs_error;        /* the runs' statistics' standard deviation over √k */
    double zero_share;        /* of the resamples at or below 0 */
    bool all_zero;            /* the statistic and every resample are 0 */
    bool never_negative;      /* no resample is below 0 */
    double standard_error;    /* the resamples' standard deviation, over k runs */
    double relative_variance; /* the standard error over a positive statistic, squared */
};

/* Fills `side` from its b resamples of its k runs. The spread is taken on
 * the linear scale, relative to the statistic: to first order the variance
 * of its logarithm, which needs no resample above 0. The logarithms' own
 * variance went from large to infinite as a run's lowest sample went from a
 * millionth of its median to 0, and the interval of a resample of 0 was
 * another method's, narrower than either. It is corrected for resampling k
 * runs, whose spread the bootstrap sees as (k − 1)/k of it. */
static void describe_side(const double *values, size_t b,
                          const struct stats_run_metric *const *runs, size_t k, struct side *side)
{
    size_t not_positive = 0, zeros = 0, negative = 0;
    for (size_t i = 0; i < b; i++) {
        not_positive += !(values[i] > 0.0);
        zeros += values[i] == 0.0;
        negative += values[i] < 0.0;
    }
    side->point = side_value(runs, k);
    side->runs = k;
    side->zero_share = (double)not_positive / (double)b;
    side->all_zero = side->point == 0.0 && zeros == b;
    side->never_negative = negative == 0;
    double mean, sd;
    stats_moments(values, b, 1, &mean, &sd);
    side->standard_error = k > 1 ? sd * sqrt((double)k / (double)(k - 1)) : sd;
    double relative = side->standard_error / side->point;
    side->relative_variance = !(side->point > 0.0) ? 0.0
                              : isfinite(relative) ? relative * relative
                                                   : INFINITY;
    side->runs_error = 0.0;
    if (k > 1) {
        /* the runs' statistics' spread, each over the largest (no square overflows) */
        double largest = 0.0, squares = 0.0;
        for (size_t i = 0; i < k; i++)
            largest = fmax(largest, fabs(runs[i]->value));
        for (size_t i = 0; largest > 0.0 && i < k; i++) {
            double d = runs[i]->value / largest - side->point / largest;
            squares += d * d;
        }
        side->runs_error = largest * sqrt(squares / (double)(k - 1) / (double)k);
    }
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
    *df = kb_ + kn_ - 2.0;
    if (isinf(vb) || isinf(vn)) return INFINITY; /* not 0 × inf for a side of one run */
    double spread = ((kb_ - 1.0) * vb * kb_ + (kn_ - 1.0) * vn * kn_) / (kb_ + kn_ - 2.0);
    return spread * (1.0 / kb_ + 1.0 / kn_);
}

/* Whether a side can be 0 at this confidence. With several runs, by their
 * statistics: their mean less z (the normal's quantile, 2.58 at 99%) of
 * their standard errors reaches 0, as a base with errors in one run of two
 * does, or one whose runs disagree as 0.0012 and 0.31 ms do (a loop's lag),
 * which no resample puts at 0 but whose logarithm's spread made an interval
 * of 0.0000-132740317175800 (0.0001-45846 relative). Samples of 0 within a
 * run widen the interval but do not decide this: with one of five samples 0
 * in each of two runs a side, the resamples' own spread put the side near 0
 * or not as the seed fell. Student's t is not in it: on the linear scale t
 * would take two runs 1.3-fold apart to 0, where on the logarithm's they are
 * well clear of it. With one run there is no run-to-run spread, and its
 * resamples say it: 0 in more than the interval's tail of them. */
static bool can_be_zero(const struct side *side, double tail, double z)
{
    if (side->runs < 2) return side->zero_share > tail;
    return side->point - z * side->runs_error <= 0.0;
}

/* A new side that can be 0, over a base that cannot: its logarithm's spread
 * would reach far below 0 and as far above, so each side's statistic ± t
 * standard errors on the linear scale (never below 0 where its resamples are
 * not), and the ratio's ends from their ends; a base whose range then
 * reaches 0 leaves the ratio unbounded above. */
static void interval_at_zero(const struct side *before, const struct side *after, double t,
                             struct stats_interval *out)
{
    double new_low = after->point - t * after->standard_error;
    double new_high = after->point + t * after->standard_error;
    double base_low = before->point - t * before->standard_error;
    double base_high = before->point + t * before->standard_error;
    if (after->never_negative) new_low = fmax(new_low, 0.0);
    if (new_low >= 0.0)
        out->low = new_low / base_high;
    else
        out->low = base_low > 0.0 ? new_low / base_low : -INFINITY;
    if (new_high <= 0.0)
        out->high = new_high / base_high;
    else
        out->high = base_low > 0.0 ? new_high / base_low : INFINITY;
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
    double tail = (1.0 - settings->confidence) / 2.0;
    struct side from, to;
    describe_side(before, b, base, n_base, &from);
    describe_side(after, b, current, n_current, &to);
    free(before);
    free(after);
    double variance =
        pooled_variance(from.relative_variance, n_base, to.relative_variance, n_current, &out->df);
    double t = stats_t_quantile(1.0 - tail, out->df), z = stats_t_quantile(1.0 - tail, INFINITY);
    out->zero_base = !(from.point > 0.0) || can_be_zero(&from, tail, z);
    if (from.all_zero) {
        /* 0 over 0 is no move; over 0, a new side that cannot be 0 moved
         * from nothing; anything else is 0 over 0 at times */
        out->low = out->high = to.all_zero ? 1.0 : !can_be_zero(&to, tail, z) ? INFINITY : NAN;
    } else if (out->zero_base) {
        out->low = out->high = NAN; /* a ratio over what may be 0 */
    } else if (to.point > 0.0 && !can_be_zero(&to, tail, z)) {
        double half = t * sqrt(variance);
        double center = log(to.point / from.point);
        out->low = exp(center - half);
        out->high = exp(center + half);
    } else {
        interval_at_zero(&from, &to, t, out);
    }
    return 0;
}
