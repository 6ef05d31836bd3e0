/* merge.c — the arithmetic of `loadstats merge` (see merge.h). Counts are
 * summed only when each document gave one sample (an exact total per level);
 * a count with several samples is a series and is concatenated like the rest. */
#include "stats/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void stats_merge_init(struct stats_merge *merge, size_t documents)
{
    memset(merge, 0, sizeof *merge);
    merge->documents = documents;
    keyindex_init(&merge->keys);
}

void stats_merge_free(struct stats_merge *merge)
{
    for (size_t i = 0; i < merge->keys.count; i++) {
        free(merge->metrics[i].samples);
        free(merge->metrics[i].present);
    }
    free(merge->metrics);
    keyindex_free(&merge->keys);
    memset(merge, 0, sizeof *merge);
}

static bool is_summed_count(enum stats_unit unit)
{
    return unit == STATS_UNIT_COUNT || unit == STATS_UNIT_OPERATIONS;
}

static int add_timeline(struct stats_merged_metric *m, double **samples, size_t n)
{
    if (n != m->n) m->lengths_differ = true;
    if (n > m->n) {
        /* The longer timeline becomes the accumulator; add the shorter into it. */
        double *longer = *samples;
        for (size_t i = 0; i < m->n; i++)
            longer[i] += m->samples[i];
        free(m->samples);
        m->samples = longer;
        m->n = n;
        *samples = NULL;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        m->samples[i] += (*samples)[i];
    free(*samples);
    *samples = NULL;
    return 0;
}

static int add_concatenated(struct stats_merged_metric *m, double **samples, size_t n)
{
    double *joined = realloc(m->samples, (m->n + n) * sizeof *joined);
    if (joined == NULL) return -1;
    memcpy(joined + m->n, *samples, n * sizeof *joined);
    m->samples = joined;
    m->n += n;
    free(*samples);
    *samples = NULL;
    return 0;
}

int stats_merge_add(struct stats_merge *merge, size_t document, const char *key,
                    enum stats_unit unit, double **samples, size_t n, char *error,
                    size_t error_size)
{
    bool inserted;
    long at = keyindex_intern(&merge->keys, key, strlen(key), &inserted);
    if (at < 0) goto out_of_memory;
    if (inserted) {
        if (merge->keys.count > merge->metrics_cap) {
            size_t cap = merge->metrics_cap ? merge->metrics_cap * 2 : 64;
            struct stats_merged_metric *grown = realloc(merge->metrics, cap * sizeof *grown);
            if (grown == NULL) goto out_of_memory;
            merge->metrics = grown;
            merge->metrics_cap = cap;
        }
        struct stats_merged_metric *m = &merge->metrics[at];
        memset(m, 0, sizeof *m);
        m->present = calloc(merge->documents ? merge->documents : 1, sizeof *m->present);
        if (m->present == NULL) goto out_of_memory;
        m->unit = unit;
        m->all_single = true;
        /* Keep the reader's array, trimmed of its growth slack. */
        double *trimmed = n > 0 ? realloc(*samples, n * sizeof *trimmed) : NULL;
        m->samples = trimmed ? trimmed : *samples;
        m->n = n;
        *samples = NULL;
    } else {
        struct stats_merged_metric *m = &merge->metrics[at];
        if (m->unit != unit) {
            snprintf(error, error_size,
                     "unit conflict for \"%.100s\": %s in an earlier document, %s in document %zu",
                     key, stats_unit_name(m->unit), stats_unit_name(unit), document + 1);
            return -1;
        }
        int rc = stats_unit_is_rate(unit) ? add_timeline(m, samples, n)
                                          : add_concatenated(m, samples, n);
        if (rc != 0) goto out_of_memory;
    }
    struct stats_merged_metric *m = &merge->metrics[at];
    if (document < merge->documents) m->present[document] = true;
    m->documents++;
    if (n != 1) m->all_single = false;
    return 0;
out_of_memory:
    snprintf(error, error_size, "out of memory merging \"%.100s\"", key);
    return -1;
}

void stats_merge_finish(struct stats_merge *merge)
{
    if (merge->finished) return;
    merge->finished = true;
    for (size_t i = 0; i < merge->keys.count; i++) {
        struct stats_merged_metric *m = &merge->metrics[i];
        if (!is_summed_count(m->unit) || !m->all_single || m->n < 2) continue;
        double total = 0.0;
        for (size_t j = 0; j < m->n; j++)
            total += m->samples[j];
        m->samples[0] = total;
        m->n = 1;
    }
}
