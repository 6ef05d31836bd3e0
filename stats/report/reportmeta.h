/* reportmeta.h — what the report shows of a run's --meta descriptor: who
 * measured what, how and where (tool, version, command line, target, start,
 * shard, machine), how the run ended (its exit status), and per level its
 * length, rates and the reasons of its errors. A descriptor is optional: a
 * document without one still gets a page, which says what it lacks. */
#ifndef LOADGEN_STATS_REPORTMETA_H
#define LOADGEN_STATS_REPORTMETA_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/runs/machines.h"

struct report_pair {
    char *name, *value;
};

struct report_meta_level {
    unsigned long clients;
    double seconds;        /* NAN when absent */
    double requested_rate; /* NAN without an open loop */
    double achieved_rate;  /* NAN without an open loop */
    bool interrupted;
    bool generator_limited; /* self_watch.limited */
    /* self_watch's busiest loop: its shares of the level on a CPU and
     * waiting for one, its tick's p99 lateness; NAN when absent */
    double on_cpu, waiting_for_cpu, tick_lag_p99_ms;
    struct report_pair *error_reasons; /* class, first reason */
    size_t n_error_reasons;
};

struct report_meta {
    char *path;    /* the descriptor's path (malloc'd), or NULL */
    bool loaded;   /* read and parsed */
    char *problem; /* why not, when a descriptor was named or found but is unusable */
    char *tool, *version, *target, *started_at, *command_line, *run_id;
    bool has_shard;
    unsigned long shard_index, shard_count;
    char **inputs; /* a merged document's inputs */
    size_t n_inputs;
    bool has_exit_status;
    int exit_status;
    double rate;                 /* --rate, 0 for a closed loop, NAN when unknown */
    struct report_pair *options; /* the options object, as name and value */
    size_t n_options;
    struct report_pair *machine; /* the machine object, as name and value */
    size_t n_machine;
    struct stats_machine machine_identity; /* what makes it the same machine (machines.h) */
    struct report_meta_level *levels;
    size_t n_levels;
};

/* Reads the descriptor at `path`. A missing file with `optional` leaves the
 * meta empty (not loaded, no problem); any other failure leaves it empty with
 * a one-line `problem`. Returns -1 only when memory runs out. */
int report_meta_read(const char *path, bool optional, struct report_meta *meta);

void report_meta_free(struct report_meta *meta);

const struct report_meta_level *report_meta_level(const struct report_meta *meta,
                                                  unsigned long clients);

/* What an exit status of the generators means (doc/harness.md's table), "" for 0. */
const char *report_exit_meaning(int status);

#endif
