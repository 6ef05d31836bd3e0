/* The process-tree sampler behind --watch: once a second of each level, a
 * watched process and all its descendants (found afresh in /proc each time)
 * give CPU, RSS, PSS, USS and open descriptors, for the tree and per command
 * name. Runs on the control thread, never on the request path. */
#ifndef LOADGEN_WATCH_H
#define LOADGEN_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loadgen/watching/proctree.h"

struct lg_config;
struct lg_level_result;
struct lg_run_ctx;
struct watch; /* one watched tree (watch.c) */

/* The sampler's state, a field of the run context (runctx.h): its buffers
 * live for the run and only grow. Zeroed (with run set) is ready. */
struct lg_watcher {
    struct lg_run_ctx *run; /* whose run an allocation failure fails */
    const char *tool;
    unsigned clients;
    struct watch *w;
    size_t n;
    struct lg_proctree pt;
    int *roots;
    char *buf;
    size_t cap;
    double tick_s;
    uint64_t page;
    bool no_rollup, noted_no_rollup;
};

/* --watch NAME=PID or NAME=pidfile:PATH: checks the value and that the
 * process exists, and adds it to cfg. Exits with status 2 otherwise. */
void lg_watch_option(struct lg_config *cfg, const char *arg);
void lg_watch_free_specs(struct lg_config *cfg);

/* Level start: resolves pid files and takes the CPU baseline. */
void lg_watch_level_begin(struct lg_watcher *watcher, const struct lg_config *cfg,
                          unsigned clients);
/* One sample of every watched tree (the second that just ended). */
void lg_watch_sample(struct lg_watcher *watcher);
/* Adds watch.<NAME>.<metric> and watch.<NAME>.<comm>.<metric> to the level. */
int lg_watch_collect(struct lg_watcher *watcher, struct lg_level_result *res);
void lg_watch_level_end(struct lg_watcher *watcher);
/* Frees what the run's levels grew; at the end of the run. */
void lg_watch_free(struct lg_watcher *watcher);

#endif
