/* stats.c — the summary statistics of a set of samples (see stats.h).
 * The formulas mirror the harness line for line, including the summation order
 * (sorted), so a number computed here and one computed there agree to the digit. */
#include "stats/math/stats.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

double stats_round_to(double x, int decimals)
{
    if (x == 0.0 || !isfinite(x)) return x;
    double factor = pow(10.0, decimals);
    double scaled = x * factor;
    /* a value this large has no fraction to round, and the harness's inf is no answer */
    if (!isfinite(scaled)) return x;
    /* round() is half away from zero, like Rust's f64::round in the harness. */
    return round(scaled) / factor;
}

double stats_interpolate(double lo, double hi, double w)
{
    double span = hi - lo;
    if (isfinite(span)) return lo + span * w;
    return lo * (1.0 - w) + hi * w;
}

/* 2^-1000 brings the largest double to 2^24: a sum of any count of such
 * values stays finite, and values too small to stay normal once scaled are
 * too small to matter beside a sum that overflowed. */
#define MEAN_SCALE 0x1p-1000

void stats_running_mean_add(struct stats_running_mean *mean, double x)
{
    mean->sum += x;
    mean->scaled += x * MEAN_SCALE;
    mean->n++;
}

double stats_running_mean_value(const struct stats_running_mean *mean)
{
    if (mean->n == 0) return 0.0;
    if (isfinite(mean->sum)) return mean->sum / (double)mean->n;
    /* rounding may lift a mean of values at the largest double past it */
    double scaled_back = mean->scaled / (double)mean->n / MEAN_SCALE;
    return isfinite(scaled_back) ? scaled_back : copysign(DBL_MAX, scaled_back);
}

double stats_mean(const double *samples, size_t n)
{
    if (n == 0) return NAN;
    struct stats_running_mean sum = {0};
    for (size_t i = 0; i < n; i++)
        stats_running_mean_add(&sum, samples[i]);
    return stats_running_mean_value(&sum);
}

double stats_round2(double x)
{
    return stats_round_to(x, 2);
}

double stats_percentile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0) return 0.0;
    if (n == 1) return sorted[0];
    double rank = q * (double)(n - 1);
    size_t lower = (size_t)floor(rank);
    size_t upper = (size_t)ceil(rank);
    if (upper >= n) upper = n - 1;
    if (lower >= n) lower = n - 1;
    if (lower == upper) return sorted[lower];
    return stats_interpolate(sorted[lower], sorted[upper], rank - (double)lower);
}

/* The deviations |x − median| of a sorted array are two sorted runs meeting at
 * the median: walking outwards from it and always taking the smaller deviation
 * yields them in ascending order, so the k-th smallest needs no copy and no sort.
 * (m − x and x − m are exactly the |x − m| the harness computes.) */
static double kth_deviation(const double *sorted, size_t n, double median, double scale, size_t k,
                            size_t *left, size_t *right, size_t *taken, double *last)
{
    /* *left is one past the next candidate on the low side (0 = exhausted);
     * *right is the next candidate on the high side (n = exhausted). */
    while (*taken <= k) {
        double low = *left > 0 ? median * scale - sorted[*left - 1] * scale : INFINITY;
        double high = *right < n ? sorted[*right] * scale - median * scale : INFINITY;
        if (low <= high) {
            *last = low;
            (*left)--;
        } else {
            *last = high;
            (*right)++;
        }
        (*taken)++;
    }
    return *last;
}

/* The MAD of the samples times `scale`, a power of two (exact). */
static double scaled_mad(const double *sorted, size_t n, double median, double scale)
{
    /* Split point: everything before `split` is < median, the rest >= median. */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < median)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t left = lo, right = lo, taken = 0;
    double last = 0.0;
    double rank = 0.5 * (double)(n - 1);
    size_t lower = (size_t)floor(rank), upper = (size_t)ceil(rank);
    double at_lower = kth_deviation(sorted, n, median, scale, lower, &left, &right, &taken, &last);
    if (lower == upper) return at_lower;
    double at_upper = kth_deviation(sorted, n, median, scale, upper, &left, &right, &taken, &last);
    return at_lower + (at_upper - at_lower) * (rank - (double)lower);
}

double stats_mad_sorted(const double *sorted, size_t n, double median)
{
    if (n == 0) return 0.0;
    if (n == 1) return fabs(sorted[0] - median);
    double mad = scaled_mad(sorted, n, median, 1.0);
    /* a deviation beyond the largest double (samples of both signs near it):
     * the deviations halved, whose median is half the MAD */
    return isfinite(mad) ? mad : 2.0 * scaled_mad(sorted, n, median, 0.5);
}

/* An in-place introsort: glibc's qsort merge-sorts through a buffer as large
 * as the input, which would double the memory a 10-million-sample metric needs. */
static void insertion_sort(double *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

static void sift_down(double *a, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && a[child + 1] > a[child]) child++;
        if (a[root] >= a[child]) return;
        double t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

static void heap_sort(double *a, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(a, i, n);
    for (size_t end = n; end-- > 1;) {
        double t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end);
    }
}

static void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* Partitions a[0..n) (n > 2) around a median-of-three pivot with Hoare's
 * scheme, so that runs of equal values split evenly and ties stay fast.
 * Returns the pivot's final place: nothing before it is larger, nothing
 * after it smaller. */
static size_t partition(double *a, size_t n)
{
    size_t mid = n / 2;
    if (a[mid] < a[0]) swap(&a[mid], &a[0]);
    if (a[n - 1] < a[0]) swap(&a[n - 1], &a[0]);
    if (a[n - 1] < a[mid]) swap(&a[n - 1], &a[mid]);
    swap(&a[0], &a[mid]);
    double pivot = a[0];
    size_t i = 0, j = n;
    for (;;) {
        do
            i++;
        while (i < n && a[i] < pivot);
        do
            j--;
        while (a[j] > pivot);
        if (i >= j) break;
        swap(&a[i], &a[j]);
    }
    swap(&a[0], &a[j]);
    return j;
}

static void intro_sort(double *a, size_t n, int depth)
{
    while (n > 16) {
        if (depth-- == 0) {
            heap_sort(a, n);
            return;
        }
        size_t j = partition(a, n);
        /* recurse into the smaller side, loop on the larger */
        if (j < n - j - 1) {
            intro_sort(a, j, depth);
            a += j + 1;
            n -= j + 1;
        } else {
            intro_sort(a + j + 1, n - j - 1, depth);
            n = j;
        }
    }
    insertion_sort(a, n);
}

/* Rearranges a[0..n) so that a[k] is the k-th smallest, everything before it
 * no larger and everything after it no smaller (Hoare's selection, with the
 * sort's partition). */
static void select_kth(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* the k-th lies in a[lo..hi) */
    while (hi - lo > 16) {
        size_t j = partition(a + lo, hi - lo);
        size_t at = lo + j;
        if (at == k) return;
        if (k < at)
            hi = at;
        else
            lo = at + 1;
    }
    insertion_sort(a + lo, hi - lo);
}

void stats_percentiles(double *samples, size_t n, const double *qs, size_t nq, double *out)
{
    size_t from = 0; /* everything before `from` is already no larger than what follows */
    for (size_t i = 0; i < nq; i++) {
        if (n == 0) {
            out[i] = 0.0;
            continue;
        }
        /* the extremes are one pass, not a selection (selecting the minimum
         * partitions the whole array again and again) */
        if (qs[i] <= 0 || qs[i] >= 1) {
            bool low = qs[i] <= 0;
            size_t k0 = low ? 0 : from; /* nothing before `from` is larger */
            double x = samples[k0];
            for (size_t k = k0 + 1; k < n; k++)
                if (low ? samples[k] < x : samples[k] > x) x = samples[k];
            out[i] = x;
            continue;
        }
        double rank = qs[i] * (double)(n - 1);
        size_t lower = (size_t)floor(rank);
        if (lower >= n) lower = n - 1;
        if (lower < from) from = 0; /* qs not ascending: start over */
        select_kth(samples + from, n - from, lower - from);
        from = lower;
        double lo = samples[lower], weight = rank - (double)lower;
        if (lower + 1 >= n || weight == 0) {
            out[i] = lo;
            continue;
        }
        /* the next order statistic is the smallest of what follows */
        double hi = samples[lower + 1];
        for (size_t k = lower + 2; k < n; k++)
            if (samples[k] < hi) hi = samples[k];
        out[i] = stats_interpolate(lo, hi, weight);
    }
}

void stats_sort(double *samples, size_t n)
{
    int depth = 0;
    for (size_t m = n; m > 1; m >>= 1)
        depth += 2;
    intro_sort(samples, n, depth);
}

/* The sum of the squared deviations from `mean` of the values times `scale`. */
static double scaled_squares(const double *values, size_t n, double mean, double scale)
{
    double squares = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = values[i] * scale - mean * scale;
        squares += d * d;
    }
    return squares;
}

void stats_moments(const double *values, size_t n, size_t ddof, double *mean, double *stddev)
{
    struct stats_running_mean sum = {0};
    for (size_t i = 0; i < n; i++)
        stats_running_mean_add(&sum, values[i]);
    *mean = stats_running_mean_value(&sum);
    *stddev = 0.0;
    if (n <= ddof) return;
    double squares = scaled_squares(values, n, *mean, 1.0);
    if (isfinite(squares)) {
        *stddev = sqrt(squares / (double)(n - ddof));
        return;
    }
    /* a deviation past 1e154 squares beyond a double: scaled so the largest
     * value is below 1, each deviation is below 2 */
    double largest = 0.0;
    for (size_t i = 0; i < n; i++)
        largest = fmax(largest, fabs(values[i]));
    double scale = ldexp(1.0, -(ilogb(largest) + 1));
    *stddev = sqrt(scaled_squares(values, n, *mean, scale) / (double)(n - ddof)) / scale;
}

void stats_moments_sorted(const double *sorted, size_t n, double *mean, double *stddev)
{
    /* Population variance: the samples are every observation, not a draw. */
    stats_moments(sorted, n, 0, mean, stddev);
}

int stats_summarize_unrounded(double *samples, size_t n, struct stats_summary *out)
{
    if (n == 0 || samples == NULL || out == NULL) return -1;
    stats_sort(samples, n);
    double mean, stddev;
    stats_moments_sorted(samples, n, &mean, &stddev);
    double median = stats_percentile_sorted(samples, n, 0.5);

    out->n = n;
    out->min = samples[0];
    out->max = samples[n - 1];
    out->mean = mean;
    out->median = median;
    out->p90 = stats_percentile_sorted(samples, n, 0.90);
    out->p95 = stats_percentile_sorted(samples, n, 0.95);
    out->p99 = stats_percentile_sorted(samples, n, 0.99);
    out->p999 = stats_percentile_sorted(samples, n, 0.999);
    out->stddev = stddev;
    /* A zero mean makes the ratio meaningless rather than infinite (and so
     * does a mean too near zero for the ratio to be a double). */
    double cv = mean == 0.0 ? 0.0 : stddev / mean;
    out->cv = isfinite(cv) ? cv : 0.0;
    out->mad = stats_mad_sorted(samples, n, median);
    return 0;
}

void stats_summary_round(struct stats_summary *s)
{
    double *const fields[] = {&s->min, &s->max,  &s->mean,   &s->median, &s->p90, &s->p95,
                              &s->p99, &s->p999, &s->stddev, &s->cv,     &s->mad};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        *fields[i] = stats_round2(*fields[i]);
}

int stats_summarize(double *samples, size_t n, struct stats_summary *out)
{
    if (stats_summarize_unrounded(samples, n, out) != 0) return -1;
    stats_summary_round(out);
    return 0;
}
