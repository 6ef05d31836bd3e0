/* DNS over HTTPS (RFC 8484) on the engine's HTTP/2 session: one connection
 * per client, one stream per outstanding query. POST sends the packet as an
 * application/dns-message body with the slot's ID patched in; GET sends the
 * precomputed ?dns=<base64url> target of the packet with ID 0 (RFC 8484
 * section 4.1), so a reply is found by its stream, not by its ID. */
#include "dnsload/dns.h"
#include "loadgen/core/grow.h"
#include "proto/h2session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DNS_MESSAGE_MAX 65535

int doh_prepare(struct dns_ctx *ctx)
{
    size_t n = ctx->queries.n;
    ctx->doh_requests = calloc(n, sizeof(*ctx->doh_requests));
    ctx->doh_lengths = calloc(n, sizeof(*ctx->doh_lengths));
    if (!ctx->doh_requests || !ctx->doh_lengths) return -1;
    for (size_t q = 0; q < n; q++) {
        /* POST carries content-length: servers may compare the body with
         * it, and BIND's DoH listener takes a missing one for 0 and answers
         * 400 */
        snprintf(ctx->doh_lengths[q], sizeof(ctx->doh_lengths[q]), "%u",
                 (unsigned)ctx->queries.q[q].len);
        const struct lg_h2_header post[] = {
            {"content-type", "application/dns-message"},
            {"accept", "application/dns-message"},
            {"content-length", ctx->doh_lengths[q]},
        };
        const struct lg_h2_header get[] = {{"accept", "application/dns-message"}};
        struct lg_h2_request req = {"POST", "https", ctx->authority, ctx->doh_path, post, 3};
        if (ctx->doh_get)
            req = (struct lg_h2_request){
                "GET", "https", ctx->authority, dns_query_get_path(&ctx->queries, (uint32_t)q),
                get,   1};
        if (!(ctx->doh_requests[q] = lg_h2_prepare(&req))) return -1;
    }
    return 0;
}

void doh_free(struct dns_ctx *ctx)
{
    for (size_t q = 0; ctx->doh_requests && q < ctx->queries.n; q++)
        lg_h2_prepared_free(ctx->doh_requests[q]);
    free(ctx->doh_requests);
    free(ctx->doh_lengths);
    ctx->doh_requests = NULL;
    ctx->doh_lengths = NULL;
}

static void doh_on_status(struct lg_client *c, unsigned slot, unsigned status)
{
    struct dns_client *dc = lg_client_state(c);
    dc->slots[slot].status = (uint16_t)status;
}

/* The body is kept per slot: DATA frames of several streams interleave. */
static void doh_on_data(struct lg_client *c, unsigned slot, const uint8_t *d, size_t n)
{
    struct dns_client *dc = lg_client_state(c);
    struct dns_slot *s = &dc->slots[slot];
    if (s->body_too_long || s->body_len + n > DNS_MESSAGE_MAX) {
        s->body_too_long = true;
        return;
    }
    /* grows to the largest reply seen, then is reused */
    if (!lg_grow(&s->body, &s->body_cap, s->body_len + n, 1, 512)) {
        s->body_too_long = true; /* this request fails; the run stops with status 4 */
        lg_fail_run(c, "out of memory for a DoH reply");
        return;
    }
    memcpy(s->body + s->body_len, d, n);
    s->body_len += n;
}

static void doh_on_stream_close(struct lg_client *c, unsigned slot, int error_class)
{
    struct dns_client *dc = lg_client_state(c);
    struct dns_slot *s = &dc->slots[slot];
    if (error_class) {
        lg_req_done(c, slot, error_class);
    } else if (s->status != 200) {
        char detail[64];
        snprintf(detail, sizeof(detail), "HTTP status %u", (unsigned)s->status);
        lg_note_error(c, DNS_ERR_HTTP_STATUS, detail);
        lg_req_done(c, slot, DNS_ERR_HTTP_STATUS);
    } else if (s->body_too_long) {
        lg_note_error(c, DNS_ERR_MALFORMED, "a DoH reply longer than a DNS message can be");
        lg_req_done(c, slot, DNS_ERR_MALFORMED);
    } else if (s->body_len >= 2 && (s->body[0] << 8 | s->body[1]) != s->id) {
        /* the stream, not the ID, found the slot: the ID is checked here */
        lg_note_error(c, DNS_ERR_MISMATCH, "a reply with another ID than the query's");
        lg_req_done(c, slot, DNS_ERR_MISMATCH);
    } else {
        dns_finish(c, dc, lg_client_ctx(c), slot, s->body, s->body_len);
    }
}

static const struct lg_h2_callbacks doh_callbacks = {
    .on_status = doh_on_status,
    .on_data = doh_on_data,
    .on_stream_close = doh_on_stream_close,
    .protocol_class = DNS_ERR_PROTOCOL,
    .stream_reset_class = DNS_ERR_STREAM_RESET,
};

static int doh_on_ready(struct lg_client *c)
{
    struct dns_client *dc = lg_client_state(c);
    const struct dns_ctx *ctx = lg_client_ctx(c);
    /* POST bodies must outlive their streams: one packet buffer per slot */
    size_t sendbuf = ctx->doh_get ? 1 : (size_t)ctx->queries.max_len * lg_client_slots(c);
    if (dns_client_prepare(c, sendbuf) < 0) return -1;
    if (!lg_client_alpn_is(c, "h2")) {
        lg_conn_fail(c, DNS_ERR_PROTOCOL, "the server did not agree to HTTP/2 in ALPN");
        return -1;
    }
    dc->h2 = lg_h2_open(c, &doh_callbacks);
    return dc->h2 ? 0 : -1;
}

static int doh_submit(struct lg_client *c, unsigned slot)
{
    struct dns_client *dc = lg_client_state(c);
    const struct dns_ctx *ctx = lg_client_ctx(c);
    uint32_t q;
    int id = dns_slot_begin(c, dc, ctx, slot, &q);
    if (id < 0) return -1;
    struct dns_slot *s = &dc->slots[slot];
    s->status = 0;
    s->body_len = 0;
    s->body_too_long = false;
    const uint8_t *body = NULL;
    size_t len = 0;
    if (ctx->doh_get) {
        s->id = 0; /* the precomputed packet carries ID 0 */
    } else {
        len = ctx->queries.q[q].len;
        uint8_t *packet = dc->sendbuf + (size_t)slot * ctx->queries.max_len;
        memcpy(packet, dns_query_packet(&ctx->queries, q), len);
        s->id = (uint16_t)id;
        packet[0] = (uint8_t)(id >> 8);
        packet[1] = (uint8_t)id;
        body = packet;
    }
    return lg_h2_submit(dc->h2, slot, ctx->doh_requests[q], body, len);
}

static int doh_on_read(struct lg_client *c, const uint8_t *d, size_t n)
{
    struct dns_client *dc = lg_client_state(c);
    return lg_h2_on_read(dc->h2, d, n);
}

static int doh_on_writable(struct lg_client *c)
{
    struct dns_client *dc = lg_client_state(c);
    return dc->h2 ? lg_h2_on_writable(dc->h2) : 0;
}

static int doh_flush(struct lg_client *c)
{
    struct dns_client *dc = lg_client_state(c);
    return dc->h2 ? lg_h2_flush(dc->h2) : 0;
}

static int doh_on_timeout(struct lg_client *c, unsigned slot)
{
    struct dns_client *dc = lg_client_state(c);
    return dc->h2 ? lg_h2_cancel(dc->h2, slot) : -1; /* the stream is reset, the connection stays */
}

static void doh_on_close(struct lg_client *c)
{
    struct dns_client *dc = lg_client_state(c);
    lg_h2_free(dc->h2);
    dc->h2 = NULL;
}

static void doh_client_free(struct lg_client *c)
{
    doh_on_close(c);
    dns_client_free(c);
}

const struct lg_driver dns_doh_driver = {
    .name = "dns-doh",
    DNS_DRIVER_COMMON,
    .on_ready = doh_on_ready,
    .submit = doh_submit,
    .on_read = doh_on_read,
    .on_writable = doh_on_writable,
    .flush = doh_flush,
    .on_timeout = doh_on_timeout,
    .on_close = doh_on_close,
    .client_free = doh_client_free,
};
