/* The one clock of the suite: CLOCK_MONOTONIC in nanoseconds. On Linux this is
 * served by the vDSO, so a read costs no system call; the hot path reads it at
 * most twice per request. */
#ifndef LOADGEN_CLOCK_H
#define LOADGEN_CLOCK_H

#include <stdint.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>

static inline uint64_t lg_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define LG_NS_PER_MS 1000000u
#define LG_NS_PER_S 1000000000u

/* Arms a CLOCK_MONOTONIC timerfd for at_ns, an absolute time on this clock,
 * or disarms it (0); either clears a readiness it had. It cannot fail for a
 * valid descriptor and a valid time, and both are the caller's own. */
static inline void lg_timerfd_at(int fd, uint64_t at_ns)
{
    struct itimerspec its;
    memset(&its, 0, sizeof(its));
    its.it_value.tv_sec = (time_t)(at_ns / LG_NS_PER_S);
    its.it_value.tv_nsec = (long)(at_ns % LG_NS_PER_S);
    timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

#endif
