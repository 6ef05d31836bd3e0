/* cmd.h — the commands of loadstats and what they share: exit codes, the
 * option loop, usage errors, and reading a document with a reason on failure. */
#ifndef LOADGEN_STATS_CMD_H
#define LOADGEN_STATS_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "stats/read/docread.h"

/* Exit status: 0 fine, 1 the input fails (invalid, regressed, conflict), 2 usage or I/O,
 * 4 out of memory (merge's 3 is its own). */
enum { EXIT_FINE = 0, EXIT_FAILS = 1, EXIT_USAGE = 2, EXIT_NO_MEMORY = 4 };

/* Each takes argv with argv[0] the subcommand name and returns the exit status. */
int cmd_summary(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Prints "loadstats CMD: <message>" on stderr and returns EXIT_USAGE. */
int usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "loadstats CMD: <message>" on stderr (a warning or a failure). */
void complain(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "loadstats CMD: out of memory <where>" on stderr and returns
 * EXIT_NO_MEMORY: memory, not the input or the command line, failed. */
int no_memory(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How an input is named in messages ("-" is "<stdin>"). */
const char *input_name(const char *path);

/* Reads `path`; on failure prints the reason naming the input and returns the
 * exit status (1 invalid, 2 unreadable, 4 out of memory, or what the metric
 * callback returned to stop the read when that is 4), else 0. */
int read_document(const char *command, const char *path, const struct docread_options *options,
                  struct docread_result *result);

/* One option of a command, for the option loop and for --help. */
struct cmd_option {
    const char *name;    /* the long name, without "--" */
    int id;              /* its short letter ('o' for -o), or from CMD_LONG_ONLY up */
    bool takes_value;    /* a required value: --name VALUE, --name=VALUE or -xVALUE */
    const char *display; /* its left column in --help: "-o, --output OUT" */
    const char *help;    /* its right column; each '\n' goes on at the help column */
};
enum { CMD_LONG_ONLY = 256 };

/* What a command takes after its options; the loop checks the count. */
enum cmd_operands {
    CMD_ONE_FILE,     /* FILE (or -) */
    CMD_BASE_AND_NEW, /* two documents */
    CMD_SOME_FILES,   /* one document or more */
};

/* A command's command line: its options and what --help says around them.
 * Every command also takes -h, --help, which the loop adds. */
struct cmd_spec {
    const char *name;     /* "check" */
    const char *synopsis; /* after "usage: loadstats check ": "[-q] FILE" */
    const char *about;    /* --help between the usage line and the options */
    const char *epilog;   /* --help after the options */
    int help_column;      /* where the options' right column starts */
    const struct cmd_option *options;
    size_t n_options;
    enum cmd_operands operands;
    /* Takes one option (value NULL without one): EXIT_FINE, or EXIT_USAGE
     * after a one-line error. */
    int (*take)(void *settings, int id, const char *value);
    /* Optional: the rules between options, once all are taken; as `take`. */
    int (*check)(void *settings);
};

/* cmd_parse's "go on": the command runs on the operands. */
#define CMD_PROCEED (-1)

/* Parses argv (argv[0] the command's name) into `settings` through spec->take,
 * in the order given. Returns CMD_PROCEED with the operands in *files and
 * *n_files, or the status to exit with: EXIT_FINE after printing --help,
 * EXIT_USAGE after a one-line error (an unknown option, a missing value, a bad
 * value, a wrong number of operands). */
int cmd_parse(const struct cmd_spec *spec, int argc, char **argv, void *settings, char ***files,
              int *n_files);

/* The command's --help text, made from its spec. */
void cmd_write_help(const struct cmd_spec *spec, FILE *out);

/* Parses a non-negative finite number given to option `name` into *out:
 * EXIT_FINE, or EXIT_USAGE after saying why. */
int parse_number_option(const char *command, const char *name, const char *text, double *out);

/* JSON output of strings and numbers. */
void json_write_string(FILE *out, const char *s);
void json_write_number(FILE *out, double x);

/* An output file that fopen could not open: "cannot write NAME: reason"
 * (EXIT_USAGE), or out of memory (EXIT_NO_MEMORY: fopen allocates). */
int cannot_write(const char *command, const char *name);

/* Flushes and closes `out` (unless stdout/stderr), reporting a write error;
 * returns 0 or EXIT_USAGE. */
int finish_output(const char *command, FILE *out, const char *name);

#endif
