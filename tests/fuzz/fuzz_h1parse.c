/* libFuzzer target for the HTTP/1.1 response parser, differential against
 * http_parser (Debian's libhttp-parser-dev) as the oracle: where both accept a
 * complete response, at once or when the peer then closes the connection, they
 * must agree on where it ends, its status, its body length and whether the
 * connection stays open; where http_parser reads Transfer-Encoding unlike RFC
 * 9110, the oracle reads the input with that field rewritten into the RFC's
 * equivalent. Our parser must also give the same verdict whether
 * the bytes arrive at once or split in two, and with each of its probes
 * (AVX2, SSE2, byte loop). Each read is a heap buffer of its exact size, so
 * AddressSanitizer sees a load past it. */
#include <http_parser.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httpload/h1parse.h"
#include "httpload/h1scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct oracle {
    int complete;
    uint64_t body;
    bool te;        /* a field named exactly Transfer-Encoding */
    bool in_te;     /* the value that follows is a Transfer-Encoding's */
    bool rewritten; /* a field was put in the form http_parser reads as the RFC does */
    int te_fields;  /* Transfer-Encoding fields so far, this one included */
    char *te_name;  /* the name of the last one, in the oracle's copy */
};

/* Where http_parser reads Transfer-Encoding its own way, the oracle is given
 * the RFC's rule rather than the input skipped: the callbacks rewrite such a
 * field, in the oracle's own copy of the input, into an equivalent that
 * http_parser reads as RFC 9110 does and of the same length (so where each
 * parser stops still compares), and the oracle reads the copy again. */

/* A name that only begins with Transfer-Encoding is another field to the RFC
 * but Transfer-Encoding to http_parser: renamed (its first letter), it is
 * another field to both. */
static int on_header_field(http_parser *p, const char *at, size_t len)
{
    struct oracle *o = p->data;
    /* A trailer frames nothing, so nothing is rewritten there: such a
     * rewrite would also be one the first pass could not make when its
     * reading was not chunked and the second's is (the rewrites before the
     * body made it chunked), and the second pass must find nothing to do. */
    if (p->flags & F_TRAILING) {
        o->in_te = false;
        return 0;
    }
    /* the whole input goes in one call, so a name arrives in one piece */
    o->in_te = len == 17 && strncasecmp(at, "transfer-encoding", 17) == 0;
    o->te |= o->in_te;
    if (o->in_te) {
        o->te_fields++;
        o->te_name = (char *)at;
    }
    if (len > 17 && strncasecmp(at, "transfer-encoding", 17) == 0) {
        *(char *)at = 'X'; /* the oracle's copy; http_parser is past these bytes */
        o->rewritten = true;
    }
    return 0;
}

/* obs-text (and DEL) in a coding's name: a field may carry it (RFC 9110
 * 5.5), http_parser's token matching stops at it, and to the RFC's list rule
 * (and our parser) it is only part of some unknown coding's name. */
static bool is_obs(char c)
{
    return (unsigned char)c >= 0x7f;
}

/* Is v[0..n) "chunked" or the start of it, in any case? http_parser matches
 * such an element letter by letter, and the comma that ends it is taken as
 * the letter that failed the match rather than as a separator: the element
 * after it is read as the same one ("chunke,chunked" is not chunked to it). */
static bool chunked_prefix(const char *v, size_t n)
{
    return n >= 1 && n <= 7 && strncasecmp(v, "chunked", n) == 0;
}

/* Does http_parser go on matching the list at an element (after the first)
 * that begins with c? It lowers c (c | 0x20) and then wants "chunked"'s
 * first letter or a token character, else it stops looking for "chunked" in
 * the rest of the value: '_' (lowered, DEL) and the separators other than
 * '@' and backslash (lowered, '`' and '|') stop it. Checked byte by byte
 * against Debian's library (",Xz,chunked" for every X). */
static bool parser_goes_on_at(char c)
{
    unsigned char lc = (unsigned char)c | 0x20;
    /* lc is never NUL (its 0x20 bit is set), which strchr would find */
    return (lc >= '0' && lc <= '9') || (lc >= 'a' && lc <= 'z') ||
           strchr("!#$%&'*+-.^_`|~", lc) != NULL;
}

/* Does http_parser read this Transfer-Encoding list as RFC 9110 5.6.1 does?
 * Not with an HTAB (OWS to the RFC), an empty element (which the RFC skips),
 * a space before a comma, obs-text, "chunked" or its start before a comma,
 * or an element after the first that begins with a byte it takes for no
 * token's: each ends its "chunked" recognition. An empty value is no list at
 * all, to both. */
static bool te_read_alike(const char *v, size_t n)
{
    if (memchr(v, '\t', n)) return false;
    for (size_t j = 0; j < n; j++)
        if (is_obs(v[j])) return false;
    size_t i = 0;
    for (bool first = true;; first = false) {
        while (i < n && v[i] == ' ')
            i++;
        size_t start = i;
        while (i < n && v[i] != ',')
            i++;
        if (i == start) return n == 0; /* an empty element */
        if (!first && !parser_goes_on_at(v[start])) return false;
        if (i == n) return true;
        if (v[i - 1] == ' ') return false;
        if (chunked_prefix(v + start, i - start)) return false;
        i++;
    }
}

static bool is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* Rewrites the list v[0..n) into the form http_parser reads as the RFC does:
 * its non-empty elements, trimmed of OWS, an HTAB inside one made a space
 * and obs-text an 'x' (with either, an element is no "chunked", only some
 * other coding), as is the first byte of an element after the first that
 * http_parser takes for no token's (see parser_goes_on_at; such an element
 * is no "chunked" either), joined by bare commas and padded with spaces to n. In
 * place: the output never overtakes the input. Then an element before a
 * comma that is "chunked" or its start gets an 'x' for its first letter:
 * not the last coding, it frames nothing to the RFC either way. */
static void te_canonical(char *v, size_t n)
{
    size_t k = 0, i = 0;
    while (i < n) {
        size_t start = i;
        while (i < n && v[i] != ',')
            i++;
        size_t end = i++;
        while (start < end && is_ows(v[start]))
            start++;
        while (end > start && is_ows(v[end - 1]))
            end--;
        if (end == start) continue;
        if (k) {
            v[k++] = ',';
            if (!parser_goes_on_at(v[start])) v[start] = 'x';
        }
        for (size_t j = start; j < end; j++)
            v[k++] = v[j] == '\t' ? ' ' : is_obs(v[j]) ? 'x' : v[j];
    }
    memset(v + k, ' ', n - k);
    for (size_t start = 0, j = 0; j < k; j++) {
        if (v[j] != ',') continue;
        if (chunked_prefix(v + start, j - start)) v[start] = 'x';
        start = j + 1;
    }
}

/* Has the list v[0..n) no element at all (only OWS and commas)? */
static bool te_list_empty(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_ows(v[i]) && v[i] != ',') return false;
    return true;
}

static int on_header_value(http_parser *p, const char *at, size_t len)
{
    struct oracle *o = p->data;
    /* A Transfer-Encoding line that adds no element to the list the lines
     * before it began changes nothing to the RFC (5.3, 5.6.1), but Debian's
     * http_parser forgets an earlier chunked at every new Transfer-Encoding
     * name: renamed, the line is another field to both. The first such line
     * stays, since it alone says Transfer-Encoding is there. */
    if (o->in_te && o->te_fields > 1 && te_list_empty(at, len)) {
        o->te_name[0] = 'X';
        o->rewritten = true;
        return 0;
    }
    if (o->in_te && !te_read_alike(at, len)) {
        te_canonical((char *)at, len); /* the oracle's copy, as above */
        o->rewritten = true;
    }
    return 0;
}

static int on_body(http_parser *p, const char *at, size_t len)
{
    ((struct oracle *)p->data)->body += len;
    return 0;
}

static int on_complete(http_parser *p)
{
    ((struct oracle *)p->data)->complete = 1;
    http_parser_pause(p, 1);
    return 0;
}

/* One read: a copy of d[0..n) in a buffer of exactly n bytes. */
static int one_read(struct h1_parser *p, const uint8_t *d, size_t n, size_t *used)
{
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy) abort();
    memcpy(copy, d, n);
    int rc = h1_parse(p, copy, n, used);
    free(copy);
    return rc;
}

/* Our parser on d[0..n), in two reads split at `split`, then the close when
 * the response is still open: *at_eof says whether the close completed it. */
static int ours(enum h1_simd probe, const uint8_t *d, size_t n, size_t split, struct h1_parser *p,
                size_t *used, bool *at_eof)
{
    h1_init(p);
    h1_use_probe(p, probe);
    h1_reset(p, false);
    size_t u1 = 0, u2 = 0;
    if (split > n) split = n;
    int rc = split ? one_read(p, d, split, &u1) : H1_MORE;
    if (rc == H1_MORE && split < n) rc = one_read(p, d + split, n - split, &u2);
    *used = u1 + u2;
    *at_eof = false;
    if (rc == H1_MORE) {
        rc = h1_parse_eof(p);
        *at_eof = true;
    }
    return rc;
}

/* The same run must come out the same: another split, another probe. */
static void same(int ra, const struct h1_parser *a, size_t used_a, bool eof_a, int rb,
                 const struct h1_parser *b, size_t used_b, bool eof_b)
{
    if (ra != rb || eof_a != eof_b) abort();
    if (ra == H1_COMPLETE &&
        (used_a != used_b || a->status != b->status || a->body_bytes != b->body_bytes ||
         h1_must_close(a) != h1_must_close(b)))
        abort();
}

/* http_parser on d[0..n), then the close when the response is still open.
 * Lenient, it takes Transfer-Encoding and Content-Length together (the
 * coding frames the body), as RFC 9112 6.3 asks of a client. */
static bool oracle_read(uint8_t *d, size_t n, bool lenient, http_parser *hp, struct oracle *o,
                        size_t *consumed, bool *at_eof)
{
    http_parser_settings s;
    http_parser_settings_init(&s);
    s.on_header_field = on_header_field;
    s.on_header_value = on_header_value;
    s.on_body = on_body;
    s.on_message_complete = on_complete;
    http_parser_init(hp, HTTP_RESPONSE);
    hp->lenient_http_headers = lenient;
    hp->allow_chunked_length = lenient;
    hp->data = o;
    o->complete = 0;
    o->body = 0;
    o->te = o->in_te = false;
    o->te_fields = 0;
    o->te_name = NULL;
    *consumed = http_parser_execute(hp, &s, (const char *)d, n);
    *at_eof = false;
    if (!o->complete && HTTP_PARSER_ERRNO(hp) == HPE_OK) {
        http_parser_execute(hp, &s, NULL, 0);
        *at_eof = true;
    }
    return o->complete && (HTTP_PARSER_ERRNO(hp) == HPE_OK || HTTP_PARSER_ERRNO(hp) == HPE_PAUSED);
}

/* One reading of `copy` (which the callbacks may rewrite): strict http_parser
 * refuses Transfer-Encoding with Content-Length; the lenient one frames such
 * a response as the RFC says. Only with a real Transfer-Encoding field. */
static bool oracle_pass(uint8_t *copy, size_t n, http_parser *hp, struct oracle *o,
                        size_t *consumed, bool *at_eof)
{
    o->rewritten = false;
    bool ok = oracle_read(copy, n, false, hp, o, consumed, at_eof);
    if (!ok && HTTP_PARSER_ERRNO(hp) == HPE_UNEXPECTED_CONTENT_LENGTH && o->te)
        ok = oracle_read(copy, n, true, hp, o, consumed, at_eof);
    return ok;
}

/* The oracle: http_parser, with the RFC's rule for Transfer-Encoding. Once
 * rewritten, the copy reads alike to both, so a second pass finds nothing more
 * to rewrite; where it still does (a folded line, which our parser refuses),
 * *unruled says the oracle has no rule for the input. */
static bool oracle(const uint8_t *d, size_t n, http_parser *hp, struct oracle *o, size_t *consumed,
                   bool *at_eof, bool *unruled)
{
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy) abort();
    memcpy(copy, d, n);
    bool ok = oracle_pass(copy, n, hp, o, consumed, at_eof);
    *unruled = false;
    if (o->rewritten) {
        ok = oracle_pass(copy, n, hp, o, consumed, at_eof);
        *unruled = o->rewritten;
    }
    free(copy);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t split = data[0];
    const uint8_t *d = data + 1;
    size_t n = size - 1;

    struct h1_parser a, b;
    size_t used_a, used_b;
    bool eof_a, eof_b;
    /* the first reading checks every line; the ones after it that start
     * with the same header block take its kept verdict, and must agree */
    h1_memo_forget();
    int ra = ours(H1_SIMD_AVX2, d, n, n, &a, &used_a, &eof_a);
    /* split invariance, with every probe the machine has */
    for (int level = H1_SIMD_AVX2; level >= H1_SIMD_BYTES; level--) {
        if (h1_simd_level((enum h1_simd)level) != (enum h1_simd)level) continue;
        int rb = ours((enum h1_simd)level, d, n, split, &b, &used_b, &eof_b);
        same(ra, &a, used_a, eof_a, rb, &b, used_b, eof_b);
        h1_free(&b);
        if (level != H1_SIMD_AVX2) {
            rb = ours((enum h1_simd)level, d, n, n, &b, &used_b, &eof_b);
            same(ra, &a, used_a, eof_a, rb, &b, used_b, eof_b);
            h1_free(&b);
        }
    }

    struct oracle o;
    http_parser hp;
    size_t consumed;
    bool eof_o;
    bool unruled;
    bool oracle_ok = oracle(d, n, &hp, &o, &consumed, &eof_o, &unruled);
    /* a response our parser takes must be one the oracle has a rule for */
    if (ra == H1_COMPLETE && unruled) abort();

    /* 204 and 304 never have a body (RFC 9110 15.3.5, 15.4.5); http_parser
     * still reads a chunked one, so framing is not compared for them. */
    if (ra == H1_COMPLETE && oracle_ok && hp.status_code >= 200 && a.status != 204 &&
        a.status != 304) {
        if (a.status != hp.status_code) abort();
        if (a.body_bytes != o.body) abort();
        /* both end the response at the same byte, or both at the close */
        if (eof_a != eof_o) abort();
        /* http_parser counts the byte that completed the message; at the
         * close, each has taken every byte */
        if (used_a != consumed) abort();
        /* keep-alive: our parser never keeps alive what the oracle closes
         * (not for chunked responses: http_parser also obeys Connection in
         * trailers, which RFC 9110 6.5.1 forbids them to carry; nor for
         * HTTP/1.0, where http_parser does not trim "keep-alive\t") */
        if (!eof_a && !a.chunked && a.http_minor == 1 && !h1_must_close(&a) &&
            !http_should_keep_alive(&hp))
            abort();
    }
    h1_free(&a);
    return 0;
}
