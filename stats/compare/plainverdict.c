/* plainverdict.c — compare's rows put in one sentence (see plainverdict.h).
 * The headline quantities of each level come first, whatever became of
 * them, since "no change in throughput" is news too; other rows only when
 * they moved for real. Rows are few (a few dozen a level), so each look-up
 * is a walk over them and nothing is allocated. */
#include "stats/compare/plainverdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "stats/read/metrickind.h"

/* A sentence being written into a caller's buffer, cut where it is full. */
struct text {
    char *buf;
    size_t size, len;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
    if (t->len + 1 >= t->size) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
    va_end(ap);
    if (n > 0) t->len += (size_t)n < t->size - t->len ? (size_t)n : t->size - t->len - 1;
}

/* What a row stands for in the sentence. */
enum role { ROLE_WARM, ROLE_COLD, ROLE_THROUGHPUT, ROLE_ERRORS, ROLE_OTHER };

static enum role role_of(const struct stats_compare_row *row)
{
    const char *metric = stats_key_metric(row->key);
    if (strcmp(metric, "latency_warm_ms") == 0) return ROLE_WARM;
    if (strcmp(metric, "latency_cold_ms") == 0) return ROLE_COLD;
    if (strcmp(metric, "requests_per_second") == 0) return ROLE_THROUGHPUT;
    if (strcmp(metric, "errors") == 0) return ROLE_ERRORS;
    return ROLE_OTHER;
}

/* The level part of a key ("c64." of "c64.latency_warm_ms"; "" without one). */
static size_t prefix_len(const char *key)
{
    return strlen(key) - strlen(stats_key_metric(key));
}

static bool same_level(const char *a, const char *b)
{
    size_t n = prefix_len(a);
    return n == prefix_len(b) && strncmp(a, b, n) == 0;
}

static const struct stats_compare_row *find(const struct stats_compare_report *report,
                                            const char *level_of, enum role role)
{
    for (size_t i = 0; i < report->n_rows; i++)
        if (report->rows[i].counted && role_of(&report->rows[i]) == role &&
            same_level(report->rows[i].key, level_of))
            return &report->rows[i];
    return NULL;
}

/* Does the row lead its level's clauses, whatever its verdict? */
static bool is_headline(const struct stats_compare_report *report,
                        const struct stats_compare_row *row)
{
    if (!row->counted) return false;
    switch (role_of(row)) {
    case ROLE_WARM:
    case ROLE_THROUGHPUT:
        return true;
    case ROLE_COLD: /* a level of one request per connection has only cold ones */
        return find(report, row->key, ROLE_WARM) == NULL;
    case ROLE_ERRORS: /* no errors on either side is nothing to say */
        return row->result.base != 0 || row->result.current != 0;
    default:
        return false;
    }
}

/* Is it a matter of speed: a time per request or connection, or throughput? */
static bool is_speed(const struct stats_compare_row *row)
{
    return role_of(row) == ROLE_THROUGHPUT ||
           (stats_unit_is_time(row->unit) &&
            stats_metric_kind(row->key, row->unit) == STATS_KIND_SAMPLES);
}

static bool several_levels(const struct stats_compare_report *report)
{
    for (size_t i = 1; i < report->n_rows; i++)
        if (!same_level(report->rows[i].key, report->rows[0].key)) return true;
    return false;
}

/* "warm p50", "c64 throughput", "connect_ms p50", "reconnects". */
static void label_of(const struct stats_compare_row *row, const char *statistic, bool levels,
                     char *buf, size_t size)
{
    struct text t = {buf, size, 0};
    buf[0] = '\0';
    size_t level = prefix_len(row->key);
    if (levels && level > 0) add(&t, "%.*s ", (int)(level - 1), row->key);
    const char *metric = stats_key_metric(row->key);
    switch (role_of(row)) {
    case ROLE_WARM:
        add(&t, "warm %s", statistic);
        break;
    case ROLE_COLD:
        add(&t, "cold %s", statistic);
        break;
    case ROLE_THROUGHPUT:
        add(&t, "throughput");
        break;
    default:
        if (stats_metric_kind(row->key, row->unit) == STATS_KIND_SAMPLES)
            add(&t, "%s %s", metric, statistic);
        else
            add(&t, "%s", metric);
    }
}

/* new/base − 1 as a percentage: "+31%", "-4.2%". */
static void percent(char *buf, size_t size, double ratio)
{
    double p = (ratio - 1.0) * 100.0;
    if (!isfinite(p))
        snprintf(buf, size, "n/a");
    else if (fabs(p) >= 1000)
        snprintf(buf, size, "%+.3g%%", p);
    else if (fabs(p) >= 10)
        snprintf(buf, size, "%+.0f%%", p);
    else
        snprintf(buf, size, "%+.1f%%", p);
}

/* "2 runs a side", "2 base runs and 1 new run". */
static void runs_phrase(const struct stats_comparison *c, char *buf, size_t size)
{
    if (c->base_runs == c->new_runs)
        snprintf(buf, size, "%zu run%s a side", c->base_runs, c->base_runs == 1 ? "" : "s");
    else
        snprintf(buf, size, "%zu base run%s and %zu new run%s", c->base_runs,
                 c->base_runs == 1 ? "" : "s", c->new_runs, c->new_runs == 1 ? "" : "s");
}

/* One row's clause; an ok row's label goes to the clause of all of them. */
struct clauses {
    struct text text;
    size_t n;
    char ok[4][96]; /* the first labels within the factor */
    size_t n_ok;
};

static void clause(struct clauses *out, const struct stats_compare_row *row, const char *label,
                   const struct stats_thresholds *thresholds)
{
    const struct stats_comparison *c = &row->result;
    if (c->verdict == STATS_VERDICT_OK) {
        if (out->n_ok < 4) snprintf(out->ok[out->n_ok], sizeof out->ok[0], "%s", label);
        out->n_ok++;
        return;
    }
    struct text *t = &out->text;
    add(t, "%s%s", out->n++ ? "; " : "", label);
    char a[32], b[32], c_[32];
    switch (c->verdict) {
    case STATS_VERDICT_TINY:
        percent(a, sizeof a, c->ratio);
        add(t, " %s but under %g ms", a, thresholds->minimum_time_resolution_ms);
        break;
    case STATS_VERDICT_NOISY:
        if (c->noise == STATS_NOISE_ZERO_BASE) {
            add(t, " %.6g → %.6g: the base can be 0, so there is no ratio to judge", c->base,
                c->current);
        } else if (c->noise == STATS_NOISE_RUNS) {
            add(t, " not distinguishable from noise: it is in only one run of a side of several");
        } else {
            runs_phrase(c, a, sizeof a);
            add(t, " not distinguishable from noise with %s: run more", a);
        }
        break;
    default: /* regressed, improved, changed: a real move */
        if (stats_comparison_undefined(c)) {
            add(t, " %.6g → %.6g", c->base, c->current);
        } else {
            percent(a, sizeof a, c->ratio);
            percent(b, sizeof b, c->ratio_low);
            percent(c_, sizeof c_, c->ratio_high);
            add(t, " %s [%s, %s]", a, b, c_);
        }
    }
}

/* The headline rows within the factor, together: "warm p50 and throughput
 * within x1.1". */
static void ok_clause(struct clauses *out, double factor)
{
    if (out->n_ok == 0) return;
    struct text *t = &out->text;
    add(t, "%s", out->n ? "; " : "");
    if (out->n_ok > 4) {
        add(t, "%s %zu headline figures", out->n ? "the other" : "all", out->n_ok);
    } else {
        for (size_t i = 0; i < out->n_ok; i++)
            add(t, "%s%s", i == 0 ? "" : i + 1 == out->n_ok ? " and " : ", ", out->ok[i]);
    }
    add(t, " within x%g", factor);
    out->n++;
}

static void opening_of(const struct stats_compare_report *report, char *buf, size_t size)
{
    size_t regressed = 0, improved = 0, changed = 0, noisy = 0;
    bool slower = true, faster = true;
    for (size_t i = 0; i < report->n_rows; i++) {
        const struct stats_compare_row *row = &report->rows[i];
        if (!row->counted) continue;
        switch (row->result.verdict) {
        case STATS_VERDICT_REGRESSED:
            regressed++;
            slower &= is_speed(row);
            break;
        case STATS_VERDICT_IMPROVED:
            improved++;
            faster &= is_speed(row);
            break;
        case STATS_VERDICT_CHANGED:
            changed++;
            break;
        case STATS_VERDICT_NOISY:
            noisy += is_headline(report, row);
            break;
        default:
            break;
        }
    }
    if (report->n_rows == 0)
        snprintf(buf, size, "nothing to compare: base and new have no metric in common");
    else if (regressed && improved)
        snprintf(buf, size, "new is worse in some ways and better in others");
    else if (regressed)
        snprintf(buf, size, "new is %s", slower ? "slower" : "worse");
    else if (improved)
        snprintf(buf, size, "new is %s", faster ? "faster" : "better");
    else if (changed)
        snprintf(buf, size, "new is neither better nor worse, but it changed");
    else if (noisy)
        snprintf(buf, size, "no difference shown");
    else
        snprintf(buf, size, "no real difference");
}

#define MOST_OTHER_MOVES 6

void stats_plain_verdict(const struct stats_compare_report *report,
                         const struct stats_compare_settings *settings, char *opening,
                         size_t opening_size, char *clauses, size_t clauses_size)
{
    opening_of(report, opening, opening_size);
    const enum stats_statistic statistic = settings->bootstrap.statistic;
    const char *stat = statistic == STATS_STAT_MEDIAN ? "p50" : stats_statistic_name(statistic);
    bool levels = several_levels(report);
    struct clauses out = {{clauses, clauses_size, 0}, 0, {{0}}, 0};
    clauses[0] = '\0';
    char label[96];
    static const enum role order[] = {ROLE_WARM, ROLE_COLD, ROLE_THROUGHPUT, ROLE_ERRORS};
    for (size_t i = 0; i < report->n_rows; i++) {
        bool first_of_level = true;
        for (size_t k = 0; k < i && first_of_level; k++)
            first_of_level = !same_level(report->rows[k].key, report->rows[i].key);
        if (!first_of_level) continue;
        for (size_t r = 0; r < sizeof order / sizeof *order; r++) {
            const struct stats_compare_row *row = find(report, report->rows[i].key, order[r]);
            if (row == NULL || !is_headline(report, row)) continue;
            label_of(row, stat, levels, label, sizeof label);
            clause(&out, row, label, &settings->thresholds);
        }
    }
    size_t moves = 0;
    for (size_t i = 0; i < report->n_rows; i++) {
        const struct stats_compare_row *row = &report->rows[i];
        enum stats_verdict v = row->result.verdict;
        if (!row->counted || is_headline(report, row) ||
            (v != STATS_VERDICT_REGRESSED && v != STATS_VERDICT_IMPROVED &&
             v != STATS_VERDICT_CHANGED))
            continue;
        if (moves++ >= MOST_OTHER_MOVES) continue;
        label_of(row, stat, levels, label, sizeof label);
        clause(&out, row, label, &settings->thresholds);
    }
    if (moves > MOST_OTHER_MOVES)
        add(&out.text, "; %zu more moves in the table", moves - MOST_OTHER_MOVES);
    ok_clause(&out, settings->thresholds.maximum_factor);
}
