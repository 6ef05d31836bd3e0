/* The --targets file: vegeta's text format as it is written (blocks with or
 * without blank lines between them, comments, CRLF, inline and file bodies),
 * and every refusal naming FILE:LINE and what is wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "httpload/targets.h"

static int parse(const char *text, struct target_list *l, char *err, size_t errlen)
{
    return targets_parse(text, strlen(text), "t.txt", l, err, errlen);
}

static void vegeta_example_parses(void **state)
{
    const char *text = "GET http://goku:9090/path/to/dragon?item=ball\n"
                       "X-Account-ID: 8675309\n"
                       "\n"
                       "DELETE http://goku:9090/path/to/remove\n"
                       "Confirmation-Token: 90215\n"
                       "Authorization: Token DEADBEEF\n"
                       "\n"
                       "POST http://goku:9090/things\n"
                       "@/path/to/newthing.json\n";
    struct target_list l;
    char err[256] = "";
    assert_int_equal(parse(text, &l, err, sizeof(err)), 0);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.t[0].line, 1);
    assert_string_equal(l.t[0].method, "GET");
    assert_string_equal(l.t[0].url.target, "/path/to/dragon?item=ball");
    assert_int_equal(l.t[0].url.port, 9090);
    assert_int_equal(l.t[0].n_headers, 1);
    assert_string_equal(l.t[0].headers[0], "X-Account-ID: 8675309");
    assert_int_equal(l.t[1].line, 4);
    assert_string_equal(l.t[1].method, "DELETE");
    assert_int_equal(l.t[1].n_headers, 2);
    assert_string_equal(l.t[1].headers[1], "Authorization: Token DEADBEEF");
    assert_int_equal(l.t[2].line, 8);
    assert_string_equal(l.t[2].body_path, "/path/to/newthing.json");
    assert_int_equal(l.t[2].body_line, 9);
    assert_null(l.t[2].body); /* named, read by targets_load */
    targets_free(&l);
}

static void blocks_without_blank_lines_comments_crlf_and_spaces(void **state)
{
    const char *text = "# a comment first\r\n"
                       "  GET http://h/a  \r\n"
                       "X-A:   one  \r\n"
                       "# a comment in a block\r\n"
                       "Accept:\r\n"
                       "PURGE\thttp://H:80/b\r\n"
                       "M-SEARCH http://h/c\r\n"
                       "\r\n"
                       "\r\n";
    struct target_list l;
    char err[256] = "";
    assert_int_equal(parse(text, &l, err, sizeof(err)), 0);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.t[0].line, 2);
    assert_string_equal(l.t[0].headers[0], "X-A: one");
    assert_string_equal(l.t[0].headers[1], "Accept: "); /* "K:" removes a default */
    assert_string_equal(l.t[1].method, "PURGE");
    assert_int_equal(l.t[1].line, 6);
    assert_string_equal(l.t[2].method, "M-SEARCH");
    targets_free(&l);
}

static void inline_bodies(void **state)
{
    const char *text = "POST http://h/a\n"
                       "Content-Type: application/json\n"
                       "@<<END\n"
                       "{\"a\": 1,\r\n"
                       "  \"b\": 2}\n"
                       "END\n"
                       "PUT http://h/b\n"
                       "@<< E\n"
                       "E\n";
    struct target_list l;
    char err[256] = "";
    assert_int_equal(parse(text, &l, err, sizeof(err)), 0);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.t[0].body_len, 19);
    assert_memory_equal(l.t[0].body, "{\"a\": 1,\n  \"b\": 2}\n", 19);
    assert_int_equal(l.t[0].body_line, 3);
    assert_int_equal(l.t[1].line, 7); /* lines count on through the body */
    assert_non_null(l.t[1].body);     /* an empty body is a body: Content-Length 0 */
    assert_int_equal(l.t[1].body_len, 0);
    targets_free(&l);
}

/* Each bad file: the message names the file, the line and the problem. */
static void refusals_name_file_line_and_problem(void **state)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"X-A: 1\n", "t.txt:1: 'X-A: 1' is not a request line"},
        {"get http://h/\n", "t.txt:1: 'get http://h/' is not a request line"},
        {"GET\n", "t.txt:1: 'GET' is not a request line"},
        {"GET http://h/\nnot a header\n", "t.txt:2: 'not a header' is not a request line (METHOD"},
        {"GET http://h/\nBad Name: x\n", "t.txt:2: 'Bad Name: x' is not"},
        {"GET http://h/ extra\n", "t.txt:1: 'GET http://h/ extra': expected 'METHOD URL'"},
        {"GET http://h/\n@\n", "t.txt:2: '@' names no body file"},
        {"GET http://h/\n@<<\n", "t.txt:2: '@<<' names no end tag"},
        {"GET http://h/\n@b.json\nX-A: 1\n", "t.txt:3: 'X-A: 1' after the body"},
        {"GET http://h/\n@<<EOF\nx\n", "t.txt:2: '@<<EOF' is never closed by a line 'EOF'"},
        {"GET http://a/\n\nGET https://a/\n", "t.txt:3: 'https://a/' is not http like the first"},
        {"GET https://a/\nGET http://b/\n", "t.txt:2: 'http://b/' is not https like the first"},
        {"GET ftp://a/\n", "t.txt:1: URL 'ftp://a/': unsupported scheme"},
        {"GET http:///x\n", "t.txt:1: URL 'http:///x': missing host"},
        {"GET http://h/\nX-A: a\x01z\n", "t.txt:2: header 'X-A' has a control character"},
        {"", "t.txt: no targets"},
        {"# nothing but comments\n\n   \n", "t.txt: no targets"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct target_list l;
        char err[256] = "";
        assert_int_equal(parse(cases[i].text, &l, err, sizeof(err)), -1);
        if (!strstr(err, cases[i].want))
            fail_msg("case %zu: got '%s', wanted '%s'", i, err, cases[i].want);
        assert_null(strchr(err, '\n'));
        assert_int_equal(l.n, 0);
    }
}

static void nul_byte_and_long_lines_stay_one_line(void **state)
{
    static const char text[] = "GET http://h/\0\n";
    struct target_list l;
    char err[256] = "";
    assert_int_equal(targets_parse(text, sizeof(text) - 1, "t.txt", &l, err, sizeof(err)), -1);
    assert_string_equal(err, "t.txt:1: a NUL byte (is this a text file?)");
    char line[400];
    memset(line, 'x', sizeof(line));
    memcpy(line, "GET http://h/\n\x7f", 15);
    line[sizeof(line) - 1] = '\0';
    assert_int_equal(parse(line, &l, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "t.txt:2: '?xxx"));
    assert_non_null(strstr(err, "...'"));
}

static void same_origin_with_default_port_and_host_case(void **state)
{
    struct target_list l;
    char err[256] = "";
    assert_int_equal(
        parse("GET http://Host.test/\nHEAD http://host.TEST:80/x\n", &l, err, sizeof(err)), 0);
    assert_int_equal(l.n, 2);
    targets_free(&l);
}

/* Targets on other hosts and ports of the first's scheme are taken: a
 * client switches its connection between their origins. */
static void other_hosts_and_ports_of_the_same_scheme(void **state)
{
    struct target_list l;
    char err[256] = "";
    assert_int_equal(parse("GET https://a.test/\nGET https://b.test/\nGET https://a.test:8443/\n",
                           &l, err, sizeof(err)),
                     0);
    assert_int_equal(l.n, 3);
    assert_string_equal(l.t[1].url.host, "b.test");
    assert_int_equal(l.t[2].url.port, 8443);
    targets_free(&l);
}

static void load_reads_body_files_and_names_the_line_of_a_missing_one(void **state)
{
    char dir[] = "/tmp/test_targets.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char list[300], body[300];
    snprintf(list, sizeof(list), "%s/list.txt", dir);
    snprintf(body, sizeof(body), "%s/body.bin", dir);
    FILE *f = fopen(body, "wb");
    assert_non_null(f);
    fwrite("abc\0def", 1, 7, f);
    fclose(f);
    f = fopen(list, "w");
    assert_non_null(f);
    fprintf(f, "POST http://h/a\n@%s\n\nPOST http://h/b\nX: 1\n@%s/missing.bin\n", body, dir);
    fclose(f);
    struct target_list l;
    char err[512] = "";
    assert_int_equal(targets_load(list, &l, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "list.txt:6: cannot read the body file '"));
    assert_non_null(strstr(err, "missing.bin': No such file or directory"));
    f = fopen(list, "w");
    assert_non_null(f);
    fprintf(f, "POST http://h/a\n@%s\n", body);
    fclose(f);
    assert_int_equal(targets_load(list, &l, err, sizeof(err)), 0);
    assert_int_equal(l.t[0].body_len, 7);
    assert_memory_equal(l.t[0].body, "abc\0def", 7);
    targets_free(&l);
    unlink(list);
    unlink(body);
    rmdir(dir);
    assert_int_equal(targets_load("/nonexistent/list.txt", &l, err, sizeof(err)), -1);
    assert_string_equal(err, "/nonexistent/list.txt: No such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vegeta_example_parses),
        cmocka_unit_test(blocks_without_blank_lines_comments_crlf_and_spaces),
        cmocka_unit_test(inline_bodies),
        cmocka_unit_test(refusals_name_file_line_and_problem),
        cmocka_unit_test(nul_byte_and_long_lines_stay_one_line),
        cmocka_unit_test(same_origin_with_default_port_and_host_case),
        cmocka_unit_test(other_hosts_and_ports_of_the_same_scheme),
        cmocka_unit_test(load_reads_body_files_and_names_the_line_of_a_missing_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
