/* Sample series: growth and merging. See series.h. */
#include "loadgen/output/series.h"

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

int lg_series_merge(struct lg_series *out, struct lg_series *const *parts, size_t n,
                    struct stats_rng *rng)
{
    uint64_t seen = 0, held = 0;
    for (size_t i = 0; i < n; i++) {
        seen += parts[i]->seen;
        held += parts[i]->n;
    }
    out->seen = seen;
    if (seen == held && held <= out->limit) {
        /* The first part's array becomes the result's, grown in place (for a
         * large array realloc moves pages, it copies nothing): with one
         * worker the samples are neither copied nor faulted in a second
         * time, and the level's end does not hold them twice. */
        size_t first = 0;
        if (n && !out->v && !out->n && parts[0]->n) {
            out->v = parts[0]->v;
            out->n = parts[0]->n;
            out->cap = parts[0]->cap;
            parts[0]->v = NULL;
            parts[0]->n = parts[0]->cap = 0;
            first = 1;
        }
        if (reserve(out, held) < 0) return -1;
        for (size_t i = first; i < n; i++) {
            if (parts[i]->n) memcpy(out->v + out->n, parts[i]->v, parts[i]->n * sizeof(*out->v));
            out->n += parts[i]->n;
        }
        return 0;
    }
    /* Each part holds a uniform subset of what it saw; drawing from each in
     * proportion to `seen` keeps the union uniform (stats/math/sampling.h, the
     * same draw loadstats merge makes of documents). */
    size_t want = out->limit < held ? out->limit : (size_t)held;
    struct stats_draw_input *inputs = calloc(n ? n : 1, sizeof(*inputs));
    size_t *take = calloc(n ? n : 1, sizeof(*take));
    if (!inputs || !take || reserve(out, want) < 0) {
        free(inputs);
        free(take);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        inputs[i] = (struct stats_draw_input){parts[i]->v, parts[i]->n, parts[i]->seen};
    size_t total = stats_draw_plan(inputs, n, want, take);
    stats_draw(out->v + out->n, inputs, n, take, rng);
    out->n += total;
    free(inputs);
    free(take);
    return 0;
}
