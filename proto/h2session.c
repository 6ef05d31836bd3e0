/* The HTTP/2 client session (nghttp2) shared by httpload and dnsload's
 * DoH: one nghttp2 session per connection, one stream per request slot, each
 * request serialized whole (HEADERS, then its DATA) before the next, output
 * coalesced into few writes, request bodies written from the caller's buffer. */
#include "proto/h2session.h"
#include "loadgen/core/blockpool.h"

#include <nghttp2/nghttp2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Flow control: a stream window large enough that a multi-megabyte body never
 * waits for a WINDOW_UPDATE, and a connection window that many such streams
 * share (h2load's default is 2^30 - 1 for both). nghttp2 sends WINDOW_UPDATE
 * by itself once half a window is consumed, so these are rarely renewed. */
#define H2_STREAM_WINDOW (16u << 20)
#define H2_CONNECTION_WINDOW ((1u << 30) - 1)
/* Streams the server may open towards us. Push is disabled, so this never
 * applies; 100 is RFC 9113's recommended minimum, which strict peers expect. */
#define H2_LOCAL_MAX_STREAMS 100u
/* Stream ids are 31 bits and never reused: well before they run out the
 * connection is closed when idle and the next request reconnects. */
#define H2_LAST_STREAM_ID 0x7fff0000

/* Output of one send pass is gathered here and written with one call (one
 * system call, one TLS record) instead of one per frame. One per thread is
 * enough: it is always empty again when a send pass returns. */
#define H2_OUT_CAP 16384
/* DATA payloads up to this size are copied into the gathering buffer (a copy
 * is cheaper than a second write); larger ones are written from the caller's
 * buffer directly. */
#define H2_COPY_MAX 4096

struct h2_out {
    size_t len;
    uint8_t buf[H2_OUT_CAP];
};
static _Thread_local struct h2_out out_buf;

enum h2_stream_flags {
    H2_PEER_RESET = 1, /* the server sent RST_STREAM */
    H2_ENDED = 2,      /* the server sent END_STREAM: the response is complete */
};

/* A request's header list, ready for nghttp2_submit_request (lg_h2_prepare). */
struct lg_h2_prepared {
    size_t n;
    nghttp2_nv nv[];
};

/* The stream a request slot has open, and the request body it sends. */
struct h2_stream {
    int32_t stream_id; /* 0: none; a callback for another id is stale and ignored */
    uint8_t flags;
    bool queued;     /* submitted, not yet handed to nghttp2 (h2_flush does) */
    unsigned q_next; /* the next queued slot + 1, or 0 */
    const struct lg_h2_prepared *req;
    const uint8_t *body;
    size_t body_len, body_sent;
};

struct lg_h2 {
    nghttp2_session *session;
    struct lg_client *c;
    const struct lg_h2_callbacks *cb;
    unsigned n_slots;
    unsigned n_open; /* streams the driver still waits for */
    bool goaway;     /* the server sent GOAWAY */
    uint32_t goaway_error;
    int32_t goaway_last_id;
    bool goodbye;      /* we sent GOAWAY(NO_ERROR): the connection carried its last request */
    bool failed;       /* the connection failed inside nghttp2 (already recorded) */
    bool write_failed; /* lg_conn_write failed: nothing more can be written */
    /* requests submitted but not yet handed to nghttp2, oldest first: slot + 1, or 0 */
    unsigned q_first, q_last;
    struct lg_block_pool pool;
    struct h2_stream streams[]; /* one per slot */
};

/* --- output -------------------------------------------------------------- */

static int conn_write(struct lg_h2 *h, const void *p, size_t n)
{
    if (h->write_failed || lg_conn_write(h->c, p, n) < 0) {
        h->write_failed = h->failed = true;
        return -1;
    }
    return 0;
}

static int out_drain(struct lg_h2 *h)
{
    size_t n = out_buf.len;
    out_buf.len = 0; /* emptied even on failure: the buffer is the thread's */
    return n ? conn_write(h, out_buf.buf, n) : 0;
}

/* Makes room for n bytes in the gathering buffer (n <= H2_OUT_CAP). */
static int out_reserve(struct lg_h2 *h, size_t n)
{
    return out_buf.len + n > H2_OUT_CAP ? out_drain(h) : 0;
}

static void out_put(const void *p, size_t n)
{
    memcpy(out_buf.buf + out_buf.len, p, n);
    out_buf.len += n;
}

static ssize_t send_cb(nghttp2_session *session, const uint8_t *data, size_t length, int flags,
                       void *user_data)
{
    struct lg_h2 *h = user_data;
    /* Stop producing while the engine still queues earlier output: nghttp2
     * keeps the frame and offers it again from lg_h2_on_writable. */
    if (lg_conn_write_blocked(h->c)) return NGHTTP2_ERR_WOULDBLOCK;
    if (length > H2_OUT_CAP) {
        /* a huge header block: no point in copying it */
        if (out_drain(h) < 0 || conn_write(h, data, length) < 0)
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        return (ssize_t)length;
    }
    if (out_reserve(h, length) < 0) return NGHTTP2_ERR_CALLBACK_FAILURE;
    out_put(data, length);
    return (ssize_t)length;
}

/* A DATA frame of a request body (NGHTTP2_DATA_FLAG_NO_COPY): the frame
 * header from nghttp2, the payload straight from the caller's buffer. */
static int send_data_cb(nghttp2_session *session, nghttp2_frame *frame, const uint8_t *framehd,
                        size_t length, nghttp2_data_source *source, void *user_data)
{
    static const uint8_t zeros[256];
    struct lg_h2 *h = user_data;
    struct h2_stream *st = source->ptr;
    if (st->stream_id != frame->hd.stream_id)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* the slot moved on: reset the stream */
    if (lg_conn_write_blocked(h->c)) return NGHTTP2_ERR_WOULDBLOCK;
    const uint8_t *payload = st->body + st->body_sent;
    size_t padlen = frame->data.padlen; /* 0 unless a padding callback is set */
    if (out_reserve(h, 10) < 0) return NGHTTP2_ERR_CALLBACK_FAILURE;
    out_put(framehd, 9);
    if (padlen) {
        uint8_t pad = (uint8_t)(padlen - 1);
        out_put(&pad, 1);
    }
    if (length <= H2_COPY_MAX) {
        if (out_reserve(h, length) < 0) return NGHTTP2_ERR_CALLBACK_FAILURE;
        out_put(payload, length);
    } else if (out_drain(h) < 0 || conn_write(h, payload, length) < 0) {
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    if (padlen > 1) {
        if (out_reserve(h, padlen - 1) < 0) return NGHTTP2_ERR_CALLBACK_FAILURE;
        out_put(zeros, padlen - 1);
    }
    st->body_sent += length;
    return 0;
}

/* Says how much of the body goes into the next DATA frame; send_data_cb
 * writes it. Nothing is copied here. */
static ssize_t body_read_cb(nghttp2_session *session, int32_t stream_id, uint8_t *buf,
                            size_t length, uint32_t *data_flags, nghttp2_data_source *source,
                            void *user_data)
{
    struct h2_stream *st = source->ptr;
    if (st->stream_id != stream_id) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    size_t left = st->body_len - st->body_sent;
    size_t n = left < length ? left : length;
    *data_flags |= NGHTTP2_DATA_FLAG_NO_COPY;
    if (n == left) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

/* --- requests in order ------------------------------------------------------ */

/* In one send pass nghttp2 writes every pending HEADERS frame before any DATA
 * frame (control frames first), so requests with bodies started in one event
 * would all be half-sent at once: headers out, bodies after. The interleaving
 * is legal, but a server that holds one incomplete request per connection
 * (knot-resolver's DoH) refuses the others with REFUSED_STREAM. So submitted
 * requests wait in a queue and are handed to nghttp2 one at a time, with a
 * send pass into the gathering buffer after each that has a body: each
 * request's frames lie together in the buffer, and the buffer is still
 * written once per event. */

static void queue_push(struct lg_h2 *h, unsigned slot)
{
    struct h2_stream *st = &h->streams[slot];
    st->queued = true;
    st->q_next = 0;
    if (h->q_last)
        h->streams[h->q_last - 1].q_next = slot + 1;
    else
        h->q_first = slot + 1;
    h->q_last = slot + 1;
}

/* The oldest queued slot, taken off the queue (there must be one). */
static unsigned queue_pop(struct lg_h2 *h)
{
    unsigned slot = h->q_first - 1;
    struct h2_stream *st = &h->streams[slot];
    h->q_first = st->q_next;
    if (!h->q_first) h->q_last = 0;
    st->queued = false;
    return slot;
}

/* Takes a queued slot off the queue wherever it is (a timeout while the
 * output waits for the socket: rare, and the queue holds at most the slots). */
static void queue_remove(struct lg_h2 *h, unsigned slot)
{
    unsigned prev = 0, at = h->q_first;
    while (at && at != slot + 1) {
        prev = at;
        at = h->streams[at - 1].q_next;
    }
    if (!at) return;
    unsigned next = h->streams[slot].q_next;
    if (prev)
        h->streams[prev - 1].q_next = next;
    else
        h->q_first = next;
    if (h->q_last == slot + 1) h->q_last = prev;
    h->streams[slot].queued = false;
}

/* Opens the stream of a queued request. 0, or -1 after lg_conn_fail. */
static int stream_start(struct lg_h2 *h, unsigned slot)
{
    struct h2_stream *st = &h->streams[slot];
    nghttp2_data_provider provider = {.source.ptr = st, .read_callback = body_read_cb};
    int32_t id =
        nghttp2_submit_request(h->session, NULL, st->req->nv, st->req->n,
                               st->body_len ? &provider : NULL, (void *)(uintptr_t)(slot + 1));
    if (id < 0) {
        lg_conn_fail(h->c, h->cb->protocol_class, nghttp2_strerror(id));
        h->failed = true;
        return -1;
    }
    st->stream_id = id;
    if (id >= H2_LAST_STREAM_ID) lg_conn_close_when_idle(h->c);
    return 0;
}

/* One send pass: the queued requests handed to nghttp2 in order, each with a
 * body serialized before the next is handed over, then everything else
 * nghttp2 has; all of it gathered and written. While earlier output waits
 * for the socket the queue waits too: nghttp2 then holds frames of its own,
 * and would send a new stream's HEADERS before the DATA it holds. */
static int h2_flush(struct lg_h2 *h)
{
    int rv = 0;
    while (h->q_first && !h->failed && !lg_conn_write_blocked(h->c)) {
        unsigned slot = queue_pop(h);
        if (stream_start(h, slot) < 0) break;
        /* the last request's frames go out with the pass after the loop */
        if (h->streams[slot].body_len && h->q_first && (rv = nghttp2_session_send(h->session)) < 0)
            break;
    }
    if (rv == 0 && !h->failed) rv = nghttp2_session_send(h->session);
    /* drained even after a failure: a GOAWAY nghttp2 wrote should still go out */
    if (out_drain(h) < 0 || h->failed)
        return -1; /* already recorded by lg_conn_write or lg_conn_fail */
    if (rv < 0) {
        lg_conn_fail(h->c, h->cb->protocol_class, nghttp2_strerror(rv));
        return -1;
    }
    return 0;
}

/* --- input ---------------------------------------------------------------- */

/* The slot of a stream, or NULL when the stream is not (or no longer) the one
 * that slot waits for: cancelled streams keep arriving for a while. */
static struct h2_stream *stream_of(struct lg_h2 *h, int32_t stream_id, unsigned *slot)
{
    uintptr_t tag = (uintptr_t)nghttp2_session_get_stream_user_data(h->session, stream_id);
    if (tag == 0 || tag > h->n_slots) return NULL;
    struct h2_stream *st = &h->streams[tag - 1];
    if (st->stream_id != stream_id) return NULL;
    *slot = (unsigned)(tag - 1);
    return st;
}

static int on_begin_headers_cb(nghttp2_session *session, const nghttp2_frame *frame,
                               void *user_data)
{
    struct lg_h2 *h = user_data;
    unsigned slot;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_RESPONSE &&
        stream_of(h, frame->hd.stream_id, &slot))
        lg_req_first_byte(h->c, slot);
    return 0;
}

static int on_header_cb(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
                        size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                        void *user_data)
{
    struct lg_h2 *h = user_data;
    /* Only :status matters; nghttp2 has already checked it is three digits. */
    if (namelen != 7 || memcmp(name, ":status", 7) != 0 || valuelen != 3) return 0;
    unsigned status = (unsigned)(value[0] - '0') * 100 + (unsigned)(value[1] - '0') * 10 +
                      (unsigned)(value[2] - '0');
    unsigned slot;
    if (status >= 200 && h->cb->on_status && stream_of(h, frame->hd.stream_id, &slot))
        h->cb->on_status(h->c, slot, status);
    return 0;
}

static int on_data_chunk_cb(nghttp2_session *session, uint8_t flags, int32_t stream_id,
                            const uint8_t *data, size_t len, void *user_data)
{
    struct lg_h2 *h = user_data;
    unsigned slot;
    if (h->cb->on_data && stream_of(h, stream_id, &slot)) h->cb->on_data(h->c, slot, data, len);
    return 0;
}

static int on_frame_recv_cb(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    struct lg_h2 *h = user_data;
    unsigned slot;
    switch (frame->hd.type) {
    case NGHTTP2_HEADERS:
    case NGHTTP2_DATA:
        /* nghttp2 has checked the response (content-length, :status) by now;
         * nghttp2_session_get_stream_remote_close cannot tell this apart
         * from a reset, which shuts both sides too */
        if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) {
            struct h2_stream *st = stream_of(h, frame->hd.stream_id, &slot);
            if (st) st->flags |= H2_ENDED;
        }
        break;
    case NGHTTP2_RST_STREAM: {
        struct h2_stream *st = stream_of(h, frame->hd.stream_id, &slot);
        if (st) st->flags |= H2_PEER_RESET;
        break;
    }
    case NGHTTP2_SETTINGS:
        if (!(frame->hd.flags & NGHTTP2_FLAG_ACK)) {
            uint32_t max = nghttp2_session_get_remote_settings(
                session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
            lg_conn_peer_limit(h->c, max < h->n_slots ? max : h->n_slots);
        }
        break;
    case NGHTTP2_GOAWAY:
        /* Streams above last_stream_id were never processed: nghttp2 closes
         * them next (REFUSED_STREAM). The rest may finish; then the engine
         * reconnects. */
        h->goaway = true;
        h->goaway_error = frame->goaway.error_code;
        h->goaway_last_id = frame->goaway.last_stream_id;
        lg_conn_close_when_idle(h->c);
        break;
    default:
        break;
    }
    return 0;
}

static int on_stream_close_cb(nghttp2_session *session, int32_t stream_id, uint32_t error_code,
                              void *user_data)
{
    struct lg_h2 *h = user_data;
    unsigned slot;
    struct h2_stream *st = stream_of(h, stream_id, &slot);
    if (!st) return 0; /* cancelled after a timeout: the engine has counted it already */
    bool peer_reset = st->flags & H2_PEER_RESET;
    bool ended = st->flags & H2_ENDED;
    st->stream_id = 0;
    st->flags = 0;
    h->n_open--;
    const struct lg_h2_callbacks *cb = h->cb;
    char detail[128];
    int cls;
    if (ended && (error_code == NGHTTP2_NO_ERROR || peer_reset)) {
        /* The whole response arrived. A reset after it only stops the rest of
         * our request body (RFC 9113 8.1), which the server did not need. */
        cls = LG_OK;
    } else if (h->goaway && stream_id > h->goaway_last_id) {
        snprintf(detail, sizeof(detail), "refused by GOAWAY (%s): the server never processed it",
                 nghttp2_http2_strerror(h->goaway_error));
        lg_note_error(h->c, cb->stream_reset_class, detail);
        cls = cb->stream_reset_class;
    } else if (peer_reset && error_code != NGHTTP2_NO_ERROR) {
        snprintf(detail, sizeof(detail), "RST_STREAM from the server: %s",
                 nghttp2_http2_strerror(error_code));
        lg_note_error(h->c, cb->stream_reset_class, detail);
        cls = cb->stream_reset_class;
    } else if (error_code == NGHTTP2_NO_ERROR) {
        /* RST_STREAM(NO_ERROR) before the response ended: the response is
         * cut short, and the connection cannot be trusted either. */
        lg_conn_fail(h->c, cb->protocol_class,
                     "a stream was closed without END_STREAM before its response ended");
        h->failed = true;
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    } else {
        /* nghttp2 reset the stream itself: the response broke HTTP/2's rules
         * (bad header, content-length mismatch); the connection stays. */
        snprintf(detail, sizeof(detail), "invalid response, stream reset with %s",
                 nghttp2_http2_strerror(error_code));
        lg_note_error(h->c, cb->protocol_class, detail);
        cls = cb->protocol_class;
    }
    cb->on_stream_close(h->c, slot, cls);
    /* The connection's last stream is done (--conn-requests): the engine
     * closes it next, and an endpoint that closes says so with GOAWAY first
     * (RFC 9113 6.8). It goes out with the flush after this read. */
    if (h->n_open == 0 && !h->goaway && !h->goodbye && lg_conn_closing_when_idle(h->c) &&
        nghttp2_submit_goaway(session, NGHTTP2_FLAG_NONE, 0, NGHTTP2_NO_ERROR, NULL, 0) == 0)
        h->goodbye = true;
    return 0;
}

/* Besides our goodbye, nghttp2 sends GOAWAY only when it found a connection
 * error in the input. */
static int on_frame_send_cb(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    struct lg_h2 *h = user_data;
    if (frame->hd.type != NGHTTP2_GOAWAY || h->failed) return 0;
    if (h->goodbye && frame->goaway.error_code == NGHTTP2_NO_ERROR) return 0;
    char detail[200];
    const nghttp2_goaway *g = &frame->goaway;
    int dlen = g->opaque_data_len > 120 ? 120 : (int)g->opaque_data_len;
    snprintf(detail, sizeof(detail), "connection error %s%s%.*s",
             nghttp2_http2_strerror(g->error_code), dlen ? ": " : "", dlen,
             (const char *)g->opaque_data);
    lg_conn_fail(h->c, h->cb->protocol_class, detail);
    h->failed = true;
    return 0;
}

/* --- the API ------------------------------------------------------------- */

struct lg_h2 *lg_h2_open(struct lg_client *c, const struct lg_h2_callbacks *cb)
{
    unsigned n_slots = lg_client_slots(c);
    struct lg_h2 *h = calloc(1, sizeof(*h) + n_slots * sizeof(h->streams[0]));
    nghttp2_session_callbacks *cbs = NULL;
    nghttp2_option *opt = NULL;
    const char *why = "out of memory";
    int rv = NGHTTP2_ERR_NOMEM;
    if (!h || nghttp2_session_callbacks_new(&cbs) != 0 || nghttp2_option_new(&opt) != 0) goto fail;
    h->c = c;
    h->cb = cb;
    h->n_slots = n_slots;
    nghttp2_session_callbacks_set_send_callback(cbs, send_cb);
    nghttp2_session_callbacks_set_send_data_callback(cbs, send_data_cb);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin_headers_cb);
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header_cb);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk_cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv_cb);
    nghttp2_session_callbacks_set_on_frame_send_callback(cbs, on_frame_send_cb);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close_cb);
    /* no retained closed streams and no RFC 7540 priority tree: a load
     * generator never reprioritises, and both cost time per stream */
    nghttp2_option_set_no_closed_streams(opt, 1);
    nghttp2_mem mem = {&h->pool, lg_block_pool_malloc, lg_block_pool_free, lg_block_pool_calloc,
                       lg_block_pool_realloc};
    rv = nghttp2_session_client_new3(&h->session, cbs, h, opt, &mem);
    nghttp2_session_callbacks_del(cbs);
    nghttp2_option_del(opt);
    cbs = NULL;
    opt = NULL;
    if (rv != 0) {
        why = nghttp2_strerror(rv);
        goto fail;
    }
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, H2_LOCAL_MAX_STREAMS},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_STREAM_WINDOW},
        {NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1},
    };
    rv = nghttp2_submit_settings(h->session, NGHTTP2_FLAG_NONE, settings,
                                 sizeof(settings) / sizeof(settings[0]));
    if (rv == 0)
        rv = nghttp2_session_set_local_window_size(h->session, NGHTTP2_FLAG_NONE, 0,
                                                   H2_CONNECTION_WINDOW);
    if (rv != 0) {
        why = nghttp2_strerror(rv);
        goto fail;
    }
    /* One stream until the server's SETTINGS say how many it takes: streams
     * sent before would be refused (REFUSED_STREAM) by a server allowing
     * fewer than the slots, although it never processed them. */
    lg_conn_set_capacity(c, 1);
    if (h2_flush(h) < 0) {
        lg_h2_free(h);
        return NULL;
    }
    return h;
fail:
    nghttp2_session_callbacks_del(cbs);
    nghttp2_option_del(opt);
    lg_h2_free(h);
    if (!h || rv == NGHTTP2_ERR_NOMEM) lg_fail_run(c, "out of memory for an HTTP/2 session");
    lg_conn_fail(c, cb->protocol_class, why);
    return NULL;
}

struct lg_h2_prepared *lg_h2_prepare(const struct lg_h2_request *req)
{
    struct lg_h2_prepared *p = malloc(sizeof(*p) + (4 + req->n_headers) * sizeof(p->nv[0]));
    if (!p) return NULL;
    /* nghttp2 keeps pointers to these instead of copying them per request */
    const uint8_t flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
#define NV(n, v) (nghttp2_nv){(uint8_t *)(n), (uint8_t *)(v), strlen(n), strlen(v), flags}
    size_t n = 0;
    p->nv[n++] = NV(":method", req->method);
    p->nv[n++] = NV(":scheme", req->scheme);
    p->nv[n++] = NV(":authority", req->authority);
    p->nv[n++] = NV(":path", req->path);
    for (size_t i = 0; i < req->n_headers; i++)
        p->nv[n++] = NV(req->headers[i].name, req->headers[i].value);
#undef NV
    p->n = n;
    return p;
}

void lg_h2_prepared_free(struct lg_h2_prepared *p)
{
    free(p);
}

int lg_h2_submit(struct lg_h2 *h, unsigned slot, const struct lg_h2_prepared *req,
                 const uint8_t *body, size_t body_len)
{
    struct h2_stream *st = &h->streams[slot];
    if (st->queued) return 0; /* never queued twice (the engine never submits a busy slot) */
    st->stream_id = 0;        /* its stream opens at the next flush (h2_flush) */
    st->flags = 0;
    st->req = req;
    st->body = body;
    st->body_len = body ? body_len : 0;
    st->body_sent = 0;
    queue_push(h, slot);
    h->n_open++;
    return 0;
}

int lg_h2_flush(struct lg_h2 *h)
{
    return h->q_first || nghttp2_session_want_write(h->session) ? h2_flush(h) : 0;
}

int lg_h2_on_read(struct lg_h2 *h, const uint8_t *d, size_t n)
{
    if (n == 0) {
        if (!h->n_open) return 0; /* an idle connection closed: the next request reconnects */
        char detail[128];
        snprintf(detail, sizeof(detail), "the server closed the connection%s%s with %u %s open",
                 h->goaway ? " after GOAWAY " : "",
                 h->goaway ? nghttp2_http2_strerror(h->goaway_error) : "", h->n_open,
                 h->n_open == 1 ? "stream" : "streams");
        lg_conn_fail(h->c, LG_ERR_EOF, detail);
        return -1;
    }
    ssize_t rv = nghttp2_session_mem_recv(h->session, d, n);
    if (h->failed) return -1;
    if (rv < 0) {
        lg_conn_fail(h->c, h->cb->protocol_class, nghttp2_strerror((int)rv));
        return -1;
    }
    /* SETTINGS and PING acknowledgements, WINDOW_UPDATE, or a GOAWAY that
     * reports an error in the input (on_frame_send_cb fails the connection)
     * go out with the engine's flush at the end of this event */
    return 0;
}

int lg_h2_on_writable(struct lg_h2 *h)
{
    return h2_flush(h);
}

int lg_h2_cancel(struct lg_h2 *h, unsigned slot)
{
    struct h2_stream *st = &h->streams[slot];
    if (st->queued) { /* never handed to nghttp2: nothing to reset */
        queue_remove(h, slot);
        h->n_open--;
        return 0;
    }
    int32_t id = st->stream_id;
    if (!id) return 0;
    /* Forget the stream first so no later callback reaches the driver for a
     * slot the engine has already counted and may reuse. */
    st->stream_id = 0;
    st->flags = 0;
    h->n_open--;
    nghttp2_session_set_stream_user_data(h->session, id, NULL);
    int rv = nghttp2_submit_rst_stream(h->session, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    if (rv != 0 && rv != NGHTTP2_ERR_INVALID_ARGUMENT) {
        lg_conn_fail(h->c, h->cb->protocol_class, nghttp2_strerror(rv));
        return -1;
    }
    return h2_flush(h);
}

void lg_h2_free(struct lg_h2 *h)
{
    if (!h) return;
    nghttp2_session_del(h->session); /* calls no callbacks */
    lg_block_pool_destroy(&h->pool);
    free(h);
}

const char *lg_h2_version(void)
{
    return nghttp2_version(0)->version_str;
}
