/* cmd_compare.c — `loadstats compare BASE NEW`, each side one document or a
 * comma-separated list of runs of one test: a statistic of every metric on
 * both sides, how it moved, an interval for the move, and the verdict (the
 * numbers come from comparison.c); exits 1 when one regressed, so it can gate
 * CI. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/cmd/cmd.h"
#include "stats/compare/comparison.h"
#include "stats/runs/machines.h"
#include "stats/write/numfmt.h"
#include "stats/runs/runmeta.h"
#include "stats/runs/sametest.h"
#include "stats/cmd/warnlist.h"

struct compare_settings {
    struct stats_compare_settings compare;
    bool json;
};

enum {
    OPT_JSON = CMD_LONG_ONLY,
    OPT_FACTOR,
    OPT_RESOLUTION,
    OPT_NOISE,
    OPT_STAT,
    OPT_CONFIDENCE,
    OPT_RESAMPLES,
    OPT_SEED
};

static const struct cmd_option compare_options[] = {
    {"stat", OPT_STAT, true, "--stat S",
     "the statistic compared: median (default), p90, p99\n"
     "or mean"},
    {"maximum-factor", OPT_FACTOR, true, "--maximum-factor X", "allowed ratio (default 1.1)"},
    {"minimum-time-resolution-ms", OPT_RESOLUTION, true, "--minimum-time-resolution-ms X",
     "smallest material change of a time metric (default 1)"},
    {"noise-factor", OPT_NOISE, true, "--noise-factor X",
     "one run a side: multiplies the baseline's cv (default 1)"},
    {"confidence", OPT_CONFIDENCE, true, "--confidence C",
     "of the ratio's interval, above 0 and below 1\n"
     "(default 0.99)"},
    {"resamples", OPT_RESAMPLES, true, "--resamples N", "bootstrap resamples (default 2000)"},
    {"seed", OPT_SEED, true, "--seed N",
     "seed of the resampling (default 1: the same inputs\n"
     "give the same output)"},
    {"json", OPT_JSON, false, "--json", "print {\"comparisons\": {\"<metric>\": {...}}, ...}"},
};

/* --resamples and --seed: whole numbers, the first from 100 to 1,000,000. */
static int take_whole_number(struct compare_settings *s, int id, const char *value)
{
    const char *name = id == OPT_RESAMPLES ? "--resamples" : "--seed";
    double number;
    if (parse_number_option("compare", name, value, &number) != EXIT_FINE) return EXIT_USAGE;
    if (number >= 18446744073709551616.0 || number != floor(number))
        return usage_error("compare", "%s needs a whole number, not '%s'", name, value);
    if (id == OPT_SEED) {
        s->compare.bootstrap.seed = (uint64_t)number;
        return EXIT_FINE;
    }
    if (number < 100 || number > 1000000)
        return usage_error("compare", "--resamples must be from 100 to 1000000, not %s", value);
    s->compare.bootstrap.resamples = (unsigned)number;
    return EXIT_FINE;
}

static int take_option(void *settings, int id, const char *value)
{
    struct compare_settings *s = settings;
    struct stats_thresholds *t = &s->compare.thresholds;
    switch (id) {
    case OPT_JSON:
        s->json = true;
        return EXIT_FINE;
    case OPT_STAT:
        if (stats_statistic_parse(value, &s->compare.bootstrap.statistic) != 0)
            return usage_error("compare", "--stat takes median, p90, p99 or mean, not '%s'", value);
        return EXIT_FINE;
    case OPT_CONFIDENCE:
        if (parse_number_option("compare", "--confidence", value,
                                &s->compare.bootstrap.confidence) != EXIT_FINE)
            return EXIT_USAGE;
        if (!(s->compare.bootstrap.confidence > 0 && s->compare.bootstrap.confidence < 1))
            return usage_error("compare", "--confidence must be above 0 and below 1, not %s",
                               value);
        return EXIT_FINE;
    case OPT_RESAMPLES:
    case OPT_SEED:
        return take_whole_number(s, id, value);
    case OPT_FACTOR:
        if (parse_number_option("compare", "--maximum-factor", value, &t->maximum_factor) !=
            EXIT_FINE)
            return EXIT_USAGE;
        if (t->maximum_factor < 1.0)
            return usage_error("compare", "--maximum-factor must be at least 1, not %s", value);
        return EXIT_FINE;
    case OPT_RESOLUTION:
        return parse_number_option("compare", "--minimum-time-resolution-ms", value,
                                   &t->minimum_time_resolution_ms);
    default: /* OPT_NOISE */
        return parse_number_option("compare", "--noise-factor", value, &t->noise_factor);
    }
}

static const struct cmd_spec compare_spec = {
    .name = "compare",
    .synopsis = "[options] BASE NEW",
    .about = "Compares a statistic (the median unless --stat) of every metric present on both\n"
             "sides. BASE and NEW are each a collector document or a comma-separated list of\n"
             "documents of repeated runs of one test (one may be - for stdin). Per metric: the\n"
             "statistic of each side (the mean over its runs of each run's), delta_abs,\n"
             "delta_pct, the ratio new/base, and an interval for the ratio at the --confidence:\n"
             "a hierarchical bootstrap (runs resampled within each side, then samples within\n"
             "each run; fixed seed) measures its spread, and Student's t for the runs a side\n"
             "widens it where runs are few; where the base's statistic can be 0 (0 in more\n"
             "than the interval's tail of its resamples) the ratio is undefined, and has no\n"
             "interval. It is a regression when all hold:\n"
             "  - the interval lies entirely beyond the maximum factor in the worse direction\n"
             "    (requests_per_second, megabits_per_second and counts of work done such as\n"
             "    requests: lower is worse; bytes_received and the connection counts: neither,\n"
             "    as the change decides; every other metric: higher is worse);\n"
             "  - it is material: for time units |delta_abs| >= the minimum time resolution;\n"
             "  - with one run on a side (run-to-run noise unknown; the interval is then\n"
             "    within-run only): |ratio - 1| > the baseline's cv x the noise factor.\n"
             "Verdicts: regressed (significant), improved (the same tests, better direction),\n"
             "changed (the same tests, a metric with no better direction),\n"
             "noisy (beyond the factor, but the interval straddles it or is undefined, or\n"
             "one run a side and within the baseline's noise), tiny (beyond the factor but\n"
             "below the time resolution), ok (within the factor). The tally counts each\n"
             "quantity once: the rows of a command inside a --watch tree are shown, not\n"
             "counted (nor in the exit status); the tree's own row is.\n",
    .epilog = "Exit status: 0 nothing counted regressed (changed is neither better nor worse),\n"
              "1 a counted metric regressed significantly (or a document is invalid, or a unit\n"
              "differs between them), 2 usage or I/O error, 4 out of memory.\n",
    .help_column = 34,
    .options = compare_options,
    .n_options = sizeof compare_options / sizeof *compare_options,
    .operands = CMD_BASE_AND_NEW,
    .take = take_option,
};

/* JSON has no infinity or NaN: a ratio or percentage without a value is null. */
static void write_optional(double x, int decimals)
{
    if (isfinite(x))
        json_write_number(stdout, stats_round_to(x, decimals));
    else
        fputs("null", stdout);
}

static void write_paths(const struct stats_runset *set)
{
    putchar('[');
    for (size_t k = 0; k < set->n_runs; k++) {
        if (k) fputs(", ", stdout);
        json_write_string(stdout, input_name(set->paths[k]));
    }
    putchar(']');
}

static const char *noise_name(const struct stats_comparison *c)
{
    return c->noise == STATS_NOISE_INTERVAL    ? "interval"
           : c->noise == STATS_NOISE_BASELINE  ? "baseline"
           : c->noise == STATS_NOISE_RUNS      ? "runs"
           : c->noise == STATS_NOISE_ZERO_BASE ? "zero_base"
                                               : NULL;
}

static void print_json(const struct stats_compare_report *report, const struct stats_runset *base,
                       const struct stats_runset *current, const struct stats_compare_settings *s,
                       const struct stats_warnlist *warnings)
{
    const struct stats_bootstrap *b = &s->bootstrap;
    printf("{\"statistic\": \"%s\", \"confidence\": ", stats_statistic_name(b->statistic));
    json_write_number(stdout, b->confidence);
    printf(", \"resamples\": %u, \"seed\": %llu,\n \"base_runs\": ", b->resamples,
           (unsigned long long)b->seed);
    write_paths(base);
    printf(", \"new_runs\": ");
    write_paths(current);
    printf(",\n \"warnings\": ");
    stats_warnlist_write_json(stdout, warnings);
    printf(",\n \"comparisons\": {");
    for (size_t i = 0; i < report->n_rows; i++) {
        const struct stats_compare_row *row = &report->rows[i];
        const struct stats_comparison *c = &row->result;
        printf(i ? ",\n  " : "\n  ");
        json_write_string(stdout, row->key);
        printf(": {\"base\": ");
        json_write_number(stdout, c->base);
        printf(", \"new\": ");
        json_write_number(stdout, c->current);
        if (b->statistic == STATS_STAT_MEDIAN) { /* the names of one-run compare */
            printf(", \"base_median\": ");
            json_write_number(stdout, c->base);
            printf(", \"new_median\": ");
            json_write_number(stdout, c->current);
        }
        if (row->has_p99) {
            printf(", \"base_p99\": ");
            json_write_number(stdout, row->base_p99);
            printf(", \"new_p99\": ");
            json_write_number(stdout, row->new_p99);
        }
        printf(", \"delta_abs\": ");
        json_write_number(stdout, c->delta_abs);
        printf(", \"delta_pct\": ");
        write_optional(c->delta_pct, 2);
        printf(", \"ratio\": ");
        write_optional(c->ratio, 4);
        printf(", \"interval\": [");
        write_optional(c->ratio_low, 4);
        printf(", ");
        write_optional(c->ratio_high, 4);
        printf("], \"base_runs\": %zu, \"new_runs\": %zu, \"base_samples\": %llu, "
               "\"new_samples\": %llu, \"run_noise\": \"%s\"",
               c->base_runs, c->new_runs, (unsigned long long)c->base_samples,
               (unsigned long long)c->new_samples,
               stats_comparison_single_run(c) ? "unknown" : "resampled");
        printf(", \"significant\": %s, \"verdict\": \"%s\", \"counted\": %s",
               c->significant ? "true" : "false", stats_verdict_name(c->verdict),
               row->counted ? "true" : "false");
        if (noise_name(c)) printf(", \"noisy_because\": \"%s\"", noise_name(c));
        printf("}");
    }
    printf(report->n_rows ? "\n}}\n" : "}}\n");
}

enum {
    COL_VERDICT,
    COL_METRIC,
    COL_UNIT,
    COL_BASE,
    COL_NEW,
    COL_DELTA,
    COL_PCT,
    COL_RATIO,
    COL_INTERVAL,
    COL_RUNS,
    COL_BASE_P99,
    COL_NEW_P99,
    COL_NOTE,
    COLUMNS
};

static void ratio_cell(char *cell, double x)
{
    char number[STATS_FIXED_MAX];
    snprintf(cell, 64, "%s", isfinite(x) ? stats_format_fixed(x, 4, false, number) : "inf");
}

static void row_cells(const struct stats_compare_row *row, const struct stats_thresholds *t,
                      char cells[COLUMNS][64])
{
    const struct stats_comparison *c = &row->result;
    snprintf(cells[COL_VERDICT], 64, "%s", stats_verdict_name(c->verdict));
    snprintf(cells[COL_METRIC], 64, "%.63s", row->key);
    snprintf(cells[COL_UNIT], 64, "%s", stats_unit_symbol(row->unit));
    char number[STATS_FIXED_MAX];
    snprintf(cells[COL_BASE], 64, "%s", stats_format_fixed(c->base, 2, false, number));
    snprintf(cells[COL_NEW], 64, "%s", stats_format_fixed(c->current, 2, false, number));
    snprintf(cells[COL_DELTA], 64, "%s", stats_format_fixed(c->delta_abs, 2, true, number));
    if (isfinite(c->delta_pct))
        snprintf(cells[COL_PCT], 64, "%s%%", stats_format_fixed(c->delta_pct, 2, true, number));
    else
        snprintf(cells[COL_PCT], 64, "n/a");
    ratio_cell(cells[COL_RATIO], c->ratio);
    char low[64], high[64];
    ratio_cell(low, c->ratio_low);
    ratio_cell(high, c->ratio_high);
    if (stats_comparison_undefined(c))
        snprintf(cells[COL_INTERVAL], 64, "undefined");
    else
        snprintf(cells[COL_INTERVAL], 64, "%.30s-%.30s", low, high);
    snprintf(cells[COL_RUNS], 64, "%zu/%zu", c->base_runs, c->new_runs);
    cells[COL_BASE_P99][0] = cells[COL_NEW_P99][0] = '\0';
    if (row->has_p99) {
        snprintf(cells[COL_BASE_P99], 64, "%s",
                 stats_format_fixed(row->base_p99, 2, false, number));
        snprintf(cells[COL_NEW_P99], 64, "%s", stats_format_fixed(row->new_p99, 2, false, number));
    }
    stats_comparison_note(c, t, cells[COL_NOTE], 64);
}

static void print_cells(const int width[COLUMNS], char cells[COLUMNS][64])
{
    /* text columns to the left, numbers to the right; no trailing blanks */
    int last = COLUMNS - 1;
    while (last > 0 && cells[last][0] == '\0')
        last--;
    for (int c = 0; c <= last; c++) {
        bool text = c <= COL_UNIT || c == COL_NOTE;
        if (c > 0) fputs("  ", stdout);
        if (c == last && text)
            fputs(cells[c], stdout);
        else if (text)
            printf("%-*s", width[c], cells[c]);
        else
            printf("%*s", width[c], cells[c]);
    }
    putchar('\n');
}

static void print_side(const char *name, const struct stats_runset *set)
{
    printf("%s: %zu run%s (", name, set->n_runs, set->n_runs == 1 ? "" : "s");
    for (size_t k = 0; k < set->n_runs; k++)
        printf("%s%s", k ? ", " : "", input_name(set->paths[k]));
    printf(")\n");
}

static void print_table(const struct stats_compare_report *report, const struct stats_runset *base,
                        const struct stats_runset *current, const struct stats_compare_settings *s)
{
    static const char *const headers[COLUMNS] = {"verdict",  "metric",  "unit",  "base",     "new",
                                                 "delta",    "delta%",  "ratio", "interval", "runs",
                                                 "base p99", "new p99", "note"};
    const struct stats_bootstrap *b = &s->bootstrap;
    print_side("base", base);
    print_side("new", current);
    printf("statistic: %s; interval: %g%%, from %u hierarchical bootstrap resamples (runs, then "
           "samples; seed %llu) and Student's t for the runs\n",
           stats_statistic_name(b->statistic), b->confidence * 100, b->resamples,
           (unsigned long long)b->seed);
    int width[COLUMNS];
    char cells[COLUMNS][64];
    for (int c = 0; c < COLUMNS; c++)
        width[c] = (int)strlen(headers[c]);
    for (size_t i = 0; i < report->n_rows; i++) {
        row_cells(&report->rows[i], &s->thresholds, cells);
        for (int c = 0; c < COLUMNS; c++)
            if ((int)strlen(cells[c]) > width[c]) width[c] = (int)strlen(cells[c]);
    }
    char head[COLUMNS][64];
    for (int c = 0; c < COLUMNS; c++)
        snprintf(head[c], 64, "%s", headers[c]);
    print_cells(width, head);
    bool single = false;
    for (size_t i = 0; i < report->n_rows; i++) {
        row_cells(&report->rows[i], &s->thresholds, cells);
        print_cells(width, cells);
        single |= stats_comparison_single_run(&report->rows[i].result);
    }
    char tally[256];
    stats_compare_tally_text(report, tally, sizeof tally);
    printf("%s\n", tally);
    if (single)
        printf("one run on a side: the intervals hold the noise within runs only; run-to-run "
               "noise is unknown (compare several runs a side: BASE=a.json,b.json)\n");
}

/* Runs of one side should be runs of one test: where their descriptors sit
 * beside them, a field that decides the numbers and differs is warned about. */
struct side_warning {
    struct stats_warnlist *list;
    const char *side, *run, *first;
};

static int warn_difference(void *ctx, enum stats_difference kind, const char *phrase)
{
    (void)kind;
    const struct side_warning *w = ctx;
    stats_warn(w->list, "compare", "warning", "different_test", w->side, w->run, 0, NULL,
               "%s run %s: %s in %s; are they runs of the same test?", w->side, w->run, phrase,
               w->first);
    return 0;
}

/* A run whose generator said it limited a level measured the generator as
 * much as the target there: its side's figures for that level are suspect. */
static void warn_limited(struct stats_warnlist *list, const char *side, const char *run,
                         const struct stats_runmeta *meta)
{
    for (size_t i = 0; i < meta->n_levels; i++)
        if (meta->levels[i].generator_limited)
            stats_warn(list, "compare", "warning", "generator_limited", side, run,
                       meta->levels[i].clients, NULL,
                       "%s run %s: level c%lu: the generator limited this measurement "
                       "(self_watch in its --meta), so its figures describe the generator as "
                       "much as the target",
                       side, run, meta->levels[i].clients);
}

static void check_side(struct stats_warnlist *list, const char *side,
                       const struct stats_runset *set)
{
    struct stats_runmeta first;
    char *first_path = NULL;
    char error[256];
    for (size_t k = 0; k < set->n_runs; k++) {
        if (strcmp(set->paths[k], "-") == 0) continue;
        char *path = stats_runmeta_path_for(set->paths[k]);
        struct stats_runmeta meta;
        int rc = path ? stats_runmeta_read(path, &meta, error, sizeof error) : -1;
        if (rc != 0) {
            /* no descriptor: nothing to check; one that cannot be used leaves
             * the run's identity and self-watch unchecked, which is said */
            if (path != NULL && !(rc == -1 && errno == ENOENT))
                stats_warn(list, "compare", "warning", "descriptor_unusable", side, set->paths[k],
                           0, NULL,
                           "%s run %s: its descriptor %s cannot be used (%s); its "
                           "identity and self-watch are not checked",
                           side, set->paths[k], path, error);
            free(path);
            continue;
        }
        warn_limited(list, side, set->paths[k], &meta);
        if (first_path == NULL) {
            first = meta;
            first_path = path;
            continue;
        }
        struct side_warning w = {list, side, set->paths[k], first_path};
        stats_same_test(&meta, &first, false, warn_difference, &w);
        stats_runmeta_free(&meta);
        free(path);
    }
    if (first_path != NULL) stats_runmeta_free(&first);
    free(first_path);
}

struct machine_warning {
    struct stats_warnlist *list;
    size_t n_base;
    const char *const *paths;
};

static void warn_machine(void *ctx, size_t document, size_t first, const char *difference)
{
    const struct machine_warning *m = ctx;
    stats_warn(m->list, "compare", "warning", "machine", document < m->n_base ? "base" : "new",
               m->paths[document], 0, NULL, STATS_MACHINES_PHRASE, m->paths[document],
               m->paths[first], difference);
}

/* Runs measured on another machine than the first base run's (their
 * descriptors' "machine"), on either side: one warning each (machines.h). */
static void warn_machines(struct stats_warnlist *list, const struct stats_runset *base,
                          const struct stats_runset *current)
{
    size_t n = base->n_runs + current->n_runs;
    const char **paths = calloc(n, sizeof *paths);
    if (paths == NULL) { /* not looked for: --json, which would lack them, fails */
        list->lost = true;
        return;
    }
    for (size_t k = 0; k < base->n_runs; k++)
        paths[k] = base->paths[k];
    for (size_t k = 0; k < current->n_runs; k++)
        paths[base->n_runs + k] = current->paths[k];
    struct machine_warning m = {list, base->n_runs, paths};
    stats_machines_differ(paths, n, warn_machine, &m);
    free(paths);
}

static int read_side(const char *list, const struct compare_settings *s, struct stats_runset *set)
{
    char error[512];
    int rc =
        stats_runset_read(set, list, s->compare.bootstrap.statistic, true, error, sizeof error);
    if (rc == 0) return EXIT_FINE;
    complain("compare", "%s", error);
    return rc == DOCREAD_INVALID     ? EXIT_FAILS
           : rc == DOCREAD_NO_MEMORY ? EXIT_NO_MEMORY
                                     : EXIT_USAGE;
}

static size_t stdin_uses(const char *list)
{
    size_t uses = 0;
    char **paths;
    long n = stats_runset_split(list, &paths);
    for (long k = 0; k < n; k++) {
        uses += strcmp(paths[k], "-") == 0;
        free(paths[k]);
    }
    if (n > 0) free(paths);
    return uses;
}

int cmd_compare(int argc, char **argv)
{
    struct compare_settings settings = {.compare = STATS_COMPARE_SETTINGS_DEFAULT};
    char **files;
    int n_files;
    int status = cmd_parse(&compare_spec, argc, argv, &settings, &files, &n_files);
    if (status != CMD_PROCEED) return status;
    if (stdin_uses(files[0]) + stdin_uses(files[1]) > 1)
        return usage_error("compare", "standard input (-) can be only one of the runs");

    struct stats_runset base = {0}, current = {0};
    struct stats_warnlist warnings = {0};
    status = read_side(files[0], &settings, &base);
    if (status == EXIT_FINE) status = read_side(files[1], &settings, &current);
    if (status == EXIT_FINE) warn_machines(&warnings, &base, &current);
    struct stats_compare_report report = {0};
    if (status == EXIT_FINE &&
        stats_compare_runsets(&base, &current, &settings.compare, &report) != 0)
        status = no_memory("compare", "comparing the runs");
    if (status == EXIT_FINE) {
        check_side(&warnings, "base", &base);
        check_side(&warnings, "new", &current);
        for (size_t i = 0; i < report.n_only_base; i++)
            stats_warn(&warnings, "compare", "note", "only_in_base", "base", NULL, 0,
                       report.only_base[i], "\"%s\" is only in BASE (%s); not compared",
                       report.only_base[i], files[0]);
        for (size_t i = 0; i < report.n_only_new; i++)
            stats_warn(&warnings, "compare", "note", "only_in_new", "new", NULL, 0,
                       report.only_new[i], "\"%s\" is only in NEW (%s); not compared",
                       report.only_new[i], files[1]);
        for (size_t i = 0; i < report.n_conflicts; i++)
            complain("compare", "%s", report.conflicts[i]);
        if (report.n_conflicts) status = EXIT_FAILS;
    }
    /* a document without a warning stderr gave would say less than it should */
    if (status == EXIT_FINE && settings.json && warnings.lost)
        status = no_memory("compare", "keeping the warnings for --json");
    if (status == EXIT_FINE) {
        if (settings.json)
            print_json(&report, &base, &current, &settings.compare, &warnings);
        else
            print_table(&report, &base, &current, &settings.compare);
        status = finish_output("compare", stdout, "standard output");
        if (status == EXIT_FINE && stats_compare_regressed(&report)) status = EXIT_FAILS;
    }
    stats_compare_report_free(&report);
    stats_warnlist_free(&warnings);
    stats_runset_free(&base);
    stats_runset_free(&current);
    return status;
}
