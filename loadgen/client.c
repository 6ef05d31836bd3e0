/* A logical client: one connection (or one UDP socket) for the whole level,
 * its setup phases (connect, proxy tunnel, TLS), its request slots, and the
 * closed- or open-loop rule that decides when the next request starts. */
#include "loadgen/internal.h"
#include "loadgen/reqlog.h"
#include "loadgen/tunnel.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_read_event(struct ev_loop *loop, ev_io *io, int revents);
static void on_write_event(struct ev_loop *loop, ev_io *io, int revents);
static void on_restart(struct ev_loop *loop, ev_timer *t, int revents);
static void on_schedule(struct ev_loop *loop, ev_timer *t, int revents);
static void conn_failed(struct lg_client *c);

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
    c->tp = w->tgt->tls ? &lg_transport_tls : &lg_transport_plain;
    ev_init(&c->rio, on_read_event);
    ev_init(&c->wio, on_write_event);
    ev_init(&c->restart, on_restart);
    ev_init(&c->sched, on_schedule);
    c->rio.data = c->wio.data = c->restart.data = c->sched.data = c;
}

/* --- request slots ------------------------------------------------------ */

static struct lg_req *req_start(struct lg_client *c, uint64_t origin, uint64_t now, bool cold)
{
    struct lg_worker *w = c->w;
    struct lg_req *r = &c->slots[c->free_slots[--c->n_free]];
    r->flags = LG_REQ_ACTIVE | (cold ? LG_REQ_COLD : 0);
    r->origin_ns = origin;
    r->sent_ns = now;
    r->deadline_ns = now + w->cfg->timeout_ns;
    c->inflight++;
    c->attempts++;
    c->conn_requests++;
    w->store.counters[LG_C_ATTEMPTS]++;
    lg_worker_track(w, r);
    return r;
}

static void req_finish(struct lg_client *c, struct lg_req *r, int cls, bool unfinished)
{
    struct lg_worker *w = c->w;
    struct lg_store *st = &w->store;
    uint64_t now = lg_event_now(w);
    lg_worker_untrack(w, r);
    if (unfinished) {
        st->counters[LG_C_UNFINISHED]++;
    } else if (cls == LG_OK) {
        double ms = (double)(now - r->origin_ns) / 1e6;
        lg_series_add(&st->series[(r->flags & LG_REQ_COLD) ? LG_S_LATENCY_COLD : LG_S_LATENCY_WARM],
                      ms, &w->rng);
        if (r->flags & LG_REQ_FIRST_BYTE)
            lg_series_add(&st->series[LG_S_TTFB], (double)(r->first_byte_ns - r->sent_ns) / 1e6,
                          &w->rng);
        st->counters[LG_C_REQUESTS]++;
        if (now >= w->sec_end_ns && now < w->deadline_ns) {
            while (now >= w->sec_end_ns) {
                w->sec_index++;
                w->sec_end_ns += LG_NS_PER_S;
            }
        }
        if (now < w->deadline_ns && w->sec_index < st->timeline_len) st->timeline[w->sec_index]++;
    } else {
        st->counters[LG_C_ERRORS]++;
        st->errors[cls]++;
    }
    if (w->log) lg_reqlog_write(w->log, c, r, now, unfinished ? -1 : cls);
    r->flags = 0;
    c->inflight--;
    c->free_slots[c->n_free++] = r->slot;
}

/* --- connection ---------------------------------------------------------- */

static void conn_close(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (c->fd < 0) return;
    ev_io_stop(w->loop, &c->rio);
    ev_io_stop(w->loop, &c->wio);
    c->tp->close(c);
    if (c->state == LG_CONN_READY && w->drv->on_close) w->drv->on_close(c);
    close(c->fd);
    c->fd = -1;
    c->state = LG_CONN_CLOSED;
    c->outq_len = c->outq_off = 0;
    c->close_when_idle = false;
    c->tls_read_wants_write = false;
    c->alpn = NULL;
}

static int connect_error_class(int err)
{
    switch (err) {
    case ECONNREFUSED:
        return LG_ERR_CONNECT_REFUSED;
    case ETIMEDOUT:
        return LG_ERR_CONNECT_TIMEOUT;
    default:
        return LG_ERR_CONNECT;
    }
}

static void want_write(struct lg_client *c, bool on)
{
    if (on && !ev_is_active(&c->wio))
        ev_io_start(c->w->loop, &c->wio);
    else if (!on && ev_is_active(&c->wio))
        ev_io_stop(c->w->loop, &c->wio);
}

/* The connection can carry requests: hand it to the driver and send the cold
 * request that has been waiting since the attempt started. */
static void conn_ready(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    uint64_t now = lg_event_now(w);
    c->state = LG_CONN_READY;
    if (w->drv->on_ready && w->drv->on_ready(c) < 0) {
        conn_failed(c);
        return;
    }
    for (unsigned i = 0; i < w->cfg->slots; i++) {
        struct lg_req *r = &c->slots[i];
        if ((r->flags & LG_REQ_ACTIVE) && (r->flags & LG_REQ_COLD)) {
            r->sent_ns = now;
            c->submitting = i + 1;
            int rc = w->drv->submit(c, i);
            c->submitting = 0;
            if (rc < 0) {
                conn_failed(c);
                return;
            }
        }
    }
    lg_client_kick(c); /* the other slots, or the open loop's backlog */
}

static void tls_step(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    switch (c->tp->handshake(c)) {
    case LG_HS_DONE: {
        uint64_t now = lg_event_now(w);
        want_write(c, false);
        lg_series_add(&w->store.series[LG_S_TLS_HANDSHAKE], (double)(now - c->phase_ns) / 1e6,
                      &w->rng);
        conn_ready(c);
        break;
    }
    case LG_HS_WANT_READ:
        want_write(c, false);
        break;
    case LG_HS_WANT_WRITE:
        want_write(c, true);
        break;
    case LG_HS_FAILED:
        conn_failed(c);
        break;
    }
}

static void start_tls_or_ready(struct lg_client *c)
{
    if (c->w->tgt->tls) {
        c->phase_ns = lg_event_now(c->w);
        c->state = LG_CONN_TLS;
        if (c->tp->start(c) < 0) {
            conn_failed(c);
            return;
        }
        tls_step(c);
    } else {
        conn_ready(c);
    }
}

static void conn_connected(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    uint64_t now = lg_event_now(w);
    w->store.counters[LG_C_CONNECTIONS]++;
    lg_series_add(&w->store.series[LG_S_CONNECT], (double)(now - c->conn_start_ns) / 1e6, &w->rng);
    want_write(c, false);
    ev_io_start(w->loop, &c->rio);
    if (w->tgt->tunnel_request) {
        c->state = LG_CONN_TUNNEL;
        c->phase_ns = now;
        c->tunnel_got = 0;
        c->tunnel_match = 0;
        if (lg_tunnel_send(c) < 0) conn_failed(c);
        return;
    }
    start_tls_or_ready(c);
}

/* Opens a connection for a cold request whose latency starts at `origin`. */
static void conn_open(struct lg_client *c, uint64_t origin)
{
    struct lg_worker *w = c->w;
    const struct lg_target *t = w->tgt;
    uint64_t now = lg_event_now(w);
    if (c->connections++ > 0) w->store.counters[LG_C_RECONNECTS]++;
    c->conn_start_ns = now;
    c->conn_requests = 0;
    c->fail_class = 0;
    c->capacity = w->cfg->slots;
    req_start(c, origin, now, true);
    int type = w->drv->datagram ? SOCK_DGRAM : SOCK_STREAM;
    int fd = socket(t->addr.ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        lg_store_error(w, LG_ERR_SOCKET, strerror(errno));
        c->fail_class = LG_ERR_SOCKET;
        conn_failed(c);
        return;
    }
    c->fd = fd;
    ev_io_set(&c->rio, fd, EV_READ);
    ev_io_set(&c->wio, fd, EV_WRITE);
    if (type == SOCK_STREAM && (t->addr.ss_family == AF_INET || t->addr.ss_family == AF_INET6)) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    c->state = LG_CONN_CONNECTING;
    if (connect(fd, (const struct sockaddr *)&t->addr, t->addrlen) == 0) {
        conn_connected(c);
    } else if (errno == EINPROGRESS) {
        want_write(c, true);
    } else {
        int err = errno;
        c->fail_class = connect_error_class(err);
        lg_store_error(w, c->fail_class, strerror(err));
        conn_failed(c);
    }
}

/* Every request in flight on the connection gets the failure's class; the
 * connection closes; the next request (if any) reconnects on a later loop
 * iteration, so a refused connection cannot recurse. */
static void conn_failed(struct lg_client *c)
{
    int cls = c->fail_class ? c->fail_class : LG_ERR_RESET;
    for (unsigned i = 0; i < c->w->cfg->slots && c->inflight; i++)
        if (c->slots[i].flags & LG_REQ_ACTIVE) req_finish(c, &c->slots[i], cls, false);
    conn_close(c);
    c->fail_class = 0;
    if (!c->w->draining && !c->w->stopped) {
        ev_timer_set(&c->restart, 0., 0.);
        ev_timer_start(c->w->loop, &c->restart);
    }
    lg_worker_maybe_finish(c->w);
}

/* --- when requests start --------------------------------------------------- */

static bool send_warm(struct lg_client *c, uint64_t origin, uint64_t now)
{
    struct lg_req *r = req_start(c, origin, now, false);
    c->submitting = r->slot + 1;
    int rc = c->w->drv->submit(c, r->slot);
    c->submitting = 0;
    if (rc < 0) {
        conn_failed(c);
        return false;
    }
    /* a datagram that could not be sent ends its request and pauses the
     * client until the next loop iteration */
    return !ev_is_active(&c->restart);
}

void lg_client_kick(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (w->stopped) return;
    if (c->state == LG_CONN_READY && c->close_when_idle && c->inflight == 0) conn_close(c);
    if (w->draining || ev_is_active(&c->restart)) return;
    if (w->cfg->rate <= 0) {
        if (c->state == LG_CONN_CLOSED) {
            if (c->inflight == 0) conn_open(c, lg_event_now(w));
            return;
        }
        if (c->state != LG_CONN_READY || c->close_when_idle) return;
        while (c->n_free && c->inflight < c->capacity && c->state == LG_CONN_READY &&
               !c->close_when_idle) {
            uint64_t now = lg_event_now(w);
            if (!send_warm(c, now, now)) return;
        }
        return;
    }
    while (c->backlog) {
        uint64_t due = (uint64_t)c->backlog_due_ns;
        if (c->state == LG_CONN_CLOSED) {
            if (c->inflight) return;
            c->backlog--;
            c->backlog_due_ns += w->rate_interval_s * 1e9;
            conn_open(c, due);
            return;
        }
        if (c->state != LG_CONN_READY || c->close_when_idle || !c->n_free ||
            c->inflight >= c->capacity)
            return;
        c->backlog--;
        c->backlog_due_ns += w->rate_interval_s * 1e9;
        if (!send_warm(c, due, lg_event_now(w))) return;
    }
}

static void on_restart(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct lg_client *c = t->data;
    c->w->event_ns = 0;
    lg_client_kick(c);
}

static void arm_schedule(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (c->next_due_ns >= (double)w->deadline_ns) return;
    double delay = (c->next_due_ns - (double)lg_now_ns()) / 1e9;
    ev_timer_set(&c->sched, delay > 0 ? delay : 0., 0.);
    ev_timer_start(w->loop, &c->sched);
}

/* Open loop: every request that is due joins the backlog; latency is taken
 * from its scheduled time however long it waits for a slot. */
static void on_schedule(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct lg_client *c = t->data;
    struct lg_worker *w = c->w;
    w->event_ns = 0;
    double now = (double)lg_event_now(w);
    double step = w->rate_interval_s * 1e9;
    while (c->next_due_ns <= now && c->next_due_ns < (double)w->deadline_ns) {
        if (!c->backlog) c->backlog_due_ns = c->next_due_ns;
        c->backlog++;
        c->next_due_ns += step;
    }
    lg_client_kick(c);
    arm_schedule(c);
}

void lg_client_stop_schedule(struct lg_client *c)
{
    ev_timer_stop(c->w->loop, &c->sched);
    ev_timer_stop(c->w->loop, &c->restart);
}

void lg_client_begin(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (w->cfg->rate <= 0) {
        conn_open(c, lg_event_now(w));
        return;
    }
    /* Clients are spread evenly over one interval so the total rate is smooth. */
    c->next_due_ns = (double)w->level_start_ns + (double)c->id / w->cfg->rate * 1e9;
    arm_schedule(c);
}

void lg_client_teardown(struct lg_client *c)
{
    lg_client_stop_schedule(c);
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
        if (c->slots[i].flags & LG_REQ_ACTIVE) req_finish(c, &c->slots[i], 0, true);
}

void lg_client_timeout(struct lg_req *r)
{
    struct lg_client *c = r->client;
    struct lg_worker *w = c->w;
    int cls = LG_ERR_TIMEOUT;
    if (c->state == LG_CONN_CONNECTING)
        cls = LG_ERR_CONNECT_TIMEOUT;
    else if (c->state == LG_CONN_TLS)
        cls = LG_ERR_TLS_HANDSHAKE;
    else if (c->state == LG_CONN_TUNNEL)
        cls = LG_ERR_PROXY_REFUSED;
    if (!w->store.error_detail[cls]) {
        /* the first of its class only: the summary shows one reason */
        static const char *const what[] = {
            [LG_CONN_CONNECTING] = "the connection was not established",
            [LG_CONN_TUNNEL] = "the proxy did not answer CONNECT",
            [LG_CONN_TLS] = "the TLS handshake did not finish",
            [LG_CONN_READY] = "no response",
        };
        char detail[128];
        snprintf(detail, sizeof(detail), "%s within the --timeout of %g ms",
                 what[c->state] ? what[c->state] : "no progress", (double)w->cfg->timeout_ns / 1e6);
        lg_store_error(w, cls, detail);
    }
    if (c->state == LG_CONN_READY && w->drv->on_timeout && w->drv->on_timeout(c, r->slot) == 0) {
        if (r->flags & LG_REQ_ACTIVE) req_finish(c, r, cls, false);
        lg_client_kick(c);
        return;
    }
    /* The connection's state is unknown after a timeout: close it, and what
     * else was in flight on it is lost to the same timeout. */
    c->fail_class = cls;
    conn_failed(c);
}

/* --- events -------------------------------------------------------------- */

static void handle_tunnel(struct lg_client *c)
{
    int rc = lg_tunnel_on_readable(c);
    if (rc < 0) {
        conn_failed(c);
    } else if (rc > 0) {
        uint64_t now = lg_event_now(c->w);
        lg_series_add(&c->w->store.series[LG_S_PROXY_CONNECT], (double)(now - c->phase_ns) / 1e6,
                      &c->w->rng);
        start_tls_or_ready(c);
    }
}

static void read_ready(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    const struct lg_driver *d = w->drv;
    for (;;) {
        ssize_t n = c->tp->read(c, w->rbuf, w->rbuf_len);
        if (n > 0) {
            w->store.counters[LG_C_BYTES_RECEIVED] += (uint64_t)n;
            if (d->on_read(c, w->rbuf, (size_t)n) < 0) {
                conn_failed(c);
                return;
            }
            if (c->state != LG_CONN_READY) return;
            /* A datagram per event, and a short stream read means the socket
             * is drained: reading again would only return EAGAIN (epoll is
             * level-triggered, so anything left is reported again). */
            if (d->datagram || ((size_t)n < w->rbuf_len && !c->tp->pending(c))) return;
            continue;
        }
        if (n == 0 && d->datagram) {
            /* an empty datagram is a message, not the end of a stream */
            if (d->on_read(c, w->rbuf, 0) < 0) conn_failed(c);
            return;
        }
        if (n == 0) {
            if (d->on_read(c, NULL, 0) < 0) {
                conn_failed(c);
                return;
            }
            if (c->inflight) {
                c->fail_class = LG_ERR_EOF;
                if (!w->store.error_detail[LG_ERR_EOF]) {
                    char detail[96];
                    snprintf(detail, sizeof(detail),
                             "the server closed the connection with %u %s in flight", c->inflight,
                             c->inflight == 1 ? "request" : "requests");
                    lg_store_error(w, LG_ERR_EOF, detail);
                }
                conn_failed(c);
            } else {
                /* an idle keep-alive connection the server closed: no error,
                 * the next request reconnects and is cold */
                conn_close(c);
            }
            return;
        }
        if (n == LG_IO_AGAIN) return;
        if (d->datagram && d->on_socket_error) {
            int cls = d->on_socket_error(c, c->fail_class);
            c->fail_class = 0;
            if (cls) {
                /* charge the oldest request in flight on this client */
                struct lg_req *oldest = NULL;
                for (unsigned i = 0; i < w->cfg->slots; i++) {
                    struct lg_req *r = &c->slots[i];
                    if ((r->flags & LG_REQ_ACTIVE) && (!oldest || r->sent_ns < oldest->sent_ns))
                        oldest = r;
                }
                if (oldest) req_finish(c, oldest, cls, false);
            }
            return;
        }
        conn_failed(c);
        return;
    }
}

static void on_read_event(struct ev_loop *loop, ev_io *io, int revents)
{
    struct lg_client *c = io->data;
    c->w->event_ns = 0;
    switch (c->state) {
    case LG_CONN_TUNNEL:
        handle_tunnel(c);
        break;
    case LG_CONN_TLS:
        tls_step(c);
        break;
    case LG_CONN_READY:
        if (c->tls_read_wants_write) return; /* the TLS layer waits for writability first */
        read_ready(c);
        break;
    default:
        break;
    }
    lg_client_kick(c);
    lg_worker_maybe_finish(c->w);
}

static int flush_queue(struct lg_client *c)
{
    while (c->outq_off < c->outq_len) {
        ssize_t n = c->tp->write(c, c->outq + c->outq_off, c->outq_len - c->outq_off);
        if (n == LG_IO_AGAIN) return 0;
        if (n < 0) return -1;
        c->outq_off += (size_t)n;
    }
    c->outq_off = c->outq_len = 0;
    return 1;
}

static void on_write_event(struct ev_loop *loop, ev_io *io, int revents)
{
    struct lg_client *c = io->data;
    struct lg_worker *w = c->w;
    w->event_ns = 0;
    if (c->state == LG_CONN_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) err = errno;
        if (err) {
            c->fail_class = connect_error_class(err);
            lg_store_error(w, c->fail_class, strerror(err));
            conn_failed(c);
        } else {
            conn_connected(c);
        }
    } else if (c->state == LG_CONN_TLS) {
        tls_step(c);
    } else if (c->state == LG_CONN_READY || c->state == LG_CONN_TUNNEL) {
        int rc = flush_queue(c);
        if (rc < 0) {
            conn_failed(c);
        } else if (rc > 0) {
            want_write(c, false);
            if (c->tls_read_wants_write) {
                c->tls_read_wants_write = false;
                read_ready(c);
            } else if (c->state == LG_CONN_READY && w->drv->on_writable &&
                       w->drv->on_writable(c) < 0) {
                conn_failed(c);
            }
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

/* A datagram goes out whole or not at all, and a failed send is that one
 * request's error: the socket stays, as it would for any lost datagram. */
static int dgram_write(struct lg_client *c, const void *data, size_t len)
{
    struct lg_worker *w = c->w;
    ssize_t n;
    do
        n = send(c->fd, data, len, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)len) return 0;
    int err = n < 0 ? errno : EMSGSIZE;
    int cls = LG_ERR_SEND;
    if (err == ECONNREFUSED || err == EHOSTUNREACH || err == ENETUNREACH) {
        /* an ICMP error from an earlier datagram, reported on this send */
        cls = w->drv->on_socket_error ? w->drv->on_socket_error(c, err) : LG_ERR_SEND;
    } else {
        lg_store_error(w, LG_ERR_SEND, strerror(err));
    }
    if (c->submitting && cls) {
        struct lg_req *r = &c->slots[c->submitting - 1];
        if (r->flags & LG_REQ_ACTIVE) req_finish(c, r, cls, false);
    }
    if (!w->draining && !w->stopped && !ev_is_active(&c->restart)) {
        ev_timer_set(&c->restart, 0., 0.);
        ev_timer_start(w->loop, &c->restart);
    }
    return 0;
}

int lg_conn_write(struct lg_client *c, const void *data, size_t len)
{
    const uint8_t *p = data;
    if (c->w->drv->datagram) return dgram_write(c, data, len);
    if (c->outq_len == 0) {
        while (len) {
            ssize_t n = c->tp->write(c, p, len);
            if (n == LG_IO_AGAIN) break;
            if (n < 0) return -1;
            p += n;
            len -= (size_t)n;
        }
        if (!len) return 0;
    }
    if (c->outq_len + len > c->outq_cap) {
        size_t cap = c->outq_cap ? c->outq_cap : 4096;
        while (cap < c->outq_len + len)
            cap *= 2;
        uint8_t *q = realloc(c->outq, cap);
        if (!q) {
            c->fail_class = LG_ERR_SEND;
            lg_store_error(c->w, LG_ERR_SEND, "out of memory queueing output");
            return -1;
        }
        c->outq = q;
        c->outq_cap = cap;
    }
    memcpy(c->outq + c->outq_len, p, len);
    c->outq_len += len;
    want_write(c, true);
    return 0;
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

void lg_conn_fail(struct lg_client *c, int error_class, const char *detail)
{
    c->fail_class = error_class;
    if (detail) lg_store_error(c->w, error_class, detail);
}

void lg_note_error(struct lg_client *c, int error_class, const char *detail)
{
    lg_store_error(c->w, error_class, detail);
}

void lg_req_first_byte(struct lg_client *c, unsigned slot)
{
    struct lg_req *r = &c->slots[slot];
    if (!(r->flags & LG_REQ_FIRST_BYTE)) {
        r->flags |= LG_REQ_FIRST_BYTE;
        r->first_byte_ns = lg_event_now(c->w);
    }
}

void lg_req_done(struct lg_client *c, unsigned slot, int error_class)
{
    struct lg_req *r = &c->slots[slot];
    if (r->flags & LG_REQ_ACTIVE) req_finish(c, r, error_class, false);
}

bool lg_req_active(const struct lg_client *c, unsigned slot)
{
    return (c->slots[slot].flags & LG_REQ_ACTIVE) != 0;
}

void lg_count(struct lg_client *c, unsigned counter, uint64_t n)
{
    c->w->store.extra[counter] += n;
}
