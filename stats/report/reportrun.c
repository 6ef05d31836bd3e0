/* reportrun.c — a document reduced to what the report draws (see reportrun.h). */
#include "stats/report/reportrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/read/docread.h"
#include "stats/read/metrickind.h"
#include "stats/runs/runmeta.h"
#include "stats/math/stats.h"

static const char *const count_names[REPORT_COUNTS] = {
    [REPORT_ATTEMPTS] = "attempts",
    [REPORT_REQUESTS] = "requests",
    [REPORT_ERRORS] = "errors",
    [REPORT_UNFINISHED] = "unfinished",
    [REPORT_SCHEDULED] = "scheduled",
    [REPORT_UNSENT] = "unsent",
    [REPORT_CONNECT_ATTEMPTS] = "connect_attempts",
    [REPORT_CONNECTIONS] = "connections",
    [REPORT_RECONNECTS] = "reconnects",
    [REPORT_TLS_RESUMED] = "tls_resumed",
    [REPORT_BYTES_RECEIVED] = "bytes_received",
};

static const char *const curve_names[REPORT_CURVES] = {
    [REPORT_COLD] = "latency_cold_ms",
    [REPORT_WARM] = "latency_warm_ms",
    [REPORT_SEND_LAG] = "send_lag_ms",
};

static const char *const phase_names[REPORT_PHASES] = {
    [REPORT_CONNECT] = "connect_ms",
    [REPORT_PROXY] = "proxy_connect_ms",
    [REPORT_TLS] = "tls_handshake_ms",
    [REPORT_TTFB] = "ttfb_ms",
};

void report_curve_fill(struct report_curve *curve, double *samples, size_t n)
{
    memset(curve, 0, sizeof *curve);
    if (n == 0) return;
    stats_sort(samples, n);
    curve->present = true;
    curve->n = n;
    curve->p50 = stats_percentile_sorted(samples, n, 0.5);
    curve->p90 = stats_percentile_sorted(samples, n, 0.9);
    curve->p99 = stats_percentile_sorted(samples, n, 0.99);
    curve->p999 = stats_percentile_sorted(samples, n, 0.999);
    curve->max = samples[n - 1];
    /* Beyond 1/(1-p) = n the samples say nothing more: the curve ends there. */
    double last = n < 1e6 ? (double)n : 1e6;
    for (int k = 0; curve->points + 1 < REPORT_CURVE_MAX_POINTS; k++) {
        double x = pow(10.0, (double)k / REPORT_CURVE_STEPS_PER_DECADE);
        if (x > last * (1 + 1e-12)) break;
        curve->x[curve->points] = x;
        curve->y[curve->points++] = stats_percentile_sorted(samples, n, 1.0 - 1.0 / x);
    }
    if (curve->x[curve->points - 1] < last * (1 - 1e-9)) {
        curve->x[curve->points] = last;
        curve->y[curve->points++] = stats_percentile_sorted(samples, n, 1.0 - 1.0 / last);
    }
}

struct reading {
    struct report_run *run;
};

static struct report_level *level_for(struct report_run *run, unsigned long clients)
{
    for (size_t i = 0; i < run->n_levels; i++)
        if (run->levels[i].clients == clients) return &run->levels[i];
    struct report_level *grown = realloc(run->levels, (run->n_levels + 1) * sizeof *grown);
    if (grown == NULL) return NULL;
    run->levels = grown;
    struct report_level *level = &run->levels[run->n_levels++];
    memset(level, 0, sizeof *level);
    level->clients = clients;
    level->ran_s = NAN;
    return level;
}

static double sum(const double *samples, size_t n)
{
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += samples[i];
    return total;
}

static int take_error_class(struct report_level *level, const char *name, double count)
{
    struct report_error_class *grown =
        realloc(level->classes, (level->n_classes + 1) * sizeof *grown);
    if (grown == NULL) return -1;
    level->classes = grown;
    level->classes[level->n_classes].name = strdup(name);
    if (level->classes[level->n_classes].name == NULL) return -1;
    level->classes[level->n_classes++].count = count;
    return 0;
}

/* "watch.proxy.cpu_s" -> tree "proxy"; "watch.proxy.nginx.pss_bytes" -> tree
 * "proxy", component "nginx". Names never hold a '.' (the generators replace it). */
static int take_watch(struct report_level *level, const char *metric, double *samples, size_t n)
{
    const char *tree = metric + strlen("watch.");
    const char *dot = strchr(tree, '.'), *last = strrchr(tree, '.');
    if (dot == NULL) return 0;
    size_t tree_len = (size_t)(dot - tree);
    const char *component = dot == last ? NULL : dot + 1;
    size_t component_len = component ? (size_t)(last - component) : 0;
    const char *what = last + 1;

    struct report_watch *w = NULL;
    for (size_t i = 0; i < level->n_watch && w == NULL; i++) {
        struct report_watch *c = &level->watch[i];
        if (strlen(c->tree) == tree_len && strncmp(c->tree, tree, tree_len) == 0 &&
            (component == NULL ? c->component == NULL
                               : c->component != NULL && strlen(c->component) == component_len &&
                                     strncmp(c->component, component, component_len) == 0))
            w = c;
    }
    if (w == NULL) {
        struct report_watch *grown = realloc(level->watch, (level->n_watch + 1) * sizeof *grown);
        if (grown == NULL) return -1;
        level->watch = grown;
        w = &level->watch[level->n_watch++];
        memset(w, 0, sizeof *w);
        w->tree = strndup(tree, tree_len);
        w->component = component ? strndup(component, component_len) : NULL;
        if (w->tree == NULL || (component && w->component == NULL)) return -1;
    }
    if (strcmp(what, "cpu_s") == 0) {
        w->has_cpu = true;
        w->cpu_cores = stats_mean(samples, n);
        return 0;
    }
    double *target = strcmp(what, "rss_bytes") == 0   ? &w->rss
                     : strcmp(what, "pss_bytes") == 0 ? &w->pss
                     : strcmp(what, "uss_bytes") == 0 ? &w->uss
                                                      : NULL;
    if (target == NULL) return 0;
    stats_sort(samples, n);
    *target = stats_percentile_sorted(samples, n, 0.5);
    w->has_rss |= target == &w->rss;
    w->has_pss |= target == &w->pss;
    w->has_uss |= target == &w->uss;
    return 0;
}

/* Takes ownership of a per-second series. */
static void take_series(struct docread_metric *metric, double **out, size_t *len)
{
    if (*out != NULL) return;
    *out = metric->samples;
    *len = metric->n;
    metric->samples = NULL;
}

/* A metric reduced to what the page draws. Only the walk is shared (docread_walk): runset's
 * take_metric and merge's add_metric keep other things of a metric. */
static int take_metric(void *ctx, struct docread_metric *metric)
{
    struct reading *r = ctx;
    unsigned long clients;
    const char *name;
    if (!stats_key_level(metric->key, &clients, &name)) return 0; /* not a level's */
    struct report_level *level = level_for(r->run, clients);
    if (level == NULL) goto out_of_memory;

    if (strcmp(name, "ran_s") == 0) {
        if (metric->n == 1 && metric->unit == STATS_UNIT_SECONDS) level->ran_s = metric->samples[0];
        return 0;
    }
    /* latencies and phases are drawn in milliseconds; a watched tree's
     * cpu_s in seconds (CPU seconds per second are cores) */
    if (stats_unit_is_time(metric->unit)) {
        bool watch = strncmp(name, "watch.", 6) == 0;
        double per = stats_unit_from_ms(metric->unit, watch ? 1000.0 : 1.0);
        for (size_t i = 0; per != 1.0 && i < metric->n; i++)
            metric->samples[i] /= per;
    }
    for (int c = 0; c < REPORT_COUNTS; c++)
        if (strcmp(name, count_names[c]) == 0) {
            level->has_count[c] = true;
            level->count[c] = sum(metric->samples, metric->n);
            return 0;
        }
    if (strncmp(name, "errors.", 7) == 0) {
        if (take_error_class(level, name + 7, sum(metric->samples, metric->n))) goto out_of_memory;
        return 0;
    }
    for (int c = 0; c < REPORT_CURVES; c++)
        if (strcmp(name, curve_names[c]) == 0) {
            report_curve_fill(&level->curves[c], metric->samples, metric->n);
            return 0;
        }
    for (int p = 0; p < REPORT_PHASES; p++)
        if (strcmp(name, phase_names[p]) == 0) {
            stats_sort(metric->samples, metric->n);
            level->has_phase[p] = true;
            level->phase_median_ms[p] = stats_percentile_sorted(metric->samples, metric->n, 0.5);
            return 0;
        }
    if (strcmp(name, "requests_per_second") == 0)
        take_series(metric, &level->rps, &level->rps_len);
    else if (strcmp(name, "errors_per_second") == 0)
        take_series(metric, &level->eps, &level->eps_len);
    else if (strncmp(name, "watch.", 6) == 0 && take_watch(level, name, metric->samples, metric->n))
        goto out_of_memory;
    return 0;
out_of_memory:
    snprintf(metric->why, metric->why_size, "out of memory at metric \"%.100s\"", metric->key);
    return DOCREAD_NO_MEMORY;
}

/* The seconds past the last whole one a level ran are not the level's: zeros
 * there (an interrupted level's, in a document of a generator before ran_s)
 * would read as its rate falling. */
static void end_timelines_where_the_level_stopped(const struct report_run *run,
                                                  struct report_level *level)
{
    double seconds = report_level_seconds(run, level);
    if (!(seconds > 0)) return;
    double whole = seconds >= 1 ? floor(seconds) : 1;
    if ((double)level->rps_len > whole) level->rps_len = (size_t)whole;
    if ((double)level->eps_len > whole) level->eps_len = (size_t)whole;
}

int report_run_read(const char *path, const char *meta_path, struct report_run *run, char *error,
                    size_t error_size)
{
    memset(run, 0, sizeof *run);
    run->path = strdup(path);
    if (run->path == NULL) {
        snprintf(error, error_size, "out of memory");
        return DOCREAD_NO_MEMORY;
    }
    struct reading r = {run};
    struct docread_options options = {.on_metric = take_metric, .ctx = &r};
    struct docread_result result;
    enum docread_status status = docread_walk(path, &options, &result);
    snprintf(error, error_size, "%s", result.error);
    docread_result_free(&result);
    if (status != DOCREAD_OK) return (int)status;

    bool look_beside = meta_path == NULL && strcmp(path, "-") != 0;
    char *beside = look_beside ? stats_runmeta_path_for(path) : NULL;
    int rc = 0;
    if (meta_path != NULL || beside != NULL)
        rc = report_meta_read(meta_path ? meta_path : beside, meta_path == NULL, &run->meta);
    bool lost = look_beside && beside == NULL;
    free(beside);
    if (rc != 0 || lost) {
        snprintf(error, error_size, "out of memory");
        return DOCREAD_NO_MEMORY;
    }
    for (size_t i = 0; i < run->n_levels; i++)
        end_timelines_where_the_level_stopped(run, &run->levels[i]);
    return 0;
}

void report_run_free(struct report_run *run)
{
    for (size_t i = 0; i < run->n_levels; i++) {
        struct report_level *l = &run->levels[i];
        for (size_t c = 0; c < l->n_classes; c++)
            free(l->classes[c].name);
        free(l->classes);
        for (size_t w = 0; w < l->n_watch; w++) {
            free(l->watch[w].tree);
            free(l->watch[w].component);
        }
        free(l->watch);
        free(l->rps);
        free(l->eps);
    }
    free(run->levels);
    free(run->path);
    report_meta_free(&run->meta);
    memset(run, 0, sizeof *run);
}

const struct report_level *report_run_level(const struct report_run *run, unsigned long clients)
{
    for (size_t i = 0; i < run->n_levels; i++)
        if (run->levels[i].clients == clients) return &run->levels[i];
    return NULL;
}

double report_level_rps(const struct report_level *level)
{
    return stats_mean(level->rps, level->rps_len);
}

double report_level_seconds(const struct report_run *run, const struct report_level *level)
{
    const struct report_meta_level *m = report_meta_level(&run->meta, level->clients);
    if (m && isfinite(m->seconds) && m->seconds > 0) return m->seconds;
    if (isfinite(level->ran_s) && level->ran_s > 0) return level->ran_s;
    return level->rps_len ? (double)level->rps_len : NAN;
}

bool report_level_open_loop(const struct report_level *level)
{
    return level->has_count[REPORT_SCHEDULED];
}
