/* cmd_merge.c — `loadstats merge A B ...`: one collector document from the
 * documents of generators that ran the same levels at the same time. The rules
 * live in merge.c; this file reads the inputs, reports what differs and writes. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "stats/cmd.h"
#include "stats/merge.h"
#include "stats/numfmt.h"

static const char merge_help[] =
    "usage: loadstats merge [-o OUT] A B ...\n"
    "\n"
    "Writes one collector document made from the documents of several generators that\n"
    "ran the same levels at the same time (multi-host runs); one input may be - (stdin).\n"
    "  - samples of time, size, ratio and other metrics are concatenated;\n"
    "  - count and operations metrics with one sample in every document are summed;\n"
    "  - requests_per_second and megabits_per_second timelines are summed second by\n"
    "    second (index i is the same second in every document; a shorter timeline\n"
    "    adds nothing to the seconds it lacks, with a warning);\n"
    "  - a key in only some documents is kept as it is, with a warning;\n"
    "  - a key whose unit differs between documents is an error.\n"
    "A sidecar is kept when every document names the same one, else dropped with a warning.\n"
    "\n"
    "  -o, --output OUT  write the document to OUT instead of standard output\n"
    "  -h, --help        this text\n"
    "\n"
    "Exit status: 0 merged, 1 an input is invalid or units conflict, 2 usage or I/O error.\n";

struct merge_reading {
    struct stats_merge *merge;
    size_t document;
    const char *name;
};

static int add_metric(void *ctx, struct docread_metric *metric)
{
    struct merge_reading *reading = ctx;
    char error[256];
    if (stats_merge_add(reading->merge, reading->document, metric->key, metric->unit,
                        &metric->samples, metric->n, error, sizeof error) != 0) {
        complain("merge", "%s: %s", reading->name, error);
        return 1;
    }
    return 0;
}

static void warn_partial_keys(const struct stats_merge *merge, char **paths)
{
    for (size_t i = 0; i < merge->keys.count; i++) {
        const struct stats_merged_metric *m = &merge->metrics[i];
        const char *key = merge->keys.keys[i];
        if (m->documents < merge->documents) {
            fprintf(stderr, "loadstats merge: warning: \"%s\" is missing from", key);
            for (size_t d = 0; d < merge->documents; d++)
                if (!m->present[d]) fprintf(stderr, " %s", input_name(paths[d]));
            if (m->documents == 1)
                fprintf(stderr, "; kept from the one document that has it\n");
            else
                fprintf(stderr, "; kept from the %zu documents that have it\n", m->documents);
        }
        if (m->lengths_differ)
            complain("merge",
                     "warning: the %s timelines of \"%s\" have different lengths; seconds "
                     "missing from a shorter one count as 0",
                     stats_unit_name(m->unit), key);
    }
}

static void write_document(FILE *out, const struct stats_merge *merge, const char *sidecar)
{
    char number[STATS_NUMBER_MAX];
    fputs("{\"metrics\": {", out);
    for (size_t i = 0; i < merge->keys.count; i++) {
        const struct stats_merged_metric *m = &merge->metrics[i];
        fputs(i ? ",\n" : "\n", out);
        json_write_string(out, merge->keys.keys[i]);
        fprintf(out, ": {\"unit\": \"%s\", \"samples\": [", stats_unit_name(m->unit));
        for (size_t j = 0; j < m->n; j++) {
            if (j) putc(',', out);
            fwrite(number, 1, stats_format_double(m->samples[j], number), out);
        }
        fputs("]}", out);
    }
    fputs("\n}", out);
    if (sidecar != NULL) {
        fputs(", \"sidecar\": ", out);
        json_write_string(out, sidecar);
    }
    fputs("}\n", out);
}

/* The sidecar survives only when every document names the same one. */
static char *common_sidecar(char **sidecars, size_t count)
{
    bool any = false, same = true;
    for (size_t d = 0; d < count; d++) {
        any |= sidecars[d] != NULL;
        if (sidecars[d] == NULL || sidecars[0] == NULL || strcmp(sidecars[d], sidecars[0]) != 0)
            same = false;
    }
    if (any && !same)
        complain("merge",
                 "warning: the documents name different sidecars; the merged one has none");
    return same ? sidecars[0] : NULL;
}

int cmd_merge(int argc, char **argv)
{
    static const struct option options[] = {{"output", required_argument, NULL, 'o'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    const char *output = NULL;
    int opt;
    while ((opt = getopt_long(argc, argv, ":o:h", options, NULL)) != -1) {
        switch (opt) {
        case 'o':
            output = optarg;
            break;
        case 'h':
            fputs(merge_help, stdout);
            return EXIT_FINE;
        default:
            return option_error("merge", opt, argv);
        }
    }
    size_t count = (size_t)(argc - optind);
    char **paths = argv + optind;
    if (count == 0) return usage_error("merge", "needs at least one document to merge");
    size_t stdin_uses = 0;
    for (size_t d = 0; d < count; d++)
        stdin_uses += strcmp(paths[d], "-") == 0;
    if (stdin_uses > 1) return usage_error("merge", "standard input (-) can be read only once");

    struct stats_merge merge;
    stats_merge_init(&merge, count);
    char **sidecars = calloc(count, sizeof *sidecars);
    int status = sidecars ? EXIT_FINE : usage_error("merge", "out of memory");
    for (size_t d = 0; d < count && status == EXIT_FINE; d++) {
        struct merge_reading reading = {&merge, d, input_name(paths[d])};
        struct docread_options read_options = {.on_metric = add_metric, .ctx = &reading};
        struct docread_result result;
        status = read_document("merge", paths[d], &read_options, &result);
        sidecars[d] = result.sidecar; /* now ours to free */
    }
    if (status == EXIT_FINE) {
        stats_merge_finish(&merge);
        warn_partial_keys(&merge, paths);
        const char *sidecar = common_sidecar(sidecars, count);
        FILE *out = stdout;
        if (output != NULL && strcmp(output, "-") != 0) out = fopen(output, "w");
        if (out == NULL) {
            status = usage_error("merge", "cannot write %s: %s", output, strerror(errno));
        } else {
            static char buffer[1 << 20];
            setvbuf(out, buffer, _IOFBF, sizeof buffer);
            write_document(out, &merge, sidecar);
            status = finish_output("merge", out, output ? output : "standard output");
        }
    }
    for (size_t d = 0; sidecars && d < count; d++)
        free(sidecars[d]);
    free(sidecars);
    stats_merge_free(&merge);
    return status;
}
