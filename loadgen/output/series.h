/* A series of raw samples for one metric of one level on one thread: one
 * per request, durations in nanoseconds (8 bytes each; written out in ms). Beyond `limit` samples
 * it keeps a uniform random subset (stats/math/sampling.h's Algorithm R) while `seen` stays exact;
 * series from several threads merge into one uniform subset of their union. */
#ifndef LOADGEN_SERIES_H
#define LOADGEN_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/math/sampling.h"

struct lg_series {
    uint64_t *v;
    size_t n;      /* samples held */
    size_t cap;    /* allocated slots */
    size_t limit;  /* the most samples ever held (--max-samples) */
    uint64_t seen; /* samples offered, exact */
    bool lost;     /* memory ran out and a sample was lost: the run fails */
};

void lg_series_init(struct lg_series *s, size_t limit);
void lg_series_free(struct lg_series *s);
/* Grows the array; returns -1 when memory is exhausted. */
int lg_series_grow(struct lg_series *s);

/* Makes room for `n` samples (at most the limit) and touches the memory, so
 * that offering them later neither allocates nor faults a page in. -1 when
 * memory is exhausted. */
int lg_series_prepare(struct lg_series *s, size_t n);

/* Offers one sample. Amortised O(1); allocates only when the array doubles. */
static inline void lg_series_add(struct lg_series *s, uint64_t x, struct stats_rng *rng)
{
    s->seen++;
    if (s->n < s->limit) {
        if (s->n == s->cap && lg_series_grow(s) < 0) {
            s->lost = true; /* never silently: the level reports it */
            return;
        }
        s->v[s->n++] = x;
        return;
    }
    size_t slot = stats_reservoir_slot(rng, s->seen, s->limit);
    if (slot < s->limit) s->v[slot] = x;
}

/* Merges `n` series into `out` (initialised by the caller with the same limit):
 * concatenated when everything fits, else a uniform subset of `limit` samples
 * drawn from each series in proportion to what it saw. Concatenating moves
 * the first part's array into `out` (that part is left empty, its `seen`
 * kept): the parts are spent. */
int lg_series_merge(struct lg_series *out, struct lg_series *const *parts, size_t n,
                    struct stats_rng *rng);

/* True when the series dropped samples to stay within its limit. */
static inline int lg_series_sampled(const struct lg_series *s)
{
    return s->seen > s->n;
}

#endif
