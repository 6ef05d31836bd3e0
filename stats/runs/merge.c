/* merge.c — the arithmetic of `loadstats merge` (see merge.h). Each document's
 * samples stay apart until every document is in, because a weighted draw needs
 * each input's samples and true count side by side. */
#include "stats/runs/merge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/math/sampling.h"

int stats_merge_init(struct stats_merge *merge, size_t documents)
{
    memset(merge, 0, sizeof *merge);
    merge->documents = documents;
    keyindex_init(&merge->keys);
    merge->part_names = calloc(documents ? documents : 1, sizeof *merge->part_names);
    if (merge->part_names == NULL) return -1;
    for (size_t d = 0; d < documents; d++)
        snprintf(merge->part_names[d], sizeof merge->part_names[d], "input%zu", d);
    return 0;
}

int stats_merge_name_part(struct stats_merge *merge, size_t document, const char *name)
{
    if (document >= merge->documents || strlen(name) >= sizeof merge->part_names[0]) return -1;
    strcpy(merge->part_names[document], name);
    return 0;
}

void stats_merge_free(struct stats_merge *merge)
{
    for (size_t i = 0; i < merge->keys.count; i++) {
        struct stats_merged_metric *m = &merge->metrics[i];
        for (size_t d = 0; m->parts && d < merge->documents; d++)
            free(m->parts[d].samples);
        free(m->parts);
        free(m->samples);
    }
    free(merge->metrics);
    free(merge->part_names);
    keyindex_free(&merge->keys);
    memset(merge, 0, sizeof *merge);
}

/* A new key: its slot and parts are allocated before the key is interned, so
 * running out of memory leaves the index and the metrics in step. */
static struct stats_merged_metric *intern(struct stats_merge *merge, const char *key,
                                          enum stats_unit unit)
{
    if (merge->keys.count + 1 > merge->metrics_cap) {
        size_t cap = merge->metrics_cap ? merge->metrics_cap * 2 : 64;
        struct stats_merged_metric *grown = realloc(merge->metrics, cap * sizeof *grown);
        if (grown == NULL) return NULL;
        merge->metrics = grown;
        merge->metrics_cap = cap;
    }
    struct stats_merge_part *parts = calloc(merge->documents, sizeof *parts);
    if (parts == NULL) return NULL;
    bool inserted;
    long at = keyindex_intern(&merge->keys, key, strlen(key), &inserted);
    if (at < 0) {
        free(parts);
        return NULL;
    }
    struct stats_merged_metric *m = &merge->metrics[at];
    memset(m, 0, sizeof *m);
    m->parts = parts;
    m->unit = unit;
    m->kind = stats_metric_kind(key, unit);
    return m;
}

int stats_merge_add(struct stats_merge *merge, size_t document, const char *key,
                    enum stats_unit unit, double **samples, size_t n, uint64_t seen, char *error,
                    size_t error_size)
{
    if (document >= merge->documents) {
        snprintf(error, error_size, "document %zu of only %zu", document + 1, merge->documents);
        return -1;
    }
    /* a gauge of one host is no sample of another's: each document keeps its own */
    char own_key[512];
    if (stats_metric_kind(key, unit) == STATS_KIND_GAUGE) {
        if (stats_gauge_key(key, merge->part_names[document], own_key, sizeof own_key) < 0) {
            snprintf(error, error_size, "the gauge \"%.100s\" has too long a name", key);
            return -1;
        }
        key = own_key;
    }
    long found = keyindex_find(&merge->keys, key, strlen(key));
    struct stats_merged_metric *m = found >= 0 ? &merge->metrics[found] : NULL;
    if (m != NULL && m->unit != unit) {
        snprintf(error, error_size,
                 "unit conflict for \"%.100s\": %s in an earlier document, %s in this one", key,
                 stats_unit_name(m->unit), stats_unit_name(unit));
        return -1;
    }
    enum stats_metric_kind kind = m ? m->kind : stats_metric_kind(key, unit);
    if (kind == STATS_KIND_COUNT && n != 1) {
        snprintf(error, error_size,
                 "\"%.100s\" is an exact count and must have one sample, not %zu", key, n);
        return -1;
    }
    if (kind == STATS_KIND_SPAN && n != 1) {
        snprintf(error, error_size,
                 "\"%.100s\" is how long a level ran and must have one sample, not %zu", key, n);
        return -1;
    }
    if (seen < n) {
        snprintf(error, error_size,
                 "\"%.100s\" holds %zu samples but its descriptor says it saw only %llu", key, n,
                 (unsigned long long)seen);
        return -1;
    }
    if (m != NULL && m->parts[document].n > 0) {
        snprintf(error, error_size, "\"%.100s\" appears twice in one document", key);
        return -1;
    }
    if (m == NULL) m = intern(merge, key, unit);
    if (m == NULL) {
        snprintf(error, error_size, "merging \"%.100s\"", key);
        return -2;
    }
    /* Drop the reader's growth slack: the parts live until the end. */
    double *trimmed = n > 0 ? realloc(*samples, n * sizeof *trimmed) : NULL;
    m->parts[document] = (struct stats_merge_part){trimmed ? trimmed : *samples, n, seen};
    *samples = NULL;
    m->documents++;
    return 0;
}

/* Both return whether every sum is a double (a document has no infinity). */
static bool sum_counts(struct stats_merged_metric *m, size_t documents)
{
    double total = 0.0;
    for (size_t d = 0; d < documents; d++)
        if (m->parts[d].n == 1) total += m->parts[d].samples[0];
    m->samples[0] = total;
    m->n = 1;
    m->seen = 1;
    return isfinite(total);
}

/* The level ran as long as its shortest input ran: from there on, a second
 * would hold only some inputs' work, and read as a drop in the rate. */
static void shortest_span(struct stats_merged_metric *m, size_t documents)
{
    double shortest = INFINITY, longest = 0.0;
    for (size_t d = 0; d < documents; d++)
        if (m->parts[d].n == 1) {
            double x = m->parts[d].samples[0];
            if (x < shortest) shortest = x;
            if (x > longest) longest = x;
        }
    m->samples[0] = isfinite(shortest) ? shortest : 0.0;
    m->longest = longest;
    m->n = 1;
    m->seen = 1;
}

/* The whole seconds of a timeline's level that every input ran (its merged
 * ran_s; one for a level shorter than a second, as the generators write
 * it), or 0 when no input says how long its level ran. */
static size_t seconds_every_input_ran(const struct stats_merge *merge, const char *key)
{
    unsigned long clients;
    const char *metric;
    if (!stats_key_level(key, &clients, &metric)) return 0;
    char span_key[40];
    snprintf(span_key, sizeof span_key, "c%lu.ran_s", clients);
    long at = keyindex_find(&merge->keys, span_key, strlen(span_key));
    if (at < 0) return 0;
    const struct stats_merged_metric *span = &merge->metrics[at];
    if (span->kind != STATS_KIND_SPAN || span->n != 1) return 0;
    double whole = floor(span->samples[0]);
    return whole >= 1 ? (size_t)whole : 1;
}

static bool add_timelines(struct stats_merged_metric *m, size_t documents, size_t length)
{
    for (size_t d = 0; d < documents; d++) {
        const struct stats_merge_part *p = &m->parts[d];
        if (p->n == 0) continue;
        if (p->n < length) m->lengths_differ = true;
        if (p->n > length) m->cut = true;
        for (size_t i = 0; i < p->n && i < length; i++)
            m->samples[i] += p->samples[i];
    }
    m->n = length;
    m->seen = length;
    for (size_t i = 0; i < length; i++)
        if (!isfinite(m->samples[i])) return false;
    return true;
}

/* Samples are pooled; a weighted draw replaces the plain concatenation when an
 * input was cut or the pool exceeds the cap. */
static int pool_samples(struct stats_merged_metric *m, size_t documents,
                        const struct stats_merge_options *options, struct stats_rng *rng)
{
    size_t held = 0, largest = 0;
    bool cut = false;
    uint64_t seen = 0;
    for (size_t d = 0; d < documents; d++) {
        const struct stats_merge_part *p = &m->parts[d];
        held += p->n;
        seen += p->seen;
        if (p->n > largest) largest = p->n;
        cut |= p->seen > p->n;
    }
    m->seen = seen;
    size_t cap = options->max_samples ? options->max_samples : largest;
    if (!cut && (options->max_samples == 0 || held <= options->max_samples)) {
        /* Grow the first input's array into the pool: memory stays near one copy. */
        size_t first = 0;
        while (first < documents && m->parts[first].n == 0)
            first++;
        if (first == documents) return 0; /* no document had samples: cannot happen */
        double *joined = realloc(m->parts[first].samples, held * sizeof *joined);
        if (joined == NULL) return -1;
        m->parts[first].samples = NULL;
        m->n = m->parts[first].n;
        for (size_t d = first + 1; d < documents; d++) {
            struct stats_merge_part *p = &m->parts[d];
            if (p->n) memcpy(joined + m->n, p->samples, p->n * sizeof *joined);
            m->n += p->n;
            free(p->samples);
            p->samples = NULL;
        }
        m->samples = joined;
        return 0;
    }
    struct stats_draw_input *inputs = calloc(documents, sizeof *inputs);
    size_t *take = calloc(documents, sizeof *take);
    double *drawn = malloc((cap < held ? cap : held) * sizeof *drawn + sizeof *drawn);
    if (inputs == NULL || take == NULL || drawn == NULL) {
        free(inputs);
        free(take);
        free(drawn);
        return -1;
    }
    for (size_t d = 0; d < documents; d++)
        inputs[d] = (struct stats_draw_input){m->parts[d].samples, m->parts[d].n, m->parts[d].seen};
    m->n = stats_draw_plan(inputs, documents, cap, take);
    stats_draw(drawn, inputs, documents, take, rng);
    m->samples = drawn;
    m->drawn = true;
    free(inputs);
    free(take);
    return 0;
}

static int finish_metric(const struct stats_merge *merge, const char *key,
                         struct stats_merged_metric *m, const struct stats_merge_options *options,
                         struct stats_rng *rng)
{
    if (m->kind == STATS_KIND_SAMPLES || m->kind == STATS_KIND_GAUGE)
        return pool_samples(m, merge->documents, options, rng);
    size_t longest = 1;
    for (size_t d = 0; d < merge->documents; d++)
        if (m->parts[d].n > longest) longest = m->parts[d].n;
    m->samples = calloc(longest, sizeof *m->samples);
    if (m->samples == NULL) return -1;
    bool finite = true;
    if (m->kind == STATS_KIND_COUNT) {
        finite = sum_counts(m, merge->documents);
    } else if (m->kind == STATS_KIND_SPAN) {
        shortest_span(m, merge->documents);
    } else {
        size_t ran = seconds_every_input_ran(merge, key);
        finite = add_timelines(m, merge->documents, ran && ran < longest ? ran : longest);
    }
    return finite ? 0 : -2;
}

int stats_merge_finish(struct stats_merge *merge, const struct stats_merge_options *options,
                       char *error, size_t error_size)
{
    if (merge->finished) return 0;
    struct stats_rng rng;
    stats_rng_seed(&rng, options->seed);
    /* the spans first: a timeline is cut where its level's span ends */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < merge->keys.count; i++) {
            struct stats_merged_metric *m = &merge->metrics[i];
            if ((m->kind == STATS_KIND_SPAN) != (pass == 0)) continue;
            int rc = finish_metric(merge, merge->keys.keys[i], m, options, &rng);
            if (rc == -1) {
                snprintf(error, error_size, "merging \"%.100s\"", merge->keys.keys[i]);
                return -1;
            }
            if (rc == -2) {
                snprintf(error, error_size,
                         "\"%.100s\": its sum over the documents is beyond the largest double "
                         "(1.8e308); not merged",
                         merge->keys.keys[i]);
                return -2;
            }
            for (size_t d = 0; d < merge->documents; d++) {
                free(m->parts[d].samples);
                m->parts[d].samples = NULL;
            }
        }
    merge->finished = true;
    return 0;
}
