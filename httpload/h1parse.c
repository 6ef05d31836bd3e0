/* HTTP/1.1 response parser (see h1parse.h). A header line costs one probe
 * of 32 bytes (h1scan.h) when it is shorter than that: its end, its first
 * colon and the bytes it may not hold come out of bit masks; only a line
 * whose first byte can start Content-Length, Transfer-Encoding or
 * Connection has its name compared. Bodies are counted, not stored. */
#include "httpload/h1parse.h"
#include "httpload/h1scan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* For the line loop's parts: they are inlined into one copy of it per
 * instruction set (scan_lines_avx2, ...), where the probe is a constant,
 * and so that the common lines make no call (a call clobbers the vector
 * registers). */
#define ALWAYS_INLINE inline __attribute__((always_inline))

void h1_init(struct h1_parser *p)
{
    memset(p, 0, sizeof(*p));
}

void h1_reset(struct h1_parser *p, bool head_request)
{
    char *carry = p->carry;
    uint32_t cap = p->carry_cap;
    uint8_t probe = p->probe;
    memset(p, 0, sizeof(*p));
    p->carry = carry;
    p->carry_cap = cap;
    p->probe = probe;
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
        return fail(p, "malformed status line");
    unsigned d0 = (unsigned)(uint8_t)l[9] - '0', d1 = (unsigned)(uint8_t)l[10] - '0',
             d2 = (unsigned)(uint8_t)l[11] - '0';
    if (d0 > 9 || d1 > 9 || d2 > 9 || d0 == 0 || (n > 12 && l[12] != ' '))
        return fail(p, "malformed status code");
    p->status = (uint16_t)(d0 * 100 + d1 * 10 + d2);
    p->http_minor = (uint8_t)(l[7] - '0');
    p->state = H1_HEADERS;
    return H1_MORE;
}

static ALWAYS_INLINE int content_length(struct h1_parser *p, const char *v, size_t vn)
{
    if (vn == 0 || vn > 19) return fail(p, "invalid Content-Length");
    uint64_t x = 0;
    for (size_t i = 0; i < vn; i++) {
        unsigned digit = (unsigned)(uint8_t)v[i] - '0';
        if (digit > 9) return fail(p, "invalid Content-Length");
        x = x * 10 + digit;
    }
    if (p->has_length && p->content_length != x)
        return fail(p, "conflicting Content-Length headers");
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
        return fail(p, "chunked is not the final transfer coding");
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
    while (v < end && is_ows(*v))
        v++;
    if (end > v && end[-1] == '\r') end--;
    while (end > v && is_ows(end[-1]))
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
    if (is_ows(l[0])) return fail(p, "obsolete header line folding");
    const char *colon = memchr(l, ':', n);
    if (!colon || colon == l) return fail(p, "header line without a name and colon");
    size_t nl = (size_t)(colon - l);
    if (!tchar[(unsigned char)l[0]]) return fail(p, "invalid character in a header name");
    for (size_t i = 1; i < nl; i++)
        if (is_ows(l[i])) return fail(p, "whitespace in or after a header name");
    if (!apply) return H1_MORE;
    return framing_value(p, framing_name(l, nl), colon + 1, n - nl - 1);
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

/* One complete line (without its LF) of a carried read, whose bare CRs and
 * NULs on_line_slow has ruled out. */
static int on_line(struct h1_parser *p, const char *l, size_t n)
{
    if (n && l[n - 1] == '\r') n--;
    switch (p->state) {
    case H1_STATUS_LINE:
        if (n == 0) return fail(p, "empty status line");
        return status_line(p, l, n);
    case H1_HEADERS:
        return n == 0 ? headers_done(p) : header_line(p, l, n, true);
    case H1_TRAILERS:
        if (n == 0) {
            p->state = H1_DONE;
            return H1_COMPLETE;
        }
        return header_line(p, l, n, false); /* trailers are checked, not used */
    default:
        return fail(p, "internal parser state");
    }
}

/* A line carried across reads, found by memchr: the slow path. */
static int on_line_slow(struct h1_parser *p, const char *l, size_t n)
{
    size_t body = n && l[n - 1] == '\r' ? n - 1 : n;
    /* RFC 9112 2.2: a bare CR is never a line end; accepting it would frame
     * the message differently from other parsers */
    if (memchr(l, '\r', body)) return fail(p, "bare CR in a header line");
    /* RFC 9110 5.5: a NUL in a field is dangerous; recipients refuse it */
    if (memchr(l, '\0', body)) return fail(p, "NUL in a header line");
    return on_line(p, l, n);
}

static bool in_line_state(const struct h1_parser *p)
{
    return p->state <= H1_TRAILERS;
}

static ALWAYS_INLINE struct h1_chunk probe(enum h1_simd isa, const uint8_t *s)
{
#if defined(H1_HAVE_X86)
    if (isa == H1_SIMD_AVX2) return h1_probe_avx2(s);
#endif
#if defined(__SSE2__)
    if (isa == H1_SIMD_SSE2) return h1_probe_sse2(s);
#endif
    return h1_probe_bytes(s);
}

/* The probe of the 32 bytes at s, with no bits for bytes past end: near the
 * end of the data, the probe of the 32 bytes that end there, moved into
 * place; with fewer than 32 bytes of data, a padded copy. No load reaches
 * outside [data, end). */
static ALWAYS_INLINE struct h1_chunk probe_at(enum h1_simd isa, const uint8_t *s,
                                              const uint8_t *data, const uint8_t *end)
{
    size_t avail = (size_t)(end - s);
    if (avail >= H1_PROBE) return probe(isa, s);
    if ((size_t)(end - data) >= H1_PROBE) {
        struct h1_chunk c = probe(isa, end - H1_PROBE);
        unsigned shift = (unsigned)(H1_PROBE - avail);
        c.lf >>= shift;
        c.cr >>= shift;
        c.nul >>= shift;
        c.colon >>= shift;
        c.ws >>= shift;
        return c;
    }
    uint8_t pad[H1_PROBE];
    memset(pad, 'x', sizeof(pad)); /* 'x': none of the bytes probed for */
    memcpy(pad, s, avail);
    return probe(isa, pad);
}

#define NO_LF SIZE_MAX
#define NO_COLON UINT32_MAX

/* What the probes say about a line. */
struct line {
    size_t len;      /* bytes before its LF; NO_LF when the data ends first */
    uint32_t colon;  /* its first colon, or NO_COLON */
    uint32_t faults; /* LINE_BAD_BYTES, LINE_NAME_WS */
};
/* LINE_BAD_BYTES: a CR that is not the last byte (RFC 9112 2.2), or a NUL
 * (RFC 9110 5.5). LINE_NAME_WS: whitespace before the first colon, or
 * anywhere without one (RFC 9112 5.1). */
enum { LINE_BAD_BYTES = 1, LINE_NAME_WS = 2 };

/* The line that starts at bit 0 of probe c and ends in it (c.lf != 0). */
static ALWAYS_INLINE struct line line_in_probe(struct h1_chunk c)
{
    uint32_t in = (c.lf ^ (c.lf - 1)) >> 1; /* the bytes before the LF */
    uint32_t colon = c.colon & in;
    struct line f;
    f.len = (size_t)__builtin_ctz(c.lf);
    f.colon = colon ? (uint32_t)__builtin_ctz(colon) : NO_COLON;
    /* a CR only right before the LF: none among the bytes before that */
    f.faults = ((c.cr & (in >> 1)) | (c.nul & in) ? LINE_BAD_BYTES : 0) |
               (c.ws & in & ((colon & -colon) - 1) ? LINE_NAME_WS : 0);
    return f;
}

/* The same for a line longer than one probe: a probe per 32 bytes. */
static ALWAYS_INLINE struct line long_line_with(enum h1_simd isa, const uint8_t *l,
                                                const uint8_t *data, const uint8_t *end)
{
    uint32_t bad = 0, ws = 0, cr_last = 0;
    struct line f = {NO_LF, NO_COLON, 0};
    for (size_t i = 0; l + i < end; i += H1_PROBE) {
        struct h1_chunk c = probe_at(isa, l + i, data, end);
        /* the line's bytes in this probe: those before its LF, or all (0 - 1) */
        uint32_t first_lf = c.lf & -c.lf, in = first_lf - 1;
        /* a CR may only come right before the LF, which may start the next probe */
        uint32_t cr_may = c.lf ? first_lf >> 1 : (uint32_t)1 << 31;
        bad |= (c.cr & in & ~cr_may) | (cr_last & ~c.lf) | (c.nul & in);
        if (f.colon == NO_COLON) {
            uint32_t colon = c.colon & in;
            ws |= c.ws & ((colon & -colon) - 1) & in; /* all of `in` without a colon */
            if (colon && i + (size_t)__builtin_ctz(colon) < NO_COLON)
                f.colon = (uint32_t)(i + (size_t)__builtin_ctz(colon));
        }
        if (c.lf) {
            f.len = i + (size_t)__builtin_ctz(c.lf);
            f.faults = (bad ? LINE_BAD_BYTES : 0) | (ws ? LINE_NAME_WS : 0);
            return f;
        }
        cr_last = c.cr >> 31;
    }
    return f;
}

static struct line long_line_bytes(const uint8_t *l, const uint8_t *data, const uint8_t *end)
{
    return long_line_with(H1_SIMD_BYTES, l, data, end);
}

#if defined(__SSE2__)
static struct line long_line_sse2(const uint8_t *l, const uint8_t *data, const uint8_t *end)
{
    return long_line_with(H1_SIMD_SSE2, l, data, end);
}
#endif

#if defined(H1_HAVE_X86)
H1_AVX2 static struct line long_line_avx2(const uint8_t *l, const uint8_t *data, const uint8_t *end)
{
    return long_line_with(H1_SIMD_AVX2, l, data, end);
}
#endif

/* What the line at l holds: one probe for most lines, a call for longer. */
static ALWAYS_INLINE struct line line_facts(enum h1_simd isa, const uint8_t *l, const uint8_t *data,
                                            const uint8_t *end)
{
    struct h1_chunk c = probe_at(isa, l, data, end);
    if (c.lf) return line_in_probe(c);
#if defined(H1_HAVE_X86)
    if (isa == H1_SIMD_AVX2) return long_line_avx2(l, data, end);
#endif
#if defined(__SSE2__)
    if (isa == H1_SIMD_SSE2) return long_line_sse2(l, data, end);
#endif
    return long_line_bytes(l, data, end);
}

/* Why line_facts found a line's bytes bad. */
static const char *line_fault(const char *l, size_t n)
{
    return memchr(l, '\0', n) ? "NUL in a header line" : "bare CR in a header line";
}

/* A header or trailer line (n bytes, without CR and LF) whose bytes the
 * probes have checked: its syntax and, for headers, what it says about
 * framing. */
static ALWAYS_INLINE int field_line(struct h1_parser *p, uint8_t state, const char *l, size_t n,
                                    struct line f)
{
    uint8_t kind = first_byte[(uint8_t)l[0]];
    if (kind == OTHER) return header_line(p, l, n, state == H1_HEADERS); /* fails, saying why */
    if (f.colon == NO_COLON) return fail(p, "header line without a name and colon");
    if (f.faults & LINE_NAME_WS) return fail(p, "whitespace in or after a header name");
    if (kind == FRAMING && state == H1_HEADERS) {
        enum framing which = framing_name(l, f.colon);
        if (which != NOT_FRAMING) return framing_value(p, which, l + f.colon + 1, n - f.colon - 1);
    }
    return H1_MORE;
}

/* The usual header lines, as many as come, without a call: a line that
 * fits two probes, starts with a name byte, has a colon and none of the
 * faults line_facts looks for; and the blank line after them. The first
 * line that is not, or that the data ends in, is left to one_line, as is
 * everything in data shorter than a probe. Moves *off past the lines
 * handled. */
static ALWAYS_INLINE int usual_header_lines(enum h1_simd isa, struct h1_parser *p, const uint8_t *d,
                                            size_t len, size_t *off)
{
    size_t o = *off;
    int rc = H1_MORE;
    while (o < len && len >= H1_PROBE) {
        const char *l = (const char *)d + o;
        struct h1_chunk c = probe_at(isa, (const uint8_t *)l, d, d + len);
        uint64_t lf = c.lf, cr = c.cr, nul = c.nul, colon = c.colon, ws = c.ws;
        if (!lf) {
            if (len - o < 2 * H1_PROBE) break;
            c = probe(isa, (const uint8_t *)l + H1_PROBE);
            lf = (uint64_t)c.lf << 32;
            cr |= (uint64_t)c.cr << 32;
            nul |= (uint64_t)c.nul << 32;
            colon |= (uint64_t)c.colon << 32;
            ws |= (uint64_t)c.ws << 32;
        }
        uint64_t in = (lf ^ (lf - 1)) >> 1; /* the bytes before the LF */
        colon &= in;
        /* as in line_in_probe: a CR other than the last byte, a NUL,
         * whitespace in or after the name */
        uint64_t faults = (cr & (in >> 1)) | (nul & in) | (ws & in & ((colon & -colon) - 1));
        uint8_t kind = first_byte[(uint8_t)l[0]];
        if (!lf || !colon || faults || kind == OTHER) {
            /* the blank line (CRLF or LF) that ends the headers */
            if (!(lf & 1) && !((cr & 1) && (lf & 2))) break;
            o += (size_t)__builtin_ctzll(lf) + 1;
            p->header_bytes += (uint32_t)(o - *off);
            *off = o;
            return p->header_bytes > H1_HEADER_LIMIT ? fail(p, "header block too large")
                                                     : headers_done(p);
        }
        size_t n = (size_t)__builtin_ctzll(lf);
        if (kind == FRAMING) {
            size_t nlen = (size_t)__builtin_ctzll(colon);
            enum framing which = framing_name(l, nlen);
            if (which != NOT_FRAMING &&
                (rc = framing_value(p, which, l + nlen + 1, n - nlen - 1)) != H1_MORE)
                return rc;
        }
        o += n + 1;
    }
    p->header_bytes += (uint32_t)(o - *off);
    *off = o;
    return p->header_bytes > H1_HEADER_LIMIT ? fail(p, "header block too large") : H1_MORE;
}

/* One line at d[*off] of any kind (status, header, blank, trailer), the
 * general way; moves *off past it. *incomplete when the data ends first. */
static ALWAYS_INLINE int one_line(enum h1_simd isa, struct h1_parser *p, const uint8_t *d,
                                  size_t len, size_t *off, bool *incomplete)
{
    uint8_t state = p->state;
    const char *l = (const char *)d + *off;
    struct line f = line_facts(isa, (const uint8_t *)l, d, d + len);
    if (f.len == NO_LF) {
        *incomplete = true;
        return H1_MORE;
    }
    p->header_bytes += (uint32_t)f.len + 1;
    if (p->header_bytes > H1_HEADER_LIMIT) return fail(p, "header block too large");
    if (f.faults & LINE_BAD_BYTES) return fail(p, line_fault(l, f.len));
    *off += f.len + 1;
    /* a CR can only be the last byte: line_facts would have found it bad */
    size_t n = f.len && l[f.len - 1] == '\r' ? f.len - 1 : f.len;
    if (state == H1_STATUS_LINE) return status_line(p, l, n);
    if (n > 0) return field_line(p, state, l, n, f);
    /* the blank line that ends headers or trailers */
    if (state == H1_HEADERS) return headers_done(p);
    p->state = H1_DONE;
    return H1_COMPLETE;
}

/* Handles every complete line from d[*pos] on while the parser reads lines;
 * a partial line at the end of the data is carried to the next read. */
static ALWAYS_INLINE int scan_lines_with(enum h1_simd isa, struct h1_parser *p, const uint8_t *d,
                                         size_t len, size_t *pos)
{
    size_t off = *pos;
    int rc = H1_MORE;
    bool incomplete = false;
    while (rc == H1_MORE && off < len && in_line_state(p)) {
        if (p->state == H1_HEADERS) {
            rc = usual_header_lines(isa, p, d, len, &off);
            if (rc != H1_MORE || off == len || p->state != H1_HEADERS) continue;
        } else if (p->state == H1_STATUS_LINE && len >= H1_PROBE) {
            /* the status line, when it fits one probe */
            const char *l = (const char *)d + off;
            struct h1_chunk c = probe_at(isa, (const uint8_t *)l, d, d + len);
            uint32_t first_lf = c.lf & -c.lf, in = first_lf - 1;
            if (c.lf && !((c.cr & (in >> 1)) | (c.nul & in))) {
                size_t n = (size_t)__builtin_ctz(c.lf);
                off += n + 1;
                p->header_bytes += (uint32_t)n + 1;
                rc = status_line(p, l, c.cr & (first_lf >> 1) ? n - 1 : n);
                continue;
            }
        }
        rc = one_line(isa, p, d, len, &off, &incomplete);
        if (incomplete) break;
    }
    *pos = off;
    if (rc == H1_MORE && off < len && in_line_state(p)) {
        /* the data ends inside a line: keep it for the next read */
        p->header_bytes += (uint32_t)(len - off);
        if (p->header_bytes > H1_HEADER_LIMIT) return fail(p, "header block too large");
        *pos = len;
        return carry_append(p, d + off, len - off);
    }
    return rc;
}

static int scan_lines_bytes(struct h1_parser *p, const uint8_t *d, size_t len, size_t *pos)
{
    return scan_lines_with(H1_SIMD_BYTES, p, d, len, pos);
}

#if defined(__SSE2__)
static int scan_lines_sse2(struct h1_parser *p, const uint8_t *d, size_t len, size_t *pos)
{
    return scan_lines_with(H1_SIMD_SSE2, p, d, len, pos);
}
#endif

#if defined(H1_HAVE_X86)
H1_AVX2 static int scan_lines_avx2(struct h1_parser *p, const uint8_t *d, size_t len, size_t *pos)
{
    return scan_lines_with(H1_SIMD_AVX2, p, d, len, pos);
}
#endif

static ALWAYS_INLINE int scan_lines(struct h1_parser *p, const uint8_t *d, size_t len, size_t *pos)
{
    if (!p->probe) p->probe = (uint8_t)(1 + h1_simd_level()); /* chosen once per parser */
    switch ((enum h1_simd)(p->probe - 1)) {
#if defined(H1_HAVE_X86)
    case H1_SIMD_AVX2:
        return scan_lines_avx2(p, d, len, pos);
#endif
#if defined(__SSE2__)
    case H1_SIMD_SSE2:
        return scan_lines_sse2(p, d, len, pos);
#endif
    default:
        return scan_lines_bytes(p, d, len, pos);
    }
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

/* The body of a length-framed response, from d[*pos] on. */
static int length_body(struct h1_parser *p, size_t len, size_t *pos)
{
    size_t n = len - *pos;
    if (n > p->remaining) n = (size_t)p->remaining;
    *pos += n;
    p->remaining -= n;
    p->body_bytes += n;
    if (p->remaining) return H1_MORE;
    p->state = H1_DONE;
    return H1_COMPLETE;
}

int h1_parse(struct h1_parser *p, const uint8_t *d, size_t len, size_t *consumed)
{
    size_t pos = 0;
    int rc = H1_MORE;
    /* the usual read: a whole header block and a body with a length */
    if (p->state <= H1_TRAILERS && !p->carry_len && len) {
        rc = scan_lines(p, d, len, &pos);
        if (rc == H1_MORE && p->state == H1_BODY_LENGTH && pos < len)
            rc = length_body(p, len, &pos);
    }
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
        case H1_BODY_LENGTH:
            rc = length_body(p, len, &pos);
            break;
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
