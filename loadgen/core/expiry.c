/* Request timeouts at the timer's resolution. See expiry.h.
 *
 * libev's epoll back end sleeps in whole milliseconds, and arms its timers
 * from the loop's time of the iteration, read before the event that started
 * the request: an ev_timer ended requests up to a millisecond after their
 * --timeout (1.001 ms at the real-time priority, tests/integration/
 * t_faults.sh's link test), a re-arm for a deadline less than a millisecond
 * away costing the rest. A timerfd set to the absolute CLOCK_MONOTONIC
 * deadline wakes the loop at the timer's own resolution, as the open loop's
 * schedule does. It is armed only when disarmed: requests start in deadline
 * order, so an armed timer is never later than a new request's deadline.
 * When it fires for a request that has ended since, it is re-armed for the
 * oldest one still in flight: one timerfd_settime per wake-up (about one per
 * --timeout while requests keep completing), never one per request. */
#include "loadgen/core/expiry.h"
#include "loadgen/core/internal.h"

#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

/* Arms the timer for at_ns, or disarms it (0). */
static void timer_set(struct lg_worker *w, uint64_t at_ns)
{
    lg_timerfd_at(w->expiry.fd, at_ns);
    w->expiry.armed_ns = at_ns;
}

/* Ends every request whose deadline has passed, oldest first, by a fresh
 * clock read; then waits for the next deadline, or for nothing. Requests
 * that start in the meantime (the kick after each timeout) leave the timer
 * as it is: it is set once, here, at the end. */
static void on_expiry(struct ev_loop *loop, ev_io *io, int revents)
{
    (void)loop;
    (void)revents;
    struct lg_worker *w = io->data;
    w->event_ns = 0;
    uint64_t now = lg_event_now(w);
    struct lg_req *head = &w->inflight;
    while (head->next != head && head->next->deadline_ns <= now) {
        struct lg_req *r = head->next;
        struct lg_client *c = r->client;
        lg_client_timeout(r);
        lg_client_kick(c);
    }
    timer_set(w, head->next != head ? head->next->deadline_ns : 0);
    lg_worker_maybe_finish(w);
}

int lg_expiry_init(struct lg_worker *w)
{
    w->expiry.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (w->expiry.fd < 0) return -1;
    w->expiry.armed_ns = 0;
    ev_io_init(&w->expiry.io, on_expiry, w->expiry.fd, EV_READ);
    /* a request at its deadline ends before the iteration's other events
     * (libev runs higher priorities first), so none of them (a response a
     * moment too late) takes its place */
    ev_set_priority(&w->expiry.io, EV_MAXPRI);
    w->expiry.io.data = w;
    return 0;
}

void lg_expiry_free(struct lg_worker *w)
{
    if (w->expiry.fd >= 0) close(w->expiry.fd);
    w->expiry.fd = -1;
}

void lg_expiry_level_begin(struct lg_worker *w)
{
    ev_io_start(w->loop, &w->expiry.io);
}

void lg_expiry_level_end(struct lg_worker *w)
{
    ev_io_stop(w->loop, &w->expiry.io);
    if (w->expiry.armed_ns) timer_set(w, 0);
}

void lg_expiry_track(struct lg_worker *w, uint64_t deadline_ns)
{
    if (!w->expiry.armed_ns || deadline_ns < w->expiry.armed_ns) timer_set(w, deadline_ns);
}
