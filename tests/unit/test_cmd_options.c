/* test_cmd_options.c — the option loop of loadstats' commands: --help made
 * from a command's table, options handed over in order, and every way a
 * command line is refused (unknown option, missing value, a handler's or a
 * cross-option rule's refusal, a wrong number of operands). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stats/cmd/cmd.h"

enum { OPT_FLAG = CMD_LONG_ONLY, OPT_LONG };

static const struct cmd_option options[] = {
    {"output", 'o', true, "-o, --output OUT", "where to write"},
    {"flag", OPT_FLAG, false, "--flag", "first line\nsecond line"},
    {"long", OPT_LONG, true, "--long-enough-to-need-a-line VALUE", "its help"},
    {"quiet", 'q', false, "-q, --quiet", "no noise"},
};
static const size_t n_options = sizeof options / sizeof *options;

/* What the handler saw, as "name=value " items, and what it should refuse. */
struct seen {
    char log[256];
    const char *refuse; /* a value the handler refuses */
    bool refuse_all;    /* what the cross-option check says */
    int checks;         /* how often the check ran */
};

static int take(void *settings, int id, const char *value)
{
    struct seen *s = settings;
    if (s->refuse && value && strcmp(value, s->refuse) == 0)
        return usage_error("t", "refused '%s'", value);
    const char *name = "?";
    for (size_t i = 0; i < n_options; i++)
        if (options[i].id == id) name = options[i].name;
    size_t used = strlen(s->log);
    snprintf(s->log + used, sizeof s->log - used, "%s=%s ", name, value ? value : "-");
    return EXIT_FINE;
}

static int check(void *settings)
{
    struct seen *s = settings;
    s->checks++;
    return s->refuse_all ? usage_error("t", "the check refuses") : EXIT_FINE;
}

static struct cmd_spec spec(enum cmd_operands operands)
{
    return (struct cmd_spec){.name = "t",
                             .synopsis = "[options] FILE",
                             .about = "About it.\n",
                             .epilog = "Exit status: 0.\n",
                             .help_column = 20,
                             .options = options,
                             .n_options = n_options,
                             .operands = operands,
                             .take = take,
                             .check = check};
}

/* Runs cmd_parse on the words of `line`, with stdout and stderr caught. */
struct outcome {
    int status;
    char out[2048], err[512];
    char **files;
    int n_files;
};

static void read_all(FILE *f, char *buf, size_t size)
{
    rewind(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static struct outcome parse(const struct cmd_spec *s, struct seen *seen, const char *line)
{
    static char words[512];
    static char *argv[32];
    int argc = 0;
    snprintf(words, sizeof words, "%s", line);
    for (char *w = strtok(words, " "); w && argc < 31; w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc] = NULL;

    struct outcome o = {.files = NULL, .n_files = -1};
    FILE *out = tmpfile(), *err = tmpfile();
    assert_non_null(out);
    assert_non_null(err);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    dup2(fileno(out), STDOUT_FILENO);
    dup2(fileno(err), STDERR_FILENO);
    o.status = cmd_parse(s, argc, argv, seen, &o.files, &o.n_files);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved_out);
    close(saved_err);
    read_all(out, o.out, sizeof o.out);
    read_all(err, o.err, sizeof o.err);
    return o;
}

static void test_help_is_made_from_the_table(void **state)
{
    (void)state;
    struct cmd_spec s = spec(CMD_ONE_FILE);
    struct seen seen = {0};
    struct outcome o = parse(&s, &seen, "t --flag --help -o x");
    assert_int_equal(o.status, EXIT_FINE);
    assert_string_equal(o.out, "usage: loadstats t [options] FILE\n"
                               "\n"
                               "About it.\n"
                               "\n"
                               "  -o, --output OUT  where to write\n"
                               "  --flag            first line\n"
                               "                    second line\n"
                               "  --long-enough-to-need-a-line VALUE\n"
                               "                    its help\n"
                               "  -q, --quiet       no noise\n"
                               "  -h, --help        this text\n"
                               "\n"
                               "Exit status: 0.\n");
    assert_string_equal(o.err, "");
    /* what came before --help was taken, nothing after it, and no check ran */
    assert_string_equal(seen.log, "flag=- ");
    assert_int_equal(seen.checks, 0);
}

static void test_options_reach_the_handler_in_order(void **state)
{
    (void)state;
    struct cmd_spec s = spec(CMD_ONE_FILE);
    struct seen seen = {0};
    struct outcome o = parse(&s, &seen, "t -oA --out=B doc.json --long C -q --flag --quiet");
    assert_int_equal(o.status, CMD_PROCEED);
    assert_string_equal(seen.log, "output=A output=B long=C quiet=- flag=- quiet=- ");
    assert_int_equal(seen.checks, 1);
    assert_int_equal(o.n_files, 1);
    assert_string_equal(o.files[0], "doc.json");
    assert_string_equal(o.err, "");
    assert_string_equal(o.out, "");
}

static void test_double_dash_ends_the_options(void **state)
{
    (void)state;
    struct cmd_spec s = spec(CMD_SOME_FILES);
    struct seen seen = {0};
    struct outcome o = parse(&s, &seen, "t -q -- --help -o");
    assert_int_equal(o.status, CMD_PROCEED);
    assert_int_equal(o.n_files, 2);
    assert_string_equal(o.files[0], "--help");
    assert_string_equal(o.files[1], "-o");
}

static void test_unknown_options_are_named(void **state)
{
    (void)state;
    struct cmd_spec s = spec(CMD_ONE_FILE);
    struct seen seen = {0};
    struct outcome o = parse(&s, &seen, "t --frobnicate doc.json");
    assert_int_equal(o.status, EXIT_USAGE);
    assert_string_equal(o.err,
                        "loadstats t: unknown option --frobnicate (see loadstats t --help)\n");
    o = parse(&s, &seen, "t -qZ doc.json");
    assert_int_equal(o.status, EXIT_USAGE);
    assert_string_equal(o.err, "loadstats t: unknown option -Z (see loadstats t --help)\n");
    o = parse(&s, &seen, "t --nope=1 doc.json");
    assert_string_equal(o.err, "loadstats t: unknown option --nope=1 (see loadstats t --help)\n");
    assert_int_equal(seen.checks, 0);
    assert_string_equal(o.out, "");
}

static void test_a_mistyped_option_gets_the_nearest(void **state)
{
    (void)state;
    struct cmd_spec s = spec(CMD_ONE_FILE);
    struct seen seen = {0};
    struct outcome o = parse(&s, &seen, "t --otput x.json doc.json");
    assert_int_equal(o.status, EXIT_USAGE);
    assert_string_equal(o.err, "loadstats t: unknown option --otput: did you mean --output? "
                               "(see loadstats t --help)\n");
    o = parse(&s, &seen, "t --qiuet=1 doc.json"); /* a swap is one edit */
    assert_string_equal(o.err, "loadstats t: unknown option --qiuet=1: did you mean --quiet? "
                               "(see loadstats t --help)\n");
    o = parse(&s, &seen, "t --hlep doc.json"); /* the loop's own --help too */
    assert_string_equal(o.err, "loadstats t: unknown option --hlep: did you mean --help? "
                               "(see loadstats t --help)\n");
    assert_string_equal(seen.log, "");
}

static void test_a_missing_value_is_named(void **state)
{
    (void)state;
    struct cmd_spec s = spec(CMD_ONE_FILE);
    struct seen seen = {0};
    struct outcome o = parse(&s, &seen, "t doc.json --output");
    assert_int_equal(o.status, EXIT_USAGE);
    assert_string_equal(o.err, "loadstats t: option --output needs a value\n");
    o = parse(&s, &seen, "t doc.json -o");
    assert_int_equal(o.status, EXIT_USAGE);
    assert_string_equal(o.err, "loadstats t: option -o needs a value\n");
    assert_string_equal(seen.log, "");
}

static void test_a_value_for_an_option_without_one_is_refused(void **state)
{
    (void)state;
    struct cmd_spec s = spec(CMD_ONE_FILE);
    struct seen seen = {0};
    struct outcome o = parse(&s, &seen, "t --quiet=1 doc.json");
    assert_int_equal(o.status, EXIT_USAGE);
    assert_string_equal(o.err, "loadstats t: option --quiet takes no value\n");
    o = parse(&s, &seen, "t --flag=yes doc.json");
    assert_string_equal(o.err, "loadstats t: option --flag takes no value\n");
    o = parse(&s, &seen, "t --help=x doc.json");
    assert_string_equal(o.err, "loadstats t: option --help takes no value\n");
    assert_string_equal(o.out, "");
    /* a letter that is no option stays unknown, also beside one that is */
    o = parse(&s, &seen, "t -Zq doc.json");
    assert_string_equal(o.err, "loadstats t: unknown option -Z (see loadstats t --help)\n");
    assert_string_equal(seen.log, "");
}

static void test_a_refused_value_stops_the_parse(void **state)
{
    (void)state;
    struct cmd_spec s = spec(CMD_ONE_FILE);
    struct seen seen = {.refuse = "bad"};
    struct outcome o = parse(&s, &seen, "t -o good --long bad -q doc.json");
    assert_int_equal(o.status, EXIT_USAGE);
    assert_string_equal(o.err, "loadstats t: refused 'bad'\n");
    assert_string_equal(seen.log, "output=good ");
    assert_int_equal(seen.checks, 0);
}

static void test_the_check_runs_before_the_operands_are_counted(void **state)
{
    (void)state;
    struct cmd_spec s = spec(CMD_ONE_FILE);
    struct seen seen = {.refuse_all = true};
    struct outcome o = parse(&s, &seen, "t -q");
    assert_int_equal(o.status, EXIT_USAGE);
    assert_string_equal(o.err, "loadstats t: the check refuses\n");
    assert_int_equal(seen.checks, 1);
    s.check = NULL;
    o = parse(&s, &seen, "t -q");
    assert_string_equal(o.err, "loadstats t: needs exactly one FILE (or -), got 0\n");
}

static void test_operand_counts(void **state)
{
    (void)state;
    struct seen seen = {0};
    struct cmd_spec one = spec(CMD_ONE_FILE), two = spec(CMD_BASE_AND_NEW),
                    some = spec(CMD_SOME_FILES);
    struct outcome o = parse(&one, &seen, "t a b");
    assert_int_equal(o.status, EXIT_USAGE);
    assert_string_equal(o.err, "loadstats t: needs exactly one FILE (or -), got 2\n");
    o = parse(&two, &seen, "t a");
    assert_int_equal(o.status, EXIT_USAGE);
    assert_string_equal(o.err, "loadstats t: needs two documents, BASE and NEW; got 1\n");
    o = parse(&two, &seen, "t a -q b");
    assert_int_equal(o.status, CMD_PROCEED);
    assert_int_equal(o.n_files, 2);
    assert_string_equal(o.files[0], "a");
    assert_string_equal(o.files[1], "b");
    o = parse(&some, &seen, "t -q");
    assert_int_equal(o.status, EXIT_USAGE);
    assert_string_equal(o.err, "loadstats t: needs at least one document to merge\n");
    o = parse(&some, &seen, "t a b c d");
    assert_int_equal(o.status, CMD_PROCEED);
    assert_int_equal(o.n_files, 4);
    assert_string_equal(o.files[3], "d");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_is_made_from_the_table),
        cmocka_unit_test(test_options_reach_the_handler_in_order),
        cmocka_unit_test(test_double_dash_ends_the_options),
        cmocka_unit_test(test_unknown_options_are_named),
        cmocka_unit_test(test_a_mistyped_option_gets_the_nearest),
        cmocka_unit_test(test_a_missing_value_is_named),
        cmocka_unit_test(test_a_value_for_an_option_without_one_is_refused),
        cmocka_unit_test(test_a_refused_value_stops_the_parse),
        cmocka_unit_test(test_the_check_runs_before_the_operands_are_counted),
        cmocka_unit_test(test_operand_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
