/* QUIC as a transport (ngtcp2 with GnuTLS): one connection per client on its
 * own connected UDP socket, set up by a handshake stage (quic_handshake_ms),
 * carrying many streams. An application protocol over QUIC (a tool's) plugs in
 * a table of stream callbacks and uses the stream calls below; only
 * loadgen/transport/quic*.c call ngtcp2, so moving to another ngtcp2 API touches
 * those three files. Nothing here knows what the streams carry. */
#ifndef LOADGEN_QUIC_H
#define LOADGEN_QUIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lg_client;
struct lg_tls_options;

/* A piece of stream data to send: the layout of ngtcp2_vec and nghttp3_vec. */
struct lg_quic_vec {
    uint8_t *base;
    size_t len;
};

/* The application's side of a connection. Callbacks that return int return 0
 * to go on, or -1 after lg_conn_fail() (the connection closes with the
 * application error set by lg_quic_set_app_error, if any). */
struct lg_quic_app {
    /* The handshake has produced the keys for application data: open the
     * application's own streams. Called once per connection, before any
     * stream data arrives. */
    int (*start)(struct lg_client *c);
    /* Data of a stream arrived (fin: the last of it). The application says
     * what it consumed with lg_quic_consumed. */
    int (*recv)(struct lg_client *c, int64_t stream_id, const uint8_t *data, size_t len, bool fin);
    /* The peer acknowledged n more bytes of a stream we send on. */
    int (*acked)(struct lg_client *c, int64_t stream_id, uint64_t n);
    /* A stream is gone both ways (code_set: with an application error code). */
    int (*stream_close)(struct lg_client *c, int64_t stream_id, uint64_t code, bool code_set);
    /* The peer reset its side of a stream (RESET_STREAM), or asked us to stop
     * sending on it (STOP_SENDING), with its application error code. */
    int (*stream_reset)(struct lg_client *c, int64_t stream_id, uint64_t code);
    int (*stop_sending)(struct lg_client *c, int64_t stream_id, uint64_t code);
    /* A stream that was blocked by the peer's flow control may send again. */
    int (*unblock)(struct lg_client *c, int64_t stream_id);
    /* The peer allows more streams of ours: a request that waited may go. */
    int (*streams_available)(struct lg_client *c);
    /* Output: the next stream data to send (its stream, whether it ends the
     * stream, up to n pieces), or 0 when there is none; < 0 after lg_conn_fail. */
    long (*pull)(struct lg_client *c, int64_t *stream_id, bool *fin, struct lg_quic_vec *v,
                 size_t n);
    /* n bytes of what pull gave went into a packet. 0, or -1 after lg_conn_fail. */
    int (*wrote)(struct lg_client *c, int64_t stream_id, size_t n);
    /* The stream cannot send more now (flow control), or not at all (shut). */
    void (*blocked)(struct lg_client *c, int64_t stream_id);
    void (*write_shut)(struct lg_client *c, int64_t stream_id);
    /* A name for an application error code, for messages ("H3_NO_ERROR"). */
    const char *(*error_name)(uint64_t code);
    uint64_t no_error; /* the application's "no error" code, sent when we close */
};

/* The QUIC settings of a run, shared read-only by every thread. */
struct lg_quic_config {
    const struct lg_transport *transport; /* what the engine uses for QUIC targets */
    const struct lg_stage *stage;         /* the handshake */
    const struct lg_quic_app *app;
    void *creds;       /* gnutls_certificate_credentials_t */
    void *priority;    /* gnutls_priority_t */
    char *sni;         /* server name, or NULL to send none */
    char *verify_host; /* name the certificate must match, or NULL (--insecure) */
    uint8_t alpn[256]; /* the one protocol offered, e.g. "h3" */
    size_t alpn_len;
    uint64_t idle_timeout_ns; /* our max_idle_timeout */
    bool batch;               /* recvmmsg and sendmmsg (LOADGEN_QUIC_NO_BATCH=1: one per call) */
    bool gso;                 /* UDP_SEGMENT: several packets in one send */
};

/* Sets up QUIC to a server called `host` (a name or an IP literal): TLS 1.3
 * with certificate verification (system store plus --cacert) unless
 * --insecure, SNI as over TLS, the one ALPN protocol `alpn`, and the
 * application. -1 with a message in err (a usage error), LG_NO_MEMORY
 * (nomem.h) when memory ran out. */
int lg_quic_setup(struct lg_quic_config *q, const struct lg_tls_options *o, const char *host,
                  const char *alpn, const struct lg_quic_app *app, uint64_t request_timeout_ns,
                  char *err, size_t errlen);
void lg_quic_config_free(struct lg_quic_config *q);
/* "ngtcp2 0.12.1, GnuTLS 3.7.9", for --version and --meta. */
void lg_quic_versions(char *buf, size_t len);

/* --- stream calls, for the application ----------------------------------- */

/* Opens a stream of ours: 0 with its id, LG_QUIC_BLOCKED when the peer
 * allows no more now (streams_available says when), -1 after lg_conn_fail. */
enum { LG_QUIC_BLOCKED = 1 };
int lg_quic_open_bidi(struct lg_client *c, int64_t *stream_id);
int lg_quic_open_uni(struct lg_client *c, int64_t *stream_id);
/* How many unidirectional streams the peer lets us open; the number of
 * bidirectional ones it allowed at the start. */
uint64_t lg_quic_uni_streams_left(struct lg_client *c);
uint64_t lg_quic_bidi_streams_limit(struct lg_client *c);
/* The application has consumed n bytes of a stream: credit flow control. */
void lg_quic_consumed(struct lg_client *c, int64_t stream_id, size_t n);
/* Lets the peer open one more unidirectional stream (one of its closed). */
void lg_quic_more_peer_uni_streams(struct lg_client *c);
/* Stops a stream: our sending side (RESET_STREAM), the peer's (STOP_SENDING),
 * or both, with an application error code. */
int lg_quic_shutdown_write(struct lg_client *c, int64_t stream_id, uint64_t code);
int lg_quic_shutdown_read(struct lg_client *c, int64_t stream_id, uint64_t code);
int lg_quic_shutdown(struct lg_client *c, int64_t stream_id, uint64_t code);
/* The application error code the connection closes with after a failure
 * the application found (sent in CONNECTION_CLOSE). */
void lg_quic_set_app_error(struct lg_client *c, uint64_t code);
/* Writes what the connection has to send (the application's stream data,
 * acknowledgements, retransmissions) as packets, batched into few system
 * calls. The engine's flush, once per event. 0, or -1 after lg_conn_fail. */
int lg_quic_write(struct lg_client *c);
/* Stream ids: whether a stream is bidirectional, and whether we opened it. */
static inline bool lg_quic_stream_bidi(int64_t id)
{
    return (id & 2) == 0;
}
static inline bool lg_quic_stream_ours(int64_t id)
{
    return (id & 1) == 0; /* a client's streams have the low bit clear */
}

#endif
