/* A logical client: one connection (or one UDP socket) for the whole level,
 * set up by the worker's stages in order, its request slots, and the closed-
 * or open-loop rule that decides when the next request starts. The client
 * alone owns the watchers: transports and stages only say what they wait for. */
#include "loadgen/core/internal.h"
#include "loadgen/watching/control.h"
#include "loadgen/core/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_read_event(struct ev_loop *loop, ev_io *io, int revents);
static void on_write_event(struct ev_loop *loop, ev_io *io, int revents);
static void on_restart(struct ev_loop *loop, ev_timer *t, int revents);
static void on_conn_timer(struct ev_loop *loop, ev_timer *t, int revents);
static void conn_abort(struct lg_client *c);

void lg_client_setup(struct lg_worker *w, struct lg_client *c, unsigned id, void *state_mem,
                     struct lg_req *slot_mem, uint32_t *free_mem)
{
    memset(c, 0, sizeof(*c));
    c->w = w;
    c->id = id;
    c->fd = -1;
    c->dstate = state_mem;
    c->slots = slot_mem;
    c->free_slots = free_mem;
    unsigned slots = w->cfg->slots;
    for (unsigned i = 0; i < slots; i++) {
        memset(&slot_mem[i], 0, sizeof(slot_mem[i]));
        slot_mem[i].client = c;
        slot_mem[i].slot = i;
        free_mem[i] = slots - 1 - i; /* slot 0 on top */
    }
    c->n_free = slots;
    c->tp = w->tp;
    ev_init(&c->rio, on_read_event);
    ev_init(&c->wio, on_write_event);
    ev_init(&c->restart, on_restart);
    ev_init(&c->conn_timer, on_conn_timer);
    c->rio.data = c->wio.data = c->restart.data = c->conn_timer.data = c;
}

/* --- watchers ------------------------------------------------------------- */

static void watch(struct lg_client *c, bool read, bool write)
{
    if (c->tp->own_events) return; /* it says when input came; its sends never wait */
    struct ev_loop *loop = c->w->loop;
    if (read && !ev_is_active(&c->rio))
        ev_io_start(loop, &c->rio);
    else if (!read && ev_is_active(&c->rio))
        ev_io_stop(loop, &c->rio);
    if (write && !ev_is_active(&c->wio))
        ev_io_start(loop, &c->wio);
    else if (!write && ev_is_active(&c->wio))
        ev_io_stop(loop, &c->wio);
}

/* What the transport said about output: queued output waits for writability
 * (write watcher on) or for the next read (TLS); 0, or -1 if it failed. */
int lg_conn_output_state(struct lg_client *c, int rc)
{
    if (rc == LG_IO_ERROR) return -1;
    c->write_waits_read = rc == LG_IO_WANT_READ;
    if (!c->read_waits_write) watch(c, true, rc == LG_IO_WANT_WRITE);
    return 0;
}

/* --- connection ---------------------------------------------------------- */

/* --max-handshakes: whether c must wait for its turn to open a connection
 * (it is queued then); a client whose turn came opens at once. */
static bool wait_turn(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (!w->open_limit || c->turn_waiting) return c->turn_waiting;
    if (w->n_opening < w->open_limit) return false;
    c->turn_waiting = true;
    c->turn_next = NULL;
    if (w->turn_tail)
        w->turn_tail->turn_next = c;
    else
        w->turn_head = c;
    w->turn_tail = c;
    return true;
}

/* A connection's setup ended (ready, failed or closed): the first client
 * waiting for its turn starts its attempt, from the loop (settle). */
static void opening_done(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (!c->opening) return;
    c->opening = false;
    w->n_opening--;
    struct lg_client *next = w->turn_head;
    if (!next) return;
    w->turn_head = next->turn_next;
    if (!w->turn_head) w->turn_tail = NULL;
    next->turn_waiting = false;
    lg_client_settle_later(next);
}

static void conn_close(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    opening_done(c);
    if (c->fd < 0) return;
    watch(c, false, false);
    ev_timer_stop(w->loop, &c->conn_timer);
    c->tp->close(c);
    if (c->state == LG_CONN_READY && w->drv->on_close) w->drv->on_close(c);
    close(c->fd);
    c->fd = -1;
    c->state = LG_CONN_CLOSED;
    c->outq_len = c->outq_off = 0;
    c->close_when_idle = false;
    c->read_waits_write = c->write_waits_read = false;
    c->alpn = NULL;
    c->alpn_len = 0;
    c->tls_resumed = false;
}

/* Runs the driver's submit for a started request, so that a transport
 * queueing its bytes can tell which request they belong to. */
static int submit(struct lg_client *c, struct lg_req *r)
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

static int tp_flush(struct lg_client *c)
{
    c->in_send++;
    int rc = c->tp->flush(c);
    c->in_send--;
    return rc;
}

/* The connection can carry requests: hand it to the driver and send the cold
 * request that has been waiting since the attempt started. */
static void read_ready(struct lg_client *c);

/* A connection neither closed nor failed on the send path. */
static bool usable(const struct lg_client *c)
{
    return c->state == LG_CONN_READY && !c->abort_pending;
}

/* The other slots (and the open loop's backlog) start from whoever called:
 * the event's kick, the start_requests loop that opened the connection, or
 * the worker's round after every client's begin. */
static void conn_ready(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    opening_done(c);
    c->state = LG_CONN_READY;
    c->established++;
    w->store.counters[LG_C_CONNECTIONS]++;
    if (c->established > 1) w->store.counters[LG_C_RECONNECTS]++;
    watch(c, true, false);
    if (w->drv->on_ready && w->drv->on_ready(c) < 0) {
        conn_abort(c);
        return;
    }
    for (unsigned i = 0; i < w->cfg->slots; i++) {
        struct lg_req *r = &c->slots[i];
        if ((r->flags & LG_REQ_ACTIVE) && (r->flags & LG_REQ_COLD)) {
            r->sent_ns = lg_event_fresh(w);
            if (submit(c, r) < 0) {
                conn_abort(c);
                return;
            }
        }
    }
    /* what the server sent with the end of the handshake was read with it,
     * and epoll will not report it again; on the send path it waits for the
     * loop like everything else that could end a request */
    if (usable(c) && c->tp->more(c, 0, 1)) {
        if (c->in_send) {
            c->read_pending = true;
            lg_client_settle_later(c);
        } else {
            read_ready(c);
        }
    }
}

/* Runs setup stages from the current one on: each that completes records its
 * phase (fresh clock reads at both ends) and starts the next. */
static void setup_continue(struct lg_client *c, enum lg_step st)
{
    struct lg_worker *w = c->w;
    for (;;) {
        switch (st) {
        case LG_STEP_WANT_READ:
            watch(c, true, false);
            return;
        case LG_STEP_WANT_WRITE:
            watch(c, false, true);
            return;
        case LG_STEP_FAILED:
            conn_abort(c);
            return;
        case LG_STEP_DONE:
            break;
        }
        const struct lg_stage *done = w->stages[c->stage];
        uint64_t now = lg_event_fresh(w);
        lg_series_add(&w->store.series[done->phase_series], now - c->phase_ns, &w->rng);
        if (++c->stage == w->n_stages) {
            conn_ready(c);
            return;
        }
        c->phase_ns = lg_event_fresh(w);
        st = w->stages[c->stage]->start(c);
    }
}

/* Opens a connection for a cold request whose latency starts at `origin`
 * (0: now). Nothing starts once the level's deadline has passed. */
static void conn_open(struct lg_client *c, uint64_t origin)
{
    struct lg_worker *w = c->w;
    uint64_t now = lg_event_fresh(w);
    if (now >= w->deadline_ns && w->cfg->rate <= 0) return;
    c->conn_attempts++;
    w->store.counters[LG_C_CONNECT_ATTEMPTS]++;
    c->conn_start_ns = now;
    c->conn_requests = 0;
    c->close_when_idle = false; /* a connection that failed to open left it as it was */
    c->conn_succeeded = false;
    c->fail_class = 0;
    c->capacity = w->cfg->slots;
    if (w->open_limit) {
        c->opening = true;
        w->n_opening++;
    }
    struct lg_req *r = lg_req_start(c, origin ? origin : now, now, true);
    lg_req_record_send_lag(w, r); /* a cold request is acted on when its connection starts */
    if (c->fd < 0 && c->tp->open(c) < 0) { /* the open loop's socket is made ahead */
        conn_abort(c);
        return;
    }
    ev_io_set(&c->rio, c->fd, EV_READ);
    ev_io_set(&c->wio, c->fd, EV_WRITE);
    c->stage = 0;
    if (w->n_stages == 0) { /* a UDP socket is ready once open */
        conn_ready(c);
        return;
    }
    c->state = LG_CONN_SETUP;
    c->phase_ns = lg_event_fresh(w);
    setup_continue(c, w->stages[0]->start(c));
}

/* Open loop: the next connection's socket is made now, ahead of the moment
 * its cold request falls due (the cohort's before the level starts, a
 * reconnect's as the last connection closes): socket() is not part of the
 * attempt, connect() is. A failure is left for that moment, when opening
 * fails again and is counted. */
void lg_client_prepare(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (w->cfg->rate <= 0 || c->fd >= 0 || c->state != LG_CONN_CLOSED) return;
    if (c->tp->open(c) < 0 && c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
    c->fail_class = 0;
}

/* A connection closed while the level goes on: the open loop prepares the
 * next one's socket. */
static void conn_closed_midlevel(struct lg_client *c)
{
    if (!c->w->draining && !c->w->stopped) lg_client_prepare(c);
}

/* --retry-delay counts from the failure, now: libev counts a timer from the
 * loop's time, read when the iteration began, and an iteration the machine
 * held up for 32 ms (a busy host) made the pause 68 ms of 100. */
static void retry_clock(struct lg_worker *w)
{
    ev_now_update(w->loop);
}

/* Every request in flight on the connection gets the failure's class; the
 * connection closes; the next request (if any) reconnects on a later loop
 * iteration, so a refused connection cannot recurse. In a closed loop, a
 * connection on which nothing succeeded waits --retry-delay first, so a
 * target that refuses every connection is not hammered at the generator's
 * full speed; the open loop keeps its schedule. A failure found on the send
 * path is only recorded there, and aborted from the loop (settle). */
static void conn_abort(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (c->in_send) {
        c->abort_pending = true;
        lg_client_settle_later(c);
        return;
    }
    c->abort_pending = false;
    lg_req_settle_ends(c); /* what ended before the failure keeps its own class */
    int cls = c->fail_class ? c->fail_class : LG_ERR_RESET;
    for (unsigned i = 0; i < w->cfg->slots && c->inflight; i++)
        if (c->slots[i].flags & LG_REQ_ACTIVE) lg_req_finish(c, &c->slots[i], cls, false);
    conn_close(c);
    c->fail_class = 0;
    conn_closed_midlevel(c);
    if (!w->draining && !w->stopped) {
        double delay = 0.;
        if (w->cfg->rate <= 0 && !c->conn_succeeded) {
            delay = (double)w->cfg->retry_delay_ns / 1e9;
            retry_clock(w);
        }
        ev_timer_stop(w->loop, &c->restart);
        ev_timer_set(&c->restart, delay, 0.);
        ev_timer_start(w->loop, &c->restart);
    }
    lg_worker_maybe_finish(w);
}

/* Closed loop: a peer that refused (an ICMP error on a datagram socket)
 * gets --retry-delay before the client's next request, as a refused TCP
 * connect does; the open loop keeps its schedule. */
void lg_client_peer_refused(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (w->cfg->rate > 0 || w->draining || w->stopped || ev_is_active(&c->restart)) return;
    retry_clock(w);
    ev_timer_set(&c->restart, (double)w->cfg->retry_delay_ns / 1e9, 0.);
    ev_timer_start(w->loop, &c->restart);
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
    uint64_t origin = open_loop ? lg_schedule_due(w, c, c->started) : now;
    struct lg_req *r = lg_req_start(c, origin, now, false);
    if (open_loop) {
        r->flags |= LG_REQ_UNSENT;
        c->n_unsent++;
    }
    if (submit(c, r) < 0) {
        conn_abort(c);
        return false;
    }
    return usable(c);
}

/* Whether the client may start a request now (the loop below rechecks each
 * time: a send can fail the connection or pause the client). */
static bool may_start(const struct lg_client *c)
{
    const struct lg_worker *w = c->w;
    return !w->stopped && !w->draining && !c->abort_pending && !ev_is_active(&c->restart) &&
           (w->cfg->rate <= 0 || c->started < c->due);
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
    if (c->state == LG_CONN_READY && c->close_when_idle && c->inflight == 0) {
        /* what the driver still has to say (its goodbye frame) goes out first */
        if (w->drv->flush && drv_flush(c) < 0) {
            conn_abort(c);
        } else {
            conn_close(c);
            conn_closed_midlevel(c);
        }
    }
    for (unsigned budget = c->n_free; budget > 0 && may_start(c); budget--) {
        if (c->state == LG_CONN_CLOSED) {
            if (c->inflight || wait_turn(c)) break;
            conn_open(c, w->cfg->rate > 0 ? lg_schedule_due(w, c, c->started) : 0);
            continue; /* a datagram socket is ready at once: its other slots follow */
        }
        if (!usable(c) || c->close_when_idle || !c->n_free || c->inflight >= c->capacity) break;
        if (!send_warm(c)) break;
    }
    c->in_send--;
}

void lg_client_kick(struct lg_client *c)
{
    start_requests(c);
    /* what the driver gathered in this event goes out in one write */
    if (usable(c) && c->w->drv->flush && drv_flush(c) < 0) conn_abort(c);
    /* a transport of its own events says when the kernel took the bytes */
    if (c->n_unsent && !c->outq_len && usable(c) && !c->tp->own_events) lg_req_accepted(c);
}

static void on_restart(struct ev_loop *loop, ev_timer *t, int revents)
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
    if (c->abort_pending) conn_abort(c);
    if (c->read_pending) {
        c->read_pending = false;
        if (usable(c)) read_ready(c);
    }
}

void lg_conn_timer_at(struct lg_client *c, uint64_t at_ns)
{
    struct ev_loop *loop = c->w->loop;
    uint64_t now = lg_event_now(c->w); /* deciding, not sampling: the event's read will do */
    ev_timer_stop(loop, &c->conn_timer);
    ev_timer_set(&c->conn_timer, at_ns > now ? (double)(at_ns - now) / 1e9 : 0., 0.);
    ev_timer_start(loop, &c->conn_timer);
}

void lg_conn_timer_stop(struct lg_client *c)
{
    ev_timer_stop(c->w->loop, &c->conn_timer);
}

uint64_t lg_client_stop_counting_unsent(struct lg_client *c)
{
    ev_timer_stop(c->w->loop, &c->restart);
    uint64_t unsent = c->due - c->started;
    c->started = c->due;
    return unsent;
}

/* The client's first attempt, and nothing more: the worker kicks every
 * client once all have begun, so each makes its first attempt before any
 * makes its second. The open loop's requests start from the schedule. */
void lg_client_begin(struct lg_client *c)
{
    if (c->w->cfg->rate > 0 || wait_turn(c)) return;
    c->in_send++;
    conn_open(c, 0);
    c->in_send--;
}

void lg_client_teardown(struct lg_client *c)
{
    ev_timer_stop(c->w->loop, &c->restart);
    conn_close(c);
    if (c->w->drv->client_free) c->w->drv->client_free(c);
    if (c->tls_session) lg_tls_session_free(c->tls_session);
    c->tls_session = NULL;
    free(c->outq);
    c->outq = NULL;
}

void lg_client_abandon(struct lg_client *c)
{
    lg_client_settle(c); /* what ended or failed before the level did counts as such */
    for (unsigned i = 0; i < c->w->cfg->slots && c->inflight; i++)
        if (c->slots[i].flags & LG_REQ_ACTIVE) lg_req_finish(c, &c->slots[i], 0, true);
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
    conn_abort(c);
}

/* --- events -------------------------------------------------------------- */

static void peer_closed(struct lg_client *c)
{
    if (c->w->drv->on_read(c, NULL, 0) < 0) {
        conn_abort(c);
    } else if (c->inflight) {
        c->fail_class = LG_ERR_EOF;
        if (!c->w->store.error_detail[LG_ERR_EOF]) {
            char detail[96];
            snprintf(detail, sizeof(detail),
                     "the server closed the connection with %u %s in flight", c->inflight,
                     c->inflight == 1 ? "request" : "requests");
            lg_store_error(c->w, LG_ERR_EOF, detail);
        }
        conn_abort(c);
    } else {
        /* an idle keep-alive connection the server closed: no error, the
         * next request reconnects and is cold */
        conn_close(c);
        conn_closed_midlevel(c);
    }
}

static void read_ready(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    for (;;) {
        ssize_t n = c->tp->read(c, w->rbuf, w->rbuf_len);
        w->event_ns = 0; /* what this read completes, it completes now */
        if (n >= 0) {
            w->store.counters[LG_C_BYTES_RECEIVED] += (uint64_t)n;
            if (w->drv->on_read(c, w->rbuf, (size_t)n) < 0) {
                conn_abort(c);
                return;
            }
            if (c->state != LG_CONN_READY) return;
            /* more would only return EAGAIN when the read drained the socket:
             * epoll is level-triggered and reports anything left */
            if (!c->tp->more(c, (size_t)n, w->rbuf_len)) break;
            continue;
        }
        if (n == LG_IO_AGAIN) break;
        if (n == LG_IO_WANT_WRITE) {
            /* stop reading (a level-triggered read watcher would spin) until
             * the socket is writable again */
            c->read_waits_write = true;
            watch(c, false, true);
            return;
        }
        if (n == LG_IO_EOF)
            peer_closed(c);
        else
            conn_abort(c);
        return;
    }
    if (c->write_waits_read && lg_conn_output_state(c, tp_flush(c)) < 0) conn_abort(c);
}

/* Whether the client's send path left work for the loop. */
static inline bool settle_due(const struct lg_client *c)
{
    return c->ends_pending | c->abort_pending | c->read_pending;
}

/* libev could not watch the socket (epoll_ctl failed: the kernel's memory,
 * or its limit of watches, ran out) and has stopped its watchers: no fault
 * of the target, and the level cannot be carried out as asked. */
static bool unwatchable(struct lg_client *c, int revents)
{
    if (!(revents & EV_ERROR)) return false;
    lg_fail_run(c, "the event loop cannot watch a socket (epoll_ctl failed)");
    return true;
}

static void client_readable(struct lg_client *c)
{
    c->w->event_ns = 0;
    if (settle_due(c)) lg_client_settle(c); /* what its send path left comes first */
    if (c->state == LG_CONN_SETUP)
        setup_continue(c, c->w->stages[c->stage]->step(c));
    else if (c->state == LG_CONN_READY)
        read_ready(c);
    lg_client_kick(c);
    if (c->w->cfg->rate > 0) lg_schedule_check(c->w);
    lg_worker_maybe_finish(c->w);
}

static void on_read_event(struct ev_loop *loop, ev_io *io, int revents)
{
    struct lg_client *c = io->data;
    if (unwatchable(c, revents)) return;
    client_readable(c);
}

void lg_conn_input_ready(struct lg_client *c)
{
    if (c->state != LG_CONN_CLOSED) client_readable(c);
}

static void on_write_event(struct ev_loop *loop, ev_io *io, int revents)
{
    struct lg_client *c = io->data;
    if (unwatchable(c, revents)) return;
    struct lg_worker *w = c->w;
    w->event_ns = 0;
    if (settle_due(c)) lg_client_settle(c);
    if (c->state == LG_CONN_SETUP) {
        setup_continue(c, w->stages[c->stage]->step(c));
    } else if (c->state == LG_CONN_READY) {
        bool resume_read = c->read_waits_write, flushed = false;
        c->read_waits_write = false;
        int rc = c->write_waits_read ? LG_IO_WANT_READ : LG_IO_DONE;
        if (c->outq_len && !c->write_waits_read) {
            rc = tp_flush(c);
            flushed = true;
        }
        if (lg_conn_output_state(c, rc) < 0) {
            conn_abort(c);
        } else {
            if (resume_read) read_ready(c);
            if (flushed && rc == LG_IO_DONE && usable(c) && w->drv->on_writable) {
                c->in_send++;
                int wrc = w->drv->on_writable(c);
                c->in_send--;
                if (wrc < 0) conn_abort(c);
            }
        }
    }
    lg_client_kick(c);
    if (w->cfg->rate > 0) lg_schedule_check(w);
    lg_worker_maybe_finish(w);
}

/* The transport's timer came: during setup the stage goes on waiting for
 * the socket; on a ready connection what it sent is followed by what the
 * driver has to send. */
static void on_conn_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct lg_client *c = t->data;
    struct lg_worker *w = c->w;
    w->event_ns = 0;
    if (settle_due(c)) lg_client_settle(c); /* what its send path left comes first */
    if (c->state != LG_CONN_CLOSED) {
        if (c->tp->on_timer(c) < 0)
            conn_abort(c);
        else if (c->state == LG_CONN_READY)
            lg_client_kick(c);
    }
    lg_worker_maybe_finish(w);
}

/* --- the driver's calls --------------------------------------------------- */

void *lg_client_state(struct lg_client *c)
{
    return c->dstate;
}

void *lg_client_ctx(struct lg_client *c)
{
    return c->w->driver_ctx;
}

unsigned lg_client_id(const struct lg_client *c)
{
    return c->id;
}

unsigned lg_client_slots(const struct lg_client *c)
{
    return c->w->cfg->slots;
}

const uint8_t *lg_client_alpn(const struct lg_client *c, size_t *len)
{
    *len = c->alpn_len;
    return c->alpn;
}

bool lg_client_alpn_is(const struct lg_client *c, const char *proto)
{
    size_t n = strlen(proto);
    return c->alpn && c->alpn_len == n && memcmp(c->alpn, proto, n) == 0;
}

int lg_conn_write(struct lg_client *c, const void *data, size_t len)
{
    return lg_conn_output_state(c, c->tp->send(c, data, len));
}

bool lg_conn_write_blocked(const struct lg_client *c)
{
    return c->outq_len > 0;
}

void lg_conn_set_capacity(struct lg_client *c, unsigned n)
{
    c->capacity = n ? (n < c->w->cfg->slots ? n : c->w->cfg->slots) : 1;
}

void lg_conn_peer_limit(struct lg_client *c, unsigned n)
{
    struct lg_store *st = &c->w->store;
    if (n < c->w->cfg->slots && (!st->peer_limited || n < st->peer_limit)) {
        st->peer_limited = true;
        st->peer_limit = n;
    }
    lg_conn_set_capacity(c, n);
}

void lg_conn_close_when_idle(struct lg_client *c)
{
    c->close_when_idle = true;
}

bool lg_conn_closing_when_idle(const struct lg_client *c)
{
    return c->close_when_idle;
}

/* The first recorded cause stands: a failure that follows from it (a flush
 * that fails after a reset) does not rename it. */
void lg_conn_fail(struct lg_client *c, int error_class, const char *detail)
{
    int cls = lg_checked_class(c->w, error_class);
    if (!c->fail_class) c->fail_class = cls;
    if (detail) lg_store_error(c->w, cls, detail);
}

void lg_fail_run(struct lg_client *c, const char *why)
{
    lg_control_fail(c->w->run, why);
}
