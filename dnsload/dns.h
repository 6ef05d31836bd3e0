/* dnsload's driver: what every client shares (the queries, encoded once; the
 * rcodes that succeed), the per-client state, the error classes and extra
 * counters, and the three transports behind one engine driver each (dnsperf's
 * net_udp.c / net_tcp.c / net_doh.c): udp.c, tcp.c (TCP and DoT), doh.c. */
#ifndef DNSLOAD_DNS_H
#define DNSLOAD_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dnsload/check.h"
#include "dnsload/ids.h"
#include "dnsload/queries.h"
#include "loadgen/engine.h"

#define DNS_MAX_OUTSTANDING 1024

enum dns_transport { DNS_UDP, DNS_TCP, DNS_DOT, DNS_DOH };

/* Driver error classes, numbered after the engine's (names in driver.c). */
enum dns_error {
    DNS_ERR_SERVFAIL = LG_ERR__BASE_COUNT,
    DNS_ERR_REFUSED,
    DNS_ERR_FORMERR,
    DNS_ERR_NOTIMP,
    DNS_ERR_RCODE_OTHER,
    DNS_ERR_MISMATCH,
    DNS_ERR_MALFORMED,
    DNS_ERR_ICMP,
    DNS_ERR_HTTP_STATUS, /* DoH: a status other than 200 */
    DNS_ERR_PROTOCOL,    /* DoH: HTTP/2 protocol error, or no h2 in ALPN */
    DNS_ERR_STREAM_RESET,
    DNS_ERR__END,
};

/* Driver counters (names in driver.c): plain ones are always emitted, the
 * dotted rcode.<NAME> ones only when seen. */
enum dns_counter {
    DNS_C_TRUNCATED,
    DNS_C_LATE,
    DNS_C_UNEXPECTED,
    DNS_C_RCODE,                          /* rcode.NOERROR ... rcode.BADCOOKIE (0..23) */
    DNS_C_RCODE_OTHER = DNS_C_RCODE + 24, /* rcode.OTHER: anything above 23 */
    DNS_C__COUNT,
};

struct dns_ctx {
    enum dns_transport transport;
    struct dns_query_list queries;
    bool ok_rcode[DNS_RCODE_MAX + 1];
    /* UDP: the largest answer the queries allow (their EDNS size, or 512) */
    size_t udp_answer_max;
    /* DoH */
    const char *authority;
    const char *doh_path;
    bool doh_get;
    struct lg_h2_prepared **doh_requests; /* per query, made once (doh_prepare) */
    char (*doh_lengths)[8];               /* POST: each query's content-length */
};

/* One request slot of a client. */
struct dns_slot {
    uint32_t query; /* index into the query list */
    uint16_t id;    /* DoH: the ID the query carries (POST: the slot's, GET: 0) */
    /* DoH: response status and body, reassembled from DATA frames */
    uint16_t status;
    bool body_too_long;
    uint8_t *body;
    size_t body_len, body_cap;
};

struct dns_client {
    struct dns_slot *slots; /* allocated on the first connection of the level */
    struct dns_ids ids;     /* the IDs of the current connection's queries */
    uint8_t *sendbuf;       /* one framed query (UDP, TCP) or one packet per slot (DoH POST) */
    uint32_t next_query;    /* walks the list from this client's own offset */
    /* TCP and DoT: a message split across reads */
    uint8_t *partial;
    size_t partial_len, partial_cap;
    /* DoH */
    struct lg_h2 *h2;
};

extern const struct lg_driver dns_udp_driver;
extern const struct lg_driver dns_tcp_driver; /* TCP and DoT */
extern const struct lg_driver dns_doh_driver;
struct lg_h2_prepared;
/* doh.c: every query's HTTP/2 request, made once at start; -1 when memory
 * runs out. doh_free undoes it. */
int doh_prepare(struct dns_ctx *ctx);
void doh_free(struct dns_ctx *ctx);
extern const char *const dns_error_names[];
extern const char *const dns_error_descriptions[];
extern const char *const dns_counter_names[];
/* What a DNS driver is on every transport (its client state, error classes
 * and counters), spread into each driver's table so that the three cannot
 * drift apart. */
#define DNS_DRIVER_COMMON                                                                          \
    .client_state_size = sizeof(struct dns_client), .error_names = dns_error_names,                \
    .error_descriptions = dns_error_descriptions, .n_errors = DNS_ERR__END - LG_ERR__BASE_COUNT,   \
    .counter_names = dns_counter_names, .n_counters = DNS_C__COUNT

/* driver.c: what the transports share. */
/* Allocates the client's slots and send buffer once per level. 0, or -1
 * after lg_conn_fail. */
int dns_client_prepare(struct lg_client *c, size_t sendbuf_len);
/* Starts `slot` on the client's next query: writes the query index to *query
 * and returns the slot's fresh ID, or -1 after lg_conn_fail. */
int dns_slot_begin(struct lg_client *c, struct dns_client *dc, const struct dns_ctx *ctx,
                   unsigned slot, uint32_t *query);
/* A message from the connection (UDP datagram, TCP frame): matched to its
 * slot by ID, then checked and counted; or counted as late or unexpected. */
void dns_on_message(struct lg_client *c, const uint8_t *pkt, size_t len);
/* A UDP answer longer than ctx->udp_answer_max (the io_uring hands over the
 * first udp_answer_max + 1 bytes of one, the plain socket all of it): the
 * query whose ID it carries fails as malformed, on either transport. */
void dns_on_oversize(struct lg_client *c, const uint8_t *pkt, size_t len);
/* Checks a reply to `slot` (its ID already matched) and finishes the request
 * with its class. */
void dns_finish(struct lg_client *c, const struct dns_client *dc, const struct dns_ctx *ctx,
                unsigned slot, const uint8_t *pkt, size_t len);
/* The query of `slot` timed out: its ID waits for a late answer and is not
 * issued again meanwhile; when too many wait, the connection is renewed. */
void dns_slot_timed_out(struct lg_client *c, unsigned slot);
/* Forget what only the closed connection could still answer. */
void dns_forget_late(struct lg_client *c);
void dns_client_free(struct lg_client *c);

#endif
