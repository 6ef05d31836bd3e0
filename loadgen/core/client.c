/* A logical client: one connection (or one UDP socket) for the whole level,
 * set up by the worker's stages in order, its request slots, and the closed-
 * or open-loop rule that decides when the next request starts. This file is
 * its lifecycle and its events; client_conn.c opens and reopens its
 * connection, client_slots.c starts its requests. The client alone owns the
 * watchers: transports and stages only say what they wait for. */
#include "loadgen/core/client.h"
#include "loadgen/core/internal.h"
#include "loadgen/watching/control.h"
#include "loadgen/core/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_read_event(struct ev_loop *loop, ev_io *io, int revents);
static void on_write_event(struct ev_loop *loop, ev_io *io, int revents);
static void on_conn_timer(struct ev_loop *loop, ev_timer *t, int revents);

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
    c->tgt = w->tgt;
    ev_init(&c->rio, on_read_event);
    ev_init(&c->wio, on_write_event);
    ev_init(&c->restart, lg_client_on_restart);
    ev_init(&c->conn_timer, on_conn_timer);
    c->rio.data = c->wio.data = c->restart.data = c->conn_timer.data = c;
}

/* --- watchers ------------------------------------------------------------- */

void lg_client_watch(struct lg_client *c, bool read, bool write)
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
    if (!c->read_waits_write) lg_client_watch(c, true, rc == LG_IO_WANT_WRITE);
    return 0;
}

/* --- lifecycle ----------------------------------------------------------- */

/* The client's first attempt, and nothing more: the worker kicks every
 * client once all have begun, so each makes its first attempt before any
 * makes its second. The open loop's requests start from the schedule. */
void lg_client_begin(struct lg_client *c)
{
    if (c->w->cfg->rate > 0 || lg_client_wait_turn(c)) return;
    c->in_send++;
    lg_conn_open(c, 0);
    c->in_send--;
}

void lg_client_teardown(struct lg_client *c)
{
    ev_timer_stop(c->w->loop, &c->restart);
    lg_conn_close(c);
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

/* --- events -------------------------------------------------------------- */

static void peer_closed(struct lg_client *c)
{
    if (c->w->drv->on_read(c, NULL, 0) < 0) {
        lg_conn_abort(c);
    } else if (c->inflight) {
        c->fail_class = LG_ERR_EOF;
        if (!c->w->store.error_detail[LG_ERR_EOF]) {
            char detail[96];
            snprintf(detail, sizeof(detail),
                     "the server closed the connection with %u %s in flight", c->inflight,
                     c->inflight == 1 ? "request" : "requests");
            lg_store_error(c->w, LG_ERR_EOF, detail);
        }
        lg_conn_abort(c);
    } else {
        /* an idle keep-alive connection the server closed: no error, the
         * next request reconnects and is cold */
        lg_conn_close(c);
        lg_conn_closed_midlevel(c);
    }
}

void lg_client_read_ready(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    for (;;) {
        ssize_t n = c->tp->read(c, w->rbuf, w->rbuf_len);
        w->event_ns = 0; /* what this read completes, it completes now */
        if (n >= 0) {
            w->store.counters[LG_C_BYTES_RECEIVED] += (uint64_t)n;
            if (w->drv->on_read(c, w->rbuf, (size_t)n) < 0) {
                lg_conn_abort(c);
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
            lg_client_watch(c, false, true);
            return;
        }
        if (n == LG_IO_EOF)
            peer_closed(c);
        else
            lg_conn_abort(c);
        return;
    }
    if (c->write_waits_read && lg_conn_output_state(c, lg_client_tp_flush(c)) < 0) lg_conn_abort(c);
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
        lg_conn_setup_continue(c, c->w->stages[c->stage]->step(c));
    else if (c->state == LG_CONN_READY)
        lg_client_read_ready(c);
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
        lg_conn_setup_continue(c, w->stages[c->stage]->step(c));
    } else if (c->state == LG_CONN_READY) {
        bool resume_read = c->read_waits_write, flushed = false;
        c->read_waits_write = false;
        int rc = c->write_waits_read ? LG_IO_WANT_READ : LG_IO_DONE;
        if (c->outq_len && !c->write_waits_read) {
            rc = lg_client_tp_flush(c);
            flushed = true;
        }
        if (lg_conn_output_state(c, rc) < 0) {
            lg_conn_abort(c);
        } else {
            if (resume_read) lg_client_read_ready(c);
            if (flushed && rc == LG_IO_DONE && lg_conn_usable(c) && w->drv->on_writable) {
                c->in_send++;
                int wrc = w->drv->on_writable(c);
                c->in_send--;
                if (wrc < 0) lg_conn_abort(c);
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
            lg_conn_abort(c);
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

void lg_conn_protocol(struct lg_client *c, unsigned protocol)
{
    if (protocol < LG_MAX_PROTOCOLS) c->w->store.protocols[protocol]++;
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
