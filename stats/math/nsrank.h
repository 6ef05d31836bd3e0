/* nsrank.h — percentiles, mean and deviation of integer nanosecond samples
 * for the tools' stderr summary, without copying or reordering them: for
 * the percentiles, samples are counted into buckets, and only the buckets
 * holding the ranks asked for are gathered and searched. The definitions
 * are stats_percentiles' and stats_moments' to the last bit. */
#ifndef LOADGEN_STATS_NSRANK_H
#define LOADGEN_STATS_NSRANK_H

#include <stddef.h>
#include <stdint.h>

/* Percentiles qs[0..nq) (0..1, any order) of ns[0..n), in milliseconds:
 * out[i] is what stats_percentiles gives for qs[i] over the samples as
 * doubles ns/1e6. n == 0 gives zeros. Returns -1 when memory runs out. */
int stats_percentiles_ns(const uint64_t *ns, size_t n, const double *qs, size_t nq, double *out);

/* Mean and population standard deviation of ns[0..n) in milliseconds,
 * without a copy: what stats_moments (ddof 0) gives over the samples as
 * doubles ns/1e6 in the same order, to the last bit. n == 0 gives zeros. */
void stats_moments_ns(const uint64_t *ns, size_t n, double *mean_ms, double *stddev_ms);

#endif
