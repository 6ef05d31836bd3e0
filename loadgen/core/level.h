/* One level: its cohort of clients (this shard's share of them) spread over
 * the workers, its start (at once, or at the common moment of --start-at),
 * the workers' run, and the merge of their stores into named metrics. */
#ifndef LOADGEN_LEVEL_H
#define LOADGEN_LEVEL_H

#include <stdbool.h>

#include "stats/math/rng.h"

struct lg_config;
struct lg_driver;
struct lg_worker;
struct lg_level_result;
struct lg_run_ctx;

/* What every level of a run shares. */
struct lg_levels {
    struct lg_run_ctx *run;
    const struct lg_config *cfg;
    const struct lg_driver *drv;
    struct lg_worker *ws;
    unsigned nw;
    unsigned n_classes;
    struct stats_rng rng; /* merging the threads' reservoirs */
    bool sampled;         /* some metric of some level kept a subset */
};

enum lg_level_outcome {
    LG_LEVEL_DONE,    /* res holds the level (maybe interrupted) */
    LG_LEVEL_LATE,    /* its common start had passed by more than --max-late */
    LG_LEVEL_NOT_RUN, /* interrupted, or the run failed, before it started */
    LG_LEVEL_NO_MEMORY,
};

/* Runs level k of the configuration into res. */
enum lg_level_outcome lg_level_run(struct lg_levels *lv, unsigned k, struct lg_level_result *res);

#endif
