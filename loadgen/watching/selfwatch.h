/* The generator watching itself: how late each loop's 1 s tick fires
 * (loop_lag_ms), each loop thread's CPU and run-queue wait over a level, the
 * UDP sockets' receive-queue drops (rx_dropped), its own RSS, and the warning
 * that the generator, not the target, limited a level. */
#ifndef LOADGEN_SELFWATCH_H
#define LOADGEN_SELFWATCH_H

#include <stdint.h>

struct lg_worker;
struct lg_config;
struct lg_driver;
struct lg_level_result;

/* On the worker's thread when its level starts; `now` is when the tick was armed. */
void lg_selfwatch_worker_begin(struct lg_worker *w, uint64_t now);
/* On the tick: records the lag and returns seconds until the next tick is due. */
double lg_selfwatch_tick(struct lg_worker *w, uint64_t now);
/* On the worker's thread when its loop has ended, before the sockets close. */
void lg_selfwatch_worker_end(struct lg_worker *w);
/* After the level: adds loop_lag_ms (and rx_dropped for datagram drivers) and
 * warns on stderr when a loop was saturated. */
int lg_selfwatch_collect(struct lg_level_result *res, struct lg_worker *ws, unsigned nw,
                         const struct lg_config *cfg, const struct lg_driver *drv);
void lg_selfwatch_free(struct lg_worker *w);
/* The generator's resident set, from /proc/self/statm (which stays open for
 * the process); 0 if unreadable. */
uint64_t lg_selfwatch_rss_bytes(void);

#endif
