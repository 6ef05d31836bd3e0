/* What dnsload's transports share: the error classes and counters, per-client
 * slots with their IDs, matching a reply to its slot, and turning a checked
 * reply into an outcome (success, an rcode class, mismatch, malformed). */
#include "dnsload/dns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const dns_error_names[DNS_ERR__END - LG_ERR__BASE_COUNT] = {
    "servfail",  "refused", "formerr",     "notimp",   "rcode_other",  "mismatch",
    "malformed", "icmp",    "http_status", "protocol", "stream_reset",
};

/* The summary's line for a class whose errors came with no reason of their own. */
const char *const dns_error_descriptions[DNS_ERR__END - LG_ERR__BASE_COUNT] = {
    "the server answered SERVFAIL",
    "the server answered REFUSED",
    "the server answered FORMERR",
    "the server answered NOTIMP",
    "an answer with an rcode outside --ok-rcodes",
    "an answer that does not match its query (QR clear, another ID or another question)",
    "a reply too short for a DNS header, or unparsable",
    "the kernel reported an ICMP error from the server (port or host unreachable)",
    "DoH: an HTTP status other than 200",
    "DoH: the HTTP/2 session broke the protocol, or the server did not offer h2",
    "DoH: the server reset the query's stream",
};

const char *const dns_counter_names[DNS_C__COUNT] = {
    "truncated",     "late",           "unexpected",      "rcode.NOERROR",
    "rcode.FORMERR", "rcode.SERVFAIL", "rcode.NXDOMAIN",  "rcode.NOTIMP",
    "rcode.REFUSED", "rcode.YXDOMAIN", "rcode.YXRRSET",   "rcode.NXRRSET",
    "rcode.NOTAUTH", "rcode.NOTZONE",  "rcode.DSOTYPENI", "rcode.RCODE12",
    "rcode.RCODE13", "rcode.RCODE14",  "rcode.RCODE15",   "rcode.BADVERS",
    "rcode.BADKEY",  "rcode.BADTIME",  "rcode.BADMODE",   "rcode.BADNAME",
    "rcode.BADALG",  "rcode.BADTRUNC", "rcode.BADCOOKIE", "rcode.OTHER",
};

int dns_client_prepare(struct lg_client *c, size_t sendbuf_len)
{
    struct dns_client *dc = lg_client_state(c);
    const struct dns_ctx *ctx = lg_client_ctx(c);
    if (dc->slots) return 0; /* a reconnect within the level keeps them */
    unsigned n = lg_client_slots(c);
    unsigned id = lg_client_id(c);
    dc->slots = calloc(n, sizeof(*dc->slots));
    dc->sendbuf = malloc(sendbuf_len);
    /* the first IDs are spread, so clients do not all start at the same one */
    if (!dc->slots || !dc->sendbuf || dns_ids_init(&dc->ids, n, (uint16_t)(id * 40503u)) < 0) {
        /* nothing half-made stays behind for the next connection to use */
        free(dc->slots);
        free(dc->sendbuf);
        dc->slots = NULL;
        dc->sendbuf = NULL;
        lg_fail_run(c, "out of memory for a client's request slots");
        lg_conn_fail(c, LG_ERR_SOCKET, "out of memory for the client's request slots");
        return -1;
    }
    dc->next_query = (uint32_t)(id % ctx->queries.n);
    return 0;
}

int dns_slot_begin(struct lg_client *c, struct dns_client *dc, const struct dns_ctx *ctx,
                   unsigned slot, uint32_t *query)
{
    int id = dns_ids_issue(&dc->ids, slot);
    if (id < 0) {
        lg_conn_fail(c, LG_ERR_SOCKET, "no DNS ID left that no late answer could still claim");
        return -1;
    }
    uint32_t q = dc->next_query;
    if (++dc->next_query == ctx->queries.n) dc->next_query = 0;
    dc->slots[slot].query = q;
    *query = q;
    return id;
}

void dns_slot_timed_out(struct lg_client *c, unsigned slot)
{
    struct dns_client *dc = lg_client_state(c);
    /* Too many IDs wait for late answers (or the set could not be had): a new
     * socket, which cannot hear the old one's answers, frees them all. */
    if (dns_ids_timed_out(&dc->ids, slot) < 0) lg_conn_close_when_idle(c);
}

void dns_forget_late(struct lg_client *c)
{
    struct dns_client *dc = lg_client_state(c);
    if (dc->slots) dns_ids_reset(&dc->ids);
}

/* The outcome of a checked reply; counts rcode.<NAME> and truncated. */
static int classify(struct lg_client *c, const struct dns_ctx *ctx, enum dns_verdict v,
                    const struct dns_reply *r)
{
    switch (v) {
    case DNS_MALFORMED:
        lg_note_error(c, DNS_ERR_MALFORMED, "a reply shorter than a header, or unparsable");
        return DNS_ERR_MALFORMED;
    case DNS_QR_CLEAR:
        lg_note_error(c, DNS_ERR_MISMATCH, "a reply with the QR bit clear");
        return DNS_ERR_MISMATCH;
    case DNS_WRONG_QUESTION:
        lg_note_error(c, DNS_ERR_MISMATCH, "a reply that does not echo the question");
        return DNS_ERR_MISMATCH;
    case DNS_ANSWER:
        break;
    }
    /* TC: counted apart; the answer still succeeds or fails by its rcode
     * (no retry over TCP: the tool never retries). */
    if (r->tc) lg_count(c, DNS_C_TRUNCATED, 1);
    lg_count(c, r->rcode < 24 ? DNS_C_RCODE + r->rcode : DNS_C_RCODE_OTHER, 1);
    if (ctx->ok_rcode[r->rcode]) return LG_OK;
    int cls;
    switch (r->rcode) {
    case 1:
        cls = DNS_ERR_FORMERR;
        break;
    case 2:
        cls = DNS_ERR_SERVFAIL;
        break;
    case 4:
        cls = DNS_ERR_NOTIMP;
        break;
    case 5:
        cls = DNS_ERR_REFUSED;
        break;
    default:
        cls = DNS_ERR_RCODE_OTHER;
        break;
    }
    char detail[64];
    const char *name = dns_rcode_name(r->rcode);
    if (name)
        snprintf(detail, sizeof(detail), "answer with rcode %s", name);
    else
        snprintf(detail, sizeof(detail), "answer with rcode %u", (unsigned)r->rcode);
    lg_note_error(c, cls, detail);
    return cls;
}

void dns_finish(struct lg_client *c, const struct dns_client *dc, const struct dns_ctx *ctx,
                unsigned slot, const uint8_t *pkt, size_t len)
{
    const struct dns_query_list *l = &ctx->queries;
    uint32_t q = dc->slots[slot].query;
    struct dns_reply r;
    enum dns_verdict v =
        dns_check_reply(pkt, len, dns_query_question(l, q), l->q[q].question_len, q, &r);
    lg_req_done(c, slot, classify(c, ctx, v, &r));
}

void dns_on_message(struct lg_client *c, const uint8_t *pkt, size_t len)
{
    struct dns_client *dc = lg_client_state(c);
    if (len < 2) {
        /* No ID to match: with one slot it can only be for the query in flight. */
        if (lg_client_slots(c) == 1 && lg_req_active(c, 0)) {
            lg_note_error(c, DNS_ERR_MALFORMED, "a reply shorter than its ID");
            lg_req_done(c, 0, DNS_ERR_MALFORMED);
        } else {
            lg_count(c, DNS_C_UNEXPECTED, 1);
        }
        return;
    }
    uint16_t id = (uint16_t)(pkt[0] << 8 | pkt[1]);
    unsigned slot = 0; /* set by a match (gcc cannot see it through the inline) */
    switch (dc->slots ? dns_ids_match(&dc->ids, id, &slot) : DNS_ID_UNKNOWN) {
    case DNS_ID_OUTSTANDING:
        /* unless its query ended another way (ICMP error, failed send) */
        if (lg_req_active(c, slot)) {
            dns_finish(c, dc, lg_client_ctx(c), slot, pkt, len);
            return;
        }
        break;
    case DNS_ID_LATE:
        lg_count(c, DNS_C_LATE, 1); /* its query timed out; never an answer to a newer one */
        return;
    case DNS_ID_UNKNOWN:
        break;
    }
    lg_count(c, DNS_C_UNEXPECTED, 1); /* nothing outstanding with that ID: a duplicate or stray */
}

void dns_on_oversize(struct lg_client *c, const uint8_t *pkt, size_t len)
{
    /* len > udp_answer_max >= 512: the ID is there */
    struct dns_client *dc = lg_client_state(c);
    const struct dns_ctx *ctx = lg_client_ctx(c);
    uint16_t id = (uint16_t)(pkt[0] << 8 | pkt[1]);
    unsigned slot = 0;
    (void)len;
    switch (dc->slots ? dns_ids_match(&dc->ids, id, &slot) : DNS_ID_UNKNOWN) {
    case DNS_ID_OUTSTANDING:
        if (lg_req_active(c, slot)) {
            char why[120];
            snprintf(why, sizeof(why),
                     "a UDP answer over the %zu bytes its query allowed (its EDNS size, or 512)",
                     ctx->udp_answer_max);
            lg_note_error(c, DNS_ERR_MALFORMED, why);
            lg_req_done(c, slot, DNS_ERR_MALFORMED);
            return;
        }
        break;
    case DNS_ID_LATE:
        lg_count(c, DNS_C_LATE, 1);
        return;
    case DNS_ID_UNKNOWN:
        break;
    }
    lg_count(c, DNS_C_UNEXPECTED, 1);
}

void dns_client_free(struct lg_client *c)
{
    struct dns_client *dc = lg_client_state(c);
    if (dc->slots)
        for (unsigned i = 0; i < lg_client_slots(c); i++)
            free(dc->slots[i].body);
    free(dc->slots);
    dns_ids_free(&dc->ids);
    free(dc->sendbuf);
    free(dc->partial);
    memset(dc, 0, sizeof(*dc));
}
