/* bench/floor: minimal clients that do only what a load generator's job
 * cannot avoid (connect, set up TLS, write a request, read and frame its
 * response, check its status or ID), the reference every other bench figure
 * is divided by. Shared parts: options, the epoll loop, sockets and TLS. */
#ifndef BENCH_FLOOR_H
#define BENCH_FLOOR_H

#include <openssl/ssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct floor_args {
    const char *mode; /* h1, dns, h2 */
    unsigned clients; /* -c: connections (sockets) */
    unsigned streams; /* -m: requests in flight per connection (h2) */
    double seconds;   /* -d */
    const char *host; /* an IPv4 literal */
    unsigned port;
    const char *path;   /* h1, h2: the request's path */
    bool tls;           /* --tls */
    const char *cafile; /* --cacert: verified like httpload verifies */
    bool idle;          /* --idle: set up the connections, then send nothing */
    double ramp;        /* --ramp R: open R connections per second (0: all at once) */
    bool uring;         /* --uring: sends and receives through io_uring (h1, dns) */
};

struct floor;

/* What a protocol plugs into the loop. */
struct floor_proto {
    const unsigned char *alpn; /* TLS: the ALPN list, wire format */
    size_t alpn_len;
    /* Opens connection i (0..clients-1); -1 stops the run. */
    int (*open)(struct floor *f, unsigned i);
    /* An epoll event for the pointer given to floor_watch. */
    void (*event)(struct floor *f, void *conn, uint32_t events);
    /* Once a second, optional (the DNS floor resends lost queries). */
    void (*tick)(struct floor *f, uint64_t now_ns);
    /* --uring: opens connection i (connected before it returns) and posts
     * its first operations; -1 stops the run. */
    int (*ring_open)(struct floor *f, unsigned i);
    /* --uring: a receive posted for conn completed with res (bytes, or
     * -errno). */
    void (*ring_done)(struct floor *f, void *conn, int res);
};

struct floor {
    const struct floor_args *a;
    int ep;
    uint64_t start_ns, deadline_ns;
    uint64_t requests, errors, connected;
    uint8_t rbuf[16384]; /* one read buffer for every connection, as httpload's worker */
    SSL_CTX *tls;
};

uint64_t floor_now_ns(void);
/* Prints one line and counts an error; the run's exit status becomes 1. */
void floor_error(struct floor *f, const char *what);
/* epoll interest: add (first call for fd) or modify. */
int floor_watch(struct floor *f, int fd, void *conn, uint32_t events, bool add);

/* A stream socket with optional TLS, set up step by step. */
struct floor_sock {
    int fd;
    SSL *ssl;
    uint32_t events; /* the epoll interest now */
    bool connected, ready;
};

/* Starts a non-blocking TCP connect (TCP_NODELAY, as httpload). 0 or -1. */
int floor_sock_open(struct floor *f, struct floor_sock *s, void *conn);
/* Goes on with connect and TLS handshake after an event: 1 ready (read
 * interest on), 0 waiting, -1 failed (counted). */
int floor_sock_setup(struct floor *f, struct floor_sock *s, void *conn);
/* Bytes, or 0 at EOF, -1 when nothing is there, -2 on an error. */
ssize_t floor_sock_read(struct floor_sock *s, uint8_t *buf, size_t len);
/* Whether a read right after one of n bytes into len finds more without
 * waiting (a full read, or TLS records already read ahead). */
bool floor_sock_more(const struct floor_sock *s, size_t n, size_t len);
/* Writes all of it in one call: 0, or -1 when the socket did not take it
 * whole (the floor's requests are small: that is an error here). */
int floor_sock_write(struct floor_sock *s, const void *buf, size_t len);
void floor_sock_close(struct floor_sock *s);

/* The TLS context with loadgen/transport/tls.c's settings (keep them in step). */
SSL_CTX *floor_tls_ctx(const struct floor_args *a, const unsigned char *alpn, size_t alpn_len);

/* The loop: opens the connections (all at once or at --ramp), runs until
 * --seconds have passed. */
int floor_run(struct floor *f, const struct floor_proto *p);

/* --uring (floor_uring.c): the ring, the operations the protocols post,
 * and the loop that replaces floor_run's. */
int floor_ring_init(struct floor *f);
int floor_ring_send(struct floor *f, int fd, const void *buf, size_t len);
int floor_ring_recv(struct floor *f, int fd, void *buf, size_t len, void *conn);
int floor_ring_run(struct floor *f, const struct floor_proto *p);
/* A blocking TCP connect (TCP_NODELAY, as httpload) for the ring's
 * connections: the socket, or -1. */
int floor_sock_connect_now(struct floor *f);

extern const struct floor_proto floor_h1, floor_dns, floor_h2;

#endif
