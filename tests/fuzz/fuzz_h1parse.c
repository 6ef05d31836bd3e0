/* libFuzzer target for the HTTP/1.1 response parser, differential against
 * http_parser (Debian's libhttp-parser-dev) as the oracle: where both accept a
 * complete response they must agree on where it ends, its status, its body
 * length and whether the connection stays open; and our parser must give the
 * same verdict whether the bytes arrive at once or split in two. */
#include <http_parser.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "httpload/h1parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct oracle {
    int complete;
    uint64_t body;
};

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

static int ours(const uint8_t *d, size_t n, size_t split, struct h1_parser *p, size_t *used)
{
    h1_init(p);
    h1_reset(p, false);
    size_t u1 = 0, u2 = 0;
    if (split > n) split = n;
    int rc = h1_parse(p, d, split, &u1);
    if (rc == H1_MORE && split < n) rc = h1_parse(p, d + split, n - split, &u2);
    *used = u1 + u2;
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t split = data[0];
    const uint8_t *d = data + 1;
    size_t n = size - 1;

    struct h1_parser a, b;
    size_t used_a, used_b;
    int ra = ours(d, n, n, &a, &used_a);
    int rb = ours(d, n, split, &b, &used_b);
    /* split invariance */
    if (ra != rb) abort();
    if (ra == H1_COMPLETE &&
        (used_a != used_b || a.status != b.status || a.body_bytes != b.body_bytes))
        abort();

    struct oracle o = {0, 0};
    http_parser hp;
    http_parser_settings s;
    http_parser_settings_init(&s);
    s.on_body = on_body;
    s.on_message_complete = on_complete;
    http_parser_init(&hp, HTTP_RESPONSE);
    hp.data = &o;
    size_t consumed = http_parser_execute(&hp, &s, (const char *)d, n);
    int oracle_ok =
        o.complete && (HTTP_PARSER_ERRNO(&hp) == HPE_OK || HTTP_PARSER_ERRNO(&hp) == HPE_PAUSED);

    /* 204 and 304 never have a body (RFC 9110 15.3.5, 15.4.5); http_parser
     * still reads a chunked one, so framing is not compared for them */
    if (ra == H1_COMPLETE && oracle_ok && hp.status_code >= 200 && a.status != 204 &&
        a.status != 304) {
        if (a.status != hp.status_code) abort();
        if (a.body_bytes != o.body) abort();
        /* http_parser counts the byte that completed the message */
        if (used_a != consumed) abort();
        /* keep-alive: our parser never keeps alive what the oracle closes
         * (not for chunked responses: http_parser also obeys Connection in
         * trailers, which RFC 9110 6.5.1 forbids them to carry; nor for
         * HTTP/1.0, where http_parser does not trim "keep-alive\t") */
        if (!a.chunked && a.http_minor == 1 && !h1_must_close(&a) && !http_should_keep_alive(&hp))
            abort();
    }
    h1_free(&a);
    h1_free(&b);
    return 0;
}
