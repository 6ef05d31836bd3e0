/* cmd_report.c — `loadstats report [-o OUT.html] [--base BASE] RUN`: one
 * self-contained HTML page of a run, of several runs of one test, or of a
 * base against a new side (A/B). The page is written beside OUT first and
 * renamed into place, so OUT is never a half-written page. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/cmd/cmd.h"
#include "stats/runs/machines.h"
#include "stats/report/reportpage.h"
#include "stats/runs/runset.h"

struct report_settings {
    const char *output, *base, *meta, *base_meta;
};

enum { OPT_BASE = CMD_LONG_ONLY, OPT_META, OPT_BASE_META };

static const struct cmd_option report_options[] = {
    {"output", 'o', true, "-o, --output OUT.html",
     "write the page to OUT.html (default: standard output)"},
    {"base", OPT_BASE, true, "--base BASE",
     "compare against BASE (a document or a comma-separated\nlist of runs): A/B page"},
    {"meta", OPT_META, true, "--meta FILE", "RUN's descriptor (default: beside it, X.meta.json)"},
    {"base-meta", OPT_BASE_META, true, "--base-meta FILE",
     "BASE's descriptor (default: beside it)"},
};

static int take_option(void *settings, int id, const char *value)
{
    struct report_settings *s = settings;
    switch (id) {
    case 'o':
        s->output = value;
        break;
    case OPT_BASE:
        s->base = value;
        break;
    case OPT_META:
        s->meta = value;
        break;
    default: /* OPT_BASE_META */
        s->base_meta = value;
        break;
    }
    return EXIT_FINE;
}

static int check_settings(void *settings)
{
    struct report_settings *s = settings;
    if (s->base_meta && !s->base)
        return usage_error("report", "--base-meta names BASE's descriptor: it needs --base");
    return EXIT_FINE;
}

static const struct cmd_spec report_spec = {
    .name = "report",
    .synopsis = "[-o OUT.html] [--base BASE] RUN",
    .about =
        "Writes one self-contained HTML page (inline SVG and CSS, nothing fetched, printable)\n"
        "of RUN: each run's identity from its --meta descriptor, per level the counts, errors\n"
        "by class with their reasons, cold and warm latency percentiles, the phases as stacked\n"
        "bars, latency percentile curves on a log scale of 1/(1-p), requests and errors per\n"
        "second over time, throughput and latency across levels with the knee marked, watched\n"
        "process trees (CPU, RSS, PSS, USS, requests per CPU second) and the open loop's\n"
        "schedule and send lag. With --base, every figure overlays base and new and the page\n"
        "opens with loadstats compare's verdict in words (\"new is slower: warm p50 +31%\n"
        "[+22%, +41%]; ...\"), then its table.\n"
        "RUN and BASE are each a document (- for standard input) or a comma-separated list of\n"
        "runs of the same test (a.json,b.json,c.json); each document's descriptor is found\n"
        "beside it (X.json -> X.meta.json) unless --meta names it.\n",
    .epilog = "Exit status: 0 the page was written, 1 a document is invalid, 2 usage or I/O "
              "error.\n",
    .help_column = 28,
    .options = report_options,
    .n_options = sizeof report_options / sizeof *report_options,
    .operands = CMD_ONE_FILE,
    .take = take_option,
    .check = check_settings,
};

static void side_free(struct report_side *side)
{
    for (size_t r = 0; r < side->n_runs; r++)
        report_run_free(&side->runs[r]);
    free(side->runs);
    memset(side, 0, sizeof *side);
}

/* Reads every run of a side named by `arg`; returns the exit status. */
static void free_paths(char **paths, long n)
{
    for (long i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

static int read_side(const char *arg, const char *meta, const char *option,
                     struct report_side *side)
{
    char **paths, error[600];
    long n = stats_runset_split(arg, &paths); /* as compare and summary split theirs */
    if (n < 0) return no_memory("report", "for the report");
    if (n == 0) return usage_error("report", "'%s': an empty name in the list of runs", arg);
    if (meta && n > 1) {
        free_paths(paths, n);
        return usage_error("report",
                           "%s names one descriptor, but '%s' is a list of runs: each run's "
                           "descriptor is read from beside it",
                           option, arg);
    }
    stats_machines_warn(stderr, "report", (const char *const *)paths, (size_t)n);
    side->runs = calloc((size_t)n, sizeof *side->runs);
    int status = side->runs ? EXIT_FINE : no_memory("report", "for the report");
    for (long i = 0; i < n && status == EXIT_FINE; i++) {
        int rc = report_run_read(paths[i], meta, &side->runs[i], error, sizeof error);
        side->n_runs++;
        if (rc != 0) {
            complain("report", "%s", error);
            status = rc == DOCREAD_INVALID     ? EXIT_FAILS
                     : rc == DOCREAD_NO_MEMORY ? EXIT_NO_MEMORY
                                               : EXIT_USAGE;
        } else if (side->runs[i].meta.problem) {
            /* the page says so too; a named descriptor that fails is the user's mistake */
            complain("report", "%s", side->runs[i].meta.problem);
            if (meta) status = EXIT_USAGE;
        }
    }
    free_paths(paths, n);
    return status;
}

/* The A/B table: `loadstats compare BASE RUN` on the same documents, read
 * again as compare reads them (a run set keeps what its interval needs).
 * The report's rows point into sets[0]: free the sets after the page. */
static int compare_sides(const char *base, const char *run,
                         const struct stats_compare_settings *settings, struct stats_runset sets[2],
                         struct stats_compare_report *report)
{
    const char *lists[2] = {base, run};
    char error[600];
    int status = EXIT_FINE;
    for (int s = 0; s < 2 && status == EXIT_FINE; s++) {
        int rc = stats_runset_read(&sets[s], lists[s], settings->bootstrap.statistic, true, error,
                                   sizeof error);
        if (rc != 0) {
            complain("report", "%s", error);
            status = rc == DOCREAD_INVALID     ? EXIT_FAILS
                     : rc == DOCREAD_NO_MEMORY ? EXIT_NO_MEMORY
                                               : EXIT_USAGE;
        }
    }
    if (status == EXIT_FINE && stats_compare_runsets(&sets[0], &sets[1], settings, report) != 0)
        status = no_memory("report", "for the report");
    for (size_t i = 0; status == EXIT_FINE && i < report->n_conflicts; i++) {
        complain("report", "%s", report->conflicts[i]);
        status = EXIT_FAILS;
    }
    return status;
}

static bool uses_stdin(const struct report_side *side)
{
    for (size_t r = 0; r < side->n_runs; r++)
        if (strcmp(side->runs[r].path, "-") == 0) return true;
    return false;
}

/* The page is made whole in a temporary file before any of it goes to
 * stdout: memory that runs out half-way (the figures are computed as the
 * page is written) leaves stdout empty, never half a page. */
static int write_page_to_stdout(const struct report_page *page)
{
    FILE *whole = tmpfile();
    if (whole == NULL)
        return errno == ENOMEM
                   ? no_memory("report", "for the report")
                   : usage_error("report", "cannot make a temporary file: %s", strerror(errno));
    if (report_page_write(whole, page) != 0) {
        fclose(whole);
        return no_memory("report", "for the report");
    }
    int status = EXIT_FINE;
    char buf[16384];
    size_t got;
    if (fflush(whole) != 0 || ferror(whole) || fseek(whole, 0, SEEK_SET) != 0)
        status = usage_error("report", "cannot write a temporary file: %s", strerror(errno));
    while (status == EXIT_FINE && (got = fread(buf, 1, sizeof buf, whole)) > 0)
        fwrite(buf, 1, got, stdout);
    if (status == EXIT_FINE && ferror(whole))
        status = usage_error("report", "cannot read a temporary file: %s", strerror(errno));
    fclose(whole);
    return status == EXIT_FINE ? finish_output("report", stdout, "standard output") : status;
}

/* Writes the page to `output` through a temporary file beside it. */
static int write_page(const struct report_page *page, const char *output)
{
    if (output == NULL || strcmp(output, "-") == 0) return write_page_to_stdout(page);
    size_t len = strlen(output) + 32;
    char *temporary = malloc(len);
    if (temporary == NULL) return no_memory("report", "for the report");
    snprintf(temporary, len, "%s.%ld.tmp", output, (long)getpid());
    FILE *out = fopen(temporary, "w");
    int status;
    if (out == NULL && errno == ENOMEM) {
        status = no_memory("report", "while opening %s", output);
    } else if (out == NULL) {
        status = usage_error("report", "cannot write %s: %s", output, strerror(errno));
    } else if (report_page_write(out, page) != 0) {
        fclose(out);
        status = no_memory("report", "while writing %s", output);
    } else {
        status = finish_output("report", out, temporary);
        if (status == EXIT_FINE && rename(temporary, output) != 0)
            status = usage_error("report", "cannot write %s: %s", output, strerror(errno));
    }
    if (status != EXIT_FINE && out != NULL) unlink(temporary);
    free(temporary);
    return status;
}

int cmd_report(int argc, char **argv)
{
    struct report_settings settings = {0};
    char **files;
    int n_files;
    int status = cmd_parse(&report_spec, argc, argv, &settings, &files, &n_files);
    if (status != CMD_PROCEED) return status;
    status = EXIT_FINE;

    struct stats_compare_settings compare_settings = STATS_COMPARE_SETTINGS_DEFAULT;
    struct stats_compare_report comparison = {0};
    struct stats_runset sets[2] = {{0}, {0}};
    struct report_page page = {.comparison = &comparison, .compare_settings = &compare_settings};
    struct report_side *run_side = &page.sides[0];
    if (settings.base) {
        page.n_sides = 2;
        page.sides[0].label = "base";
        page.sides[1].label = "new";
        run_side = &page.sides[1];
        status = read_side(settings.base, settings.base_meta, "--base-meta", &page.sides[0]);
    } else {
        page.n_sides = 1;
        page.sides[0].label = "";
    }
    if (status == EXIT_FINE) status = read_side(files[0], settings.meta, "--meta", run_side);
    /* an A/B reads each document twice: standard input cannot be one */
    if (status == EXIT_FINE && page.n_sides == 2 &&
        (uses_stdin(&page.sides[0]) || uses_stdin(&page.sides[1])))
        status = usage_error("report", "with --base, name files: standard input (-) cannot be "
                                       "read twice");
    if (status == EXIT_FINE && page.n_sides == 2)
        status = compare_sides(settings.base, files[0], &compare_settings, sets, &comparison);
    if (status == EXIT_FINE) status = write_page(&page, settings.output);
    stats_compare_report_free(&comparison);
    stats_runset_free(&sets[0]);
    stats_runset_free(&sets[1]);
    for (size_t s = 0; s < page.n_sides; s++)
        side_free(&page.sides[s]);
    return status;
}
