/* The datagram transport over io_uring (dnsload --io-uring): the connected
 * UDP sockets of udp.c, with every send and receive an operation on one ring
 * per loop thread instead of a system call of its own. What the loop's
 * callbacks queue goes to the kernel together, just before the loop waits,
 * in the io_uring_enter that also collects what completed; a socket always
 * has one receive posted into a buffer of its own. The loop waits on an
 * eventfd the ring signals when completions wait, never on the sockets. */
#include "loadgen/transport/udp_ring.h"
#include "loadgen/core/internal.h"
#include "loadgen/watching/wakewatch.h"

#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef HAVE_VALGRIND_MEMCHECK_H
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(addr, len) ((void)0)
#endif

/* A datagram sent through the ring waits in a buffer of the ring's until the
 * kernel has taken it (its completion); larger ones are refused. Buffers come
 * in chunks that never move (the kernel holds their addresses), a chunk more
 * when every one is in use, up to one per slot and one more per client. */
#define RING_SEND_MAX 512
#define SB_CHUNK 256

enum { OP_RECV = 1, OP_SEND = 2 };

/* user_data: the operation in the top bits, then the socket's generation (a
 * receive) or the send buffer's index (a send), then the client's index. */
static uint64_t op_data(unsigned op, uint32_t hi, uint32_t index)
{
    return (uint64_t)op << 62 | (uint64_t)(hi & 0x3fffffffu) << 32 | index;
}

struct ring_client {
    uint32_t gen; /* opens of its socket: a completion for an earlier one is stale */
    int32_t res;  /* the completed receive's result, when `have` */
    int send_err; /* a send failed for a reason other than the peer's: read says so */
    int peer_err; /* an ICMP error a send or receive reported: read charges it */
    bool have;    /* a receive completed and waits for read */
    bool posted;  /* a receive is with the kernel */
    /* its socket opened before the ring was enabled (the open loop's are made
     * ahead, on the main thread): the loop's thread posts its receive */
    bool recv_due;
};

struct send_buf {
    uint32_t client, gen, len;
    uint32_t slot, seq;  /* the request it carries (UINT32_MAX: none), and its number */
    uint32_t next_later; /* in the list of sends waiting out ENOBUFS */
};

struct sb_chunk {
    struct send_buf meta[SB_CHUNK];
    uint8_t data[SB_CHUNK][RING_SEND_MAX];
};

struct lg_ring {
    struct io_uring ring;
    struct lg_worker *w;
    int efd;            /* eventfd the ring signals when completions wait */
    ev_io io;           /* on efd */
    ev_prepare prepare; /* before the loop sleeps: what was queued goes in */
    ev_check check;     /* the loop is awake: the eventfd is not signalled */
    struct ring_client *rc;
    uint8_t *recv_bufs;
    size_t recv_len;
    struct sb_chunk **chunks;
    unsigned n_chunks, max_chunks;
    uint32_t *free_sb; /* stack of free send buffers */
    unsigned n_free;
    bool pumping;
    /* sends the kernel refused for want of buffers (ENOBUFS), posted again
     * after a pause: posted at once they would spin the loop while the
     * device's queue stays full (a list through their send_buf) */
    uint32_t later_head;
    ev_timer later_timer;
    /* made disabled, enabled by the loop's thread at its first turn: the
     * one thread that may submit is the one that enables it (the open loop
     * opens its sockets before the loops' threads start) */
    bool enabled;
};

static struct send_buf *sb_meta(struct lg_ring *r, uint32_t b)
{
    return &r->chunks[b / SB_CHUNK]->meta[b % SB_CHUNK];
}

static uint8_t *sb_data(struct lg_ring *r, uint32_t b)
{
    return r->chunks[b / SB_CHUNK]->data[b % SB_CHUNK];
}

/* A chunk of send buffers more: 0, or -1 when the most are there or memory
 * ran out. */
static int sb_grow(struct lg_ring *r)
{
    if (r->n_chunks == r->max_chunks) return -1;
    uint32_t *stack = realloc(r->free_sb, (size_t)(r->n_chunks + 1) * SB_CHUNK * sizeof(*stack));
    if (!stack) return -1;
    r->free_sb = stack;
    struct sb_chunk *chunk = malloc(sizeof(*chunk));
    if (!chunk) return -1;
    r->chunks[r->n_chunks] = chunk;
    uint32_t first = r->n_chunks++ * SB_CHUNK;
    for (uint32_t k = SB_CHUNK; k-- > 0;)
        r->free_sb[r->n_free++] = first + k;
    return 0;
}

static struct lg_ring *ring_of(const struct lg_client *c)
{
    return c->w->tp_state;
}

static unsigned index_of(const struct lg_client *c)
{
    return (unsigned)(c - c->w->clients);
}

int lg_udp_ring_enable(struct io_uring *ring)
{
    /* liburing 2.3 declares io_uring_enable_rings but does not export it */
    if (syscall(__NR_io_uring_register, ring->ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0) < 0)
        return -errno;
    return 0;
}

static int post_recv(struct lg_client *c);

/* Called on the loop's thread, which becomes the one that submits
 * (IORING_SETUP_SINGLE_ISSUER), and posts the receives of the sockets opened
 * before. 0, or -1 after failing the run. */
static int ring_enable(struct lg_ring *r)
{
    if (r->enabled) return 0;
    int rc = lg_udp_ring_enable(&r->ring);
    if (rc < 0) {
        char why[96];
        snprintf(why, sizeof(why), "cannot enable the io_uring: %s", strerror(-rc));
        lg_fail_run(&r->w->clients[0], why);
        return -1;
    }
    r->enabled = true;
    /* once a level, on its first turn (sqe_get hands a full queue over) */
    for (unsigned i = 0; i < r->w->n_clients; i++)
        if (r->rc[i].recv_due) {
            r->rc[i].recv_due = false;
            post_recv(&r->w->clients[i]);
        }
    return 0;
}

static struct io_uring_sqe *sqe_get(struct lg_ring *r)
{
    struct io_uring_sqe *s = io_uring_get_sqe(&r->ring);
    if (s) return s;
    /* the queue is full: hand it over, then go on. Only the loop's thread
     * fills it (a socket opened before the ring is enabled, as the open
     * loop's made ahead on the main thread, leaves its receive to the loop's
     * thread: with more clients than the queue holds, the main thread would
     * otherwise have enabled the ring and become its only submitter). */
    if (ring_enable(r) < 0) return NULL;
    io_uring_submit(&r->ring);
    return io_uring_get_sqe(&r->ring);
}

static int post_recv(struct lg_client *c)
{
    struct lg_ring *r = ring_of(c);
    unsigned i = index_of(c);
    struct io_uring_sqe *s = sqe_get(r);
    if (!s) {
        lg_conn_fail(c, LG_ERR_SOCKET, "io_uring: no submission entry free");
        return -1;
    }
    /* a longer datagram is cut at the buffer's end, one byte past what the
     * driver takes as an answer (see ring_create) */
    io_uring_prep_recv(s, c->fd, r->recv_bufs + (size_t)i * r->recv_len, r->recv_len, 0);
    io_uring_sqe_set_data64(s, op_data(OP_RECV, r->rc[i].gen, i));
    r->rc[i].posted = true;
    return 0;
}

/* A send's first try does not wait (MSG_DONTWAIT): a full socket answers
 * EAGAIN, which is counted as the plain transport counts it (send_blocked)
 * and the send posted again to wait in the kernel for room (`wait`). */
static void post_send(struct lg_ring *r, uint32_t b, bool wait)
{
    struct send_buf *sb = sb_meta(r, b);
    struct io_uring_sqe *s = sqe_get(r);
    if (!s) { /* cannot happen: the ring has an entry for every buffer */
        r->rc[sb->client].send_err = ENOBUFS;
        return;
    }
    io_uring_prep_send(s, r->w->clients[sb->client].fd, sb_data(r, b), sb->len,
                       MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT));
    io_uring_sqe_set_data64(s, op_data(OP_SEND, b, sb->client));
}

#define LATER_PAUSE_S 0.001
#define NO_BUF UINT32_MAX

static void send_later(struct lg_ring *r, uint32_t b)
{
    sb_meta(r, b)->next_later = r->later_head;
    r->later_head = b;
    if (!ev_is_active(&r->later_timer)) {
        ev_timer_set(&r->later_timer, LATER_PAUSE_S, 0.);
        ev_timer_start(r->w->loop, &r->later_timer);
    }
}

/* The pause is over: each waiting send goes again, unless its socket closed
 * meanwhile (its buffer is free again). */
static void on_later_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct lg_ring *r = t->data;
    uint32_t b = r->later_head;
    r->later_head = NO_BUF;
    while (b != NO_BUF) {
        struct send_buf *sb = sb_meta(r, b);
        uint32_t next = sb->next_later;
        const struct lg_client *c = &r->w->clients[sb->client];
        if (sb->gen == r->rc[sb->client].gen && c->state == LG_CONN_READY)
            post_send(r, b, false);
        else
            r->free_sb[r->n_free++] = b;
        b = next;
    }
}

/* --- completions ---------------------------------------------------------- */

static void send_done(struct lg_ring *r, uint32_t b, int res)
{
    struct send_buf *sb = sb_meta(r, b);
    struct ring_client *rc = &r->rc[sb->client];
    struct lg_client *c = &r->w->clients[sb->client];
    bool current = sb->gen == rc->gen && c->state == LG_CONN_READY;
    if (current && res < 0 && res != -ECANCELED) {
        int err = -res;
        if (lg_udp_is_peer_error(err) || err == ENOBUFS || err == EAGAIN) {
            /* not sent: an ICMP error about an earlier datagram came first
             * (charged as read's), or the socket had no room; it goes again */
            if (err == ENOBUFS) {
                r->w->store.counters[LG_C_SEND_BLOCKED]++;
                send_later(r, b);
                return;
            }
            if (err == EAGAIN)
                r->w->store.counters[LG_C_SEND_BLOCKED]++;
            else
                rc->peer_err = err;
            post_send(r, b, err == EAGAIN);
            if (rc->peer_err) lg_conn_input_ready(c);
            return;
        }
        rc->send_err = err;
    } else if (current && res >= 0 && (uint32_t)res != sb->len) {
        rc->send_err = EMSGSIZE;
    } else if (current && res >= 0 && sb->slot < r->w->cfg->slots) {
        /* the kernel took it: the open loop's send lag ends now */
        struct lg_req *q = &c->slots[sb->slot];
        if ((q->flags & LG_REQ_ACTIVE) && (q->flags & LG_REQ_QUEUED) && q->seq == sb->seq)
            lg_req_departed(c, q);
    }
    r->free_sb[r->n_free++] = b;
    if (current && rc->send_err) lg_conn_input_ready(c);
}

static void recv_done(struct lg_ring *r, uint32_t i, uint32_t gen, int res)
{
    struct ring_client *rc = &r->rc[i];
    if (gen != (rc->gen & 0x3fffffffu) || !rc->posted) return; /* an earlier socket's */
    rc->posted = false;
    rc->have = true;
    rc->res = res;
    lg_conn_input_ready(&r->w->clients[i]);
}

/* Whether entering the kernel would do anything: something queued to hand
 * over, or completions' work the kernel deferred to us (IORING_SQ_TASKRUN: a
 * reply arrived) or that overflowed. A flag set just after this looked also
 * signals the eventfd, so the loop wakes for it. */
static bool ring_needs_enter(struct lg_ring *r)
{
    unsigned flags = IO_URING_READ_ONCE(*r->ring.sq.kflags);
    return io_uring_sq_ready(&r->ring) || (flags & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW));
}

/* Hands over what was queued and handles what completed, until nothing more
 * did (a bounded number of rounds: the eventfd wakes the loop for the rest).
 * It enters the kernel only when that has work: at a low rate most turns
 * have none left after their first round. Completions can also wait without
 * an entry of ours (a cancel or an early submit posts them), so the queue is
 * read every round. One completion at a time, seen before it is acted on:
 * acting can queue, submit and cancel. */
static void pump(struct lg_ring *r)
{
    if (r->pumping) return;
    if (ring_enable(r) < 0) return;
    r->pumping = true;
    int round;
    for (round = 0; round < 16; round++) {
        bool enter = ring_needs_enter(r);
        if (!enter && !io_uring_cq_ready(&r->ring)) break;
        int rc = enter ? io_uring_submit_and_get_events(&r->ring) : 0;
        if (rc < 0 && rc != -EINTR && rc != -EBUSY && rc != -EAGAIN) {
            char why[96];
            snprintf(why, sizeof(why), "io_uring_enter failed: %s", strerror(-rc));
            lg_fail_run(&r->w->clients[0], why);
            break;
        }
        struct io_uring_cqe *cqe;
        while (io_uring_peek_cqe(&r->ring, &cqe) == 0) {
            uint64_t d = cqe->user_data;
            int res = cqe->res;
            io_uring_cqe_seen(&r->ring, cqe);
            uint32_t index = (uint32_t)d, hi = (uint32_t)(d >> 32) & 0x3fffffffu;
            if (d >> 62 == OP_SEND)
                send_done(r, hi, res);
            else if (d >> 62 == OP_RECV)
                recv_done(r, index, hi, res);
        }
    }
    /* the loop may sleep next: nothing queued may be left behind, and work
     * the rounds left (a busy ring) must wake it again, as the kernel
     * signals only work that comes after what waits */
    if (io_uring_sq_ready(&r->ring)) io_uring_submit(&r->ring);
    if (round == 16 && (ring_needs_enter(r) || io_uring_cq_ready(&r->ring)))
        eventfd_write(r->efd, 1);
    r->pumping = false;
}

static void on_ring_io(struct ev_loop *loop, ev_io *io, int revents)
{
    struct lg_ring *r = io->data;
    uint64_t signals;
    /* only the reset matters, not the count: what completed is in the ring,
     * which is read whatever this returns */
    ssize_t got = read(r->efd, &signals, sizeof(signals));
    (void)got;
    pump(r);
}

/* The eventfd is signalled only while the loop sleeps: what completes while
 * it is awake (its sends, inline) the pump reads from the queue, and a signal
 * for it would only make the next epoll_wait return at once, for nothing.
 * Signals go back on before the loop sleeps, and what completed in between
 * is pumped first, so no completion waits unsignalled. */
static void on_ring_prepare(struct ev_loop *loop, ev_prepare *p, int revents)
{
    struct lg_ring *r = p->data;
    pump(r);
    if (!r->enabled) return;
    io_uring_cq_eventfd_toggle(&r->ring, true);
    if (ring_needs_enter(r) || io_uring_cq_ready(&r->ring)) pump(r);
}

static void on_ring_check(struct ev_loop *loop, ev_check *c, int revents)
{
    struct lg_ring *r = c->data;
    if (r->enabled) io_uring_cq_eventfd_toggle(&r->ring, false);
}

static void ring_worker_flush(struct lg_worker *w)
{
    pump(w->tp_state);
}

/* --- the worker's ring ---------------------------------------------------- */

/* How the ring is set up. The kernel runs a completion's work (a reply's
 * receive) as task work of the submitting thread. With
 * IORING_SETUP_DEFER_TASKRUN that work waits on the ring's own list, and a
 * thread asleep outside io_uring_enter hears of it only through the eventfd
 * signal the kernel makes for the list's first item; on an idle machine
 * (kernel 6.18, HZ=250) that signal came a timer tick or four late, so the
 * loop slept 4-16 ms on replies that had arrived (issue 39; the closing note
 * has the trace). COOP_TASKRUN instead marks the thread and wakes it from its
 * sleep (epoll_wait returns to run the work, the completion is posted and the
 * eventfd signalled from the thread itself), with no interrupt while it runs.
 * No set-up is taken on trust: lg_udp_ring_probe times the wake-up of the one
 * chosen here against a plain socket's before a run uses it.
 * LOADGEN_TEST_RING_SETUP, for tests only: "defer" the set-up that slept,
 * "deaf" the same with no eventfd (completions are never signalled). */
enum ring_setup { SETUP_COOP, SETUP_DEFER, SETUP_DEAF };

static enum ring_setup ring_setup(void)
{
    const char *t = getenv("LOADGEN_TEST_RING_SETUP");
    if (t && !strcmp(t, "defer")) return SETUP_DEFER;
    if (t && !strcmp(t, "deaf")) return SETUP_DEAF;
    return SETUP_COOP;
}

/* A ring of the transport's kind with an eventfd registered (*efd): 0, or
 * the negative errno with nothing left open. One thread submits, and is told
 * by a flag when completions' work waits for it; the ring is made disabled,
 * for the loop's thread to enable. */
int lg_udp_ring_init(struct io_uring *ring, unsigned entries, unsigned cq, int *efd)
{
    enum ring_setup setup = ring_setup();
    unsigned taskrun = setup == SETUP_COOP ? IORING_SETUP_COOP_TASKRUN : IORING_SETUP_DEFER_TASKRUN;
    struct io_uring_params p = {
        .flags = IORING_SETUP_SINGLE_ISSUER | taskrun | IORING_SETUP_R_DISABLED |
                 IORING_SETUP_CQSIZE | IORING_SETUP_TASKRUN_FLAG,
        .cq_entries = cq,
    };
    int rc = io_uring_queue_init_params(entries, ring, &p);
    if (rc < 0) return rc;
    *efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    rc = *efd < 0 ? -errno : setup == SETUP_DEAF ? 0 : io_uring_register_eventfd(ring, *efd);
    if (rc < 0) {
        if (*efd >= 0) close(*efd);
        *efd = -1;
        io_uring_queue_exit(ring);
    }
    return rc;
}

static void ring_free(struct lg_ring *r)
{
    if (r->efd >= 0) close(r->efd);
    free(r->rc);
    free(r->recv_bufs);
    for (unsigned k = 0; k < r->n_chunks; k++)
        free(r->chunks[k]);
    free(r->chunks);
    free(r->free_sb);
    free(r);
}

/* The ring for the level's clients: a receive and the client's slots' sends
 * in flight each, a buffer for each. NULL with `why` when it cannot be had. */
static struct lg_ring *ring_create(struct lg_worker *w, char *why, size_t why_len)
{
    struct lg_ring *r = calloc(1, sizeof(*r));
    if (!r) goto nomem;
    r->w = w;
    r->efd = -1;
    /* one byte more than any answer the queries allow: a longer one is seen
     * as such by the driver, as through a plain socket, whose reads take
     * any size */
    r->recv_len = (w->cfg->answer_bytes > 512 ? w->cfg->answer_bytes : 512) + 1;
    /* a send buffer per slot, and one more per client for a datagram whose
     * request ended before the kernel took it */
    size_t most = (size_t)w->n_clients * (w->cfg->slots + 1);
    r->max_chunks = (unsigned)((most + SB_CHUNK - 1) / SB_CHUNK);
    r->rc = calloc(w->n_clients, sizeof(*r->rc));
    r->recv_bufs = malloc(w->n_clients * r->recv_len);
    r->chunks = calloc(r->max_chunks, sizeof(*r->chunks));
    if (!r->rc || !r->recv_bufs || !r->chunks) goto nomem;
    /* enough for a datagram in flight per client: the usual case */
    while ((size_t)r->n_chunks * SB_CHUNK < w->n_clients)
        if (sb_grow(r) < 0) goto nomem;
    /* a receive and a send in flight per client; a full queue goes to the
     * kernel early, and its completions wait in the kernel when the
     * completion queue is full (IORING_FEAT_NODROP) */
    size_t entries = (size_t)w->n_clients * 2;
    if (entries < 64) entries = 64;
    if (entries > 32768) entries = 32768; /* the kernel's most; a full queue is submitted early */
    /* for tests only: a queue smaller than the clients, as 32,768 entries
     * are for more clients than a test machine's descriptors allow */
    const char *test_entries = getenv("LOADGEN_TEST_RING_ENTRIES");
    if (test_entries && atoi(test_entries) >= 8) entries = (size_t)atoi(test_entries);
    size_t cq = most + w->n_clients; /* everything that can be in flight at once */
    if (cq < 2 * entries) cq = 2 * entries;
    if (cq > 65536) cq = 65536;
    int rc = lg_udp_ring_init(&r->ring, (unsigned)entries, (unsigned)cq, &r->efd);
    if (rc < 0) {
        snprintf(why, why_len, "%s", strerror(-rc));
        ring_free(r);
        return NULL;
    }
    r->later_head = NO_BUF;
    ev_init(&r->later_timer, on_later_timer);
    r->later_timer.data = r;
    ev_io_init(&r->io, on_ring_io, r->efd, EV_READ);
    ev_prepare_init(&r->prepare, on_ring_prepare);
    ev_check_init(&r->check, on_ring_check);
    r->io.data = r->prepare.data = r->check.data = r;
    ev_io_start(w->loop, &r->io);
    ev_prepare_start(w->loop, &r->prepare);
    ev_check_start(w->loop, &r->check);
    /* none keeps the loop running by itself: the level's timers do */
    ev_unref(w->loop);
    ev_unref(w->loop);
    ev_unref(w->loop);
    return r;
nomem:
    if (r) ring_free(r);
    snprintf(why, why_len, "out of memory for its buffers");
    return NULL;
}

/* The wake watch's look, from the control thread while the loop sleeps:
 * completions in the queue, or their work deferred to the loop, or more
 * than the queue held. */
static bool ring_work_waiting(struct lg_worker *w)
{
    struct lg_ring *r = w->tp_state;
    unsigned flags = IO_URING_READ_ONCE(*r->ring.sq.kflags);
    unsigned head = IO_URING_READ_ONCE(*r->ring.cq.khead);
    unsigned tail = io_uring_smp_load_acquire(r->ring.cq.ktail);
    return tail != head || (flags & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW));
}

static void ring_worker_end(struct lg_worker *w)
{
    struct lg_ring *r = w->tp_state;
    if (!r) return;
    lg_wakewatch_lock(w);
    ev_ref(w->loop);
    ev_ref(w->loop);
    ev_ref(w->loop);
    ev_io_stop(w->loop, &r->io);
    ev_prepare_stop(w->loop, &r->prepare);
    ev_check_stop(w->loop, &r->check);
    ev_timer_stop(w->loop, &r->later_timer);
    io_uring_queue_exit(&r->ring); /* cancels what is still with the kernel, and waits */
    ring_free(r);
    w->tp_state = NULL;
    lg_wakewatch_unlock(w);
}

/* --- the transport -------------------------------------------------------- */

static int ring_open(struct lg_client *c)
{
    struct lg_worker *w = c->w;
    if (!w->tp_state) {
        char why[160], msg[200];
        struct lg_ring *r = ring_create(w, why, sizeof(why));
        if (!r) {
            snprintf(msg, sizeof(msg), "cannot set up an io_uring: %s", why);
            lg_conn_fail(c, LG_ERR_SOCKET, msg);
            lg_fail_run(c, msg);
            return -1;
        }
        lg_wakewatch_lock(w);
        w->tp_state = r;
        lg_wakewatch_unlock(w);
    }
    if (lg_udp_open(c) < 0) return -1;
    struct ring_client *rc = &ring_of(c)->rc[index_of(c)];
    rc->gen++;
    rc->have = false;
    rc->send_err = rc->peer_err = 0;
    if (!ring_of(c)->enabled) {
        rc->recv_due = true;
        return 0;
    }
    return post_recv(c);
}

static ssize_t ring_read(struct lg_client *c, uint8_t *buf, size_t len)
{
    struct lg_ring *r = ring_of(c);
    unsigned i = index_of(c);
    struct ring_client *rc = &r->rc[i];
    if (rc->peer_err) {
        int err = rc->peer_err;
        rc->peer_err = 0;
        lg_conn_peer_error(c, err);
    }
    if (rc->send_err) {
        int err = rc->send_err;
        rc->send_err = 0;
        lg_conn_fail(c, LG_ERR_SEND, strerror(err));
        return LG_IO_ERROR;
    }
    if (!rc->have) return LG_IO_AGAIN;
    rc->have = false;
    int res = rc->res;
    if (res < 0) {
        if (lg_udp_is_peer_error(-res)) {
            lg_conn_peer_error(c, -res);
            return post_recv(c) < 0 ? LG_IO_ERROR : LG_IO_AGAIN;
        }
        lg_conn_fail(c, LG_ERR_SOCKET, strerror(-res));
        return LG_IO_ERROR;
    }
    size_t n = (size_t)res < len ? (size_t)res : len;
    const uint8_t *got = r->recv_bufs + (size_t)i * r->recv_len;
    /* the kernel wrote them outside any system call memcheck watches */
    (void)VALGRIND_MAKE_MEM_DEFINED(got, n);
    memcpy(buf, got, n);
    if (post_recv(c) < 0) return LG_IO_ERROR;
    return (ssize_t)n;
}

static bool ring_more(const struct lg_client *c, size_t n, size_t len)
{
    return false; /* one datagram per completion */
}

static int ring_send(struct lg_client *c, const uint8_t *buf, size_t len)
{
    struct lg_ring *r = ring_of(c);
    if (len > RING_SEND_MAX) {
        lg_conn_fail(c, LG_ERR_SEND,
                     "a datagram over 512 bytes: the io_uring sends up to 512 (--no-io-uring sends "
                     "any size)");
        return LG_IO_ERROR;
    }
    if (!r->n_free && sb_grow(r) < 0) {
        lg_conn_fail(c, LG_ERR_SEND,
                     r->n_chunks == r->max_chunks ? "every io_uring send buffer is in use"
                                                  : "out of memory for an io_uring send buffer");
        if (r->n_chunks < r->max_chunks)
            lg_fail_run(c, "out of memory for an io_uring send buffer");
        return LG_IO_ERROR;
    }
    uint32_t b = r->free_sb[--r->n_free];
    unsigned i = index_of(c);
    /* the request waits for the kernel to take its bytes (its send lag, and
     * no ICMP error is charged to it before that) */
    struct lg_req *q = c->sending;
    if (q) q->flags |= LG_REQ_QUEUED;
    *sb_meta(r, b) = (struct send_buf){.client = i,
                                       .gen = r->rc[i].gen,
                                       .len = (uint32_t)len,
                                       .slot = q ? q->slot : UINT32_MAX,
                                       .seq = q ? q->seq : 0};
    memcpy(sb_data(r, b), buf, len);
    post_send(r, b, false);
    return LG_IO_DONE;
}

static int ring_flush(struct lg_client *c)
{
    return LG_IO_DONE; /* nothing waits in the client: the ring holds it */
}

/* Operations queued for the socket and not handed to the kernel yet become
 * no-ops, keeping their user data (their completions, stale by then, free
 * what they held): by the time they would go, the descriptor's number may be
 * another socket's. */
static void unqueue(struct lg_ring *r, int fd)
{
    struct io_uring_sq *sq = &r->ring.sq;
    for (unsigned i = sq->sqe_head; i != sq->sqe_tail; i++) {
        struct io_uring_sqe *s = &sq->sqes[i & sq->ring_mask];
        if (s->fd != fd || (s->opcode != IORING_OP_SEND && s->opcode != IORING_OP_RECV)) continue;
        uint64_t d = s->user_data;
        io_uring_prep_nop(s);
        s->user_data = d;
    }
}

/* The socket closes after this: what the ring still does with it is
 * cancelled first (and waited for), so its buffers are free again and a
 * later socket of the same client finds none of it. */
static void ring_close(struct lg_client *c)
{
    struct lg_ring *r = ring_of(c);
    if (!r) return;
    struct ring_client *rc = &r->rc[index_of(c)];
    unqueue(r, c->fd);
    /* what the kernel has (a receive is always posted): cancelled, and
     * waited for */
    if (r->enabled) {
        struct io_uring_sync_cancel_reg reg = {
            .fd = c->fd,
            .flags = IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_ALL,
            .timeout = {.tv_sec = -1, .tv_nsec = -1},
        };
        io_uring_register_sync_cancel(&r->ring, &reg);
    }
    rc->gen++;
    rc->posted = rc->have = rc->recv_due = false;
    rc->send_err = rc->peer_err = 0;
}

const struct lg_transport lg_transport_udp_ring = {
    .name = "udp-io_uring",
    .open = ring_open,
    .read = ring_read,
    .more = ring_more,
    .send = ring_send,
    .flush = ring_flush,
    .close = ring_close,
    .dropped = lg_udp_dropped,
    .blocked_counter = "send_blocked",
    .own_events = true,
    .worker_end = ring_worker_end,
    .worker_flush = ring_worker_flush,
    .work_waiting = ring_work_waiting,
};
