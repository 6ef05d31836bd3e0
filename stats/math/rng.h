/* rng.h — the suite's one pseudo-random generator (splitmix64), seedable so
 * that the same seed gives the same draw: reservoirs and thread merges in the
 * generators, weighted draws in merge, resamples in compare. Not for anything
 * that must be unpredictable. Inline: the generators draw on the request path. */
#ifndef LOADGEN_STATS_RNG_H
#define LOADGEN_STATS_RNG_H

#include <stdint.h>

struct stats_rng {
    uint64_t state;
};

static inline void stats_rng_seed(struct stats_rng *rng, uint64_t seed)
{
    rng->state = seed;
}

static inline uint64_t stats_rng_next(struct stats_rng *rng)
{
    uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0, exactly (Lemire's multiply-shift; the rejection
 * step, and its division, is reached with probability below n / 2^64). */
static inline uint64_t stats_rng_below(struct stats_rng *rng, uint64_t n)
{
    unsigned __int128 m = (unsigned __int128)stats_rng_next(rng) * n;
    if ((uint64_t)m < n) {
        uint64_t threshold = -n % n;
        while ((uint64_t)m < threshold)
            m = (unsigned __int128)stats_rng_next(rng) * n;
    }
    return (uint64_t)(m >> 64);
}

/* Uniform in (0, 1): never 0 or 1, so its logarithm is finite. */
static inline double stats_rng_open01(struct stats_rng *rng)
{
    return ((double)(stats_rng_next(rng) >> 11) + 0.5) * 0x1.0p-53;
}

#endif
