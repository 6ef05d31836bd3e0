/* The timer floor burst. See timerfloor.h. It waits the way a loop does:
 * epoll on a timerfd armed at an absolute CLOCK_MONOTONIC moment, with the
 * process's own timer slack, so what it finds is what the schedule gets. */
#include "loadgen/preflight/timerfloor.h"
#include "loadgen/core/clock.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t lg_timer_quantile(const uint64_t *sorted, unsigned n, double q)
{
    if (n == 0) return 0;
    unsigned rank = (unsigned)ceil(q * n); /* nearest rank, 1-based */
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return sorted[rank - 1];
}

int lg_timer_floor_measure(struct lg_timer_floor *tf)
{
    memset(tf, 0, sizeof(*tf));
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN};
    if (tfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) < 0) {
        int err = errno;
        if (tfd >= 0) close(tfd);
        if (ep >= 0) close(ep);
        errno = err;
        return -1;
    }
    uint64_t late[LG_TIMER_WAKES];
    unsigned n = 0;
    uint64_t start = lg_now_ns();
    while (n < LG_TIMER_WAKES && lg_now_ns() - start < LG_TIMER_BUDGET_NS) {
        uint64_t due = lg_now_ns() + LG_TIMER_GAP_NS;
        struct itimerspec its;
        memset(&its, 0, sizeof(its));
        its.it_value.tv_sec = (time_t)(due / LG_NS_PER_S);
        its.it_value.tv_nsec = (long)(due % LG_NS_PER_S);
        if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0) break;
        /* bounded: the timer is armed, so the wait ends by itself */
        int rc = epoll_wait(ep, &ev, 1, 1000);
        uint64_t now = lg_now_ns();
        if (rc < 0 && errno == EINTR) continue;
        if (rc != 1) break;
        uint64_t expirations;
        ssize_t r = read(tfd, &expirations, sizeof(expirations));
        (void)r; /* only clears the expiration */
        late[n++] = now > due ? now - due : 0;
    }
    tf->took_ns = lg_now_ns() - start;
    close(tfd);
    close(ep);
    qsort(late, n, sizeof(late[0]), by_value);
    tf->wakes = n;
    tf->p50_ns = lg_timer_quantile(late, n, 0.50);
    tf->p99_ns = lg_timer_quantile(late, n, 0.99);
    tf->max_ns = n ? late[n - 1] : 0;
    return 0;
}
