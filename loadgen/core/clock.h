/* The one clock of the suite: CLOCK_MONOTONIC in nanoseconds. On Linux this is
 * served by the vDSO, so a read costs no system call; the hot path reads it at
 * most twice per request. */
#ifndef LOADGEN_CLOCK_H
#define LOADGEN_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t lg_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define LG_NS_PER_MS 1000000u
#define LG_NS_PER_S 1000000000u

#endif
