/* The HTTP/1.1 session: one request at a time on a keep-alive connection (no
 * pipelining); the prebuilt request bytes are shared and written as they
 * are; the response goes through the incremental parser and is never stored. */
#include "httpload/http.h"

#include <stdio.h>

static int h1_on_ready(struct lg_client *c, struct http_client *hc)
{
    hc->h1_busy = false;
    lg_conn_set_capacity(c, 1);
    return 0;
}

static int h1_submit(struct lg_client *c, struct http_client *hc, unsigned slot)
{
    const struct http_ctx *ctx = lg_client_ctx(c);
    const struct http_request *rq = hc->h1_req = http_next_request(c, hc, ctx, slot);
    const uint8_t *bytes = rq->h1;
    size_t len = rq->h1_len;
    /* the connection's last request under --conn-requests says so */
    if (ctx->conn_limit && lg_conn_closing_when_idle(c)) {
        bytes = rq->h1_close;
        len = rq->h1_close_len;
    }
    h1_reset(&hc->h1, rq->head);
    hc->h1_slot = slot;
    hc->h1_busy = true;
    return lg_conn_write(c, bytes, len);
}

static int h1_on_read(struct lg_client *c, struct http_client *hc, const uint8_t *d, size_t n)
{
    const struct http_ctx *ctx = lg_client_ctx(c);
    int rc;
    if (n == 0) {
        if (!hc->h1_busy) return 0; /* an idle connection closed: not an error */
        rc = h1_parse_eof(&hc->h1);
        if (rc != H1_COMPLETE) {
            /* closed before or in the middle of the response */
            lg_conn_fail(c, LG_ERR_EOF, hc->h1.error);
            return -1;
        }
    } else {
        if (!hc->h1_busy) {
            lg_conn_fail(c, HTTP_ERR_PROTOCOL, "data from the server with no request outstanding");
            return -1;
        }
        lg_req_first_byte(c, hc->h1_slot);
        size_t used = 0;
        rc = h1_parse(&hc->h1, d, n, &used);
        if (rc == H1_ERROR) {
            lg_conn_fail(c, HTTP_ERR_PROTOCOL, hc->h1.error);
            return -1;
        }
        if (rc == H1_MORE) return 0;
        if (used < n) {
            lg_conn_fail(c, HTTP_ERR_PROTOCOL, "bytes after the end of the response");
            return -1;
        }
    }
    hc->h1_busy = false;
    if (h1_must_close(&hc->h1)) lg_conn_close_when_idle(c);
    unsigned status = hc->h1.status;
    lg_req_done(c, hc->h1_slot,
                http_status_ok(ctx, status) ? LG_OK : http_status_error(c, hc->h1_req, status));
    return 0;
}

static int h1_on_writable(struct lg_client *c, struct http_client *hc)
{
    return 0;
}

static int h1_on_timeout(struct lg_client *c, struct http_client *hc, unsigned slot)
{
    return -1; /* the response may still arrive: the connection cannot be reused */
}

static void h1_on_close(struct lg_client *c, struct http_client *hc)
{
    hc->h1_busy = false;
}

static void h1_free_session(struct lg_client *c, struct http_client *hc)
{
    h1_free(&hc->h1);
}

const struct http_session_ops http1_session_ops = {
    .name = "http/1.1",
    .on_ready = h1_on_ready,
    .submit = h1_submit,
    .on_read = h1_on_read,
    .on_writable = h1_on_writable,
    .on_timeout = h1_on_timeout,
    .on_close = h1_on_close,
    .free = h1_free_session,
};
