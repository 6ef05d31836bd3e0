/* sampledraw.h — one uniform random sample of everything several inputs saw,
 * when each input holds a uniform sample (all of it, or a --max-samples
 * reservoir) of what it saw: take from each in proportion to its true count. */
#ifndef LOADGEN_STATS_SAMPLEDRAW_H
#define LOADGEN_STATS_SAMPLEDRAW_H

#include <stddef.h>
#include <stdint.h>

/* A seedable generator (splitmix64): the same seed gives the same draw. */
struct stats_rng {
    uint64_t state;
};

void stats_rng_seed(struct stats_rng *rng, uint64_t seed);
uint64_t stats_rng_next(struct stats_rng *rng);
/* Uniform in [0, n), n > 0. */
uint64_t stats_rng_below(struct stats_rng *rng, uint64_t n);

struct stats_draw_input {
    double *samples; /* a uniform sample of what the input saw */
    size_t n;
    uint64_t seen; /* the true count, at least n */
};

/* How many samples to take from each input so that the union is a uniform
 * sample of all seen: take[i] is in proportion to seen[i] (largest remainders
 * settle the rounding) and never above n[i]. The total is `limit`, or less when
 * an input holds too few samples for its share: at most min over inputs of
 * n[i]·Σseen/seen[i]. Returns the total. */
size_t stats_draw_plan(const struct stats_draw_input *inputs, size_t count, size_t limit,
                       size_t *take);

/* Copies take[i] samples chosen uniformly at random from each input into `out`,
 * input after input. Reorders the inputs' arrays (partial Fisher-Yates). */
void stats_draw(double *out, struct stats_draw_input *inputs, size_t count, const size_t *take,
                struct stats_rng *rng);

#endif
