/* --resolve and --connect-to: what their parsers take and refuse, and where
 * a name's connections go once they are read (no resolver is asked: every
 * case is answered by the options). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "loadgen/options/names.h"

/* "ADDR port" of a target's address, for comparisons. */
static const char *shown(const struct lg_target *t, char *buf, size_t len)
{
    char ip[INET6_ADDRSTRLEN];
    unsigned port;
    if (t->addr.ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&t->addr;
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
        port = ntohs(in->sin_port);
    } else {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&t->addr;
        inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
        port = ntohs(in6->sin6_port);
    }
    snprintf(buf, len, "%s %u", ip, port);
    return buf;
}

static const char *where(const struct lg_names *n, const char *host, unsigned port)
{
    static char buf[80];
    struct lg_target t;
    memset(&t, 0, sizeof(t));
    lg_names_resolve("test", "URL", n, host, port, false, &t);
    return shown(&t, buf, sizeof(buf));
}

static void resolve_takes_curls_forms(void **state)
{
    (void)state;
    struct lg_names n = {0};
    const char *why;
    assert_int_equal(lg_names_add_resolve(&n, "a.example.test:443:127.0.0.2", &why), 0);
    assert_int_equal(lg_names_add_resolve(&n, "*:443:127.0.0.3", &why), 0);
    assert_int_equal(lg_names_add_resolve(&n, "v6.example.test:8443:[::1]", &why), 0);
    assert_int_equal(lg_names_add_resolve(&n, "list.example.test:80:10.0.0.1,10.0.0.2", &why), 0);
    assert_int_equal(lg_names_add_resolve(&n, "[::1]:80:127.0.0.9", &why), 0);
    assert_int_equal(n.n_addrs, 5);
    /* the exact name before '*', whatever its case; the port must match */
    assert_string_equal(where(&n, "A.Example.TEST", 443), "127.0.0.2 443");
    assert_string_equal(where(&n, "other.example.test", 443), "127.0.0.3 443");
    assert_string_equal(where(&n, "v6.example.test", 8443), "::1 8443");
    assert_string_equal(where(&n, "list.example.test", 80), "10.0.0.1 80");
    assert_string_equal(where(&n, "::1", 80), "127.0.0.9 80");
    assert_null(lg_names_find(&n, "a.example.test", 444));
    lg_names_free(&n);
    assert_int_equal(n.n_addrs, 0);
}

static void resolve_refuses_what_is_not_host_port_addr(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "a.test",
        "a.test:443",
        "a.test:443:",
        "a.test::127.0.0.1",
        "a.test:0:127.0.0.1",
        "a.test:65536:127.0.0.1",
        "a.test:https:127.0.0.1",
        ":443:127.0.0.1",
        "a.test:443:b.test",      /* a name, not an address */
        "a.test:443:[::1",        /* an open bracket */
        "a.test:443:127.0.0.1.5", /* not an IPv4 address */
        "-a.test:443:127.0.0.1",  /* curl's removal, not supported */
        "a test:443:127.0.0.1",
        "[::1:443:127.0.0.1",
    };
    struct lg_names n = {0};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *why = NULL;
        if (lg_names_add_resolve(&n, bad[i], &why) != -1) fail_msg("'%s' was taken", bad[i]);
        assert_non_null(why);
        assert_null(strchr(why, '\n')); /* a usage error is one line */
    }
    assert_int_equal(n.n_addrs, 0);
    lg_names_free(&n);
}

static void connect_to_goes_elsewhere_then_resolves_there(void **state)
{
    (void)state;
    struct lg_names n = {0};
    const char *why;
    assert_int_equal(lg_names_add_connect_to(&n, "a.test:443:b.test:8443", &why), 0);
    assert_int_equal(lg_names_add_connect_to(&n, ":80::8080", &why), 0); /* any host, same one */
    assert_int_equal(lg_names_add_resolve(&n, "b.test:8443:127.0.0.5", &why), 0);
    assert_int_equal(lg_names_add_resolve(&n, "c.test:8080:127.0.0.6", &why), 0);
    assert_string_equal(where(&n, "a.test", 443), "127.0.0.5 8443");
    assert_string_equal(where(&n, "c.test", 80), "127.0.0.6 8080");
    assert_int_equal(lg_names_add_connect_to(&n, "::[::1]:", &why), 0);
    assert_int_equal(n.n_routes, 3);
    static const char *const bad[] = {"a.test:443:b.test", "a.test:443:b.test:8443:x",
                                      "a.test:x:b.test:1", "a.test:1:b test:2", "a.test:1:b:0"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (lg_names_add_connect_to(&n, bad[i], &why) != -1) fail_msg("'%s' was taken", bad[i]);
    assert_int_equal(n.n_routes, 3);
    lg_names_free(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolve_takes_curls_forms),
        cmocka_unit_test(resolve_refuses_what_is_not_host_port_addr),
        cmocka_unit_test(connect_to_goes_elsewhere_then_resolves_there),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
