/* cmd.h — the subcommands of loadstats and what they share: exit codes, usage
 * errors, reading a document with a reason on failure, and the level of a key. */
#ifndef LOADGEN_STATS_CMD_H
#define LOADGEN_STATS_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "stats/docread.h"

/* Exit status: 0 fine, 1 the input fails (invalid, regressed, conflict), 2 usage or I/O. */
enum { EXIT_FINE = 0, EXIT_FAILS = 1, EXIT_USAGE = 2 };

/* Each takes argv with argv[0] the subcommand name and returns the exit status. */
int cmd_summary(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* Prints "loadstats CMD: <message>" on stderr and returns EXIT_USAGE. */
int usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "loadstats CMD: <message>" on stderr (a warning or a failure). */
void complain(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How an input is named in messages ("-" is "<stdin>"). */
const char *input_name(const char *path);

/* Reads `path`; on failure prints the reason naming the input and returns the
 * exit status (1 invalid, 2 unreadable), else 0. */
int read_document(const char *command, const char *path, const struct docread_options *options,
                  struct docread_result *result);

/* Handles the getopt error cases shared by every subcommand; returns EXIT_USAGE. */
int option_error(const char *command, int opt, char **argv);

/* Parses a non-negative finite number given to option `name`. */
bool parse_number_option(const char *command, const char *name, const char *text, double *out);

/* Splits "c64.latency_warm_ms" into 64 and "latency_warm_ms"; false for a key
 * without a level prefix. */
bool key_level(const char *key, unsigned long *clients, const char **metric);

/* JSON output of strings and numbers. */
void json_write_string(FILE *out, const char *s);
void json_write_number(FILE *out, double x);

/* Flushes and closes `out` (unless stdout/stderr), reporting a write error;
 * returns 0 or EXIT_USAGE. */
int finish_output(const char *command, FILE *out, const char *name);

#endif
