/* The HTTP/1.1 response parser: framing (length, chunked, close-delimited,
 * no body, Transfer-Encoding over Content-Length), interim responses, the
 * bytes and lines it refuses, splits at every byte, and lines around the
 * edges of its 32-byte probes, and the verdict kept for a header block that
 * repeats. main() runs every test with each probe the
 * machine has (AVX2, SSE2, the byte loop). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "httpload/h1parse.h"
#include "httpload/h1scan.h"

/* The widest probe this run of the tests may use (main() runs them once per
 * probe the machine has). */
static enum h1_simd probe_limit = H1_SIMD_AVX2;

/* A parser set up for this run's probe. */
static void init(struct h1_parser *p)
{
    h1_init(p);
    h1_use_probe(p, probe_limit);
}

/* Feeds msg[0..len) in pieces of `step` bytes, each in a heap buffer of its
 * own exact size, so that AddressSanitizer catches a read past a piece
 * (vector loads included); returns the final result. */
static int feedn(struct h1_parser *p, const char *msg, size_t len, size_t step, size_t *total_used)
{
    size_t off = 0;
    int rc = H1_MORE;
    *total_used = 0;
    while (off < len && rc == H1_MORE) {
        size_t n = len - off < step ? len - off : step;
        uint8_t *piece = malloc(n);
        assert_non_null(piece);
        memcpy(piece, msg + off, n);
        size_t used = 0;
        rc = h1_parse(p, piece, n, &used);
        free(piece);
        *total_used += used;
        off += n;
    }
    return rc;
}

static int feed(struct h1_parser *p, const char *msg, size_t step, size_t *total_used)
{
    return feedn(p, msg, strlen(msg), step, total_used);
}

static void at_every_split_n(const char *msg, size_t len, bool head, int want, uint16_t status,
                             uint64_t body)
{
    for (size_t step = 1; step <= len; step++) {
        struct h1_parser p;
        init(&p);
        h1_reset(&p, head);
        size_t used;
        int rc = feedn(&p, msg, len, step, &used);
        if (rc != want) fail_msg("%s at step %zu: %d, not %d (%s)", msg, step, rc, want, p.error);
        if (want == H1_COMPLETE) {
            assert_int_equal(p.status, status);
            assert_int_equal(p.body_bytes, body);
            assert_int_equal(used, len);
        }
        if (want == H1_ERROR) assert_non_null(p.error);
        h1_free(&p);
    }
}

static void at_every_split(const char *msg, bool head, int want, uint16_t status, uint64_t body)
{
    at_every_split_n(msg, strlen(msg), head, want, status, body);
}

/* A protocol error however the bytes arrive. */
static void fails_n(const char *msg, size_t len)
{
    at_every_split_n(msg, len, false, H1_ERROR, 0, 0);
}

static void fails(const char *msg)
{
    fails_n(msg, strlen(msg));
}

/* A literal that may hold a NUL. */
#define FAILS_LITERAL(s) fails_n((s), sizeof(s) - 1)

/* Like at_every_split, for a body that runs to the close: every split
 * leaves the response open and consumes everything; EOF completes it. */
static void to_eof_at_every_split(const char *msg, uint16_t status, uint64_t body)
{
    size_t len = strlen(msg);
    for (size_t step = 1; step <= len; step++) {
        struct h1_parser p;
        init(&p);
        h1_reset(&p, false);
        size_t used;
        assert_int_equal(feed(&p, msg, step, &used), H1_MORE);
        assert_int_equal(used, len);
        assert_true(h1_must_close(&p));
        assert_int_equal(h1_parse_eof(&p), H1_COMPLETE);
        assert_int_equal(p.status, status);
        assert_int_equal(p.body_bytes, body);
        h1_free(&p);
    }
}

/* Whether the connection closes after msg (complete at once). */
static bool closes_after(const char *msg)
{
    struct h1_parser p;
    init(&p);
    h1_reset(&p, false);
    size_t used;
    assert_int_equal(feed(&p, msg, 1 << 20, &used), H1_COMPLETE);
    bool close = h1_must_close(&p);
    h1_free(&p);
    return close;
}

static void content_length(void **state)
{
    at_every_split("HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 5\r\n\r\nhello", false,
                   H1_COMPLETE, 200, 5);
    at_every_split("HTTP/1.1 200 OK\r\ncontent-length:0\r\n\r\n", false, H1_COMPLETE, 200, 0);
    at_every_split("HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok", false, H1_COMPLETE, 200, 2);
    at_every_split("HTTP/1.1 200 OK\nContent-Length: 2\n\nok", false, H1_COMPLETE, 200, 2);
}

static void chunked_with_extensions_and_trailers(void **state)
{
    at_every_split("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                   "5;a=b\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n",
                   false, H1_COMPLETE, 200, 15);
    at_every_split("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
                   false, H1_COMPLETE, 200, 1);
}

/* Issue 12, RFC 9112 6.3: Transfer-Encoding overrides Content-Length; when
 * chunked is not its final coding the body runs to the close, whatever
 * Content-Length says and in whichever order the two come. */
static void transfer_encoding_overrides_content_length(void **state)
{
    to_eof_at_every_split("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\n"
                          "abcdefgh",
                          200, 8);
    to_eof_at_every_split("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: gzip\r\n\r\n"
                          "abcdefgh",
                          200, 8);
    to_eof_at_every_split("HTTP/1.1 200 OK\r\ncontent-length: 0\r\nTRANSFER-ENCODING: identity\r\n"
                          "\r\nabc",
                          200, 3);
    /* chunked last: the chunks frame it, not the length */
    at_every_split("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: gzip, chunked\r\n"
                   "\r\n1\r\nx\r\n0\r\n\r\n",
                   false, H1_COMPLETE, 200, 1);
}

static void no_body_responses(void **state)
{
    at_every_split("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", false, H1_COMPLETE, 204,
                   0);
    at_every_split("HTTP/1.1 304 Not Modified\r\n\r\n", false, H1_COMPLETE, 304, 0);
    at_every_split("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", true, H1_COMPLETE, 200, 0);
}

static void interim_responses_are_skipped(void **state)
{
    at_every_split("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: x\r\n\r\n"
                   "HTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nz",
                   false, H1_COMPLETE, 201, 1);
}

static void close_delimited_body_ends_at_eof(void **state)
{
    struct h1_parser p;
    init(&p);
    h1_reset(&p, false);
    size_t used;
    assert_int_equal(feed(&p, "HTTP/1.0 200 OK\r\n\r\nsome body", 1000, &used), H1_MORE);
    assert_true(h1_must_close(&p));
    assert_int_equal(h1_parse_eof(&p), H1_COMPLETE);
    assert_int_equal(p.body_bytes, 9);
    h1_free(&p);
}

static void connection_semantics(void **state)
{
    struct h1_parser p;
    size_t used;
    init(&p);
    h1_reset(&p, false);
    assert_int_equal(
        feed(&p, "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n",
             1000, &used),
        H1_COMPLETE);
    assert_true(h1_must_close(&p));
    h1_reset(&p, false);
    assert_int_equal(feed(&p, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 1000, &used),
                     H1_COMPLETE);
    assert_false(h1_must_close(&p));
    h1_reset(&p, false);
    assert_int_equal(feed(&p, "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", 1000, &used),
                     H1_COMPLETE);
    assert_true(h1_must_close(&p));
    h1_reset(&p, false);
    assert_int_equal(feed(&p,
                          "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
                          1000, &used),
                     H1_COMPLETE);
    assert_false(h1_must_close(&p));
    h1_free(&p);
}

static void protocol_errors(void **state)
{
    const char *bad[] = {
        "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/2.0 200 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
        "HTTP/1.1 101 Switching Protocols\r\n\r\n", "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nBad-Name : x\r\n\r\n",
        /* found by the differential fuzz test against http_parser: */
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0;x\r}\n\r\n", /* bare CR in an
                                                                                extension */
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0;x\r\n\r\x0b0\r\n\r\n", /* bare CR in
                                                                                          a trailer
                                                                                        */
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0 junk\r\n\r\n", /* text after the
                                                                                  size */
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nno colon\r\n\r\n", /* malformed
                                                                                         trailer */
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\nx\r\n0\r\n\r\n",     /* size line
                                                                                         without CR */
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\n0\r\n\r\n", /* data without
                                                                                     CRLF */
        "HTTP/1.1 200 OK\rX: y\r\nContent-Length: 0\r\n\r\n", /* bare CR in a header */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        fails(bad[i]);
}

static void header_block_limit(void **state)
{
    size_t n = H1_HEADER_LIMIT + 100;
    char *msg = malloc(n + 64);
    strcpy(msg, "HTTP/1.1 200 OK\r\nX-Big: ");
    size_t l = strlen(msg);
    memset(msg + l, 'a', n - l);
    msg[n] = '\0';
    for (size_t step = 7; step < n; step *= 9) {
        struct h1_parser p;
        init(&p);
        h1_reset(&p, false);
        size_t used;
        assert_int_equal(feed(&p, msg, step, &used), H1_ERROR);
        assert_string_equal(p.error, "header block too large");
        h1_free(&p);
    }
    free(msg);
}

static void eof_before_or_inside_a_response(void **state)
{
    struct h1_parser p;
    size_t used;
    init(&p);
    h1_reset(&p, false);
    assert_int_equal(h1_parse_eof(&p), H1_ERROR);
    assert_string_equal(p.error, "connection closed before a response");
    h1_reset(&p, false);
    assert_int_equal(feed(&p, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 1000, &used),
                     H1_MORE);
    assert_int_equal(h1_parse_eof(&p), H1_ERROR);
    h1_free(&p);
}

static void bytes_after_the_response_are_left_over(void **state)
{
    struct h1_parser p;
    init(&p);
    h1_reset(&p, false);
    const char *msg = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA";
    size_t used = 0;
    assert_int_equal(h1_parse(&p, (const uint8_t *)msg, strlen(msg), &used), H1_COMPLETE);
    assert_int_equal(used, strlen(msg) - 5);
    h1_free(&p);
}

/* Content-Length, Transfer-Encoding and Connection in any case; names that
 * only look like them frame nothing. */
static void framing_headers_in_any_case(void **state)
{
    at_every_split("HTTP/1.1 200 OK\r\nCONTENT-LENGTH: 3\r\n\r\nabc", false, H1_COMPLETE, 200, 3);
    at_every_split("HTTP/1.1 200 OK\r\ncOnTeNt-LeNgTh:3\r\n\r\nabc", false, H1_COMPLETE, 200, 3);
    at_every_split("HTTP/1.1 200 OK\r\nTRANSFER-ENCODING: CHUNKED\r\n\r\n1\r\nx\r\n0\r\n\r\n",
                   false, H1_COMPLETE, 200, 1);
    at_every_split("HTTP/1.1 200 OK\r\ntransfer-Encoding:\tChunked \r\n\r\n1\r\nx\r\n0\r\n\r\n",
                   false, H1_COMPLETE, 200, 1);
    assert_true(closes_after("HTTP/1.1 200 OK\r\nCONNECTION: CLOSE\r\nContent-Length: 0\r\n\r\n"));
    assert_true(closes_after("HTTP/1.1 200 OK\r\nconnection: Close\r\nContent-Length: 0\r\n\r\n"));
    assert_false(
        closes_after("HTTP/1.0 200 OK\r\nConnection: KEEP-ALIVE\r\nContent-Length: 0\r\n\r\n"));
    /* near misses are other headers */
    at_every_split("HTTP/1.1 200 OK\r\nContent-Lengthy: 9\r\nXContent-Length: 9\r\n"
                   "Content-Lengt: 9\r\nContent-Length: 2\r\nTransfer-Encodin: chunked\r\n"
                   "Transfer-Encodings: chunked\r\n\r\nok",
                   false, H1_COMPLETE, 200, 2);
    assert_false(closes_after("HTTP/1.1 200 OK\r\nConnectionx: close\r\nConnectio: close\r\n"
                              "Content-Length: 0\r\n\r\n"));
    /* found in review: a colon at the 14th byte of a Connection line does
     * not make it another header */
    assert_true(
        closes_after("HTTP/1.1 200 OK\r\nConnection:clo:, close\r\nContent-Length: 0\r\n\r\n"));
}

/* Several Transfer-Encoding lines are one list (RFC 9110 5.3). */
static void several_transfer_encoding_lines(void **state)
{
    at_every_split("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"
                   "\r\n1\r\nx\r\n0\r\n\r\n",
                   false, H1_COMPLETE, 200, 1);
    at_every_split("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: \r\n"
                   "\r\n1\r\nx\r\n0\r\n\r\n",
                   false, H1_COMPLETE, 200, 1);
    fails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n");
    to_eof_at_every_split("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: br\r\n"
                          "Content-Length: 1\r\n\r\nabc",
                          200, 3);
}

/* RFC 9112 2.2 and RFC 9110 5.5: a CR that does not end a line and a NUL
 * are refused wherever they are (status line, name, value, trailer) and
 * whatever the line's place in the probes. */
static void bare_cr_and_nul_refused(void **state)
{
    const char bad[] = {'\0', '\r'};
    for (size_t b = 0; b < sizeof(bad); b++) {
        for (size_t k = 0; k < 80; k++) {
            /* in a value: k bytes into it */
            char msg[256];
            int n = snprintf(msg, sizeof(msg),
                             "HTTP/1.1 200 OK\r\nX-Pad: %.*sQ%s\r\n"
                             "Content-Length: 2\r\n\r\nok",
                             (int)k,
                             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                             "aaaaaaaaaaaaaaa",
                             "zz");
            char *q = memchr(msg, 'Q', (size_t)n);
            *q = 'a';
            at_every_split_n(msg, (size_t)n, false, H1_COMPLETE, 200, 2);
            *q = bad[b];
            fails_n(msg, (size_t)n);
        }
    }
    FAILS_LITERAL("HTTP/1.1 200 O\0K\r\nContent-Length: 0\r\n\r\n");
    FAILS_LITERAL("HTTP/1.1 200 OK\r\nX-\0A: b\r\nContent-Length: 0\r\n\r\n");
    fails("HTTP/1.1 200 OK\r\nX-\rA: b\r\nContent-Length: 0\r\n\r\n");
    fails("HTTP/1.1 200 OK\r\nContent\rLength: 0\r\n\r\n"); /* would compare as '-' */
    fails("HTTP/1.1 200 OK\r\nX: y\r\r\nContent-Length: 0\r\n\r\n");
    fails("HTTP/1.1 200 OK\r\n\r\r\n");
    FAILS_LITERAL("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: a\0b\r\n\r\n");
    fails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: a\rb\r\n\r\n");
}

/* RFC 9112 5.1 and 5.2: no whitespace in a name or before its colon, no
 * line folding, no whitespace before the first header. */
static void whitespace_in_names_and_folding_refused(void **state)
{
    fails("HTTP/1.1 200 OK\r\nX-A: b\r\n\tfolded\r\nContent-Length: 0\r\n\r\n");
    fails("HTTP/1.1 200 OK\r\n X-A: b\r\nContent-Length: 0\r\n\r\n");
    fails("HTTP/1.1 200 OK\r\nContent Length: 5\r\n\r\nhello");
    fails("HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello");
    fails("HTTP/1.1 200 OK\r\nX-A\t: b\r\nContent-Length: 0\r\n\r\n");
    fails("HTTP/1.1 200 OK\r\n: b\r\nContent-Length: 0\r\n\r\n");
    fails("HTTP/1.1 200 OK\r\n(X: b\r\nContent-Length: 0\r\n\r\n");
    fails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n x: y\r\n\r\n");
    fails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nx y: z\r\n\r\n");
    /* whitespace after the colon, and in values, is fine */
    at_every_split("HTTP/1.1 200 OK\r\nX-A:\t b c \t\r\nContent-Length: 0\r\n\r\n", false,
                   H1_COMPLETE, 200, 0);
}

/* Lines that end in LF alone are taken, alone or mixed with CRLF. */
static void lf_only_lines(void **state)
{
    at_every_split("HTTP/1.1 200 OK\nServer: x\nDate: today\nContent-Length: 2\n\nok", false,
                   H1_COMPLETE, 200, 2);
    at_every_split("HTTP/1.1 200 OK\r\nA: b\nContent-Length: 1\r\n\nx", false, H1_COMPLETE, 200, 1);
    at_every_split("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n1\r\nx\r\n0\r\nT: 1\n\n", false,
                   H1_COMPLETE, 200, 1);
}

static void status_lines(void **state)
{
    at_every_split("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", false, H1_COMPLETE, 200, 0);
    at_every_split("HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n", false, H1_COMPLETE, 404,
                   0);
    /* found in review: an LF-only status line before CRLF lines kept its
     * last byte only by luck */
    at_every_split("HTTP/1.1 200\nServer: x\r\nContent-Length: 0\r\n\r\n", false, H1_COMPLETE, 200,
                   0);
    at_every_split("HTTP/1.1 599 \r\nContent-Length: 0\r\n\r\n", false, H1_COMPLETE, 599, 0);
    const char *bad[] = {
        "HTTP/1.2 200 OK\r\n\r\n",     "HTTP/1.1 099 X\r\n\r\n",   "HTTP/1.1 20 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",    "http/1.1 200 OK\r\n\r\n",  "HTTP/1.1 200OK\r\n\r\n",
        "\r\nHTTP/1.1 200 OK\r\n\r\n", "HTTP/1.1  200 OK\r\n\r\n", "HTTP/1.1 +20 OK\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        fails(bad[i]);
}

static void interim_then_a_response_without_body(void **state)
{
    at_every_split("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", false,
                   H1_COMPLETE, 204, 0);
    /* a 1xx's own headers frame nothing */
    at_every_split("HTTP/1.1 102 Processing\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n"
                   "\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz",
                   false, H1_COMPLETE, 200, 1);
    struct h1_parser p;
    init(&p);
    h1_reset(&p, false);
    size_t used;
    assert_int_equal(feed(&p,
                          "HTTP/1.1 100 A\r\n\r\nHTTP/1.1 103 B\r\nLink: x\r\n\r\n"
                          "HTTP/1.1 304 C\r\n\r\n",
                          1 << 20, &used),
                     H1_COMPLETE);
    assert_int_equal(p.interim, 2);
    assert_int_equal(p.status, 304);
    h1_free(&p);
}

/* Every length of a header line (and of the status line, and of the body
 * after the blank line), so that line ends fall on every byte of a probe
 * and of the one after, a CR ends one probe with its LF in the next, and
 * lines come near the end of the data. */
static void lines_around_probe_edges(void **state)
{
    static const char pad[] =
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnop";
    char msg[512];
    for (int k = 0; k < 140; k++) {
        int n = snprintf(msg, sizeof(msg),
                         "HTTP/1.1 200 OK\r\nX-Pad: %.*s\r\nContent-Length: 2\r\n\r\nok", k, pad);
        at_every_split_n(msg, (size_t)n, false, H1_COMPLETE, 200, 2);
        n = snprintf(msg, sizeof(msg), "HTTP/1.1 200 %.*s\nX-Pad: %.*s\nContent-Length: 2\n\nok", k,
                     pad, k / 2, pad);
        at_every_split_n(msg, (size_t)n, false, H1_COMPLETE, 200, 2);
    }
    for (int body = 0; body < 70; body++) {
        int n = snprintf(msg, sizeof(msg),
                         "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: %d\r\n\r\n%.*s", body,
                         body, pad);
        at_every_split_n(msg, (size_t)n, false, H1_COMPLETE, 200, (uint64_t)body);
    }
}

/* Lines far longer than a probe, and a fault at their end. */
static void long_header_lines(void **state)
{
    size_t sizes[] = {100, 300, 1000, 5000};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t n = sizes[i];
        char *msg = malloc(n + 100);
        assert_non_null(msg);
        int h = sprintf(msg, "HTTP/1.1 200 OK\r\nX-Long: ");
        memset(msg + h, 'v', n);
        int t = sprintf(msg + h + n, "\r\nContent-Length: 1\r\n\r\nz");
        size_t len = (size_t)h + n + (size_t)t;
        for (size_t step = 1; step <= len; step = step * 3 + 1) {
            struct h1_parser p;
            init(&p);
            h1_reset(&p, false);
            size_t used;
            assert_int_equal(feedn(&p, msg, len, step, &used), H1_COMPLETE);
            assert_int_equal(p.body_bytes, 1);
            h1_free(&p);
        }
        msg[h + n - 1] = '\0';
        fails_n(msg, len);
        msg[h + n - 1] = '\r';
        fails_n(msg, len);
        free(msg);
    }
}

/* The masks of s[0..32), a byte at a time: the plain reference. */
static struct h1_chunk probe_reference(const uint8_t *s)
{
    struct h1_chunk c = {0, 0, 0, 0, 0};
    for (unsigned i = 0; i < H1_PROBE; i++) {
        c.lf |= (uint32_t)(s[i] == '\n') << i;
        c.cr |= (uint32_t)(s[i] == '\r') << i;
        c.nul |= (uint32_t)(s[i] == 0) << i;
        c.colon |= (uint32_t)(s[i] == ':') << i;
        c.ws |= (uint32_t)(s[i] == ' ' || s[i] == '\t') << i;
    }
    return c;
}

/* The three probes give the masks of the reference (each one the CPU has);
 * bytes next to the ones looked for (0x09..0x0e, 0x39..0x3b, 0x1f..0x21,
 * 0x80, 0xff) and every byte value are in the mix. */
static void probes_agree(void **state)
{
    static const uint8_t alphabet[] = {'\n', '\r', ':',  ' ',  '\t', 0,    'a',  'Z',  0x80, 0xff,
                                       0x0b, 0x0c, 0x0e, 0x39, 0x3b, 0x1f, 0x21, 0x01, 0x7f, 0x8a};
    uint32_t x = 12345;
    enum h1_simd best = h1_simd_level(H1_SIMD_AVX2);
    uint8_t s[H1_PROBE];
    for (int round = 0; round < 20000; round++) {
        for (unsigned i = 0; i < H1_PROBE; i++) {
            x = x * 1103515245u + 12345u;
            s[i] = alphabet[(x >> 16) % sizeof(alphabet)];
        }
        if (round % 4 == 3) /* every byte value too */
            for (unsigned i = 0; i < H1_PROBE; i++)
                s[i] = (uint8_t)(round * 7 + i * 13);
        struct h1_chunk want = probe_reference(s), got = h1_probe_bytes(s);
        assert_memory_equal(&want, &got, sizeof(want));
#if defined(__SSE2__)
        got = h1_probe_sse2(s);
        assert_memory_equal(&want, &got, sizeof(want));
#endif
#if defined(H1_HAVE_X86)
        if (best == H1_SIMD_AVX2) {
            got = h1_probe_avx2(s);
            assert_memory_equal(&want, &got, sizeof(want));
        }
#endif
        (void)best;
    }
}

/* Each run of the tests uses the probe main() chose for it (h1_use_probe),
 * which stays with the parser over responses; a parser set up by h1_init or,
 * as http1.c does, zeroed and reset, takes the widest the CPU has. */
static void the_parser_uses_the_chosen_probe(void **state)
{
    struct h1_parser p;
    size_t used;
    /* the probe is chosen when lines are scanned: a block that repeats the
     * last one read whole is not (a_repeated_header_block_...) */
    h1_memo_forget();
    memset(&p, 0xff, sizeof(p));
    init(&p);
    h1_reset(&p, false);
    assert_int_equal(feed(&p, "HTTP/1.1 204 No Content\r\n\r\n", 100, &used), H1_COMPLETE);
    assert_int_equal(p.probe, 1 + h1_simd_level(probe_limit));
    h1_reset(&p, true);
    assert_int_equal(p.probe, 1 + h1_simd_level(probe_limit));
    h1_free(&p);
    struct h1_parser plain;
    h1_memo_forget();
    memset(&plain, 0xff, sizeof(plain));
    h1_init(&plain);
    h1_reset(&plain, false);
    assert_int_equal(feed(&plain, "HTTP/1.1 204 No Content\r\n\r\n", 100, &used), H1_COMPLETE);
    assert_int_equal(plain.probe, 1 + h1_simd_level(H1_SIMD_AVX2));
    h1_free(&plain);
    struct h1_parser zeroed;
    h1_memo_forget();
    memset(&zeroed, 0, sizeof(zeroed));
    h1_reset(&zeroed, false);
    assert_int_equal(feed(&zeroed, "HTTP/1.1 204 No Content\r\n\r\n", 100, &used), H1_COMPLETE);
    assert_int_equal(zeroed.probe, 1 + h1_simd_level(H1_SIMD_AVX2));
    h1_free(&zeroed);
}

/* One whole read of msg: its result, status, body and bytes used. */
static int whole(const char *msg, bool head, uint16_t *status, uint64_t *body, size_t *used,
                 bool *closes)
{
    struct h1_parser p;
    init(&p);
    h1_reset(&p, head);
    int rc = feed(&p, msg, 1 << 20, used);
    *status = p.status;
    *body = p.body_bytes;
    *closes = rc == H1_COMPLETE && h1_must_close(&p);
    h1_free(&p);
    return rc;
}

/* A header block that repeats the last one read whole takes its verdict
 * (one comparison); any other block, a HEAD response, an error, and a
 * block split across reads are checked line by line, and every reading
 * comes out as a fresh parser's. */
static void a_repeated_header_block_takes_the_kept_verdict(void **state)
{
    (void)state;
    static const char *const msgs[] = {
        "HTTP/1.1 200 OK\r\nServer: t\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nServer: t\r\nContent-Length: 6\r\n\r\nhello!",
        "HTTP/1.1 200 OK\r\nServer: t\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\n",
        "HTTP/1.1 200 OK\r\nContent Length: 5\r\n\r\nhello",
    };
    for (size_t i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
        for (int head = 0; head <= 1; head++) {
            uint16_t st[2];
            uint64_t body[2];
            size_t used[2];
            bool closes[2];
            int rc[2];
            h1_memo_forget();
            uint64_t hits = h1_memo_hits();
            rc[0] = whole(msgs[i], head, &st[0], &body[0], &used[0], &closes[0]);
            assert_int_equal(h1_memo_hits(), hits);
            rc[1] = whole(msgs[i], head, &st[1], &body[1], &used[1], &closes[1]);
            /* errors are not kept; every other block is */
            assert_int_equal(h1_memo_hits(), hits + (rc[0] != H1_ERROR));
            assert_int_equal(rc[0], rc[1]);
            assert_int_equal(st[0], st[1]);
            assert_int_equal(body[0], body[1]);
            assert_int_equal(used[0], used[1]);
            assert_int_equal(closes[0], closes[1]);
        }
    }
    /* a block kept for a GET is not taken for a HEAD, nor another block for either */
    uint16_t st;
    uint64_t body;
    size_t used;
    bool closes;
    h1_memo_forget();
    assert_int_equal(whole(msgs[0], false, &st, &body, &used, &closes), H1_COMPLETE);
    uint64_t hits = h1_memo_hits();
    assert_int_equal(whole(msgs[0], true, &st, &body, &used, &closes), H1_COMPLETE);
    assert_int_equal(body, 0);
    assert_int_equal(whole(msgs[1], false, &st, &body, &used, &closes), H1_COMPLETE);
    assert_int_equal(body, 6);
    assert_int_equal(whole(msgs[2], false, &st, &body, &used, &closes), H1_COMPLETE);
    assert_true(closes);
    assert_int_equal(h1_memo_hits(), hits);
    /* the kept block split across reads: checked line by line, same verdict */
    at_every_split(msgs[2], false, H1_COMPLETE, 200, 5);
    /* the same bytes up to one that differs in the last line */
    assert_int_equal(
        whole("HTTP/1.1 200 OK\r\nServer: t\r\nConnection: close\r\nContent-Length: 5\r\n\n"
              "hello",
              false, &st, &body, &used, &closes),
        H1_COMPLETE);
    assert_int_equal(body, 5);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_parser_uses_the_chosen_probe),
    cmocka_unit_test(content_length),
    cmocka_unit_test(chunked_with_extensions_and_trailers),
    cmocka_unit_test(transfer_encoding_overrides_content_length),
    cmocka_unit_test(no_body_responses),
    cmocka_unit_test(interim_responses_are_skipped),
    cmocka_unit_test(close_delimited_body_ends_at_eof),
    cmocka_unit_test(connection_semantics),
    cmocka_unit_test(protocol_errors),
    cmocka_unit_test(header_block_limit),
    cmocka_unit_test(eof_before_or_inside_a_response),
    cmocka_unit_test(bytes_after_the_response_are_left_over),
    cmocka_unit_test(framing_headers_in_any_case),
    cmocka_unit_test(several_transfer_encoding_lines),
    cmocka_unit_test(bare_cr_and_nul_refused),
    cmocka_unit_test(whitespace_in_names_and_folding_refused),
    cmocka_unit_test(lf_only_lines),
    cmocka_unit_test(status_lines),
    cmocka_unit_test(interim_then_a_response_without_body),
    cmocka_unit_test(lines_around_probe_edges),
    cmocka_unit_test(long_header_lines),
    cmocka_unit_test(probes_agree),
    cmocka_unit_test(a_repeated_header_block_takes_the_kept_verdict),
};

int main(void)
{
    static const char *const names[] = {"h1parse (byte loop)", "h1parse (SSE2)", "h1parse (AVX2)"};
    int failed = 0;
    for (int level = H1_SIMD_BYTES; level <= H1_SIMD_AVX2; level++) {
        probe_limit = (enum h1_simd)level;
        if (h1_simd_level(probe_limit) != probe_limit) {
            printf("skip %s: this machine does not have it\n", names[level]);
            continue;
        }
        failed += cmocka_run_group_tests_name(names[level], tests, NULL, NULL);
    }
    return failed;
}
