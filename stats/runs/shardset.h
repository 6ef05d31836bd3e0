/* shardset.h — is a set of shard documents one complete run? From their
 * descriptors: every shard index 0..N-1 exactly once, one N, one run id, the
 * same test (sametest.h: tool, target, options, levels in the same order with
 * the same requested starts), no level interrupted, every level started within
 * a bound of its requested start, and the shards' clients adding up to each
 * level's total; plus warnings where a shard's clock makes its seconds suspect. */
#ifndef LOADGEN_STATS_SHARDSET_H
#define LOADGEN_STATS_SHARDSET_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/runs/runmeta.h"

struct stats_shard_input {
    const char *document;             /* as named on the command line */
    const char *descriptor;           /* its descriptor's path */
    const struct stats_runmeta *meta; /* NULL when the descriptor could not be read */
    const char *meta_error;           /* why, when meta is NULL */
};

/* Lines to print, one finding each, naming the file or the shard index. */
struct stats_shard_lines {
    char **lines;
    size_t count, cap;
};

struct stats_shard_findings {
    struct stats_shard_lines refusals; /* the set is not one run, or cannot be told */
    struct stats_shard_lines missing;  /* shard indices no input has (--allow-partial) */
    struct stats_shard_lines partial;  /* interrupted shards, partial counts (--allow-partial) */
    struct stats_shard_lines warnings;
};

struct stats_shard_rules {
    double max_start_lag_s; /* a level that started further from its requested start... */
    bool accept_start_lag;  /* ...is refused, or only warned about when this is set */
};

/* Checks the set. Returns 0, or -1 when memory runs out. */
int stats_shardset_check(const struct stats_shard_input *inputs, size_t count,
                         const struct stats_shard_rules *rules, struct stats_shard_findings *out);

void stats_shard_findings_free(struct stats_shard_findings *findings);

#endif
