/* cmd_check.c — `loadstats check`: does a document follow the collector
 * protocol? Samples are validated and counted but never stored, so a document
 * of any size is checked in constant memory. */
#include "stats/cmd/cmd.h"

static const struct cmd_option check_options[] = {
    {"quiet", 'q', false, "-q, --quiet", "print nothing when the document is valid"},
};

static int take_option(void *settings, int id, const char *value)
{
    (void)value; /* -q takes none */
    bool *quiet = settings;
    if (id == 'q') *quiet = true;
    return EXIT_FINE;
}

static const struct cmd_spec check_spec = {
    .name = "check",
    .synopsis = "[-q] FILE",
    .about =
        "Exit 0 when FILE (or - for stdin) is a valid collector document, 1 with a one-line\n"
        "reason on stderr otherwise. The rules: text before the first '{' is tolerated;\n"
        "exactly one JSON document and only whitespace after it; top-level keys metrics and\n"
        "an optional string sidecar, nothing else; metrics a non-empty object; each metric\n"
        "exactly unit and samples; unit one of seconds, milliseconds, nanoseconds, bytes,\n"
        "megabytes, requests_per_second, megabits_per_second, operations, ratio, count;\n"
        "samples a non-empty array of finite numbers (finite for serde_json too, which\n"
        "refuses 1.7976931348623158e308 as out of range). A metric key may appear only once.\n",
    .epilog = "Exit status: 0 valid, 1 invalid, 2 usage or I/O error, 4 out of memory.\n",
    .help_column = 15,
    .options = check_options,
    .n_options = sizeof check_options / sizeof *check_options,
    .operands = CMD_ONE_FILE,
    .take = take_option,
};

int cmd_check(int argc, char **argv)
{
    bool quiet = false;
    char **files;
    int n_files;
    int status = cmd_parse(&check_spec, argc, argv, &quiet, &files, &n_files);
    if (status != CMD_PROCEED) return status;

    const char *path = files[0];
    struct docread_options read_options = {.discard_samples = true};
    struct docread_result result;
    status = read_document("check", path, &read_options, &result);
    if (status == EXIT_FINE && !quiet) {
        printf("%s: valid collector document: %zu metric%s, %zu sample%s\n", input_name(path),
               result.metrics, result.metrics == 1 ? "" : "s", result.samples,
               result.samples == 1 ? "" : "s");
        status = finish_output("check", stdout, "standard output");
    }
    docread_result_free(&result);
    return status;
}
