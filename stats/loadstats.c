/* loadstats.c — the loadstats command: statistics, protocol check, A/B
 * comparison, merge, plots and export over collector documents. This file only
 * dispatches; each subcommand lives in its own cmd_*.c. */
#include <stdio.h>
#include <string.h>

#include "stats/cmd.h"

static const char main_help[] =
    "usage: loadstats COMMAND [options] FILE...\n"
    "\n"
    "Computes every number from the raw samples httpload and dnsload print (the\n"
    "collector document). Each FILE may be - for standard input.\n"
    "\n"
    "commands:\n"
    "  summary [--json] FILE       n, min, max, mean, median, p90, p95, p99, p999,\n"
    "                              stddev, cv, mad per metric, grouped by level\n"
    "  check [-q] FILE             exit 0 for a valid collector document, 1 with a reason\n"
    "  compare [options] BASE NEW  medians, deltas, ratio and verdict per metric; exit 1\n"
    "                              when a metric regressed significantly (a CI gate)\n"
    "  merge [--shards] A B ...    one document from the documents of several generators\n"
    "                              (the shards of one run): counts summed, samples pooled\n"
    "  plot [-o OUT.svg] FILE      latency percentile curves and rps timeline as SVG\n"
    "  export --format F FILE      hgrm (HdrHistogram), csv, csv-summary or openmetrics\n"
    "\n"
    "loadstats COMMAND --help describes a command; man loadstats describes them all.\n"
    "Exit status: 0 success, 1 the input fails (invalid document, regression, conflict),\n"
    "2 usage or I/O error.\n";

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"summary", cmd_summary}, {"check", cmd_check}, {"compare", cmd_compare},
    {"merge", cmd_merge},     {"plot", cmd_plot},   {"export", cmd_export},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("loadstats: needs a command: summary, check, compare, merge, plot or export "
              "(see loadstats --help)\n",
              stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        fputs(main_help, stdout);
        return EXIT_FINE;
    }
    if (strcmp(name, "--version") == 0) {
#ifdef PACKAGE_VERSION
        puts("loadstats " PACKAGE_VERSION);
#else
        puts("loadstats");
#endif
        return EXIT_FINE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(name, commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr,
            "loadstats: unknown command '%s' (commands: summary, check, compare, merge, "
            "plot, export)\n",
            name);
    return EXIT_USAGE;
}
