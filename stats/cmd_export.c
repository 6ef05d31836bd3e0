/* cmd_export.c — `loadstats export --format F FILE`: a collector document in
 * the formats other tools read: HdrHistogram's percentile distribution (hgrm),
 * CSV for spreadsheets, OpenMetrics for Prometheus-style stores. The formats
 * live in hgrm.c, csvout.c and openmetrics.c; this file reads and dispatches. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/cmd.h"
#include "stats/csvout.h"
#include "stats/hgrm.h"
#include "stats/openmetrics.h"
#include "stats/stats.h"

static const char export_help[] =
    "usage: loadstats export --format FORMAT [options] FILE\n"
    "\n"
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
    "CSV follows RFC 4180 (CRLF line ends, quoting where needed).\n"
    "\n"
    "  -f, --format hgrm|csv|csv-summary|openmetrics\n"
    "                        the format (required)\n"
    "  -m, --metric KEY      hgrm: the metric to write (required), e.g. c64.latency_warm_ms;\n"
    "                        other formats: only this metric (repeatable)\n"
    "  --ticks N             hgrm: percentile steps per half-distance to 100% (default 5)\n"
    "  --decimals N          hgrm: decimals of the values (default 3)\n"
    "  -o, --output OUT      write to OUT instead of standard output\n"
    "  -h, --help            this text\n"
    "\n"
    "Exit status: 0 written, 1 the document is invalid or lacks a --metric, or a name\n"
    "clashes in OpenMetrics, 2 usage or I/O error.\n";

enum export_format { FORMAT_HGRM, FORMAT_CSV, FORMAT_CSV_SUMMARY, FORMAT_OPENMETRICS };

struct export_run {
    enum export_format format;
    char **metrics; /* --metric, in argv */
    size_t n_metrics;
    bool *found; /* per --metric */
    int ticks, decimals;
    FILE *out;
    /* hgrm: the one metric's samples, kept for after the read */
    double *samples;
    size_t n;
    struct stats_om om;
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
    default:
        if (stats_om_add(&run->om, metric->key, metric->unit, metric->samples, metric->n, error,
                         sizeof error) == 0)
            return 0;
        complain("export", "%s", error);
        return 1;
    }
}

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

static bool parse_small_int(const char *name, const char *text, int low, int high, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || v < low || v > high) {
        usage_error("export", "%s needs a whole number from %d to %d, not '%s'", name, low, high,
                    text);
        return false;
    }
    *out = (int)v;
    return true;
}

/* Parses argv into `run`; returns EXIT_FINE, EXIT_USAGE, or -1 after --help. */
static int parse_options(int argc, char **argv, struct export_run *run, const char **output,
                         bool *have_format)
{
    enum { OPT_TICKS = 256, OPT_DECIMALS };
    static const struct option options[] = {{"format", required_argument, NULL, 'f'},
                                            {"metric", required_argument, NULL, 'm'},
                                            {"ticks", required_argument, NULL, OPT_TICKS},
                                            {"decimals", required_argument, NULL, OPT_DECIMALS},
                                            {"output", required_argument, NULL, 'o'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, ":f:m:o:h", options, NULL)) != -1) {
        switch (opt) {
        case 'f':
            if (!parse_format(optarg, &run->format))
                return usage_error(
                    "export", "unknown format '%s' (hgrm, csv, csv-summary, openmetrics)", optarg);
            *have_format = true;
            break;
        case 'm':
            run->metrics[run->n_metrics++] = optarg;
            break;
        case OPT_TICKS:
            if (!parse_small_int("--ticks", optarg, 1, 1000, &run->ticks)) return EXIT_USAGE;
            break;
        case OPT_DECIMALS:
            if (!parse_small_int("--decimals", optarg, 0, 17, &run->decimals)) return EXIT_USAGE;
            break;
        case 'o':
            *output = optarg;
            break;
        case 'h':
            fputs(export_help, stdout);
            return -1;
        default:
            return option_error("export", opt, argv);
        }
    }
    if (!*have_format)
        return usage_error("export", "needs --format (hgrm, csv, csv-summary, openmetrics)");
    if (run->format == FORMAT_HGRM && run->n_metrics != 1)
        return usage_error("export", "--format hgrm needs exactly one --metric KEY, got %zu",
                           run->n_metrics);
    if (argc - optind != 1)
        return usage_error("export", "needs exactly one FILE (or -), got %d", argc - optind);
    return EXIT_FINE;
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
    const char *output = NULL;
    bool have_format = false;
    run.metrics = calloc((size_t)argc + 1, sizeof *run.metrics);
    run.found = calloc((size_t)argc + 1, sizeof *run.found);
    stats_om_init(&run.om);
    int status = run.metrics && run.found ? parse_options(argc, argv, &run, &output, &have_format)
                                          : usage_error("export", "out of memory");
    if (status < 0)
        status = EXIT_FINE; /* --help */
    else if (status == EXIT_FINE) {
        const char *path = argv[optind];
        bool to_file = output != NULL && strcmp(output, "-") != 0;
        run.out = to_file ? fopen(output, "w") : stdout;
        if (run.out == NULL) {
            status = usage_error("export", "cannot write %s: %s", output, strerror(errno));
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
