/* test_strictnum.c — the numbers serde_json's default parser refuses as out
 * of range, and the document reader refusing them with that reason. The
 * expected answers were worked out by hand from serde_json's arithmetic:
 * 17976931348623158 (exact as a double) times 1e292 rounds past DBL_MAX,
 * 17976931348623157 becomes ...156 as a double and the product stays finite. */
#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stats/read/docread.h"
#include "stats/read/strictnum.h"

static bool out_of_range(const char *s)
{
    return strictnum_out_of_range(s, strlen(s));
}

static void test_the_largest_doubles(void **state)
{
    (void)state;
    assert_true(out_of_range("1.7976931348623158e308"));
    assert_true(out_of_range("-1.7976931348623158e308"));
    assert_true(out_of_range("1.7976931348623158E+308"));
    assert_true(out_of_range("17976931348623158e292"));
    assert_true(out_of_range("0.17976931348623158e309"));
    /* DBL_MAX as %.17g writes it, which is what loadgen's writer would */
    char dbl_max[40];
    snprintf(dbl_max, sizeof dbl_max, "%.17g", DBL_MAX);
    assert_string_equal(dbl_max, "1.7976931348623157e+308");
    assert_false(out_of_range(dbl_max));
    assert_false(out_of_range("1e308"));
    assert_false(out_of_range("-1e308"));
    assert_false(out_of_range("1.7e308"));
}

static void test_beyond_the_range_and_beyond_the_digits(void **state)
{
    (void)state;
    assert_true(out_of_range("1e309"));
    assert_true(out_of_range("1e99999999999")); /* an exponent past i32 */
    assert_false(out_of_range("0e99999999999"));
    assert_false(out_of_range("1e-99999999999"));
    assert_false(out_of_range("1e-400"));
    assert_false(out_of_range("0.0e400"));
    /* 309 digits: what a u64 cannot hold counts as powers of ten */
    char big[400];
    memset(big, '9', 309);
    big[309] = '\0';
    assert_true(out_of_range(big));
    big[0] = '1';
    memset(big + 1, '0', 307);
    big[308] = '\0'; /* 1e307 written out */
    assert_false(out_of_range(big));
    /* integers that fit a u64 or an i64 are never floats */
    assert_false(out_of_range("18446744073709551615"));
    assert_false(out_of_range("-9223372036854775808"));
}

static void test_the_reader_refuses_them_with_the_reason(void **state)
{
    (void)state;
    const char *doc = "{\"metrics\": {\"c1.x\": {\"unit\": \"count\", \"samples\": [1, "
                      "1.7976931348623158e308]}}}";
    struct docread_options options = {0};
    struct docread_result result;
    assert_int_equal(docread_memory(doc, strlen(doc), &options, &result), DOCREAD_INVALID);
    assert_non_null(strstr(result.error, "samples[1] (1.7976931348623158e308) is out of range"));
    assert_non_null(strstr(result.error, "serde_json"));
    docread_result_free(&result);
    const char *fine =
        "{\"metrics\": {\"c1.x\": {\"unit\": \"count\", \"samples\": [1.7976931348623157e308]}}}";
    assert_int_equal(docread_memory(fine, strlen(fine), &options, &result), DOCREAD_OK);
    docread_result_free(&result);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_largest_doubles),
        cmocka_unit_test(test_beyond_the_range_and_beyond_the_digits),
        cmocka_unit_test(test_the_reader_refuses_them_with_the_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
