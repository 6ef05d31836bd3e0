/* http3_conn.h — what a client keeps for HTTP/3, as the two files of httpload's
 * HTTP/3 share it: http3.c (the session: requests on streams) and
 * http3_app.c (the QUIC application: the response). Internal to them. */
#ifndef HTTPLOAD_HTTP3_CONN_H
#define HTTPLOAD_HTTP3_CONN_H

#include <nghttp3/nghttp3.h>
#include <stdint.h>

#include "httpload/http.h"
#include "httpload/http3.h"
#include "loadgen/core/blockpool.h"
#include "loadgen/transport/quic.h"

enum h3_stream_flags {
    H3_PEER_RESET = 1,  /* the server reset its side (RESET_STREAM) */
    H3_LOCAL_RESET = 2, /* nghttp3 reset it: the response broke HTTP/3's rules */
    H3_PENDING = 4,     /* waits for the server to allow another stream */
};

/* The stream a request slot has open. */
struct h3_stream {
    int64_t id; /* -1: none; a callback about another stream is stale */
    unsigned status;
    uint8_t flags;
    uint64_t code; /* the reset's application error code */
    const struct http_request *req;
};

/* What a client keeps for HTTP/3, allocated on its first connection and
 * freed at level end; nothing is allocated per request. */
struct h3_client {
    nghttp3_conn *conn; /* the current connection's, or NULL */
    /* nghttp3 allocates per stream and per header: from a pool that goes
     * with the connection (nghttp3 keeps the table's address) */
    struct lg_block_pool pool;
    nghttp3_mem mem;
    unsigned n_slots;
    unsigned n_open;   /* requests waiting for their response */
    unsigned *pending; /* slots waiting for a stream, oldest first */
    unsigned n_pending;
    struct h3_stream streams[]; /* one per slot */
};

static inline struct h3_client *h3_of(struct lg_client *c)
{
    struct http_client *hc = lg_client_state(c);
    return hc->h3;
}

/* The slot a stream belongs to, or NULL when the stream is not (or no
 * longer) the one the slot waits for. */
static inline struct h3_stream *slot_of(struct h3_client *h, int64_t id, void *stream_user_data,
                                        unsigned *slot)
{
    uintptr_t tag = (uintptr_t)stream_user_data;
    if (tag == 0 || tag > h->n_slots) return NULL;
    struct h3_stream *st = &h->streams[tag - 1];
    if (st->id != id) return NULL;
    *slot = (unsigned)(tag - 1);
    return st;
}

/* http3.c: a failure inside nghttp3: the connection closes with the HTTP/3
 * error code nghttp3 gives for it. Returns -1. */
int http3_fail(struct lg_client *c, int cls, const char *what, int liberr);
/* http3.c: opens the slot's stream and hands nghttp3 its request: 0, 1 when
 * the server allows no stream now, -1 after lg_conn_fail. */
int http3_submit_on_stream(struct lg_client *c, struct h3_client *h, unsigned slot);
/* http3_app.c: forgets the connection's HTTP/3 state (its streams and memory). */
void http3_reset(struct h3_client *h);

#endif
