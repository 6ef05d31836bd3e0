/* The query list: dnsperf's input format (`name TYPE` per line) from files
 * and --query, each query encoded once at start by c-ares into a packet with
 * ID 0 that the hot path copies and patches. Packets live back to back in one
 * buffer the list owns. */
#ifndef DNSLOAD_QUERIES_H
#define DNSLOAD_QUERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dnsload/check.h"

#define DNS_EDNS_DEFAULT 1232 /* the DNS flag day 2020 size */

struct dns_encode_opts {
    bool rd;            /* recursion desired */
    unsigned edns_size; /* 0: no OPT record */
    bool dnssec;        /* DO bit (needs edns_size) */
};

struct dns_query {
    size_t off;            /* in bytes: 2-byte length prefix (TCP framing), then the packet */
    size_t path_off;       /* in paths: the DoH GET target */
    uint16_t len;          /* packet length, without the prefix */
    uint16_t question_len; /* name, type and class as sent, for the checker */
};

struct dns_query_list {
    struct dns_query *q;
    size_t n, cap;
    uint8_t *bytes;
    size_t bytes_len, bytes_cap;
    char *paths; /* NUL-terminated GET targets back to back, after dns_queries_build_get */
    size_t paths_len;
    uint16_t max_len; /* longest packet */
};

/* The packet with its 2-byte length prefix, the packet alone, its question. */
static inline const uint8_t *dns_query_framed(const struct dns_query_list *l, size_t i)
{
    return l->bytes + l->q[i].off;
}
static inline const uint8_t *dns_query_packet(const struct dns_query_list *l, size_t i)
{
    return l->bytes + l->q[i].off + 2;
}
static inline const uint8_t *dns_query_question(const struct dns_query_list *l, size_t i)
{
    return l->bytes + l->q[i].off + 2 + DNS_HEADER_LEN;
}
static inline const char *dns_query_get_path(const struct dns_query_list *l, size_t i)
{
    return l->paths + l->q[i].path_off;
}

/* Splits one line into name and type. Returns 1 for a query, 0 for a blank
 * or comment line (# or ;), -1 with a reason in err. `line` is modified. */
int dns_parse_query_line(char *line, const char **name, uint16_t *type, char *err, size_t errlen);
/* Encodes and appends one query. -1 with a reason in err; LG_NO_MEMORY
 * (loadgen/options/options.h) when memory ran out, here and below. */
int dns_queries_add(struct dns_query_list *l, const char *name, uint16_t type,
                    const struct dns_encode_opts *o, char *err, size_t errlen);
/* One `name TYPE` text (a --query value): 0, or -1 with a reason in err. */
int dns_queries_add_text(struct dns_query_list *l, const char *text,
                         const struct dns_encode_opts *o, char *err, size_t errlen);
/* Every query of a file; a bad line gives -1 and "FILE:LINE: reason" in err. */
int dns_queries_load(struct dns_query_list *l, const char *path, const struct dns_encode_opts *o,
                     char *err, size_t errlen);
/* DoH GET: "<doh_path>?dns=<base64url of the packet>" for every query (ID 0,
 * as RFC 8484 recommends, so the targets never change). 0, or -1 out of memory. */
int dns_queries_build_get(struct dns_query_list *l, const char *doh_path);
void dns_queries_free(struct dns_query_list *l);

/* RFC 4648 section 5 without padding; out needs 4 * ceil(n / 3) + 1 bytes. */
size_t dns_base64url(const uint8_t *in, size_t n, char *out);

#endif
