/* A request's life in its client's slot: started (tracked for its timeout),
 * its first byte and its end, then sampled (latency, ttfb, send lag) and
 * counted in the worker's store, and logged. */
#include "loadgen/core/internal.h"
#include "loadgen/output/reqlog.h"
#include "loadgen/watching/control.h"

void lg_req_record_send_lag(struct lg_worker *w, const struct lg_req *r)
{
    if (w->cfg->rate > 0)
        lg_series_add(&w->store.series[LG_S_SEND_LAG], r->sent_ns - r->origin_ns, &w->rng);
}

/* Starts a request whose latency counts from `origin` (its scheduled time in
 * an open loop); `now` is the event's latest clock read: the start, and the
 * sent time until the open loop stamps when the bytes were accepted. */
struct lg_req *lg_req_start(struct lg_client *c, uint64_t origin, uint64_t now, bool cold)
{
    struct lg_worker *w = c->w;
    struct lg_req *r = &c->slots[c->free_slots[--c->n_free]];
    if (w->cfg->rate > 0) c->started++;
    r->flags = LG_REQ_ACTIVE | (cold ? LG_REQ_COLD : 0);
    r->group = 0; /* the driver may put it in one as it submits */
    r->seq++;
    r->origin_ns = origin;
    r->sent_ns = now;
    r->deadline_ns = now + w->cfg->timeout_ns;
    c->inflight++;
    if (c->attempts++ == 0) w->unstarted--;
    /* --conn-requests: the connection's last request; none starts after it,
     * and the connection closes once idle (no --retry-delay: nothing failed) */
    if (++c->conn_requests == w->cfg->conn_requests) c->close_when_idle = true;
    w->store.counters[LG_C_ATTEMPTS]++;
    lg_worker_track(w, r);
    if (w->store.counters[LG_C_ATTEMPTS] == w->quota) lg_worker_quota_reached(w);
    return r;
}

/* Counts an error class at the one place classes are counted: a class out
 * of range (a driver's mistake) would index past the table. */
int lg_checked_class(const struct lg_worker *w, int cls)
{
    return cls > 0 && (unsigned)cls < w->n_classes ? cls : LG_ERR_RESET;
}

/* The whole second of the level that `now` falls in, as a bin of the
 * completions' (or the errors') timeline; NULL after the deadline, and in
 * the part of a second before it, which is no sample. A level longer than
 * the room made for it grows the room: a few times a level, not per
 * request. */
static uint64_t *timeline_bin(struct lg_worker *w, uint64_t now, bool errors)
{
    struct lg_store *st = &w->store;
    if (now >= w->deadline_ns) return NULL;
    while (now >= w->sec_end_ns) {
        w->sec_index++;
        w->sec_end_ns += LG_NS_PER_S;
    }
    if (w->sec_index >= st->timeline_len) {
        if (w->sec_end_ns > w->deadline_ns) return NULL;
        if (lg_store_grow_timeline(st, w->sec_index + 1) < 0) {
            lg_control_fail(w->run, "out of memory for the per-second counts");
            return NULL;
        }
    }
    return errors ? &st->error_timeline[w->sec_index] : &st->timeline[w->sec_index];
}

/* Samples and counts a request that ended at `now`, and frees its slot. */
static void req_record(struct lg_client *c, struct lg_req *r, int cls, bool unfinished,
                       uint64_t now)
{
    struct lg_worker *w = c->w;
    struct lg_store *st = &w->store;
    if (r->flags & LG_REQ_UNSENT) c->n_unsent--;
    if (unfinished) {
        st->counters[LG_C_UNFINISHED]++;
    } else if (cls == LG_OK) {
        uint64_t latency = now - r->origin_ns;
        bool cold = (r->flags & LG_REQ_COLD) != 0;
        lg_series_add(&st->series[cold ? LG_S_LATENCY_COLD : LG_S_LATENCY_WARM], latency, &w->rng);
        if (r->group) lg_series_add(&st->groups[2 * (r->group - 1) + !cold], latency, &w->rng);
        if (r->flags & LG_REQ_FIRST_BYTE)
            lg_series_add(&st->series[LG_S_TTFB], r->first_byte_ns - r->sent_ns, &w->rng);
        st->counters[LG_C_REQUESTS]++;
        c->conn_succeeded = true;
        uint64_t *bin = timeline_bin(w, now, false);
        if (bin) ++*bin;
    } else {
        cls = lg_checked_class(w, cls);
        st->counters[LG_C_ERRORS]++;
        st->errors[cls]++;
        uint64_t *bin = timeline_bin(w, now, true);
        if (bin) ++*bin;
    }
    if (w->log) lg_reqlog_write(w->log, c, r, now, unfinished ? -1 : cls);
    r->flags = 0;
    c->inflight--;
    c->free_slots[c->n_free++] = r->slot;
}

/* On the send path an end is only recorded: the request leaves the timeout
 * list (it cannot time out any more) but keeps its slot until the loop
 * settles it, so the path that sends cannot start another in its place. */
void lg_req_finish(struct lg_client *c, struct lg_req *r, int cls, bool unfinished)
{
    struct lg_worker *w = c->w;
    if (r->flags & LG_REQ_ENDED) { /* ended on the send path: its own class stands */
        if (c->in_send) return;
        r->flags &= ~(uint32_t)LG_REQ_ENDED;
        req_record(c, r, r->end_cls, false, r->end_ns);
        return;
    }
    lg_worker_untrack(w, r);
    if (c->in_send && !unfinished) {
        r->flags |= LG_REQ_ENDED;
        r->end_cls = cls;
        r->end_ns = lg_event_now(w);
        c->ends_pending = true;
        lg_client_settle_later(c);
        return;
    }
    req_record(c, r, cls, unfinished, lg_event_now(w));
}

void lg_req_settle_ends(struct lg_client *c)
{
    if (!c->ends_pending) return;
    c->ends_pending = false;
    for (unsigned i = 0; i < c->w->cfg->slots; i++)
        if (c->slots[i].flags & LG_REQ_ENDED) lg_req_finish(c, &c->slots[i], 0, false);
}

/* Open loop: one clock read for every request of c whose bytes the kernel
 * has just accepted; each takes its send lag from it. */
void lg_req_accepted(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    uint64_t now = lg_event_fresh(w);
    for (unsigned i = 0; i < w->cfg->slots && c->n_unsent; i++) {
        struct lg_req *r = &c->slots[i];
        if (!(r->flags & LG_REQ_UNSENT)) continue;
        r->flags &= ~(uint32_t)LG_REQ_UNSENT;
        c->n_unsent--;
        r->sent_ns = now;
        lg_req_record_send_lag(w, r);
    }
}

/* A queued datagram left: in an open loop its send lag ends now. */
void lg_req_departed(struct lg_client *c, struct lg_req *r)
{
    r->flags &= ~(uint32_t)LG_REQ_QUEUED;
    if (!(r->flags & LG_REQ_UNSENT)) return;
    r->flags &= ~(uint32_t)LG_REQ_UNSENT;
    c->n_unsent--;
    r->sent_ns = lg_event_fresh(c->w);
    lg_req_record_send_lag(c->w, r);
}

void lg_conn_peer_error(struct lg_client *c, int err)
{
    /* The error is about a datagram that left: the oldest such request. */
    struct lg_req *oldest = NULL;
    for (unsigned i = 0; i < c->w->cfg->slots; i++) {
        struct lg_req *r = &c->slots[i];
        if ((r->flags & LG_REQ_ACTIVE) &&
            !(r->flags & (LG_REQ_SENDING | LG_REQ_QUEUED | LG_REQ_ENDED)) &&
            (!oldest || r->sent_ns < oldest->sent_ns))
            oldest = r;
    }
    const struct lg_driver *d = c->w->drv;
    int cls = d->on_socket_error ? d->on_socket_error(c, err, oldest ? (int)oldest->slot : -1)
                                 : LG_ERR_CONNECT_REFUSED;
    if (oldest && cls) lg_req_finish(c, oldest, cls, false);
    lg_client_peer_refused(c);
}

void lg_note_error(struct lg_client *c, int error_class, const char *detail)
{
    lg_store_error(c->w, error_class, detail);
}

void lg_req_first_byte(struct lg_client *c, unsigned slot)
{
    struct lg_req *r = &c->slots[slot];
    if (!(r->flags & (LG_REQ_FIRST_BYTE | LG_REQ_ENDED))) {
        r->flags |= LG_REQ_FIRST_BYTE;
        r->first_byte_ns = lg_event_now(c->w);
    }
}

void lg_req_done(struct lg_client *c, unsigned slot, int error_class)
{
    struct lg_req *r = &c->slots[slot];
    if ((r->flags & (LG_REQ_ACTIVE | LG_REQ_ENDED)) == LG_REQ_ACTIVE)
        lg_req_finish(c, r, error_class, false);
}

bool lg_req_active(const struct lg_client *c, unsigned slot)
{
    return (c->slots[slot].flags & (LG_REQ_ACTIVE | LG_REQ_ENDED)) == LG_REQ_ACTIVE;
}

void lg_req_group(struct lg_client *c, unsigned slot, unsigned group)
{
    if (group && group <= c->w->store.n_groups) c->slots[slot].group = group;
}

void lg_count(struct lg_client *c, unsigned counter, uint64_t n)
{
    c->w->store.extra[counter] += n;
}
