/* merge.h — one collector document from the documents of several generators
 * that ran the same levels at the same time (multi-host runs). Time, size and
 * ratio samples are concatenated, one-sample counts summed, and per-second rate
 * timelines summed second by second. */
#ifndef LOADGEN_STATS_MERGE_H
#define LOADGEN_STATS_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/keyindex.h"
#include "stats/units.h"

struct stats_merged_metric {
    enum stats_unit unit;
    double *samples; /* owned */
    size_t n;
    size_t documents;    /* how many documents had this key */
    bool all_single;     /* every document gave exactly one sample */
    bool lengths_differ; /* rate timelines of different lengths were summed */
    bool *present;       /* per document: had this key */
};

struct stats_merge {
    size_t documents; /* the number of inputs, fixed at init */
    struct keyindex keys;
    struct stats_merged_metric *metrics; /* parallel to keys.keys */
    size_t metrics_cap;
    bool finished;
};

void stats_merge_init(struct stats_merge *merge, size_t documents);
void stats_merge_free(struct stats_merge *merge);

/* Adds one metric of document `document` (0-based), taking ownership of
 * *samples (set to NULL). Returns 0, or -1 with a message in `error` on a unit
 * conflict or when memory runs out. */
int stats_merge_add(struct stats_merge *merge, size_t document, const char *key,
                    enum stats_unit unit, double **samples, size_t n, char *error,
                    size_t error_size);

/* Turns one-sample counts into their sum once every document is in. */
void stats_merge_finish(struct stats_merge *merge);

#endif
