/* hgrm.c — the percentile distribution text (see hgrm.h). The level stepping
 * reproduces HdrHistogram's PercentileIterator to the bit, so the lines fall on
 * the same percentiles as a Java or C HdrHistogram's output. */
#include "stats/write/hgrm.h"

#include <math.h>

#include "stats/math/stats.h"

/* How many samples are at or below `value` (upper bound by bisection). */
static size_t count_at_or_below(const double *sorted, size_t n, double value)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] <= value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* HdrHistogram's nearest rank: the first sample whose cumulative count reaches
 * `level` percent, compared as it compares, (100·count)/total >= level. */
static size_t nearest_rank(size_t n, double level)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((100.0 * (double)(mid + 1)) / (double)n >= level)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The next level: a fixed step within each half of the distance left to 100%. */
static double next_level(double level, int ticks_per_half)
{
    long long halvings = (long long)(log(100.0 / (100.0 - level)) / log(2.0));
    double ticks = (double)ticks_per_half * pow(2.0, (double)(halvings + 1));
    return level + 100.0 / ticks;
}

void stats_hgrm_write(FILE *out, const double *sorted, size_t n, int ticks_per_half, int decimals)
{
    double max = sorted[n - 1];
    fprintf(out, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
            "1/(1-Percentile)");
    double level = 0.0;
    for (;;) {
        double q = level / 100.0;
        double value = stats_percentile_sorted(sorted, n, q);
        fprintf(out, "%12.*f %2.12f %10zu %14.2f\n", decimals, value, q,
                count_at_or_below(sorted, n, value), 1.0 / (1.0 - q));
        if (sorted[nearest_rank(n, level)] == max) break; /* HdrHistogram's last recorded value */
        double next = next_level(level, ticks_per_half);
        /* Near 100% a step can vanish in rounding: stop rather than repeat a level. */
        if (!(next > level) || next >= 100.0) break;
        level = next;
    }
    fprintf(out, "%12.*f %2.12f %10zu\n", decimals, max, 1.0, n);

    double mean, stddev;
    stats_moments_sorted(sorted, n, &mean, &stddev);
    size_t distinct = 1;
    for (size_t i = 1; i < n; i++)
        distinct += sorted[i] != sorted[i - 1];
    fprintf(out, "#[Mean    = %12.*f, StdDeviation   = %12.*f]\n", decimals, mean, decimals,
            stddev);
    fprintf(out, "#[Max     = %12.*f, Total count    = %12zu]\n", decimals, max, n);
    fprintf(out, "#[Buckets = %12zu, SubBuckets     = %12d]\n", distinct, 1);
}
