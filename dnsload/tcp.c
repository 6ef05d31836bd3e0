/* DNS over TCP (RFC 7766) and over TLS (RFC 7858, the engine's TLS
 * transport): one persistent connection per client, every message behind a
 * 2-byte length, up to --outstanding queries pipelined and answered in any
 * order (matched by ID). A closed connection is reopened by the engine. */
#include "dnsload/dns.h"
#include "loadgen/core/grow.h"

#include <stdlib.h>
#include <string.h>

static int tcp_on_ready(struct lg_client *c)
{
    const struct dns_ctx *ctx = lg_client_ctx(c);
    return dns_client_prepare(c, (size_t)ctx->queries.max_len + 2);
}

static int tcp_submit(struct lg_client *c, unsigned slot)
{
    struct dns_client *dc = lg_client_state(c);
    const struct dns_ctx *ctx = lg_client_ctx(c);
    uint32_t q;
    int id = dns_slot_begin(c, dc, ctx, slot, &q);
    if (id < 0) return -1;
    size_t len = (size_t)ctx->queries.q[q].len + 2;
    memcpy(dc->sendbuf, dns_query_framed(&ctx->queries, q), len);
    dc->sendbuf[2] = (uint8_t)(id >> 8);
    dc->sendbuf[3] = (uint8_t)id;
    return lg_conn_write(c, dc->sendbuf, len);
}

/* Keeps `n` more bytes of a message that a read split; the buffer grows to
 * the largest message seen and is then reused, so steady state allocates
 * nothing. */
static int keep_partial(struct lg_client *c, struct dns_client *dc, const uint8_t *d, size_t n)
{
    size_t need = dc->partial_len + n;
    if (!lg_grow(&dc->partial, &dc->partial_cap, need, 1, 512)) {
        lg_fail_run(c, "out of memory reassembling a reply");
        lg_conn_fail(c, LG_ERR_SOCKET, "out of memory reassembling a reply");
        return -1;
    }
    memcpy(dc->partial + dc->partial_len, d, n);
    dc->partial_len = need;
    return 0;
}

static int tcp_on_read(struct lg_client *c, const uint8_t *d, size_t n)
{
    struct dns_client *dc = lg_client_state(c);
    if (n == 0) return 0; /* closed: the engine fails what is in flight and reconnects */
    if (dc->partial_len) {
        /* finish the message the last read began: its length first */
        if (dc->partial_len < 2) {
            size_t take = 2 - dc->partial_len < n ? 2 - dc->partial_len : n;
            if (keep_partial(c, dc, d, take) < 0) return -1;
            d += take;
            n -= take;
            if (dc->partial_len < 2) return 0;
        }
        size_t total = 2 + (size_t)(dc->partial[0] << 8 | dc->partial[1]);
        size_t take = total - dc->partial_len < n ? total - dc->partial_len : n;
        if (keep_partial(c, dc, d, take) < 0) return -1;
        d += take;
        n -= take;
        if (dc->partial_len < total) return 0;
        dc->partial_len = 0;
        dns_on_message(c, dc->partial + 2, total - 2);
    }
    /* whole messages straight from the read buffer */
    while (n >= 2) {
        size_t msg = (size_t)(d[0] << 8 | d[1]);
        if (n < 2 + msg) break;
        dns_on_message(c, d + 2, msg);
        d += 2 + msg;
        n -= 2 + msg;
    }
    return n ? keep_partial(c, dc, d, n) : 0;
}

static int tcp_on_timeout(struct lg_client *c, unsigned slot)
{
    dns_slot_timed_out(c, slot);
    return 0; /* replies are matched by ID: the connection stays usable */
}

static void tcp_on_close(struct lg_client *c)
{
    struct dns_client *dc = lg_client_state(c);
    dc->partial_len = 0;
    dns_forget_late(c); /* nothing of the old connection can arrive any more */
}

const struct lg_driver dns_tcp_driver = {
    .name = "dns-tcp",
    DNS_DRIVER_COMMON,
    .on_ready = tcp_on_ready,
    .submit = tcp_submit,
    .on_read = tcp_on_read,
    .on_timeout = tcp_on_timeout,
    .on_close = tcp_on_close,
    .client_free = dns_client_free,
};
