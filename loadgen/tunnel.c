/* CONNECT through an HTTP proxy. The reply is read in small pieces and never
 * past its blank line, so the TLS bytes that follow stay in the socket. */
#include "loadgen/tunnel.h"
#include "loadgen/internal.h"

#include <stdio.h>
#include <string.h>

enum { TUNNEL_REPLY_MAX = 16384 };

int lg_tunnel_send(struct lg_client *c)
{
    const struct lg_target *t = c->w->tgt;
    return lg_conn_write(c, t->tunnel_request, t->tunnel_request_len);
}

static int tunnel_status(const struct lg_client *c)
{
    /* "HTTP/1.x NNN" */
    const char *h = c->tunnel_head;
    if (c->tunnel_got < 12 || memcmp(h, "HTTP/1.", 7) != 0 || h[8] != ' ') return -1;
    int code = 0;
    for (int i = 9; i < 12; i++) {
        if (h[i] < '0' || h[i] > '9') return -1;
        code = code * 10 + (h[i] - '0');
    }
    return code;
}

int lg_tunnel_on_readable(struct lg_client *c)
{
    static const char end[] = "\r\n\r\n";
    uint8_t buf[512];
    for (;;) {
        /* Read one byte at a time once the end could be near, so nothing past
         * the reply's blank line is consumed; the reply is short and read once
         * per connection, so the cost does not matter. */
        size_t want = 4 - c->tunnel_match;
        ssize_t n = c->tp->read(c, buf, want);
        if (n == LG_IO_AGAIN) return 0;
        if (n < 0) return -1;
        if (n == 0) {
            lg_conn_fail(c, LG_ERR_PROXY_REFUSED,
                         "proxy closed the connection before answering CONNECT");
            return -1;
        }
        c->w->store.counters[LG_C_BYTES_RECEIVED] += (uint64_t)n;
        for (ssize_t i = 0; i < n; i++) {
            if (c->tunnel_got < sizeof(c->tunnel_head))
                c->tunnel_head[c->tunnel_got] = (char)buf[i];
            c->tunnel_got++;
            if (buf[i] == (uint8_t)end[c->tunnel_match])
                c->tunnel_match++;
            else
                c->tunnel_match = buf[i] == '\r' ? 1 : 0;
        }
        if (c->tunnel_match == 4) {
            int code = tunnel_status(c);
            if (code >= 200 && code < 300) return 1;
            char detail[64];
            if (code < 0)
                snprintf(detail, sizeof(detail), "proxy sent a malformed reply to CONNECT");
            else
                snprintf(detail, sizeof(detail), "proxy answered CONNECT with %d", code);
            lg_conn_fail(c, LG_ERR_PROXY_REFUSED, detail);
            return -1;
        }
        if (c->tunnel_got > TUNNEL_REPLY_MAX) {
            lg_conn_fail(c, LG_ERR_PROXY_REFUSED, "proxy reply to CONNECT too long");
            return -1;
        }
    }
}
