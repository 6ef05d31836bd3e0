/* test_report.c — the report's small pieces: people's numbers (thousands
 * separators, three significant digits, binary units, SVG coordinates),
 * escaping of untrusted text (into nothing XML 1.0 refuses), the percentile
 * curve's points along 1/(1-p), requests per CPU second of a watched tree,
 * a level's rate over the seconds it ran, and the A/B verdict in words. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stats/math/cpuwork.h"
#include "stats/write/htmlout.h"
#include "stats/read/metrickind.h"
#include "stats/compare/plainverdict.h"
#include "stats/report/reportrun.h"

static void test_counts_have_thousands_separators(void **state)
{
    (void)state;
    char buf[HTML_NUMBER_MAX];
    assert_string_equal(html_count(0, buf), "0");
    assert_string_equal(html_count(999, buf), "999");
    assert_string_equal(html_count(1000, buf), "1,000");
    assert_string_equal(html_count(1234567, buf), "1,234,567");
    assert_string_equal(html_count(-1234567, buf), "-1,234,567");
    assert_string_equal(html_count(NAN, buf), "n/a");
}

static void test_values_keep_three_significant_digits(void **state)
{
    (void)state;
    char buf[HTML_NUMBER_MAX];
    assert_string_equal(html_value(12345.6, buf), "12,346");
    assert_string_equal(html_value(123.4, buf), "123");
    assert_string_equal(html_value(12.34, buf), "12.3");
    assert_string_equal(html_value(1.234, buf), "1.23");
    assert_string_equal(html_value(0.01234, buf), "0.0123");
    assert_string_equal(html_value(0, buf), "0");
    assert_string_equal(html_value(INFINITY, buf), "n/a");
}

static void test_bytes_in_binary_units(void **state)
{
    (void)state;
    char buf[HTML_NUMBER_MAX];
    assert_string_equal(html_bytes(512, buf), "512 B");
    assert_string_equal(html_bytes(12.3 * 1024, buf), "12.3 KiB");
    assert_string_equal(html_bytes(1.5 * 1024 * 1024 * 1024, buf), "1.50 GiB");
}

static void test_coordinates_are_short(void **state)
{
    (void)state;
    char buf[HTML_NUMBER_MAX];
    assert_string_equal(html_coord(12.0, buf), "12");
    assert_string_equal(html_coord(12.54, buf), "12.5");
    assert_string_equal(html_coord(-0.01, buf), "0");
    assert_string_equal(html_coord(NAN, buf), "0");
}

static void test_untrusted_text_is_escaped(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    html_text(out, "<script>a & \"b\" 'c'\x01\x1f\tz</script>");
    fclose(out);
    assert_string_equal(text,
                        "&lt;script&gt;a &amp; &quot;b&quot; &#39;c&#39;??\tz&lt;/script&gt;");
    free(text);
}

/* Each character XML 1.0 cannot hold goes as '?', and so does each byte of
 * broken UTF-8; whole characters beyond ASCII go as they are. */
static void test_text_is_always_xml(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xef\xbf\xbd", /* é中😀 U+FFFD */
         "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xef\xbf\xbd"},
        {"key\xe4\xb8", "key??"},           /* cut inside a character */
        {"a\xe4\xb8z", "a??z"},             /* and text goes on after it */
        {"\xef\xbf\xbe\xef\xbf\xbf", "??"}, /* U+FFFE, U+FFFF */
        {"\xc0\xaf\xed\xa0\x80", "?????"},  /* an overlong '/', a surrogate */
        {"\xbf\xf8", "??"},                 /* a lone continuation, a lead no character has */
        {"\x7f\xc2\x85", "\x7f\xc2\x85"},   /* DEL and U+0085 are XML characters */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        assert_non_null(out);
        html_text(out, cases[i].in);
        fclose(out);
        assert_string_equal(text, cases[i].out);
        free(text);
    }
}

static void test_a_curve_steps_along_the_nines_and_ends_at_its_count(void **state)
{
    (void)state;
    enum { N = 1000 };
    double *samples = malloc(N * sizeof *samples);
    assert_non_null(samples);
    for (int i = 0; i < N; i++)
        samples[i] = (double)(N - i); /* 1..1000, unsorted */
    struct report_curve *curve = malloc(sizeof *curve);
    assert_non_null(curve);
    report_curve_fill(curve, samples, N);
    assert_true(curve->present);
    assert_int_equal(curve->n, N);
    /* 24 steps a decade from 1 to 1000 (x = 10^(k/24), k = 0..72): 73 points */
    assert_int_equal(curve->points, 3 * REPORT_CURVE_STEPS_PER_DECADE + 1);
    assert_true(curve->x[0] == 1.0);
    assert_true(fabs(curve->x[curve->points - 1] - 1000.0) < 1e-9);
    assert_true(curve->y[0] == 1.0); /* p = 0: the minimum */
    assert_true(fabs(curve->p50 - 500.5) < 1e-9);
    assert_true(curve->max == 1000.0);
    for (size_t i = 1; i < curve->points; i++) {
        assert_true(curve->x[i] > curve->x[i - 1]);
        assert_true(curve->y[i] >= curve->y[i - 1]);
    }
    report_curve_fill(curve, samples, 0);
    assert_false(curve->present);
    free(curve);
    free(samples);
}

static void test_requests_per_cpu_second(void **state)
{
    (void)state;
    const char *name;
    size_t len;
    assert_true(stats_watch_tree_cpu("watch.nginx.cpu_s", &name, &len));
    assert_int_equal(len, 5);
    assert_memory_equal(name, "nginx", 5);
    assert_false(stats_watch_tree_cpu("watch.nginx.nginx.cpu_s", &name, &len));
    assert_false(stats_watch_tree_cpu("watch.nginx.rss_bytes", &name, &len));
    assert_false(stats_watch_tree_cpu("watch..cpu_s", &name, &len)); /* no name */
    assert_true(stats_requests_per_cpu_second(1000, 0.5) == 2000);
    assert_true(isnan(stats_requests_per_cpu_second(1000, 0)));
    assert_true(isnan(stats_requests_per_cpu_second(NAN, 1)));
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static void read_level(const char *dir, const char *name, struct report_run *run,
                       const struct report_level **level)
{
    char path[512], error[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (report_run_read(path, NULL, run, error, sizeof error) != 0) fail_msg("%s: %s", path, error);
    *level = report_run_level(run, 8);
    assert_non_null(*level);
}

/* An interrupted level's rate is over the seconds it ran: the seconds of its
 * --duration it never ran are no zeros of its timeline, whether the document
 * says how long it ran (ran_s) or only its descriptor does (a generator's
 * document before ran_s, its timeline padded to the planned length). */
static void test_a_level_s_rate_is_over_the_seconds_it_ran(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_report.XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "new.json",
               "{\"metrics\": {\"c8.ran_s\": {\"unit\": \"seconds\", \"samples\": [2.47]},\n"
               "\"c8.requests_per_second\": {\"unit\": \"requests_per_second\", "
               "\"samples\": [10000, 11000]}}}\n");
    char old[2048] = "{\"metrics\": {\"c8.requests_per_second\": {\"unit\": "
                     "\"requests_per_second\", \"samples\": [10000, 11000, 5000";
    for (int i = 3; i < 60; i++)
        strcat(old, ", 0");
    strcat(old, "]}, \"c8.errors_per_second\": {\"unit\": \"requests_per_second\", \"samples\": "
                "[0, 0, 0, 0, 0]}}}\n");
    write_file(dir, "old.json", old);
    write_file(dir, "old.meta.json",
               "{\"levels\": [{\"clients\": 8, \"seconds\": 2.47, \"interrupted\": true}]}\n");
    write_file(dir, "short.json",
               "{\"metrics\": {\"c8.ran_s\": {\"unit\": \"seconds\", \"samples\": [0.4]},\n"
               "\"c8.requests_per_second\": {\"unit\": \"requests_per_second\", "
               "\"samples\": [500]}}}\n");
    static const char *const names[] = {"new.json", "old.json"};
    for (size_t i = 0; i < 2; i++) {
        struct report_run run;
        const struct report_level *level;
        read_level(dir, names[i], &run, &level);
        assert_int_equal(level->rps_len, 2);
        assert_true(report_level_rps(level) == 10500);
        assert_true(report_level_seconds(&run, level) == 2.47);
        if (i == 1) assert_int_equal(level->eps_len, 2);
        report_run_free(&run);
    }
    struct report_run run;
    const struct report_level *level;
    read_level(dir, "short.json", &run, &level);
    assert_int_equal(level->rps_len, 1);
    assert_true(report_level_rps(level) == 500 && report_level_seconds(&run, level) == 0.4);
    report_run_free(&run);
    static const char *const files[] = {"new.json", "old.json", "old.meta.json", "short.json"};
    for (size_t i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* A row as compare makes it: the move, the interval, the runs, the
 * direction from the table of metric kinds, judged by stats_judge. */
static struct stats_compare_row judged(const char *key, enum stats_unit unit, double base,
                                       double current, double low, double high, size_t runs)
{
    struct stats_compare_row row = {.key = key, .unit = unit, .counted = true};
    struct stats_comparison *c = &row.result;
    stats_comparison_move(c, base, current);
    c->ratio_low = low;
    c->ratio_high = high;
    c->base_runs = c->new_runs = c->base_given = c->new_given = runs;
    struct stats_metric_info info;
    stats_metric_info(key, unit, &info);
    c->lower_is_worse = info.lower_is_worse;
    c->directionless = info.directionless;
    const struct stats_thresholds thresholds = STATS_THRESHOLDS_DEFAULT;
    stats_judge(c, unit, &thresholds);
    return row;
}

static void verdict_of(struct stats_compare_row *rows, size_t n, const char *opening,
                       const char *clauses)
{
    const struct stats_compare_report report = {.rows = rows, .n_rows = n};
    const struct stats_compare_settings settings = STATS_COMPARE_SETTINGS_DEFAULT;
    char got_opening[160], got_clauses[1024];
    stats_plain_verdict(&report, &settings, got_opening, sizeof got_opening, got_clauses,
                        sizeof got_clauses);
    assert_string_equal(got_opening, opening);
    assert_string_equal(got_clauses, clauses);
}

/* The words follow compare's verdicts, row by row: a real move with its
 * interval, noise with what would settle it, a move below the time
 * resolution, the rest together within the factor. */
static void test_the_verdict_puts_compare_s_rows_in_words(void **state)
{
    (void)state;
    struct stats_compare_row slower[] = {
        judged("c4.latency_warm_ms", STATS_UNIT_MILLISECONDS, 10, 13.1, 1.22, 1.41, 2),
        judged("c4.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, 1000, 800, 0.5, 1.3, 2),
        judged("c4.errors", STATS_UNIT_COUNT, 0, 0, 1, 1, 2),
        judged("c4.connect_ms", STATS_UNIT_MILLISECONDS, 5, 5.1, 0.9, 1.1, 2),
    };
    assert_int_equal(slower[0].result.verdict, STATS_VERDICT_REGRESSED);
    assert_int_equal(slower[1].result.verdict, STATS_VERDICT_NOISY);
    verdict_of(slower, 4, "new is slower",
               "warm p50 +31% [+22%, +41%]; throughput not distinguishable from noise with 2 "
               "runs a side: run more");

    struct stats_compare_row same[] = {
        judged("c4.latency_warm_ms", STATS_UNIT_MILLISECONDS, 10, 10.2, 0.95, 1.08, 3),
        judged("c4.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, 1000, 990, 0.97, 1.01, 3),
        judged("c4.latency_cold_ms", STATS_UNIT_MILLISECONDS, 0.2, 0.3, 1.3, 1.7, 3),
    };
    assert_int_equal(same[2].result.verdict, STATS_VERDICT_TINY);
    verdict_of(same, 3, "no real difference", "warm p50 and throughput within x1.1");

    /* several levels: each clause names its level; a row that is not a
     * headline is said only when it moved for real */
    struct stats_compare_row mixed[] = {
        judged("c1.latency_warm_ms", STATS_UNIT_MILLISECONDS, 0.1, 0.3, 2.5, 3.5, 1),
        judged("c1.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, 100, 150, 1.4, 1.6, 1),
        judged("c64.latency_cold_ms", STATS_UNIT_MILLISECONDS, 50, 20, 0.3, 0.5, 1),
        judged("c64.connect_ms", STATS_UNIT_MILLISECONDS, 30, 10, 0.3, 0.4, 1),
        judged("c64.errors", STATS_UNIT_COUNT, 0, 12, NAN, NAN, 1),
    };
    assert_int_equal(mixed[0].result.verdict, STATS_VERDICT_TINY);
    verdict_of(mixed, 5, "new is faster",
               "c1 warm p50 +200% but under 1 ms; c1 throughput +50% [+40%, +60%]; c64 cold p50 "
               "-60% [-70%, -50%]; c64 errors 0 → 12: the base can be 0, so there is no ratio to "
               "judge; c64 connect_ms p50 -67% [-70%, -60%]");

    struct stats_compare_row worse[] = {
        judged("c8.latency_warm_ms", STATS_UNIT_MILLISECONDS, 10, 10, 0.99, 1.01, 2),
        judged("c8.errors", STATS_UNIT_COUNT, 10, 40, 3, 5, 2),
    };
    verdict_of(worse, 2, "new is worse", "errors +300% [+200%, +400%]; warm p50 within x1.1");
    verdict_of(NULL, 0, "nothing to compare: base and new have no metric in common", "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_have_thousands_separators),
        cmocka_unit_test(test_values_keep_three_significant_digits),
        cmocka_unit_test(test_bytes_in_binary_units),
        cmocka_unit_test(test_coordinates_are_short),
        cmocka_unit_test(test_untrusted_text_is_escaped),
        cmocka_unit_test(test_text_is_always_xml),
        cmocka_unit_test(test_a_curve_steps_along_the_nines_and_ends_at_its_count),
        cmocka_unit_test(test_requests_per_cpu_second),
        cmocka_unit_test(test_a_level_s_rate_is_over_the_seconds_it_ran),
        cmocka_unit_test(test_the_verdict_puts_compare_s_rows_in_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
