/* keyindex.h — metric keys interned in first-seen order with a hash index, so a
 * document with many metrics is checked for duplicates and joined in linear time. */
#ifndef LOADGEN_STATS_KEYINDEX_H
#define LOADGEN_STATS_KEYINDEX_H

#include <stdbool.h>
#include <stddef.h>

struct keyindex {
    char **keys;  /* owned, NUL-terminated, in insertion order */
    size_t count; /* keys in use */
    size_t keys_cap;
    size_t *slots; /* open addressing: key index + 1, 0 = empty */
    size_t slots_cap;
};

void keyindex_init(struct keyindex *index);
void keyindex_free(struct keyindex *index);

/* The position of `key` (len bytes), inserting a copy when new; *inserted says
 * which. Returns -1 when memory runs out. */
long keyindex_intern(struct keyindex *index, const char *key, size_t len, bool *inserted);

/* The position of `key`, or -1. */
long keyindex_find(const struct keyindex *index, const char *key, size_t len);

#endif
