/* httpload's driver: what every connection shares (the request, built once,
 * and the status codes that count as success) and the per-client state. A
 * connection speaks HTTP/1.1 or HTTP/2, chosen by --http and ALPN; each is a
 * session behind the same small table (h2load's split of client and session). */
#ifndef HTTPLOAD_HTTP_H
#define HTTPLOAD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "httpload/h1parse.h"
#include "loadgen/engine.h"

enum http_mode { HTTP_MODE_AUTO, HTTP_MODE_1, HTTP_MODE_2 };

struct lg_h2_prepared;

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

struct http_ctx {
    enum http_mode mode;
    bool tls;
    const char *method;
    bool head;                   /* HEAD: no response body */
    char *authority;             /* Host / :authority */
    char *scheme;                /* "http" or "https" */
    char *path;                  /* request target for HTTP/2 (:path) */
    struct http_header *headers; /* user headers plus defaults, for HTTP/2 */
    size_t n_headers;
    uint8_t *body;
    size_t body_len;
    uint8_t *h1_request;               /* the whole HTTP/1.1 request, built once */
    struct lg_h2_prepared *h2_request; /* and its HTTP/2 header list */
    size_t h1_request_len;
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
    /* HTTP/1.1 */
    struct h1_parser h1;
    unsigned h1_slot;
    bool h1_busy;
    /* HTTP/2: the session's own state (allocated per connection) */
    void *h2;
};

extern const struct http_session_ops http1_session_ops;
extern const struct http_session_ops http2_session_ops;
extern const struct lg_driver http_driver;

/* Success or HTTP_ERR_STATUS for a final status code (noting the first). */
int http_status_class(struct lg_client *c, const struct http_ctx *ctx, unsigned status);

#endif
