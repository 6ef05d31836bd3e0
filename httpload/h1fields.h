/* What the HTTP/1.1 parser makes of a status line and a header field: the
 * framing (Content-Length, Transfer-Encoding, Connection) and the checks a
 * field must pass. Static and inlined: only h1parse.c includes it, and its
 * line loop, compiled once per instruction set, calls these on every line. */
#ifndef HTTPLOAD_H1FIELDS_H
#define HTTPLOAD_H1FIELDS_H

#include "httpload/h1chunked.h"
#include "httpload/h1parse.h"

#include <string.h>
#include <strings.h>

/* For the line loop's parts: they are inlined into one copy of it per
 * instruction set (scan_lines_avx2, ...), where the probe is a constant,
 * and so that the common lines make no call (a call clobbers the vector
 * registers). */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* RFC 9110 tchar, as a table: header names are checked a byte at a time on
 * every response, so this is one load per byte rather than a search. */
static const uint8_t tchar[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* What the first byte of a header line says: NAME, a name that cannot be
 * one of the framing headers; FRAMING, a name that may be (C, c, T, t);
 * OTHER for what header_line refuses (obs-fold, a byte that cannot start a
 * name). tchar (RFC 9110 5.6.2) with C and T marked. */
enum { OTHER = 0, NAME = 1, FRAMING = 2 };
static const uint8_t first_byte[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,
    0, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1,
    1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0,
};

/* The next element of a comma-separated header list, trimmed, from *i on;
 * false when the list is done. Empty elements are skipped. */
static bool next_token(const char *v, size_t n, size_t *i, const char **tok, size_t *len)
{
    while (*i < n) {
        while (*i < n && (h1_is_ows(v[*i]) || v[*i] == ','))
            (*i)++;
        size_t start = *i;
        while (*i < n && v[*i] != ',')
            (*i)++;
        size_t end = *i;
        while (end > start && h1_is_ows(v[end - 1]))
            end--;
        if (end > start) {
            *tok = v + start;
            *len = end - start;
            return true;
        }
    }
    return false;
}

/* Does the list contain `token` (case-insensitive), and is it the last one? */
static bool list_has(const char *v, size_t n, const char *token, bool *last)
{
    size_t tl = strlen(token), i = 0, len;
    const char *t;
    bool found = false;
    while (next_token(v, n, &i, &t, &len)) {
        bool match = len == tl && strncasecmp(t, token, tl) == 0;
        found |= match;
        *last = match;
    }
    return found;
}

/* Compares n (8 <= n <= 16) bytes of s, ASCII letters in any case, with a
 * lower-case name made of letters and '-': two overlapping 8-byte loads,
 * since setting bit 5 lowers letters and leaves '-' as it is. */
static inline bool name_is(const char *s, const char *lower, size_t n)
{
    uint64_t a, b, x, y;
    const uint64_t lowbits = 0x2020202020202020ull;
    memcpy(&a, s, 8);
    memcpy(&b, s + n - 8, 8);
    memcpy(&x, lower, 8);
    memcpy(&y, lower + n - 8, 8);
    return ((a | lowbits) == x) & ((b | lowbits) == y);
}

/* Connection: one pass over the token list for "close" and "keep-alive". */
static void connection_tokens(struct h1_parser *p, const char *v, size_t n)
{
    size_t i = 0, len;
    const char *t;
    while (next_token(v, n, &i, &t, &len)) {
        if (len == 5 && strncasecmp(t, "close", 5) == 0)
            p->conn_close = true;
        else if (len == 10 && strncasecmp(t, "keep-alive", 10) == 0)
            p->keep_alive = true;
    }
}

/* 8 bytes as one word, in the machine's order (memcpy: no alignment needed). */
static inline uint64_t word8(const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

static ALWAYS_INLINE int status_line(struct h1_parser *p, const char *l, size_t n)
{
    /* HTTP/1.x SP 3DIGIT [SP reason]; "HTTP/1.0" and "HTTP/1.1" differ only
     * in the low bit of their last byte, so one comparison takes both */
    static const char minor_bit[8] = {0, 0, 0, 0, 0, 0, 0, 1};
    if (n < 12 || (word8(l) & ~word8(minor_bit)) != word8("HTTP/1.0") || l[8] != ' ')
        return h1_fail(p, "malformed status line");
    unsigned d0 = (unsigned)(uint8_t)l[9] - '0', d1 = (unsigned)(uint8_t)l[10] - '0',
             d2 = (unsigned)(uint8_t)l[11] - '0';
    if (d0 > 9 || d1 > 9 || d2 > 9 || d0 == 0 || (n > 12 && l[12] != ' '))
        return h1_fail(p, "malformed status code");
    p->status = (uint16_t)(d0 * 100 + d1 * 10 + d2);
    p->http_minor = (uint8_t)(l[7] - '0');
    p->state = H1_HEADERS;
    return H1_MORE;
}

static ALWAYS_INLINE int content_length(struct h1_parser *p, const char *v, size_t vn)
{
    if (vn == 0 || vn > 19) return h1_fail(p, "invalid Content-Length");
    uint64_t x = 0;
    for (size_t i = 0; i < vn; i++) {
        unsigned digit = (unsigned)(uint8_t)v[i] - '0';
        if (digit > 9) return h1_fail(p, "invalid Content-Length");
        x = x * 10 + digit;
    }
    if (p->has_length && p->content_length != x)
        return h1_fail(p, "conflicting Content-Length headers");
    p->has_length = true;
    p->content_length = x;
    return H1_MORE;
}

static int transfer_encoding(struct h1_parser *p, const char *v, size_t vn)
{
    bool last = false;
    bool has = list_has(v, vn, "chunked", &last);
    /* several Transfer-Encoding lines make one list (RFC 9110 5.3): a
     * coding after a chunked one on an earlier line is as wrong as on the
     * same line */
    size_t i = 0, tl;
    const char *t;
    bool any = next_token(v, vn, &i, &t, &tl);
    if ((has && !last) || (p->chunked && any))
        return h1_fail(p, "chunked is not the final transfer coding");
    if (any) p->chunked = has;
    p->has_te = true;
    if (!p->chunked) p->conn_close = true; /* unknown coding: the body runs to the close */
    return H1_MORE;
}

/* The three headers that frame the body. */
enum framing { NOT_FRAMING, CONTENT_LENGTH, CONNECTION, TRANSFER_ENCODING };

/* The value of a framing header as it stands between colon and LF. */
static ALWAYS_INLINE int framing_value(struct h1_parser *p, enum framing which, const char *v,
                                       size_t vn)
{
    /* OWS around the value (a CR before the LF too); one SP first, as is usual */
    const char *end = v + vn;
    if (v < end && *v == ' ') v++;
    while (v < end && h1_is_ows(*v))
        v++;
    if (end > v && end[-1] == '\r') end--;
    while (end > v && h1_is_ows(end[-1]))
        end--;
    vn = (size_t)(end - v);
    switch (which) {
    case CONTENT_LENGTH:
        return content_length(p, v, vn);
    case CONNECTION:
        /* the usual value in one comparison; lists token by token */
        if (vn == 10 && name_is(v, "keep-alive", 10))
            p->keep_alive = true;
        else
            connection_tokens(p, v, vn);
        return H1_MORE;
    case TRANSFER_ENCODING:
        return transfer_encoding(p, v, vn);
    default:
        return H1_MORE;
    }
}

/* Name lengths of the framing headers, as bits: Connection (10),
 * Content-Length (14), Transfer-Encoding (17). */
#define FRAMING_LENGTHS ((1u << 10) | (1u << 14) | (1u << 17))

/* Which framing header a header name is (ASCII case-insensitive). A CR in
 * a name compares like '-' (bit 5), but a CR not right before the LF fails
 * the whole line, so none gets through. */
static inline enum framing framing_name(const char *name, size_t nlen)
{
    if (nlen >= 32 || !(FRAMING_LENGTHS >> nlen & 1)) return NOT_FRAMING;
    if (nlen == 14 && name_is(name, "content-length", 14)) return CONTENT_LENGTH;
    if (nlen == 10 && name_is(name, "connection", 10)) return CONNECTION;
    if (nlen == 17 && name_is(name, "transfer-encoding", 16) && (name[16] | 0x20) == 'g')
        return TRANSFER_ENCODING;
    return NOT_FRAMING;
}

/* Checks the syntax of a header (or trailer) line (n bytes, without CR and
 * LF) the slow way, as scan_lines does with its probes: a name that starts
 * with a tchar (RFC 9110 5.6.2), no whitespace in or after it (RFC 9112
 * 5.1; a line that starts with whitespace is obs-fold), a colon. Only
 * headers (apply) change the framing. */
static int header_line(struct h1_parser *p, const char *l, size_t n, bool apply)
{
    if (h1_is_ows(l[0])) return h1_fail(p, "obsolete header line folding");
    const char *colon = memchr(l, ':', n);
    if (!colon || colon == l) return h1_fail(p, "header line without a name and colon");
    size_t nl = (size_t)(colon - l);
    if (!tchar[(unsigned char)l[0]]) return h1_fail(p, "invalid character in a header name");
    for (size_t i = 1; i < nl; i++)
        if (h1_is_ows(l[i])) return h1_fail(p, "whitespace in or after a header name");
    if (!apply) return H1_MORE;
    return framing_value(p, framing_name(l, nl), colon + 1, n - nl - 1);
}

/* The blank line after the headers: decide how the body is framed. */
static int headers_done(struct h1_parser *p)
{
    if (p->status < 200) {
        if (p->status == 101) return h1_fail(p, "unexpected 101 Switching Protocols");
        /* an interim response: the real one follows */
        bool head = p->head_request;
        unsigned interim = p->interim + 1;
        uint32_t hb = p->header_bytes;
        h1_reset(p, head);
        p->interim = interim;
        p->header_bytes = hb;
        return H1_MORE;
    }
    if (p->head_request || p->status == 204 || p->status == 304) {
        p->state = H1_DONE;
        return H1_COMPLETE;
    }
    /* RFC 9112 6.3: Transfer-Encoding overrides Content-Length; without
     * chunked as the final coding the body runs to the close */
    if (p->has_te && !p->chunked) {
        p->state = H1_BODY_UNTIL_EOF;
        return H1_MORE;
    }
    if (p->chunked) {
        p->state = H1_CHUNK_SIZE;
        p->chunk_digits = 0;
        p->remaining = 0;
        p->header_bytes = 0;
        return H1_MORE;
    }
    if (p->has_length) {
        p->remaining = p->content_length;
        if (p->remaining == 0) {
            p->state = H1_DONE;
            return H1_COMPLETE;
        }
        p->state = H1_BODY_LENGTH;
        return H1_MORE;
    }
    p->state = H1_BODY_UNTIL_EOF;
    return H1_MORE;
}

#endif
