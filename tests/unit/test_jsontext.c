/* test_jsontext.c — the character rules both JSON readers share: UTF-8
 * written for every code point and read back under the lead-byte rules, and
 * the two readers (docread.c, json.c) agreeing string by string. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/read/docread.h"
#include "stats/read/json.h"
#include "stats/read/jsontext.h"

static void test_hex_digits(void **state)
{
    (void)state;
    const char *digits = "0123456789abcdef", *upper = "ABCDEF";
    for (int i = 0; i < 16; i++)
        assert_int_equal(jsontext_hex_digit(digits[i]), i);
    for (int i = 0; i < 6; i++)
        assert_int_equal(jsontext_hex_digit(upper[i]), 10 + i);
    const int others[] = {-1, 0, '/', ':', '@', 'G', '`', 'g', 'x', 0x80, 0xff};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        assert_int_equal(jsontext_hex_digit(others[i]), -1);
}

static void test_encoding_at_the_length_boundaries(void **state)
{
    (void)state;
    static const struct {
        unsigned long cp;
        const char *bytes;
    } table[] = {
        {0x41, "A"},
        {0x7f, "\x7f"},
        {0x80, "\xc2\x80"},
        {0xe9, "\xc3\xa9"},
        {0x7ff, "\xdf\xbf"},
        {0x800, "\xe0\xa0\x80"},
        {0x20ac, "\xe2\x82\xac"},
        {0xffff, "\xef\xbf\xbf"},
        {0x10000, "\xf0\x90\x80\x80"},
        {0x1f600, "\xf0\x9f\x98\x80"},
        {0x10ffff, "\xf4\x8f\xbf\xbf"},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        char out[4];
        size_t n = jsontext_utf8_encode(table[i].cp, out);
        assert_int_equal(n, strlen(table[i].bytes));
        assert_memory_equal(out, table[i].bytes, n);
    }
}

/* Every code point but the surrogates, written and then checked under the
 * lead-byte rules: each is accepted, and its length agrees. */
static void test_every_code_point_reads_back(void **state)
{
    (void)state;
    for (unsigned long cp = 0x80; cp <= 0x10ffff; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        char out[4];
        size_t n = jsontext_utf8_encode(cp, out);
        int low, high;
        int extra = jsontext_utf8_continuations((unsigned char)out[0], &low, &high);
        if ((size_t)extra + 1 != n || (unsigned char)out[1] < low || (unsigned char)out[1] > high)
            fail_msg("U+%04lX: %zu bytes, the rules say %d continuations in [%02x, %02x]", cp, n,
                     extra, low, high);
    }
}

static void test_bytes_that_cannot_lead(void **state)
{
    (void)state;
    int low, high;
    for (int b = 0x80; b <= 0xc1; b++) /* continuations, and leads of overlong pairs */
        assert_int_equal(jsontext_utf8_continuations(b, &low, &high), 0);
    for (int b = 0xf5; b <= 0xff; b++) /* beyond U+10FFFF */
        assert_int_equal(jsontext_utf8_continuations(b, &low, &high), 0);
    /* the second byte's range narrows where overlongs, surrogates or the end lie */
    assert_int_equal(jsontext_utf8_continuations(0xe0, &low, &high), 2);
    assert_int_equal(low, 0xa0);
    assert_int_equal(jsontext_utf8_continuations(0xed, &low, &high), 2);
    assert_int_equal(high, 0x9f);
    assert_int_equal(jsontext_utf8_continuations(0xf0, &low, &high), 3);
    assert_int_equal(low, 0x90);
    assert_int_equal(jsontext_utf8_continuations(0xf4, &low, &high), 3);
    assert_int_equal(high, 0x8f);
}

/* The string literal `quoted` (with its quotes) through each reader: whether
 * it is accepted, and what it decodes to. */
static bool through_docread(const char *quoted, char *decoded, size_t size)
{
    char text[256];
    snprintf(text, sizeof text,
             "{\"metrics\": {\"c1.x\": {\"unit\": \"count\", \"samples\": [1]}}, "
             "\"sidecar\": %s}",
             quoted);
    struct docread_result result;
    bool ok = docread_memory(text, strlen(text), NULL, &result) == DOCREAD_OK;
    if (ok) snprintf(decoded, size, "%s", result.sidecar);
    docread_result_free(&result);
    return ok;
}

static bool through_json(const char *quoted, char *decoded, size_t size)
{
    struct stats_json value;
    char error[200];
    if (stats_json_parse(quoted, strlen(quoted), &value, error, sizeof error) != 0) return false;
    snprintf(decoded, size, "%s", value.string);
    stats_json_free(&value);
    return true;
}

static void test_both_readers_agree(void **state)
{
    (void)state;
    static const struct {
        const char *quoted;
        bool valid;
    } strings[] = {
        {"\"plain\"", true},
        {"\"caf\\u00e9 \\u20ac \\ud83d\\ude00\"", true},
        {"\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", true},
        {"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", true},
        {"\"\\uD83D\\uDE00\"", true},
        {"\"\xe0\xa0\x80\xed\x9f\xbf\xf4\x8f\xbf\xbf\"", true},
        {"\"\\ud800\"", false},        /* a lone high surrogate */
        {"\"\\udc00\"", false},        /* a lone low one */
        {"\"\\ud800\\u0041\"", false}, /* a high one and no low one */
        {"\"\\u0000\"", false},
        {"\"\\u12g4\"", false},
        {"\"\\x\"", false},
        {"\"\xc0\xaf\"", false},         /* overlong */
        {"\"\xc1\xbf\"", false},         /* overlong */
        {"\"\xe0\x9f\xbf\"", false},     /* overlong */
        {"\"\xed\xa0\x80\"", false},     /* a surrogate */
        {"\"\xf0\x8f\xbf\xbf\"", false}, /* overlong */
        {"\"\xf4\x90\x80\x80\"", false}, /* beyond U+10FFFF */
        {"\"\xf5\x80\x80\x80\"", false},
        {"\"\x80\"", false},
        {"\"\xc3\"", false}, /* cut short */
        {"\"\xe2\x82\"", false},
    };
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) {
        char a[64] = "", b[64] = "";
        bool by_docread = through_docread(strings[i].quoted, a, sizeof a);
        bool by_json = through_json(strings[i].quoted, b, sizeof b);
        if (by_docread != strings[i].valid || by_json != strings[i].valid || strcmp(a, b) != 0)
            fail_msg("string %zu (%s): docread %s '%s', json %s '%s'", i,
                     strings[i].valid ? "valid" : "invalid", by_docread ? "took" : "refused", a,
                     by_json ? "took" : "refused", b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hex_digits),
        cmocka_unit_test(test_encoding_at_the_length_boundaries),
        cmocka_unit_test(test_every_code_point_reads_back),
        cmocka_unit_test(test_bytes_that_cannot_lead),
        cmocka_unit_test(test_both_readers_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
