/* httpload's HTTP/3, the QUIC application: the HTTP/3 connection over the
 * client's QUIC connection (its control and QPACK streams), what arrives on
 * the streams handed to nghttp3, and nghttp3's callbacks with the response:
 * it ends at its last byte (nghttp3's end of stream), which is when the
 * request is done, and a stream that closes before that is classified by who
 * stopped it and with which code. See http3.c. */
#include "httpload/http3_conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct lg_quic_vec) == sizeof(nghttp3_vec) &&
                   offsetof(struct lg_quic_vec, len) == offsetof(nghttp3_vec, len),
               "lg_quic_vec has nghttp3_vec's layout");

/* QPACK: a dynamic table for the server's headers; the requests we send are
 * the same every time and go out as literals (no encoder state to keep). */
#define QPACK_TABLE 4096
#define QPACK_BLOCKED_STREAMS 100

/* The request of a slot is over (its stream may live on a little: its
 * callbacks are ignored from now on). */
static void stream_done(struct lg_client *c, struct h3_client *h, struct h3_stream *st,
                        unsigned slot, int cls)
{
    if (st->id >= 0 && h->conn) nghttp3_conn_set_stream_user_data(h->conn, st->id, NULL);
    st->id = -1;
    st->flags = 0;
    h->n_open--;
    lg_req_done(c, slot, cls);
}

/* --- nghttp3's callbacks: the response ------------------------------------ */

static int on_begin_headers(nghttp3_conn *conn, int64_t id, void *user, void *sud)
{
    struct lg_client *c = user;
    unsigned slot;
    if (slot_of(h3_of(c), id, sud, &slot)) lg_req_first_byte(c, slot);
    return 0;
}

static int on_recv_header(nghttp3_conn *conn, int64_t id, int32_t token, nghttp3_rcbuf *name,
                          nghttp3_rcbuf *value, uint8_t flags, void *user, void *sud)
{
    if (token != NGHTTP3_QPACK_TOKEN__STATUS) return 0;
    struct lg_client *c = user;
    unsigned slot;
    struct h3_stream *st = slot_of(h3_of(c), id, sud, &slot);
    nghttp3_vec v = nghttp3_rcbuf_get_buf(value);
    /* nghttp3 has checked that :status is three digits */
    if (!st || v.len != 3) return 0;
    unsigned status = (unsigned)(v.base[0] - '0') * 100 + (unsigned)(v.base[1] - '0') * 10 +
                      (unsigned)(v.base[2] - '0');
    if (status >= 200) st->status = status; /* 1xx are interim */
    return 0;
}

/* Bodies are only counted (by the transport); the flow-control credit they
 * took is given back at once. */
static int on_recv_data(nghttp3_conn *conn, int64_t id, const uint8_t *data, size_t len, void *user,
                        void *sud)
{
    lg_quic_consumed(user, id, len);
    return 0;
}

static int on_deferred_consume(nghttp3_conn *conn, int64_t id, size_t consumed, void *user,
                               void *sud)
{
    lg_quic_consumed(user, id, consumed);
    return 0;
}

/* The response's last byte, and nghttp3 found it well formed (content-length
 * agrees): the request is done. */
static int on_end_stream(nghttp3_conn *conn, int64_t id, void *user, void *sud)
{
    struct lg_client *c = user;
    struct h3_client *h = h3_of(c);
    unsigned slot;
    struct h3_stream *st = slot_of(h, id, sud, &slot);
    if (!st) return 0;
    const struct http_ctx *ctx = lg_client_ctx(c);
    int cls = http_status_ok(ctx, st->status) ? LG_OK : http_status_error(c, st->req, st->status);
    stream_done(c, h, st, slot, cls);
    return 0;
}

/* The stream is gone both ways. Its request, if not already done, ended
 * without its response. */
static int on_stream_close(nghttp3_conn *conn, int64_t id, uint64_t code, void *user, void *sud)
{
    struct lg_client *c = user;
    struct h3_client *h = h3_of(c);
    unsigned slot;
    struct h3_stream *st = slot_of(h, id, sud, &slot);
    if (!st) return 0; /* done, or cancelled after a timeout: already counted */
    char detail[160];
    const char *name =
        http3_error_name(st->flags & (H3_PEER_RESET | H3_LOCAL_RESET) ? st->code : code);
    int cls;
    if (st->flags & H3_LOCAL_RESET) {
        snprintf(detail, sizeof(detail), "invalid response, stream reset with %s",
                 name ? name : "an error");
        cls = HTTP_ERR_PROTOCOL;
    } else if (st->flags & H3_PEER_RESET) {
        snprintf(detail, sizeof(detail), "RESET_STREAM from the server: %s (0x%llx)",
                 name ? name : "unknown code", (unsigned long long)st->code);
        cls = HTTP_ERR_STREAM_RESET;
    } else {
        snprintf(detail, sizeof(detail), "the stream closed before its response ended (%s)",
                 name ? name : "unknown code");
        cls = HTTP_ERR_PROTOCOL;
    }
    lg_note_error(c, cls, detail);
    stream_done(c, h, st, slot, cls);
    return 0;
}

/* The stream id's request, if it has one, is ended by our side's reset. */
static void mark_local_reset(struct lg_client *c, int64_t id, uint64_t code, void *sud)
{
    unsigned slot;
    struct h3_stream *st = slot_of(h3_of(c), id, sud, &slot);
    if (st) {
        st->flags |= H3_LOCAL_RESET;
        st->code = code;
    }
}

/* nghttp3 stops a stream whose response it found malformed. */
static int on_stop_sending(nghttp3_conn *conn, int64_t id, uint64_t code, void *user, void *sud)
{
    mark_local_reset(user, id, code, sud);
    return lg_quic_shutdown_read(user, id, code) < 0 ? NGHTTP3_ERR_CALLBACK_FAILURE : 0;
}

static int on_reset_stream(nghttp3_conn *conn, int64_t id, uint64_t code, void *user, void *sud)
{
    mark_local_reset(user, id, code, sud);
    return lg_quic_shutdown_write(user, id, code) < 0 ? NGHTTP3_ERR_CALLBACK_FAILURE : 0;
}

/* GOAWAY: requests on streams from `id` on will not be processed. They end
 * now as refused (their streams cancelled: a server need not reset them,
 * and waiting would only end in a timeout), as do requests still waiting
 * for a stream; the rest may finish, then the engine reconnects. */
static int on_shutdown(nghttp3_conn *conn, int64_t id, void *user)
{
    struct lg_client *c = user;
    struct h3_client *h = h3_of(c);
    lg_conn_close_when_idle(c);
    for (unsigned i = 0; i < h->n_slots; i++) {
        struct h3_stream *st = &h->streams[i];
        bool pending = st->flags & H3_PENDING;
        if (!(pending || st->id >= id)) continue; /* processed, done or free */
        int64_t sid = st->id;
        lg_note_error(c, HTTP_ERR_STREAM_RESET, "refused by GOAWAY: the server never processed it");
        stream_done(c, h, st, i, HTTP_ERR_STREAM_RESET);
        if (sid >= 0 && lg_quic_shutdown(c, sid, NGHTTP3_H3_REQUEST_CANCELLED) < 0)
            return NGHTTP3_ERR_CALLBACK_FAILURE;
    }
    h->n_pending = 0;
    return 0;
}

static const nghttp3_callbacks h3_callbacks = {
    .stream_close = on_stream_close,
    .recv_data = on_recv_data,
    .deferred_consume = on_deferred_consume,
    .begin_headers = on_begin_headers,
    .recv_header = on_recv_header,
    .stop_sending = on_stop_sending,
    .end_stream = on_end_stream,
    .reset_stream = on_reset_stream,
    .shutdown = on_shutdown,
};

/* --- the QUIC application ----------------------------------------------- */

static struct h3_client *h3_client_new(unsigned n_slots)
{
    struct h3_client *h = calloc(1, sizeof(*h) + n_slots * sizeof(h->streams[0]));
    if (!h) return NULL;
    h->pending = calloc(n_slots, sizeof(*h->pending));
    if (!h->pending) {
        free(h);
        return NULL;
    }
    h->n_slots = n_slots;
    return h;
}

void http3_reset(struct h3_client *h)
{
    nghttp3_conn_del(h->conn);
    h->conn = NULL;
    lg_block_pool_destroy(&h->pool);
    memset(&h->pool, 0, sizeof(h->pool));
    for (unsigned i = 0; i < h->n_slots; i++)
        h->streams[i].id = -1;
    h->n_open = h->n_pending = 0;
}

static int open_uni(struct lg_client *c, int64_t *id)
{
    int rv = lg_quic_open_uni(c, id);
    if (rv > 0)
        lg_conn_fail(c, HTTP_ERR_PROTOCOL, "the server allows no unidirectional stream for HTTP/3");
    return rv ? -1 : 0;
}

/* The keys for application data exist: the HTTP/3 connection, its control
 * stream and the two QPACK streams. */
static int app_start(struct lg_client *c)
{
    struct http_client *hc = lg_client_state(c);
    if (!hc->h3 && !(hc->h3 = h3_client_new(lg_client_slots(c)))) {
        lg_fail_run(c, "out of memory for an HTTP/3 client");
        lg_conn_fail(c, HTTP_ERR_PROTOCOL, "out of memory for the HTTP/3 session");
        return -1;
    }
    struct h3_client *h = hc->h3;
    http3_reset(h); /* a connection that failed before it was ready left its own */
    if (lg_quic_uni_streams_left(c) < 3) {
        lg_conn_fail(c, HTTP_ERR_PROTOCOL,
                     "the server allows fewer than the 3 unidirectional streams HTTP/3 needs");
        return -1;
    }
    nghttp3_settings settings;
    nghttp3_settings_default(&settings);
    settings.qpack_max_dtable_capacity = QPACK_TABLE;
    settings.qpack_blocked_streams = QPACK_BLOCKED_STREAMS;
    h->mem = (nghttp3_mem){&h->pool, lg_block_pool_malloc, lg_block_pool_free, lg_block_pool_calloc,
                           lg_block_pool_realloc};
    int rv = nghttp3_conn_client_new(&h->conn, &h3_callbacks, &settings, &h->mem, c);
    if (rv != 0) return http3_fail(c, HTTP_ERR_PROTOCOL, "cannot start HTTP/3", rv);
    int64_t ctrl, enc, dec;
    if (open_uni(c, &ctrl) < 0 || open_uni(c, &enc) < 0 || open_uni(c, &dec) < 0) return -1;
    rv = nghttp3_conn_bind_control_stream(h->conn, ctrl);
    if (rv == 0) rv = nghttp3_conn_bind_qpack_streams(h->conn, enc, dec);
    if (rv != 0) return http3_fail(c, HTTP_ERR_PROTOCOL, "cannot start HTTP/3", rv);
    return 0;
}

/* A response that broke HTTP's message rules (its body longer or shorter
 * than its content-length, or no final status before the end): an error of
 * its stream (RFC 9114 4.1.2), which is reset; the connection stays. */
static int message_error(struct lg_client *c, struct h3_client *h, int64_t id, size_t len)
{
    lg_quic_consumed(c, id, len); /* the connection's flow-control credit comes back */
    for (unsigned i = 0; i < h->n_slots; i++) {
        struct h3_stream *st = &h->streams[i];
        if (st->id != id) continue;
        lg_note_error(c, HTTP_ERR_PROTOCOL,
                      "invalid response: its body does not match its content-length, or it "
                      "ended without a final status (stream reset with H3_MESSAGE_ERROR)");
        stream_done(c, h, st, i, HTTP_ERR_PROTOCOL);
        break;
    }
    if (lg_quic_shutdown(c, id, NGHTTP3_H3_MESSAGE_ERROR) < 0) return -1;
    int rv = nghttp3_conn_shutdown_stream_read(h->conn, id);
    return rv ? http3_fail(c, HTTP_ERR_PROTOCOL, "a malformed HTTP/3 response", rv) : 0;
}

static int app_recv(struct lg_client *c, int64_t id, const uint8_t *data, size_t len, bool fin)
{
    struct h3_client *h = h3_of(c);
    nghttp3_ssize n = nghttp3_conn_read_stream(h->conn, id, data, len, fin);
    if (n == NGHTTP3_ERR_MALFORMED_HTTP_MESSAGING && lg_quic_stream_bidi(id))
        return message_error(c, h, id, len);
    if (n < 0) return http3_fail(c, HTTP_ERR_PROTOCOL, "invalid HTTP/3 from the server", (int)n);
    lg_quic_consumed(c, id, (size_t)n);
    return 0;
}

static int app_acked(struct lg_client *c, int64_t id, uint64_t n)
{
    int rv = nghttp3_conn_add_ack_offset(h3_of(c)->conn, id, n);
    return rv ? http3_fail(c, HTTP_ERR_PROTOCOL, "HTTP/3 acknowledgement", rv) : 0;
}

static int app_stream_close(struct lg_client *c, int64_t id, uint64_t code, bool code_set)
{
    struct h3_client *h = h3_of(c);
    int rv = nghttp3_conn_close_stream(h->conn, id, code_set ? code : NGHTTP3_H3_NO_ERROR);
    if (rv == NGHTTP3_ERR_STREAM_NOT_FOUND) {
        /* a stream that carried nothing nghttp3 saw; the server may open
         * another unidirectional one in its place */
        if (!lg_quic_stream_bidi(id) && !lg_quic_stream_ours(id)) lg_quic_more_peer_uni_streams(c);
        return 0;
    }
    return rv ? http3_fail(c, HTTP_ERR_PROTOCOL, "closing an HTTP/3 stream", rv) : 0;
}

static int app_stream_reset(struct lg_client *c, int64_t id, uint64_t code)
{
    struct h3_client *h = h3_of(c);
    for (unsigned i = 0; i < h->n_slots; i++) {
        struct h3_stream *st = &h->streams[i];
        if (st->id == id && !(st->flags & H3_LOCAL_RESET)) {
            st->flags |= H3_PEER_RESET;
            st->code = code;
        }
    }
    int rv = nghttp3_conn_shutdown_stream_read(h->conn, id);
    return rv ? http3_fail(c, HTTP_ERR_PROTOCOL, "a reset HTTP/3 stream", rv) : 0;
}

static int app_stop_sending(struct lg_client *c, int64_t id, uint64_t code)
{
    /* the server needs no more of the request (it may have answered
     * already); QUIC resets our side, nghttp3 stops reading its queue */
    int rv = nghttp3_conn_shutdown_stream_read(h3_of(c)->conn, id);
    return rv ? http3_fail(c, HTTP_ERR_PROTOCOL, "a stopped HTTP/3 stream", rv) : 0;
}

static int app_unblock(struct lg_client *c, int64_t id)
{
    int rv = nghttp3_conn_unblock_stream(h3_of(c)->conn, id);
    return rv ? http3_fail(c, HTTP_ERR_PROTOCOL, "HTTP/3 flow control", rv) : 0;
}

/* The server allows more streams: the requests that waited go, in order. */
static int app_streams_available(struct lg_client *c)
{
    struct h3_client *h = h3_of(c);
    unsigned done = 0;
    while (done < h->n_pending) {
        unsigned slot = h->pending[done];
        int rv = http3_submit_on_stream(c, h, slot);
        if (rv < 0) return -1;
        if (rv > 0) break; /* still blocked */
        done++;
    }
    memmove(h->pending, h->pending + done, (h->n_pending - done) * sizeof(*h->pending));
    h->n_pending -= done;
    return 0;
}

static long app_pull(struct lg_client *c, int64_t *id, bool *fin, struct lg_quic_vec *v, size_t n)
{
    int f = 0;
    nghttp3_ssize r = nghttp3_conn_writev_stream(h3_of(c)->conn, id, &f, (nghttp3_vec *)v, n);
    if (r < 0) return http3_fail(c, HTTP_ERR_PROTOCOL, "HTTP/3 output", (int)r);
    *fin = f != 0;
    return (long)r;
}

static int app_wrote(struct lg_client *c, int64_t id, size_t n)
{
    int rv = nghttp3_conn_add_write_offset(h3_of(c)->conn, id, n);
    return rv ? http3_fail(c, HTTP_ERR_PROTOCOL, "HTTP/3 output", rv) : 0;
}

static void app_blocked(struct lg_client *c, int64_t id)
{
    nghttp3_conn_block_stream(h3_of(c)->conn, id);
}

static void app_write_shut(struct lg_client *c, int64_t id)
{
    nghttp3_conn_shutdown_stream_write(h3_of(c)->conn, id);
}

const struct lg_quic_app http3_quic_app = {
    .start = app_start,
    .recv = app_recv,
    .acked = app_acked,
    .stream_close = app_stream_close,
    .stream_reset = app_stream_reset,
    .stop_sending = app_stop_sending,
    .unblock = app_unblock,
    .streams_available = app_streams_available,
    .pull = app_pull,
    .wrote = app_wrote,
    .blocked = app_blocked,
    .write_shut = app_write_shut,
    .error_name = http3_error_name,
    .no_error = NGHTTP3_H3_NO_ERROR,
};
