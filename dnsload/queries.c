/* Query input and encoding (see queries.h). c-ares only encodes here: it
 * never owns a socket or a retry in dnsload. */
#include "dnsload/queries.h"
#include "loadgen/core/nomem.h"

#include "dnsload/qtype.h"

#include <ares.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DNS_CLASS_IN 1
#define DNS_OPT_LEN 11 /* root name, type, class, TTL, rdlength */

int dns_parse_query_line(char *line, const char **name, uint16_t *type, char *err, size_t errlen)
{
    static const char space[] = " \t\r\n\v\f";
    char *save = NULL;
    char *first = strtok_r(line, space, &save);
    if (!first || first[0] == '#' || first[0] == ';') return 0;
    char *type_text = strtok_r(NULL, space, &save);
    if (!type_text) {
        snprintf(err, errlen, "'%s' has no query type (expected 'name TYPE', e.g. 'example.com A')",
                 first);
        return -1;
    }
    char *extra = strtok_r(NULL, space, &save);
    if (extra) {
        snprintf(err, errlen, "unexpected '%s' after the type (expected 'name TYPE')", extra);
        return -1;
    }
    if (dns_qtype_parse(type_text, type) < 0) {
        snprintf(err, errlen, "unknown query type '%s' (a mnemonic like AAAA, or TYPEnnn)",
                 type_text);
        return -1;
    }
    *name = first;
    return 1;
}

static int reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* ares_create_query is the whole encoder c-ares 1.18 offers without a channel.
 * (Newer c-ares marks it deprecated in favour of ares_dns_record_t; if that
 * warning appears, this is the one call to wrap.) The packet is only encoded
 * here: no channel, so c-ares never sends, retries or owns a socket. */
static int encode(const char *name, uint16_t type, const struct dns_encode_opts *o,
                  unsigned char **buf, int *len)
{
    return ares_create_query(name, DNS_CLASS_IN, type, 0, o->rd ? 1 : 0, buf, len,
                             (int)o->edns_size);
}

int dns_queries_add(struct dns_query_list *l, const char *name, uint16_t type,
                    const struct dns_encode_opts *o, char *err, size_t errlen)
{
    unsigned char *buf = NULL;
    int len = 0;
    int rc = encode(name, type, o, &buf, &len);
    if (rc == ARES_ENOMEM) {
        snprintf(err, errlen, "%s", lg_no_memory);
        return LG_NO_MEMORY;
    }
    if (rc != ARES_SUCCESS) {
        snprintf(err, errlen, "cannot encode '%s': %s", name, ares_strerror(rc));
        return -1;
    }
    /* Header, a question with at least the root name, type and class. */
    if (len < DNS_HEADER_LEN + 5 || len > 65535) {
        ares_free_string(buf);
        snprintf(err, errlen, "cannot encode '%s'", name);
        return -1;
    }
    size_t question_len = (size_t)len - DNS_HEADER_LEN - (o->edns_size ? DNS_OPT_LEN : 0);
    if (o->edns_size && o->dnssec) {
        /* c-ares has no DO flag: set it in the OPT record it appended last
         * (TTL = extended rcode, version, flags; DO is the top flag bit). */
        uint8_t *opt = buf + len - DNS_OPT_LEN;
        if (opt[0] != 0 || opt[1] != 0 || opt[2] != 41) {
            ares_free_string(buf);
            snprintf(err, errlen, "cannot encode '%s': no OPT record to set DO in", name);
            return -1;
        }
        opt[7] |= 0x80;
    }
    if (reserve((void **)&l->q, &l->cap, l->n + 1, sizeof(*l->q)) < 0 ||
        reserve((void **)&l->bytes, &l->bytes_cap, l->bytes_len + 2 + (size_t)len, 1) < 0) {
        ares_free_string(buf);
        snprintf(err, errlen, "%s", lg_no_memory);
        return LG_NO_MEMORY;
    }
    struct dns_query *q = &l->q[l->n++];
    q->off = l->bytes_len;
    q->path_off = 0;
    q->len = (uint16_t)len;
    q->question_len = (uint16_t)question_len;
    l->bytes[l->bytes_len] = (uint8_t)(len >> 8);
    l->bytes[l->bytes_len + 1] = (uint8_t)len;
    memcpy(l->bytes + l->bytes_len + 2, buf, (size_t)len);
    l->bytes_len += 2 + (size_t)len;
    if (q->len > l->max_len) l->max_len = q->len;
    ares_free_string(buf);
    return 0;
}

int dns_queries_add_text(struct dns_query_list *l, const char *text,
                         const struct dns_encode_opts *o, char *err, size_t errlen)
{
    char *copy = strdup(text);
    if (!copy) {
        snprintf(err, errlen, "%s", lg_no_memory);
        return LG_NO_MEMORY;
    }
    const char *name;
    uint16_t type;
    int rc = dns_parse_query_line(copy, &name, &type, err, errlen);
    if (rc == 0) {
        snprintf(err, errlen, "'%s' is not a query (expected 'name TYPE')", text);
        rc = -1;
    } else if (rc > 0) {
        rc = dns_queries_add(l, name, type, o, err, errlen);
    }
    free(copy);
    return rc;
}

int dns_queries_load(struct dns_query_list *l, const char *path, const struct dns_encode_opts *o,
                     char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, lg_errno_why(errno)); /* fopen allocates too */
        return errno == ENOMEM ? LG_NO_MEMORY : -1;
    }
    char *line = NULL;
    size_t cap = 0;
    unsigned long lineno = 0;
    int rc = 0;
    char why[300];
    for (;;) {
        errno = 0;
        if (getline(&line, &cap, f) < 0) {
            /* a line that could not be held is no end of the file */
            if (errno == ENOMEM) {
                snprintf(err, errlen, "%s", lg_no_memory);
                rc = LG_NO_MEMORY;
            }
            break;
        }
        lineno++;
        const char *name;
        uint16_t type;
        int r = dns_parse_query_line(line, &name, &type, why, sizeof(why));
        if (r > 0) r = dns_queries_add(l, name, type, o, why, sizeof(why));
        if (r < 0) {
            snprintf(err, errlen, "%s:%lu: %s", path, lineno, why);
            rc = r;
            break;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: %s", path, lg_errno_why(errno));
        rc = errno == ENOMEM ? LG_NO_MEMORY : -1;
    }
    free(line);
    fclose(f);
    return rc;
}

size_t dns_base64url(const uint8_t *in, size_t n, char *out)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = alphabet[(v >> 6) & 63];
        out[o++] = alphabet[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = alphabet[(v >> 6) & 63];
    }
    out[o] = '\0';
    return o;
}

int dns_queries_build_get(struct dns_query_list *l, const char *doh_path)
{
    const char *sep = strchr(doh_path, '?') ? "&dns=" : "?dns=";
    size_t prefix = strlen(doh_path) + strlen(sep);
    size_t total = 0;
    for (size_t i = 0; i < l->n; i++)
        total += prefix + 4 * ((l->q[i].len + 2u) / 3u) + 1;
    free(l->paths);
    l->paths = malloc(total ? total : 1);
    if (!l->paths) return -1;
    size_t off = 0;
    for (size_t i = 0; i < l->n; i++) {
        l->q[i].path_off = off;
        off += (size_t)sprintf(l->paths + off, "%s%s", doh_path, sep);
        off += dns_base64url(dns_query_packet(l, i), l->q[i].len, l->paths + off) + 1;
    }
    l->paths_len = off;
    return 0;
}

void dns_queries_free(struct dns_query_list *l)
{
    free(l->q);
    free(l->bytes);
    free(l->paths);
    memset(l, 0, sizeof(*l));
}
