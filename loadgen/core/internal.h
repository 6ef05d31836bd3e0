/* The engine's data model in one screen: a worker (one thread, one event
 * loop, one store of samples) owns a cohort of clients; a client owns one
 * connection and a few request slots. Only engine files include this, and
 * the setup stages that plug into it from the protocol layer (proto/tunnel.c). */
#ifndef LOADGEN_INTERNAL_H
#define LOADGEN_INTERNAL_H

#include <ev.h>
#include <pthread.h>
#include <stdatomic.h>

#include "loadgen/core/clock.h"
#include "loadgen/engine.h"
#include "stats/math/rng.h"
#include "loadgen/output/series.h"
#include "loadgen/transport/transport.h"

/* Sample series every level has; doc/output-format.md defines them. */
enum lg_series_id {
    LG_S_LATENCY_COLD,
    LG_S_LATENCY_WARM,
    LG_S_CONNECT,
    LG_S_PROXY_CONNECT,
    LG_S_TLS_HANDSHAKE,
    LG_S_TTFB,
    LG_S_SEND_LAG,       /* open loop only */
    LG_S_QUIC_HANDSHAKE, /* QUIC transports only */
    LG_S__COUNT,
};

/* The seconds a level's per-second counts (and its loops' tick lateness)
 * are first given room for: an hour. A longer level (-n alone sets no
 * deadline) doubles the room as it goes, a few times a level. */
#define LG_TIMELINE_FIRST_S 3600

/* Exact counts every level has. */
enum lg_counter_id {
    LG_C_ATTEMPTS,
    LG_C_REQUESTS,
    LG_C_ERRORS,
    LG_C_UNFINISHED,
    LG_C_CONNECT_ATTEMPTS, /* connections (UDP sockets) a client tried to open */
    LG_C_CONNECTIONS,      /* of those, the ones established */
    /* established after the client's first established one, to the same
     * target as the one before */
    LG_C_RECONNECTS,
    /* established to another target than the one before (drv->next_target) */
    LG_C_ORIGIN_SWITCHES,
    LG_C_BYTES_RECEIVED,
    LG_C_SCHEDULED,    /* open loop only: requests the schedule made due */
    LG_C_UNSENT,       /* open loop only: due but never started */
    LG_C_SEND_BLOCKED, /* sends that waited for the socket (transports that name it) */
    LG_C_TLS_RESUMED,  /* TLS handshakes that resumed a session (TLS targets only) */
    LG_C__COUNT,
};

/* One thread's measurements for one level. */
struct lg_store {
    struct lg_series series[LG_S__COUNT];
    uint64_t counters[LG_C__COUNT];
    uint64_t *errors;         /* per class, n_classes */
    uint64_t *extra;          /* driver counters */
    char **error_detail;      /* first reason seen per class, or NULL */
    uint64_t *timeline;       /* completed responses per whole second */
    uint64_t *error_timeline; /* failed requests per whole second */
    size_t timeline_len;      /* the room of both (grows: lg_store_grow_timeline) */
    bool peer_limited;        /* a server allowed fewer requests at once than the slots */
    unsigned peer_limit;      /* the smallest such limit */
    /* --tls-resume: TLS handshakes of a client's later connections, and those
     * that offered the server a session it could resume */
    uint64_t tls_rehandshakes, tls_sessions_offered;
    /* established connections per driver protocol (lg_conn_protocol) */
    uint64_t protocols[LG_MAX_PROTOCOLS];
    /* per driver request group (lg_req_group): its cold, then its warm latency */
    struct lg_series *groups;
    unsigned n_groups;
};

enum lg_req_flags {
    LG_REQ_ACTIVE = 1,
    LG_REQ_COLD = 2,
    LG_REQ_FIRST_BYTE = 4,
    LG_REQ_SENDING = 8, /* its submit runs: its bytes are not on the wire yet */
    LG_REQ_QUEUED = 16, /* its message waits for the socket (the datagram transport) */
    LG_REQ_ENDED = 32,  /* it ended on the send path: settled from the loop (end_cls, end_ns) */
    LG_REQ_UNSENT = 64, /* open loop: its bytes are not accepted by the kernel yet */
};

/* A request in flight. Timeouts are the same for every request, so the
 * in-flight list in start order is also in deadline order: one timer per
 * worker, no heap, no scan. */
struct lg_req {
    struct lg_req *prev, *next;
    struct lg_client *client;
    uint64_t origin_ns; /* latency origin: attempt start, start time or scheduled time */
    /* ttfb origin: the start (closed loop), or when the kernel accepted the
     * request's bytes (open loop: the end of its send lag) */
    uint64_t sent_ns;
    uint64_t deadline_ns; /* timeout */
    uint64_t first_byte_ns;
    uint64_t end_ns; /* LG_REQ_ENDED: when it ended */
    uint32_t flags;
    uint32_t slot;
    uint32_t seq;    /* counts the slot's requests: tells a queued message's request apart */
    uint32_t group;  /* the driver's request group (lg_req_group), 0: none */
    int32_t end_cls; /* LG_REQ_ENDED: its class */
};

enum lg_conn_state {
    LG_CONN_CLOSED,
    LG_CONN_SETUP, /* running the worker's setup stages */
    LG_CONN_READY,
};

struct lg_worker;
struct lg_run_ctx;

struct lg_client {
    struct lg_worker *w;
    int fd;
    unsigned id;
    enum lg_conn_state state;
    unsigned stage; /* the setup stage running (LG_CONN_SETUP) */
    ev_io rio, wio;
    const struct lg_transport *tp;
    /* where its connection goes: the run's target, or the driver's choice
     * for its next request (drv->next_target); and where its last
     * established connection went (NULL before the first), which tells an
     * origin switch from a reconnect */
    const struct lg_target *tgt, *ready_tgt;
    bool switched;       /* the current connection was opened for an origin switch */
    void *tls;           /* SSL * when the target is TLS */
    void *tls_session;   /* kept across reconnects with --tls-resume */
    bool tls_resumed;    /* the current connection's handshake resumed a session */
    const uint8_t *alpn; /* the agreed ALPN protocol (the TLS library's bytes), or NULL */
    size_t alpn_len;
    uint64_t conn_start_ns; /* attempt start of the current connection */
    uint64_t phase_ns;      /* start of the current setup stage */
    /* a setup stage's own state while it runs (proto/tunnel.c's) */
    _Alignas(8) unsigned char stage_state[32];
    unsigned conn_attempts; /* connections it tried to open in this level */
    unsigned established;   /* of those, the ones set up */
    unsigned inflight;
    unsigned capacity;      /* requests the current connection carries at once */
    struct lg_req *sending; /* the request whose submit runs, so a transport can tag it */
    bool close_when_idle;
    bool read_waits_write; /* the transport cannot read on until the socket is writable */
    bool write_waits_read; /* queued output waits for the next read (TLS) */
    int fail_class;        /* set by lg_conn_fail */
    /* output the socket did not take yet, in the transport's own format */
    uint8_t *outq;
    size_t outq_len, outq_off, outq_cap;
    /* the next kick after a failed connection (the loop's next iteration, or
     * --retry-delay in a closed loop when nothing succeeded on it) or a
     * peer's refusal (--retry-delay, closed loop); armed, it holds the client */
    ev_timer restart;
    ev_timer conn_timer; /* the transport's own timer (QUIC's loss and idle timers) */
    void *quic;          /* the QUIC transport's connection, or NULL */
    bool conn_succeeded; /* a request completed on the current connection */
    /* The send path (client.c) and what it leaves for the loop: the depth of
     * send-path calls running, a connection failure found on it, requests
     * that ended on it (LG_REQ_ENDED), and the settle queue's link. */
    unsigned in_send;
    bool abort_pending, ends_pending, read_pending;
    bool settle_queued;
    struct lg_client *settle_next;
    /* --max-handshakes: its connection counts among the worker's being set
     * up (opening), or it waits for its turn to start one (turn_waiting) */
    bool opening, turn_waiting;
    struct lg_client *turn_next;
    unsigned n_unsent; /* open loop: started requests whose bytes wait (LG_REQ_UNSENT) */
    /* open loop: the client's requests the schedule made due, and those
     * started; the difference is its backlog, waiting for a slot */
    uint64_t due, started;
    /* --ramp, open loop: its turns of the schedule that came before it
     * began (none of them a request): its k-th request is turn k + this */
    uint64_t ramp_skipped;
    uint64_t conn_requests; /* requests started on the current connection */
    uint64_t attempts;      /* this level, for the validity check */
    struct lg_req *slots;
    uint32_t *free_slots; /* stack of free slot indexes */
    unsigned n_free;
    void *dstate; /* driver state */
};

struct lg_worker {
    struct lg_run_ctx *run; /* the run this worker's levels belong to */
    unsigned index;
    struct ev_loop *loop;
    pthread_t thread;
    bool spawned;
    const struct lg_config *cfg;
    const struct lg_driver *drv;
    const struct lg_target *tgt;
    const struct lg_transport *tp;    /* how the clients' bytes move */
    const struct lg_stage *stages[3]; /* how a connection is set up, in order */
    unsigned n_stages;
    void *driver_ctx;
    unsigned n_classes;
    struct lg_client *clients;
    unsigned n_clients;
    unsigned level_clients; /* clients in the whole level */
    /* -n, closed loop: the requests this loop's clients start in the level
     * (their share of -n), 0: no limit; once all have started, the loop
     * ends as the last of them ends */
    uint64_t quota;
    bool quota_reached;
    /* its clients that have not started a request yet: the quota keeps one
     * for each (a client waiting for its --max-handshakes turn would
     * otherwise find none left, and the level be invalid) */
    unsigned unstarted;
    struct lg_store store;
    struct stats_rng rng;
    uint8_t *rbuf; /* one read buffer per thread, shared by its clients */
    size_t rbuf_len;
    /* timing */
    uint64_t level_start_ns, deadline_ns;
    uint64_t loop_end_ns; /* its deadline, or when an interrupt stopped the loop */
    uint64_t sec_end_ns;  /* end of the current whole second of the timeline */
    size_t sec_index;
    /* the latest clock read of the current event (0: none yet): a request
     * that starts or ends in the event never reads an earlier one */
    uint64_t event_ns;
    bool draining, stopped;
    /* in-flight requests in start order */
    struct lg_req inflight; /* sentinel */
    unsigned n_inflight;
    /* the timer that ends them at their deadlines (expiry.c) */
    struct lg_expiry {
        int fd; /* timerfd */
        ev_io io;
        uint64_t armed_ns; /* the moment it is armed for; 0: disarmed */
    } expiry;
    ev_timer deadline_timer;
    ev_timer tick_timer;
    ev_async wakeup;
    /* clients with send-path work to settle, in the order they queued: a
     * check watcher settles them after the event's callbacks, an idle one
     * keeps the loop from sleeping while any wait */
    struct lg_client *settle_head, *settle_tail;
    ev_check settle_check;
    ev_idle settle_idle;
    /* --max-handshakes (closed loop, TLS): at most open_limit connections
     * being set up at once (n_opening); the clients waiting for their turn
     * to start one, first come first served (0: no limit) */
    unsigned open_limit, n_opening;
    struct lg_client *turn_head, *turn_tail;
    /* open loop (schedule.c) */
    struct lg_schedule {
        int fd; /* timerfd; -1 in a closed loop */
        ev_io io;
        double ns_per_request; /* 1e9 / rate */
        uint64_t cycle;        /* round of this worker's clients the cursor is in */
        unsigned cursor;       /* index of the client whose request is due next */
        uint64_t next_due_ns;
    } sched;
    /* the level's first second as this loop saw it, published once
     * (firstsec.h): written before first_sec_ready is set, read after */
    struct lg_first_second {
        uint64_t requests, errors;
        int cls;             /* the class it saw most of, 0: none */
        uint64_t cls_errors; /* how many of that class */
        const char *detail;  /* that class's first reason (the store's), or NULL */
        bool whole;          /* a whole second; false: the loop ended sooner */
    } first_sec;
    bool first_sec_sent;
    _Atomic bool first_sec_ready;
    _Atomic uint64_t progress_requests; /* published once per tick for the progress line */
    _Atomic uint64_t progress_errors;
    struct lg_reqlog *log;
    /* self-diagnostics (selfwatch.c), off the request path */
    uint64_t tick_due_ns; /* when the 1 s tick should fire next */
    double *lag_ms;       /* how late each tick fired, this level */
    size_t n_lag, cap_lag;
    uint64_t loop_start_ns, loop_wall_ns;
    uint64_t cpu_start_ns, cpu_ns;   /* CLOCK_THREAD_CPUTIME_ID over the level */
    uint64_t wait_start_ns, wait_ns; /* time runnable but waiting for a CPU */
    bool have_wait;
    uint64_t rx_dropped; /* datagram drivers: the sockets' receive-queue drops */
    bool have_rx_dropped;
    void *tp_state; /* the transport's own state for this worker (the io_uring ring), or NULL */
    /* --source: the next address's turn (transport/source.c) */
    size_t source_next;
    /* --ramp, closed loop: the first of its clients not begun yet, and the
     * timer that begins it (ramp.c) */
    unsigned ramp_next;
    ev_timer ramp_timer;
    /* the wake watch (wakewatch.c): the loop's sleeps, odd while asleep; the
     * control thread's last look, and the time asleep with work waiting;
     * ww_mu keeps tp_state from going away while a look reads it */
    _Atomic uint32_t sleep_seq;
    ev_prepare sleep_prepare;
    ev_check sleep_check;
    uint32_t ww_seq;
    bool ww_waiting;
    uint64_t ww_at_ns, asleep_on_work_ns;
    pthread_mutex_t ww_mu;
    bool ww_mu_made;
};

/* errors.c */
const char *lg_error_name(const struct lg_driver *d, unsigned cls);
/* What a class means, for a class whose errors came with no reason. */
const char *lg_error_description(const struct lg_driver *d, unsigned cls);
/* What the user can do about a class (the option that accepts or avoids
 * it), or NULL. */
const char *lg_error_hint(const struct lg_driver *d, unsigned cls);

/* request.c */
/* Starts a request in a free slot: latency counts from `origin` (its
 * scheduled time in an open loop); `now`, the event's latest clock read, is
 * its start (and its sent time until its bytes are accepted, open loop). */
struct lg_req *lg_req_start(struct lg_client *c, uint64_t origin, uint64_t now, bool cold);
/* Ends it: a success (cls 0) is sampled, an error counted by class, an
 * unfinished one counted as such; the slot is free again. On the send path
 * (c->in_send) the end is only recorded, and settled from the loop. */
void lg_req_finish(struct lg_client *c, struct lg_req *r, int cls, bool unfinished);
/* Settles the ends the send path recorded (LG_REQ_ENDED). */
void lg_req_settle_ends(struct lg_client *c);
/* The open loop's send lag of a request whose bytes have just left. */
void lg_req_record_send_lag(struct lg_worker *w, const struct lg_req *r);
/* Open loop: the kernel accepted the bytes of every request of c still
 * waiting for that (LG_REQ_UNSENT): one clock read stamps them all. */
void lg_req_accepted(struct lg_client *c);
/* An error class as it will be counted (one out of range becomes reset). */
int lg_checked_class(const struct lg_worker *w, int cls);

/* The transport's calls back (request.c): an ICMP error on a datagram socket
 * (charged to the oldest request whose bytes left), and a queued request's
 * bytes left. */
void lg_conn_peer_error(struct lg_client *c, int err);
void lg_req_departed(struct lg_client *c, struct lg_req *r);
/* client.c */
/* Closed loop: the client waits --retry-delay after a peer's refusal. */
void lg_client_peer_refused(struct lg_client *c);
void lg_client_setup(struct lg_worker *w, struct lg_client *c, unsigned id, void *state_mem,
                     struct lg_req *slot_mem, uint32_t *free_mem);
/* Level start: a closed loop's first attempt (or its place in the queue of
 * --max-handshakes); an open loop's requests start from the schedule
 * (schedule.c), so nothing here. */
void lg_client_begin(struct lg_client *c);
/* Open loop: the socket of the client's next connection, made ahead. */
void lg_client_prepare(struct lg_client *c);
void lg_client_teardown(struct lg_client *c);
void lg_client_kick(struct lg_client *c);
/* Queues c for the worker's settle watchers (its send path left work). */
void lg_client_settle_later(struct lg_client *c);
/* Settles what c's send path left: ended requests, a failed connection. */
void lg_client_settle(struct lg_client *c);
void lg_client_timeout(struct lg_req *r);
/* The deadline: no more restarts; returns the client's due requests that never started. */
uint64_t lg_client_stop_counting_unsent(struct lg_client *c);
void lg_client_abandon(struct lg_client *c); /* level end: in flight -> unfinished */

/* What the transport said about output (an LG_IO_ code): queued output
 * waits for writability or the next read. 0, or -1 when it failed. */
int lg_conn_output_state(struct lg_client *c, int rc);

/* worker.c */
void lg_worker_run_level(struct lg_worker *w);
void lg_worker_track(struct lg_worker *w, struct lg_req *r);
void lg_worker_untrack(struct lg_worker *w, struct lg_req *r);
void lg_worker_maybe_finish(struct lg_worker *w);
/* The level's deadline: no request starts from now; the drain window begins. */
void lg_worker_deadline(struct lg_worker *w);
/* -n: the loop's last request has started: none starts after it, and the
 * loop ends as soon as nothing is in flight. */
void lg_worker_quota_reached(struct lg_worker *w);
void lg_worker_init_async(struct lg_worker *w);
/* Closed loop: clients [from, to) make their first attempt, then those
 * ready at once start their other slots. Returns the end of those begun
 * (short of `to` when an interrupt or a failure stopped it). */
unsigned lg_worker_begin_clients(struct lg_worker *w, unsigned from, unsigned to);
/* Starts the settle watchers; client.c queues, worker.c settles. */
void lg_worker_want_settle(struct lg_worker *w);

/* store.c */
int lg_store_init(struct lg_store *s, unsigned n_classes, unsigned n_extra, size_t max_samples,
                  size_t timeline_len);
/* The series of the driver's request groups (none when n_groups is 0). */
int lg_store_init_groups(struct lg_store *s, unsigned n_groups, size_t max_samples);
/* Open loop: room made, and touched, for the samples of `requests` requests
 * on `connections` connections (see lg_series_prepare). */
int lg_store_prepare(struct lg_store *s, size_t requests, size_t connections);
/* Room in the per-second counts for at least `seconds` (doubling). */
int lg_store_grow_timeline(struct lg_store *s, size_t seconds);
void lg_store_free(struct lg_store *s, unsigned n_classes);
void lg_store_error(struct lg_worker *w, int cls, const char *detail);

/* The event time: one clock read per event, shared by all it completes. */
static inline uint64_t lg_event_now(struct lg_worker *w)
{
    if (!w->event_ns) w->event_ns = lg_now_ns();
    return w->event_ns;
}

/* A fresh clock read, which becomes the event's latest: what ends later in
 * the same event is never stamped before it. */
static inline uint64_t lg_event_fresh(struct lg_worker *w)
{
    w->event_ns = lg_now_ns();
    return w->event_ns;
}

#endif
