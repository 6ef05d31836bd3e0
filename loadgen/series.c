/* Sample series: growth and merging. See series.h. */
#include "loadgen/series.h"

#include <stdlib.h>
#include <string.h>

void lg_series_init(struct lg_series *s, size_t limit)
{
    memset(s, 0, sizeof(*s));
    s->limit = limit;
}

void lg_series_free(struct lg_series *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
    s->seen = 0;
}

int lg_series_grow(struct lg_series *s)
{
    size_t cap = s->cap ? s->cap * 2 : 1024;
    if (cap > s->limit) cap = s->limit;
    if (cap <= s->cap) return -1;
    uint64_t *v = realloc(s->v, cap * sizeof(*v));
    if (!v) return -1;
    s->v = v;
    s->cap = cap;
    return 0;
}

static int reserve(struct lg_series *s, size_t n)
{
    if (n <= s->cap) return 0;
    uint64_t *v = realloc(s->v, n * sizeof(*v));
    if (!v) return -1;
    s->v = v;
    s->cap = n;
    return 0;
}

int lg_series_prepare(struct lg_series *s, size_t n)
{
    if (n > s->limit) n = s->limit;
    size_t had = s->cap;
    if (reserve(s, n) < 0) return -1;
    if (s->cap > had) memset(s->v + had, 0, (s->cap - had) * sizeof(*s->v));
    return 0;
}

/* Moves k samples chosen uniformly from src (partial Fisher-Yates) to dst. */
static void take_random(uint64_t *dst, uint64_t *src, size_t n, size_t k, struct lg_rng *rng)
{
    for (size_t i = 0; i < k; i++) {
        size_t j = i + (size_t)lg_rng_below(rng, n - i);
        uint64_t t = src[i];
        src[i] = src[j];
        src[j] = t;
        dst[i] = src[i];
    }
}

int lg_series_merge(struct lg_series *out, struct lg_series *const *parts, size_t n,
                    struct lg_rng *rng)
{
    uint64_t seen = 0, held = 0;
    for (size_t i = 0; i < n; i++) {
        seen += parts[i]->seen;
        held += parts[i]->n;
    }
    out->seen = seen;
    if (seen == held && held <= out->limit) {
        if (reserve(out, held) < 0) return -1;
        for (size_t i = 0; i < n; i++) {
            if (parts[i]->n) memcpy(out->v + out->n, parts[i]->v, parts[i]->n * sizeof(*out->v));
            out->n += parts[i]->n;
        }
        return 0;
    }
    /* Each part holds a uniform subset of what it saw; drawing from each in
     * proportion to `seen` keeps the union uniform. Largest remainders decide
     * the samples that rounding leaves over. */
    size_t want = out->limit < held ? out->limit : (size_t)held;
    if (reserve(out, want) < 0) return -1;
    size_t *take = calloc(n ? n : 1, sizeof(*take));
    double *rem = calloc(n ? n : 1, sizeof(*rem));
    if (!take || !rem) {
        free(take);
        free(rem);
        return -1;
    }
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        double exact = (double)want * (double)parts[i]->seen / (double)seen;
        take[i] = (size_t)exact;
        if (take[i] > parts[i]->n) take[i] = parts[i]->n;
        rem[i] = exact - (double)take[i];
        total += take[i];
    }
    while (total < want) {
        size_t best = n;
        for (size_t i = 0; i < n; i++)
            if (take[i] < parts[i]->n && (best == n || rem[i] > rem[best])) best = i;
        if (best == n) break;
        take[best]++;
        rem[best] = -1;
        total++;
    }
    for (size_t i = 0; i < n; i++) {
        take_random(out->v + out->n, parts[i]->v, parts[i]->n, take[i], rng);
        out->n += take[i];
    }
    free(take);
    free(rem);
    return 0;
}
