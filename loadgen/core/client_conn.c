/* A client's connection: its turn to open (--max-handshakes), the setup
 * stages run in order, the moment it is ready, and its end: closed when
 * idle, aborted on a failure (every request in flight gets its class), and
 * reopened by the next request. See client.c. */
#include "loadgen/core/client.h"
#include "loadgen/core/internal.h"

#include <unistd.h>

/* --max-handshakes: whether c must wait for its turn to open a connection
 * (it is queued then); a client whose turn came opens at once. */
bool lg_client_wait_turn(struct lg_client *c)
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

void lg_conn_close(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    opening_done(c);
    if (c->fd < 0) return;
    lg_client_watch(c, false, false);
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

/* The connection can carry requests: hand it to the driver and send the cold
 * request that has been waiting since the attempt started.
 * The other slots (and the open loop's backlog) start from whoever called:
 * the event's kick, the start_requests loop that opened the connection, or
 * the worker's round after every client's begin. */
static void conn_ready(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    opening_done(c);
    c->state = LG_CONN_READY;
    c->established++;
    w->store.counters[LG_C_CONNECTIONS]++;
    /* a connection to another origin than the last one is the walk's doing,
     * not the server's: reconnects keeps counting closes and failures */
    c->switched = c->ready_tgt && c->ready_tgt != c->tgt;
    if (c->switched)
        w->store.counters[LG_C_ORIGIN_SWITCHES]++;
    else if (c->established > 1)
        w->store.counters[LG_C_RECONNECTS]++;
    c->ready_tgt = c->tgt;
    lg_client_watch(c, true, false);
    if (w->drv->on_ready && w->drv->on_ready(c) < 0) {
        lg_conn_abort(c);
        return;
    }
    for (unsigned i = 0; i < w->cfg->slots; i++) {
        struct lg_req *r = &c->slots[i];
        if ((r->flags & LG_REQ_ACTIVE) && (r->flags & LG_REQ_COLD)) {
            r->sent_ns = lg_event_fresh(w);
            if (lg_client_submit(c, r) < 0) {
                lg_conn_abort(c);
                return;
            }
        }
    }
    /* what the server sent with the end of the handshake was read with it,
     * and epoll will not report it again; on the send path it waits for the
     * loop like everything else that could end a request */
    if (lg_conn_usable(c) && c->tp->more(c, 0, 1)) {
        if (c->in_send) {
            c->read_pending = true;
            lg_client_settle_later(c);
        } else {
            lg_client_read_ready(c);
        }
    }
}

/* Runs setup stages from the current one on: each that completes records its
 * phase (fresh clock reads at both ends) and starts the next. */
void lg_conn_setup_continue(struct lg_client *c, enum lg_step st)
{
    struct lg_worker *w = c->w;
    for (;;) {
        switch (st) {
        case LG_STEP_WANT_READ:
            lg_client_watch(c, true, false);
            return;
        case LG_STEP_WANT_WRITE:
            lg_client_watch(c, false, true);
            return;
        case LG_STEP_FAILED:
            lg_conn_abort(c);
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

/* Before a connection opens (or its socket is made ahead): where the
 * driver's next request goes. A socket made ahead for another target (its
 * address family may differ) is dropped. */
void lg_client_choose_target(struct lg_client *c)
{
    const struct lg_driver *drv = c->w->drv;
    if (!drv->next_target) return;
    const struct lg_target *t = drv->next_target(c);
    if (t == c->tgt) return;
    if (c->fd >= 0 && c->state == LG_CONN_CLOSED) {
        close(c->fd);
        c->fd = -1;
    }
    c->tgt = t;
}

/* Opens a connection for a cold request whose latency starts at `origin`
 * (0: now). Nothing starts once the level's deadline has passed. */
void lg_conn_open(struct lg_client *c, uint64_t origin)
{
    struct lg_worker *w = c->w;
    uint64_t now = lg_event_fresh(w);
    if (now >= w->deadline_ns && w->cfg->rate <= 0) return;
    lg_client_choose_target(c);
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
        lg_conn_abort(c);
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
    lg_conn_setup_continue(c, w->stages[0]->start(c));
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
    lg_client_choose_target(c);
    if (c->tp->open(c) < 0 && c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
    c->fail_class = 0;
}

/* A connection closed while the level goes on: the open loop prepares the
 * next one's socket. */
void lg_conn_closed_midlevel(struct lg_client *c)
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
void lg_conn_abort(struct lg_client *c)
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
    lg_conn_close(c);
    c->fail_class = 0;
    lg_conn_closed_midlevel(c);
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

/* --- the connection's timer, for its transport ------------------------- */

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
