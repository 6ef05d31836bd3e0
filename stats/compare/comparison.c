/* comparison.c — joining two run sets metric by metric and judging each (see
 * comparison.h). */
#include "stats/compare/comparison.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/read/metrickind.h"

/* A seed of its own per metric, so a metric's interval does not depend on
 * which other metrics the documents hold. */
static uint64_t metric_seed(uint64_t seed, const char *key)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return seed ^ h;
}

/* The runs of a side that have the metric, and their mean statistic, p99 and cv. */
struct side {
    const struct stats_run_metric **runs;
    size_t n;
    uint64_t samples;
    double value, p99, cv;
};

static int gather(const struct stats_runset_metric *m, size_t n_runs, struct side *side)
{
    memset(side, 0, sizeof *side);
    side->runs = calloc(n_runs ? n_runs : 1, sizeof *side->runs);
    if (side->runs == NULL) return -1;
    struct stats_running_mean value = {0}, p99 = {0}, cv = {0};
    for (size_t k = 0; k < n_runs; k++) {
        const struct stats_run_metric *run = &m->runs[k];
        if (!run->present) continue;
        side->runs[side->n++] = run;
        side->samples += run->n;
        stats_running_mean_add(&value, run->value);
        stats_running_mean_add(&p99, run->summary.p99);
        stats_running_mean_add(&cv, run->summary.cv);
    }
    side->value = stats_running_mean_value(&value);
    side->p99 = stats_running_mean_value(&p99);
    side->cv = stats_running_mean_value(&cv);
    return 0;
}

static int judge_row(const struct stats_runset_metric *before,
                     const struct stats_runset_metric *after, size_t base_runs, size_t new_runs,
                     const char *key, const struct stats_compare_settings *settings,
                     struct stats_compare_row *row)
{
    struct side b = {0}, a = {0};
    int rc = gather(before, base_runs, &b);
    if (rc == 0) rc = gather(after, new_runs, &a);
    struct stats_comparison *c = &row->result;
    memset(row, 0, sizeof *row);
    row->key = key;
    row->unit = before->unit;
    if (rc == 0) {
        stats_comparison_move(c, b.value, a.value);
        struct stats_bootstrap boot = settings->bootstrap;
        boot.seed = metric_seed(boot.seed, key);
        struct stats_interval interval = {0}; /* unset when the bootstrap fails */
        rc = stats_bootstrap_ratio(b.runs, b.n, a.runs, a.n, &boot, &interval);
        c->ratio_low = interval.low;
        c->ratio_high = interval.high;
        row->interval_df = interval.df;
    }
    if (rc == 0) {
        struct stats_metric_info info;
        stats_metric_info(key, before->unit, &info);
        c->base_runs = b.n;
        c->new_runs = a.n;
        c->base_given = base_runs;
        c->new_given = new_runs;
        c->base_samples = b.samples;
        c->new_samples = a.samples;
        c->base_cv = b.cv;
        c->lower_is_worse = info.lower_is_worse;
        c->directionless = info.directionless;
        row->counted = !info.part;
        stats_judge(c, before->unit, &settings->thresholds);
        row->has_p99 = info.kind == STATS_KIND_SAMPLES && stats_unit_is_time(before->unit);
        row->base_p99 = stats_round2(b.p99);
        row->new_p99 = stats_round2(a.p99);
    }
    free(b.runs);
    free(a.runs);
    return rc;
}

static int add_conflict(struct stats_compare_report *out, const char *key, enum stats_unit base,
                        enum stats_unit current)
{
    char **grown = realloc(out->conflicts, (out->n_conflicts + 1) * sizeof *grown);
    if (grown == NULL) return -1;
    out->conflicts = grown;
    char line[400];
    snprintf(line, sizeof line, "\"%.200s\" is in %s in BASE but in %s in NEW; cannot compare", key,
             stats_unit_name(base), stats_unit_name(current));
    out->conflicts[out->n_conflicts] = strdup(line);
    if (out->conflicts[out->n_conflicts] == NULL) return -1;
    out->n_conflicts++;
    return 0;
}

int stats_compare_runsets(const struct stats_runset *base, const struct stats_runset *current,
                          const struct stats_compare_settings *settings,
                          struct stats_compare_report *out)
{
    memset(out, 0, sizeof *out);
    size_t nb = base->keys.count, nn = current->keys.count;
    out->rows = calloc(nb ? nb : 1, sizeof *out->rows);
    out->only_base = calloc(nb ? nb : 1, sizeof *out->only_base);
    out->only_new = calloc(nn ? nn : 1, sizeof *out->only_new);
    if (out->rows == NULL || out->only_base == NULL || out->only_new == NULL) goto out_of_memory;
    for (size_t i = 0; i < nb; i++) {
        const char *key = base->keys.keys[i];
        long at = keyindex_find(&current->keys, key, strlen(key));
        if (at < 0) {
            out->only_base[out->n_only_base++] = base->keys.keys[i];
            continue;
        }
        const struct stats_runset_metric *before = &base->metrics[i],
                                         *after = &current->metrics[at];
        if (before->unit != after->unit) {
            if (add_conflict(out, key, before->unit, after->unit) != 0) goto out_of_memory;
            continue;
        }
        if (judge_row(before, after, base->n_runs, current->n_runs, key, settings,
                      &out->rows[out->n_rows]) != 0)
            goto out_of_memory;
        out->n_rows++;
    }
    for (size_t i = 0; i < nn; i++) {
        const char *key = current->keys.keys[i];
        if (keyindex_find(&base->keys, key, strlen(key)) < 0)
            out->only_new[out->n_only_new++] = current->keys.keys[i];
    }
    return 0;
out_of_memory:
    stats_compare_report_free(out);
    return -1;
}

void stats_compare_report_free(struct stats_compare_report *report)
{
    for (size_t i = 0; i < report->n_conflicts; i++)
        free(report->conflicts[i]);
    free(report->conflicts);
    free(report->rows);
    free(report->only_base);
    free(report->only_new);
    memset(report, 0, sizeof *report);
}

void stats_compare_tally(const struct stats_compare_report *report, struct stats_compare_tally *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < report->n_rows; i++) {
        if (!report->rows[i].counted) {
            out->parts++;
            continue;
        }
        out->compared++;
        out->verdicts[report->rows[i].result.verdict]++;
    }
}

void stats_compare_tally_text(const struct stats_compare_report *report, char *buf, size_t size)
{
    struct stats_compare_tally t;
    stats_compare_tally(report, &t);
    const size_t *v = t.verdicts;
    int n = snprintf(buf, size,
                     "%zu compared: %zu regressed, %zu improved, %zu changed, %zu noisy, "
                     "%zu tiny, %zu ok",
                     t.compared, v[STATS_VERDICT_REGRESSED], v[STATS_VERDICT_IMPROVED],
                     v[STATS_VERDICT_CHANGED], v[STATS_VERDICT_NOISY], v[STATS_VERDICT_TINY],
                     v[STATS_VERDICT_OK]);
    if (t.parts && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n,
                 "; %zu row%s of commands in watched trees shown, not counted", t.parts,
                 t.parts == 1 ? "" : "s");
}

bool stats_compare_regressed(const struct stats_compare_report *report)
{
    for (size_t i = 0; i < report->n_rows; i++)
        if (report->rows[i].counted && report->rows[i].result.significant) return true;
    return false;
}
