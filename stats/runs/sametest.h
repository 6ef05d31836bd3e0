/* sametest.h — did two runs run the same test? From their descriptors, field
 * by field, what decides the numbers: the tool, the target, the options that
 * shape the load (duration, timeout, rate, slots, connection churn), and the
 * levels, their clients in the order run and, where asked, each level's
 * requested start. merge --shards refuses shards that differ; compare warns
 * when the runs of one side differ. (A comparison of the machines the runs
 * had would sit beside these.) */
#ifndef LOADGEN_STATS_SAMETEST_H
#define LOADGEN_STATS_SAMETEST_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/runs/runmeta.h"

enum stats_difference {
    STATS_DIFF_FIELD,   /* a field differs: not the same test */
    STATS_DIFF_STOPPED, /* `run`'s levels are the first of the reference's: it stopped early */
};

/* Called once per difference with a phrase naming the field and both values,
 * e.g. "duration_s 2 differs from 3". Non-zero stops the comparison. */
typedef int (*stats_difference_fn)(void *ctx, enum stats_difference kind, const char *phrase);

/* Compares `run` with `reference`. A field absent from both is the same; one
 * present in only one differs. Returns the first non-zero of `report`, or 0. */
int stats_same_test(const struct stats_runmeta *run, const struct stats_runmeta *reference,
                    bool requested_starts, stats_difference_fn report, void *ctx);

/* "c1,c16,c64" in the order run, cut short past `size`; "none" for no level. */
void stats_level_order(const struct stats_runmeta *meta, char *out, size_t size);

#endif
