/* A logical client: one connection (or one UDP socket) for the whole level,
 * set up by the worker's stages in order, its request slots, and the closed-
 * or open-loop rule that decides when the next request starts. The client
 * alone owns the watchers: transports and stages only say what they wait for. */
#include "loadgen/internal.h"
#include "loadgen/control.h"
#include "loadgen/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_read_event(struct ev_loop *loop, ev_io *io, int revents);
static void on_write_event(struct ev_loop *loop, ev_io *io, int revents);
static void on_restart(struct ev_loop *loop, ev_timer *t, int revents);
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
    c->rio.data = c->wio.data = c->restart.data = c;
}

/* --- watchers ------------------------------------------------------------- */

static void watch(struct lg_client *c, bool read, bool write)
{
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
static int output_state(struct lg_client *c, int rc)
{
    if (rc == LG_IO_ERROR) return -1;
    c->write_waits_read = rc == LG_IO_WANT_READ;
    if (!c->read_waits_write) watch(c, true, rc == LG_IO_WANT_WRITE);
    return 0;
}

/* --- connection ---------------------------------------------------------- */

static void conn_close(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (c->fd < 0) return;
    watch(c, false, false);
    c->tp->close(c);
    if (c->state == LG_CONN_READY && w->drv->on_close) w->drv->on_close(c);
    close(c->fd);
    c->fd = -1;
    c->state = LG_CONN_CLOSED;
    c->outq_len = c->outq_off = 0;
    c->close_when_idle = false;
    c->read_waits_write = c->write_waits_read = false;
    c->alpn = NULL;
    c->tls_resumed = false;
}

/* Runs the driver's submit for a started request, so that a transport
 * queueing its bytes can tell which request they belong to. */
static int submit(struct lg_client *c, struct lg_req *r)
{
    r->flags |= LG_REQ_SENDING;
    c->sending = r;
    int rc = c->w->drv->submit(c, r->slot);
    c->sending = NULL;
    r->flags &= ~(uint32_t)LG_REQ_SENDING;
    return rc;
}

/* The connection can carry requests: hand it to the driver and send the cold
 * request that has been waiting since the attempt started. */
static void read_ready(struct lg_client *c);

static void conn_ready(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    c->state = LG_CONN_READY;
    watch(c, true, false);
    if (w->drv->on_ready && w->drv->on_ready(c) < 0) {
        conn_abort(c);
        return;
    }
    for (unsigned i = 0; i < w->cfg->slots; i++) {
        struct lg_req *r = &c->slots[i];
        if ((r->flags & LG_REQ_ACTIVE) && (r->flags & LG_REQ_COLD)) {
            r->sent_ns = lg_now_ns();
            if (submit(c, r) < 0) {
                conn_abort(c);
                return;
            }
        }
    }
    lg_client_kick(c); /* the other slots, or the open loop's backlog */
    /* what the server sent with the end of the handshake was read with it,
     * and epoll will not report it again */
    if (c->state == LG_CONN_READY && c->tp->more(c, 0, 1)) {
        read_ready(c);
        lg_client_kick(c);
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
        uint64_t now = lg_now_ns();
        lg_series_add(&w->store.series[done->phase_series], now - c->phase_ns, &w->rng);
        if (done == &lg_stage_connect) w->store.counters[LG_C_CONNECTIONS]++;
        if (++c->stage == w->n_stages) {
            conn_ready(c);
            return;
        }
        c->phase_ns = lg_now_ns();
        st = w->stages[c->stage]->start(c);
    }
}

/* Opens a connection for a cold request whose latency starts at `origin`
 * (0: now). Nothing starts once the level's deadline has passed. */
static void conn_open(struct lg_client *c, uint64_t origin)
{
    struct lg_worker *w = c->w;
    uint64_t now = lg_now_ns();
    if (now >= w->deadline_ns && w->cfg->rate <= 0) return;
    if (c->connections++ > 0) w->store.counters[LG_C_RECONNECTS]++;
    c->conn_start_ns = now;
    c->conn_requests = 0;
    c->close_when_idle = false; /* a connection that failed to open left it as it was */
    c->conn_succeeded = false;
    c->fail_class = 0;
    c->capacity = w->cfg->slots;
    struct lg_req *r = lg_req_start(c, origin ? origin : now, now, true);
    lg_req_record_send_lag(w, r); /* a cold request is acted on when its connection starts */
    if (c->tp->open(c) < 0) {
        conn_abort(c);
        return;
    }
    ev_io_set(&c->rio, c->fd, EV_READ);
    ev_io_set(&c->wio, c->fd, EV_WRITE);
    c->stage = 0;
    if (w->n_stages == 0) { /* a UDP socket is ready once open */
        w->store.counters[LG_C_CONNECTIONS]++;
        conn_ready(c);
        return;
    }
    c->state = LG_CONN_SETUP;
    c->phase_ns = lg_now_ns();
    setup_continue(c, w->stages[0]->start(c));
}

/* Every request in flight on the connection gets the failure's class; the
 * connection closes; the next request (if any) reconnects on a later loop
 * iteration, so a refused connection cannot recurse. In a closed loop, a
 * connection on which nothing succeeded waits --retry-delay first, so a
 * target that refuses every connection is not hammered at the generator's
 * full speed; the open loop keeps its schedule. */
static void conn_abort(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    int cls = c->fail_class ? c->fail_class : LG_ERR_RESET;
    for (unsigned i = 0; i < w->cfg->slots && c->inflight; i++)
        if (c->slots[i].flags & LG_REQ_ACTIVE) lg_req_finish(c, &c->slots[i], cls, false);
    conn_close(c);
    c->fail_class = 0;
    if (!w->draining && !w->stopped) {
        double delay = 0.;
        if (w->cfg->rate <= 0 && !c->conn_succeeded) delay = (double)w->cfg->retry_delay_ns / 1e9;
        ev_timer_set(&c->restart, delay, 0.);
        ev_timer_start(w->loop, &c->restart);
    }
    lg_worker_maybe_finish(w);
}

/* --- when requests start --------------------------------------------------- */

/* Starts a warm request on the ready connection. False when the client
 * cannot go on now (the deadline passed, or the connection failed). */
static bool send_warm(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    uint64_t now = lg_now_ns();
    /* a closed loop stops at the deadline; an open loop's requests due before
     * it start until the drain begins, however late the generator woke */
    if (now >= w->deadline_ns && w->cfg->rate <= 0) return false;
    uint64_t origin = w->cfg->rate > 0 ? lg_schedule_due(w, c, c->started) : now;
    struct lg_req *r = lg_req_start(c, origin, now, false);
    if (submit(c, r) < 0) {
        conn_abort(c);
        return false;
    }
    /* a datagram that waits for the socket takes its sample when it leaves */
    if ((r->flags & (LG_REQ_ACTIVE | LG_REQ_QUEUED)) == LG_REQ_ACTIVE) lg_req_record_send_lag(w, r);
    return c->state == LG_CONN_READY;
}

/* Starts what the client may start now: in a closed loop, as many requests
 * as the connection carries; in an open loop, its due requests in order. */
static void start_requests(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    bool open_loop = w->cfg->rate > 0;
    if (w->stopped) return;
    if (c->state == LG_CONN_READY && c->close_when_idle && c->inflight == 0) {
        /* what the driver still has to say (HTTP/2's GOAWAY) goes out first */
        if (w->drv->flush && w->drv->flush(c) < 0)
            conn_abort(c);
        else
            conn_close(c);
    }
    if (w->draining || ev_is_active(&c->restart)) return;
    for (;;) {
        if (open_loop && c->started == c->due) return;
        if (c->state == LG_CONN_CLOSED) {
            if (c->inflight == 0) conn_open(c, open_loop ? lg_schedule_due(w, c, c->started) : 0);
            return;
        }
        if (c->state != LG_CONN_READY || c->close_when_idle || !c->n_free ||
            c->inflight >= c->capacity)
            return;
        if (!send_warm(c)) return;
    }
}

void lg_client_kick(struct lg_client *c)
{
    start_requests(c);
    /* what the driver gathered in this event goes out in one write */
    if (c->state == LG_CONN_READY && c->w->drv->flush && c->w->drv->flush(c) < 0) conn_abort(c);
}

static void on_restart(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct lg_client *c = t->data;
    c->w->event_ns = 0;
    lg_client_kick(c);
}

uint64_t lg_client_stop(struct lg_client *c)
{
    ev_timer_stop(c->w->loop, &c->restart);
    uint64_t unsent = c->due - c->started;
    c->started = c->due;
    return unsent;
}

void lg_client_begin(struct lg_client *c)
{
    /* the open loop's requests start from the worker's schedule */
    if (c->w->cfg->rate <= 0) conn_open(c, 0);
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
    for (unsigned i = 0; i < c->w->cfg->slots && c->inflight; i++)
        if (c->slots[i].flags & LG_REQ_ACTIVE) lg_req_finish(c, &c->slots[i], 0, true);
}

void lg_client_timeout(struct lg_req *r)
{
    struct lg_client *c = r->client;
    struct lg_worker *w = c->w;
    int cls = LG_ERR_TIMEOUT;
    if (c->state == LG_CONN_SETUP) cls = w->stages[c->stage]->timeout_class;
    if (!w->store.error_detail[cls]) {
        /* the first of its class only: the summary shows one reason */
        char detail[128];
        snprintf(detail, sizeof(detail), "%s within the --timeout of %g ms",
                 c->state == LG_CONN_SETUP ? w->stages[c->stage]->timeout_detail : "no response",
                 (double)w->cfg->timeout_ns / 1e6);
        lg_store_error(w, cls, detail);
    }
    if (c->state == LG_CONN_READY && w->drv->on_timeout && w->drv->on_timeout(c, r->slot) == 0) {
        if (r->flags & LG_REQ_ACTIVE) lg_req_finish(c, r, cls, false);
        lg_client_kick(c);
        return;
    }
    /* The connection's state is unknown after a timeout: close it, and what
     * else was in flight on it is lost to the same timeout. */
    c->fail_class = cls;
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
    if (c->write_waits_read && output_state(c, c->tp->flush(c)) < 0) conn_abort(c);
}

static void on_read_event(struct ev_loop *loop, ev_io *io, int revents)
{
    struct lg_client *c = io->data;
    c->w->event_ns = 0;
    if (c->state == LG_CONN_SETUP)
        setup_continue(c, c->w->stages[c->stage]->step(c));
    else if (c->state == LG_CONN_READY)
        read_ready(c);
    lg_client_kick(c);
    lg_worker_maybe_finish(c->w);
}

static void on_write_event(struct ev_loop *loop, ev_io *io, int revents)
{
    struct lg_client *c = io->data;
    struct lg_worker *w = c->w;
    w->event_ns = 0;
    if (c->state == LG_CONN_SETUP) {
        setup_continue(c, w->stages[c->stage]->step(c));
    } else if (c->state == LG_CONN_READY) {
        bool resume_read = c->read_waits_write, flushed = false;
        c->read_waits_write = false;
        int rc = c->write_waits_read ? LG_IO_WANT_READ : LG_IO_DONE;
        if (c->outq_len && !c->write_waits_read) {
            rc = c->tp->flush(c);
            flushed = true;
        }
        if (output_state(c, rc) < 0) {
            conn_abort(c);
        } else {
            if (resume_read) read_ready(c);
            if (flushed && rc == LG_IO_DONE && c->state == LG_CONN_READY && w->drv->on_writable &&
                w->drv->on_writable(c) < 0)
                conn_abort(c);
        }
    }
    lg_client_kick(c);
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

const char *lg_client_alpn(const struct lg_client *c)
{
    return c->alpn;
}

int lg_conn_write(struct lg_client *c, const void *data, size_t len)
{
    return output_state(c, c->tp->send(c, data, len));
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

bool lg_conn_last_request(const struct lg_client *c)
{
    return c->close_when_idle;
}

void lg_conn_fail(struct lg_client *c, int error_class, const char *detail)
{
    c->fail_class = lg_checked_class(c->w, error_class);
    if (detail) lg_store_error(c->w, c->fail_class, detail);
}

void lg_fail_run(struct lg_client *c, const char *why)
{
    (void)c;
    lg_control_fail(why);
}
