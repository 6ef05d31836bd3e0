/* fuzz_runmeta.c — libFuzzer target for the --meta descriptor reader and the
 * JSON reader under it: any input ends in a verdict without a crash, leak or
 * undefined behaviour, and an accepted descriptor is internally consistent. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/read/json.h"
#include "stats/runs/runmeta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char error[256];
    struct stats_json tree;
    int parsed = stats_json_parse((const char *)data, size, &tree, error, sizeof error);
    if (parsed == 0)
        stats_json_free(&tree);
    else if (strlen(error) == 0)
        abort(); /* a refusal always says why */

    struct stats_runmeta meta;
    if (stats_runmeta_parse((const char *)data, size, &meta, error, sizeof error) != 0) {
        if (strlen(error) == 0) abort();
        return 0;
    }
    if (parsed != 0) abort(); /* a descriptor is JSON first */
    if (meta.has_shard && meta.shard_index >= meta.shard_count) abort();
    for (size_t i = 0; i < meta.n_levels; i++) {
        const struct stats_runmeta_level *level = &meta.levels[i];
        if (level->clients == 0 || stats_runmeta_level(&meta, level->clients) != level) abort();
        uint64_t seen;
        for (size_t j = 0; j < level->n_seen; j++)
            if (stats_runmeta_seen(level, level->seen[j].metric, &seen) != STATS_SEEN_KNOWN)
                abort();
    }
    stats_runmeta_free(&meta);
    return 0;
}
