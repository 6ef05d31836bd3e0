/* DNS over HTTPS (RFC 8484) on the engine's HTTP/2 session: one connection
 * per client, one stream per outstanding query. POST sends the packet as an
 * application/dns-message body with the slot's ID patched in; GET sends the
 * precomputed ?dns=<base64url> target of the packet with ID 0 (RFC 8484
 * section 4.1), so a reply is found by its stream, not by its ID. */
#include "dnsload/dns.h"
#include "loadgen/grow.h"
#include "loadgen/h2session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DNS_MESSAGE_MAX 65535

/* POST carries content-length: servers may compare the body with it, and
 * BIND's DoH listener takes a missing one for 0 and answers 400. */
enum { POST_CONTENT_LENGTH = 2 };
static const struct lg_h2_header post_headers[] = {
    {"content-type", "application/dns-message"},
    {"accept", "application/dns-message"},
    {"content-length", NULL}, /* set per request */
};
static const struct lg_h2_header get_headers[] = {
    {"accept", "application/dns-message"},
};

/* Writes n (at most 65535) in decimal; buf holds 6 bytes. */
static const char *decimal(char *buf, size_t n)
{
    char *p = buf + 5;
    *p = '\0';
    do {
        *--p = (char)('0' + n % 10);
        n /= 10;
    } while (n && p > buf);
    return p;
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
    const char *alpn = lg_client_alpn(c);
    if (!alpn || strcmp(alpn, "h2") != 0) {
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
    struct lg_h2_request req = {
        .scheme = "https",
        .authority = ctx->authority,
    };
    /* nghttp2 copies the header list when the request is submitted */
    struct lg_h2_header headers[sizeof(post_headers) / sizeof(post_headers[0])];
    char length[6];
    if (ctx->doh_get) {
        s->id = 0; /* the precomputed packet carries ID 0 */
        req.method = "GET";
        req.path = dns_query_get_path(&ctx->queries, q);
        req.headers = get_headers;
        req.n_headers = sizeof(get_headers) / sizeof(get_headers[0]);
    } else {
        size_t len = ctx->queries.q[q].len;
        uint8_t *body = dc->sendbuf + (size_t)slot * ctx->queries.max_len;
        memcpy(body, dns_query_packet(&ctx->queries, q), len);
        s->id = (uint16_t)id;
        body[0] = (uint8_t)(id >> 8);
        body[1] = (uint8_t)id;
        memcpy(headers, post_headers, sizeof(headers));
        headers[POST_CONTENT_LENGTH].value = decimal(length, len);
        req.method = "POST";
        req.path = ctx->doh_path;
        req.headers = headers;
        req.n_headers = sizeof(headers) / sizeof(headers[0]);
        req.body = body;
        req.body_len = len;
    }
    return lg_h2_submit(dc->h2, slot, &req);
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
    .client_state_size = sizeof(struct dns_client),
    .error_names = dns_error_names,
    .error_descriptions = dns_error_descriptions,
    .n_errors = DNS_ERR__END - LG_ERR__BASE_COUNT,
    .counter_names = dns_counter_names,
    .n_counters = DNS_C__COUNT,
    .on_ready = doh_on_ready,
    .submit = doh_submit,
    .on_read = doh_on_read,
    .on_writable = doh_on_writable,
    .on_timeout = doh_on_timeout,
    .on_close = doh_on_close,
    .client_free = doh_client_free,
};
