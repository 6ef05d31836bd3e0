/* keyindex.c — FNV-1a hashed open addressing over interned keys (see keyindex.h). */
#include "stats/read/keyindex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_key(const char *key, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void keyindex_init(struct keyindex *index)
{
    memset(index, 0, sizeof *index);
}

void keyindex_free(struct keyindex *index)
{
    for (size_t i = 0; i < index->count; i++)
        free(index->keys[i]);
    free(index->keys);
    free(index->slots);
    keyindex_init(index);
}

static bool key_equals(const char *stored, const char *key, size_t len)
{
    return strncmp(stored, key, len) == 0 && stored[len] == '\0';
}

long keyindex_find(const struct keyindex *index, const char *key, size_t len)
{
    if (index->slots_cap == 0) return -1;
    size_t mask = index->slots_cap - 1;
    for (size_t s = hash_key(key, len) & mask;; s = (s + 1) & mask) {
        size_t slot = index->slots[s];
        if (slot == 0) return -1;
        if (key_equals(index->keys[slot - 1], key, len)) return (long)(slot - 1);
    }
}

static int grow_slots(struct keyindex *index)
{
    size_t cap = index->slots_cap ? index->slots_cap * 2 : 64;
    size_t *slots = calloc(cap, sizeof *slots);
    if (slots == NULL) return -1;
    for (size_t i = 0; i < index->count; i++) {
        size_t s = hash_key(index->keys[i], strlen(index->keys[i])) & (cap - 1);
        while (slots[s] != 0)
            s = (s + 1) & (cap - 1);
        slots[s] = i + 1;
    }
    free(index->slots);
    index->slots = slots;
    index->slots_cap = cap;
    return 0;
}

long keyindex_intern(struct keyindex *index, const char *key, size_t len, bool *inserted)
{
    long found = keyindex_find(index, key, len);
    if (inserted) *inserted = found < 0;
    if (found >= 0) return found;

    /* Keep the table at most half full so probes stay short. */
    if ((index->count + 1) * 2 > index->slots_cap && grow_slots(index) != 0) return -1;
    if (index->count == index->keys_cap) {
        size_t cap = index->keys_cap ? index->keys_cap * 2 : 32;
        char **keys = realloc(index->keys, cap * sizeof *keys);
        if (keys == NULL) return -1;
        index->keys = keys;
        index->keys_cap = cap;
    }
    char *copy = malloc(len + 1);
    if (copy == NULL) return -1;
    memcpy(copy, key, len);
    copy[len] = '\0';

    size_t mask = index->slots_cap - 1;
    size_t s = hash_key(key, len) & mask;
    while (index->slots[s] != 0)
        s = (s + 1) & mask;
    index->keys[index->count] = copy;
    index->slots[s] = ++index->count;
    return (long)(index->count - 1);
}
