/* cmd_check.c — `loadstats check`: does a document follow the collector
 * protocol? Samples are validated and counted but never stored, so a document
 * of any size is checked in constant memory. */
#include <getopt.h>

#include "stats/cmd.h"

static const char check_help[] =
    "usage: loadstats check [-q] FILE\n"
    "\n"
    "Exit 0 when FILE (or - for stdin) is a valid collector document, 1 with a one-line\n"
    "reason on stderr otherwise. The rules: text before the first '{' is tolerated;\n"
    "exactly one JSON document and only whitespace after it; top-level keys metrics and\n"
    "an optional string sidecar, nothing else; metrics a non-empty object; each metric\n"
    "exactly unit and samples; unit one of seconds, milliseconds, nanoseconds, bytes,\n"
    "megabytes, requests_per_second, megabits_per_second, operations, ratio, count;\n"
    "samples a non-empty array of finite numbers. A metric key may appear only once.\n"
    "\n"
    "  -q, --quiet  print nothing when the document is valid\n"
    "  -h, --help   this text\n"
    "\n"
    "Exit status: 0 valid, 1 invalid, 2 usage or I/O error.\n";

int cmd_check(int argc, char **argv)
{
    static const struct option options[] = {
        {"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    bool quiet = false;
    int opt;
    while ((opt = getopt_long(argc, argv, ":qh", options, NULL)) != -1) {
        switch (opt) {
        case 'q':
            quiet = true;
            break;
        case 'h':
            fputs(check_help, stdout);
            return EXIT_FINE;
        default:
            return option_error("check", opt, argv);
        }
    }
    if (argc - optind != 1)
        return usage_error("check", "needs exactly one FILE (or -), got %d", argc - optind);

    const char *path = argv[optind];
    struct docread_options read_options = {.discard_samples = true};
    struct docread_result result;
    int status = read_document("check", path, &read_options, &result);
    if (status == EXIT_FINE && !quiet) {
        printf("%s: valid collector document: %zu metric%s, %zu sample%s\n", input_name(path),
               result.metrics, result.metrics == 1 ? "" : "s", result.samples,
               result.samples == 1 ? "" : "s");
        status = finish_output("check", stdout, "standard output");
    }
    docread_result_free(&result);
    return status;
}
