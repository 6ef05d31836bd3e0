/* The HTTP/2 session's output order, with a fake transport that records what
 * is written: requests with bodies started in one event go out whole, each
 * request's HEADERS followed by its DATA before the next request's HEADERS,
 * in one write; while earlier output waits for the socket the requests wait
 * too, and go out whole, in order, once it drains; a request that times out
 * while it waits never goes out. (nghttp2 by itself sends every pending
 * HEADERS before any DATA, and knot-resolver refuses the streams that begin
 * while another request is incomplete.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "proto/h2session.h"
#include "loadgen/core/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { SLOTS = 8, CAPTURE = 1 << 16 };

static struct {
    uint8_t buf[CAPTURE];
    size_t len;
    unsigned writes;
} out;

static int fake_send(struct lg_client *c, const uint8_t *buf, size_t len)
{
    if (c->outq_len) /* earlier output still waits: this waits behind it */
        return lg_outq_append(c, buf, len) < 0 ? LG_IO_ERROR : LG_IO_WANT_WRITE;
    assert_true(out.len + len <= CAPTURE);
    memcpy(out.buf + out.len, buf, len);
    out.len += len;
    out.writes++;
    return LG_IO_DONE;
}

static const struct lg_transport fake = {.name = "fake", .send = fake_send};

static void on_stream_close(struct lg_client *c, unsigned slot, int error_class) {}

static const struct lg_h2_callbacks callbacks = {
    .on_stream_close = on_stream_close,
    .protocol_class = LG_ERR_RESET,
    .stream_reset_class = LG_ERR_RESET,
};

struct fixture {
    struct lg_config cfg;
    struct lg_target tgt;
    struct lg_worker w;
    struct lg_client c;
    struct lg_req slots[SLOTS];
    uint32_t free_slots[SLOTS];
    int peer;
    struct lg_h2 *h;
    struct lg_h2_prepared *req;
};

/* A client whose connection is ready, with an HTTP/2 session that has the
 * server's SETTINGS (up to 100 streams) and nothing left to send. */
static struct fixture *fixture_new(void)
{
    struct fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->cfg.tool = "test";
    f->cfg.slots = SLOTS;
    struct lg_worker *w = &f->w;
    w->cfg = &f->cfg;
    w->tgt = &f->tgt;
    w->tp = &fake;
    w->n_classes = LG_ERR__BASE_COUNT;
    w->loop = ev_loop_new(EVFLAG_AUTO);
    assert_non_null(w->loop);
    assert_int_equal(lg_store_init(&w->store, w->n_classes, 0, 100, 1), 0);
    lg_client_setup(w, &f->c, 0, NULL, f->slots, f->free_slots);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    f->c.fd = sv[0];
    f->peer = sv[1];
    ev_io_set(&f->c.rio, f->c.fd, EV_READ);
    ev_io_set(&f->c.wio, f->c.fd, EV_WRITE);
    f->c.state = LG_CONN_READY;
    memset(&out, 0, sizeof(out));
    f->h = lg_h2_open(&f->c, &callbacks);
    assert_non_null(f->h);
    /* SETTINGS: MAX_CONCURRENT_STREAMS 100 */
    static const uint8_t settings[] = {0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100};
    assert_int_equal(lg_h2_on_read(f->h, settings, sizeof(settings)), 0);
    assert_int_equal(lg_h2_flush(f->h), 0); /* the SETTINGS acknowledgement */
    const struct lg_h2_header headers[] = {{"content-type", "application/dns-message"}};
    const struct lg_h2_request r = {"POST", "https", "localhost", "/dns-query", headers, 1};
    f->req = lg_h2_prepare(&r);
    assert_non_null(f->req);
    memset(&out, 0, sizeof(out));
    return f;
}

static void fixture_free(struct fixture *f)
{
    lg_h2_free(f->h);
    lg_h2_prepared_free(f->req);
    ev_io_stop(f->w.loop, &f->c.rio);
    ev_io_stop(f->w.loop, &f->c.wio);
    close(f->c.fd);
    close(f->peer);
    free(f->c.outq);
    lg_store_free(&f->w.store, f->w.n_classes);
    ev_loop_destroy(f->w.loop);
    free(f);
}

/* The HEADERS and DATA frames written so far, as "H1 D1 H3 ..." (type and
 * stream id); other frames are left out. */
static const char *stream_frames(char *s, size_t cap)
{
    size_t at = 0, n = 0;
    s[0] = 0;
    while (at + 9 <= out.len) {
        const uint8_t *f = out.buf + at;
        size_t len = (size_t)f[0] << 16 | (size_t)f[1] << 8 | f[2];
        uint32_t id = ((uint32_t)f[5] << 24 | (uint32_t)f[6] << 16 | (uint32_t)f[7] << 8 | f[8]) &
                      0x7fffffffu;
        if (f[3] == 0 || f[3] == 1)
            n += (size_t)snprintf(s + n, cap - n, "%s%c%u", n ? " " : "", f[3] ? 'H' : 'D', id);
        at += 9 + len;
    }
    assert_int_equal(at, out.len); /* whole frames only */
    return s;
}

static const uint8_t body[] = "a request body of a few dozen bytes, like a DNS query";

static void requests_go_out_whole_in_one_write(void **state)
{
    struct fixture *f = fixture_new();
    for (unsigned slot = 0; slot < 4; slot++)
        assert_int_equal(lg_h2_submit(f->h, slot, f->req, body, sizeof(body)), 0);
    assert_int_equal(out.writes, 0); /* nothing before the flush */
    assert_int_equal(lg_h2_flush(f->h), 0);
    char s[256];
    assert_string_equal(stream_frames(s, sizeof(s)), "H1 D1 H3 D3 H5 D5 H7 D7");
    assert_int_equal(out.writes, 1);
    fixture_free(f);
}

static void requests_wait_while_output_waits_then_go_out_whole(void **state)
{
    struct fixture *f = fixture_new();
    /* earlier output waits for the socket */
    assert_int_equal(lg_outq_append(&f->c, "x", 1), 0);
    for (unsigned slot = 0; slot < 3; slot++)
        assert_int_equal(lg_h2_submit(f->h, slot, f->req, body, sizeof(body)), 0);
    assert_int_equal(lg_h2_flush(f->h), 0);
    assert_int_equal(out.writes, 0);
    assert_int_equal(f->c.outq_len, 1); /* nothing queued behind it either */
    /* the second request times out while it waits: it never goes out */
    assert_int_equal(lg_h2_cancel(f->h, 1), 0);
    assert_int_equal(lg_h2_submit(f->h, 3, f->req, NULL, 0), 0);
    /* the socket took the earlier output */
    f->c.outq_len = f->c.outq_off = 0;
    assert_int_equal(lg_h2_on_writable(f->h), 0);
    char s[256];
    assert_string_equal(stream_frames(s, sizeof(s)), "H1 D1 H3 D3 H5");
    assert_int_equal(out.writes, 1);
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(requests_go_out_whole_in_one_write),
        cmocka_unit_test(requests_wait_while_output_waits_then_go_out_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
