/* Placeholder until the HTTP/2 session lands: a connection that negotiates h2
 * fails with a protocol error that says so. */
#include "httpload/http.h"

static int h2_on_ready(struct lg_client *c, struct http_client *hc)
{
    lg_conn_fail(c, HTTP_ERR_PROTOCOL, "HTTP/2 is not implemented yet");
    return -1;
}
static int h2_submit(struct lg_client *c, struct http_client *hc, unsigned slot) { return -1; }
static int h2_on_read(struct lg_client *c, struct http_client *hc, const uint8_t *d, size_t n) { return -1; }
static int h2_on_writable(struct lg_client *c, struct http_client *hc) { return 0; }
static int h2_on_timeout(struct lg_client *c, struct http_client *hc, unsigned slot) { return -1; }
static void h2_on_close(struct lg_client *c, struct http_client *hc) {}
static void h2_free(struct lg_client *c, struct http_client *hc) {}

const struct http_session_ops http2_session_ops = {
    .name = "h2",
    .on_ready = h2_on_ready,
    .submit = h2_submit,
    .on_read = h2_on_read,
    .on_writable = h2_on_writable,
    .on_timeout = h2_on_timeout,
    .on_close = h2_on_close,
    .free = h2_free,
};
