/* Option value parsers: durations, level lists, numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loadgen/options/options.h"

static void durations_with_units(void **state)
{
    uint64_t ns = 0;
    assert_int_equal(lg_parse_duration("500ms", &ns), 0);
    assert_int_equal(ns, 500000000ull);
    assert_int_equal(lg_parse_duration("10s", &ns), 0);
    assert_int_equal(ns, 10000000000ull);
    assert_int_equal(lg_parse_duration("2m", &ns), 0);
    assert_int_equal(ns, 120000000000ull);
    assert_int_equal(lg_parse_duration("1h", &ns), 0);
    assert_int_equal(ns, 3600000000000ull);
    assert_int_equal(lg_parse_duration("250us", &ns), 0);
    assert_int_equal(ns, 250000ull);
    assert_int_equal(lg_parse_duration("1.5s", &ns), 0);
    assert_int_equal(ns, 1500000000ull);
    assert_int_equal(lg_parse_duration("3", &ns), 0); /* bare number: seconds, as wrk */
    assert_int_equal(ns, 3000000000ull);
}

static void bad_durations_are_refused(void **state)
{
    uint64_t ns = 42;
    const char *bad[] = {"",     "s",     "10x", "-1s", "0",   "0ms", "10 s",
                         " 10s", "1e30s", "nan", "inf", "+5s", "5ss"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(lg_parse_duration(bad[i], &ns), -1);
        assert_int_equal(ns, 42);
    }
}

static void level_lists(void **state)
{
    unsigned *v = NULL;
    size_t n = 0;
    assert_int_equal(lg_parse_levels("1,16,64", &v, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], 16);
    assert_int_equal(v[2], 64);
    free(v);
    assert_int_equal(lg_parse_levels("7", &v, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(v[0], 7);
    free(v);
}

static void bad_level_lists_are_refused(void **state)
{
    unsigned *v = NULL;
    size_t n = 0;
    const char *bad[] = {"",  ",",   "1,",  ",1", "1,,2", "0",          "1,0",
                         "a", "1;2", "1,1", "-1", "1.5",  "99999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(lg_parse_levels(bad[i], &v, &n), -1);
}

static void numbers_and_ranges(void **state)
{
    unsigned long long u;
    double d;
    assert_int_equal(lg_parse_unsigned("8", 1, 10, &u), 0);
    assert_int_equal(u, 8);
    assert_int_equal(lg_parse_unsigned("0", 1, 10, &u), -1);
    assert_int_equal(lg_parse_unsigned("11", 1, 10, &u), -1);
    assert_int_equal(lg_parse_unsigned("-1", 0, 10, &u), -1);
    assert_int_equal(lg_parse_unsigned("3x", 0, 10, &u), -1);
    assert_int_equal(lg_parse_double("0.5", 0, 1, &d), 0);
    assert_true(d == 0.5);
    assert_int_equal(lg_parse_double("1.5", 0, 1, &d), -1);
    assert_int_equal(lg_parse_double("nan", 0, 1, &d), -1);
    assert_int_equal(lg_parse_double("", 0, 1, &d), -1);
}

static void rates_with_suffixes_and_periods(void **state)
{
    static const struct {
        const char *text;
        double per_second;
    } good[] = {
        {"500", 500},   {"0.5", 0.5},     {"5k", 5000},    {"1.5M", 1.5e6},
        {"500/s", 500}, {"5k/s", 5000},   {"30k/1m", 500}, {"50/100ms", 500},
        {"60/m", 1},    {"3600/h", 1},    {"1/1s", 1},     {"2/500ms", 4},
        {"1e3", 1000},  {"0.001", 0.001}, {"1000M", 1e9},  {"7/2", 3.5},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        double r = -1;
        const char *why = NULL;
        assert_int_equal(lg_parse_rate(good[i].text, &r, &why), 0);
        assert_true(r > good[i].per_second * (1 - 1e-12) && r < good[i].per_second * (1 + 1e-12));
    }
}

static void bad_and_ambiguous_rates_are_refused(void **state)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"5m", "ambiguous: m is milli or mega"},
        {"5m/s", "ambiguous: m is milli or mega"},
        {"5K", "ambiguous: K is 1000 or 1024"},
        {"", "not a rate"},
        {"k", "not a rate"},
        {"5x", "not a rate"},
        {"5kk", "not a rate"},
        {"-5", "not a rate"},
        {"+5", "not a rate"},
        {" 5", "not a rate"},
        {"5 ", "not a rate"},
        {"nan", "not a rate"},
        {"inf", "not a rate"},
        {"5/", "not a rate"},
        {"5/x", "not a rate"},
        {"5/0s", "not a rate"},
        {"5/s/s", "not a rate"},
        {"/s", "not a rate"},
        {"0", "not from 0.001 to 1000000000"},
        {"2G", "not a rate"},
        {"2000M", "not from 0.001 to 1000000000"},
        {"1/1h", "not from 0.001 to 1000000000"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        double r = 42;
        const char *why = NULL;
        assert_int_equal(lg_parse_rate(bad[i].text, &r, &why), -1);
        assert_non_null(why);
        assert_non_null(strstr(why, bad[i].why));
        assert_true(r == 42);
    }
}

static void hosts_with_and_without_ports(void **state)
{
    char host[64];
    unsigned long long port = 7;
    assert_int_equal(lg_parse_host_port("127.0.0.1", host, sizeof(host), &port), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 7); /* none given: left as it was */
    assert_int_equal(lg_parse_host_port("127.0.0.1:38053", host, sizeof(host), &port), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 38053);
    assert_int_equal(lg_parse_host_port("ns.example:53", host, sizeof(host), &port), 0);
    assert_string_equal(host, "ns.example");
    assert_int_equal(port, 53);
    port = 7;
    assert_int_equal(lg_parse_host_port("::1", host, sizeof(host), &port), 0); /* bare IPv6 */
    assert_string_equal(host, "::1");
    assert_int_equal(port, 7);
    assert_int_equal(lg_parse_host_port("[::1]", host, sizeof(host), &port), 0);
    assert_string_equal(host, "::1");
    assert_int_equal(port, 7);
    assert_int_equal(lg_parse_host_port("[2001:db8::1]:853", host, sizeof(host), &port), 0);
    assert_string_equal(host, "2001:db8::1");
    assert_int_equal(port, 853);
}

static void bad_hosts_and_ports_are_refused(void **state)
{
    char host[8] = "keep";
    unsigned long long port = 7;
    const char *bad[] = {"",     ":53",    "h:0",    "h:65536", "h:x",
                         "[::1", "[::1]x", "[::1]:", "[]:53",   "a-name-too-long-for-eight"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(lg_parse_host_port(bad[i], host, sizeof(host), &port), -1);
        assert_string_equal(host, "keep");
        assert_int_equal(port, 7);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(durations_with_units),
        cmocka_unit_test(bad_durations_are_refused),
        cmocka_unit_test(level_lists),
        cmocka_unit_test(bad_level_lists_are_refused),
        cmocka_unit_test(numbers_and_ranges),
        cmocka_unit_test(rates_with_suffixes_and_periods),
        cmocka_unit_test(bad_and_ambiguous_rates_are_refused),
        cmocka_unit_test(hosts_with_and_without_ports),
        cmocka_unit_test(bad_hosts_and_ports_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
