/* doccut.c — a document's own evidence that its samples were cut (see doccut.h). */
#include "stats/read/doccut.h"

#include <stdlib.h>
#include <string.h>

#include "stats/read/metrickind.h"

static struct stats_doccut_level *level_of(struct stats_doccut *cut, unsigned long clients)
{
    for (size_t i = 0; i < cut->count; i++)
        if (cut->levels[i].clients == clients) return &cut->levels[i];
    if (cut->count == cut->cap) {
        size_t cap = cut->cap ? cut->cap * 2 : 8;
        struct stats_doccut_level *grown = realloc(cut->levels, cap * sizeof *grown);
        if (grown == NULL) return NULL;
        cut->levels = grown;
        cut->cap = cap;
    }
    struct stats_doccut_level *level = &cut->levels[cut->count++];
    memset(level, 0, sizeof *level);
    level->clients = clients;
    return level;
}

int stats_doccut_note(struct stats_doccut *cut, const char *key, double value, size_t n,
                      uint64_t seen)
{
    unsigned long clients;
    const char *metric;
    if (!stats_key_level(key, &clients, &metric)) return 0;
    bool requests = strcmp(metric, "requests") == 0;
    bool latency = strcmp(metric, "latency_cold_ms") == 0 || strcmp(metric, "latency_warm_ms") == 0;
    if (!requests && !latency) return 0;
    struct stats_doccut_level *level = level_of(cut, clients);
    if (level == NULL) return -1;
    if (requests && value >= 0) {
        level->has_requests = true;
        level->requests = (uint64_t)value;
    } else if (latency) {
        level->latency += seen;
        level->held += n;
    }
    return 0;
}

const struct stats_doccut_level *stats_doccut_find(const struct stats_doccut *cut)
{
    for (size_t i = 0; i < cut->count; i++)
        if (cut->levels[i].has_requests && cut->levels[i].requests > cut->levels[i].latency)
            return &cut->levels[i];
    return NULL;
}

void stats_doccut_free(struct stats_doccut *cut)
{
    free(cut->levels);
    memset(cut, 0, sizeof *cut);
}
