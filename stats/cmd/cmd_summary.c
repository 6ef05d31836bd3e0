/* cmd_summary.c — `loadstats summary`: the harness's statistics of every metric,
 * as a table for people grouped by level (summarytext.c), as the table of every
 * statistic the harness rounds (--wide), or as JSON. Each metric is summarized
 * as soon as the reader finishes it, and its samples freed. Over several runs of
 * one test (a comma-separated list), each statistic is the mean of the runs'
 * with the run-to-run spread beside it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/cmd/cmd.h"
#include "stats/math/cpuwork.h"
#include "stats/read/metrickind.h"
#include "stats/write/numfmt.h"
#include "stats/runs/runset.h"
#include "stats/math/stats.h"
#include "stats/cmd/summarytext.h"

enum { OPT_JSON = CMD_LONG_ONLY, OPT_WIDE };

enum summary_format { FORMAT_TEXT, FORMAT_WIDE, FORMAT_JSON };

static const struct cmd_option summary_options[] = {
    {"json", OPT_JSON, false, "--json",
     "print {\"<metric>\": {\"n\": ..., \"min\": ..., ...}, ...}"},
    {"wide", OPT_WIDE, false, "--wide",
     "the table of every statistic of every metric, rounded\nas in JSON, whatever its width"},
};

static int take_option(void *settings, int id, const char *value)
{
    (void)value; /* neither takes one */
    enum summary_format *format = settings;
    *format = id == OPT_JSON ? FORMAT_JSON : FORMAT_WIDE;
    return EXIT_FINE;
}

static const struct cmd_spec summary_spec = {
    .name = "summary",
    .synopsis = "[--json | --wide] FILE[,FILE...]",
    .about =
        "Per metric of a collector document (FILE, or - for stdin): n, min, max, mean,\n"
        "median, p90, p95, p99, p999, stddev (population), cv (stddev/mean) and mad\n"
        "(median absolute deviation), computed over every sample and rounded to two\n"
        "decimals exactly as the benchmark harness rounds them.\n"
        "Given several runs of one test as a comma-separated list: each statistic is the\n"
        "mean of the runs' values, with the run-to-run spread beside it (the standard\n"
        "deviation of the runs' values, ± in the table, \"spread\" in JSON); n is the total.\n",
    .epilog = "Without an option: per level (the c<clients>. key prefix) its counts as integers,\n"
              "the percentiles of its samples (latencies, phases) and its per-second series,\n"
              "each row in a unit chosen for it (µs, ms, s, MiB, req/s) with three significant\n"
              "digits, in at most 120 columns (the statistics that do not fit are left out;\n"
              "--wide shows them all); then for each --watch tree the requests per consumed\n"
              "CPU second of each level.\n"
              "Exit status: 0 done, 1 a document is invalid, 2 usage or I/O error, 4 out of\n"
              "memory.\n",
    .help_column = 13,
    .options = summary_options,
    .n_options = sizeof summary_options / sizeof *summary_options,
    .operands = CMD_ONE_FILE,
    .take = take_option,
};

static int summarize_metric(void *ctx, struct docread_metric *metric)
{
    struct summary_rows *all = ctx;
    if (all->count == all->cap) {
        size_t cap = all->cap ? all->cap * 2 : 64;
        struct summary_row *rows = realloc(all->rows, cap * sizeof *rows);
        if (rows == NULL) goto out_of_memory;
        all->rows = rows;
        all->cap = cap;
    }
    struct summary_row *row = &all->rows[all->count];
    row->key = strdup(metric->key);
    if (row->key == NULL) goto out_of_memory;
    row->unit = metric->unit;
    row->position = all->count;
    row->runs = 1;
    stats_summarize_unrounded(metric->samples, metric->n, &row->exact);
    row->summary = row->exact;
    stats_summary_round(&row->summary);
    all->count++;
    return 0;
out_of_memory:
    return no_memory("summary", "at metric \"%s\"", metric->key);
}

/* The statistics of a summary, in their order in JSON. */
#define SUMMARY_FIELDS 11
static void summary_fields(const struct stats_summary *s, double out[SUMMARY_FIELDS])
{
    const double values[SUMMARY_FIELDS] = {s->min, s->max,  s->mean,   s->median, s->p90, s->p95,
                                           s->p99, s->p999, s->stddev, s->cv,     s->mad};
    memcpy(out, values, sizeof values);
}
static const char *const field_names[SUMMARY_FIELDS] = {
    "min", "max", "mean", "median", "p90", "p95", "p99", "p999", "stddev", "cv", "mad"};

static void print_fields(const struct stats_summary *s)
{
    double values[SUMMARY_FIELDS];
    summary_fields(s, values);
    for (size_t f = 0; f < SUMMARY_FIELDS; f++) {
        printf("%s\"%s\": ", f ? ", " : "", field_names[f]);
        json_write_number(stdout, values[f]);
    }
}

static void print_json(const struct summary_rows *all)
{
    printf("{");
    for (size_t i = 0; i < all->count; i++) {
        const struct summary_row *row = &all->rows[i];
        printf(i ? ",\n  " : "\n  ");
        json_write_string(stdout, row->key);
        printf(": {\"n\": %zu, ", row->summary.n);
        if (row->runs > 1) printf("\"runs\": %zu, ", row->runs);
        print_fields(&row->summary);
        if (row->runs > 1) {
            printf(", \"spread\": {");
            print_fields(&row->spread);
            printf("}");
        }
        printf("}");
    }
    printf("\n}\n");
}

#define TABLE_COLUMNS 14

static void row_cells(const struct summary_row *row, char cells[TABLE_COLUMNS][48])
{
    const struct stats_summary *s = &row->summary;
    unsigned long clients;
    const char *metric = row->key;
    stats_key_level(row->key, &clients, &metric);
    snprintf(cells[0], 48, "%.47s", metric);
    snprintf(cells[1], 48, "%s", stats_unit_symbol(row->unit));
    snprintf(cells[2], 48, "%zu", s->n);
    const struct stats_summary *d = &row->spread;
    const double values[] = {s->min, s->median, s->p90,    s->p95, s->p99, s->p999,
                             s->max, s->mean,   s->stddev, s->cv,  s->mad};
    const double spreads[] = {d->min, d->median, d->p90,    d->p95, d->p99, d->p999,
                              d->max, d->mean,   d->stddev, d->cv,  d->mad};
    char value[STATS_FIXED_MAX], spread[STATS_FIXED_MAX];
    for (size_t i = 0; i < sizeof values / sizeof *values; i++)
        if (row->runs > 1)
            snprintf(cells[3 + i], 48, "%s+-%s", stats_format_fixed(values[i], 2, false, value),
                     stats_format_fixed(spreads[i], 2, false, spread));
        else
            snprintf(cells[3 + i], 48, "%s", stats_format_fixed(values[i], 2, false, value));
}

/* --wide: every statistic as JSON has it, whatever the width. */
static void print_wide_table(const struct summary_rows *all)
{
    static const char *const headers[TABLE_COLUMNS] = {"metric", "unit",   "n",   "min",  "median",
                                                       "p90",    "p95",    "p99", "p999", "max",
                                                       "mean",   "stddev", "cv",  "mad"};

    int width[TABLE_COLUMNS];
    char cells[TABLE_COLUMNS][48];
    for (int c = 0; c < TABLE_COLUMNS; c++)
        width[c] = (int)strlen(headers[c]);
    for (size_t i = 0; i < all->count; i++) {
        row_cells(&all->rows[i], cells);
        for (int c = 0; c < TABLE_COLUMNS; c++)
            if ((int)strlen(cells[c]) > width[c]) width[c] = (int)strlen(cells[c]);
    }

    bool first = true, had_level = false;
    unsigned long level = 0;
    for (size_t i = 0; i < all->count; i++) {
        unsigned long clients = 0;
        const char *metric;
        bool has_level = stats_key_level(all->rows[i].key, &clients, &metric);
        if (first || has_level != had_level || clients != level) {
            if (!first) putchar('\n');
            if (has_level)
                printf("c%lu: %lu client%s\n", clients, clients, clients == 1 ? "" : "s");
            else
                printf("without a level\n");
            printf(" ");
            for (int c = 0; c < TABLE_COLUMNS; c++)
                printf(c < 2 ? " %-*s" : " %*s", width[c], headers[c]);
            putchar('\n');
            first = false;
            had_level = has_level;
            level = clients;
        }
        row_cells(&all->rows[i], cells);
        printf(" ");
        for (int c = 0; c < TABLE_COLUMNS; c++)
            printf(c < 2 ? " %-*s" : " %*s", width[c], cells[c]);
        putchar('\n');
    }
}

/* Each statistic of a metric over the runs that have it, from each run's
 * summary (rounded, or with `exact` unrounded): the mean of the runs'
 * values, and their standard deviation (n − 1) as the spread, rounded as
 * the runs' are. `values` has room for a value per run. */
static void over_runs(const struct stats_runset_metric *m, size_t n_runs, bool exact,
                      double *values, struct stats_summary *mean_out,
                      struct stats_summary *spread_out)
{
    double mean[SUMMARY_FIELDS], spread[SUMMARY_FIELDS], v[SUMMARY_FIELDS];
    size_t runs = 0, n = 0;
    for (size_t f = 0; f < SUMMARY_FIELDS; f++) {
        runs = n = 0;
        for (size_t k = 0; k < n_runs; k++) {
            if (!m->runs[k].present) continue;
            n += m->runs[k].n;
            summary_fields(exact ? &m->runs[k].exact : &m->runs[k].summary, v);
            values[runs++] = v[f];
        }
        stats_moments(values, runs, 1, &mean[f], &spread[f]);
    }
    struct stats_summary *s = mean_out, *d = spread_out;
    double *const fields[SUMMARY_FIELDS] = {&s->min,    &s->max, &s->mean, &s->median,
                                            &s->p90,    &s->p95, &s->p99,  &s->p999,
                                            &s->stddev, &s->cv,  &s->mad};
    double *const spreads[SUMMARY_FIELDS] = {&d->min,    &d->max, &d->mean, &d->median,
                                             &d->p90,    &d->p95, &d->p99,  &d->p999,
                                             &d->stddev, &d->cv,  &d->mad};
    for (size_t f = 0; f < SUMMARY_FIELDS; f++) {
        *fields[f] = mean[f];
        *spreads[f] = spread[f];
    }
    s->n = d->n = n;
    if (!exact) {
        stats_summary_round(s);
        stats_summary_round(d);
    }
}

static int summarize_runs(const char *list, struct summary_rows *all)
{
    struct stats_runset set;
    char error[512];
    int rc = stats_runset_read(&set, list, STATS_STAT_MEDIAN, false, error, sizeof error);
    if (rc != 0) {
        complain("summary", "%s", error);
        stats_runset_free(&set);
        return rc == DOCREAD_INVALID     ? EXIT_FAILS
               : rc == DOCREAD_NO_MEMORY ? EXIT_NO_MEMORY
                                         : EXIT_USAGE;
    }
    all->rows = calloc(set.keys.count ? set.keys.count : 1, sizeof *all->rows);
    double *values = malloc((set.n_runs ? set.n_runs : 1) * sizeof *values);
    int status = all->rows && values ? EXIT_FINE : no_memory("summary", "for the rows");
    for (size_t i = 0; i < set.keys.count && status == EXIT_FINE; i++) {
        struct summary_row *row = &all->rows[i];
        row->key = strdup(set.keys.keys[i]);
        if (row->key == NULL) status = no_memory("summary", "for the rows");
        row->unit = set.metrics[i].unit;
        row->position = i;
        row->runs = set.metrics[i].present;
        over_runs(&set.metrics[i], set.n_runs, false, values, &row->summary, &row->spread);
        over_runs(&set.metrics[i], set.n_runs, true, values, &row->exact, &row->exact_spread);
        all->count++;
    }
    free(values);
    stats_runset_free(&set);
    return status;
}

static const struct summary_row *find_row(const struct summary_rows *all, const char *key)
{
    for (size_t i = 0; i < all->count; i++)
        if (strcmp(all->rows[i].key, key) == 0) return &all->rows[i];
    return NULL;
}

/* Under the table: for each level and --watch tree, the requests the level
 * completed per CPU second the tree consumed. */
static void print_requests_per_cpu(const struct summary_rows *all)
{
    bool first = true;
    for (size_t i = 0; i < all->count; i++) {
        unsigned long clients;
        const char *metric, *tree;
        size_t tree_len;
        if (!stats_key_level(all->rows[i].key, &clients, &metric) ||
            !stats_watch_tree_cpu(metric, &tree, &tree_len))
            continue;
        char key[64];
        snprintf(key, sizeof key, "c%lu.requests_per_second", clients);
        const struct summary_row *rps = find_row(all, key);
        if (rps == NULL) continue;
        double ratio = stats_requests_per_cpu_second(rps->exact.mean, all->rows[i].exact.mean);
        if (first)
            printf("\nrequests per consumed CPU second of each watched tree (the level's mean\n"
                   "requests/s over the tree's mean CPU seconds per second):\n");
        first = false;
        if (isfinite(ratio))
            printf("  c%lu  %.*s  %.2f\n", clients, (int)tree_len, tree, ratio);
        else
            printf("  c%lu  %.*s  n/a (no CPU consumed)\n", clients, (int)tree_len, tree);
    }
}

int cmd_summary(int argc, char **argv)
{
    enum summary_format format = FORMAT_TEXT;
    char **files;
    int n_files;
    int status = cmd_parse(&summary_spec, argc, argv, &format, &files, &n_files);
    if (status != CMD_PROCEED) return status;

    struct summary_rows all = {0};
    struct docread_result result = {0};
    if (strchr(files[0], ',') != NULL) {
        status = summarize_runs(files[0], &all);
    } else {
        struct docread_options read_options = {.on_metric = summarize_metric, .ctx = &all};
        status = read_document("summary", files[0], &read_options, &result);
    }
    if (status == EXIT_FINE) {
        if (format == FORMAT_JSON) {
            print_json(&all);
        } else {
            summary_rows_sort(&all);
            if (format == FORMAT_WIDE)
                print_wide_table(&all);
            else
                summary_text_write(stdout, &all, SUMMARY_TEXT_WIDTH);
            print_requests_per_cpu(&all);
        }
        status = finish_output("summary", stdout, "standard output");
    }
    docread_result_free(&result);
    for (size_t i = 0; i < all.count; i++)
        free(all.rows[i].key);
    free(all.rows);
    return status;
}
