/* The CONNECT stage. See tunnel.h. The reply is read in small pieces and
 * never past its blank line, so the bytes after it (the TLS server's) stay
 * in the socket for the next stage. */
#include "proto/tunnel.h"
#include "loadgen/core/internal.h"
#include "loadgen/transport/transport.h"

#include <stdio.h>
#include <string.h>

enum { TUNNEL_REPLY_MAX = 16384 };

_Static_assert(sizeof(struct lg_tunnel_state) <= sizeof(((struct lg_client *)0)->stage_state),
               "the tunnel's state fits the client's stage state");

static struct lg_tunnel_state *tunnel_state(struct lg_client *c)
{
    return (struct lg_tunnel_state *)(void *)c->stage_state;
}

static int reply_status(const struct lg_tunnel_state *t)
{
    /* "HTTP/1.x NNN" */
    const char *h = t->head;
    if (t->got < 12 || memcmp(h, "HTTP/1.", 7) != 0 || h[8] != ' ') return -1;
    int code = 0;
    for (int i = 9; i < 12; i++) {
        if (h[i] < '0' || h[i] > '9') return -1;
        code = code * 10 + (h[i] - '0');
    }
    return code;
}

static enum lg_step read_reply(struct lg_client *c)
{
    static const char end[] = "\r\n\r\n";
    struct lg_tunnel_state *t = tunnel_state(c);
    uint8_t buf[4];
    for (;;) {
        /* At most what could complete the blank line: the reply is short and
         * read once per connection, so small reads cost nothing that matters. */
        ssize_t n = lg_stream_read(c, buf, 4u - t->match);
        if (n == LG_IO_AGAIN) return LG_STEP_WANT_READ;
        if (n == LG_IO_EOF) {
            lg_conn_fail(c, LG_ERR_PROXY_REFUSED,
                         "proxy closed the connection before answering CONNECT");
            return LG_STEP_FAILED;
        }
        if (n < 0) return LG_STEP_FAILED;
        c->w->store.counters[LG_C_BYTES_RECEIVED] += (uint64_t)n;
        for (ssize_t i = 0; i < n; i++) {
            if (t->got < sizeof(t->head)) t->head[t->got] = (char)buf[i];
            t->got++;
            if (buf[i] == (uint8_t)end[t->match])
                t->match++;
            else
                t->match = buf[i] == '\r' ? 1 : 0;
        }
        if (t->match == 4) {
            int code = reply_status(t);
            if (code >= 200 && code < 300) return LG_STEP_DONE;
            char detail[64];
            if (code < 0)
                snprintf(detail, sizeof(detail), "proxy sent a malformed reply to CONNECT");
            else
                snprintf(detail, sizeof(detail), "proxy answered CONNECT with %d", code);
            lg_conn_fail(c, LG_ERR_PROXY_REFUSED, detail);
            return LG_STEP_FAILED;
        }
        if (t->got > TUNNEL_REPLY_MAX) {
            lg_conn_fail(c, LG_ERR_PROXY_REFUSED, "proxy reply to CONNECT too long");
            return LG_STEP_FAILED;
        }
    }
}

static enum lg_step tunnel_step(struct lg_client *c)
{
    const struct lg_target *tg = c->tgt;
    struct lg_tunnel_state *t = tunnel_state(c);
    while (t->sent < tg->tunnel_request_len) {
        ssize_t n = lg_stream_write(c, (const uint8_t *)tg->tunnel_request + t->sent,
                                    tg->tunnel_request_len - t->sent);
        if (n == LG_IO_AGAIN) return LG_STEP_WANT_WRITE;
        if (n < 0) return LG_STEP_FAILED;
        t->sent += (uint32_t)n;
    }
    return read_reply(c);
}

static enum lg_step tunnel_start(struct lg_client *c)
{
    memset(tunnel_state(c), 0, sizeof(struct lg_tunnel_state));
    return tunnel_step(c);
}

const struct lg_stage lg_stage_tunnel = {
    .name = "tunnel",
    .phase_series = LG_S_PROXY_CONNECT,
    .timeout_class = LG_ERR_PROXY_TIMEOUT,
    .timeout_detail = "the proxy did not answer CONNECT",
    .start = tunnel_start,
    .step = tunnel_step,
};
