/* How a client's bytes move (a transport, wrk's struct sock: a TCP or Unix
 * stream, a connected UDP socket, TLS over a stream) and how its connection
 * is set up (stages run in order: TCP connect, a proxy tunnel, TLS handshake).
 * Each call reports what it waits for; the client alone owns the watchers. */
#ifndef LOADGEN_TRANSPORT_H
#define LOADGEN_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lg_client;
struct lg_worker;

/* What read, send and flush return besides a byte count. */
enum {
    LG_IO_DONE = 0,        /* send, flush: everything went out */
    LG_IO_AGAIN = -1,      /* read: nothing more now */
    LG_IO_WANT_WRITE = -2, /* read: cannot go on until writable; send, flush: queued */
    LG_IO_WANT_READ = -3,  /* send, flush: queued until the next read (TLS) */
    LG_IO_EOF = -4,        /* read: the peer closed the stream */
    LG_IO_ERROR = -5,      /* the connection failed: c->fail_class says why */
};

struct lg_transport {
    const char *name;
    /* Creates the socket in c->fd (and connects a UDP socket, which is
     * immediate). 0, or -1 with c->fail_class set. */
    int (*open)(struct lg_client *c);
    /* Bytes (a stream) or one message (a datagram; 0 is an empty one), or an
     * LG_IO_ code. */
    ssize_t (*read)(struct lg_client *c, uint8_t *buf, size_t len);
    /* Whether another read right after one that returned n of len bytes can
     * find more without waiting (level-triggered epoll reports the rest).
     * more(c, 0, 1) asks whether input already waits in the transport's own
     * buffer (TLS records read ahead with the handshake's last flight). */
    bool (*more)(const struct lg_client *c, size_t n, size_t len);
    /* Writes or queues all of it: LG_IO_DONE, LG_IO_WANT_WRITE,
     * LG_IO_WANT_READ or LG_IO_ERROR. */
    int (*send)(struct lg_client *c, const uint8_t *buf, size_t len);
    /* Writes what was queued: the same codes as send. */
    int (*flush)(struct lg_client *c);
    /* Before the socket closes: frees what the transport holds. */
    void (*close)(struct lg_client *c);
    /* Level end, optional: datagrams the worker's sockets dropped. */
    bool (*dropped)(struct lg_worker *w, uint64_t *count);
    /* The name of the count of sends that had to wait for the socket, for a
     * transport where that is the generator's own limit, or NULL. */
    const char *blocked_counter;
    /* Optional: the time set with lg_conn_timer_at has come (during setup or
     * after). 0, or -1 with c->fail_class set when the connection failed. */
    int (*on_timer)(struct lg_client *c);
    /* The transport learns of input itself (completions, not readiness): the
     * client starts no socket watchers, and the transport calls
     * lg_conn_input_ready when read has something to return. Its send never
     * waits for the socket (LG_IO_DONE or LG_IO_ERROR); it marks the request
     * LG_REQ_QUEUED and calls lg_req_departed once the kernel took its bytes
     * (the open loop's send lag ends then). */
    bool own_events;
    /* Optional: the level is over on this worker and every client's socket
     * is closed: frees what the transport holds for the worker. */
    void (*worker_end)(struct lg_worker *w);
    /* Optional, for a transport that hands sends to the kernel when the
     * loop's turn ends: the open loop's timer has started every request it
     * made due, and the transport hands them over now, before the timer is
     * set again and the turn's other work runs (their send lag ends sooner). */
    void (*worker_flush)(struct lg_worker *w);
    /* Optional, called from another thread while w's loop sleeps, with the
     * worker's tp_state in place: whether work the loop handed to the kernel
     * has completed and waits for it (the wake watch, wakewatch.h). */
    bool (*work_waiting)(struct lg_worker *w);
};

extern const struct lg_transport lg_transport_stream; /* TCP or Unix stream */
extern const struct lg_transport lg_transport_udp;    /* connected UDP socket */
extern const struct lg_transport lg_transport_tls;    /* TLS over a stream */
/* Connected UDP sockets whose sends and receives go through one io_uring per
 * loop thread (udp_ring.c; a tool that uses it links liburing). */
extern const struct lg_transport lg_transport_udp_ring;
/* Whether this process may set such a ring up (a negative errno when not)
 * and whether a loop asleep beside it wakes for a completion as soon as it
 * would for a plain socket (0: on time, 1: late); `why` says which, with the
 * figures (udp_ring_probe.c). About 5 ms on an idle machine. */
int lg_udp_ring_probe(char *why, size_t why_len);
/* An own_events transport has input for c: the client reads it as it would
 * after a readable event (from the loop, never from a send path). */
void lg_conn_input_ready(struct lg_client *c);
/* The datagram transports' shared parts (udp.c): the connected socket's
 * open, and whether an errno is an ICMP error about an earlier datagram. */
int lg_udp_open(struct lg_client *c);
bool lg_udp_is_peer_error(int err);
/* Receive-queue drops of a worker's UDP sockets (a transport's dropped). */
bool lg_udp_dropped(struct lg_worker *w, uint64_t *count);

enum lg_step {
    LG_STEP_DONE,
    LG_STEP_WANT_READ,
    LG_STEP_WANT_WRITE,
    LG_STEP_FAILED, /* c->fail_class says why */
};

/* One stage of setting up a connection. */
struct lg_stage {
    const char *name;
    int phase_series;           /* the phase sample taken when it completes (enum lg_series_id) */
    int timeout_class;          /* a request that times out during it fails with this class */
    const char *timeout_detail; /* and what did not happen, for the summary */
    /* Begins the stage on the connected socket: its first step's result. */
    enum lg_step (*start)(struct lg_client *c);
    /* Goes on after a readable or writable event. */
    enum lg_step (*step)(struct lg_client *c);
    /* Optional: the class of a request that timed out during this stage, and
     * what did not happen, when they depend on how far it got. */
    int (*timeout_class_of)(const struct lg_client *c, const char **detail);
};

extern const struct lg_stage lg_stage_connect; /* TCP or Unix connect */
extern const struct lg_stage lg_stage_tls;     /* TLS handshake */

/* The transport's own timer, one per connection (QUIC's retransmission,
 * acknowledgement and idle timers): fires once at `at_ns` (monotonic),
 * calling the transport's on_timer. Setting it again moves it; the engine
 * stops it when the connection closes. */
void lg_conn_timer_at(struct lg_client *c, uint64_t at_ns);
void lg_conn_timer_stop(struct lg_client *c);

/* The stream transport's raw socket calls, for the stages that run before
 * TLS (and for TLS itself, which reads and writes through OpenSSL). */
ssize_t lg_stream_read(struct lg_client *c, uint8_t *buf, size_t len);
ssize_t lg_stream_write(struct lg_client *c, const uint8_t *buf, size_t len);
/* socket() failed with err: the client's connection fails as a socket
 * error whose reason names the errno (EMFILE: this process's descriptor
 * limit is used up; ENFILE: the system's). */
void lg_socket_failed(struct lg_client *c, int err);
/* The output queue every transport shares: append bytes to it. -1 with
 * c->fail_class set when memory runs out. */
int lg_outq_append(struct lg_client *c, const void *data, size_t len);

/* TLS settings of a run, shared read-only by every thread (tls.c). */
struct lg_tls_config {
    void *ctx;               /* SSL_CTX * */
    const char *sni;         /* server name, or NULL to send none */
    const char *verify_host; /* name the certificate must match, or NULL with --insecure */
    bool resume;             /* reuse a client's session across its reconnects */
    /* --max-handshakes: connections a loop thread sets up at once in a
     * closed loop (0: no limit) */
    unsigned max_handshakes;
};

/* What lg_tls_config_init returns when OpenSSL can make no context and
 * the input is not at fault (it fetches no cipher): the run cannot be
 * carried out (status 4), the message in err says why. */
enum { LG_TLS_UNAVAILABLE = -3 };
/* Builds the SSL_CTX: system store plus cafile, verification unless insecure,
 * ALPN list in wire format (may be NULL). Returns -1 with a message in err,
 * LG_NO_MEMORY (options.h) when memory ran out, LG_TLS_UNAVAILABLE. */
int lg_tls_config_init(struct lg_tls_config *t, const char *cafile, bool insecure,
                       const unsigned char *alpn, size_t alpn_len, char *err, size_t errlen);
void lg_tls_config_free(struct lg_tls_config *t);
struct lg_tls_options;
/* lg_tls_config_init from the shared options for a server called `host` (a
 * name or an IP literal): SNI is --sni, else the host when it is a name; the
 * certificate must match --sni, else the host, unless --insecure. */
int lg_tls_setup(struct lg_tls_config *t, const struct lg_tls_options *o, const char *host,
                 const unsigned char *alpn, size_t alpn_len, char *err, size_t errlen);
/* The names of a server called `host` (a name or an IP literal) into t:
 * SNI is --sni, else the host when it is a name; the certificate must match
 * --sni, else the host, unless --insecure. */
void lg_tls_name(struct lg_tls_config *t, const struct lg_tls_options *o, const char *host);
void lg_tls_session_free(void *session);
/* Library version for --meta. */
const char *lg_tls_version(void);

#endif
