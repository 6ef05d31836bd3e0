/* stats.h — every derived number loadgen reports, computed in one place.
 * The collectors print raw samples; this library turns them into the summary the
 * benchmark harness records, with the harness's exact definitions and rounding. */
#ifndef LOADGEN_STATS_STATS_H
#define LOADGEN_STATS_STATS_H

#include <stddef.h>

struct stats_summary {
    size_t n;
    double min, max, mean, median, p90, p95, p99, p999, stddev, cv, mad;
};

/* Computes the summary of n samples, each field rounded as the harness rounds.
 * Sorts `samples` in place. n == 0 returns -1. Needs no memory beyond `samples`. */
int stats_summarize(double *samples, size_t n, struct stats_summary *out);

/* The same summary unrounded, for a table that chooses its own unit and
 * digits per row (summary's default table); stats_summarize is this, then
 * stats_summary_round. */
int stats_summarize_unrounded(double *samples, size_t n, struct stats_summary *out);

/* Rounds every field but n as stats_summarize rounds it. */
void stats_summary_round(struct stats_summary *s);

/* Percentile q (0..1) of n sorted samples: rank q·(n−1), linear interpolation
 * between the neighbouring order statistics; one sample is that sample. */
double stats_percentile_sorted(const double *sorted, size_t n, double q);

/* Percentiles qs[0..nq) (ascending, 0..1) of n unsorted samples, with exactly
 * the definition of stats_percentile_sorted, by selection instead of a full
 * sort: linear time for a few percentiles. Reorders `samples`; unrounded. */
void stats_percentiles(double *samples, size_t n, const double *qs, size_t nq, double *out);

/* Median absolute deviation (unscaled) of n sorted samples around `median`,
 * with the same interpolation as the percentiles; allocates nothing. */
double stats_mad_sorted(const double *sorted, size_t n, double median);

/* Mean (sum in ascending order over n) and population standard deviation of
 * n sorted samples, unrounded: the values summary rounds. 0 and 0 for n == 0. */
void stats_moments_sorted(const double *sorted, size_t n, double *mean, double *stddev);

/* Mean (summed in the order given) and standard deviation over n − ddof (0:
 * of a population, 1: of a sample; 0 when n ≤ ddof) of n values. Both are
 * finite when the values are: where the plain sum or sum of squares would
 * overflow, they are taken over the values scaled by a power of two (exact)
 * and scaled back. */
void stats_moments(const double *values, size_t n, size_t ddof, double *mean, double *stddev);

/* Rounds to 2 decimals, half away from zero, exactly as the harness does
 * (round(x·100)/100); 0 and non-finite values pass unchanged, and so does a
 * value whose x·100 would overflow (it has no fraction left to round). */
double stats_round2(double x);

/* Same rounding to `decimals` places (0..15). */
double stats_round_to(double x, int decimals);

/* lo + (hi − lo)·w, the percentiles' interpolation (0 ≤ w ≤ 1); where hi − lo
 * overflows (samples of both signs near the largest double) its equal
 * lo·(1 − w) + hi·w, which cannot. */
double stats_interpolate(double lo, double hi, double w);

/* A mean of values added one at a time, finite when they are: their plain
 * sum in the order added while that is finite, else their sum scaled by
 * 2^-1000 (exact), which cannot overflow. Zero it to start. */
struct stats_running_mean {
    double sum, scaled;
    size_t n;
};

void stats_running_mean_add(struct stats_running_mean *mean, double x);

/* The mean of the values added; 0 for none. */
double stats_running_mean_value(const struct stats_running_mean *mean);

/* The mean of n samples (NAN for none), summed in the order given. */
double stats_mean(const double *samples, size_t n);

/* Sorts n doubles ascending (no NaN expected: documents never carry one). */
void stats_sort(double *samples, size_t n);

#endif
