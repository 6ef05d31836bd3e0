/* The open loop's schedule. See schedule.h.
 *
 * libev's epoll back end sleeps in whole milliseconds, which would send each
 * request up to a millisecond late and charge that to the target. A timerfd
 * set to an absolute CLOCK_MONOTONIC time wakes the loop at the timer's own
 * resolution instead; re-arming it also clears its readiness, so each wake-up
 * costs one timerfd_settime and no read. */
#include "loadgen/schedule.h"
#include "loadgen/internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

uint64_t lg_schedule_due(const struct lg_worker *w, const struct lg_client *c, uint64_t k)
{
    double n = (double)k * (double)w->level_clients + (double)c->id;
    return w->level_start_ns + (uint64_t)(n * w->sched.ns_per_request);
}

static void timer_set(struct lg_worker *w, uint64_t at_ns)
{
    struct itimerspec its;
    memset(&its, 0, sizeof(its));
    its.it_value.tv_sec = (time_t)(at_ns / LG_NS_PER_S);
    its.it_value.tv_nsec = (long)(at_ns % LG_NS_PER_S);
    /* Cannot fail for a valid descriptor and a valid time: both are ours. */
    timerfd_settime(w->sched.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Makes every request due by `until` (and before the deadline) due at its
 * client, in due order, and lets the client start it. */
static void dispatch(struct lg_worker *w, uint64_t until)
{
    struct lg_schedule *s = &w->sched;
    while (s->next_due_ns <= until && s->next_due_ns < w->deadline_ns && !w->stopped) {
        struct lg_client *c = &w->clients[s->cursor];
        c->due++;
        w->store.counters[LG_C_SCHEDULED]++;
        if (++s->cursor == w->n_clients) {
            s->cursor = 0;
            s->cycle++;
        }
        s->next_due_ns = lg_schedule_due(w, &w->clients[s->cursor], s->cycle);
        lg_client_kick(c);
    }
}

/* Stops the timer (a timerfd left expired would stay readable). */
static void disarm(struct lg_worker *w)
{
    if (ev_is_active(&w->sched.io)) {
        ev_io_stop(w->loop, &w->sched.io);
        timer_set(w, 0);
    }
}

/* Arms the timer for the next due request, or for the deadline once none is
 * due before it: the deadline, too, is kept at the timer's resolution. */
static void arm(struct lg_worker *w)
{
    struct lg_schedule *s = &w->sched;
    if (w->stopped || w->draining) {
        disarm(w);
        return;
    }
    timer_set(w, s->next_due_ns < w->deadline_ns ? s->next_due_ns : w->deadline_ns);
    if (!ev_is_active(&s->io)) ev_io_start(w->loop, &s->io);
}

static void on_timer(struct ev_loop *loop, ev_io *io, int revents)
{
    struct lg_worker *w = io->data;
    uint64_t now = lg_event_fresh(w);
    dispatch(w, now);
    if (now >= w->deadline_ns)
        lg_worker_deadline(w); /* drains, and stops this timer */
    else
        arm(w);
    lg_worker_maybe_finish(w);
}

int lg_schedule_init(struct lg_worker *w)
{
    struct lg_schedule *s = &w->sched;
    s->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (s->fd < 0) return -1;
    ev_io_init(&s->io, on_timer, s->fd, EV_READ);
    s->io.data = w;
    return 0;
}

void lg_schedule_free(struct lg_worker *w)
{
    if (w->sched.fd >= 0) close(w->sched.fd);
    w->sched.fd = -1;
}

void lg_schedule_begin(struct lg_worker *w)
{
    struct lg_schedule *s = &w->sched;
    s->ns_per_request = 1e9 / w->cfg->rate;
    s->cycle = 0;
    s->cursor = 0;
    if (w->n_clients == 0) {
        s->next_due_ns = UINT64_MAX;
        return;
    }
    s->next_due_ns = lg_schedule_due(w, &w->clients[0], 0);
    arm(w);
}

void lg_schedule_end(struct lg_worker *w)
{
    if (w->n_clients) dispatch(w, w->deadline_ns - 1);
    w->sched.next_due_ns = UINT64_MAX;
    disarm(w);
}
