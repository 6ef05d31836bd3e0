/* The open loop's schedule (--rate): request n of a level is due at
 * start + n/rate and belongs to the client whose global id is n mod clients.
 * Each worker walks its own clients' share of that sequence in due order and
 * wakes on one high-resolution timer (a timerfd) for the next due request. */
#ifndef LOADGEN_SCHEDULE_H
#define LOADGEN_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

struct lg_worker;
struct lg_client;

/* Creates the worker's timer (once per run); -1 with errno when it cannot. */
int lg_schedule_init(struct lg_worker *w);
void lg_schedule_free(struct lg_worker *w);
/* Level start: the first due request, the timer armed for it. */
void lg_schedule_begin(struct lg_worker *w);
/* The deadline: makes due everything scheduled before it (and starts what can
 * start), then stops the timer. */
void lg_schedule_end(struct lg_worker *w);
/* At the end of a client's event, by the clock the event last read (no read
 * of its own): what fell due while the loop was busy goes now, instead of
 * after the rest of the loop's iteration and another poll. */
void lg_schedule_check(struct lg_worker *w);
/* The scheduled time of a client's request number `k` in this level. */
uint64_t lg_schedule_due(const struct lg_worker *w, const struct lg_client *c, uint64_t k);

#endif
