/* HTTP/1.1 response parser (see h1parse.h). A header line costs one probe
 * of 32 bytes (h1scan.h) when it is shorter than that: its end, its first
 * colon and the bytes it may not hold come out of bit masks; only a line
 * whose first byte can start Content-Length, Transfer-Encoding or
 * Connection has its name compared. A block that repeats the last one
 * byte for byte takes its verdict (memo_replay). Bodies are counted, not
 * stored. */
#include "httpload/h1parse.h"
#include "httpload/h1chunked.h"
#include "httpload/h1fields.h"
#include "httpload/h1scan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void h1_init(struct h1_parser *p)
{
    memset(p, 0, sizeof(*p));
}

void h1_use_probe(struct h1_parser *p, enum h1_simd limit)
{
    p->probe = (uint8_t)(1 + h1_simd_level(limit));
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
    return h1_fail(p, why);
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
    if (!p->probe)
        p->probe = (uint8_t)(1 + h1_simd_level(H1_SIMD_AVX2)); /* chosen once per parser */
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

/* Finishes the line carried over from the last read (the slow path). */
static int carried_line(struct h1_parser *p, const uint8_t *d, size_t len, size_t *pos)
{
    const uint8_t *nl = memchr(d + *pos, '\n', len - *pos);
    size_t take = nl ? (size_t)(nl - (d + *pos)) + 1 : len - *pos;
    p->header_bytes += (uint32_t)take;
    if (p->header_bytes > H1_HEADER_LIMIT) return fail(p, "header block too large");
    int rc = carry_append(p, d + *pos, nl ? take - 1 : take);
    if (rc != H1_MORE) return rc;
    *pos += take;
    if (!nl) return H1_MORE;
    size_t n = p->carry_len;
    p->carry_len = 0;
    return on_line_slow(p, p->carry, n);
}

/* The last header block this thread read whole in one read, from the
 * status line to the blank line, and the parser as it stood after it. What
 * the parser makes of a header block is a function of its bytes and of
 * head_request alone, so a block that repeats it byte for byte (a server's
 * answer to the same request, until its Date changes) gets the same verdict
 * by one comparison instead of a check of every line. Per thread: parsers
 * of one loop share it, and no lock is needed. */
#define H1_MEMO_MAX 1024
static _Thread_local struct {
    uint32_t len; /* 0: nothing kept */
    int rc;
    uint64_t hits; /* blocks that took the kept verdict (tests) */
    bool head_request;
    struct h1_parser after;
    uint8_t block[H1_MEMO_MAX];
} memo;

void h1_memo_forget(void)
{
    memo.len = 0;
}

uint64_t h1_memo_hits(void)
{
    return memo.hits;
}

/* The response at d[0..len) starts with the kept block: take its verdict. */
static bool memo_replay(struct h1_parser *p, const uint8_t *d, size_t len, size_t *pos, int *rc)
{
    if (!memo.len || len < memo.len || memo.head_request != p->head_request ||
        memcmp(d, memo.block, memo.len) != 0)
        return false;
    char *carry = p->carry;
    uint32_t cap = p->carry_cap;
    uint8_t probe = p->probe;
    *p = memo.after;
    p->carry = carry;
    p->carry_cap = cap;
    p->probe = probe;
    *pos = memo.len;
    *rc = memo.rc;
    memo.hits++;
    return true;
}

/* Keeps the block at d[0..n) that the lines' scan has just read whole. */
static void memo_keep(const struct h1_parser *p, const uint8_t *d, size_t n, int rc)
{
    if (rc == H1_ERROR || p->state <= H1_TRAILERS || p->state == H1_FAILED || n > H1_MEMO_MAX)
        return;
    memcpy(memo.block, d, n);
    memo.len = (uint32_t)n;
    memo.rc = rc;
    memo.head_request = p->head_request;
    memo.after = *p;
    memo.after.carry = NULL;
    memo.after.carry_cap = memo.after.carry_len = 0;
}

int h1_parse(struct h1_parser *p, const uint8_t *d, size_t len, size_t *consumed)
{
    size_t pos = 0;
    int rc = H1_MORE;
    /* the usual read: a whole header block and a body with a length */
    if (p->state <= H1_TRAILERS && !p->carry_len && len) {
        /* at a response's first byte (no interim response before it) */
        bool first = p->state == H1_STATUS_LINE && p->header_bytes == 0 && p->interim == 0;
        if (!first || !memo_replay(p, d, len, &pos, &rc)) {
            rc = scan_lines(p, d, len, &pos);
            if (first) memo_keep(p, d, pos, rc);
        }
        if (rc == H1_MORE && p->state == H1_BODY_LENGTH && pos < len)
            rc = length_body(p, len, &pos);
    }
    while (pos < len && rc == H1_MORE) {
        switch (p->state) {
        case H1_STATUS_LINE:
        case H1_HEADERS:
        case H1_TRAILERS:
            rc = p->carry_len ? carried_line(p, d, len, &pos) : scan_lines(p, d, len, &pos);
            break;
        case H1_BODY_LENGTH:
            rc = length_body(p, len, &pos);
            break;
        case H1_CHUNK_SIZE:
        case H1_CHUNK_SIZE_OWS:
        case H1_CHUNK_EXT:
        case H1_CHUNK_SIZE_LF:
        case H1_CHUNK_DATA:
        case H1_CHUNK_DATA_CR:
        case H1_CHUNK_DATA_LF:
            rc = h1_chunked_step(p, d, len, &pos);
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
