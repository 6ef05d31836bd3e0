/* HTTP/1.1 response parser. See h1parse.h. */
#include "httpload/h1parse.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void h1_init(struct h1_parser *p)
{
    memset(p, 0, sizeof(*p));
}

void h1_reset(struct h1_parser *p, bool head_request)
{
    char *carry = p->carry;
    uint32_t cap = p->carry_cap;
    memset(p, 0, sizeof(*p));
    p->carry = carry;
    p->carry_cap = cap;
    p->head_request = head_request;
}

void h1_free(struct h1_parser *p)
{
    free(p->carry);
    p->carry = NULL;
    p->carry_cap = p->carry_len = 0;
}

static int fail(struct h1_parser *p, const char *why)
{
    p->state = H1_FAILED;
    p->error = why;
    return H1_ERROR;
}

static bool is_ows(char c)
{
    return c == ' ' || c == '\t';
}

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

/* The next element of a comma-separated header list, trimmed, from *i on;
 * false when the list is done. Empty elements are skipped. */
static bool next_token(const char *v, size_t n, size_t *i, const char **tok, size_t *len)
{
    while (*i < n) {
        while (*i < n && (is_ows(v[*i]) || v[*i] == ','))
            (*i)++;
        size_t start = *i;
        while (*i < n && v[*i] != ',')
            (*i)++;
        size_t end = *i;
        while (end > start && is_ows(v[end - 1]))
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

static int status_line(struct h1_parser *p, const char *l, size_t n)
{
    /* HTTP/1.x SP 3DIGIT [SP reason] */
    if (n < 12 || memcmp(l, "HTTP/1.", 7) != 0 || (l[7] != '0' && l[7] != '1') || l[8] != ' ')
        return fail(p, "malformed status line");
    int code = 0;
    for (int i = 9; i < 12; i++) {
        if (l[i] < '0' || l[i] > '9') return fail(p, "malformed status code");
        code = code * 10 + (l[i] - '0');
    }
    if (code < 100 || (n > 12 && l[12] != ' ')) return fail(p, "malformed status code");
    p->status = (uint16_t)code;
    p->http_minor = (uint8_t)(l[7] - '0');
    p->state = H1_HEADERS;
    return H1_MORE;
}

/* Checks the syntax of a header (or trailer) line; only headers (apply)
 * change the framing. */
static int header_line(struct h1_parser *p, const char *l, size_t n, const char *colon, bool apply)
{
    if (is_ows(l[0])) return fail(p, "obsolete header line folding");
    /* Framing depends on recognising three names exactly, so what must be
     * refused is a name another parser could read as one of them: a missing
     * name, or whitespace before the colon. Other odd bytes in a name cannot
     * change the framing; checking every byte would cost more than the rest
     * of the parse. */
    if (!colon) colon = memchr(l, ':', n);
    if (!colon || colon == l) return fail(p, "header line without a name and colon");
    size_t nl = (size_t)(colon - l);
    if (is_ows(colon[-1]) || !tchar[(unsigned char)l[0]])
        return fail(p, "invalid character in a header name");
    const char *v = l + nl + 1;
    size_t vn = n - nl - 1;
    while (vn && is_ows(*v)) {
        v++;
        vn--;
    }
    while (vn && is_ows(v[vn - 1]))
        vn--;
    if (!apply) return H1_MORE;
    /* Only three headers matter for framing; the first letter rules out the rest. */
    char first = (char)(l[0] | 0x20);
    if (first == 'c' && nl == 14 && name_is(l, "content-length", 14)) {
        if (vn == 0 || vn > 19) return fail(p, "invalid Content-Length");
        uint64_t x = 0;
        for (size_t i = 0; i < vn; i++) {
            if (v[i] < '0' || v[i] > '9') return fail(p, "invalid Content-Length");
            x = x * 10 + (uint64_t)(v[i] - '0');
        }
        if (p->has_length && p->content_length != x)
            return fail(p, "conflicting Content-Length headers");
        p->has_length = true;
        p->content_length = x;
    } else if (first == 't' && nl == 17 && name_is(l, "transfer-encoding", 16) &&
               (l[16] | 0x20) == 'g') {
        bool last = false;
        bool has = list_has(v, vn, "chunked", &last);
        if (has && !last) return fail(p, "chunked is not the final transfer coding");
        p->chunked = has;
        p->has_te = true;
        if (!has) p->conn_close = true; /* unknown coding: the body runs to the close */
    } else if (first == 'c' && nl == 10 && name_is(l, "connection", 10)) {
        /* the usual values in one comparison; lists token by token */
        if (vn == 10 && name_is(v, "keep-alive", 10))
            p->keep_alive = true;
        else
            connection_tokens(p, v, vn);
    }
    return H1_MORE;
}

/* The blank line after the headers: decide how the body is framed. */
static int headers_done(struct h1_parser *p)
{
    if (p->status < 200) {
        if (p->status == 101) return fail(p, "unexpected 101 Switching Protocols");
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

static int carry_append(struct h1_parser *p, const uint8_t *d, size_t n);

/* One complete line (without its LF) whose bare CRs the caller has ruled
 * out; `colon` is its first colon when the caller knows it, else NULL. */
static int on_line(struct h1_parser *p, const char *l, size_t n, const char *colon)
{
    if (n && l[n - 1] == '\r') n--;
    switch (p->state) {
    case H1_STATUS_LINE:
        if (n == 0) return fail(p, "empty status line");
        return status_line(p, l, n);
    case H1_HEADERS:
        return n == 0 ? headers_done(p) : header_line(p, l, n, colon, true);
    case H1_TRAILERS:
        if (n == 0) {
            p->state = H1_DONE;
            return H1_COMPLETE;
        }
        return header_line(p, l, n, colon, false); /* trailers are checked, not used */
    default:
        return fail(p, "internal parser state");
    }
}

/* A line found by memchr (a carried or very long line): the slow path. */
static int on_line_slow(struct h1_parser *p, const char *l, size_t n)
{
    size_t body = n && l[n - 1] == '\r' ? n - 1 : n;
    /* RFC 9112 2.2: a bare CR is never a line end; accepting it would frame
     * the message differently from other parsers */
    if (memchr(l, '\r', body)) return fail(p, "bare CR in a header line");
    return on_line(p, l, n, NULL);
}

/* Where the LFs and CRs are in a window of up to 256 bytes, as bit masks:
 * one vector pass over the header block instead of library searches per
 * line. */
enum { WINDOW = 256, WORDS = WINDOW / 64 };
struct line_masks {
    uint64_t nl[WORDS + 1], cr[WORDS], colon[WORDS]; /* nl has a zero word past the end */
};

static void masks_compute(const uint8_t *d, size_t n, struct line_masks *m)
{
    size_t i = 0;
    memset(m, 0, sizeof(*m));
#if defined(__SSE2__)
    const __m128i vnl = _mm_set1_epi8('\n'), vcr = _mm_set1_epi8('\r'), vco = _mm_set1_epi8(':');
    for (; i + 64 <= n; i += 64) {
        uint64_t nl = 0, cr = 0, co = 0;
        for (unsigned k = 0; k < 4; k++) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(d + i + 16 * k));
            nl |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vnl)) << (16 * k);
            cr |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vcr)) << (16 * k);
            co |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vco)) << (16 * k);
        }
        m->nl[i / 64] = nl;
        m->cr[i / 64] = cr;
        m->colon[i / 64] = co;
    }
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(d + i));
        m->nl[i / 64] |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vnl)) << (i % 64);
        m->cr[i / 64] |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vcr)) << (i % 64);
        m->colon[i / 64] |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vco))
                            << (i % 64);
    }
    if (i < n && n >= 16) {
        /* the last 16 bytes, overlapping what is done: setting a bit twice is harmless */
        size_t at = n - 16;
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(d + at));
        uint64_t b[3] = {(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vnl)),
                         (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vcr)),
                         (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vco))};
        uint64_t *dst[3] = {m->nl, m->cr, m->colon};
        unsigned sh = (unsigned)(at % 64);
        for (unsigned k = 0; k < 3; k++) {
            dst[k][at / 64] |= b[k] << sh;
            if (sh > 48) dst[k][at / 64 + 1] |= b[k] >> (64 - sh);
        }
        i = n;
    }
#endif
    for (; i < n; i++) {
        m->nl[i / 64] |= (uint64_t)(d[i] == '\n') << (i % 64);
        m->cr[i / 64] |= (uint64_t)(d[i] == '\r') << (i % 64);
        m->colon[i / 64] |= (uint64_t)(d[i] == ':') << (i % 64);
    }
}

/* A CR in [0, end) that is not followed by LF (RFC 9112 2.2: a bare CR is
 * never a line end; accepting it would frame the message differently from
 * other parsers). */
static bool bare_cr_before(const struct line_masks *m, size_t end)
{
    for (size_t k = 0; k * 64 < end; k++) {
        uint64_t bare = m->cr[k] & ~((m->nl[k] >> 1) | (m->nl[k + 1] << 63));
        if (end - k * 64 < 64) bare &= ((uint64_t)1 << (end - k * 64)) - 1;
        if (bare) return true;
    }
    return false;
}

/* The first set bit of a window mask in [a, b), or b when there is none. */
static inline size_t first_in(const uint64_t *mask, size_t a, size_t b)
{
    while (a < b) {
        uint64_t word = mask[a / 64] >> (a % 64);
        if (word) {
            size_t at = a + (size_t)__builtin_ctzll(word);
            return at < b ? at : b;
        }
        a = (a / 64 + 1) * 64;
    }
    return b;
}

static bool in_line_state(const struct h1_parser *p)
{
    return p->state == H1_STATUS_LINE || p->state == H1_HEADERS || p->state == H1_TRAILERS;
}

/* Could this header line be Content-Length, Transfer-Encoding or Connection
 * (or one of them with whitespace before its colon, which header_line
 * refuses)? The rest cannot change framing and need no further look. */
static bool may_frame(const char *l, size_t n)
{
    char first = (char)(l[0] | 0x20);
    if (first != 'c' && first != 't') return false;
    static const unsigned at[] = {10, 14, 17};
    for (unsigned k = 0; k < 3; k++)
        if (n > at[k] && (l[at[k]] == ':' || is_ows(l[at[k]]))) return true;
    return false;
}

/* Handles every complete line from d[*pos] on while the parser reads lines;
 * a partial line at the end of the data is carried to the next read. */
static int scan_lines(struct h1_parser *p, const uint8_t *d, size_t len, size_t *pos)
{
    struct line_masks m;
    while (*pos < len && in_line_state(p)) {
        size_t start = *pos, wlen = len - start < WINDOW ? len - start : WINDOW;
        const uint8_t *w = d + start;
        masks_compute(w, wlen, &m);
        size_t off = 0;
        int rc = H1_MORE;
        bool reading = true; /* until a line completes the response or ends the headers */
        for (size_t k = 0; k < WORDS && reading; k++) {
            uint64_t bits = m.nl[k];
            while (bits) {
                size_t nl = k * 64 + (size_t)__builtin_ctzll(bits);
                bits &= bits - 1;
                const char *l = (const char *)w + off;
                size_t n = nl - off;
                off = nl + 1;
                p->header_bytes += (uint32_t)n + 1;
                if (p->header_bytes > H1_HEADER_LIMIT) return fail(p, "header block too large");
                if (p->state == H1_HEADERS && n > 1 && !may_frame(l, n)) {
                    /* a header that cannot change framing: its syntax only */
                    size_t colon = first_in(m.colon, nl - n, nl);
                    if (colon == nl || colon == nl - n)
                        return fail(p, "header line without a name and colon");
                    if (!tchar[(unsigned char)l[0]] || is_ows((char)w[colon - 1]))
                        return fail(p, is_ows(l[0]) ? "obsolete header line folding"
                                                    : "invalid character in a header name");
                    continue;
                }
                rc = on_line(p, l, n, NULL);
                if (rc != H1_MORE || !in_line_state(p)) {
                    reading = false;
                    break;
                }
            }
        }
        *pos = start + off;
        if (bare_cr_before(&m, off)) return fail(p, "bare CR in a header line");
        if (rc != H1_MORE) return rc;
        if (!in_line_state(p)) break;
        if (off == 0) {
            if (wlen == len - start) {
                /* the data ends inside a line: keep it for the next read */
                p->header_bytes += (uint32_t)wlen;
                if (p->header_bytes > H1_HEADER_LIMIT) return fail(p, "header block too large");
                *pos = len;
                return carry_append(p, w, wlen);
            }
            /* a line longer than the window: find its end the slow way */
            const uint8_t *end = memchr(w, '\n', len - start);
            size_t take = end ? (size_t)(end - w) + 1 : len - start;
            p->header_bytes += (uint32_t)take;
            if (p->header_bytes > H1_HEADER_LIMIT) return fail(p, "header block too large");
            *pos = start + take;
            if (!end) return carry_append(p, w, take);
            rc = on_line_slow(p, (const char *)w, take - 1);
            if (rc != H1_MORE) return rc;
        }
    }
    return H1_MORE;
}

static int carry_append(struct h1_parser *p, const uint8_t *d, size_t n)
{
    if (p->carry_len + n > H1_HEADER_LIMIT) return fail(p, "header block too large");
    if (p->carry_len + n > p->carry_cap) {
        uint32_t cap = p->carry_cap ? p->carry_cap : 256;
        while (cap < p->carry_len + n)
            cap *= 2;
        char *c = realloc(p->carry, cap);
        if (!c) return fail(p, "out of memory");
        p->carry = c;
        p->carry_cap = cap;
    }
    memcpy(p->carry + p->carry_len, d, n);
    p->carry_len += (uint32_t)n;
    return H1_MORE;
}

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

int h1_parse(struct h1_parser *p, const uint8_t *d, size_t len, size_t *consumed)
{
    size_t pos = 0;
    int rc = H1_MORE;
    while (pos < len && rc == H1_MORE) {
        switch (p->state) {
        case H1_STATUS_LINE:
        case H1_HEADERS:
        case H1_TRAILERS: {
            if (!p->carry_len) {
                rc = scan_lines(p, d, len, &pos);
                break;
            }
            /* finish the line carried over from the last read */
            const uint8_t *nl = memchr(d + pos, '\n', len - pos);
            size_t take = nl ? (size_t)(nl - (d + pos)) + 1 : len - pos;
            p->header_bytes += (uint32_t)take;
            if (p->header_bytes > H1_HEADER_LIMIT) {
                rc = fail(p, "header block too large");
                break;
            }
            if ((rc = carry_append(p, d + pos, nl ? take - 1 : take)) != H1_MORE) break;
            pos += take;
            if (nl) {
                size_t n = p->carry_len;
                p->carry_len = 0;
                rc = on_line_slow(p, p->carry, n);
            }
            break;
        }
        case H1_BODY_LENGTH: {
            size_t n = len - pos;
            if (n > p->remaining) n = (size_t)p->remaining;
            pos += n;
            p->remaining -= n;
            p->body_bytes += n;
            if (p->remaining == 0) {
                p->state = H1_DONE;
                rc = H1_COMPLETE;
            }
            break;
        }
        case H1_CHUNK_SIZE: {
            int h = hexval(d[pos]);
            if (h >= 0) {
                if (++p->chunk_digits > 15) {
                    rc = fail(p, "chunk size too large");
                    break;
                }
                p->remaining = p->remaining * 16 + (uint64_t)h;
                pos++;
            } else if (p->chunk_digits == 0) {
                rc = fail(p, "invalid chunk size");
            } else if (d[pos] == ';') {
                p->state = H1_CHUNK_EXT;
                pos++;
            } else if (is_ows((char)d[pos])) {
                p->state = H1_CHUNK_SIZE_OWS;
                pos++;
            } else if (d[pos] == '\r') {
                p->state = H1_CHUNK_SIZE_LF;
                pos++;
            } else {
                rc = fail(p, "invalid chunk size");
            }
            break;
        }
        case H1_CHUNK_SIZE_OWS:
            /* BWS after the size: only more whitespace, an extension or the line end */
            if (is_ows((char)d[pos])) {
                pos++;
            } else if (d[pos] == ';') {
                p->state = H1_CHUNK_EXT;
                pos++;
            } else if (d[pos] == '\r') {
                p->state = H1_CHUNK_SIZE_LF;
                pos++;
            } else {
                rc = fail(p, "invalid chunk size line");
            }
            break;
        case H1_CHUNK_EXT: {
            /* extensions are skipped to the CRLF that ends the line, within
             * the header limit */
            const uint8_t *cr = memchr(d + pos, '\r', len - pos);
            size_t take = cr ? (size_t)(cr - (d + pos)) : len - pos;
            if (memchr(d + pos, '\n', take)) {
                rc = fail(p, "chunk size line not ended by CRLF");
                break;
            }
            p->header_bytes += (uint32_t)take;
            if (p->header_bytes > H1_HEADER_LIMIT) {
                rc = fail(p, "chunk extension too large");
                break;
            }
            pos += take;
            if (cr) {
                p->state = H1_CHUNK_SIZE_LF;
                pos++;
            }
            break;
        }
        case H1_CHUNK_SIZE_LF:
            if (d[pos] != '\n') {
                rc = fail(p, "invalid chunk size line");
                break;
            }
            pos++;
            p->header_bytes = 0;
            if (p->remaining == 0) {
                p->state = H1_TRAILERS;
            } else {
                p->state = H1_CHUNK_DATA;
            }
            break;
        case H1_CHUNK_DATA: {
            size_t n = len - pos;
            if (n > p->remaining) n = (size_t)p->remaining;
            pos += n;
            p->remaining -= n;
            p->body_bytes += n;
            if (p->remaining == 0) p->state = H1_CHUNK_DATA_CR;
            break;
        }
        case H1_CHUNK_DATA_CR:
            if (d[pos] != '\r') {
                rc = fail(p, "chunk data longer than its size");
                break;
            }
            p->state = H1_CHUNK_DATA_LF;
            pos++;
            break;
        case H1_CHUNK_DATA_LF:
            if (d[pos] != '\n') {
                rc = fail(p, "chunk data longer than its size");
                break;
            }
            pos++;
            p->state = H1_CHUNK_SIZE;
            p->chunk_digits = 0;
            p->remaining = 0;
            break;
        case H1_BODY_UNTIL_EOF:
            p->body_bytes += len - pos;
            pos = len;
            break;
        case H1_DONE:
            rc = H1_COMPLETE;
            break;
        default:
            rc = H1_ERROR;
            break;
        }
    }
    if (rc == H1_MORE && p->state == H1_DONE) rc = H1_COMPLETE;
    *consumed = pos;
    return rc;
}

int h1_parse_eof(struct h1_parser *p)
{
    if (p->state == H1_BODY_UNTIL_EOF) {
        p->state = H1_DONE;
        return H1_COMPLETE;
    }
    if (p->state == H1_DONE) return H1_COMPLETE;
    if (p->state == H1_FAILED) return H1_ERROR;
    return fail(p, p->state == H1_STATUS_LINE && p->header_bytes == 0
                       ? "connection closed before a response"
                       : "connection closed in the middle of a response");
}

bool h1_must_close(const struct h1_parser *p)
{
    if (p->conn_close || p->state == H1_BODY_UNTIL_EOF) return true;
    return p->http_minor == 0 && !p->keep_alive;
}
