/* cmd_export.c — `loadstats export --format F FILE`: a collector document in
 * the formats other tools read: HdrHistogram's percentile distribution (hgrm),
 * CSV for spreadsheets, OpenMetrics for Prometheus-style stores. The formats
 * live in hgrm.c, csvout.c and openmetrics.c; this file reads and dispatches. */
#include <errno.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/cmd/cmd.h"
#include "stats/write/csvout.h"
#include "stats/write/hgrm.h"
#include "stats/write/openmetrics.h"
#include "stats/math/stats.h"

enum export_format { FORMAT_HGRM, FORMAT_CSV, FORMAT_CSV_SUMMARY, FORMAT_OPENMETRICS };

struct export_run {
    enum export_format format;
    const char **metrics; /* --metric, in argv */
    size_t n_metrics;
    bool *found; /* per --metric */
    int ticks, decimals;
    FILE *out;
    /* hgrm: the one metric's samples, kept for after the read */
    double *samples;
    size_t n;
    struct stats_om om;
};

static bool parse_format(const char *text, enum export_format *out)
{
    static const struct {
        const char *name;
        enum export_format format;
    } formats[] = {{"hgrm", FORMAT_HGRM},
                   {"csv", FORMAT_CSV},
                   {"csv-summary", FORMAT_CSV_SUMMARY},
                   {"openmetrics", FORMAT_OPENMETRICS}};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        if (strcmp(text, formats[i].name) == 0) {
            *out = formats[i].format;
            return true;
        }
    }
    return false;
}

static int parse_small_int(const char *name, const char *text, int low, int high, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || v < low || v > high)
        return usage_error("export", "%s needs a whole number from %d to %d, not '%s'", name, low,
                           high, text);
    *out = (int)v;
    return EXIT_FINE;
}

struct export_settings {
    struct export_run *run;
    const char *output;
    bool have_format;
};

enum { OPT_TICKS = CMD_LONG_ONLY, OPT_DECIMALS };

static const struct cmd_option export_options[] = {
    {"format", 'f', true, "-f, --format hgrm|csv|csv-summary|openmetrics", "the format (required)"},
    {"metric", 'm', true, "-m, --metric KEY",
     "hgrm: the metric to write (required), e.g. c64.latency_warm_ms;\n"
     "other formats: only this metric (repeatable)"},
    {"ticks", OPT_TICKS, true, "--ticks N",
     "hgrm: percentile steps per half-distance to 100% (default 5)"},
    {"decimals", OPT_DECIMALS, true, "--decimals N", "hgrm: decimals of the values (default 3)"},
    {"output", 'o', true, "-o, --output OUT", "write to OUT instead of standard output"},
};

static int take_option(void *settings, int id, const char *value)
{
    struct export_settings *s = settings;
    struct export_run *run = s->run;
    switch (id) {
    case 'f':
        if (!parse_format(value, &run->format))
            return usage_error("export",
                               "unknown format '%s' (hgrm, csv, csv-summary, openmetrics)", value);
        s->have_format = true;
        return EXIT_FINE;
    case 'm':
        run->metrics[run->n_metrics++] = value;
        return EXIT_FINE;
    case OPT_TICKS:
        return parse_small_int("--ticks", value, 1, 1000, &run->ticks);
    case OPT_DECIMALS:
        return parse_small_int("--decimals", value, 0, 17, &run->decimals);
    default: /* 'o' */
        s->output = value;
        return EXIT_FINE;
    }
}

static int check_options(void *settings)
{
    const struct export_settings *s = settings;
    if (!s->have_format)
        return usage_error("export", "needs --format (hgrm, csv, csv-summary, openmetrics)");
    if (s->run->format == FORMAT_HGRM && s->run->n_metrics != 1)
        return usage_error("export", "--format hgrm needs exactly one --metric KEY, got %zu",
                           s->run->n_metrics);
    return EXIT_FINE;
}

static const struct cmd_spec export_spec = {
    .name = "export",
    .synopsis = "--format FORMAT [options] FILE",
    .about =
        "Writes the collector document FILE (or - for stdin) in another format:\n"
        "  hgrm         HdrHistogram's percentile distribution text of one metric (--metric),\n"
        "               computed exactly from the samples with summary's percentile\n"
        "               definition; HdrHistogram's plotter reads it\n"
        "  csv          one row per sample: clients,metric,unit,sample,value\n"
        "  csv-summary  one row per metric and level: clients,metric,unit,n,min,median,p90,\n"
        "               p95,p99,p999,max,mean,stddev,cv,mad (summary's numbers)\n"
        "  openmetrics  counts as counters, every other metric as a summary (quantiles 0,\n"
        "               0.5, 0.9, 0.95, 0.99, 0.999, 1 as summary computes them, unrounded),\n"
        "               the level as a label: loadgen_latency_warm_ms{clients=\"64\",...}\n"
        "CSV follows RFC 4180 (CRLF line ends, quoting where needed).\n",
    .epilog = "Exit status: 0 written, 1 the document is invalid or lacks a --metric, or a name\n"
              "clashes in OpenMetrics, 2 usage or I/O error, 4 out of memory.\n",
    .help_column = 24,
    .options = export_options,
    .n_options = sizeof export_options / sizeof *export_options,
    .operands = CMD_ONE_FILE,
    .take = take_option,
    .check = check_options,
};

static bool wanted(struct export_run *run, const char *key)
{
    if (run->n_metrics == 0) return true;
    for (size_t i = 0; i < run->n_metrics; i++) {
        if (strcmp(run->metrics[i], key) == 0) {
            run->found[i] = true;
            return true;
        }
    }
    return false;
}

static int export_metric(void *ctx, struct docread_metric *metric)
{
    struct export_run *run = ctx;
    if (!wanted(run, metric->key)) return 0;
    char error[256];
    struct stats_summary summary;
    switch (run->format) {
    case FORMAT_HGRM:
        run->samples = metric->samples;
        run->n = metric->n;
        metric->samples = NULL;
        return 0;
    case FORMAT_CSV:
        stats_csv_samples_rows(run->out, metric->key, metric->unit, metric->samples, metric->n);
        return 0;
    case FORMAT_CSV_SUMMARY:
        stats_summarize(metric->samples, metric->n, &summary);
        stats_csv_summary_row(run->out, metric->key, metric->unit, &summary);
        return 0;
    default: {
        int rc = stats_om_add(&run->om, metric->key, metric->unit, metric->samples, metric->n,
                              error, sizeof error);
        if (rc == 0) return 0;
        if (rc == -2) return no_memory("export", "%s", error);
        complain("export", "%s", error);
        return 1;
    }
    }
}

/* After a complete read: the formats that write at the end, and the --metric
 * keys the document did not have. */
static int finish_export(struct export_run *run, const char *path)
{
    for (size_t i = 0; i < run->n_metrics; i++) {
        if (!run->found[i]) {
            complain("export", "%s has no metric \"%s\"", input_name(path), run->metrics[i]);
            return EXIT_FAILS;
        }
    }
    if (run->format == FORMAT_HGRM) {
        stats_sort(run->samples, run->n);
        stats_hgrm_write(run->out, run->samples, run->n, run->ticks, run->decimals);
    } else if (run->format == FORMAT_OPENMETRICS) {
        stats_om_write(run->out, &run->om);
    }
    return EXIT_FINE;
}

int cmd_export(int argc, char **argv)
{
    struct export_run run = {.ticks = 5, .decimals = 3};
    struct export_settings settings = {.run = &run};
    char **files;
    int n_files;
    /* every argument could be a --metric */
    run.metrics = calloc((size_t)argc + 1, sizeof *run.metrics);
    run.found = calloc((size_t)argc + 1, sizeof *run.found);
    stats_om_init(&run.om);
    int status = run.metrics && run.found
                     ? cmd_parse(&export_spec, argc, argv, &settings, &files, &n_files)
                     : no_memory("export", "reading the options");
    if (status == CMD_PROCEED) {
        const char *path = files[0];
        const char *output = settings.output;
        bool to_file = output != NULL && strcmp(output, "-") != 0;
        run.out = to_file ? fopen(output, "w") : stdout;
        if (run.out == NULL) {
            status = cannot_write("export", output);
        } else {
            static char buffer[1 << 20];
            setvbuf(run.out, buffer, _IOFBF, sizeof buffer);
            if (run.format == FORMAT_CSV) stats_csv_samples_header(run.out);
            if (run.format == FORMAT_CSV_SUMMARY) stats_csv_summary_header(run.out);
            struct docread_options read_options = {.on_metric = export_metric, .ctx = &run};
            struct docread_result result;
            status = read_document("export", path, &read_options, &result);
            docread_result_free(&result);
            if (status == EXIT_FINE) status = finish_export(&run, path);
            /* what a failed export holds unwritten is dropped: less of a half
             * output on stdout (a file is removed below) */
            if (status != EXIT_FINE) __fpurge(run.out);
            int written = finish_output("export", run.out, to_file ? output : "standard output");
            if (status == EXIT_FINE) status = written;
            /* CSV rows are written as the document is read: an invalid one leaves no half file. */
            if (status != EXIT_FINE && to_file) unlink(output);
        }
    }
    free(run.samples);
    free(run.metrics);
    free(run.found);
    stats_om_free(&run.om);
    return status;
}
