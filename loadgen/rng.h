/* A small, fast, seedable generator (xorshift64*) for reservoir sampling and
 * the merge of reservoirs. Not for anything that needs to be unpredictable. */
#ifndef LOADGEN_RNG_H
#define LOADGEN_RNG_H

#include <stdint.h>

struct lg_rng {
    uint64_t state;
};

static inline void lg_rng_seed(struct lg_rng *r, uint64_t seed)
{
    r->state = seed ? seed : 0x9e3779b97f4a7c15ull;
}

static inline uint64_t lg_rng_next(struct lg_rng *r)
{
    uint64_t x = r->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, n) without modulo bias worth caring about for n < 2^32. */
static inline uint64_t lg_rng_below(struct lg_rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)lg_rng_next(r) * n) >> 64);
}

#endif
