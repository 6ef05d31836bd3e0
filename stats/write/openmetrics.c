/* openmetrics.c — collecting metrics into families and writing OpenMetrics
 * text (see openmetrics.h). Families are written whole, in the order their
 * metrics first appear, because OpenMetrics forbids interleaving them. */
#include "stats/write/openmetrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/write/numfmt.h"
#include "stats/math/stats.h"

const double stats_om_quantile_levels[STATS_OM_QUANTILES] = {0, 0.5, 0.9, 0.95, 0.99, 0.999, 1};

void stats_om_init(struct stats_om *om)
{
    memset(om, 0, sizeof *om);
    keyindex_init(&om->names);
    keyindex_init(&om->reserved);
}

void stats_om_free(struct stats_om *om)
{
    for (size_t i = 0; i < om->names.count; i++) {
        free(om->families[i].name);
        free(om->families[i].metric);
        free(om->families[i].series);
    }
    free(om->families);
    keyindex_free(&om->names);
    keyindex_free(&om->reserved);
    memset(om, 0, sizeof *om);
}

/* loadgen_ + the metric with every character outside [A-Za-z0-9_] made '_'. */
static char *family_name(const char *metric, bool counter)
{
    size_t len = strlen(metric);
    char *name = malloc(sizeof "loadgen_" + len);
    if (name == NULL) return NULL;
    memcpy(name, "loadgen_", 8);
    for (size_t i = 0; i < len; i++) {
        char c = metric[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        name[8 + i] = ok ? c : '_';
    }
    name[8 + len] = '\0';
    /* A counter's samples end in _total; its family name does not. */
    size_t total = strlen(name);
    if (counter && total > 14 && strcmp(name + total - 6, "_total") == 0) name[total - 6] = '\0';
    return name;
}

/* Reserves the names a family writes; -1 with the clash in `error`, -2 when
 * memory ran out. */
static int reserve_names(struct stats_om *om, const char *family, bool counter, char *error,
                         size_t error_size)
{
    static const char *const counter_suffixes[] = {"", "_total", "_created"};
    static const char *const summary_suffixes[] = {"", "_sum", "_count", "_created"};
    const char *const *suffixes = counter ? counter_suffixes : summary_suffixes;
    size_t n = counter ? 3 : 4;
    char name[512];
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(name, sizeof name, "%s%s", family, suffixes[i]);
        if (len < 0 || (size_t)len >= sizeof name) {
            snprintf(error, error_size, "metric name too long for OpenMetrics: %.60s...", family);
            return -1;
        }
        if (keyindex_find(&om->reserved, name, (size_t)len) >= 0) {
            snprintf(error, error_size,
                     "two metrics would both write \"%s\" (names are sanitized to [A-Za-z0-9_])",
                     name);
            return -1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(name, sizeof name, "%s%s", family, suffixes[i]);
        bool inserted;
        if (keyindex_intern(&om->reserved, name, (size_t)len, &inserted) < 0) {
            snprintf(error, error_size, "for OpenMetrics names");
            return -2;
        }
    }
    return 0;
}

/* The family of `metric` into *out: 0, -1 with a reason, -2 out of memory. */
static int find_family(struct stats_om *om, const char *metric, enum stats_unit unit, bool counter,
                       char *error, size_t error_size, struct stats_om_family **out)
{
    char *name = family_name(metric, counter);
    if (name == NULL) goto out_of_memory;
    long at = keyindex_find(&om->names, name, strlen(name));
    if (at >= 0) {
        struct stats_om_family *f = &om->families[at];
        free(name);
        if (strcmp(f->metric, metric) != 0) {
            snprintf(error, error_size, "\"%.80s\" and \"%.80s\" both become %s", f->metric, metric,
                     f->name);
            return -1;
        }
        if (f->unit != unit || f->counter != counter) {
            snprintf(error, error_size, "\"%.80s\" is %s in one level and %s in another", metric,
                     stats_unit_name(f->unit), stats_unit_name(unit));
            return -1;
        }
        *out = f;
        return 0;
    }
    int reserved = reserve_names(om, name, counter, error, error_size);
    if (reserved != 0) {
        free(name);
        return reserved;
    }
    if (om->names.count == om->cap) {
        size_t cap = om->cap ? om->cap * 2 : 32;
        struct stats_om_family *grown = realloc(om->families, cap * sizeof *grown);
        if (grown == NULL) goto out_of_memory;
        om->families = grown;
        om->cap = cap;
    }
    char *metric_copy = strdup(metric);
    bool inserted;
    if (metric_copy == NULL || keyindex_intern(&om->names, name, strlen(name), &inserted) < 0) {
        free(metric_copy);
        goto out_of_memory;
    }
    struct stats_om_family *f = &om->families[om->names.count - 1];
    *f = (struct stats_om_family){
        .name = name, .metric = metric_copy, .unit = unit, .counter = counter};
    *out = f;
    return 0;
out_of_memory:
    free(name);
    snprintf(error, error_size, "for OpenMetrics families");
    return -2;
}

int stats_om_add(struct stats_om *om, const char *key, enum stats_unit unit, double *samples,
                 size_t n, char *error, size_t error_size)
{
    unsigned long clients = 0;
    const char *metric = key;
    bool has_level = stats_key_level(key, &clients, &metric);
    bool counter = stats_metric_kind(key, unit) == STATS_KIND_COUNT;
    if (counter && (n != 1 || samples[0] < 0)) {
        snprintf(error, error_size, "\"%.100s\" is a count and needs one non-negative sample", key);
        return -1;
    }
    struct stats_om_family *f = NULL;
    int found = find_family(om, metric, unit, counter, error, error_size, &f);
    if (found != 0) return found;
    if (f->count == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 4;
        struct stats_om_series *grown = realloc(f->series, cap * sizeof *grown);
        if (grown == NULL) {
            snprintf(error, error_size, "for OpenMetrics series");
            return -2;
        }
        f->series = grown;
        f->cap = cap;
    }
    struct stats_om_series *s = &f->series[f->count++];
    memset(s, 0, sizeof *s);
    s->has_level = has_level;
    s->clients = clients;
    s->count = n;
    if (counter) {
        s->value = samples[0];
        return 0;
    }
    stats_sort(samples, n);
    for (size_t q = 0; q < STATS_OM_QUANTILES; q++)
        s->quantiles[q] = stats_percentile_sorted(samples, n, stats_om_quantile_levels[q]);
    for (size_t i = 0; i < n; i++)
        s->sum += samples[i];
    /* a sum beyond a double has no number to write: left out, as it may be */
    s->has_sum = samples[0] >= 0 && isfinite(s->sum);
    return 0;
}

/* HELP text: backslash and newline escaped. */
static void write_escaped(FILE *out, const char *s, bool label)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", out);
        else if (*s == '\n')
            fputs("\\n", out);
        else if (*s == '"' && label)
            fputs("\\\"", out);
        else
            putc(*s, out);
    }
}

static void write_number(FILE *out, double x)
{
    char buf[STATS_NUMBER_MAX];
    fwrite(buf, 1, stats_format_double(x, buf), out);
}

/* name{clients="64"[,quantile="0.5"]} value */
static void write_sample(FILE *out, const char *name, const char *suffix,
                         const struct stats_om_series *s, const char *quantile, double value)
{
    fprintf(out, "%s%s", name, suffix);
    if (s->has_level || quantile) {
        putc('{', out);
        if (s->has_level) fprintf(out, "clients=\"%lu\"", s->clients);
        if (quantile) fprintf(out, "%squantile=\"%s\"", s->has_level ? "," : "", quantile);
        putc('}', out);
    }
    putc(' ', out);
    write_number(out, value);
    putc('\n', out);
}

/* # UNIT only where the name ends in the unit, as OpenMetrics requires. */
static const char *om_unit(const struct stats_om_family *f)
{
    const char *unit = NULL;
    if (f->unit == STATS_UNIT_SECONDS) unit = "seconds";
    if (f->unit == STATS_UNIT_BYTES) unit = "bytes";
    if (f->unit == STATS_UNIT_RATIO) unit = "ratio";
    if (unit == NULL) return NULL;
    size_t len = strlen(f->name), ulen = strlen(unit);
    if (len > ulen + 1 && f->name[len - ulen - 1] == '_' && strcmp(f->name + len - ulen, unit) == 0)
        return unit;
    return NULL;
}

void stats_om_write(FILE *out, const struct stats_om *om)
{
    static const char *const quantile_labels[STATS_OM_QUANTILES] = {"0",    "0.5",   "0.9", "0.95",
                                                                    "0.99", "0.999", "1"};
    for (size_t i = 0; i < om->names.count; i++) {
        const struct stats_om_family *f = &om->families[i];
        fprintf(out, "# TYPE %s %s\n", f->name, f->counter ? "counter" : "summary");
        const char *unit = om_unit(f);
        if (unit) fprintf(out, "# UNIT %s %s\n", f->name, unit);
        fprintf(out, "# HELP %s ", f->name);
        write_escaped(out, f->metric, false);
        fprintf(out, " (%s)%s\n", stats_unit_name(f->unit),
                f->counter ? ", exact count of the level"
                           : ", per level: quantiles over every sample as loadstats summary "
                             "computes them");
        for (size_t k = 0; k < f->count; k++) {
            const struct stats_om_series *s = &f->series[k];
            if (f->counter) {
                write_sample(out, f->name, "_total", s, NULL, s->value);
                continue;
            }
            for (size_t q = 0; q < STATS_OM_QUANTILES; q++)
                write_sample(out, f->name, "", s, quantile_labels[q], s->quantiles[q]);
            if (s->has_sum) write_sample(out, f->name, "_sum", s, NULL, s->sum);
            write_sample(out, f->name, "_count", s, NULL, (double)s->count);
        }
    }
    fputs("# EOF\n", out);
}
