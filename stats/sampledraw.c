/* sampledraw.c — drawing a uniform sample of the union of uniform samples (see
 * sampledraw.h). The same idea as the generators' thread merge in
 * loadgen/series.c, with the total bounded so every input can pay its share. */
#include "stats/sampledraw.h"

#include <stdbool.h>

void stats_rng_seed(struct stats_rng *rng, uint64_t seed)
{
    rng->state = seed;
}

uint64_t stats_rng_next(struct stats_rng *rng)
{
    uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t stats_rng_below(struct stats_rng *rng, uint64_t n)
{
    /* Lemire's multiply-shift with rejection: exactly uniform. */
    uint64_t threshold = -n % n;
    for (;;) {
        unsigned __int128 m = (unsigned __int128)stats_rng_next(rng) * n;
        if ((uint64_t)m >= threshold) return (uint64_t)(m >> 64);
    }
}

size_t stats_draw_plan(const struct stats_draw_input *inputs, size_t count, size_t limit,
                       size_t *take)
{
    unsigned __int128 seen = 0;
    for (size_t i = 0; i < count; i++) {
        seen += inputs[i].seen;
        take[i] = 0;
    }
    if (seen == 0) return 0;
    /* An input with a share s = seen[i]/Σseen can give at most n[i] samples, so
     * the total can be at most n[i]/s. */
    unsigned __int128 want = limit;
    for (size_t i = 0; i < count; i++) {
        if (inputs[i].seen == 0) continue;
        unsigned __int128 most = (unsigned __int128)inputs[i].n * seen / inputs[i].seen;
        if (most < want) want = most;
    }
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        take[i] = (size_t)(want * inputs[i].seen / seen);
        total += take[i];
    }
    /* The floors leave fewer than `count` samples over: one more each for the
     * inputs with the largest remainders (ties to the earlier input). */
    while (total < (size_t)want) {
        size_t best = count;
        unsigned __int128 best_rem = 0;
        for (size_t i = 0; i < count; i++) {
            unsigned __int128 rem = want * inputs[i].seen % seen;
            bool taken_extra = (unsigned __int128)take[i] * seen > want * inputs[i].seen;
            if (taken_extra || take[i] >= inputs[i].n || rem == 0) continue;
            if (best == count || rem > best_rem) {
                best = i;
                best_rem = rem;
            }
        }
        if (best == count) break;
        take[best]++;
        total++;
    }
    return total;
}

void stats_draw(double *out, struct stats_draw_input *inputs, size_t count, const size_t *take,
                struct stats_rng *rng)
{
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        double *v = inputs[i].samples;
        size_t n = inputs[i].n;
        for (size_t k = 0; k < take[i]; k++) {
            size_t j = k + (size_t)stats_rng_below(rng, n - k);
            double t = v[k];
            v[k] = v[j];
            v[j] = t;
            out[at++] = v[k];
        }
    }
}
