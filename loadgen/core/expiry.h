/* Request timeouts: each worker's in-flight requests end as timeouts at
 * their deadline (start + --timeout), oldest first, woken by one
 * high-resolution timer (a timerfd) rather than the loop's millisecond timers. */
#ifndef LOADGEN_EXPIRY_H
#define LOADGEN_EXPIRY_H

#include <stdint.h>

struct lg_worker;

/* Creates the worker's timer (once per run); -1 with errno when it cannot. */
int lg_expiry_init(struct lg_worker *w);
void lg_expiry_free(struct lg_worker *w);
/* A level's loop begins and ends: the timer is watched, then stopped. */
void lg_expiry_level_begin(struct lg_worker *w);
void lg_expiry_level_end(struct lg_worker *w);
/* A request with this deadline started (after every request started before
 * it, so its deadline is no earlier than theirs). */
void lg_expiry_track(struct lg_worker *w, uint64_t deadline_ns);

#endif
