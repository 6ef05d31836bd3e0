/* sampling.h — the suite's one way of keeping a uniform random subset, used by
 * the generators and loadstats alike: Algorithm R over a stream (--max-samples
 * reservoirs), k of n held items (--max-doc-bytes), and the draw from several
 * uniform subsets in proportion to what each saw, so that their union stays a
 * uniform sample of everything seen (a generator's threads, merge's documents).
 * Items are 8 bytes, moved whole: uint64_t nanoseconds in the generators,
 * doubles in loadstats. */
#ifndef LOADGEN_STATS_SAMPLING_H
#define LOADGEN_STATS_SAMPLING_H

#include <stddef.h>
#include <stdint.h>

#include "stats/math/rng.h"

/* Algorithm R: the slot (below `limit`) that the seen-th item offered to a
 * full reservoir of `limit` replaces, or `limit` when it is dropped
 * (seen counts from 1 and is above limit). */
static inline size_t stats_reservoir_slot(struct stats_rng *rng, uint64_t seen, size_t limit)
{
    uint64_t j = stats_rng_below(rng, seen);
    return j < limit ? (size_t)j : limit;
}

/* Moves k items chosen uniformly at random from the n 8-byte items at `items`
 * to its front (a partial Fisher-Yates); k <= n. */
void stats_draw_front(void *items, size_t n, size_t k, struct stats_rng *rng);

struct stats_draw_input {
    void *samples; /* n 8-byte items: a uniform sample of what the input saw */
    size_t n;
    uint64_t seen; /* the true count, at least n */
};

/* How many items to take from each input so that the union is a uniform
 * sample of all seen: take[i] is in proportion to seen[i] (largest remainders
 * settle the rounding) and never above n[i]. The total is `limit`, or less
 * when an input holds too few items for its share: at most min over inputs of
 * n[i]·Σseen/seen[i]. Returns the total. */
size_t stats_draw_plan(const struct stats_draw_input *inputs, size_t count, size_t limit,
                       size_t *take);

/* Copies take[i] items chosen uniformly at random from each input into `out`,
 * input after input. Reorders the inputs' arrays. */
void stats_draw(void *out, struct stats_draw_input *inputs, size_t count, const size_t *take,
                struct stats_rng *rng);

#endif
