/* runlist.h — a side of a comparison or a report named on the command line:
 * one document, or several runs of the same test as a comma-separated list
 * ("a.json,b.json"). Shared by the commands that take sides, so they agree on
 * what a list is and on how a bad one is refused. */
#ifndef LOADGEN_STATS_RUNLIST_H
#define LOADGEN_STATS_RUNLIST_H

#include <stddef.h>

struct runlist {
    char **paths; /* each malloc'd, in the order given */
    size_t n;
};

/* Splits `arg` at its commas. An empty item ("a.json,,b.json", a leading or
 * trailing comma), "-" inside a list of several, or one path named twice is an
 * error: -1 with a one-line reason in `error`. Out of memory is -2. */
int runlist_split(const char *arg, struct runlist *list, char *error, size_t error_size);

void runlist_free(struct runlist *list);

#endif
