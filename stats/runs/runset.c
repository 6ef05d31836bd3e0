/* runset.c — reading several runs of one test (see runset.h). */
#include "stats/runs/runset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/read/docread.h"
#include "stats/read/metrickind.h"

/* A run with at most this many samples keeps them all for the bootstrap. */
#define WHOLE_RUN 4096
/* Else a window of this many standard deviations of the statistic's rank
 * each side of it: a resampled rank falls outside with probability < 1e-15. */
#define WINDOW_SIGMAS 8.0

static const char *const statistic_names[] = {"median", "p90", "p99", "mean"};

const char *stats_statistic_name(enum stats_statistic statistic)
{
    return statistic_names[statistic];
}

int stats_statistic_parse(const char *name, enum stats_statistic *out)
{
    for (size_t i = 0; i < sizeof statistic_names / sizeof *statistic_names; i++)
        if (strcmp(name, statistic_names[i]) == 0) {
            *out = (enum stats_statistic)i;
            return 0;
        }
    return -1;
}

/* The quantile of a percentile statistic; -1 for the mean. */
static double quantile_of(enum stats_statistic statistic)
{
    static const double q[] = {0.5, 0.9, 0.99, -1.0};
    return q[statistic];
}

long stats_runset_split(const char *list, char ***paths)
{
    size_t count = 1;
    for (const char *p = list; *p; p++)
        count += *p == ',';
    char **out = calloc(count, sizeof *out);
    if (out == NULL) return -1;
    const char *start = list;
    for (size_t i = 0; i < count; i++) {
        const char *end = strchr(start, ',');
        size_t len = end ? (size_t)(end - start) : strlen(start);
        out[i] = len ? strndup(start, len) : NULL;
        if (out[i] == NULL) {
            for (size_t j = 0; j < i; j++)
                free(out[j]);
            free(out);
            return len ? -1 : 0;
        }
        start = end ? end + 1 : start + len;
    }
    *paths = out;
    return (long)count;
}

struct reading {
    struct stats_runset *set;
    size_t run;
};

/* The slot of `key`, grown with its per-run array; NULL when memory runs out. */
static struct stats_runset_metric *slot_of(struct stats_runset *set, const char *key,
                                           enum stats_unit unit)
{
    if (set->keys.count + 1 > set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 64;
        struct stats_runset_metric *grown = realloc(set->metrics, cap * sizeof *grown);
        if (grown == NULL) return NULL;
        set->metrics = grown;
        set->cap = cap;
    }
    long found = keyindex_find(&set->keys, key, strlen(key));
    if (found >= 0) return &set->metrics[found];
    struct stats_run_metric *runs = calloc(set->n_runs, sizeof *runs);
    if (runs == NULL) return NULL;
    long at = keyindex_intern(&set->keys, key, strlen(key), NULL);
    if (at < 0) {
        free(runs);
        return NULL;
    }
    set->metrics[at] = (struct stats_runset_metric){.unit = unit, .runs = runs};
    return &set->metrics[at];
}

/* Keeps the sorted samples the bootstrap will draw ranks from. */
static int keep_window(struct stats_run_metric *run, const double *sorted, double q)
{
    size_t n = run->n, from = 0, to = n;
    if (n > WHOLE_RUN) {
        if (q < 0) return 0; /* the mean of a large run: resampled as normal */
        double rank = q * (double)(n - 1);
        double half = ceil(WINDOW_SIGMAS * sqrt((double)n * q * (1.0 - q))) + 2.0;
        from = rank > half ? (size_t)(rank - half) : 0;
        to = (size_t)(rank + half) + 2;
        if (to > n) to = n;
    }
    run->window = malloc((to - from) * sizeof *run->window);
    if (run->window == NULL) return -1;
    memcpy(run->window, sorted + from, (to - from) * sizeof *run->window);
    run->from = from;
    run->len = to - from;
    return 0;
}

/* A run's metric reduced for summary and compare. Only the walk is shared (docread_walk):
 * the report's take_metric and merge's add_metric keep other things of a metric. */
static int take_metric(void *ctx, struct docread_metric *metric)
{
    struct reading *r = ctx;
    struct stats_runset *set = r->set;
    struct stats_runset_metric *m = slot_of(set, metric->key, metric->unit);
    if (m == NULL) goto out_of_memory;
    if (m->present > 0 && m->unit != metric->unit) {
        snprintf(metric->why, metric->why_size,
                 "\"%.100s\" is in %s here but in %s in an earlier run of the same list",
                 metric->key, stats_unit_name(metric->unit), stats_unit_name(m->unit));
        return DOCREAD_INVALID;
    }
    m->unit = metric->unit;
    struct stats_run_metric *run = &m->runs[r->run];
    run->present = true;
    run->n = metric->n;
    stats_summarize_unrounded(metric->samples, metric->n, &run->exact); /* sorts them */
    run->summary = run->exact;
    stats_summary_round(&run->summary);
    stats_moments_sorted(metric->samples, metric->n, &run->mean, &run->stddev);
    double q = quantile_of(set->statistic);
    run->value = q < 0 ? run->mean : stats_percentile_sorted(metric->samples, metric->n, q);
    m->present++;
    if (set->windows && keep_window(run, metric->samples, q) != 0) goto out_of_memory;
    return 0;
out_of_memory:
    snprintf(metric->why, metric->why_size, "out of memory at metric \"%.100s\"", metric->key);
    return DOCREAD_NO_MEMORY;
}

/* A count a run lacks is 0 there (the generators write errors.<class> and
 * rcode.<NAME> only where they are not 0), as merge adds 0 for it. */
static int zero_missing_counts(struct stats_runset *set)
{
    for (size_t i = 0; i < set->keys.count; i++) {
        struct stats_runset_metric *m = &set->metrics[i];
        if (stats_metric_kind(set->keys.keys[i], m->unit) != STATS_KIND_COUNT) continue;
        for (size_t k = 0; k < set->n_runs; k++) {
            struct stats_run_metric *run = &m->runs[k];
            if (run->present) continue;
            double zero = 0.0;
            run->present = true;
            run->n = 1;
            stats_summarize(&zero, 1, &run->summary);
            run->exact = run->summary; /* 0 rounds to itself */
            run->value = run->mean = run->stddev = 0.0;
            m->present++;
            if (set->windows && keep_window(run, &zero, quantile_of(set->statistic)) != 0)
                return -1;
        }
    }
    return 0;
}

int stats_runset_read(struct stats_runset *set, const char *list, enum stats_statistic statistic,
                      bool windows, char *error, size_t error_size)
{
    memset(set, 0, sizeof *set);
    keyindex_init(&set->keys);
    set->statistic = statistic;
    set->windows = windows;
    long count = stats_runset_split(list, &set->paths);
    if (count <= 0) {
        snprintf(error, error_size,
                 count == 0 ? "'%.200s': an empty name in the list of runs" : "out of memory",
                 list);
        return count == 0 ? DOCREAD_IO : DOCREAD_NO_MEMORY;
    }
    set->n_runs = (size_t)count;
    for (size_t k = 0; k < set->n_runs; k++) {
        struct reading r = {set, k};
        struct docread_options options = {.on_metric = take_metric, .ctx = &r};
        struct docread_result result;
        enum docread_status status = docread_walk(set->paths[k], &options, &result);
        docread_result_free(&result);
        if (status == DOCREAD_OK) continue;
        snprintf(error, error_size, "%s", result.error);
        return status;
    }
    if (zero_missing_counts(set) != 0) {
        snprintf(error, error_size, "out of memory");
        return DOCREAD_NO_MEMORY;
    }
    return 0;
}

void stats_runset_free(struct stats_runset *set)
{
    for (size_t i = 0; i < set->keys.count; i++) {
        for (size_t k = 0; k < set->n_runs; k++)
            free(set->metrics[i].runs[k].window);
        free(set->metrics[i].runs);
    }
    free(set->metrics);
    keyindex_free(&set->keys);
    for (size_t k = 0; k < set->n_runs; k++)
        free(set->paths[k]);
    free(set->paths);
    memset(set, 0, sizeof *set);
}
