/* --source's parser (lists, CIDR blocks of both families, the cap, what
 * is refused), the check that the machine has an address, the bind that
 * takes the addresses in turn (real sockets on loopback, read back with
 * getsockname), and --ramp's moments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "loadgen/core/internal.h"
#include "loadgen/core/ramp.h"
#include "loadgen/options/sources.h"
#include "loadgen/transport/source.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Parses s (which must succeed) and returns its addresses joined by spaces. */
static char *parsed(const char *s, size_t *n)
{
    static char text[8192];
    struct lg_source *list = NULL;
    char why[200];
    assert_int_equal(lg_parse_sources(s, &list, n, why, sizeof(why)), 0);
    text[0] = '\0';
    for (size_t i = 0; i < *n; i++) {
        char a[64];
        lg_source_text(&list[i], a, sizeof(a));
        if (strlen(text) + strlen(a) + 2 < sizeof(text))
            snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s", i ? " " : "", a);
    }
    free(list);
    return text;
}

static void refused(const char *s, const char *expected)
{
    struct lg_source *list = NULL;
    size_t n = 0;
    char why[200];
    assert_int_equal(lg_parse_sources(s, &list, &n, why, sizeof(why)), -1);
    assert_null(list);
    if (!strstr(why, expected)) fail_msg("'%s': '%s' lacks '%s'", s, why, expected);
}

static void test_lists_and_single_addresses(void **state)
{
    size_t n;
    assert_string_equal(parsed("127.0.0.2", &n), "127.0.0.2");
    assert_int_equal(n, 1);
    assert_string_equal(parsed("127.0.0.2,127.0.0.3,10.1.2.3", &n), "127.0.0.2 127.0.0.3 10.1.2.3");
    assert_int_equal(n, 3);
    assert_string_equal(parsed("::1,fd00::7", &n), "::1 fd00::7");
    assert_string_equal(parsed("127.0.0.9/32", &n), "127.0.0.9");
    assert_string_equal(parsed("::1/128", &n), "::1");
}

static void test_cidr_blocks_give_their_hosts(void **state)
{
    size_t n;
    /* a /29 has eight addresses: its network and broadcast ones are no host's */
    assert_string_equal(parsed("127.0.1.0/29", &n),
                        "127.0.1.1 127.0.1.2 127.0.1.3 127.0.1.4 127.0.1.5 127.0.1.6");
    /* host bits given name the block they are in */
    assert_string_equal(parsed("127.0.1.6/30", &n), "127.0.1.5 127.0.1.6");
    /* the smallest blocks are all hosts (RFC 3021's /31) */
    assert_string_equal(parsed("127.0.1.4/31", &n), "127.0.1.4 127.0.1.5");
    /* IPv6 leaves out the all-zero (subnet-router anycast) address only */
    assert_string_equal(parsed("fd00::/126", &n), "fd00::1 fd00::2 fd00::3");
    assert_string_equal(parsed("fd00::1:0/127", &n), "fd00::1:0 fd00::1:1");
    /* a block and addresses together */
    assert_string_equal(parsed("127.0.0.2,127.0.2.0/30", &n), "127.0.0.2 127.0.2.1 127.0.2.2");
    /* the largest blocks the cap allows */
    parsed("10.0.0.0/22", &n);
    assert_int_equal(n, 1022);
    parsed("fd00::/118", &n);
    assert_int_equal(n, 1023);
}

static void test_bad_lists_are_refused_with_the_reason(void **state)
{
    refused("", "at least one address");
    refused("127.0.0.1,", "an empty");
    refused(",127.0.0.1", "an empty");
    refused("localhost", "'localhost' is not an IPv4 or IPv6 address");
    refused("127.0.0.256", "'127.0.0.256' is not an IPv4");
    refused("127.0.0.0/33", "the prefix length is not from 0 to 32");
    refused("::/129", "from 0 to 128");
    refused("127.0.0.0/x", "the prefix length");
    refused("127.0.0.0/", "the prefix length");
    refused("10.0.0.0/21", "more than 1024 addresses");
    refused("fd00::/64", "more than 1024 addresses");
    refused("127.0.0.0/8", "more than 1024 addresses");
    refused("127.0.0.1,::1", "mixes IPv4 and IPv6");
}

static void test_local_check_names_the_first_foreign_address(void **state)
{
    struct lg_source *list = NULL;
    size_t n, bad = 99;
    int err = 0;
    char why[200];
    assert_int_equal(lg_parse_sources("127.0.0.2,127.3.4.5", &list, &n, why, sizeof(why)), 0);
    assert_int_equal(lg_sources_check_local(list, n, &bad, &err), 0);
    free(list);
    /* 192.0.2.0/24 is for documentation: no machine has it */
    assert_int_equal(lg_parse_sources("127.0.0.2,192.0.2.1", &list, &n, why, sizeof(why)), 0);
    assert_int_equal(lg_sources_check_local(list, n, &bad, &err), -1);
    assert_int_equal(bad, 1);
    assert_int_equal(err, EADDRNOTAVAIL);
    free(list);
}

/* The local address a socket was bound to. */
static const char *bound_to(int fd, char *buf, size_t len)
{
    struct sockaddr_in a;
    socklen_t al = sizeof(a);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    assert_non_null(inet_ntop(AF_INET, &a.sin_addr, buf, (socklen_t)len));
    return buf;
}

static void test_bind_takes_the_addresses_in_turn(void **state)
{
    struct lg_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    char why[200];
    assert_int_equal(lg_parse_sources("127.0.0.2,127.0.0.3,127.0.0.4", &cfg.sources, &cfg.n_sources,
                                      why, sizeof(why)),
                     0);
    static struct lg_worker w0, w1;
    memset(&w0, 0, sizeof(w0));
    memset(&w1, 0, sizeof(w1));
    w0.cfg = w1.cfg = &cfg;
    w1.index = 1;
    struct lg_client c0 = {.w = &w0}, c1 = {.w = &w1};
    const char *want0[] = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.2"};
    /* the second loop starts one address further on */
    const char *want1[] = {"127.0.0.3", "127.0.0.4", "127.0.0.2", "127.0.0.3"};
    for (int i = 0; i < 4; i++) {
        char a[64];
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        assert_int_equal(lg_source_bind(&c0, fd, false), 0);
        assert_string_equal(bound_to(fd, a, sizeof(a)), want0[i]);
        close(fd);
        /* a stream socket binds without a port until it connects */
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        assert_int_equal(lg_source_bind(&c1, fd, true), 0);
        assert_string_equal(bound_to(fd, a, sizeof(a)), want1[i]);
        close(fd);
    }
    /* without --source nothing is bound */
    struct lg_config none;
    memset(&none, 0, sizeof(none));
    w0.cfg = &none;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_int_equal(lg_source_bind(&c0, fd, false), 0);
    struct sockaddr_in a;
    socklen_t al = sizeof(a);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    assert_int_equal(a.sin_port, 0);
    close(fd);
    free(cfg.sources);
}

static void test_ramp_moments_are_even_and_exact(void **state)
{
    const uint64_t s = 1000000000ull;
    assert_int_equal(lg_ramp_offset_ns(s, 0, 10), 0);
    assert_int_equal(lg_ramp_offset_ns(s, 1, 10), s / 10);
    assert_int_equal(lg_ramp_offset_ns(s, 9, 10), 9 * s / 10);
    /* an hour over ten million clients: no 64-bit overflow */
    assert_int_equal(lg_ramp_offset_ns(3600 * s, 9999999, 10000000), 3600 * s - 360000);
    assert_int_equal(lg_ramp_offset_ns(s, 0, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists_and_single_addresses),
        cmocka_unit_test(test_cidr_blocks_give_their_hosts),
        cmocka_unit_test(test_bad_lists_are_refused_with_the_reason),
        cmocka_unit_test(test_local_check_names_the_first_foreign_address),
        cmocka_unit_test(test_bind_takes_the_addresses_in_turn),
        cmocka_unit_test(test_ramp_moments_are_even_and_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
