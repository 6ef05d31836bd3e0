/* samerun.h — is an input of a merge a run already given? Two documents are
 * one run when their descriptors name the same run (tool, host, start, command
 * line, run id and shard, which no other run shares) or, where either lacks
 * such a descriptor, when they hold the same metrics with the same samples.
 * Merged twice, a run's counts and timelines would double silently. */
#ifndef LOADGEN_STATS_SAMERUN_H
#define LOADGEN_STATS_SAMERUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/runs/runmeta.h"
#include "stats/read/units.h"

/* Does the descriptor say which run it was? A generator's does (tool, host,
 * started_at); a merged document's or a hand-written one may not. */
bool stats_runmeta_names_run(const struct stats_runmeta *meta);

/* Do two descriptors that name their runs name the same one? */
bool stats_same_run(const struct stats_runmeta *a, const struct stats_runmeta *b);

/* A document's content as read, metric by metric: key, unit and every
 * sample's exact value, in order; so two copies match whatever their names,
 * paths or whitespace. Two lanes of 64 bits, each 64-bit word mixed in by a
 * mixer of its own that loses nothing: two different documents match only by
 * a chance too small to matter. */
struct stats_content_digest {
    uint64_t lane[2];
    uint64_t metrics;
};

void stats_digest_init(struct stats_content_digest *digest);

void stats_digest_metric(struct stats_content_digest *digest, const char *key, enum stats_unit unit,
                         const double *samples, size_t n);

bool stats_same_content(const struct stats_content_digest *a, const struct stats_content_digest *b);

#endif
