/* hgrm.h — HdrHistogram's percentile distribution text (the .hgrm files its
 * plotter reads: outputPercentileDistribution's layout) computed exactly from
 * raw samples instead of from histogram buckets. */
#ifndef LOADGEN_STATS_HGRM_H
#define LOADGEN_STATS_HGRM_H

#include <stddef.h>
#include <stdio.h>

/* Writes the distribution of n sorted samples (n > 0):
 *  - the percentile levels are HdrHistogram's: `ticks_per_half` equal steps in
 *    each half of the distance left to 100% (5 by default there and here);
 *  - each line's Value is the percentile of the samples at its level with the
 *    definition `loadstats summary` uses (rank p·(n−1), linear interpolation),
 *    and TotalCount the number of samples at or below that Value;
 *  - the lines end where HdrHistogram's would: after the first level whose
 *    nearest-rank sample is the largest one, followed by a 100% line with the
 *    maximum;
 *  - the footer has the exact mean and population standard deviation, the
 *    maximum and the count, and, as the histogram's shape, Buckets = the number
 *    of distinct values with SubBuckets = 1 (every value its own bucket).
 * Values are printed with `decimals` decimals (HdrHistogram prints as many as
 * its significant digits, commonly 3), in the samples' own unit. */
void stats_hgrm_write(FILE *out, const double *sorted, size_t n, int ticks_per_half, int decimals);

#endif
