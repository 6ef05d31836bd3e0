/* DNS over UDP: one connected socket per client for the whole level (the
 * engine opens it because the driver says datagram), every query a copy of
 * its precomputed packet with the slot's ID written in, one send() each; one
 * recv() per reply. The connected socket only hears the server, and the
 * kernel reports ICMP errors on it. */
#include "dnsload/dns.h"

#include <string.h>

static int udp_on_ready(struct lg_client *c)
{
    const struct dns_ctx *ctx = lg_client_ctx(c);
    return dns_client_prepare(c, ctx->queries.max_len);
}

static int udp_submit(struct lg_client *c, unsigned slot)
{
    struct dns_client *dc = lg_client_state(c);
    const struct dns_ctx *ctx = lg_client_ctx(c);
    uint32_t q;
    int id = dns_slot_begin(c, dc, ctx, slot, &q);
    if (id < 0) return -1;
    size_t len = ctx->queries.q[q].len;
    /* The shared packet is read-only (threads share it): copy, patch the ID. */
    memcpy(dc->sendbuf, dns_query_packet(&ctx->queries, q), len);
    dc->sendbuf[0] = (uint8_t)(id >> 8);
    dc->sendbuf[1] = (uint8_t)id;
    return lg_conn_write(c, dc->sendbuf, len);
}

static int udp_on_read(struct lg_client *c, const uint8_t *data, size_t len)
{
    const struct dns_ctx *ctx = lg_client_ctx(c);
    if (len > ctx->udp_answer_max)
        dns_on_oversize(c, data, len);
    else
        dns_on_message(c, data, len);
    return 0;
}

static int udp_on_timeout(struct lg_client *c, unsigned slot)
{
    dns_slot_timed_out(c, slot);
    return 0; /* the socket stays: a late reply is recognised and counted */
}

static void udp_on_close(struct lg_client *c)
{
    dns_forget_late(c);
}

static int udp_on_socket_error(struct lg_client *c, int err, int slot)
{
    /* ECONNREFUSED (port unreachable) and its kin arrive as errors on the
     * connected socket: the query they are about fails, the socket stays. */
    if (slot < 0) {
        lg_count(c, DNS_C_UNEXPECTED, 1); /* about a query that already ended */
        return 0;
    }
    lg_note_error(c, DNS_ERR_ICMP, strerror(err));
    return DNS_ERR_ICMP;
}

const struct lg_driver dns_udp_driver = {
    .name = "dns-udp",
    DNS_DRIVER_COMMON,
    .datagram = true,
    .on_ready = udp_on_ready,
    .submit = udp_submit,
    .on_read = udp_on_read,
    .on_timeout = udp_on_timeout,
    .on_close = udp_on_close,
    .on_socket_error = udp_on_socket_error,
    .client_free = dns_client_free,
};
