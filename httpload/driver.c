/* The engine driver of httpload: on each new connection it picks the session
 * (HTTP/1.1 or HTTP/2, from --http and the ALPN result; HTTP/3 on a QUIC
 * connection) and forwards the engine's calls to it. */
#include "httpload/http.h"
#ifdef HAVE_HTTP3
#include "httpload/http3.h"
#endif

#include <stdio.h>
#include <string.h>

static const char *const http_error_names[] = {"protocol", "stream_reset", "status"};
/* The summary's line for a class whose errors came with no reason of their own. */
static const char *const http_error_descriptions[] = {
    "the response broke the rules of HTTP",
    "the server reset the request's HTTP/2 or HTTP/3 stream",
    "a final status outside --expect-status",
};

/* What a user can do about each class: a status outside the default 2xx is
 * often the point of the test (a 404 page, a redirect). */
static const char *const http_error_hints[] = {NULL, NULL, "--expect-status to accept it"};

int http_status_error(struct lg_client *c, const struct http_request *rq, unsigned status)
{
    char detail[96];
    if (rq->line)
        snprintf(detail, sizeof(detail), "unexpected status %u (the target on line %u)", status,
                 rq->line);
    else
        snprintf(detail, sizeof(detail), "unexpected status %u", status);
    lg_note_error(c, HTTP_ERR_STATUS, detail);
    return HTTP_ERR_STATUS;
}

/* What each connection spoke, counted for the summary and --meta: ALPN's
 * choice under --http auto, or a proxy in between that took h2 for 1.1. */
enum http_protocol { HTTP_PROTO_H1, HTTP_PROTO_H2, HTTP_PROTO_H3 };
static const char *const http_protocol_names[] = {"h1", "h2", "h3"};

/* The walk of the targets starts at the client's id modulo their number,
 * at its first connection, or when the engine first asks where it goes. */
static void start_walk(struct lg_client *c, struct http_client *hc, const struct http_ctx *ctx)
{
    if (hc->walking) return;
    hc->next_req = lg_client_id(c) % ctx->n_reqs;
    hc->walking = true;
}

const struct lg_target *http_next_target(struct lg_client *c)
{
    const struct http_ctx *ctx = lg_client_ctx(c);
    struct http_client *hc = lg_client_state(c);
    start_walk(c, hc, ctx);
    return ctx->reqs[hc->next_req].target;
}

static int drv_on_ready(struct lg_client *c)
{
    const struct http_ctx *ctx = lg_client_ctx(c);
    struct http_client *hc = lg_client_state(c);
    bool alpn_h2 = lg_client_alpn_is(c, "h2");
    bool h2 = ctx->mode == HTTP_MODE_2 || alpn_h2;
    if (ctx->mode == HTTP_MODE_2 && ctx->tls && !alpn_h2) {
        lg_conn_fail(c, HTTP_ERR_PROTOCOL, "the server did not agree to HTTP/2 in ALPN");
        return -1;
    }
    start_walk(c, hc, ctx);
    hc->ops = h2 ? &http2_session_ops : &http1_session_ops;
    enum http_protocol proto = h2 ? HTTP_PROTO_H2 : HTTP_PROTO_H1;
#ifdef HAVE_HTTP3
    if (ctx->mode == HTTP_MODE_3) {
        hc->ops = &http3_session_ops;
        proto = HTTP_PROTO_H3;
    }
#endif
    lg_conn_protocol(c, proto);
    return hc->ops->on_ready(c, hc);
}

static int drv_submit(struct lg_client *c, unsigned slot)
{
    struct http_client *hc = lg_client_state(c);
    return hc->ops->submit(c, hc, slot);
}

static int drv_on_read(struct lg_client *c, const uint8_t *d, size_t n)
{
    struct http_client *hc = lg_client_state(c);
    return hc->ops->on_read(c, hc, d, n);
}

static int drv_on_writable(struct lg_client *c)
{
    struct http_client *hc = lg_client_state(c);
    return hc->ops ? hc->ops->on_writable(c, hc) : 0;
}

static int drv_flush(struct lg_client *c)
{
    struct http_client *hc = lg_client_state(c);
    return hc->ops && hc->ops->flush ? hc->ops->flush(c, hc) : 0;
}

static int drv_on_timeout(struct lg_client *c, unsigned slot)
{
    struct http_client *hc = lg_client_state(c);
    return hc->ops ? hc->ops->on_timeout(c, hc, slot) : -1;
}

static void drv_on_close(struct lg_client *c)
{
    struct http_client *hc = lg_client_state(c);
    if (hc->ops) hc->ops->on_close(c, hc);
}

static void drv_client_free(struct lg_client *c)
{
    struct http_client *hc = lg_client_state(c);
    http1_session_ops.free(c, hc);
    http2_session_ops.free(c, hc);
#ifdef HAVE_HTTP3
    http3_session_ops.free(c, hc);
#endif
}

const struct lg_driver http_driver = {
    .name = "http",
    .client_state_size = sizeof(struct http_client),
    .error_names = http_error_names,
    .error_descriptions = http_error_descriptions,
    .error_hints = http_error_hints,
    .n_errors = 3,
    .protocol_names = http_protocol_names,
    .n_protocols = 3,
    .on_ready = drv_on_ready,
    .submit = drv_submit,
    .on_read = drv_on_read,
    .on_writable = drv_on_writable,
    .flush = drv_flush,
    .on_timeout = drv_on_timeout,
    .on_close = drv_on_close,
    .client_free = drv_client_free,
};
