/* bench/floor: HTTP/2 over nghttp2, h2c (prior knowledge) or TLS (ALPN h2),
 * -m streams in flight per connection. The session has httpload's options
 * (no closed streams kept, no RFC 7540 priorities, push off, a 16 MiB stream
 * window, a 2^30-1 connection window) and nghttp2's own checks of the
 * response (header validation, content-length) stay on; the status is
 * checked. One read per event (more only when TLS holds records read ahead),
 * everything nghttp2 has to send gathered into one write. Nothing recorded. */
#define _GNU_SOURCE
#include "floor.h"

#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

struct h2_conn {
    struct floor_sock s;
    nghttp2_session *session;
    struct floor *f;
};

static struct h2_conn *conns;
static nghttp2_session_callbacks *callbacks;
static nghttp2_option *option;
static nghttp2_nv headers[6];
static char authority[64];

/* what one send pass produces, written with one call */
static uint8_t out[16384];
static size_t out_len;
static bool out_failed;

static ssize_t send_cb(nghttp2_session *session, const uint8_t *data, size_t length, int flags,
                       void *user_data)
{
    if (out_len + length > sizeof(out)) {
        out_failed = true; /* never with the floor's frames: say so if it happens */
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    memcpy(out + out_len, data, length);
    out_len += length;
    return (ssize_t)length;
}

/* The stream's final status, kept as its user data (2xx: 1, else 2). */
static int on_header_cb(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
                        size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                        void *user_data)
{
    if (namelen == 7 && memcmp(name, ":status", 7) == 0 && valuelen == 3 && value[0] != '1')
        nghttp2_session_set_stream_user_data(session, frame->hd.stream_id,
                                             (void *)(uintptr_t)(value[0] == '2' ? 1 : 2));
    return 0;
}

static int submit(struct h2_conn *c)
{
    return nghttp2_submit_request(c->session, NULL, headers, 6, NULL, NULL) < 0 ? -1 : 0;
}

static int on_stream_close_cb(nghttp2_session *session, int32_t stream_id, uint32_t error_code,
                              void *user_data)
{
    struct h2_conn *c = user_data;
    uintptr_t status = (uintptr_t)nghttp2_session_get_stream_user_data(session, stream_id);
    if (error_code == NGHTTP2_NO_ERROR && status == 1)
        c->f->requests++;
    else
        floor_error(c->f, "a stream failed (reset, bad status or invalid response)");
    return submit(c) < 0 ? NGHTTP2_ERR_CALLBACK_FAILURE : 0;
}

static int flush(struct h2_conn *c)
{
    int rv = nghttp2_session_send(c->session);
    size_t n = out_len;
    out_len = 0;
    if (rv < 0 || out_failed) return -1;
    return n ? floor_sock_write(&c->s, out, n) : 0;
}

static int h2_open(struct floor *f, unsigned i)
{
    if (!conns) {
        conns = calloc(f->a->clients, sizeof(*conns));
        if (!conns || nghttp2_session_callbacks_new(&callbacks) != 0 ||
            nghttp2_option_new(&option) != 0)
            return -1;
        nghttp2_session_callbacks_set_send_callback(callbacks, send_cb);
        nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header_cb);
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close_cb);
        nghttp2_option_set_no_closed_streams(option, 1);
        snprintf(authority, sizeof(authority), "%s:%u", f->a->host, f->a->port);
        const uint8_t nc = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
#define NV(n, v) (nghttp2_nv){(uint8_t *)(n), (uint8_t *)(v), strlen(n), strlen(v), nc}
        headers[0] = NV(":method", "GET");
        headers[1] = NV(":scheme", f->a->tls ? "https" : "http");
        headers[2] = NV(":authority", authority);
        headers[3] = NV(":path", f->a->path);
        headers[4] = NV("user-agent", "floor/1");
        headers[5] = NV("accept", "*/*");
#undef NV
    }
    conns[i].f = f;
    return floor_sock_open(f, &conns[i].s, &conns[i]);
}

static int h2_start(struct h2_conn *c)
{
    static const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 16u << 20},
        {NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1},
    };
    if (nghttp2_session_client_new2(&c->session, callbacks, c, option) != 0 ||
        nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings, 4) != 0 ||
        nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, (1u << 30) - 1) !=
            0)
        return -1;
    if (!c->f->a->idle)
        for (unsigned i = 0; i < c->f->a->streams; i++)
            if (submit(c) < 0) return -1;
    return flush(c);
}

static void h2_fail(struct floor *f, struct h2_conn *c, const char *what)
{
    floor_error(f, what);
    nghttp2_session_del(c->session);
    c->session = NULL;
    floor_sock_close(&c->s);
}

static void h2_event(struct floor *f, void *conn, uint32_t events)
{
    struct h2_conn *c = conn;
    if (!c->s.ready) {
        int rc = floor_sock_setup(f, &c->s, c);
        if (rc < 0) floor_sock_close(&c->s);
        if (rc == 1 && h2_start(c) < 0) h2_fail(f, c, "cannot start the HTTP/2 session");
        return;
    }
    for (;;) {
        ssize_t n = floor_sock_read(&c->s, f->rbuf, sizeof(f->rbuf));
        if (n == -1) break;
        if (n <= 0) {
            h2_fail(f, c, n == 0 ? "the server closed a connection" : "read failed");
            return;
        }
        if (nghttp2_session_mem_recv(c->session, f->rbuf, (size_t)n) != n) {
            h2_fail(f, c, "nghttp2 refused the input");
            return;
        }
        if (!floor_sock_more(&c->s, (size_t)n, sizeof(f->rbuf))) break;
    }
    if (flush(c) < 0) h2_fail(f, c, "write failed");
}

const struct floor_proto floor_h2 = {
    .alpn = (const unsigned char *)"\x02h2",
    .alpn_len = 3,
    .open = h2_open,
    .event = h2_event,
};
