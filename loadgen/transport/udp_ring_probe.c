/* The io_uring transport's probe, run before a tool takes the ring: can this
 * process set one up, and does a loop asleep beside it (in epoll_wait, on the
 * ring's eventfd) wake when a datagram arrives as soon as it would for a
 * plain socket? A loopback pair, a thread of the probe's own that sends one
 * datagram at a time while the probe sleeps, the ring's and the plain
 * socket's wake-ups interleaved and compared by their medians. */
#include "loadgen/transport/transport.h"
#include "loadgen/transport/udp_ring.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 5               /* of each kind */
#define WAIT_MS 50             /* a wake-up later than this counts as none */
#define SENDER_PAUSE_NS 300000 /* long enough for the probe to be asleep */

static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

struct pair {
    int rx, tx; /* connected to each other */
};

struct probe {
    struct pair ring_pair, plain_pair;
    int go[2]; /* pipe: the probe tells the sender which pair, 'q' to quit */
    _Atomic uint64_t sent_ns;
};

static int pair_open(struct pair *p)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct sockaddr_in rx_at, tx_at;
    socklen_t len = sizeof(rx_at);
    p->rx = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    p->tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (p->rx < 0 || p->tx < 0 || bind(p->rx, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        bind(p->tx, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        getsockname(p->rx, (struct sockaddr *)&rx_at, &len) < 0 ||
        (len = sizeof(tx_at), getsockname(p->tx, (struct sockaddr *)&tx_at, &len)) < 0 ||
        connect(p->tx, (struct sockaddr *)&rx_at, sizeof(rx_at)) < 0 ||
        connect(p->rx, (struct sockaddr *)&tx_at, sizeof(tx_at)) < 0)
        return -errno;
    return 0;
}

static void pair_close(struct pair *p)
{
    if (p->rx >= 0) close(p->rx);
    if (p->tx >= 0) close(p->tx);
}

static void *sender_main(void *arg)
{
    struct probe *pr = arg;
    char which;
    while (read(pr->go[0], &which, 1) == 1 && which != 'q') {
        struct timespec pause = {0, SENDER_PAUSE_NS};
        nanosleep(&pause, NULL);
        int fd = which == 'r' ? pr->ring_pair.tx : pr->plain_pair.tx;
        atomic_store(&pr->sent_ns, mono_ns());
        ssize_t n = send(fd, "?", 1, 0);
        (void)n; /* a datagram lost here shows as a wake-up that never came */
    }
    return NULL;
}

/* Sleeps in epoll_wait on ep until it reports something: the wake-up's
 * lateness after the sender's datagram, in ns (WAIT_MS's worth: none). */
static uint64_t wait_wake(struct probe *pr, int ep, char which)
{
    if (write(pr->go[1], &which, 1) != 1) return (uint64_t)WAIT_MS * 1000000u;
    uint64_t until = mono_ns() + (uint64_t)WAIT_MS * 1000000u;
    for (;;) {
        uint64_t now = mono_ns();
        if (now >= until) break;
        struct epoll_event ev;
        int n = epoll_wait(ep, &ev, 1, (int)((until - now) / 1000000u) + 1);
        if (n > 0) {
            uint64_t woke = mono_ns(), sent = atomic_load(&pr->sent_ns);
            return woke > sent ? woke - sent : 0;
        }
        /* EINTR: the ring's task work ran on the way out, and its eventfd
         * has been signalled if it was to be; wait again */
    }
    return (uint64_t)WAIT_MS * 1000000u;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The ring's rounds and the plain socket's, interleaved; lateness in ns.
 * 0, or -errno when the ring failed under it. */
static int run_rounds(struct probe *pr, struct io_uring *ring, int efd, uint64_t *ring_late,
                      uint64_t *plain_late)
{
    int ep_ring = epoll_create1(EPOLL_CLOEXEC), ep_plain = epoll_create1(EPOLL_CLOEXEC);
    int rc = ep_ring < 0 || ep_plain < 0 ? -errno : 0;
    struct epoll_event ev = {.events = EPOLLIN};
    if (!rc && (epoll_ctl(ep_ring, EPOLL_CTL_ADD, efd, &ev) < 0 ||
                epoll_ctl(ep_plain, EPOLL_CTL_ADD, pr->plain_pair.rx, &ev) < 0))
        rc = -errno;
    char buf[16];
    for (int i = 0; !rc && i < ROUNDS; i++) {
        struct io_uring_sqe *s = io_uring_get_sqe(ring);
        io_uring_prep_recv(s, pr->ring_pair.rx, buf, sizeof(buf), 0);
        io_uring_sqe_set_data64(s, 1);
        rc = io_uring_submit(ring);
        if (rc < 0) break;
        rc = 0;
        /* the ring's eventfd may hold a signal from the submit: start clean */
        uint64_t count;
        ssize_t got = read(efd, &count, sizeof(count));
        (void)got;
        ring_late[i] = wait_wake(pr, ep_ring, 'r');
        got = read(efd, &count, sizeof(count));
        /* collect the completion (a late one too: the ring must be empty
         * for the next round) */
        struct io_uring_cqe *cqe;
        struct __kernel_timespec ts = {.tv_sec = 1};
        if (io_uring_wait_cqe_timeout(ring, &cqe, &ts) == 0) io_uring_cqe_seen(ring, cqe);
        plain_late[i] = wait_wake(pr, ep_plain, 'p');
        while (recv(pr->plain_pair.rx, buf, sizeof(buf), 0) > 0)
            ;
        if (ring_late[i] >= (uint64_t)WAIT_MS * 1000000u) {
            /* a ring that signals nothing: no need to wait out every round */
            for (int k = i + 1; k < ROUNDS; k++) {
                ring_late[k] = ring_late[i];
                plain_late[k] = plain_late[i];
            }
            break;
        }
    }
    if (ep_ring >= 0) close(ep_ring);
    if (ep_plain >= 0) close(ep_plain);
    return rc;
}

int lg_udp_ring_probe(char *why, size_t why_len)
{
    struct io_uring ring;
    int efd;
    int rc = lg_udp_ring_init(&ring, 8, 16, &efd);
    if (rc < 0) {
        snprintf(why, why_len, "cannot set up an io_uring: %s", strerror(-rc));
        return rc;
    }
    struct probe pr = {.ring_pair = {-1, -1}, .plain_pair = {-1, -1}, .go = {-1, -1}};
    pthread_t sender;
    bool started = false;
    uint64_t ring_late[ROUNDS], plain_late[ROUNDS];
    rc = lg_udp_ring_enable(&ring);
    if (!rc) rc = pair_open(&pr.ring_pair);
    if (!rc) rc = pair_open(&pr.plain_pair);
    if (!rc && pipe2(pr.go, O_CLOEXEC) < 0) rc = -errno;
    if (!rc) {
        int err = pthread_create(&sender, NULL, sender_main, &pr);
        started = err == 0;
        if (err) rc = -err;
    }
    if (!rc) rc = run_rounds(&pr, &ring, efd, ring_late, plain_late);
    if (started) {
        ssize_t n = write(pr.go[1], "q", 1);
        (void)n;
        pthread_join(sender, NULL);
    }
    io_uring_queue_exit(&ring); /* cancels a receive still posted */
    close(efd);
    pair_close(&pr.ring_pair);
    pair_close(&pr.plain_pair);
    if (pr.go[0] >= 0) close(pr.go[0]);
    if (pr.go[1] >= 0) close(pr.go[1]);
    if (rc < 0) {
        snprintf(why, why_len, "cannot probe the io_uring's wake-up: %s", strerror(-rc));
        return rc;
    }
    qsort(ring_late, ROUNDS, sizeof(ring_late[0]), cmp_u64);
    qsort(plain_late, ROUNDS, sizeof(plain_late[0]), cmp_u64);
    double ring_ms = (double)ring_late[ROUNDS / 2] / 1e6,
           plain_ms = (double)plain_late[ROUNDS / 2] / 1e6;
    /* late: more than a twice a plain socket's wake-up and half a
     * millisecond besides (a timer tick is 1 ms at HZ=1000, 4 at 250) */
    if (ring_ms > 2 * plain_ms + 0.5) {
        if (ring_late[ROUNDS / 2] >= (uint64_t)WAIT_MS * 1000000u)
            snprintf(why, why_len,
                     "probe: the io_uring signalled no completion within %d ms of its datagram "
                     "(a plain socket woke after %.3f ms)",
                     WAIT_MS, plain_ms);
        else
            snprintf(why, why_len,
                     "probe: a loop asleep beside the io_uring woke %.3f ms after a datagram "
                     "arrived, beside a plain socket %.3f ms (medians of %d)",
                     ring_ms, plain_ms, ROUNDS);
        return 1;
    }
    snprintf(why, why_len,
             "probe: a loop asleep beside the io_uring woke %.3f ms after a datagram arrived, "
             "beside a plain socket %.3f ms (medians of %d)",
             ring_ms, plain_ms, ROUNDS);
    return 0;
}
