/* test_stats.c — every statistic of stats.h against hand-computed values
 * (n = 1, 2, 3, ties, zeros, all equal, heavy tails, samples near the largest
 * double), the harness's rounding at its x.xx5 edges, the unrounded summary
 * it is applied to, the round-trip and table number formatters, and the
 * units a table for people shows a row in. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/write/numfmt.h"
#include "stats/math/stats.h"
#include "stats/read/units.h"

/* Doubles compared exactly: the point is agreeing with the harness to the digit. */
#define assert_double_exact(a, b) assert_true((a) == (b))

static struct stats_summary summarize(double *samples, size_t n)
{
    struct stats_summary s;
    assert_int_equal(stats_summarize(samples, n, &s), 0);
    return s;
}

static void test_empty_input_is_refused(void **state)
{
    struct stats_summary s;
    double one = 1.0;
    assert_int_equal(stats_summarize(&one, 0, &s), -1);
    assert_int_equal(stats_summarize(NULL, 3, &s), -1);
}

static void test_one_sample_is_every_statistic(void **state)
{
    double samples[] = {4.2};
    struct stats_summary s = summarize(samples, 1);
    assert_int_equal(s.n, 1);
    double expected[] = {s.min, s.max, s.mean, s.median, s.p90, s.p95, s.p99, s.p999};
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++)
        assert_double_exact(expected[i], 4.2);
    assert_double_exact(s.stddev, 0.0);
    assert_double_exact(s.cv, 0.0);
    assert_double_exact(s.mad, 0.0);
}

static void test_two_samples_interpolate(void **state)
{
    double samples[] = {3.0, 1.0};
    struct stats_summary s = summarize(samples, 2);
    assert_double_exact(s.min, 1.0);
    assert_double_exact(s.max, 3.0);
    assert_double_exact(s.mean, 2.0);
    assert_double_exact(s.median, 2.0); /* rank 0.5 */
    assert_double_exact(s.p90, 2.8);    /* 1 + 2·0.9 */
    assert_double_exact(s.p95, 2.9);
    assert_double_exact(s.p99, 2.98);
    assert_double_exact(s.p999, 3.0);   /* 2.998 rounds up */
    assert_double_exact(s.stddev, 1.0); /* population, not sample */
    assert_double_exact(s.cv, 0.5);
    assert_double_exact(s.mad, 1.0); /* deviations 1, 1 */
}

static void test_three_samples(void **state)
{
    double samples[] = {10.0, 1.0, 2.0};
    struct stats_summary s = summarize(samples, 3);
    assert_double_exact(s.mean, 4.33);  /* 13/3 */
    assert_double_exact(s.median, 2.0); /* rank 1 exactly */
    assert_double_exact(s.p90, 8.4);    /* rank 1.8: 2 + 8·0.8 */
    assert_double_exact(s.p95, 9.2);
    assert_double_exact(s.p99, 9.84);
    assert_double_exact(s.p999, 9.98);   /* 9.984 */
    assert_double_exact(s.stddev, 4.03); /* sqrt(146/9) = 4.0277 */
    assert_double_exact(s.cv, 0.93);     /* 4.0277 / 4.3333 from unrounded values */
    assert_double_exact(s.mad, 1.0);     /* deviations 1, 0, 8 */
    /* sorted in place, as the API promises */
    assert_double_exact(samples[0], 1.0);
    assert_double_exact(samples[2], 10.0);
}

static void test_ties(void **state)
{
    double samples[] = {5.0, 1.0, 5.0, 5.0};
    struct stats_summary s = summarize(samples, 4);
    assert_double_exact(s.median, 5.0); /* rank 1.5 between two fives */
    assert_double_exact(s.mean, 4.0);
    assert_double_exact(s.stddev, 1.73); /* sqrt(3) */
    assert_double_exact(s.cv, 0.43);
    assert_double_exact(s.mad, 0.0); /* deviations 0, 0, 0, 4 */
    assert_double_exact(s.p90, 5.0);
}

static void test_even_count_mad_between_samples(void **state)
{
    double samples[] = {4.0, 1.0, 3.0, 2.0};
    struct stats_summary s = summarize(samples, 4);
    assert_double_exact(s.median, 2.5);
    assert_double_exact(s.mad, 1.0); /* deviations .5 .5 1.5 1.5, rank 1.5 */
}

static void test_zeros_have_zero_cv(void **state)
{
    double samples[] = {0.0, 0.0, 0.0};
    struct stats_summary s = summarize(samples, 3);
    assert_double_exact(s.mean, 0.0);
    assert_double_exact(s.stddev, 0.0);
    assert_double_exact(s.cv, 0.0);
    assert_double_exact(s.mad, 0.0);
}

static void test_zero_mean_has_zero_cv(void **state)
{
    double samples[] = {-1.0, 1.0};
    struct stats_summary s = summarize(samples, 2);
    assert_double_exact(s.mean, 0.0);
    assert_double_exact(s.stddev, 1.0);
    assert_double_exact(s.cv, 0.0);
}

static void test_all_equal(void **state)
{
    double samples[] = {2.5, 2.5, 2.5, 2.5, 2.5};
    struct stats_summary s = summarize(samples, 5);
    assert_double_exact(s.min, 2.5);
    assert_double_exact(s.p999, 2.5);
    assert_double_exact(s.stddev, 0.0);
    assert_double_exact(s.cv, 0.0);
    assert_double_exact(s.mad, 0.0);
}

static void test_heavy_tail(void **state)
{
    double samples[100];
    for (int i = 0; i < 100; i++)
        samples[i] = 1.0;
    samples[37] = 1000.0; /* one outlier in a hundred */
    struct stats_summary s = summarize(samples, 100);
    assert_double_exact(s.median, 1.0);
    assert_double_exact(s.p90, 1.0);
    assert_double_exact(s.p95, 1.0);
    assert_double_exact(s.p99, 10.99);  /* rank 98.01: 1 + 999·0.01 */
    assert_double_exact(s.p999, 901.1); /* rank 98.901: 901.099 */
    assert_double_exact(s.max, 1000.0);
    assert_double_exact(s.mean, 10.99);
    assert_double_exact(s.stddev, 99.4); /* 99.399 */
    assert_double_exact(s.cv, 9.04);
    assert_double_exact(s.mad, 0.0); /* the outlier cannot drag the median deviation */
}

static void test_percentile_ends(void **state)
{
    const double sorted[] = {1.0, 2.0, 4.0, 8.0};
    assert_double_exact(stats_percentile_sorted(sorted, 4, 0.0), 1.0);
    assert_double_exact(stats_percentile_sorted(sorted, 4, 1.0), 8.0);
    assert_double_exact(stats_percentile_sorted(sorted, 4, 0.5), 3.0);
    assert_double_exact(stats_percentile_sorted(sorted, 1, 0.99), 1.0);
}

static double brute_force_mad(const double *sorted, size_t n)
{
    double median = stats_percentile_sorted(sorted, n, 0.5);
    double *deviations = malloc(n * sizeof *deviations);
    for (size_t i = 0; i < n; i++)
        deviations[i] = fabs(sorted[i] - median);
    stats_sort(deviations, n);
    double mad = stats_percentile_sorted(deviations, n, 0.5);
    free(deviations);
    return mad;
}

/* The copy-free MAD walk must equal "sort the deviations" bit for bit. */
static void test_mad_walk_matches_sorting_deviations(void **state)
{
    srand(7);
    for (int trial = 0; trial < 300; trial++) {
        size_t n = 1 + (size_t)(rand() % 60);
        double *samples = malloc(n * sizeof *samples);
        for (size_t i = 0; i < n; i++)
            samples[i] = trial % 3 == 0 ? (double)(rand() % 5) : rand() / (double)RAND_MAX * 100;
        stats_sort(samples, n);
        double median = stats_percentile_sorted(samples, n, 0.5);
        assert_double_exact(stats_mad_sorted(samples, n, median), brute_force_mad(samples, n));
        free(samples);
    }
}

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_sort_matches_qsort(void **state)
{
    srand(11);
    for (int trial = 0; trial < 50; trial++) {
        size_t n = (size_t)(rand() % 5000);
        double *mine = malloc((n + 1) * sizeof *mine), *theirs = malloc((n + 1) * sizeof *theirs);
        for (size_t i = 0; i < n; i++)
            mine[i] = theirs[i] = trial % 2 ? (double)(rand() % 7) : rand() / 3.0 - 1e6;
        if (trial == 3)
            for (size_t i = 0; i < n; i++)
                mine[i] = theirs[i] = (double)(n - i); /* descending */
        stats_sort(mine, n);
        qsort(theirs, n, sizeof *theirs, ascending);
        for (size_t i = 0; i < n; i++)
            assert_double_exact(mine[i], theirs[i]);
        free(mine);
        free(theirs);
    }
}

/* round(x·100)/100, half away from zero, on the binary value the harness sees. */
static void test_round2_edges(void **state)
{
    assert_double_exact(stats_round2(0.125), 0.13);   /* exactly representable half */
    assert_double_exact(stats_round2(-0.125), -0.13); /* away from zero */
    assert_double_exact(stats_round2(1.005), 1.0);    /* 100.49999999999999 */
    assert_double_exact(stats_round2(0.285), 0.28);   /* 28.499999999999996 */
    assert_double_exact(stats_round2(1.255), 1.25);
    assert_double_exact(stats_round2(0.145), 0.14);
    assert_double_exact(stats_round2(2.675), 2.68); /* the product rounds to 267.5 */
    assert_double_exact(stats_round2(1.115), 1.12);
    assert_double_exact(stats_round2(10.005), 10.01);
    assert_double_exact(stats_round2(0.005), 0.01);
    assert_double_exact(stats_round2(-0.005), -0.01);
    assert_double_exact(stats_round2(0.0025), 0.0);
    assert_double_exact(stats_round2(123.456), 123.46);
}

static void test_round2_passes_zero_and_non_finite(void **state)
{
    assert_double_exact(stats_round2(0.0), 0.0);
    assert_true(signbit(stats_round2(-0.0)));
    assert_true(isinf(stats_round2(INFINITY)));
    assert_true(isinf(stats_round2(-INFINITY)) && stats_round2(-INFINITY) < 0);
    assert_true(isnan(stats_round2(NAN)));
}

static void test_round_to_other_places(void **state)
{
    assert_double_exact(stats_round_to(1.23456, 4), 1.2346);
    assert_double_exact(stats_round_to(2.5, 0), 3.0);
    assert_double_exact(stats_round_to(-2.5, 0), -3.0);
}

static void assert_formats(double x, const char *expected)
{
    char buf[STATS_NUMBER_MAX];
    size_t len = stats_format_double(x, buf);
    assert_string_equal(buf, expected);
    assert_int_equal(len, strlen(expected));
}

static void test_format_is_short(void **state)
{
    assert_formats(0.1, "0.1");
    assert_formats(0.412, "0.412");
    assert_formats(1536, "1536");
    assert_formats(-2.5, "-2.5");
    assert_formats(0.0, "0");
    assert_formats(-0.0, "-0");
    assert_formats(1e-7, "0.0000001");
    assert_formats(1e-20, "1e-20");
    assert_formats(0.30000000000000004, "0.30000000000000004");
    assert_formats(1e300, "1e+300");
    assert_formats(INFINITY, "null");
}

static void test_format_round_trips(void **state)
{
    srand(3);
    char buf[STATS_NUMBER_MAX];
    for (int i = 0; i < 100000; i++) {
        uint64_t bits = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
        double x;
        memcpy(&x, &bits, sizeof x);
        if (i % 2) x = rand() / 1000.0; /* the common shape: a few decimals */
        if (!isfinite(x)) continue;
        stats_format_double(x, buf);
        assert_true(strtod(buf, NULL) == x);
    }
    stats_format_double(5e-324, buf);
    assert_true(strtod(buf, NULL) == 5e-324);
    stats_format_double(9007199254740993.0, buf);
    assert_true(strtod(buf, NULL) == 9007199254740993.0);
}

/* Every statistic of finite samples is finite, however large they are: the
 * harness's sum of three samples near 1e308 overflows, and its mean, stddev,
 * cv and rounding with it (inf and nan, printed). */
static bool summary_finite(const struct stats_summary *s)
{
    const double fields[] = {s->min, s->max,  s->mean,   s->median, s->p90, s->p95,
                             s->p99, s->p999, s->stddev, s->cv,     s->mad};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (!isfinite(fields[i])) return false;
    return true;
}

static bool near(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fabs(want);
}

static void test_samples_near_the_largest_double_keep_every_statistic_finite(void **state)
{
    double large[] = {1.7e308, 1.5e308, 1.6e308};
    struct stats_summary s = summarize(large, 3);
    assert_true(summary_finite(&s));
    assert_double_exact(s.min, 1.5e308); /* too large to have a fraction to round */
    assert_double_exact(s.max, 1.7e308);
    assert_double_exact(s.median, 1.6e308);
    assert_true(near(s.mean, 1.6e308));
    assert_true(near(s.stddev, sqrt(2.0 / 3.0) * 1e307));
    assert_double_exact(s.cv, 0.05);
    assert_true(near(s.mad, 1e307));

    /* both signs: a span, deviations and interpolations beyond a double */
    double both[] = {-1.7e308, 1.7e308, -1.7e308, 1.7e308};
    s = summarize(both, 4);
    assert_true(summary_finite(&s));
    assert_double_exact(s.median, 0.0);
    assert_double_exact(s.mean, 0.0);
    assert_double_exact(s.stddev, 1.7e308);
    assert_double_exact(s.mad, 1.7e308);
    assert_double_exact(s.cv, 0.0);
    double edges[] = {-DBL_MAX, DBL_MAX, DBL_MAX};
    s = summarize(edges, 3);
    assert_true(summary_finite(&s));
    assert_double_exact(s.p90, DBL_MAX);
    static const double qs[] = {0.1, 0.5, 0.9};
    double got[3], unsorted[] = {DBL_MAX, -DBL_MAX, 1.0};
    stats_percentiles(unsorted, 3, qs, 3, got);
    for (int k = 0; k < 3; k++)
        assert_true(isfinite(got[k]));

    /* random samples of both signs near the largest double */
    srand(7);
    for (int round = 0; round < 200; round++) {
        double v[9];
        size_t n = 1 + (size_t)rand() % 9;
        for (size_t i = 0; i < n; i++)
            v[i] = (rand() % 2 ? -1 : 1) * DBL_MAX * (0.5 + 0.5 * rand() / (double)RAND_MAX);
        s = summarize(v, n);
        if (!summary_finite(&s))
            fail_msg("round %d: a statistic of %zu samples is not finite", round, n);
    }
}

static void test_round_passes_what_has_no_fraction(void **state)
{
    assert_double_exact(stats_round2(1.7e308), 1.7e308);
    assert_double_exact(stats_round_to(DBL_MAX, 4), DBL_MAX);
    assert_double_exact(stats_round_to(-DBL_MAX, 2), -DBL_MAX);
}

static void test_mean_of_samples(void **state)
{
    assert_true(isnan(stats_mean(NULL, 0))); /* no samples, no mean (a running mean says 0) */
    const double some[] = {1.0, 2.0, 6.0};
    assert_double_exact(stats_mean(some, 3), 3.0);
    const double huge[] = {DBL_MAX, DBL_MAX};
    assert_true(near(stats_mean(huge, 2), DBL_MAX)); /* the running mean's overflow guard */
}

static void test_moments_and_running_means_stay_finite(void **state)
{
    double mean, sd;
    double two[] = {1e308, 1.2e308};
    stats_moments(two, 2, 1, &mean, &sd); /* a sample's: over n − 1 */
    assert_true(near(mean, 1.1e308));
    assert_true(near(sd, sqrt(2.0) * 1e307));
    stats_moments(two, 2, 0, &mean, &sd);
    assert_true(near(sd, 1e307));
    stats_moments(two, 1, 1, &mean, &sd);
    assert_true(mean == 1e308 && sd == 0.0);
    stats_moments(two, 0, 0, &mean, &sd);
    assert_true(mean == 0.0 && sd == 0.0);
    /* the plain sum in the order given while it is finite, as the harness */
    double small[] = {0.1, 0.2, 0.3};
    stats_moments(small, 3, 0, &mean, &sd);
    assert_double_exact(mean, (0.1 + 0.2 + 0.3) / 3);

    struct stats_running_mean m = {0};
    assert_double_exact(stats_running_mean_value(&m), 0.0);
    for (int i = 0; i < 5; i++)
        stats_running_mean_add(&m, DBL_MAX);
    assert_true(near(stats_running_mean_value(&m), DBL_MAX)); /* not beyond it */
    struct stats_running_mean both = {0};
    stats_running_mean_add(&both, DBL_MAX);
    stats_running_mean_add(&both, DBL_MAX);
    stats_running_mean_add(&both, -DBL_MAX);
    assert_true(near(stats_running_mean_value(&both), DBL_MAX / 3));
}

static void test_table_cells_never_cut_a_number(void **state)
{
    char buf[STATS_FIXED_MAX];
    assert_string_equal(stats_format_fixed(3.0, 2, false, buf), "3.00");
    assert_string_equal(stats_format_fixed(0.0, 2, true, buf), "+0.00");
    assert_string_equal(stats_format_fixed(-1.5, 4, true, buf), "-1.5000");
    assert_string_equal(stats_format_fixed(999999999999999.0, 2, false, buf), "999999999999999.00");
    /* from 1e15 up, with an exponent: 1e308 as %.2f has 309 digits */
    assert_string_equal(stats_format_fixed(1e15, 2, false, buf), "1.00e+15");
    assert_string_equal(stats_format_fixed(1.6e308, 2, false, buf), "1.60e+308");
    assert_string_equal(stats_format_fixed(-1e307, 2, true, buf), "-1.00e+307");
    assert_string_equal(stats_format_fixed(2e300, 4, false, buf), "2.0000e+300");
}

/* The unrounded summary keeps what rounding to 0.01 loses (sub-10 µs in
 * milliseconds), and rounding it field by field is the harness's summary. */
static void test_the_unrounded_summary_rounds_to_the_summary(void **state)
{
    (void)state;
    double a[] = {0.0412, 0.0398, 0.0405, 0.0431, 0.0122};
    double b[sizeof a / sizeof *a];
    memcpy(b, a, sizeof a);
    struct stats_summary exact, rounded;
    assert_int_equal(stats_summarize_unrounded(a, 5, &exact), 0);
    assert_int_equal(stats_summarize(b, 5, &rounded), 0);
    assert_double_exact(exact.median, 0.0405);
    assert_double_exact(exact.min, 0.0122);
    assert_double_exact(rounded.median, 0.04);
    assert_int_equal(exact.n, 5);
    struct stats_summary again = exact;
    stats_summary_round(&again);
    assert_memory_equal(&again, &rounded, sizeof again);
    assert_int_equal(stats_summarize_unrounded(a, 0, &exact), -1);
}

/* A row is shown in the largest unit its reference (its median) is at least
 * 1 in: 0.0405 ms as 40.5 µs, 2500 ms as 2.5 s, 9510682 B as 9.07 MiB. */
static void test_a_row_is_shown_in_the_unit_that_suits_it(void **state)
{
    (void)state;
    static const struct {
        enum stats_unit unit;
        double reference;
        const char *symbol;
        double factor;
    } cases[] = {
        {STATS_UNIT_MILLISECONDS, 0.0405, "µs", 1e3},
        {STATS_UNIT_MILLISECONDS, 1.42, "ms", 1},
        {STATS_UNIT_MILLISECONDS, 2500, "s", 1e-3},
        {STATS_UNIT_MILLISECONDS, 0.0002, "ns", 1e6},
        {STATS_UNIT_MILLISECONDS, 1e-12, "ns", 1e6}, /* nothing smaller */
        {STATS_UNIT_SECONDS, 0.36, "ms", 1e3},
        {STATS_UNIT_NANOSECONDS, 52000, "µs", 1e-3},
        {STATS_UNIT_BYTES, 9510682, "MiB", 1.0 / 1048576},
        {STATS_UNIT_BYTES, 1023, "B", 1},
        {STATS_UNIT_BYTES, 1.5 * 1099511627776.0 * 1024, "TiB", 1.0 / 1099511627776.0},
        {STATS_UNIT_REQUESTS_PER_SECOND, 0.5, "req/s", 1},
        {STATS_UNIT_COUNT, 1e9, "count", 1},
        {STATS_UNIT_MILLISECONDS, 0, "ms", 1},        /* a row of zeros keeps its unit */
        {STATS_UNIT_BYTES, -2048, "KiB", 1.0 / 1024}, /* by magnitude */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct stats_display_unit u = stats_unit_display(cases[i].unit, cases[i].reference);
        assert_string_equal(u.symbol, cases[i].symbol);
        assert_true(fabs(u.factor - cases[i].factor) <= 1e-12 * cases[i].factor);
    }
}

/* Selection gives exactly what sorting gives, for every percentile the
 * summary uses, on random data with ties, and on tiny inputs. */
static void test_percentiles_by_selection_match_the_sorted_definition(void **state)
{
    (void)state;
    static const double qs[] = {0, 0.1, 0.5, 0.9, 0.95, 0.99, 0.999, 1};
    const size_t nq = sizeof(qs) / sizeof(qs[0]);
    uint64_t x = 88172645463325252ull;
    for (size_t n = 1; n < 3000; n = n * 3 + 1) {
        double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            a[i] = b[i] = (double)(x % 97) / 8; /* many ties */
        }
        double got[8];
        stats_percentiles(a, n, qs, nq, got);
        stats_sort(b, n);
        for (size_t k = 0; k < nq; k++)
            assert_true(got[k] == stats_percentile_sorted(b, n, qs[k]));
        free(a);
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_input_is_refused),
        cmocka_unit_test(test_one_sample_is_every_statistic),
        cmocka_unit_test(test_two_samples_interpolate),
        cmocka_unit_test(test_three_samples),
        cmocka_unit_test(test_ties),
        cmocka_unit_test(test_even_count_mad_between_samples),
        cmocka_unit_test(test_zeros_have_zero_cv),
        cmocka_unit_test(test_zero_mean_has_zero_cv),
        cmocka_unit_test(test_all_equal),
        cmocka_unit_test(test_heavy_tail),
        cmocka_unit_test(test_percentile_ends),
        cmocka_unit_test(test_mad_walk_matches_sorting_deviations),
        cmocka_unit_test(test_sort_matches_qsort),
        cmocka_unit_test(test_round2_edges),
        cmocka_unit_test(test_round2_passes_zero_and_non_finite),
        cmocka_unit_test(test_round_to_other_places),
        cmocka_unit_test(test_format_is_short),
        cmocka_unit_test(test_format_round_trips),
        cmocka_unit_test(test_percentiles_by_selection_match_the_sorted_definition),
        cmocka_unit_test(test_samples_near_the_largest_double_keep_every_statistic_finite),
        cmocka_unit_test(test_round_passes_what_has_no_fraction),
        cmocka_unit_test(test_mean_of_samples),
        cmocka_unit_test(test_moments_and_running_means_stay_finite),
        cmocka_unit_test(test_table_cells_never_cut_a_number),
        cmocka_unit_test(test_the_unrounded_summary_rounds_to_the_summary),
        cmocka_unit_test(test_a_row_is_shown_in_the_unit_that_suits_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
