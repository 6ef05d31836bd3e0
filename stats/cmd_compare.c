/* cmd_compare.c — `loadstats compare BASE NEW`: the median of every metric in
 * both documents, how it moved, and whether the move is real; exits 1 when one
 * regressed significantly, so it can gate CI. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/cmd.h"
#include "stats/compare.h"
#include "stats/keyindex.h"
#include "stats/machines.h"

struct compare_settings {
    struct stats_thresholds thresholds;
    bool json;
};

enum { OPT_JSON = CMD_LONG_ONLY, OPT_FACTOR, OPT_RESOLUTION, OPT_NOISE };

static const struct cmd_option compare_options[] = {
    {"maximum-factor", OPT_FACTOR, true, "--maximum-factor X", "allowed ratio (default 1.1)"},
    {"minimum-time-resolution-ms", OPT_RESOLUTION, true, "--minimum-time-resolution-ms X",
     "smallest material change of a time metric (default 1)"},
    {"noise-factor", OPT_NOISE, true, "--noise-factor X",
     "multiplies the baseline's cv (default 1)"},
    {"json", OPT_JSON, false, "--json", "print {\"comparisons\": {\"<metric>\": {...}}}"},
};

static int take_option(void *settings, int id, const char *value)
{
    struct compare_settings *s = settings;
    switch (id) {
    case OPT_JSON:
        s->json = true;
        return EXIT_FINE;
    case OPT_FACTOR:
        if (parse_number_option("compare", "--maximum-factor", value,
                                &s->thresholds.maximum_factor) != EXIT_FINE)
            return EXIT_USAGE;
        if (s->thresholds.maximum_factor < 1.0)
            return usage_error("compare", "--maximum-factor must be at least 1, not %s", value);
        return EXIT_FINE;
    case OPT_RESOLUTION:
        return parse_number_option("compare", "--minimum-time-resolution-ms", value,
                                   &s->thresholds.minimum_time_resolution_ms);
    default: /* OPT_NOISE */
        return parse_number_option("compare", "--noise-factor", value, &s->thresholds.noise_factor);
    }
}

static const struct cmd_spec compare_spec = {
    .name = "compare",
    .synopsis = "[options] BASE NEW",
    .about = "Compares the median of every metric present in both collector documents (either\n"
             "may be - for stdin): base and new median, delta_abs, delta_pct, ratio (new/base)\n"
             "and whether the change is significant. It is significant when all hold:\n"
             "  - it is in the worse direction beyond the maximum factor (requests_per_second and\n"
             "    megabits_per_second: lower is worse; every other unit: higher is worse);\n"
             "  - it is material: for time units |delta_abs| >= the minimum time resolution;\n"
             "  - it clears the noise: |ratio - 1| > the baseline's cv x the noise factor.\n"
             "Verdicts: regressed (significant), improved (the same tests, better direction),\n"
             "noisy (beyond the factor but within the noise), tiny (beyond the factor but below\n"
             "the time resolution), ok (within the factor).\n",
    .epilog =
        "Exit status: 0 nothing regressed, 1 a metric regressed significantly (or a document\n"
        "is invalid, or a unit differs between them), 2 usage or I/O error.\n",
    .help_column = 34,
    .options = compare_options,
    .n_options = sizeof compare_options / sizeof *compare_options,
    .operands = CMD_BASE_AND_NEW,
    .take = take_option,
};

struct summarized {
    enum stats_unit unit;
    struct stats_summary summary;
};

struct side {
    struct keyindex keys;
    struct summarized *metrics; /* parallel to keys.keys */
    size_t cap;
};

static int summarize_into_side(void *ctx, struct docread_metric *metric)
{
    struct side *side = ctx;
    long at = keyindex_intern(&side->keys, metric->key, strlen(metric->key), NULL);
    if (at >= 0 && (size_t)at >= side->cap) {
        size_t cap = side->cap ? side->cap * 2 : 64;
        struct summarized *grown = realloc(side->metrics, cap * sizeof *grown);
        if (grown == NULL)
            at = -1;
        else {
            side->metrics = grown;
            side->cap = cap;
        }
    }
    if (at < 0) {
        complain("compare", "out of memory at metric \"%s\"", metric->key);
        return 1;
    }
    side->metrics[at].unit = metric->unit;
    stats_summarize(metric->samples, metric->n, &side->metrics[at].summary);
    return 0;
}

static void side_free(struct side *side)
{
    keyindex_free(&side->keys);
    free(side->metrics);
}

struct compared_row {
    const char *key;
    enum stats_unit unit;
    struct stats_comparison result;
};

/* JSON has no infinity or NaN: a ratio or percentage without a value is null. */
static void write_optional(double x, int decimals)
{
    if (isfinite(x))
        json_write_number(stdout, stats_round_to(x, decimals));
    else
        fputs("null", stdout);
}

static void print_json(const struct compared_row *rows, size_t count)
{
    printf("{\"comparisons\": {");
    for (size_t i = 0; i < count; i++) {
        const struct stats_comparison *c = &rows[i].result;
        printf(i ? ",\n  " : "\n  ");
        json_write_string(stdout, rows[i].key);
        printf(": {\"base_median\": ");
        json_write_number(stdout, c->base_median);
        printf(", \"new_median\": ");
        json_write_number(stdout, c->new_median);
        printf(", \"delta_abs\": ");
        json_write_number(stdout, c->delta_abs);
        printf(", \"delta_pct\": ");
        write_optional(c->delta_pct, 2);
        printf(", \"ratio\": ");
        write_optional(c->ratio, 4);
        printf(", \"significant\": %s, \"verdict\": \"%s\"}", c->significant ? "true" : "false",
               stats_verdict_name(c->verdict));
    }
    printf(count ? "\n}}\n" : "}}\n");
}

#define COMPARE_COLUMNS 8

static void row_cells(const struct compared_row *row, char cells[COMPARE_COLUMNS][64])
{
    const struct stats_comparison *c = &row->result;
    snprintf(cells[0], 64, "%s", stats_verdict_name(c->verdict));
    snprintf(cells[1], 64, "%.63s", row->key);
    snprintf(cells[2], 64, "%s", stats_unit_symbol(row->unit));
    snprintf(cells[3], 64, "%.2f", c->base_median);
    snprintf(cells[4], 64, "%.2f", c->new_median);
    snprintf(cells[5], 64, "%+.2f", c->delta_abs);
    if (isfinite(c->delta_pct))
        snprintf(cells[6], 64, "%+.2f%%", c->delta_pct);
    else
        snprintf(cells[6], 64, "n/a");
    if (isfinite(c->ratio))
        snprintf(cells[7], 64, "%.4f", c->ratio);
    else
        snprintf(cells[7], 64, "inf");
}

static void print_table(const struct compared_row *rows, size_t count)
{
    static const char *const headers[COMPARE_COLUMNS] = {"verdict", "metric", "unit",   "base",
                                                         "new",     "delta",  "delta%", "ratio"};
    int width[COMPARE_COLUMNS];
    char cells[COMPARE_COLUMNS][64];
    for (int c = 0; c < COMPARE_COLUMNS; c++)
        width[c] = (int)strlen(headers[c]);
    for (size_t i = 0; i < count; i++) {
        row_cells(&rows[i], cells);
        for (int c = 0; c < COMPARE_COLUMNS; c++)
            if ((int)strlen(cells[c]) > width[c]) width[c] = (int)strlen(cells[c]);
    }
    for (int c = 0; c < COMPARE_COLUMNS; c++)
        printf(c == 0 ? "%-*s" : c < 3 ? "  %-*s" : "  %*s", width[c], headers[c]);
    putchar('\n');
    size_t tally[STATS_VERDICT_REGRESSED + 1] = {0};
    for (size_t i = 0; i < count; i++) {
        row_cells(&rows[i], cells);
        for (int c = 0; c < COMPARE_COLUMNS; c++)
            printf(c == 0 ? "%-*s" : c < 3 ? "  %-*s" : "  %*s", width[c], cells[c]);
        putchar('\n');
        tally[rows[i].result.verdict]++;
    }
    printf("%zu compared: %zu regressed, %zu improved, %zu noisy, %zu tiny, %zu ok\n", count,
           tally[STATS_VERDICT_REGRESSED], tally[STATS_VERDICT_IMPROVED],
           tally[STATS_VERDICT_NOISY], tally[STATS_VERDICT_TINY], tally[STATS_VERDICT_OK]);
}

/* Joins the two sides in the base document's order; returns the exit status. */
static int judge(const struct side *base, const struct side *current, const char *base_name,
                 const char *new_name, const struct stats_thresholds *thresholds, bool json)
{
    struct compared_row *rows = calloc(base->keys.count + 1, sizeof *rows);
    if (rows == NULL) return usage_error("compare", "out of memory");
    size_t count = 0;
    int status = EXIT_FINE;
    for (size_t i = 0; i < base->keys.count; i++) {
        const char *key = base->keys.keys[i];
        long at = keyindex_find(&current->keys, key, strlen(key));
        if (at < 0) {
            complain("compare", "note: \"%s\" is only in %s; not compared", key, base_name);
            continue;
        }
        const struct summarized *before = &base->metrics[i], *after = &current->metrics[at];
        if (before->unit != after->unit) {
            complain("compare", "\"%s\" is in %s in %s but in %s in %s; cannot compare", key,
                     stats_unit_name(before->unit), base_name, stats_unit_name(after->unit),
                     new_name);
            status = EXIT_FAILS;
            continue;
        }
        rows[count].key = key;
        rows[count].unit = before->unit;
        stats_compare(&before->summary, &after->summary, before->unit, thresholds,
                      &rows[count].result);
        count++;
    }
    for (size_t i = 0; i < current->keys.count; i++) {
        const char *key = current->keys.keys[i];
        if (keyindex_find(&base->keys, key, strlen(key)) < 0)
            complain("compare", "note: \"%s\" is only in %s; not compared", key, new_name);
    }
    if (status == EXIT_FINE) {
        if (json)
            print_json(rows, count);
        else
            print_table(rows, count);
        status = finish_output("compare", stdout, "standard output");
        for (size_t i = 0; i < count && status == EXIT_FINE; i++)
            if (rows[i].result.significant) status = EXIT_FAILS;
    }
    free(rows);
    return status;
}

int cmd_compare(int argc, char **argv)
{
    struct compare_settings settings = {.thresholds = STATS_THRESHOLDS_DEFAULT};
    char **files;
    int n_files;
    int status = cmd_parse(&compare_spec, argc, argv, &settings, &files, &n_files);
    if (status != CMD_PROCEED) return status;
    const char *base_path = files[0], *new_path = files[1];
    if (strcmp(base_path, "-") == 0 && strcmp(new_path, "-") == 0)
        return usage_error("compare", "standard input (-) can be only one of BASE and NEW");

    stats_machines_warn(stderr, "compare", (const char *const[]){base_path, new_path}, 2);
    /* One document at a time, one metric at a time: only summaries stay. */
    struct side base = {0}, current = {0};
    struct docread_result result;
    struct docread_options read_options = {.on_metric = summarize_into_side, .ctx = &base};
    status = read_document("compare", base_path, &read_options, &result);
    docread_result_free(&result);
    if (status == EXIT_FINE) {
        read_options.ctx = &current;
        status = read_document("compare", new_path, &read_options, &result);
        docread_result_free(&result);
    }
    if (status == EXIT_FINE)
        status = judge(&base, &current, input_name(base_path), input_name(new_path),
                       &settings.thresholds, settings.json);
    side_free(&base);
    side_free(&current);
    return status;
}
