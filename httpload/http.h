/* httpload's driver: what every connection shares (the requests, built once,
 * and the status codes that count as success) and the per-client state. A
 * connection speaks HTTP/1.1 or HTTP/2, chosen by --http and ALPN, or HTTP/3
 * over QUIC with --http 3; each is a session behind the same small table
 * (h2load's split of client and session). */
#ifndef HTTPLOAD_HTTP_H
#define HTTPLOAD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "httpload/h1parse.h"
#include "loadgen/engine.h"
#include "proto/h2session.h"

enum http_mode { HTTP_MODE_AUTO, HTTP_MODE_1, HTTP_MODE_2, HTTP_MODE_3 };

/* Driver error classes, numbered after the engine's. */
enum http_error {
    HTTP_ERR_PROTOCOL = LG_ERR__BASE_COUNT,
    HTTP_ERR_STREAM_RESET,
    HTTP_ERR_STATUS,
};

struct http_header {
    char *name; /* lower case for HTTP/2 */
    char *value;
};

/* One request, built once at start: its HTTP/1.1 bytes, the variant that
 * ends the connection, and its HTTP/2 form. Without --targets there is one. */
struct http_request {
    bool head;                      /* HEAD: no response body */
    unsigned line;                  /* its line in the --targets file; 0: the URL argument */
    const struct lg_target *target; /* its origin's: where its connection goes */
    uint8_t *h1;                    /* the whole HTTP/1.1 request */
    size_t h1_len;
    uint8_t *h1_close; /* the same with Connection: close (only with --conn-requests) */
    size_t h1_close_len;
    struct lg_h2_prepared *h2; /* its HTTP/2 header list; points into those below */
    struct http3_prepared *h3; /* its HTTP/3 header list (--http 3 only) */
    char *method, *scheme, *authority, *path;
    struct http_header *headers; /* user headers plus defaults, for HTTP/2 */
    size_t n_headers;
    uint8_t *body;
    size_t body_len;
};

struct http_ctx {
    enum http_mode mode;
    bool tls;
    struct http_request *reqs; /* a client sends them in turn, from its own offset */
    size_t n_reqs;
    bool walk;               /* several requests, or per-target metrics: pick each in turn */
    bool per_target;         /* --targets-per-metric: reqs[i] is in request group i + 1 */
    bool conn_limit;         /* --conn-requests: a connection's last request is h1_close */
    uint8_t status_ok[1000]; /* 1 when a status code counts as success */
    unsigned streams;        /* concurrent streams per HTTP/2 connection */
};

struct http_client;

struct http_session_ops {
    const char *name;
    int (*on_ready)(struct lg_client *c, struct http_client *hc);
    int (*submit)(struct lg_client *c, struct http_client *hc, unsigned slot);
    int (*on_read)(struct lg_client *c, struct http_client *hc, const uint8_t *d, size_t n);
    int (*on_writable)(struct lg_client *c, struct http_client *hc);
    int (*flush)(struct lg_client *c, struct http_client *hc); /* NULL: writes at once */
    int (*on_timeout)(struct lg_client *c, struct http_client *hc, unsigned slot);
    void (*on_close)(struct lg_client *c, struct http_client *hc);
    void (*free)(struct lg_client *c, struct http_client *hc);
};

struct http_client {
    const struct http_session_ops *ops;
    /* --targets: the request it sends next; the walk starts at the client's
     * global id modulo the number of requests, and goes on across its
     * connections, as dnsload's query lists do */
    size_t next_req;
    bool walking;
    /* HTTP/1.1 */
    struct h1_parser h1;
    const struct http_request *h1_req; /* the one in flight */
    unsigned h1_slot;
    bool h1_busy;
    /* HTTP/2 (http2.c) and HTTP/3 (http3.c): the client's state for that
     * protocol, made on its first such connection and freed at level end */
    void *h2;
    void *h3;
};

extern const struct http_session_ops http1_session_ops;
extern const struct http_session_ops http2_session_ops;
extern const struct lg_driver http_driver;
/* The driver's next_target, for requests on several origins: the target of
 * the request the client sends next (its walk does not move). */
const struct lg_target *http_next_target(struct lg_client *c);

/* Whether a final status code counts as success (inline: every response asks). */
static inline bool http_status_ok(const struct http_ctx *ctx, unsigned status)
{
    return status < 1000 && ctx->status_ok[status];
}
/* A status outside --expect-status: notes the first (with its target's line)
 * and returns HTTP_ERR_STATUS. */
int http_status_error(struct lg_client *c, const struct http_request *rq, unsigned status);

/* The request a client sends next on `slot`: the only one, or the next in
 * its walk of the targets (which, with --targets-per-metric, also puts the
 * request in its target's group). */
static inline const struct http_request *http_next_request(struct lg_client *c,
                                                           struct http_client *hc,
                                                           const struct http_ctx *ctx,
                                                           unsigned slot)
{
    if (!ctx->walk) return ctx->reqs;
    size_t i = hc->next_req;
    hc->next_req = i + 1 < ctx->n_reqs ? i + 1 : 0;
    if (ctx->per_target) lg_req_group(c, slot, (unsigned)i + 1);
    return &ctx->reqs[i];
}

#endif
