/* The wake watch: whether a loop thread sleeps while work it handed to the
 * kernel has completed (an io_uring whose completions wait unnoticed). Its
 * loop marks each sleep (prepare and check watchers); the control thread
 * looks every 2 ms and adds up the time a loop spent in one sleep with work
 * waiting, which the self-watch turns into its asleep_on_work share. */
#ifndef LOADGEN_WAKEWATCH_H
#define LOADGEN_WAKEWATCH_H

#include <stdbool.h>
#include <stdint.h>

struct lg_worker;

#define LG_WAKEWATCH_PERIOD_NS 2000000u

/* On the worker's thread: its loop marks its sleeps from now until _stop. */
void lg_wakewatch_loop_start(struct lg_worker *w);
void lg_wakewatch_loop_stop(struct lg_worker *w);
/* On the control thread, at the level's start: zeroes the counts; whether
 * any worker's transport can say that work waits (if none, no sampling). */
bool lg_wakewatch_begin(struct lg_worker *ws, unsigned n);
/* On the control thread, every LG_WAKEWATCH_PERIOD_NS during the level. */
void lg_wakewatch_sample(struct lg_worker *ws, unsigned n, uint64_t now);
/* The transport's state for w is being made or freed: no sample reads it
 * meanwhile (the ring's memory goes away with it). */
void lg_wakewatch_lock(struct lg_worker *w);
void lg_wakewatch_unlock(struct lg_worker *w);

#endif
