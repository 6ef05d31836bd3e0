/* test_dns_queries.c — dnsload's query input: the `name TYPE` line parser,
 * query types both ways, query files with their file:line errors, the packets
 * c-ares encodes (RD, EDNS, DO, ID 0) and the DoH GET targets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dnsload/qtype.h"
#include "dnsload/queries.h"

static void test_qtype_mnemonics_and_numbers(void **state)
{
    uint16_t t;
    assert_int_equal(dns_qtype_parse("A", &t), 0);
    assert_int_equal(t, 1);
    assert_int_equal(dns_qtype_parse("aaaa", &t), 0);
    assert_int_equal(t, 28);
    assert_int_equal(dns_qtype_parse("HTTPS", &t), 0);
    assert_int_equal(t, 65);
    assert_int_equal(dns_qtype_parse("SVCB", &t), 0);
    assert_int_equal(t, 64);
    assert_int_equal(dns_qtype_parse("CAA", &t), 0);
    assert_int_equal(t, 257);
    assert_int_equal(dns_qtype_parse("NSAP-PTR", &t), 0);
    assert_int_equal(t, 23);
    assert_int_equal(dns_qtype_parse("type65", &t), 0);
    assert_int_equal(t, 65);
    assert_int_equal(dns_qtype_parse("TYPE0", &t), 0);
    assert_int_equal(t, 0);
    assert_int_equal(dns_qtype_parse("TYPE65535", &t), 0);
    assert_int_equal(t, 65535);
    assert_int_equal(dns_qtype_parse("TYPE65536", &t), -1);
    assert_int_equal(dns_qtype_parse("TYPE", &t), -1);
    assert_int_equal(dns_qtype_parse("TYPE1x", &t), -1);
    assert_int_equal(dns_qtype_parse("AAA", &t), -1);
    assert_int_equal(dns_qtype_parse("OPT", &t), -1);
    assert_int_equal(dns_qtype_parse("", &t), -1);
    char buf[16];
    assert_string_equal(dns_qtype_name(65, buf, sizeof(buf)), "HTTPS");
    assert_string_equal(dns_qtype_name(255, buf, sizeof(buf)), "ANY");
    assert_string_equal(dns_qtype_name(999, buf, sizeof(buf)), "TYPE999");
}

static int parse(const char *text, const char **name, uint16_t *type, char *err)
{
    static char line[256];
    snprintf(line, sizeof(line), "%s", text);
    return dns_parse_query_line(line, name, type, err, 200);
}

static void test_query_lines(void **state)
{
    const char *name;
    uint16_t type;
    char err[200];
    assert_int_equal(parse("www.example.com A\n", &name, &type, err), 1);
    assert_string_equal(name, "www.example.com");
    assert_int_equal(type, 1);
    assert_int_equal(parse("  example.com\t MX  \r\n", &name, &type, err), 1);
    assert_string_equal(name, "example.com");
    assert_int_equal(type, 15);
    assert_int_equal(parse("\n", &name, &type, err), 0);
    assert_int_equal(parse("   \t\n", &name, &type, err), 0);
    assert_int_equal(parse("# a comment A\n", &name, &type, err), 0);
    assert_int_equal(parse("  ;also a comment\n", &name, &type, err), 0);
    assert_int_equal(parse("example.com\n", &name, &type, err), -1);
    assert_non_null(strstr(err, "no query type"));
    assert_int_equal(parse("example.com A IN\n", &name, &type, err), -1);
    assert_non_null(strstr(err, "unexpected 'IN'"));
    assert_int_equal(parse("example.com AAA\n", &name, &type, err), -1);
    assert_non_null(strstr(err, "unknown query type 'AAA'"));
}

static void test_packet_defaults_rd_set_id_zero_no_edns(void **state)
{
    struct dns_query_list l = {0};
    struct dns_encode_opts o = {.rd = true};
    char err[200];
    assert_int_equal(dns_queries_add(&l, "www.example.com", 1, &o, err, sizeof(err)), 0);
    assert_int_equal(l.n, 1);
    const uint8_t *p = dns_query_packet(&l, 0);
    const uint8_t *f = dns_query_framed(&l, 0);
    size_t len = l.q[0].len;
    assert_int_equal(len, 12 + 17 + 4);
    assert_int_equal(f[0] << 8 | f[1], len); /* TCP length prefix */
    assert_int_equal(p[0] | p[1], 0);        /* ID 0 */
    assert_int_equal(p[2], 0x01);            /* RD */
    assert_int_equal(p[5], 1);               /* QDCOUNT */
    assert_int_equal(p[11], 0);              /* ARCOUNT: no OPT */
    assert_int_equal(l.q[0].question_len, 17 + 4);
    assert_memory_equal(dns_query_question(&l, 0), "\3www\7example\3com\0\0\1\0\1", 21);
    assert_int_equal(l.max_len, len);
    dns_queries_free(&l);
}

static void test_packet_no_rd_edns_and_do(void **state)
{
    struct dns_query_list l = {0};
    char err[200];
    struct dns_encode_opts no_rd = {.rd = false};
    struct dns_encode_opts edns = {.rd = true, .edns_size = 1232};
    struct dns_encode_opts dnssec = {.rd = true, .edns_size = 4096, .dnssec = true};
    assert_int_equal(dns_queries_add(&l, "example.com", 28, &no_rd, err, sizeof(err)), 0);
    assert_int_equal(dns_queries_add(&l, "example.com", 28, &edns, err, sizeof(err)), 0);
    assert_int_equal(dns_queries_add(&l, "example.com.", 48, &dnssec, err, sizeof(err)), 0);
    assert_int_equal(dns_query_packet(&l, 0)[2], 0x00);
    for (size_t i = 1; i < 3; i++) {
        const uint8_t *p = dns_query_packet(&l, i);
        size_t len = l.q[i].len;
        assert_int_equal(p[11], 1); /* ARCOUNT */
        const uint8_t *opt = p + len - 11;
        assert_int_equal(opt[0], 0);
        assert_int_equal(opt[1] << 8 | opt[2], 41);
        assert_int_equal(opt[3] << 8 | opt[4], i == 1 ? 1232 : 4096);
        assert_int_equal(opt[7] & 0x80, i == 1 ? 0 : 0x80); /* DO */
        /* the question excludes the OPT record */
        assert_int_equal(l.q[i].question_len, len - 12 - 11);
    }
    /* the trailing dot makes no difference to the question */
    assert_memory_equal(dns_query_question(&l, 2), "\7example\3com\0\0\x30\0\1", 17);
    dns_queries_free(&l);
}

static void test_bad_names_are_refused(void **state)
{
    struct dns_query_list l = {0};
    struct dns_encode_opts o = {.rd = true};
    char err[200], label[80];
    memset(label, 'a', 70);
    strcpy(label + 70, ".com");
    assert_int_equal(dns_queries_add(&l, label, 1, &o, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot encode"));
    assert_int_equal(dns_queries_add_text(&l, "only-a-name", &o, err, sizeof(err)), -1);
    assert_int_equal(dns_queries_add_text(&l, "# comment", &o, err, sizeof(err)), -1);
    assert_int_equal(l.n, 0);
    dns_queries_free(&l);
}

static char *write_temp(const char *text)
{
    static char path[64];
    strcpy(path, "/tmp/test_dns_queries.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void test_query_file(void **state)
{
    struct dns_query_list l = {0};
    struct dns_encode_opts o = {.rd = true};
    char err[400];
    char *path = write_temp("# queries\n\nwww.example.com A\n; other comment\n"
                            "example.com MX\nexample.com TYPE65");
    assert_int_equal(dns_queries_load(&l, path, &o, err, sizeof(err)), 0);
    assert_int_equal(l.n, 3);
    unlink(path);
    dns_queries_free(&l);

    path = write_temp("www.example.com A\n\nexample.com AAA\n");
    assert_int_equal(dns_queries_load(&l, path, &o, err, sizeof(err)), -1);
    char want[100];
    snprintf(want, sizeof(want), "%s:3: unknown query type 'AAA'", path);
    assert_non_null(strstr(err, want));
    unlink(path);
    dns_queries_free(&l);

    assert_int_equal(dns_queries_load(&l, "/nonexistent/queries", &o, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "/nonexistent/queries: No such file"));
    dns_queries_free(&l);
}

static void test_base64url(void **state)
{
    char out[16];
    assert_int_equal(dns_base64url((const uint8_t *)"", 0, out), 0);
    assert_string_equal(out, "");
    dns_base64url((const uint8_t *)"f", 1, out);
    assert_string_equal(out, "Zg");
    dns_base64url((const uint8_t *)"fo", 2, out);
    assert_string_equal(out, "Zm8");
    dns_base64url((const uint8_t *)"foo", 3, out);
    assert_string_equal(out, "Zm9v");
    dns_base64url((const uint8_t *)"foob", 4, out);
    assert_string_equal(out, "Zm9vYg");
    dns_base64url((const uint8_t *)"\xfb\xff", 2, out);
    assert_string_equal(out, "-_8");
}

static void test_doh_get_target_matches_rfc8484(void **state)
{
    struct dns_query_list l = {0};
    struct dns_encode_opts o = {.rd = true};
    char err[200];
    assert_int_equal(dns_queries_add(&l, "www.example.com", 1, &o, err, sizeof(err)), 0);
    assert_int_equal(dns_queries_add(&l, "example.com", 1, &o, err, sizeof(err)), 0);
    assert_int_equal(dns_queries_build_get(&l, "/dns-query"), 0);
    /* RFC 8484 section 4.1.1: the same query, ID 0, RD set */
    assert_string_equal(dns_query_get_path(&l, 0),
                        "/dns-query?dns=AAABAAABAAAAAAAAA3d3dwdleGFtcGxlA2NvbQAAAQAB");
    assert_int_equal(strncmp(dns_query_get_path(&l, 1), "/dns-query?dns=AAAB", 19), 0);
    assert_int_equal(dns_queries_build_get(&l, "/q?x=1"), 0);
    assert_int_equal(strncmp(dns_query_get_path(&l, 0), "/q?x=1&dns=AAAB", 15), 0);
    dns_queries_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qtype_mnemonics_and_numbers),
        cmocka_unit_test(test_query_lines),
        cmocka_unit_test(test_packet_defaults_rd_set_id_zero_no_edns),
        cmocka_unit_test(test_packet_no_rd_edns_and_do),
        cmocka_unit_test(test_bad_names_are_refused),
        cmocka_unit_test(test_query_file),
        cmocka_unit_test(test_base64url),
        cmocka_unit_test(test_doh_get_target_matches_rfc8484),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
