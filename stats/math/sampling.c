/* sampling.c — uniform subsets (see sampling.h). */
#include "stats/math/sampling.h"

#include <stdbool.h>
#include <string.h>

_Static_assert(sizeof(double) == sizeof(uint64_t), "items are 8 bytes, as doubles or as counts");

void stats_draw_front(void *items, size_t n, size_t k, struct stats_rng *rng)
{
    unsigned char *v = items;
    for (size_t i = 0; i < k; i++) {
        size_t j = i + (size_t)stats_rng_below(rng, n - i);
        unsigned char t[8];
        memcpy(t, v + 8 * i, 8);
        memcpy(v + 8 * i, v + 8 * j, 8);
        memcpy(v + 8 * j, t, 8);
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
    /* An input with a share s = seen[i]/Σseen can give at most n[i] items, so
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
    /* The floors leave fewer than `count` items over: one more each for the
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

void stats_draw(void *out, struct stats_draw_input *inputs, size_t count, const size_t *take,
                struct stats_rng *rng)
{
    unsigned char *at = out;
    for (size_t i = 0; i < count; i++) {
        stats_draw_front(inputs[i].samples, inputs[i].n, take[i], rng);
        if (take[i]) memcpy(at, inputs[i].samples, 8 * take[i]);
        at += 8 * take[i];
    }
}
