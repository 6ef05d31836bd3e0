/* --ramp: a level's clients begin spread evenly over a time instead of all
 * at its start, so that tens of thousands of connects do not leave in one
 * burst (a SYN flood the target's backlog drops). */
#ifndef LOADGEN_RAMP_H
#define LOADGEN_RAMP_H

#include <stdint.h>

struct lg_worker;
struct lg_client;

/* The moment client `id` of a level of `clients` begins, as an offset from
 * the level's start: ramp * id / clients. Client 0 begins at the start,
 * the last one step before the ramp's end; shards agree on it (ids are the
 * whole level's). */
uint64_t lg_ramp_offset_ns(uint64_t ramp_ns, unsigned id, unsigned clients);
/* The moment c begins, on the monotonic clock. */
uint64_t lg_ramp_begin_ns(const struct lg_worker *w, const struct lg_client *c);
/* Closed loop, at the level's start: begins the worker's clients whose
 * moment has come and sets a timer for the next; the rest begin from it. */
void lg_ramp_start(struct lg_worker *w);
/* The level ended: the timer stops (clients not yet begun stay idle). */
void lg_ramp_stop(struct lg_worker *w);

#endif
