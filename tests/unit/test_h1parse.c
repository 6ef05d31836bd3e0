/* The HTTP/1.1 response parser: framing (length, chunked, close-delimited,
 * no body), interim responses, splits at every byte, and the errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "httpload/h1parse.h"

/* Feeds `msg` in pieces of `step` bytes; returns the final result. */
static int feed(struct h1_parser *p, const char *msg, size_t step, size_t *total_used)
{
    size_t len = strlen(msg), off = 0;
    int rc = H1_MORE;
    *total_used = 0;
    while (off < len && rc == H1_MORE) {
        size_t n = len - off < step ? len - off : step;
        size_t used = 0;
        rc = h1_parse(p, (const uint8_t *)msg + off, n, &used);
        *total_used += used;
        off += n;
    }
    return rc;
}

static void at_every_split(const char *msg, bool head, int want, uint16_t status, uint64_t body)
{
    size_t len = strlen(msg);
    for (size_t step = 1; step <= len; step++) {
        struct h1_parser p;
        h1_init(&p);
        h1_reset(&p, head);
        size_t used;
        int rc = feed(&p, msg, step, &used);
        assert_int_equal(rc, want);
        if (want == H1_COMPLETE) {
            assert_int_equal(p.status, status);
            assert_int_equal(p.body_bytes, body);
            assert_int_equal(used, len);
        }
        h1_free(&p);
    }
}

/* Like at_every_split, for a body that runs to the close: every split
 * leaves the response open and consumes everything; EOF completes it. */
static void to_eof_at_every_split(const char *msg, uint16_t status, uint64_t body)
{
    size_t len = strlen(msg);
    for (size_t step = 1; step <= len; step++) {
        struct h1_parser p;
        h1_init(&p);
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
    h1_init(&p);
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
    h1_init(&p);
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
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct h1_parser p;
        h1_init(&p);
        h1_reset(&p, false);
        size_t used;
        assert_int_equal(feed(&p, bad[i], 1000, &used), H1_ERROR);
        assert_non_null(p.error);
        h1_free(&p);
    }
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
        h1_init(&p);
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
    h1_init(&p);
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
    h1_init(&p);
    h1_reset(&p, false);
    const char *msg = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA";
    size_t used = 0;
    assert_int_equal(h1_parse(&p, (const uint8_t *)msg, strlen(msg), &used), H1_COMPLETE);
    assert_int_equal(used, strlen(msg) - 5);
    h1_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
