/* cmd_options.c — the one option loop of loadstats' commands (see cmd.h):
 * getopt's tables made from a command's option table, --help made from it too,
 * and the errors every command words alike: unknown option, missing value,
 * wrong number of operands. */
#include "stats/cmd/cmd.h"
#include "stats/read/nearest.h"

#include <getopt.h>
#include <string.h>

/* The most options one command has; the tables below are sized by it. */
#define CMD_MAX_OPTIONS 16

static const struct cmd_option help_option = {"help", 'h', false, "-h, --help", "this text"};

static void write_option(FILE *out, const struct cmd_option *o, int column)
{
    /* The left column needs a space after it; a longer one gets a line of its own. */
    if ((int)strlen(o->display) + 3 <= column)
        fprintf(out, "  %-*s", column - 2, o->display);
    else
        fprintf(out, "  %s\n%*s", o->display, column, "");
    for (const char *line = o->help;;) {
        const char *end = strchr(line, '\n');
        if (end == NULL) {
            fprintf(out, "%s\n", line);
            return;
        }
        fprintf(out, "%.*s\n%*s", (int)(end - line), line, column, "");
        line = end + 1;
    }
}

void cmd_write_help(const struct cmd_spec *spec, FILE *out)
{
    fprintf(out, "usage: loadstats %s %s\n\n%s\n", spec->name, spec->synopsis, spec->about);
    for (size_t i = 0; i < spec->n_options; i++)
        write_option(out, &spec->options[i], spec->help_column);
    write_option(out, &help_option, spec->help_column);
    fprintf(out, "\n%s", spec->epilog);
}

/* The command's option nearest a mistyped long one (--qiet), or NULL. */
static const char *nearest_option(const struct cmd_spec *spec, const char *given)
{
    char name[STATS_NEAREST_MAX_LEN + 1];
    if (strncmp(given, "--", 2) != 0) return NULL;
    size_t len = strcspn(given + 2, "=");
    if (len >= sizeof name) return NULL;
    memcpy(name, given + 2, len);
    name[len] = '\0';
    struct stats_nearest near;
    stats_nearest_init(&near, name);
    for (size_t i = 0; i <= spec->n_options; i++)
        stats_nearest_offer(&near, i < spec->n_options ? spec->options[i].name : help_option.name);
    return near.best;
}

/* getopt reports a missing value as ':' and anything else as '?', with optopt
 * the unknown letter, 0 for an unknown long option, or the id of an option
 * that takes no value but was given one (--quiet=1). */
static int option_error(const struct cmd_spec *spec, int opt, char **argv)
{
    const char *command = spec->name, *given = argv[optind - 1];
    if (opt == ':') return usage_error(command, "option %s needs a value", given);
    for (size_t i = 0; i <= spec->n_options; i++) {
        const struct cmd_option *o = i < spec->n_options ? &spec->options[i] : &help_option;
        if (optopt == o->id) return usage_error(command, "option --%s takes no value", o->name);
    }
    if (optopt > 0 && optopt < 128)
        return usage_error(command, "unknown option -%c (see loadstats %s --help)", optopt,
                           command);
    const char *near = nearest_option(spec, given);
    if (near != NULL)
        return usage_error(command,
                           "unknown option %s: did you mean --%s? (see loadstats %s --help)", given,
                           near, command);
    return usage_error(command, "unknown option %s (see loadstats %s --help)", given, command);
}

static int check_operands(const struct cmd_spec *spec, int count)
{
    switch (spec->operands) {
    case CMD_ONE_FILE:
        if (count != 1)
            return usage_error(spec->name, "needs exactly one FILE (or -), got %d", count);
        break;
    case CMD_BASE_AND_NEW:
        if (count != 2)
            return usage_error(spec->name, "needs two documents, BASE and NEW; got %d", count);
        break;
    case CMD_SOME_FILES:
        if (count == 0) return usage_error(spec->name, "needs at least one document to merge");
        break;
    }
    return EXIT_FINE;
}

int cmd_parse(const struct cmd_spec *spec, int argc, char **argv, void *settings, char ***files,
              int *n_files)
{
    if (spec->n_options > CMD_MAX_OPTIONS)
        return usage_error(spec->name, "has %zu options; the option loop holds %d", spec->n_options,
                           CMD_MAX_OPTIONS);
    struct option longopts[CMD_MAX_OPTIONS + 2];
    char shortopts[2 * CMD_MAX_OPTIONS + 4];
    size_t k = 0;
    shortopts[k++] = ':'; /* a missing value comes back as ':', and getopt prints nothing */
    for (size_t i = 0; i <= spec->n_options; i++) {
        const struct cmd_option *o = i < spec->n_options ? &spec->options[i] : &help_option;
        longopts[i] =
            (struct option){o->name, o->takes_value ? required_argument : no_argument, NULL, o->id};
        if (o->id < CMD_LONG_ONLY) {
            shortopts[k++] = (char)o->id;
            if (o->takes_value) shortopts[k++] = ':';
        }
    }
    longopts[spec->n_options + 1] = (struct option){NULL, 0, NULL, 0};
    shortopts[k] = '\0';

    /* 0, not 1: glibc then starts afresh, also after a parse that stopped early
     * (the unit tests parse many command lines in one process). */
    optind = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == 'h') {
            cmd_write_help(spec, stdout);
            return EXIT_FINE;
        }
        if (opt == ':' || opt == '?') return option_error(spec, opt, argv);
        int status = spec->take(settings, opt, optarg);
        if (status != EXIT_FINE) return status;
    }
    if (spec->check != NULL) {
        int status = spec->check(settings);
        if (status != EXIT_FINE) return status;
    }
    int status = check_operands(spec, argc - optind);
    if (status != EXIT_FINE) return status;
    *files = argv + optind;
    *n_files = argc - optind;
    return CMD_PROCEED;
}
