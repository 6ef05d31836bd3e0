/* bench/floor: HTTP/1.1 keep-alive, one request in flight per connection:
 * one write per request, the response read as it comes (one read when it
 * fits), framed by its Content-Length and its status checked. Nothing is
 * recorded. A response split inside its header is gathered first (never
 * with the bench's 153-byte response). With --uring the write and the
 * reads are io_uring operations (floor_uring.c), each connection reading
 * into a buffer of its own, which the kernel holds between reads. */
#define _GNU_SOURCE
#include "floor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

struct h1_conn {
    struct floor_sock s;
    bool busy;    /* a request is in flight */
    bool in_body; /* its header is read; body_left bytes to go */
    size_t body_left;
    char *head; /* a header split over reads, gathered (rare) */
    size_t head_len;
};

static struct h1_conn *conns;
/* --uring only: a read buffer per connection (apart from conns, so the
 * epoll floor's stay as small); the response is 153 bytes */
#define RING_BUF 4096
static uint8_t (*ring_bufs)[RING_BUF];
static char request[256];
static size_t request_len;

static int h1_send(struct floor *f, struct h1_conn *c)
{
    if (f->a->idle) return 0;
    c->busy = true;
    c->in_body = false;
    if (ring_bufs) return floor_ring_send(f, c->s.fd, request, request_len);
    if (floor_sock_write(&c->s, request, request_len) == 0) return 0;
    floor_error(f, "the socket did not take a whole request");
    return -1;
}

/* The connections and the request's bytes, at the first open. */
static int h1_setup(struct floor *f)
{
    if (conns) return 0;
    conns = calloc(f->a->clients, sizeof(*conns));
    if (!conns) return -1;
    request_len = (size_t)snprintf(
        request, sizeof(request),
        "GET %s HTTP/1.1\r\nHost: %s:%u\r\nUser-Agent: floor/1\r\nAccept: */*\r\n\r\n", f->a->path,
        f->a->host, f->a->port);
    return 0;
}

static int h1_open(struct floor *f, unsigned i)
{
    if (h1_setup(f) < 0) return -1;
    return floor_sock_open(f, &conns[i].s, &conns[i]);
}

static uint64_t load8(const char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* Whether the line at p (n bytes before its '\n') is "Content-Length:",
 * in any case (eight bytes at a time: setting bit 5 lowers a letter and
 * leaves '-' as it is); its value is read into *cl. */
static bool content_length(const char *p, size_t n, size_t *cl)
{
    const uint64_t lower = 0x2020202020202020u;
    if (n < 16 || (load8(p) | lower) != load8("content-") ||
        (load8(p + 6) | lower) != load8("t-length") || p[14] != ':')
        return false;
    size_t v = 0, i = 15;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    if (i == n || p[i] < '0' || p[i] > '9') return false;
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
        v = v * 10 + (size_t)(p[i] - '0');
    *cl = v;
    return true;
}

/* The header at h (have bytes so far): its status checked, its lines
 * walked to the empty one, its Content-Length read. The header's length,
 * 0 when it is not complete yet, -1 for a bad response. */
static long h1_header(struct h1_conn *c, const char *h, size_t have)
{
    if (have < 12) return 0;
    if (memcmp(h, "HTTP/1.1 ", 9) != 0 || h[9] != '2') return -1;
    const char *end = h + have, *p = memchr(h, '\n', have);
    bool have_cl = false;
    while (p) {
        const char *line = p + 1;
        p = memchr(line, '\n', (size_t)(end - line));
        if (!p) return 0;
        size_t n = (size_t)(p - line);
        if (n <= 1) { /* the empty line ("\r\n" or "\n") */
            if (!have_cl) return -1;
            c->in_body = true;
            return (long)(p + 1 - h);
        }
        if (!have_cl) have_cl = content_length(line, n, &c->body_left);
    }
    return 0;
}

/* Bytes of the response: 1 when it is complete, 0 for more, -1 bad. */
static int h1_input(struct h1_conn *c, const uint8_t *d, size_t n)
{
    if (!c->busy) return -1;
    if (!c->in_body) {
        const char *h = (const char *)d;
        size_t have = n;
        if (c->head_len) { /* the rest of a split header */
            char *g = realloc(c->head, c->head_len + n);
            if (!g) return -1;
            memcpy(g + c->head_len, d, n);
            c->head = g;
            h = g;
            have = c->head_len + n;
        }
        long hlen = h1_header(c, h, have);
        if (hlen < 0) return -1;
        if (hlen == 0) {
            if (!c->head_len) {
                if (!(c->head = malloc(n))) return -1;
                memcpy(c->head, d, n);
            }
            c->head_len = have;
            return 0;
        }
        size_t body = have - (size_t)hlen;
        free(c->head);
        c->head = NULL;
        c->head_len = 0;
        if (body > c->body_left) return -1; /* no pipelining: nothing may follow */
        c->body_left -= body;
    } else {
        if (n > c->body_left) return -1;
        c->body_left -= n;
    }
    if (c->body_left) return 0;
    c->busy = false;
    return 1;
}

static void h1_fail(struct floor *f, struct h1_conn *c, const char *what)
{
    floor_error(f, what);
    floor_sock_close(&c->s);
}

/* A read of n bytes (0: the server closed, below 0: it failed): the
 * response so far framed, and when it is whole the next request sent. 0, or
 * -1 when the connection was closed. */
static int h1_read(struct floor *f, struct h1_conn *c, const uint8_t *buf, ssize_t n)
{
    if (n <= 0) {
        h1_fail(f, c, n == 0 ? "the server closed a connection" : "read failed");
        return -1;
    }
    int rc = h1_input(c, buf, (size_t)n);
    if (rc < 0) {
        h1_fail(f, c, "bad response (status, framing or extra bytes)");
        return -1;
    }
    if (rc == 1) {
        f->requests++;
        if (h1_send(f, c) < 0) {
            floor_sock_close(&c->s);
            return -1;
        }
    }
    return 0;
}

static void h1_event(struct floor *f, void *conn, uint32_t events)
{
    struct h1_conn *c = conn;
    if (!c->s.ready) {
        int rc = floor_sock_setup(f, &c->s, c);
        if (rc < 0) floor_sock_close(&c->s);
        if (rc == 1 && h1_send(f, c) < 0) floor_sock_close(&c->s);
        return;
    }
    for (;;) {
        ssize_t n = floor_sock_read(&c->s, f->rbuf, sizeof(f->rbuf));
        if (n == -1) return;
        if (h1_read(f, c, f->rbuf, n) < 0) return;
        if (!floor_sock_more(&c->s, (size_t)n, sizeof(f->rbuf))) return;
    }
}

static int h1_ring_open(struct floor *f, unsigned i)
{
    if (!ring_bufs && !(ring_bufs = calloc(f->a->clients, RING_BUF))) return -1;
    if (h1_setup(f) < 0) return -1;
    struct h1_conn *c = &conns[i];
    c->s.fd = floor_sock_connect_now(f);
    if (c->s.fd < 0) return -1;
    c->s.connected = c->s.ready = true;
    f->connected++;
    if (h1_send(f, c) < 0) return -1;
    return floor_ring_recv(f, c->s.fd, ring_bufs[i], RING_BUF, c);
}

/* A read completed: handled as the epoll loop's, then the next read. */
static void h1_ring_done(struct floor *f, void *conn, int res)
{
    struct h1_conn *c = conn;
    uint8_t *buf = ring_bufs[c - conns];
    if (h1_read(f, c, buf, res) < 0) return;
    if (floor_ring_recv(f, c->s.fd, buf, RING_BUF, c) < 0) floor_sock_close(&c->s);
}

const struct floor_proto floor_h1 = {
    .alpn = (const unsigned char *)"\x08http/1.1",
    .alpn_len = 9,
    .open = h1_open,
    .event = h1_event,
    .ring_open = h1_ring_open,
    .ring_done = h1_ring_done,
};
