/* The open loop's schedule. See schedule.h.
 *
 * libev's epoll back end sleeps in whole milliseconds, which would send each
 * request up to a millisecond late and charge that to the target. A timerfd
 * set to an absolute CLOCK_MONOTONIC time wakes the loop at the timer's own
 * resolution instead; re-arming it also clears its readiness, so each wake-up
 * costs one timerfd_settime and no read. */
#include "loadgen/core/schedule.h"
#include "loadgen/core/internal.h"

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
    lg_timerfd_at(w->sched.fd, at_ns);
}

/* Makes every request due by `until` (and before the deadline) due at its
 * client, in due order, and lets the client start it. With `catch_up`, also
 * those that fell due while this went on, by the clock the sends read, up to
 * a round of the worker's clients: waiting for the timer to say so would
 * cost them a turn of the loop, and the bound keeps a generator that cannot
 * keep up reading its responses. */
static void dispatch(struct lg_worker *w, uint64_t until, bool catch_up)
{
    struct lg_schedule *s = &w->sched;
    unsigned extra = catch_up ? w->n_clients : 0;
    while (s->next_due_ns < w->deadline_ns && !w->stopped) {
        if (s->next_due_ns > until) {
            if (!extra || s->next_due_ns > w->event_ns) break;
            extra--;
        }
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

/* Dispatches what is due by `now`, then re-arms the timer (which also
 * clears its expiry) or, past the deadline, begins the drain. */
static void run_due(struct lg_worker *w, uint64_t now)
{
    dispatch(w, now, true);
    if (w->tp_state && w->tp->worker_flush) w->tp->worker_flush(w);
    if (w->event_ns >= w->deadline_ns)
        lg_worker_deadline(w); /* drains, and stops this timer */
    else
        arm(w);
    lg_worker_maybe_finish(w);
}

/* The level's first moment, when the loop has woken ahead of it (halfway
 * through the lead, lg_schedule_begin): it stays awake until the moment
 * instead of sleeping again. Another wake-up from the timer would make the
 * first request 60 to 100 us late on this machine, and the connects of the
 * cohort's next requests queue behind it; the spin is at most the lead's
 * second half, once per level. */
#define FIRST_MOMENT_SPIN_MAX_NS (2 * LG_NS_PER_MS)

static uint64_t stay_awake_for_first_moment(struct lg_worker *w, uint64_t now)
{
    const struct lg_schedule *s = &w->sched;
    if (s->cycle != 0 || s->cursor != 0 || now >= s->next_due_ns ||
        s->next_due_ns - now > FIRST_MOMENT_SPIN_MAX_NS)
        return now;
    while ((now = lg_now_ns()) < s->next_due_ns && !w->stopped) {
    }
    w->event_ns = now;
    return now;
}

static void on_timer(struct ev_loop *loop, ev_io *io, int revents)
{
    struct lg_worker *w = io->data;
    run_due(w, stay_awake_for_first_moment(w, lg_event_fresh(w)));
}

/* The timer stays as it is: armed for the first of these requests, it wakes
 * the loop at once and is re-armed there, once. Re-arming it here would cost
 * a timerfd_settime per event whenever the loop runs behind (each a tenth of
 * the loop's time in a profile at 20,000/s), and the loop would fall further
 * behind. */
void lg_schedule_check(struct lg_worker *w)
{
    if (ev_is_active(&w->sched.io) && w->event_ns >= w->sched.next_due_ns)
        dispatch(w, w->event_ns, true);
}

int lg_schedule_init(struct lg_worker *w)
{
    struct lg_schedule *s = &w->sched;
    s->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (s->fd < 0) return -1;
    ev_io_init(&s->io, on_timer, s->fd, EV_READ);
    /* libev runs an iteration's callbacks newest first within a priority:
     * at the same priority, a due request would wait behind whatever else
     * came ready in the same iteration (responses, connects), so the
     * schedule's timer goes first */
    ev_set_priority(&s->io, EV_MAXPRI);
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
    /* The worker begins the level's lead ahead of its first request. A
     * thread that slept that long wakes later than one that slept a short
     * while (the first request would pay for it), so the loop first wakes
     * halfway and from there stays awake until the moment (on_timer). */
    uint64_t now = lg_now_ns();
    if (s->next_due_ns > now + LG_NS_PER_MS / 2) timer_set(w, now + (s->next_due_ns - now) / 2);
}

void lg_schedule_end(struct lg_worker *w)
{
    if (w->n_clients) dispatch(w, w->deadline_ns - 1, false);
    w->sched.next_due_ns = UINT64_MAX;
    disarm(w);
}
