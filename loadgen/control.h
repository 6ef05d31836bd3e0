/* The control thread: the one place SIGINT and SIGTERM are handled (every
 * other thread blocks them, so none can be woken by one and miss it), and
 * the level's once-a-second sampling (progress line, the generator's CPU and
 * RSS, --watch), kept off the loops that carry requests. */
#ifndef LOADGEN_CONTROL_H
#define LOADGEN_CONTROL_H

#include <stdint.h>

struct lg_config;
struct lg_worker;
struct lg_level_result;

/* Starts the control thread, which takes SIGINT and SIGTERM (blocked by
 * lg_signals_block in main()). -1 with errno when it cannot. */
int lg_control_start(const struct lg_config *cfg);
/* Joins the control thread; pending signals stay blocked. */
void lg_control_stop(void);
/* The signal that interrupted the run, or 0. */
int lg_control_interrupted(void);
/* The run cannot be carried out (out of memory): the first reason given is
 * kept, every worker stops, and lg_run exits with status 4. Any thread. */
void lg_control_fail(const char *why);
/* The reason given to lg_control_fail, or NULL. */
const char *lg_control_failure(void);
/* A level's workers start at start_ns: sampling begins, and a signal from
 * now on stops these workers. */
void lg_control_level_begin(struct lg_worker *ws, unsigned n, unsigned clients, uint64_t start_ns);
/* The workers have ended: the level's samples (generator_cpu_s,
 * generator_rss_bytes, watch.*) go to res, and sampling stops. -1 when
 * memory ran out. */
int lg_control_level_end(struct lg_level_result *res);

#endif
