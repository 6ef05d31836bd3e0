/* The control thread: the one place SIGINT and SIGTERM are handled (every
 * other thread blocks them, so none can be woken by one and miss it), and
 * the level's once-a-second sampling (progress line, the generator's CPU and
 * RSS, --watch), kept off the loops that carry requests. */
#ifndef LOADGEN_CONTROL_H
#define LOADGEN_CONTROL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct lg_config;
struct lg_worker;
struct lg_level_result;
struct lg_run_ctx;

/* The control thread's state, a field of the run context (runctx.h).
 * Set up by lg_control_init; only control.c reads it. */
struct lg_control {
    pthread_t thread;
    bool running;
    int sigfd;
    _Atomic int wakefd; /* lg_control_fail writes it from any thread */
    pthread_mutex_t mu; /* guards what follows and every sampler/watch call */
    bool level_active, quit;
    uint64_t next_tick_ns;
    bool wake_watch; /* a loop's transport can say work waits: look every 2 ms */
    uint64_t next_wake_look_ns;
    struct lg_worker *ws;
    unsigned n;
    _Atomic int interrupted_by;
    _Atomic int failed;   /* 1 while the reason is written, 2 once it is complete */
    bool failure_handled; /* the control thread has stopped the workers for it */
    char failure[256];
    bool first_sec_checked;   /* the level's first second was judged (firstsec.h) */
    _Atomic bool failed_fast; /* --fail-fast ended the run */
};

/* Sets up the state before lg_control_start. */
void lg_control_init(struct lg_control *ctl);
/* Destroys what lg_control_init made; after lg_control_stop. */
void lg_control_destroy(struct lg_control *ctl);

/* Starts the control thread, which takes SIGINT and SIGTERM (blocked by
 * lg_signals_block in main()). -1 with errno when it cannot. */
int lg_control_start(struct lg_run_ctx *run, const struct lg_config *cfg);
/* Joins the control thread; pending signals stay blocked. */
void lg_control_stop(struct lg_run_ctx *run);
/* The signal that interrupted the run, or 0. */
int lg_control_interrupted(struct lg_run_ctx *run);
/* The run cannot be carried out (out of memory): the first reason given is
 * kept, every worker stops, and lg_run exits with status 4. Any thread,
 * holding any lock: it takes none and allocates nothing. */
void lg_control_fail(struct lg_run_ctx *run, const char *why);
/* Wakes the control thread to look at what the loops published (any
 * thread, any lock held). */
void lg_control_wake(struct lg_run_ctx *run);
/* Whether --fail-fast ended the run (at the level running, or the last). */
bool lg_control_failed_fast(struct lg_run_ctx *run);
/* The reason given to lg_control_fail, or NULL. */
const char *lg_control_failure(struct lg_run_ctx *run);
/* A level's workers start at start_ns: sampling begins, and a signal from
 * now on stops these workers. */
void lg_control_level_begin(struct lg_run_ctx *run, struct lg_worker *ws, unsigned n,
                            unsigned clients, uint64_t start_ns);
/* The workers have ended: the level's samples (generator_cpu_s,
 * generator_rss_bytes, watch.*) go to res, and sampling stops. -1 when
 * memory ran out. */
int lg_control_level_end(struct lg_run_ctx *run, struct lg_level_result *res);

#endif
