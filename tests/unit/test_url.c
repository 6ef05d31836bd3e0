/* Target and proxy URLs: what is accepted and what each refusal says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "httpload/url.h"

static void good_urls(void **state)
{
    struct http_url u;
    const char *why;
    assert_int_equal(http_url_parse("http://127.0.0.1:8080/a?b=c#frag", &u, &why), 0);
    assert_false(u.https);
    assert_string_equal(u.host, "127.0.0.1");
    assert_int_equal(u.port, 8080);
    assert_string_equal(u.target, "/a?b=c");
    http_url_free(&u);
    assert_int_equal(http_url_parse("https://[::1]/", &u, &why), 0);
    assert_true(u.https && u.host_is_ipv6);
    assert_string_equal(u.host, "::1");
    assert_int_equal(u.port, 443);
    char auth[64];
    http_url_authority(&u, false, auth, sizeof(auth));
    assert_string_equal(auth, "[::1]");
    http_url_authority(&u, true, auth, sizeof(auth));
    assert_string_equal(auth, "[::1]:443");
    http_url_free(&u);
    assert_int_equal(http_url_parse("HTTP://example.test", &u, &why), 0);
    assert_string_equal(u.target, "/");
    assert_int_equal(u.port, 80);
    http_url_free(&u);
    assert_int_equal(http_url_parse("http://h?x=1", &u, &why), 0);
    assert_string_equal(u.target, "/?x=1");
    http_url_free(&u);
}

static void bad_urls(void **state)
{
    struct {
        const char *url, *why;
    } cases[] = {
        {"ftp://x/", "unsupported scheme"},
        {"example.test/", "missing scheme"},
        {"http:///", "missing host"},
        {"http://h:0/", "port out of range"},
        {"http://h:65536/", "port out of range"},
        {"http://h:12a/", "port is not a number"},
        {"http://user@h/", "user information"},
        {"http://[::1/", "unterminated"},
        {"http://h/a b", "spaces"},
        {"http://h$/", "invalid character"},
        {"http://h:1x/", "port is not a number"}, /* after the host was kept: freed */
        {"http://"
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/",
         "host name too long"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct http_url u;
        const char *why = NULL;
        assert_int_equal(http_url_parse(cases[i].url, &u, &why), -1);
        assert_non_null(strstr(why, cases[i].why));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_urls),
        cmocka_unit_test(bad_urls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
