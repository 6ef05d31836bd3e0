/* The HTTP/2 session of httpload: the protocol layer's h2 session
 * (proto/h2session) carries the requests; this file only supplies the
 * request, remembers each stream's status and turns a finished stream into a
 * counted response. */
#include "httpload/http.h"
#include "proto/h2session.h"

#include <stdlib.h>

/* What a client keeps for HTTP/2, allocated once per client on its first
 * HTTP/2 connection (hc->h2 points here) and freed at level end; the nghttp2
 * session inside it is made per connection; nothing is allocated per request. */
struct h2_client {
    struct lg_h2 *session;           /* the current connection's session, or NULL */
    const struct http_request **req; /* the request each slot's stream sends */
    unsigned *status;                /* final status per slot */
};

static struct h2_client *h2_state(struct lg_client *c)
{
    struct http_client *hc = lg_client_state(c);
    return hc->h2;
}

static void on_status(struct lg_client *c, unsigned slot, unsigned status)
{
    h2_state(c)->status[slot] = status;
}

static void on_stream_close(struct lg_client *c, unsigned slot, int error_class)
{
    const struct http_ctx *ctx = lg_client_ctx(c);
    struct h2_client *s = h2_state(c);
    unsigned status = s->status[slot];
    if (!error_class && !http_status_ok(ctx, status))
        error_class = http_status_error(c, s->req[slot], status);
    lg_req_done(c, slot, error_class);
}

static const struct lg_h2_callbacks h2_callbacks = {
    .on_status = on_status,
    .on_data = NULL, /* bodies are only counted */
    .on_stream_close = on_stream_close,
    .protocol_class = HTTP_ERR_PROTOCOL,
    .stream_reset_class = HTTP_ERR_STREAM_RESET,
};

static struct h2_client *h2_client_new(struct lg_client *c)
{
    struct h2_client *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    s->status = calloc(lg_client_slots(c), sizeof(*s->status));
    s->req = calloc(lg_client_slots(c), sizeof(*s->req));
    if (!s->status || !s->req) {
        free(s->status);
        free(s->req);
        free(s);
        return NULL;
    }
    return s;
}

static int h2_on_ready(struct lg_client *c, struct http_client *hc)
{
    if (!hc->h2 && !(hc->h2 = h2_client_new(c))) {
        lg_fail_run(c, "out of memory for an HTTP/2 client");
        lg_conn_fail(c, HTTP_ERR_PROTOCOL, "out of memory for the HTTP/2 session");
        return -1;
    }
    struct h2_client *s = hc->h2;
    s->session = lg_h2_open(c, &h2_callbacks);
    return s->session ? 0 : -1;
}

static int h2_submit(struct lg_client *c, struct http_client *hc, unsigned slot)
{
    struct h2_client *s = hc->h2;
    const struct http_request *rq = http_next_request(c, hc, lg_client_ctx(c), slot);
    s->status[slot] = 0;
    s->req[slot] = rq;
    return lg_h2_submit(s->session, slot, rq->h2, rq->body, rq->body_len);
}

static int h2_on_read(struct lg_client *c, struct http_client *hc, const uint8_t *d, size_t n)
{
    struct h2_client *s = hc->h2;
    return lg_h2_on_read(s->session, d, n);
}

static int h2_on_writable(struct lg_client *c, struct http_client *hc)
{
    struct h2_client *s = hc->h2;
    return lg_h2_on_writable(s->session);
}

static int h2_flush(struct lg_client *c, struct http_client *hc)
{
    struct h2_client *s = hc->h2;
    return s && s->session ? lg_h2_flush(s->session) : 0;
}

static int h2_on_timeout(struct lg_client *c, struct http_client *hc, unsigned slot)
{
    struct h2_client *s = hc->h2;
    return lg_h2_cancel(s->session, slot); /* the stream is reset, the connection stays */
}

static void h2_on_close(struct lg_client *c, struct http_client *hc)
{
    struct h2_client *s = hc->h2;
    if (!s) return;
    lg_h2_free(s->session);
    s->session = NULL;
}

static void h2_free(struct lg_client *c, struct http_client *hc)
{
    struct h2_client *s = hc->h2;
    if (!s) return;
    lg_h2_free(s->session);
    free(s->status);
    free(s->req);
    free(s);
    hc->h2 = NULL;
}

const struct http_session_ops http2_session_ops = {
    .name = "h2",
    .on_ready = h2_on_ready,
    .submit = h2_submit,
    .on_read = h2_on_read,
    .on_writable = h2_on_writable,
    .flush = h2_flush,
    .on_timeout = h2_on_timeout,
    .on_close = h2_on_close,
    .free = h2_free,
};
