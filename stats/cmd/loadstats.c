/* loadstats.c — the loadstats command: statistics, protocol check, A/B
 * comparison, merge, plots, export and the HTML report over collector documents. This file only
 * dispatches; each command lives in its own cmd_*.c. */
#include <stdio.h>
#include <string.h>

#include "stats/cmd/cmd.h"
#include "stats/read/nearest.h"

/* The commands, in the order --help lists them. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage; /* --help's left column */
    const char *about; /* its right column; each '\n' goes on at the column */
} commands[] = {
    {"summary", cmd_summary, "summary [--json] FILE",
     "n, min, max, mean, median, p90, p95, p99, p999,\n"
     "stddev, cv, mad per metric, grouped by level"},
    {"check", cmd_check, "check [-q] FILE",
     "exit 0 for a valid collector document, 1 with a reason"},
    {"compare", cmd_compare, "compare [options] BASE NEW",
     "medians, deltas, ratio and verdict per metric; exit 1\n"
     "when a metric regressed significantly (a CI gate)"},
    {"merge", cmd_merge, "merge [--shards] A B ...",
     "one document from the documents of several generators\n"
     "(the shards of one run): counts summed, samples pooled"},
    {"plot", cmd_plot, "plot [-o OUT.svg] FILE",
     "latency percentile curves and rps timeline as SVG"},
    {"export", cmd_export, "export --format F FILE",
     "hgrm (HdrHistogram), csv, csv-summary or openmetrics"},
    {"report", cmd_report, "report [-o OUT.html] RUN",
     "one self-contained HTML page of a run, or with\n"
     "--base BASE of base against new (A/B)"},
};
enum { N_COMMANDS = sizeof commands / sizeof *commands, ABOUT_COLUMN = 30 };

static void print_help(void)
{
    fputs("usage: loadstats COMMAND [options] FILE...\n"
          "\n"
          "Computes every number from the raw samples httpload and dnsload print (the\n"
          "collector document). Each FILE may be - for standard input.\n"
          "\n"
          "commands:\n",
          stdout);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        printf("  %-*s", ABOUT_COLUMN - 2, commands[i].usage);
        for (const char *c = commands[i].about; *c; c++)
            if (*c == '\n')
                printf("\n%*s", ABOUT_COLUMN, "");
            else
                putchar(*c);
        putchar('\n');
    }
    fputs("\n"
          "loadstats COMMAND --help describes a command; man loadstats describes them all.\n"
          "Exit status: 0 success, 1 the input fails (invalid document, regression, conflict),\n"
          "2 usage or I/O error, 4 out of memory.\n",
          stdout);
}

/* "summary, check, ..., plot" then `last` and the last command's name, in buf. */
static const char *command_list(const char *last, char *buf, size_t size)
{
    size_t used = 0;
    for (size_t i = 0; i < N_COMMANDS && used < size; i++) {
        const char *before = i == 0 ? "" : i + 1 < N_COMMANDS ? ", " : last;
        int n = snprintf(buf + used, size - used, "%s%s", before, commands[i].name);
        if (n < 0) break;
        used += (size_t)n;
    }
    return buf;
}

int main(int argc, char **argv)
{
    char list[128];
    if (argc < 2) {
        fprintf(stderr, "loadstats: needs a command: %s (see loadstats --help)\n",
                command_list(" or ", list, sizeof list));
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_help();
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
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    struct stats_nearest near;
    stats_nearest_init(&near, name);
    for (size_t i = 0; i < N_COMMANDS; i++)
        stats_nearest_offer(&near, commands[i].name);
    char guess[64] = "";
    if (near.best != NULL) snprintf(guess, sizeof guess, ": did you mean %s?", near.best);
    fprintf(stderr, "loadstats: unknown command '%s'%s (commands: %s)\n", name, guess,
            command_list(", ", list, sizeof list));
    return EXIT_USAGE;
}
