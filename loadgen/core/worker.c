/* One worker thread running one level: its event loop, its clients, the
 * timers that end the level (deadline, drain window), the list of requests
 * in flight in start order (expiry.c ends them at their deadlines), and the
 * once-a-second tick. */
#include "loadgen/core/internal.h"
#include "loadgen/core/expiry.h"
#include "loadgen/watching/control.h"
#include "loadgen/watching/firstsec.h"
#include "loadgen/core/schedule.h"
#include "loadgen/watching/selfwatch.h"
#include "loadgen/watching/wakewatch.h"
#include "loadgen/transport/tlsmem.h"

#include <signal.h>
#include <string.h>

void lg_worker_track(struct lg_worker *w, struct lg_req *r)
{
    struct lg_req *head = &w->inflight;
    r->prev = head->prev;
    r->next = head;
    head->prev->next = r;
    head->prev = r;
    w->n_inflight++;
    lg_expiry_track(w, r->deadline_ns);
}

void lg_worker_untrack(struct lg_worker *w, struct lg_req *r)
{
    r->prev->next = r->next;
    r->next->prev = r->prev;
    r->prev = r->next = NULL;
    w->n_inflight--;
}

void lg_worker_maybe_finish(struct lg_worker *w)
{
    if ((w->draining && w->n_inflight == 0) || w->stopped) ev_break(w->loop, EVBREAK_ONE);
}

/* No request starts from here on. In an open loop the requests due before
 * the deadline are made due first; those that never got a slot are unsent. */
static void begin_drain(struct lg_worker *w)
{
    if (w->draining) return;
    if (w->cfg->rate > 0) lg_schedule_end(w);
    w->draining = true;
    for (unsigned i = 0; i < w->n_clients; i++)
        w->store.counters[LG_C_UNSENT] += lg_client_stop_counting_unsent(&w->clients[i]);
}

static void end_drain(struct lg_worker *w)
{
    begin_drain(w);
    for (unsigned i = 0; i < w->n_clients; i++)
        lg_client_abandon(&w->clients[i]);
    ev_break(w->loop, EVBREAK_ONE);
}

void lg_worker_deadline(struct lg_worker *w)
{
    if (w->draining) return;
    begin_drain(w);
    if (w->n_inflight == 0) {
        ev_break(w->loop, EVBREAK_ONE);
        return;
    }
    /* the same timer now ends the drain window */
    ev_timer_stop(w->loop, &w->deadline_timer);
    ev_timer_set(&w->deadline_timer, (double)w->cfg->timeout_ns / 1e9, 0.);
    ev_timer_start(w->loop, &w->deadline_timer);
}

void lg_worker_quota_reached(struct lg_worker *w)
{
    /* what is in flight ends by its own timeout: no drain window is needed */
    w->quota_reached = true;
    ev_timer_stop(w->loop, &w->deadline_timer);
    begin_drain(w);
    lg_worker_maybe_finish(w);
}

/* The deadline: no request starts after it; the drain window then gives what
 * is in flight up to --timeout to finish. (In an open loop the schedule's
 * timer usually gets there first: libev's timers fire up to 1 ms late.) */
static void on_deadline(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct lg_worker *w = t->data;
    w->event_ns = 0;
    if (w->draining)
        end_drain(w);
    else
        lg_worker_deadline(w);
}

static void on_tick(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct lg_worker *w = t->data;
    atomic_store_explicit(&w->progress_requests, w->store.counters[LG_C_REQUESTS],
                          memory_order_relaxed);
    atomic_store_explicit(&w->progress_errors, w->store.counters[LG_C_ERRORS],
                          memory_order_relaxed);
}

/* The tick's timer: measures how late it fired (loop lag), re-arms itself
 * for the next whole second of the level, then does the tick's work. */
static void on_tick_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct lg_worker *w = t->data;
    ev_now_update(loop); /* the next delay counts from now, not from the loop's cached time */
    ev_timer_set(t, lg_selfwatch_tick(w, lg_now_ns()), 0.);
    ev_timer_start(loop, t);
    on_tick(loop, t, revents);
    lg_firstsec_publish(w, true); /* the first tick's alone */
}

static void on_wakeup(struct ev_loop *loop, ev_async *a, int revents)
{
    struct lg_worker *w = a->data;
    w->event_ns = 0;
    w->stopped = true;
    end_drain(w);
}

/* Settles every client queued when it began (what the send path left), in
 * queue order; clients that queue while it runs wait for the next round. */
static void settle_queued(struct lg_worker *w)
{
    struct lg_client *c = w->settle_head, *last = w->settle_tail;
    w->settle_head = w->settle_tail = NULL;
    w->event_ns = 0;
    while (c) {
        struct lg_client *next = c == last ? NULL : c->settle_next;
        c->settle_queued = false;
        lg_client_settle(c);
        lg_client_kick(c);
        c = next;
    }
    if (!w->settle_head) {
        ev_check_stop(w->loop, &w->settle_check);
        ev_idle_stop(w->loop, &w->settle_idle);
    }
    lg_worker_maybe_finish(w);
}

static void on_settle_check(struct ev_loop *loop, ev_check *ck, int revents)
{
    settle_queued(ck->data);
}

/* Only keeps the loop from sleeping while clients wait: the check watcher
 * settles them, once per iteration, after the iteration's other callbacks. */
static void on_settle_idle(struct ev_loop *loop, ev_idle *id, int revents) {}

void lg_worker_want_settle(struct lg_worker *w)
{
    if (!ev_is_active(&w->settle_check)) ev_check_start(w->loop, &w->settle_check);
    if (!ev_is_active(&w->settle_idle)) ev_idle_start(w->loop, &w->settle_idle);
}

void lg_worker_init_async(struct lg_worker *w)
{
    ev_check_init(&w->settle_check, on_settle_check);
    ev_idle_init(&w->settle_idle, on_settle_idle);
    w->settle_check.data = w->settle_idle.data = w;
    ev_async_init(&w->wakeup, on_wakeup);
    w->wakeup.data = w;
    ev_async_start(w->loop, &w->wakeup);
    /* the wakeup watcher must not keep ev_run alive by itself */
    ev_unref(w->loop);
}

void lg_worker_run_level(struct lg_worker *w)
{
    struct ev_loop *loop = w->loop;
    w->inflight.next = w->inflight.prev = &w->inflight;
    w->n_inflight = 0;
    w->settle_head = w->settle_tail = NULL;
    /* --max-handshakes binds the closed loop; the open loop's schedule
     * spreads its connections by itself */
    w->open_limit = w->cfg->rate <= 0 && w->tgt->tls ? w->tgt->tls->max_handshakes : 0;
    w->n_opening = 0;
    w->turn_head = w->turn_tail = NULL;
    w->sec_end_ns = w->level_start_ns + LG_NS_PER_S;
    w->sec_index = 0;

    ev_timer_init(&w->deadline_timer, on_deadline, 0., 0.);
    w->deadline_timer.data = w;
    ev_timer_init(&w->tick_timer, on_tick_timer, 1., 0.);
    w->tick_timer.data = w;

    lg_tlsmem_thread_begin();
    ev_now_update(loop);
    w->event_ns = 0;
    uint64_t now = lg_now_ns();
    double until_deadline = w->deadline_ns > now ? (double)(w->deadline_ns - now) / 1e9 : 0.;
    ev_timer_set(&w->deadline_timer, until_deadline, 0.);
    ev_timer_start(loop, &w->deadline_timer);
    ev_timer_start(loop, &w->tick_timer);
    lg_expiry_level_begin(w);
    lg_selfwatch_worker_begin(w, now);
    lg_wakewatch_loop_start(w);

    if (!w->stopped) {
        unsigned begun = 0;
        for (; begun < w->n_clients; begun++) {
            /* tens of thousands of connects take a while: a signal or a
             * failure must not wait for all of them */
            if ((begun & 255) == 255 &&
                (lg_control_interrupted(w->run) || lg_control_failure(w->run)))
                break;
            w->event_ns = 0;
            lg_client_begin(&w->clients[begun]);
        }
        /* every client has made its first attempt: what their sends left is
         * settled, and those whose connection is ready at once (a datagram
         * socket) start the rest of their slots; the others start theirs
         * when their setup completes */
        if (w->cfg->rate > 0) {
            lg_schedule_begin(w);
        } else {
            settle_queued(w);
            for (unsigned i = 0; i < begun; i++)
                if (w->clients[i].state == LG_CONN_READY) lg_client_kick(&w->clients[i]);
        }
        ev_run(loop, 0);
    }
    /* a loop that was not stopped ran to its deadline, whatever the clock
     * says now: libev may fire the deadline's timer a little before it; one
     * that -n ended ran until its last request ended */
    w->loop_end_ns = w->stopped || w->quota_reached ? lg_now_ns() : w->deadline_ns;

    lg_wakewatch_loop_stop(w);
    ev_timer_stop(loop, &w->deadline_timer);
    ev_timer_stop(loop, &w->tick_timer);
    lg_expiry_level_end(w);
    w->event_ns = 0;
    end_drain(w);                  /* anything still in flight (interrupted) is unfinished */
    lg_firstsec_publish(w, false); /* a level shorter than a second: all of it */
    ev_check_stop(loop, &w->settle_check);
    ev_idle_stop(loop, &w->settle_idle);
    w->settle_head = w->settle_tail = NULL;
    on_tick(loop, &w->tick_timer, 0);
    lg_selfwatch_worker_end(w); /* before teardown closes the sockets */
    /* the level is over: a connection closed now hands no turn on */
    w->turn_head = w->turn_tail = NULL;
    for (unsigned i = 0; i < w->n_clients; i++)
        lg_client_teardown(&w->clients[i]);
    if (w->tp->worker_end) w->tp->worker_end(w);
    lg_tlsmem_thread_end();
}
