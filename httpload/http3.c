/* The HTTP/3 session of httpload (nghttp3 over the engine's QUIC transport),
 * httpload's side of it: one request per bidirectional stream, one stream
 * per slot at a time, as the HTTP/2 session does; a request waits for a
 * stream the server allows; a request that times out cancels its stream.
 * http3_app.c is the QUIC application the streams carry (the response);
 * these two files are the only ones that call nghttp3. */
#include "httpload/http3_conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A request's header list, made once: every stream submits it as it is. */
struct http3_prepared {
    size_t n;
    nghttp3_nv nv[];
};

const char *http3_error_name(uint64_t code)
{
    static const char *const names[] = {
        "H3_NO_ERROR",
        "H3_GENERAL_PROTOCOL_ERROR",
        "H3_INTERNAL_ERROR",
        "H3_STREAM_CREATION_ERROR",
        "H3_CLOSED_CRITICAL_STREAM",
        "H3_FRAME_UNEXPECTED",
        "H3_FRAME_ERROR",
        "H3_EXCESSIVE_LOAD",
        "H3_ID_ERROR",
        "H3_SETTINGS_ERROR",
        "H3_MISSING_SETTINGS",
        "H3_REQUEST_REJECTED",
        "H3_REQUEST_CANCELLED",
        "H3_REQUEST_INCOMPLETE",
        "H3_MESSAGE_ERROR",
        "H3_CONNECT_ERROR",
        "H3_VERSION_FALLBACK",
    };
    if (code >= NGHTTP3_H3_NO_ERROR && code <= NGHTTP3_H3_VERSION_FALLBACK)
        return names[code - NGHTTP3_H3_NO_ERROR];
    if (code == 0x200) return "QPACK_DECOMPRESSION_FAILED";
    if (code == 0x201) return "QPACK_ENCODER_STREAM_ERROR";
    if (code == 0x202) return "QPACK_DECODER_STREAM_ERROR";
    return NULL;
}

/* A failure inside nghttp3: the connection closes with the HTTP/3 error code
 * nghttp3 gives for it. */
int http3_fail(struct lg_client *c, int cls, const char *what, int liberr)
{
    char detail[160];
    snprintf(detail, sizeof(detail), "%s: %s", what, nghttp3_strerror(liberr));
    if (liberr == NGHTTP3_ERR_NOMEM) lg_fail_run(c, "out of memory in the HTTP/3 session");
    lg_quic_set_app_error(c, nghttp3_err_infer_quic_app_error_code(liberr));
    lg_conn_fail(c, cls, detail);
    return -1;
}

/* The request body, straight from the request (it lives as long as the
 * run, so nothing is kept until it is acknowledged). */
static nghttp3_ssize read_body(nghttp3_conn *conn, int64_t id, nghttp3_vec *vec, size_t veccnt,
                               uint32_t *pflags, void *user, void *sud)
{
    struct lg_client *c = user;
    unsigned slot;
    struct h3_stream *st = slot_of(h3_of(c), id, sud, &slot);
    *pflags |= NGHTTP3_DATA_FLAG_EOF;
    if (!st || !st->req->body_len) return 0;
    vec[0].base = st->req->body;
    vec[0].len = st->req->body_len;
    return 1;
}

/* --- the session: httpload's side ------------------------------------------ */

/* Opens the slot's stream and hands nghttp3 its request: 0, 1 when the
 * server allows no stream now, -1 after lg_conn_fail. */
int http3_submit_on_stream(struct lg_client *c, struct h3_client *h, unsigned slot)
{
    struct h3_stream *st = &h->streams[slot];
    int64_t id;
    int rv = lg_quic_open_bidi(c, &id);
    if (rv != 0) return rv < 0 ? -1 : 1;
    const struct http3_prepared *p = st->req->h3;
    nghttp3_data_reader reader = {.read_data = read_body};
    st->id = id;
    st->flags = 0;
    rv = nghttp3_conn_submit_request(h->conn, id, p->nv, p->n, st->req->body_len ? &reader : NULL,
                                     (void *)(uintptr_t)(slot + 1));
    if (rv != 0) return http3_fail(c, HTTP_ERR_PROTOCOL, "HTTP/3 request", rv);
    return 0;
}

static int h3_on_ready(struct lg_client *c, struct http_client *hc)
{
    struct h3_client *h = hc->h3;
    if (!h || !h->conn) {
        lg_conn_fail(c, HTTP_ERR_PROTOCOL, "the QUIC handshake ended without HTTP/3 keys");
        return -1;
    }
    if (!lg_client_alpn_is(c, "h3")) {
        lg_conn_fail(c, HTTP_ERR_PROTOCOL, "the server did not agree to HTTP/3 (h3) in ALPN");
        return -1;
    }
    uint64_t limit = lg_quic_bidi_streams_limit(c);
    if (limit < lg_client_slots(c)) lg_conn_peer_limit(c, limit ? (unsigned)limit : 1);
    return 0;
}

static int h3_submit(struct lg_client *c, struct http_client *hc, unsigned slot)
{
    struct h3_client *h = hc->h3;
    struct h3_stream *st = &h->streams[slot];
    st->req = http_next_request(c, hc, lg_client_ctx(c), slot);
    st->status = 0;
    st->id = -1;
    h->n_open++;
    int rv = h->n_pending ? 1 : http3_submit_on_stream(c, h, slot);
    if (rv > 0) { /* the server's stream limit: it goes when MAX_STREAMS comes */
        st->flags = H3_PENDING;
        h->pending[h->n_pending++] = slot;
        rv = 0;
    }
    return rv;
}

static int h3_on_read(struct lg_client *c, struct http_client *hc, const uint8_t *d, size_t n)
{
    return 0; /* the QUIC transport hands the streams' data to the application itself */
}

static int h3_flush(struct lg_client *c, struct http_client *hc)
{
    return lg_quic_write(c);
}

/* The request of `slot` timed out: its stream is cancelled both ways and
 * forgotten; the connection stays. */
static int h3_on_timeout(struct lg_client *c, struct http_client *hc, unsigned slot)
{
    struct h3_client *h = hc->h3;
    struct h3_stream *st = &h->streams[slot];
    if (st->flags & H3_PENDING) {
        for (unsigned i = 0; i < h->n_pending; i++) {
            if (h->pending[i] == slot) {
                memmove(h->pending + i, h->pending + i + 1,
                        (h->n_pending - i - 1) * sizeof(*h->pending));
                h->n_pending--;
                break;
            }
        }
        st->flags = 0;
        h->n_open--;
        return 0;
    }
    int64_t id = st->id;
    if (id < 0) return 0;
    nghttp3_conn_set_stream_user_data(h->conn, id, NULL);
    st->id = -1;
    st->flags = 0;
    h->n_open--;
    if (lg_quic_shutdown(c, id, NGHTTP3_H3_REQUEST_CANCELLED) < 0) return -1;
    int rv = nghttp3_conn_shutdown_stream_read(h->conn, id);
    if (rv) return http3_fail(c, HTTP_ERR_PROTOCOL, "cancelling an HTTP/3 stream", rv);
    return lg_quic_write(c);
}

static void h3_on_close(struct lg_client *c, struct http_client *hc)
{
    if (hc->h3) http3_reset(hc->h3);
}

static void h3_free(struct lg_client *c, struct http_client *hc)
{
    struct h3_client *h = hc->h3;
    if (!h) return;
    nghttp3_conn_del(h->conn);
    lg_block_pool_destroy(&h->pool);
    free(h->pending);
    free(h);
    hc->h3 = NULL;
}

const struct http_session_ops http3_session_ops = {
    .name = "h3",
    .on_ready = h3_on_ready,
    .submit = h3_submit,
    .on_read = h3_on_read,
    .on_writable = h3_flush,
    .flush = h3_flush,
    .on_timeout = h3_on_timeout,
    .on_close = h3_on_close,
    .free = h3_free,
};

/* --- requests, prepared once -------------------------------------------- */

int http3_prepare(struct http_request *r)
{
    struct http3_prepared *p = malloc(sizeof(*p) + (4 + r->n_headers) * sizeof(nghttp3_nv));
    if (!p) return -1;
    nghttp3_nv *nv = p->nv;
    /* nghttp3 points at these instead of copying them per request */
    const uint8_t flags = NGHTTP3_NV_FLAG_NO_COPY_NAME | NGHTTP3_NV_FLAG_NO_COPY_VALUE;
#define NV(n, v) (nghttp3_nv){(uint8_t *)(n), (uint8_t *)(v), strlen(n), strlen(v), flags}
    size_t n = 0;
    nv[n++] = NV(":method", r->method);
    nv[n++] = NV(":scheme", r->scheme);
    nv[n++] = NV(":authority", r->authority);
    nv[n++] = NV(":path", r->path);
    for (size_t i = 0; i < r->n_headers; i++)
        nv[n++] = NV(r->headers[i].name, r->headers[i].value);
#undef NV
    p->n = n;
    r->h3 = p;
    return 0;
}

void http3_prepared_free(struct http_request *r)
{
    free(r->h3);
    r->h3 = NULL;
}

const char *http3_version(void)
{
    return nghttp3_version(0)->version_str;
}
