/* cmd_summary.c — `loadstats summary`: the harness's statistics of every metric,
 * as an aligned table grouped by level, or as JSON. Each metric is summarized as
 * soon as the reader finishes it, and its samples freed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/cmd.h"
#include "stats/cpuwork.h"
#include "stats/metrickind.h"
#include "stats/stats.h"

enum { OPT_JSON = CMD_LONG_ONLY };

static const struct cmd_option summary_options[] = {
    {"json", OPT_JSON, false, "--json",
     "print {\"<metric>\": {\"n\": ..., \"min\": ..., ...}, ...}"},
};

static int take_option(void *settings, int id, const char *value)
{
    (void)value; /* --json takes none */
    bool *json = settings;
    if (id == OPT_JSON) *json = true;
    return EXIT_FINE;
}

static const struct cmd_spec summary_spec = {
    .name = "summary",
    .synopsis = "[--json] FILE",
    .about = "Per metric of a collector document (FILE, or - for stdin): n, min, max, mean,\n"
             "median, p90, p95, p99, p999, stddev (population), cv (stddev/mean) and mad\n"
             "(median absolute deviation), computed over every sample and rounded to two\n"
             "decimals exactly as the benchmark harness rounds them.\n",
    .epilog = "Without --json: a table grouped by level (the c<clients>. key prefix), with units,\n"
              "then for each --watch tree the requests per consumed CPU second of each level.\n"
              "Exit status: 0 done, 1 the document is invalid, 2 usage or I/O error.\n",
    .help_column = 13,
    .options = summary_options,
    .n_options = sizeof summary_options / sizeof *summary_options,
    .operands = CMD_ONE_FILE,
    .take = take_option,
};

struct summary_row {
    char *key;
    enum stats_unit unit;
    struct stats_summary summary;
    double mean;     /* unrounded, for the ratios of means below the table */
    size_t position; /* in the document, to keep its order within a level */
};

struct summary_rows {
    struct summary_row *rows;
    size_t count, cap;
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
    row->mean = stats_mean(metric->samples, metric->n);
    stats_summarize(metric->samples, metric->n, &row->summary);
    all->count++;
    return 0;
out_of_memory:
    complain("summary", "out of memory at metric \"%s\"", metric->key);
    return 1;
}

/* Levels in ascending client count, keys without a level last, document order within. */
static int by_level(const void *a, const void *b)
{
    const struct summary_row *x = a, *y = b;
    unsigned long cx = 0, cy = 0;
    const char *rest;
    bool lx = stats_key_level(x->key, &cx, &rest), ly = stats_key_level(y->key, &cy, &rest);
    if (lx != ly) return lx ? -1 : 1;
    if (cx != cy) return cx < cy ? -1 : 1;
    return (x->position > y->position) - (x->position < y->position);
}

static void print_json(const struct summary_rows *all)
{
    printf("{");
    for (size_t i = 0; i < all->count; i++) {
        const struct summary_row *row = &all->rows[i];
        const struct stats_summary *s = &row->summary;
        printf(i ? ",\n  " : "\n  ");
        json_write_string(stdout, row->key);
        printf(": {\"n\": %zu", s->n);
        const struct {
            const char *name;
            double value;
        } fields[] = {{"min", s->min},       {"max", s->max},   {"mean", s->mean},
                      {"median", s->median}, {"p90", s->p90},   {"p95", s->p95},
                      {"p99", s->p99},       {"p999", s->p999}, {"stddev", s->stddev},
                      {"cv", s->cv},         {"mad", s->mad}};
        for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
            printf(", \"%s\": ", fields[f].name);
            json_write_number(stdout, fields[f].value);
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
    const double values[] = {s->min, s->median, s->p90,    s->p95, s->p99, s->p999,
                             s->max, s->mean,   s->stddev, s->cv,  s->mad};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++)
        snprintf(cells[3 + i], 48, "%.2f", values[i]);
}

static void print_table(struct summary_rows *all)
{
    static const char *const headers[TABLE_COLUMNS] = {"metric", "unit",   "n",   "min",  "median",
                                                       "p90",    "p95",    "p99", "p999", "max",
                                                       "mean",   "stddev", "cv",  "mad"};
    qsort(all->rows, all->count, sizeof *all->rows, by_level);

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
        double ratio = stats_requests_per_cpu_second(rps->mean, all->rows[i].mean);
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
    bool json = false;
    char **files;
    int n_files;
    int status = cmd_parse(&summary_spec, argc, argv, &json, &files, &n_files);
    if (status != CMD_PROCEED) return status;

    struct summary_rows all = {0};
    struct docread_options read_options = {.on_metric = summarize_metric, .ctx = &all};
    struct docread_result result;
    status = read_document("summary", files[0], &read_options, &result);
    if (status == EXIT_FINE) {
        if (json)
            print_json(&all);
        else {
            print_table(&all);
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
