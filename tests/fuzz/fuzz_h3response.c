/* libFuzzer target for httpload's HTTP/3 response path (httpload/http3.c and
 * http3_app.c over nghttp3): the bytes a server sends on its streams, its
 * resets and closes, our timeouts and new requests, in any order. QUIC is not here:
 * the stream calls of loadgen/transport/quic.h and the engine calls the session makes
 * are stand-ins that record what happened. Whatever the input: no crash, no
 * request ended twice or ended while not in flight, no first byte for a
 * request not in flight, and every failure described (lg_conn_fail with a
 * class), after which the connection is dropped as the engine drops it.
 *
 * Input: records of [op][which][len][len bytes]; op's low bits say what
 * (stream data, with FIN when bit 3 is set; a reset, a close, STOP_SENDING,
 * a timeout, more streams allowed, new requests), `which` picks the stream:
 * the server's unidirectional streams (3, 7, 11, 15) or a slot's request
 * stream. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpload/http.h"
#include "httpload/http3.h"
#include "loadgen/transport/quic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SLOTS 4

/* The stand-in client: what the engine would hold. */
struct lg_client {
    struct http_client hc;
    struct http_ctx *ctx;
    bool active[SLOTS];
    int64_t next_bidi, next_uni;
    uint64_t bidi_limit; /* streams the "server" allows us to open */
    bool failed;
    unsigned capacity;
};

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_h3response: %s\n", what);
        abort();
    }
}

/* --- the engine, as http3.c sees it --------------------------------------- */

void *lg_client_state(struct lg_client *c)
{
    return &c->hc;
}
void *lg_client_ctx(struct lg_client *c)
{
    return c->ctx;
}
unsigned lg_client_id(const struct lg_client *c)
{
    return 0;
}
unsigned lg_client_slots(const struct lg_client *c)
{
    return SLOTS;
}
bool lg_client_alpn_is(const struct lg_client *c, const char *proto)
{
    return strcmp(proto, "h3") == 0;
}
void lg_conn_fail(struct lg_client *c, int error_class, const char *detail)
{
    check(error_class > 0, "lg_conn_fail without a class");
    check(detail && detail[0], "lg_conn_fail without a reason");
    c->failed = true;
}
void lg_conn_peer_limit(struct lg_client *c, unsigned n)
{
    c->capacity = n;
}
void lg_conn_close_when_idle(struct lg_client *c) {}
void lg_req_first_byte(struct lg_client *c, unsigned slot)
{
    check(slot < SLOTS && c->active[slot], "first byte of a request not in flight");
}
void lg_req_done(struct lg_client *c, unsigned slot, int error_class)
{
    check(slot < SLOTS && c->active[slot], "a request ended that was not in flight");
    check(error_class >= 0, "a negative class");
    c->active[slot] = false;
}
void lg_note_error(struct lg_client *c, int error_class, const char *detail)
{
    check(error_class > 0 && detail && detail[0], "an error noted without class or reason");
}
void lg_fail_run(struct lg_client *c, const char *why) {}
void lg_req_group(struct lg_client *c, unsigned slot, unsigned group) {}
int http_status_error(struct lg_client *c, const struct http_request *rq, unsigned status)
{
    check(status >= 200 && status <= 999, "a status outside 200-999 judged");
    return HTTP_ERR_STATUS;
}

/* --- QUIC, as http3.c sees it --------------------------------------------- */

int lg_quic_open_bidi(struct lg_client *c, int64_t *id)
{
    if ((uint64_t)c->next_bidi / 4 >= c->bidi_limit) return LG_QUIC_BLOCKED;
    *id = c->next_bidi;
    c->next_bidi += 4;
    return 0;
}
int lg_quic_open_uni(struct lg_client *c, int64_t *id)
{
    *id = c->next_uni;
    c->next_uni += 4;
    return 0;
}
uint64_t lg_quic_uni_streams_left(struct lg_client *c)
{
    return 3;
}
uint64_t lg_quic_bidi_streams_limit(struct lg_client *c)
{
    return c->bidi_limit;
}
void lg_quic_consumed(struct lg_client *c, int64_t id, size_t n) {}
void lg_quic_more_peer_uni_streams(struct lg_client *c) {}
int lg_quic_shutdown_write(struct lg_client *c, int64_t id, uint64_t code)
{
    return 0;
}
int lg_quic_shutdown_read(struct lg_client *c, int64_t id, uint64_t code)
{
    return 0;
}
int lg_quic_shutdown(struct lg_client *c, int64_t id, uint64_t code)
{
    return 0;
}
void lg_quic_set_app_error(struct lg_client *c, uint64_t code) {}

/* Writing: everything the session has to send is taken and acknowledged at
 * once, as a perfect network would. */
int lg_quic_write(struct lg_client *c)
{
    const struct lg_quic_app *app = &http3_quic_app;
    for (int guard = 0; guard < 1000; guard++) {
        int64_t id;
        bool fin;
        struct lg_quic_vec v[16];
        long n = app->pull(c, &id, &fin, v, 16);
        if (n < 0) return -1;
        if (id < 0) return 0;
        size_t len = 0;
        for (long i = 0; i < n; i++)
            len += v[i].len;
        if (app->wrote(c, id, len) < 0) return -1;
        if (len && app->acked(c, id, len) < 0) return -1;
        if (!len && !fin) return 0;
    }
    return 0;
}

/* --- the run -------------------------------------------------------------- */

static struct http_request request;
static struct http_ctx ctx;

static void setup_once(void)
{
    static bool done;
    if (done) return;
    done = true;
    static struct http_header headers[] = {{"user-agent", "fuzz"}, {"accept", "*/*"}};
    request.method = "GET";
    request.scheme = "https";
    request.authority = "127.0.0.1";
    request.path = "/";
    request.headers = headers;
    request.n_headers = 2;
    if (http3_prepare(&request) < 0) abort();
    ctx.mode = HTTP_MODE_3;
    ctx.tls = true;
    ctx.reqs = &request;
    ctx.n_reqs = 1;
    for (int s = 200; s < 300; s++)
        ctx.status_ok[s] = 1;
}

static bool submit_free_slots(struct lg_client *c)
{
    for (unsigned s = 0; s < SLOTS; s++) {
        if (c->active[s]) continue;
        c->active[s] = true;
        if (http3_session_ops.submit(c, &c->hc, s) < 0) return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup_once();
    struct lg_client c;
    memset(&c, 0, sizeof(c));
    c.ctx = &ctx;
    c.next_uni = 2;
    c.bidi_limit = 6; /* fewer than enough: some requests wait for MAX_STREAMS */
    const struct lg_quic_app *app = &http3_quic_app;
    const struct http_session_ops *ops = &http3_session_ops;
    c.hc.ops = ops;
    bool ok = app->start(&c) == 0 && ops->on_ready(&c, &c.hc) == 0 && submit_free_slots(&c) &&
              lg_quic_write(&c) == 0;
    size_t off = 0;
    while (ok && off + 4 <= size) {
        uint8_t op = data[off], which = data[off + 1];
        size_t len = (size_t)data[off + 2] << 8 | data[off + 3];
        off += 4;
        if (len > size - off) len = size - off;
        const uint8_t *p = data + off;
        off += len;
        uint64_t code = 0;
        for (size_t i = 0; i < len && i < 8; i++)
            code = code << 8 | p[i];
        unsigned slot = which % SLOTS;
        /* the stream: a server unidirectional one, or one a slot's request
         * went out on (an id the session may or may not still know) */
        int64_t id = which & 0x80 ? (int64_t)((which & 3) * 4 + 3) : (int64_t)(which & 0x1f) * 4;
        int rv = 0;
        switch (op & 7) {
        case 0:
            rv = app->recv(&c, id, p, len, op & 8);
            break;
        case 1:
            rv = app->stream_reset(&c, id, code);
            break;
        case 2:
            rv = app->stream_close(&c, id, code, op & 8);
            break;
        case 3:
            rv = app->stop_sending(&c, id, code);
            break;
        case 4:
            /* the engine times the request out: the session cancels its stream */
            if (c.active[slot]) {
                rv = ops->on_timeout(&c, &c.hc, slot);
                c.active[slot] = false;
            }
            break;
        case 5:
            c.bidi_limit += 1 + (code & 7);
            rv = app->streams_available(&c);
            break;
        case 6:
            rv = submit_free_slots(&c) ? 0 : -1;
            break;
        default:
            rv = app->unblock(&c, id);
            break;
        }
        if (rv == 0) rv = lg_quic_write(&c);
        if (rv < 0) {
            check(c.failed, "a callback failed without lg_conn_fail");
            ok = false;
        }
    }
    ops->on_close(&c, &c.hc);
    ops->free(&c, &c.hc);
    return 0;
}
