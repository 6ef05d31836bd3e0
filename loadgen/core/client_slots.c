/* A client's request slots: when requests start (a closed loop as many as
 * the connection carries, an open loop its due ones in order), what the send
 * path leaves for the loop to settle, and a request that timed out. See
 * client.c. */
#include "loadgen/core/client.h"
#include "loadgen/core/internal.h"
#include "loadgen/core/schedule.h"

#include <stdio.h>

/* Runs the driver's submit for a started request, so that a transport
 * queueing its bytes can tell which request they belong to. */
int lg_client_submit(struct lg_client *c, struct lg_req *r)
{
    r->flags |= LG_REQ_SENDING;
    c->sending = r;
    c->in_send++;
    int rc = c->w->drv->submit(c, r->slot);
    c->in_send--;
    c->sending = NULL;
    r->flags &= ~(uint32_t)LG_REQ_SENDING;
    return rc;
}

/* The driver's flush, and the transport's, are on the send path too. */
static int drv_flush(struct lg_client *c)
{
    c->in_send++;
    int rc = c->w->drv->flush(c);
    c->in_send--;
    return rc;
}

int lg_client_tp_flush(struct lg_client *c)
{
    c->in_send++;
    int rc = c->tp->flush(c);
    c->in_send--;
    return rc;
}

/* --- when requests start --------------------------------------------------- */

/* Starts a warm request on the ready connection. False when the client
 * cannot go on now (the deadline passed, or the connection failed). In an
 * open loop the request waits for the kernel to accept its bytes (after the
 * driver's write, or its flush at the end of the kick) for its send lag. */
static bool send_warm(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    bool open_loop = w->cfg->rate > 0;
    /* the closed loop's start is a sample's origin: a fresh read; the open
     * loop's origin is the schedule, and its start only decides the deadline */
    uint64_t now = open_loop ? lg_event_now(w) : lg_event_fresh(w);
    /* a closed loop stops at the deadline; an open loop's requests due before
     * it start until the drain begins, however late the generator woke */
    if (now >= w->deadline_ns && !open_loop) return false;
    uint64_t origin = open_loop ? lg_schedule_due(w, c, c->started + c->ramp_skipped) : now;
    struct lg_req *r = lg_req_start(c, origin, now, false);
    if (open_loop) {
        r->flags |= LG_REQ_UNSENT;
        c->n_unsent++;
    }
    if (lg_client_submit(c, r) < 0) {
        lg_conn_abort(c);
        return false;
    }
    return lg_conn_usable(c);
}

/* -n: whether the loop's share has room for another request of c: what is
 * left of it beyond one for each client that has not started yet. */
static bool quota_allows(const struct lg_client *c)
{
    const struct lg_worker *w = c->w;
    return !w->quota || c->attempts == 0 ||
           w->store.counters[LG_C_ATTEMPTS] + w->unstarted < w->quota;
}

/* Whether the client may start a request now (the loop below rechecks each
 * time: a send can fail the connection or pause the client). */
static bool may_start(const struct lg_client *c)
{
    const struct lg_worker *w = c->w;
    return !w->stopped && !w->draining && !c->abort_pending && !ev_is_active(&c->restart) &&
           (w->cfg->rate <= 0 || c->started < c->due) && quota_allows(c);
}

/* Closes the ready connection, idle now: what the driver still has to say
 * (its goodbye frame) goes out first. */
static void close_idle(struct lg_client *c)
{
    if (c->w->drv->flush && drv_flush(c) < 0) {
        lg_conn_abort(c);
    } else {
        lg_conn_close(c);
        lg_conn_closed_midlevel(c);
    }
}

/* Whether the driver's next request goes to another target than the
 * connection's (requests on several origins only: one indirect call). */
static inline bool origin_changes(struct lg_client *c)
{
    const struct lg_driver *drv = c->w->drv;
    return drv->next_target && drv->next_target(c) != c->tgt;
}

/* Starts what the client may start now: in a closed loop, as many requests
 * as the connection carries; in an open loop, its due requests in order. At
 * most the slots free on entry: a request that ends on the send path keeps
 * its slot until the loop settles it, so no client can hold its loop. */
static void start_requests(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (w->stopped || c->abort_pending) return;
    c->in_send++;
    if (c->state == LG_CONN_READY && c->close_when_idle && c->inflight == 0) close_idle(c);
    for (unsigned budget = c->n_free; budget > 0 && may_start(c); budget--) {
        if (c->state == LG_CONN_CLOSED) {
            if (c->inflight || lg_client_wait_turn(c)) break;
            lg_conn_open(c, w->cfg->rate > 0 ? lg_schedule_due(w, c, c->started + c->ramp_skipped)
                                             : 0);
            continue; /* a datagram socket is ready at once: its other slots follow */
        }
        if (!lg_conn_usable(c) || c->close_when_idle || !c->n_free || c->inflight >= c->capacity)
            break;
        if (origin_changes(c)) {
            /* the next request is for another origin: this connection ends
             * once what is in flight on it has, and the loop opens the next */
            lg_conn_close_when_idle(c);
            if (c->inflight) break;
            close_idle(c);
            budget++; /* closing took no slot: the next turn opens the connection */
            continue;
        }
        if (!send_warm(c)) break;
    }
    c->in_send--;
}

void lg_client_kick(struct lg_client *c)
{
    start_requests(c);
    /* what the driver gathered in this event goes out in one write */
    if (lg_conn_usable(c) && c->w->drv->flush && drv_flush(c) < 0) lg_conn_abort(c);
    /* a transport of its own events says when the kernel took the bytes */
    if (c->n_unsent && !c->outq_len && lg_conn_usable(c) && !c->tp->own_events) lg_req_accepted(c);
}

void lg_client_on_restart(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct lg_client *c = t->data;
    c->w->event_ns = 0;
    lg_client_settle(c);
    lg_client_kick(c);
    lg_worker_maybe_finish(c->w);
}

/* --- what the send path leaves for the loop ------------------------------ */

void lg_client_settle_later(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (c->settle_queued) return;
    c->settle_queued = true;
    c->settle_next = NULL;
    if (w->settle_tail)
        w->settle_tail->settle_next = c;
    else
        w->settle_head = c;
    w->settle_tail = c;
    lg_worker_want_settle(w);
}

/* From the loop, never from a send path: the requests that ended there are
 * counted (their slots free again), a connection that failed there is
 * aborted, input read ahead with a handshake is read. The next kick is the
 * caller's. */
void lg_client_settle(struct lg_client *c)
{
    if (c->in_send) return; /* cannot happen: settling is the loop's */
    lg_req_settle_ends(c);
    if (c->abort_pending) lg_conn_abort(c);
    if (c->read_pending) {
        c->read_pending = false;
        if (lg_conn_usable(c)) lg_client_read_ready(c);
    }
}

uint64_t lg_client_stop_counting_unsent(struct lg_client *c)
{
    ev_timer_stop(c->w->loop, &c->restart);
    uint64_t unsent = c->due - c->started;
    c->started = c->due;
    return unsent;
}

void lg_client_timeout(struct lg_req *r)
{
    struct lg_client *c = r->client;
    struct lg_worker *w = c->w;
    int cls = LG_ERR_TIMEOUT;
    const char *what = "no response";
    if (c->state == LG_CONN_SETUP) {
        const struct lg_stage *st = w->stages[c->stage];
        cls = st->timeout_class;
        what = st->timeout_detail;
        if (st->timeout_class_of) cls = st->timeout_class_of(c, &what);
    }
    if (!w->store.error_detail[cls]) {
        /* the first of its class only: the summary shows one reason */
        char detail[192];
        snprintf(detail, sizeof(detail), "%s within the --timeout of %g ms", what,
                 (double)w->cfg->timeout_ns / 1e6);
        lg_store_error(w, cls, detail);
    }
    if (c->state == LG_CONN_READY && w->drv->on_timeout && w->drv->on_timeout(c, r->slot) == 0) {
        if (r->flags & LG_REQ_ACTIVE) lg_req_finish(c, r, cls, false);
        lg_client_kick(c);
        return;
    }
    /* The connection's state is unknown after a timeout: close it. This
     * request timed out; what else was in flight on it is lost to the
     * timeout too, unless the driver recorded a cause of its own as it gave
     * up (a write that failed): the first recorded cause stands. */
    if (lg_req_active(c, r->slot)) lg_req_finish(c, r, cls, false);
    if (!c->fail_class) c->fail_class = cls;
    lg_conn_abort(c);
}
