/* One run's state: what the control thread, the sampler, --watch and the
 * clock reference keep between calls, and the preflight checks' result. lg_run owns one and hands
 * it to the parts that need it; nothing of a run lives in a process global, so two runs in one
 * process cannot see each other's state. */
#ifndef LOADGEN_RUNCTX_H
#define LOADGEN_RUNCTX_H

#include <stdint.h>

#include "loadgen/watching/control.h"
#include "loadgen/preflight/preflight.h"
#include "loadgen/watching/sampler.h"
#include "loadgen/watching/watch.h"

struct lg_run_ctx {
    struct lg_control control; /* signals, failure, the level's sampling clock */
    struct lg_sampler sampler; /* the generator's CPU and RSS, the progress line */
    struct lg_watcher watch;   /* --watch's trees */
    int64_t clock_offset_ns;   /* this clock minus --clock-ref's (start.h) */
    struct lg_fitness fitness; /* the checks made before the run, for --meta */
};

/* A run context with nothing measured yet. */
void lg_run_ctx_init(struct lg_run_ctx *run);
/* Frees what the run grew; after lg_control_stop. */
void lg_run_ctx_free(struct lg_run_ctx *run);

#endif
