/* bench/floor: DNS over UDP, one connected socket per client and one query
 * in flight on each: one send and one receive per query, the reply's ID
 * checked, nothing recorded. The queries are bench/dns's four (RD set, no
 * EDNS, as dnsload sends them by default), encoded once; each query patches
 * its ID in. A query without a reply for a second is sent again (counted as
 * an error), so a lost datagram cannot stall a socket. With --uring the
 * sends and receives are io_uring operations (floor_uring.c); each socket
 * then has its own query and reply buffers, which must stay put while the
 * kernel holds them. */
#define _GNU_SOURCE
#include "floor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

struct dns_conn {
    int fd;
    uint16_t id;  /* of the query in flight */
    unsigned q;   /* which query it is */
    bool replied; /* a reply came since the last tick */
};

static const struct {
    const char *name;
    uint16_t type;
} queries[] = {{"www.example.test", 1},
               {"www.example.test", 28},
               {"example.test", 15},
               {"mail.example.test", 1}};
#define N_QUERIES (sizeof(queries) / sizeof(queries[0]))

static uint8_t packet[N_QUERIES][64];
static size_t packet_len[N_QUERIES];
static struct dns_conn *conns;
/* --uring only, apart from conns so the epoll floor's stay as small */
static struct ring_bufs {
    uint8_t query[64];
    uint8_t reply[512]; /* no EDNS is sent: a UDP reply fits in 512 bytes */
} * ring_bufs;

static size_t encode(uint8_t *p, const char *name, uint16_t type)
{
    static const uint8_t header[12] = {0, 0, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
    memcpy(p, header, 12);
    size_t n = 12;
    while (*name) {
        const char *dot = strchr(name, '.');
        size_t l = dot ? (size_t)(dot - name) : strlen(name);
        p[n++] = (uint8_t)l;
        memcpy(p + n, name, l);
        n += l;
        name += l + (dot ? 1 : 0);
    }
    p[n++] = 0;
    p[n++] = (uint8_t)(type >> 8);
    p[n++] = (uint8_t)type;
    p[n++] = 0;
    p[n++] = 1; /* class IN */
    return n;
}

static int dns_send(struct floor *f, struct dns_conn *c)
{
    uint8_t stack_buf[64];
    uint8_t *buf = ring_bufs ? ring_bufs[c - conns].query : stack_buf;
    size_t len = packet_len[c->q];
    memcpy(buf, packet[c->q], len);
    c->id++;
    buf[0] = (uint8_t)(c->id >> 8);
    buf[1] = (uint8_t)c->id;
    if (ring_bufs) return floor_ring_send(f, c->fd, buf, len);
    if (send(c->fd, buf, len, 0) == (ssize_t)len) return 0;
    floor_error(f, "send failed");
    return -1;
}

static int dns_open(struct floor *f, unsigned i)
{
    if (!conns) {
        conns = calloc(f->a->clients, sizeof(*conns));
        if (!conns) return -1;
        for (size_t q = 0; q < N_QUERIES; q++)
            packet_len[q] = encode(packet[q], queries[q].name, queries[q].type);
    }
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)f->a->port)};
    if (inet_pton(AF_INET, f->a->host, &sa.sin_addr) != 1) {
        fprintf(stderr, "floor: %s is not an IPv4 address\n", f->a->host);
        return -1;
    }
    struct dns_conn *c = &conns[i];
    c->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        perror("floor: UDP socket");
        return -1;
    }
    c->q = i % N_QUERIES;
    c->id = (uint16_t)(i * 7919u);
    f->connected++;
    if (!f->a->uring && floor_watch(f, c->fd, c, EPOLLIN, true) < 0) return -1;
    if (f->a->idle) return 0;
    c->replied = true; /* a second to go before the first tick asks */
    return dns_send(f, c) < 0 ? -1 : 0;
}

/* A reply of n bytes: its ID checked, the next query sent. */
static void dns_reply(struct floor *f, struct dns_conn *c, const uint8_t *buf, ssize_t n)
{
    if (n < 12 || buf[0] != (uint8_t)(c->id >> 8) || buf[1] != (uint8_t)c->id) {
        floor_error(f, "a reply with another ID");
        return; /* the query stays in flight */
    }
    f->requests++;
    c->replied = true;
    c->q = (c->q + 1) % N_QUERIES;
    dns_send(f, c);
}

static void dns_event(struct floor *f, void *conn, uint32_t events)
{
    struct dns_conn *c = conn;
    ssize_t n = recv(c->fd, f->rbuf, sizeof(f->rbuf), 0);
    if (n < 0) {
        if (errno != EAGAIN) floor_error(f, "recv failed");
        return;
    }
    dns_reply(f, c, f->rbuf, n);
}

static int dns_ring_open(struct floor *f, unsigned i)
{
    if (!ring_bufs && !(ring_bufs = calloc(f->a->clients, sizeof(*ring_bufs)))) return -1;
    if (dns_open(f, i) < 0) return -1; /* connected, and its first query posted */
    return floor_ring_recv(f, conns[i].fd, ring_bufs[i].reply, sizeof(ring_bufs[i].reply),
                           &conns[i]);
}

/* A receive completed: the reply handled (the next query posted before the
 * next receive, as the epoll floor sends before it reads again). */
static void dns_ring_done(struct floor *f, void *conn, int res)
{
    struct dns_conn *c = conn;
    struct ring_bufs *b = &ring_bufs[c - conns];
    if (res < 0)
        floor_error(f, "recv failed");
    else
        dns_reply(f, c, b->reply, res);
    floor_ring_recv(f, c->fd, b->reply, sizeof(b->reply), c);
}

/* Once a second: a socket that had no reply since the last tick lost its
 * query, which is sent again (one flag per reply, no clock read per query;
 * the walk costs once a second, not per query). */
static void dns_tick(struct floor *f, uint64_t now)
{
    if (f->a->idle || !conns) return;
    for (unsigned i = 0; i < f->a->clients; i++) {
        struct dns_conn *c = &conns[i];
        if (c->fd <= 0) continue;
        if (!c->replied) {
            floor_error(f, "a query got no reply within a second");
            dns_send(f, c);
        }
        c->replied = false;
    }
}

const struct floor_proto floor_dns = {
    .open = dns_open,
    .event = dns_event,
    .tick = dns_tick,
    .ring_open = dns_ring_open,
    .ring_done = dns_ring_done,
};
