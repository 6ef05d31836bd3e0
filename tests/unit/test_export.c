/* test_export.c — the export formats on small inputs whose output is known:
 * HdrHistogram's percentile layout (levels, end, footer), RFC 4180 quoting,
 * and the OpenMetrics families (types, suffixes, units, clashes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/write/csvout.h"
#include "stats/write/hgrm.h"
#include "stats/write/openmetrics.h"

struct capture {
    FILE *f;
    char *text;
    size_t len;
};

static void capture_open(struct capture *c)
{
    c->text = NULL;
    c->f = open_memstream(&c->text, &c->len);
    assert_non_null(c->f);
}

static const char *capture_close(struct capture *c)
{
    fclose(c->f);
    return c->text;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

static void test_hgrm_of_one_sample_is_two_lines(void **state)
{
    struct capture c;
    capture_open(&c);
    stats_hgrm_write(c.f, (double[]){2.5}, 1, 5, 3);
    const char *text = capture_close(&c);
    assert_string_equal(text, "       Value     Percentile TotalCount 1/(1-Percentile)\n"
                              "\n"
                              "       2.500 0.000000000000          1           1.00\n"
                              "       2.500 1.000000000000          1\n"
                              "#[Mean    =        2.500, StdDeviation   =        0.000]\n"
                              "#[Max     =        2.500, Total count    =            1]\n"
                              "#[Buckets =            1, SubBuckets     =            1]\n");
    free(c.text);
}

static void test_hgrm_levels_and_values_of_one_to_hundred(void **state)
{
    double samples[100];
    for (int i = 0; i < 100; i++)
        samples[i] = i + 1;
    struct capture c;
    capture_open(&c);
    stats_hgrm_write(c.f, samples, 100, 5, 2);
    const char *text = capture_close(&c);
    /* levels 0, 10, ..., 50 (5 per half), 55..75 by 5, 77.5..87.5 by 2.5, ...; the
     * nearest rank reaches 100 at the first level above 99: 99.0625 */
    assert_non_null(strstr(text, "\n        1.00 0.000000000000          1           1.00\n"));
    assert_non_null(strstr(text, "\n       10.90 0.100000000000         10           1.11\n"));
    assert_non_null(strstr(text, "\n       50.50 0.500000000000         50           2.00\n"));
    assert_non_null(strstr(text, "\n       55.45 0.550000000000         55           2.22\n"));
    assert_non_null(strstr(text, "\n       80.20 0.800000000000         80           5.00\n"));
    assert_non_null(strstr(text, "\n       90.10 0.900000000000         90          10.00\n"));
    assert_non_null(strstr(text, "\n       99.07 0.990625000000         99         106.67\n"
                                 "      100.00 1.000000000000        100\n#"));
    assert_non_null(strstr(text, "#[Mean    =        50.50, StdDeviation   =        28.87]\n"));
    assert_non_null(strstr(text, "#[Buckets =          100, SubBuckets     =            1]\n"));
    free(c.text);
}

static void test_hgrm_stays_bounded_with_many_ticks(void **state)
{
    double samples[] = {1, 1, 1, 1, 2};
    struct capture c;
    capture_open(&c);
    stats_hgrm_write(c.f, samples, 5, 1000, 3);
    const char *text = capture_close(&c);
    /* 1000 ticks per half: levels 0, 0.05, ... until the nearest rank is 2 (above 80%) */
    size_t lines = count_lines(text);
    assert_true(lines > 1000 && lines < 3000);
    assert_non_null(strstr(text, "       1.000 0.000000000000          4           1.00\n"));
    free(c.text);
}

static void test_csv_quotes_only_where_needed(void **state)
{
    struct capture c;
    capture_open(&c);
    stats_csv_field(c.f, "plain_ms");
    putc('|', c.f);
    stats_csv_field(c.f, "a,b");
    putc('|', c.f);
    stats_csv_field(c.f, "say \"hi\"");
    putc('|', c.f);
    stats_csv_field(c.f, "two\nlines");
    assert_string_equal(capture_close(&c), "plain_ms|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"");
    free(c.text);
    capture_open(&c);
    stats_csv_samples_rows(c.f, "c16.ttfb_ms", STATS_UNIT_MILLISECONDS, (double[]){0.25, 3}, 2);
    stats_csv_samples_rows(c.f, "requests", STATS_UNIT_COUNT, (double[]){9}, 1);
    assert_string_equal(capture_close(&c), "16,ttfb_ms,milliseconds,1,0.25\r\n"
                                           "16,ttfb_ms,milliseconds,2,3\r\n"
                                           ",requests,count,1,9\r\n");
    free(c.text);
}

static void om_add(struct stats_om *om, const char *key, enum stats_unit unit, const double *values,
                   size_t n)
{
    double copy[16];
    memcpy(copy, values, n * sizeof *copy);
    char error[256];
    if (stats_om_add(om, key, unit, copy, n, error, sizeof error) != 0)
        fail_msg("%s: %s", key, error);
}

static void test_openmetrics_families(void **state)
{
    struct stats_om om;
    stats_om_init(&om);
    om_add(&om, "c1.attempts", STATS_UNIT_COUNT, (double[]){10}, 1);
    om_add(&om, "c1.lag_ms", STATS_UNIT_MILLISECONDS, (double[]){-1, 3}, 2);
    om_add(&om, "c4.attempts", STATS_UNIT_COUNT, (double[]){40}, 1);
    om_add(&om, "c1.watch.x.rss_bytes", STATS_UNIT_BYTES, (double[]){4, 2}, 2);
    om_add(&om, "c1.retries_total", STATS_UNIT_COUNT, (double[]){1}, 1);
    struct capture c;
    capture_open(&c);
    stats_om_write(c.f, &om);
    const char *text = capture_close(&c);
    /* both levels of attempts in one family, before the next family */
    assert_non_null(strstr(text, "# TYPE loadgen_attempts counter\n"
                                 "# HELP loadgen_attempts attempts (count), exact count of the "
                                 "level\n"
                                 "loadgen_attempts_total{clients=\"1\"} 10\n"
                                 "loadgen_attempts_total{clients=\"4\"} 40\n"
                                 "# TYPE loadgen_lag_ms summary\n"));
    /* negative samples: no _sum (OpenMetrics sums cannot be negative) */
    assert_non_null(strstr(text, "loadgen_lag_ms{clients=\"1\",quantile=\"0.5\"} 1\n"));
    assert_null(strstr(text, "loadgen_lag_ms_sum"));
    assert_non_null(strstr(text, "loadgen_lag_ms_count{clients=\"1\"} 2\n"));
    assert_non_null(strstr(text, "# UNIT loadgen_watch_x_rss_bytes bytes\n"));
    assert_non_null(strstr(text, "loadgen_watch_x_rss_bytes_sum{clients=\"1\"} 6\n"));
    assert_non_null(strstr(text, "# TYPE loadgen_retries counter\n"));
    assert_non_null(strstr(text, "loadgen_retries_total{clients=\"1\"} 1\n"));
    assert_true(strlen(text) > 6 && strcmp(text + strlen(text) - 6, "# EOF\n") == 0);
    free(c.text);
    stats_om_free(&om);
}

static void test_openmetrics_refuses_clashing_names(void **state)
{
    struct stats_om om;
    stats_om_init(&om);
    char error[256];
    om_add(&om, "c1.a.b", STATS_UNIT_MILLISECONDS, (double[]){1}, 1);
    double one[] = {1};
    assert_int_equal(
        stats_om_add(&om, "c1.a_b", STATS_UNIT_MILLISECONDS, one, 1, error, sizeof error), -1);
    assert_non_null(strstr(error, "both become loadgen_a_b"));
    /* a summary x writes x_count: a metric named x_count would write it too */
    om_add(&om, "c1.x", STATS_UNIT_MILLISECONDS, (double[]){1}, 1);
    assert_int_equal(
        stats_om_add(&om, "c1.x_count", STATS_UNIT_MILLISECONDS, one, 1, error, sizeof error), -1);
    assert_non_null(strstr(error, "loadgen_x_count"));
    /* one metric, two units */
    assert_int_equal(stats_om_add(&om, "c2.x", STATS_UNIT_SECONDS, one, 1, error, sizeof error),
                     -1);
    assert_non_null(strstr(error, "milliseconds in one level and seconds"));
    stats_om_free(&om);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hgrm_of_one_sample_is_two_lines),
        cmocka_unit_test(test_hgrm_levels_and_values_of_one_to_hundred),
        cmocka_unit_test(test_hgrm_stays_bounded_with_many_ticks),
        cmocka_unit_test(test_csv_quotes_only_where_needed),
        cmocka_unit_test(test_openmetrics_families),
        cmocka_unit_test(test_openmetrics_refuses_clashing_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
