/* The timer floor: how late this machine wakes a loop that sleeps on a
 * timerfd, as the open loop's schedule does. A short burst of wake-ups gives
 * its median and 99th percentile: the resolution of every latency a run on
 * this machine reports. */
#ifndef LOADGEN_TIMERFLOOR_H
#define LOADGEN_TIMERFLOOR_H

#include <stdint.h>

/* The burst: at most this many wake-ups, each due this long after the
 * last, and never longer than the budget (a loaded machine wakes late). */
#define LG_TIMER_WAKES 128
#define LG_TIMER_GAP_NS 20000u
#define LG_TIMER_BUDGET_NS 15000000u
/* A burst cut to fewer wakes than this says the CPU was taken away, and
 * nothing firm about the floor: it is no ground for an unfit verdict. */
#define LG_TIMER_WAKES_TO_JUDGE 32

struct lg_timer_floor {
    unsigned wakes;          /* 0: the burst could not run */
    uint64_t p50_ns, p99_ns; /* how late, of the wakes */
    uint64_t max_ns;
    uint64_t took_ns; /* the burst's wall time */
};

/* Runs the burst on the calling thread; 0, or -1 (errno) when no timerfd. */
int lg_timer_floor_measure(struct lg_timer_floor *tf);

/* The q-quantile (0..1) of n sorted values, nearest rank. */
uint64_t lg_timer_quantile(const uint64_t *sorted, unsigned n, double q);

#endif
