/* bench/floor --uring: the same jobs (h1, dns) with every send and receive
 * an io_uring operation instead of a system call of its own: the operations
 * that become due while completions are handled go to the kernel together,
 * in the one io_uring_enter that also waits for the next completions. It
 * answers how far below the epoll floor this machine lets a generator go:
 * the same work, fewer kernel crossings. The ring is set up for one thread
 * (SINGLE_ISSUER) that runs the completions' deferred work itself when it
 * enters (DEFER_TASKRUN), as the fastest setting of this kernel allows. */
#define _GNU_SOURCE
#include "floor.h"

#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <string.h>

static struct io_uring ring;

int floor_ring_init(struct floor *f)
{
    struct io_uring_params p = {
        .flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
    };
    /* a send and a receive in flight per connection, and room for a resend */
    int rc = io_uring_queue_init_params(4 * f->a->clients, &ring, &p);
    if (rc < 0) {
        fprintf(stderr, "floor: io_uring: %s\n", strerror(-rc));
        return -1;
    }
    return 0;
}

static struct io_uring_sqe *sqe_get(struct floor *f)
{
    struct io_uring_sqe *s = io_uring_get_sqe(&ring);
    if (s) return s;
    io_uring_submit(&ring); /* the queue is full: hand it over, then go on */
    s = io_uring_get_sqe(&ring);
    if (!s) floor_error(f, "io_uring: no submission entry free");
    return s;
}

/* A send whose success posts no completion; a failed one posts one with no
 * connection, counted as an error. The buffer must stay as it is until the
 * next io_uring_enter (the floor's do: the request is a constant, a query
 * sits in its connection until the reply). */
int floor_ring_send(struct floor *f, int fd, const void *buf, size_t len)
{
    struct io_uring_sqe *s = sqe_get(f);
    if (!s) return -1;
    io_uring_prep_send(s, fd, buf, len, MSG_NOSIGNAL);
    io_uring_sqe_set_data(s, NULL);
    s->flags |= IOSQE_CQE_SKIP_SUCCESS;
    return 0;
}

int floor_ring_recv(struct floor *f, int fd, void *buf, size_t len, void *conn)
{
    struct io_uring_sqe *s = sqe_get(f);
    if (!s) return -1;
    io_uring_prep_recv(s, fd, buf, len, 0);
    io_uring_sqe_set_data(s, conn);
    return 0;
}

int floor_ring_run(struct floor *f, const struct floor_proto *p)
{
    f->start_ns = floor_now_ns();
    f->deadline_ns = f->start_ns + (uint64_t)(f->a->seconds * 1e9);
    uint64_t next_tick = f->start_ns + 1000000000u;
    for (unsigned i = 0; i < f->a->clients; i++)
        if (p->ring_open(f, i) < 0) return -1;
    for (;;) {
        uint64_t now = floor_now_ns();
        if (now >= f->deadline_ns) break;
        if (now >= next_tick) {
            if (p->tick) p->tick(f, now);
            next_tick += 1000000000u;
        }
        uint64_t wake = f->deadline_ns < next_tick ? f->deadline_ns : next_tick;
        struct __kernel_timespec ts = {.tv_sec = (long long)((wake - now) / 1000000000u),
                                       .tv_nsec = (long long)((wake - now) % 1000000000u)};
        struct io_uring_cqe *cqe;
        int rc = io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &ts, NULL);
        if (rc < 0 && rc != -ETIME && rc != -EINTR) {
            fprintf(stderr, "floor: io_uring_enter: %s\n", strerror(-rc));
            return -1;
        }
        unsigned head, seen = 0;
        io_uring_for_each_cqe(&ring, head, cqe)
        {
            seen++;
            void *conn = io_uring_cqe_get_data(cqe);
            if (conn)
                p->ring_done(f, conn, cqe->res);
            else if (cqe->res < 0)
                floor_error(f, "a send failed");
        }
        io_uring_cq_advance(&ring, seen);
    }
    return 0;
}
