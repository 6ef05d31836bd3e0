/* merge.h — one collector document from the documents of several generators
 * that ran the same levels at the same time (shards of one run on several
 * hosts). Each metric is merged by its kind (metrickind.h): exact counts are
 * summed, per-second timelines added second by second over the seconds every
 * input's level ran, samples pooled, gauges kept apart under a key per
 * document, and a level's length (ran_s) is the shortest; where --max-samples cut an
 * input, the pool is drawn in proportion to each input's true count, so it
 * stays a uniform sample of all requests. */
#ifndef LOADGEN_STATS_MERGE_H
#define LOADGEN_STATS_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/read/keyindex.h"
#include "stats/read/metrickind.h"
#include "stats/read/units.h"

/* What one document gave for one metric. */
struct stats_merge_part {
    double *samples; /* owned until stats_merge_finish */
    size_t n;
    uint64_t seen; /* samples the document stood for (n unless --max-samples cut it) */
};

struct stats_merged_metric {
    enum stats_unit unit;
    enum stats_metric_kind kind;
    struct stats_merge_part *parts; /* one per document; n == 0 where a document lacks the key */
    size_t documents;               /* how many documents had this key */
    /* After stats_merge_finish: */
    double *samples; /* owned */
    size_t n;
    uint64_t seen;       /* for samples: how many samples the merged ones stand for */
    bool drawn;          /* samples were drawn in proportion to the true counts */
    bool lengths_differ; /* a timeline shorter than the merged one was added (as 0s) */
    bool cut;            /* a timeline longer than its level's shortest ran_s was cut */
    double longest;      /* a span (ran_s): the longest input's; samples[0] the shortest */
};

struct stats_merge {
    size_t documents;       /* the number of inputs, fixed at init */
    char (*part_names)[32]; /* per document: its gauges' key part ("input0", "shard2") */
    struct keyindex keys;
    struct stats_merged_metric *metrics; /* parallel to keys.keys, first-seen order */
    size_t metrics_cap;
    bool finished;
};

struct stats_merge_options {
    /* Cap on the samples of one metric of one level; 0: no cap of its own, but
     * when an input was cut, the largest number of samples any input holds. */
    size_t max_samples;
    uint64_t seed; /* for the draw: the same seed, the same document */
};

/* Returns 0, or -1 when memory runs out (stats_merge_free is still safe). */
int stats_merge_init(struct stats_merge *merge, size_t documents);

/* Names document `document` in its gauges' keys: c<N>.<name>.<metric>
 * ("input<D>" unless named). Call before adding its metrics. Returns 0, or -1
 * for a name that does not fit (31 bytes). */
int stats_merge_name_part(struct stats_merge *merge, size_t document, const char *name);
void stats_merge_free(struct stats_merge *merge);

/* Adds one metric of document `document` (0-based), taking ownership of
 * *samples (set to NULL). `seen` is its true sample count (>= n). A gauge is
 * added under its document's own key. Returns 0, or -1 with a message in
 * `error`: a unit conflict, a count with other than one sample, seen < n, a
 * key twice in one document; or -2 when memory ran out (`error` says where). */
int stats_merge_add(struct stats_merge *merge, size_t document, const char *key,
                    enum stats_unit unit, double **samples, size_t n, uint64_t seen, char *error,
                    size_t error_size);

/* Computes every merged metric once all documents are in. Returns 0; -1
 * when memory runs out (`error` says where); or -2 when a count's or a
 * second's sum over the documents is beyond a double (`error` names it). */
int stats_merge_finish(struct stats_merge *merge, const struct stats_merge_options *options,
                       char *error, size_t error_size);

#endif
