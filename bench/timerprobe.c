/* bench/timerprobe: the wake-up floor an open loop can reach on this machine.
 * It follows the same schedule as `httpload -R RATE` (request n due at
 * start + n/RATE) with nothing but an epoll loop and one timerfd armed at
 * each due time (absolute CLOCK_MONOTONIC), and prints how late each wake-up
 * came, one number in milliseconds per line, then "cpu_s <seconds>" for the
 * CPU the process used.
 * usage: timerprobe RATE SECONDS */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: timerprobe RATE SECONDS\n");
        return 2;
    }
    double rate = atof(argv[1]), secs = atof(argv[2]);
    if (rate <= 0 || secs <= 0) {
        fprintf(stderr, "timerprobe: RATE and SECONDS must be positive\n");
        return 2;
    }
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN};
    if (tfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) < 0) {
        perror("timerprobe");
        return 1;
    }
    uint64_t start = now_ns() + 10000000u, end = start + (uint64_t)(secs * 1e9);
    for (uint64_t n = 0;; n++) {
        uint64_t due = start + (uint64_t)((double)n * 1e9 / rate);
        if (due >= end) break;
        struct itimerspec its;
        memset(&its, 0, sizeof(its));
        its.it_value.tv_sec = (time_t)(due / 1000000000u);
        its.it_value.tv_nsec = (long)(due % 1000000000u);
        timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
        uint64_t t = now_ns();
        if (t < due) {
            while (epoll_wait(ep, &ev, 1, -1) < 1) {
            }
            t = now_ns();
        }
        printf("%.6f\n", (double)(t - due) / 1e6);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("cpu_s %.6f\n", (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
    return 0;
}
