/* warnlist.h — the warnings a loadstats command gives on standard error, kept
 * so that its JSON can carry them too: a harness reads the document, not
 * stderr. Each has a kind, and where it applies the side, run, level and
 * metric it is about. */
#ifndef STATS_WARNLIST_H
#define STATS_WARNLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct stats_warning {
    const char *kind;    /* a fixed name: "machine", "generator_limited", ... */
    const char *side;    /* "base", "new" or NULL */
    char *run;           /* the run's document, or NULL */
    unsigned long level; /* clients of the level it is about; 0: none */
    char *metric;        /* or NULL */
    char *message;       /* the sentence stderr shows after "warning: " or "note: " */
};

struct stats_warnlist {
    struct stats_warning *v;
    size_t n, cap;
    bool lost; /* memory ran out keeping one: the JSON would not be whole */
};

/* Prints "loadstats COMMAND: PREFIX: MESSAGE" on stderr (PREFIX "warning" or
 * "note") and keeps the warning; memory running out sets `lost`, the line
 * is printed all the same. */
void stats_warn(struct stats_warnlist *l, const char *command, const char *prefix, const char *kind,
                const char *side, const char *run, unsigned long level, const char *metric,
                const char *fmt, ...) __attribute__((format(printf, 9, 10)));

/* [{"kind": ..., "side": ..., "run": ..., "level": "c64", "metric": ...,
 * "message": ...}, ...], the absent members left out. */
void stats_warnlist_write_json(FILE *out, const struct stats_warnlist *l);

void stats_warnlist_free(struct stats_warnlist *l);

#endif
