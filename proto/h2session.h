/* The HTTP/2 client session (nghttp2) of the protocol layer, used by httpload's
 * HTTP/2 connections and by dnsload's DoH: one session per connection, one
 * stream per request slot, callbacks that copy nothing, flow-control windows
 * large enough that multi-megabyte bodies do not stall. */
#ifndef PROTO_H2SESSION_H
#define PROTO_H2SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "loadgen/engine.h"

struct lg_h2;

struct lg_h2_header {
    const char *name; /* lower case */
    const char *value;
};

struct lg_h2_request {
    const char *method, *scheme, *authority, *path;
    const struct lg_h2_header *headers;
    size_t n_headers;
};

/* A request's header list made once, with every length known: submitting it
 * copies nothing. The strings it points to must live as long as it does. */
struct lg_h2_prepared;
struct lg_h2_prepared *lg_h2_prepare(const struct lg_h2_request *req); /* NULL: no memory */
void lg_h2_prepared_free(struct lg_h2_prepared *p);

/* What the protocol driver hears about its streams. */
struct lg_h2_callbacks {
    /* The final (non-1xx) response status of the stream of `slot`. */
    void (*on_status)(struct lg_client *c, unsigned slot, unsigned status);
    /* Body bytes of the stream of `slot` (may be NULL: bodies are then only counted). */
    void (*on_data)(struct lg_client *c, unsigned slot, const uint8_t *d, size_t n);
    /* The stream ended: cleanly (error_class 0) or reset (stream_reset_class).
     * The driver calls lg_req_done() from here. */
    void (*on_stream_close)(struct lg_client *c, unsigned slot, int error_class);
    int protocol_class;     /* the driver's class for protocol errors */
    int stream_reset_class; /* the driver's class for RST_STREAM */
};

/* Starts a session on a ready connection: preface and SETTINGS are queued and
 * sent. The connection carries one request until the server's first SETTINGS
 * frame, then the slots per client or the server's MAX_CONCURRENT_STREAMS if
 * lower (reported by the engine). NULL on failure (already recorded with
 * lg_conn_fail). */
struct lg_h2 *lg_h2_open(struct lg_client *c, const struct lg_h2_callbacks *cb);
/* Starts the request of `slot` with a body (NULL: none; not copied, so it
 * must outlive the stream). Its stream opens at the next lg_h2_flush, where
 * its HEADERS and DATA are serialized together, after those of the requests
 * submitted before it. 0 (a failure to open the stream is the flush's), or
 * -1 after lg_conn_fail. */
int lg_h2_submit(struct lg_h2 *h, unsigned slot, const struct lg_h2_prepared *req,
                 const uint8_t *body, size_t body_len);
/* Opens the streams submitted since the last flush, in order, and writes
 * what the session has to send (their frames, acknowledgements), all of it
 * in as few writes as it fits: the engine's flush, once per event. */
int lg_h2_flush(struct lg_h2 *h);
/* Bytes from the connection (n == 0: the peer closed); what they call for
 * goes out at the next lg_h2_flush. 0, or -1 after lg_conn_fail. */
int lg_h2_on_read(struct lg_h2 *h, const uint8_t *d, size_t n);
/* Output can flow again. */
int lg_h2_on_writable(struct lg_h2 *h);
/* The request of `slot` timed out: reset its stream. 0 keeps the connection. */
int lg_h2_cancel(struct lg_h2 *h, unsigned slot);
/* The connection is gone: free the session (safe on NULL). */
void lg_h2_free(struct lg_h2 *h);
/* nghttp2's version string, for --meta. */
const char *lg_h2_version(void);

#endif
