/* samerun.c — telling a run given twice to a merge (see samerun.h). */
#include "stats/runs/samerun.h"

#include <string.h>

bool stats_runmeta_names_run(const struct stats_runmeta *meta)
{
    return meta->tool != NULL && meta->host != NULL && meta->started_at != NULL;
}

static bool same_string(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

bool stats_same_run(const struct stats_runmeta *a, const struct stats_runmeta *b)
{
    /* The start alone is to the millisecond: generators started together on
     * one host differ in their command lines (their --meta paths at least),
     * shards of one run in their index. */
    if (!same_string(a->tool, b->tool) || !same_string(a->host, b->host) ||
        !same_string(a->started_at, b->started_at) || !same_string(a->run_id, b->run_id) ||
        a->has_shard != b->has_shard || a->argc != b->argc ||
        (a->argv == NULL) != (b->argv == NULL))
        return false;
    if (a->has_shard && (a->shard_index != b->shard_index || a->shard_count != b->shard_count))
        return false;
    for (size_t i = 0; i < a->argc; i++)
        if (strcmp(a->argv[i], b->argv[i]) != 0) return false;
    return true;
}

/* Two finalizers (SplitMix64's and MurmurHash3's): each a bijection of 64
 * bits, so a word that differs always leaves its lane different. */
static uint64_t mix_splitmix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t mix_murmur(uint64_t z)
{
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdu;
    z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53u;
    return z ^ (z >> 33);
}

static void add_word(struct stats_content_digest *d, uint64_t word)
{
    d->lane[0] = mix_splitmix(d->lane[0] ^ word);
    d->lane[1] = mix_murmur(d->lane[1] + word);
}

void stats_digest_init(struct stats_content_digest *digest)
{
    digest->lane[0] = 0x6a09e667f3bcc908u; /* any two different starts */
    digest->lane[1] = 0xbb67ae8584caa73bu;
    digest->metrics = 0;
}

void stats_digest_metric(struct stats_content_digest *digest, const char *key, enum stats_unit unit,
                         const double *samples, size_t n)
{
    /* lengths first, so that no key and samples read as another pair */
    size_t len = strlen(key);
    add_word(digest, len);
    for (size_t i = 0; i < len; i += 8) {
        uint64_t word = 0;
        memcpy(&word, key + i, len - i < 8 ? len - i : 8);
        add_word(digest, word);
    }
    add_word(digest, (uint64_t)unit);
    add_word(digest, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &samples[i], sizeof bits);
        add_word(digest, bits);
    }
    digest->metrics++;
}

bool stats_same_content(const struct stats_content_digest *a, const struct stats_content_digest *b)
{
    return a->metrics == b->metrics && a->lane[0] == b->lane[0] && a->lane[1] == b->lane[1];
}
