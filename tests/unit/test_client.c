/* The client's handling of what a transport reports, on a real event loop
 * with a fake transport over a socketpair: a read that must wait for
 * writability stops the read watcher (a level-triggered one would spin), an
 * error class a driver gets wrong is counted in range, --conn-requests ends
 * each connection after N requests (the driver told which is the last), a
 * request's group gets its latency sample too, and a request that ends on
 * the send path (inside submit) is settled from the loop: the call that
 * sends starts no more than the slots that were free, so no client can hold
 * its loop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "loadgen/core/internal.h"
#include "loadgen/core/expiry.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int peer_fd;
static int reads;
static int bad_class; /* what the fake driver finishes its request with */

/* The first read wants a write first (a TLS session would); the next takes
 * the byte that is waiting. */
static ssize_t fake_read(struct lg_client *c, uint8_t *buf, size_t len)
{
    if (++reads == 1) return LG_IO_WANT_WRITE;
    ssize_t n = recv(c->fd, buf, len, MSG_DONTWAIT);
    return n > 0 ? n : LG_IO_AGAIN;
}

static int fake_open(struct lg_client *c)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0) return -1;
    if (peer_fd >= 0) close(peer_fd); /* the previous connection's server side */
    c->fd = sv[0];
    peer_fd = sv[1];
    return 0;
}

static bool fake_more(const struct lg_client *c, size_t n, size_t len)
{
    return false;
}

static int fake_send(struct lg_client *c, const uint8_t *buf, size_t len)
{
    return LG_IO_DONE;
}

static int fake_flush(struct lg_client *c)
{
    return LG_IO_DONE;
}

static void fake_close(struct lg_client *c) {}

static const struct lg_transport fake = {
    .name = "fake",
    .open = fake_open,
    .read = fake_read,
    .more = fake_more,
    .send = fake_send,
    .flush = fake_flush,
    .close = fake_close,
};

static int drv_submit(struct lg_client *c, unsigned slot)
{
    return 0;
}

static int drv_on_read(struct lg_client *c, const uint8_t *data, size_t len)
{
    if (len && lg_req_active(c, 0)) lg_req_done(c, 0, bad_class);
    return 0;
}

static const struct lg_driver drv = {
    .name = "fake",
    .submit = drv_submit,
    .on_read = drv_on_read,
};

/* The churn driver: every request is answered at once by the fake server,
 * up to MAX_SUBMITS; each submit records its connection and whether the
 * engine called it the connection's last, and puts it in group 1 or 2. */
enum { MAX_SUBMITS = 40 };
static struct {
    unsigned n;
    unsigned connection[MAX_SUBMITS];
    bool last[MAX_SUBMITS];
} submits;

static int churn_submit(struct lg_client *c, unsigned slot)
{
    if (submits.n == MAX_SUBMITS) return 0; /* unanswered: the client waits from here on */
    submits.connection[submits.n] = c->conn_attempts;
    submits.last[submits.n] = lg_conn_closing_when_idle(c);
    lg_req_group(c, slot, 1 + submits.n % 2);
    submits.n++;
    return write(peer_fd, "x", 1) == 1 ? 0 : -1;
}

static const char *const churn_groups[] = {"odd", "even"};
static const struct lg_driver churn_drv = {
    .name = "churn",
    .submit = churn_submit,
    .on_read = drv_on_read,
    .group_names = churn_groups,
    .n_groups = 2,
};

static void on_stop(struct ev_loop *loop, ev_timer *t, int revents)
{
    ev_break(loop, EVBREAK_ALL);
}

struct fixture {
    struct lg_config cfg;
    struct lg_target tgt;
    struct lg_worker w;
    struct lg_client c;
    struct lg_req slot;
    uint32_t free_slot;
    uint8_t rbuf[256];
};

static void run_client(struct fixture *f, const struct lg_driver *d, uint64_t conn_requests)
{
    memset(f, 0, sizeof(*f));
    f->cfg.tool = "test";
    f->cfg.slots = 1;
    f->cfg.conn_requests = conn_requests;
    f->cfg.timeout_ns = 10ull * LG_NS_PER_S;
    f->cfg.duration_ns = 10ull * LG_NS_PER_S;
    struct lg_worker *w = &f->w;
    w->cfg = &f->cfg;
    w->drv = d;
    w->tgt = &f->tgt;
    w->tp = &fake;
    w->n_classes = LG_ERR__BASE_COUNT;
    w->loop = ev_loop_new(EVFLAG_AUTO);
    w->rbuf = f->rbuf;
    w->rbuf_len = sizeof(f->rbuf);
    w->inflight.next = w->inflight.prev = &w->inflight;
    assert_int_equal(lg_expiry_init(w), 0); /* never watched: no request times out here */
    lg_worker_init_async(w);
    w->level_start_ns = lg_now_ns();
    w->deadline_ns = w->level_start_ns + f->cfg.duration_ns;
    assert_int_equal(lg_store_init(&w->store, w->n_classes, 0, 100, 1), 0);
    assert_int_equal(lg_store_init_groups(&w->store, d->n_groups, 100), 0);
    peer_fd = -1;
    w->clients = &f->c;
    w->n_clients = 1;
    lg_client_setup(w, &f->c, 0, NULL, &f->slot, &f->free_slot);
    reads = 0;

    lg_client_begin(&f->c); /* opens, and the request goes out */
    assert_int_equal(f->c.state, LG_CONN_READY);
    assert_int_equal(write(peer_fd, "x", 1), 1); /* its response */
    ev_timer stop;
    ev_timer_init(&stop, on_stop, 0.2, 0.);
    ev_timer_start(w->loop, &stop);
    ev_run(w->loop, 0);
    ev_timer_stop(w->loop, &stop);
    lg_expiry_free(w);
    lg_client_teardown(&f->c);
    close(peer_fd);
}

static void free_client(struct fixture *f)
{
    lg_store_free(&f->w.store, f->w.n_classes);
    ev_loop_destroy(f->w.loop);
}

static void read_that_waits_for_a_write_does_not_spin(void **state)
{
    struct fixture *f = malloc(sizeof(*f));
    assert_non_null(f);
    bad_class = LG_OK;
    run_client(f, &drv, 0);
    /* once to learn it must wait, once after the socket was writable; the
     * old client kept the read watcher on and read thousands of times */
    assert_int_equal(reads, 2);
    assert_int_equal(f->w.store.counters[LG_C_REQUESTS], 1);
    free_client(f);
    free(f);
}

static void error_class_out_of_range_is_counted_in_range(void **state)
{
    struct fixture *f = malloc(sizeof(*f));
    assert_non_null(f);
    bad_class = 9999;
    run_client(f, &drv, 0);
    assert_int_equal(f->w.store.counters[LG_C_ERRORS], 1);
    assert_int_equal(f->w.store.errors[LG_ERR_RESET], 1);
    free_client(f);
    free(f);
}

static void conn_requests_ends_each_connection_after_n(void **state)
{
    struct fixture *f = malloc(sizeof(*f));
    assert_non_null(f);
    bad_class = LG_OK;
    memset(&submits, 0, sizeof(submits));
    run_client(f, &churn_drv, 3);
    assert_int_equal(submits.n, MAX_SUBMITS);
    for (unsigned k = 0; k < MAX_SUBMITS; k++) {
        /* requests 1-3 on connection 1, 4-6 on connection 2, ...: the third
         * of each is its last, and the next starts a new connection */
        assert_int_equal(submits.connection[k], k / 3 + 1);
        assert_int_equal(submits.last[k], k % 3 == 2);
    }
    const struct lg_store *st = &f->w.store;
    uint64_t requests = st->counters[LG_C_REQUESTS];
    assert_true(requests >= MAX_SUBMITS - 1); /* the last one's answer may still be in flight */
    assert_int_equal(st->counters[LG_C_CONNECTIONS], (MAX_SUBMITS + 2) / 3);
    assert_int_equal(st->counters[LG_C_RECONNECTS], (MAX_SUBMITS + 2) / 3 - 1);
    assert_int_equal(st->series[LG_S_LATENCY_COLD].seen, (MAX_SUBMITS + 2) / 3);
    assert_int_equal(st->counters[LG_C_ERRORS], 0);
    /* every completed request gave its group a sample, cold or warm as it was */
    assert_int_equal(st->n_groups, 2);
    uint64_t in_groups = 0, cold_in_groups = 0;
    for (unsigned g = 0; g < 2; g++) {
        cold_in_groups += st->groups[2 * g].seen;
        in_groups += st->groups[2 * g].seen + st->groups[2 * g + 1].seen;
    }
    assert_int_equal(in_groups, requests);
    assert_int_equal(cold_in_groups, st->series[LG_S_LATENCY_COLD].seen);
    /* requests 1, 3, 5, ... (group 1) are cold when they open a connection:
     * 1, 7, 13, ... */
    assert_int_equal(st->groups[0].seen, (MAX_SUBMITS + 5) / 6);
    free_client(f);
    free(f);
}

/* The ender: each submit ends the oldest other request in flight (as an
 * ICMP error reported by send() does), up to ENDER_CAP submits. */
enum { ENDER_SLOTS = 4, ENDER_CAP = 1000 };
static unsigned ender_submits;

static int ender_submit(struct lg_client *c, unsigned slot)
{
    if (++ender_submits >= ENDER_CAP) return 0;
    for (unsigned i = 0; i < ENDER_SLOTS; i++)
        if (i != slot && lg_req_active(c, i)) {
            lg_req_done(c, i, LG_ERR_SEND);
            break;
        }
    return 0;
}

static const struct lg_driver ender_drv = {
    .name = "ender",
    .submit = ender_submit,
    .on_read = drv_on_read,
};

static void request_ending_in_its_send_path_waits_for_the_loop(void **state)
{
    struct lg_config cfg = {.tool = "test", .slots = ENDER_SLOTS};
    cfg.timeout_ns = 10ull * LG_NS_PER_S;
    cfg.duration_ns = 10ull * LG_NS_PER_S;
    cfg.retry_delay_ns = 0;
    struct lg_target tgt;
    memset(&tgt, 0, sizeof(tgt));
    struct lg_worker *w = calloc(1, sizeof(*w));
    struct lg_client *c = calloc(2, sizeof(*c));
    struct lg_req slots[2 * ENDER_SLOTS];
    uint32_t free_slots[2 * ENDER_SLOTS];
    uint8_t rbuf[64];
    assert_non_null(w);
    assert_non_null(c);
    w->cfg = &cfg;
    w->drv = &ender_drv;
    w->tgt = &tgt;
    w->tp = &fake;
    w->n_classes = LG_ERR__BASE_COUNT;
    w->loop = ev_loop_new(EVFLAG_AUTO);
    w->rbuf = rbuf;
    w->rbuf_len = sizeof(rbuf);
    w->inflight.next = w->inflight.prev = &w->inflight;
    assert_int_equal(lg_expiry_init(w), 0); /* never watched: no request times out here */
    lg_worker_init_async(w);
    w->level_start_ns = lg_now_ns();
    w->deadline_ns = w->level_start_ns + cfg.duration_ns;
    assert_int_equal(lg_store_init(&w->store, w->n_classes, 0, 100, 1), 0);
    w->clients = c;
    w->n_clients = 2;
    peer_fd = -1;
    for (unsigned i = 0; i < 2; i++)
        lg_client_setup(w, &c[i], i, NULL, &slots[i * ENDER_SLOTS], &free_slots[i * ENDER_SLOTS]);
    ender_submits = 0;
    lg_client_begin(&c[0]);
    assert_int_equal(ender_submits, 1); /* its first attempt, and nothing more */
    lg_client_kick(&c[0]);
    /* the other three slots, each ending an earlier request: those slots
     * stay taken until the loop settles them (the old engine started a new
     * request in each at once, up to the cap) */
    assert_int_equal(ender_submits, ENDER_SLOTS);
    assert_int_equal(c[0].inflight, ENDER_SLOTS);
    assert_int_equal(w->store.counters[LG_C_ERRORS], 0);
    assert_non_null(w->settle_head);
    /* one loop iteration settles them (counted as send errors) and lets the
     * client start again, a slot-full at a time */
    ev_run(w->loop, EVRUN_NOWAIT);
    assert_int_equal(w->store.counters[LG_C_ERRORS], ENDER_SLOTS - 1);
    assert_int_equal(w->store.errors[LG_ERR_SEND], ENDER_SLOTS - 1);
    assert_true(ender_submits <= 2 * ENDER_SLOTS);
    for (unsigned i = 0; i < 2; i++) {
        lg_client_abandon(&c[i]);
        lg_client_teardown(&c[i]);
    }
    assert_int_equal(w->store.counters[LG_C_ATTEMPTS], w->store.counters[LG_C_REQUESTS] +
                                                           w->store.counters[LG_C_ERRORS] +
                                                           w->store.counters[LG_C_UNFINISHED]);
    if (peer_fd >= 0) close(peer_fd);
    ev_check_stop(w->loop, &w->settle_check);
    ev_idle_stop(w->loop, &w->settle_idle);
    lg_expiry_free(w);
    lg_store_free(&w->store, w->n_classes);
    ev_loop_destroy(w->loop);
    free(c);
    free(w);
}

/* The flusher: its flush (the end of every kick) ends the oldest request in
 * flight, as an HTTP/2 flush does when it closes streams. */
static unsigned flusher_submits, flusher_ends;

static int flusher_submit(struct lg_client *c, unsigned slot)
{
    flusher_submits++;
    return 0;
}

static int flusher_flush(struct lg_client *c)
{
    for (unsigned i = 0; i < ENDER_SLOTS && flusher_ends < 3; i++)
        if (lg_req_active(c, i)) {
            lg_req_done(c, i, 0);
            flusher_ends++;
            break;
        }
    return 0;
}

static const struct lg_driver flusher_drv = {
    .name = "flusher",
    .submit = flusher_submit,
    .on_read = drv_on_read,
    .flush = flusher_flush,
};

/* A request that ends in the driver's flush is settled from the loop, and
 * the client is kicked after it: its slot does not sit free until some
 * other event happens to come (the old engine freed it with no kick after). */
static void request_ending_in_flush_is_followed_by_a_kick(void **state)
{
    struct lg_config cfg = {.tool = "test", .slots = ENDER_SLOTS};
    cfg.timeout_ns = 10ull * LG_NS_PER_S;
    cfg.duration_ns = 10ull * LG_NS_PER_S;
    struct lg_target tgt;
    memset(&tgt, 0, sizeof(tgt));
    struct lg_worker *w = calloc(1, sizeof(*w));
    struct lg_client c;
    struct lg_req slots[ENDER_SLOTS];
    uint32_t free_slots[ENDER_SLOTS];
    uint8_t rbuf[64];
    assert_non_null(w);
    w->cfg = &cfg;
    w->drv = &flusher_drv;
    w->tgt = &tgt;
    w->tp = &fake;
    w->n_classes = LG_ERR__BASE_COUNT;
    w->loop = ev_loop_new(EVFLAG_AUTO);
    w->rbuf = rbuf;
    w->rbuf_len = sizeof(rbuf);
    w->inflight.next = w->inflight.prev = &w->inflight;
    assert_int_equal(lg_expiry_init(w), 0); /* never watched: no request times out here */
    lg_worker_init_async(w);
    w->level_start_ns = lg_now_ns();
    w->deadline_ns = w->level_start_ns + cfg.duration_ns;
    assert_int_equal(lg_store_init(&w->store, w->n_classes, 0, 100, 1), 0);
    w->clients = &c;
    w->n_clients = 1;
    peer_fd = -1;
    flusher_submits = flusher_ends = 0;
    lg_client_setup(w, &c, 0, NULL, slots, free_slots);
    lg_client_begin(&c);
    lg_client_kick(&c);
    assert_int_equal(flusher_submits, ENDER_SLOTS);
    assert_int_equal(flusher_ends, 1);
    assert_int_equal(c.inflight, ENDER_SLOTS); /* the ended one keeps its slot for now */
    ev_run(w->loop, EVRUN_NOWAIT);
    /* settled (a success), then kicked: a new request took the slot */
    assert_int_equal(w->store.counters[LG_C_REQUESTS], 1);
    assert_int_equal(flusher_submits, ENDER_SLOTS + 1);
    lg_client_abandon(&c);
    lg_client_teardown(&c);
    if (peer_fd >= 0) close(peer_fd);
    ev_check_stop(w->loop, &w->settle_check);
    ev_idle_stop(w->loop, &w->settle_idle);
    lg_expiry_free(w);
    lg_store_free(&w->store, w->n_classes);
    ev_loop_destroy(w->loop);
    free(w);
}

/* The giver-up: never answered; when a request times out its driver tries
 * to reset it and the write fails (recorded as a send failure). */
static int silent_submit(struct lg_client *c, unsigned slot)
{
    return 0;
}

static int failing_on_timeout(struct lg_client *c, unsigned slot)
{
    lg_conn_fail(c, LG_ERR_SEND, "the reset could not be written");
    return -1;
}

static const struct lg_driver giver_up_drv = {
    .name = "giver-up",
    .submit = silent_submit,
    .on_read = drv_on_read,
    .on_timeout = failing_on_timeout,
};

/* The request that timed out is a timeout; what else was in flight on the
 * connection is lost to the cause the driver recorded as it gave up (a
 * write that failed), not renamed a timeout: the first recorded cause stands. */
static void timeout_keeps_the_recorded_cause_of_the_others(void **state)
{
    struct lg_config cfg = {.tool = "test", .slots = 2};
    cfg.timeout_ns = 10ull * LG_NS_PER_S;
    cfg.duration_ns = 10ull * LG_NS_PER_S;
    struct lg_target tgt;
    memset(&tgt, 0, sizeof(tgt));
    struct lg_worker *w = calloc(1, sizeof(*w));
    struct lg_client c;
    struct lg_req slots[2];
    uint32_t free_slots[2];
    uint8_t rbuf[64];
    assert_non_null(w);
    w->cfg = &cfg;
    w->drv = &giver_up_drv;
    w->tgt = &tgt;
    w->tp = &fake;
    w->n_classes = LG_ERR__BASE_COUNT;
    w->loop = ev_loop_new(EVFLAG_AUTO);
    w->rbuf = rbuf;
    w->rbuf_len = sizeof(rbuf);
    w->inflight.next = w->inflight.prev = &w->inflight;
    assert_int_equal(lg_expiry_init(w), 0); /* never watched: the test times the request out */
    lg_worker_init_async(w);
    w->level_start_ns = lg_now_ns();
    w->deadline_ns = w->level_start_ns + cfg.duration_ns;
    w->draining = false;
    assert_int_equal(lg_store_init(&w->store, w->n_classes, 0, 100, 1), 0);
    w->clients = &c;
    w->n_clients = 1;
    peer_fd = -1;
    lg_client_setup(w, &c, 0, NULL, slots, free_slots);
    lg_client_begin(&c);
    lg_client_kick(&c);
    assert_int_equal(c.inflight, 2);
    w->draining = true; /* no restart after the failure */
    lg_client_timeout(w->inflight.next);
    assert_int_equal(w->store.errors[LG_ERR_TIMEOUT], 1);
    assert_int_equal(w->store.errors[LG_ERR_SEND], 1);
    assert_int_equal(w->store.counters[LG_C_ERRORS], 2);
    lg_client_teardown(&c);
    if (peer_fd >= 0) close(peer_fd);
    lg_expiry_free(w);
    lg_store_free(&w->store, w->n_classes);
    ev_loop_destroy(w->loop);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_that_waits_for_a_write_does_not_spin),
        cmocka_unit_test(error_class_out_of_range_is_counted_in_range),
        cmocka_unit_test(conn_requests_ends_each_connection_after_n),
        cmocka_unit_test(request_ending_in_its_send_path_waits_for_the_loop),
        cmocka_unit_test(timeout_keeps_the_recorded_cause_of_the_others),
        cmocka_unit_test(request_ending_in_flush_is_followed_by_a_kick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
