/* test_nsrank.c — the summary's percentiles of nanosecond samples by counting
 * (stats/math/nsrank.h) against stats_percentiles over the same samples as doubles,
 * compared exactly: shapes that send every rank into one bucket, spread them
 * over many, need a second count, or hold a single value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/math/nsrank.h"
#include "stats/math/stats.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    /* xorshift64*: reproducible from run to run */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

static const double summary_qs[] = {0, 0.5, 0.9, 0.99, 0.999, 1};

/* Both ways over ns[0..n) for qs, exactly equal. */
static void agree(const uint64_t *ns, size_t n, const double *qs, size_t nq)
{
    double *d = malloc((n ? n : 1) * sizeof(*d));
    double want[16], got[16];
    assert_non_null(d);
    assert_true(nq <= 16);
    for (size_t i = 0; i < n; i++)
        d[i] = (double)ns[i] / 1e6;
    stats_percentiles(d, n, qs, nq, want);
    assert_int_equal(stats_percentiles_ns(ns, n, qs, nq, got), 0);
    for (size_t i = 0; i < nq; i++) {
        if (got[i] != want[i])
            fail_msg("n=%zu q=%g: counted %.9f, selected %.9f", n, qs[i], got[i], want[i]);
    }
    free(d);
}

static void test_no_samples_give_zeros(void **state)
{
    (void)state;
    double got[6] = {1, 1, 1, 1, 1, 1};
    assert_int_equal(stats_percentiles_ns(NULL, 0, summary_qs, 6, got), 0);
    for (int i = 0; i < 6; i++)
        assert_true(got[i] == 0.0);
}

static void test_few_samples_are_sorted_outright(void **state)
{
    (void)state;
    uint64_t v[40];
    for (size_t n = 1; n <= 40; n++) {
        for (size_t i = 0; i < n; i++)
            v[i] = 1000000 + next_random() % 5000000;
        agree(v, n, summary_qs, 6);
    }
}

static void test_one_value_repeated(void **state)
{
    (void)state;
    size_t n = 10000;
    uint64_t *v = malloc(n * sizeof(*v));
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = 2345678;
    agree(v, n, summary_qs, 6);
    free(v);
}

/* Latencies of a few ms and one timeout 10,000 times larger: nearly every
 * sample lands in the first bucket, which is counted again. */
static void test_an_outlier_crowds_one_bucket(void **state)
{
    (void)state;
    size_t n = 100000;
    uint64_t *v = malloc(n * sizeof(*v));
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = 1000000 + next_random() % 3000000;
    v[n / 3] = 30000000000u;
    agree(v, n, summary_qs, 6);
    free(v);
}

/* A narrow range, one nanosecond per bucket: no search at all. */
static void test_a_narrow_range_is_read_off_the_counts(void **state)
{
    (void)state;
    size_t n = 50000;
    uint64_t *v = malloc(n * sizeof(*v));
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = 777000 + next_random() % 3000;
    agree(v, n, summary_qs, 6);
    free(v);
}

/* Heavy tails, ties, sizes around the small cut-off, percentiles out of order
 * and repeated, and ranks that fall between two samples. */
static void test_random_shapes_agree(void **state)
{
    (void)state;
    static const double odd_qs[] = {0.999, 0.25, 0.5, 0.5, 1, 0.9999999, 0, 0.001, 0.75, 0.1};
    uint64_t *v = malloc(200000 * sizeof(*v));
    assert_non_null(v);
    for (int round = 0; round < 300; round++) {
        size_t n = round < 100 ? 30 + (size_t)round : 1 + next_random() % 200000;
        int shape = round % 5;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next_random();
            switch (shape) {
            case 0:
                v[i] = r % 10000000;
                break; /* uniform, 10 ms */
            case 1:
                v[i] = (r % 1000) * (r % 1000) * (r % 1000);
                break; /* heavy tail */
            case 2:
                v[i] = 5000000 + r % 4;
                break; /* four values */
            case 3:
                v[i] = r >> (r % 64);
                break; /* every scale */
            default:
                v[i] = UINT64_MAX - r % 1000000;
                break; /* the top of the range */
            }
        }
        agree(v, n, summary_qs, 6);
        agree(v, n, odd_qs, sizeof(odd_qs) / sizeof(odd_qs[0]));
    }
    free(v);
}

/* The summary's mean and deviation over nanoseconds equal stats_moments'
 * over the same samples as milliseconds, bit for bit. */
static void test_moments_agree_with_stats_moments(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint64_t *ns = malloc(N * sizeof(*ns));
    double *d = malloc(N * sizeof(*d));
    assert_non_null(ns);
    assert_non_null(d);
    for (size_t i = 0; i < N; i++) {
        /* a body near 0.4 ms and a tail to seconds */
        ns[i] = 400000 + next_random() % 100000 + (i % 97 == 0 ? next_random() % 3000000000u : 0);
        d[i] = (double)ns[i] / 1e6;
    }
    size_t sizes[] = {1, 2, 31, N};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        double mean, sd, want_mean, want_sd;
        stats_moments_ns(ns, sizes[k], &mean, &sd);
        stats_moments(d, sizes[k], 0, &want_mean, &want_sd);
        assert_true(mean == want_mean);
        assert_true(sd == want_sd);
    }
    double mean = 1, sd = 1;
    stats_moments_ns(NULL, 0, &mean, &sd);
    assert_true(mean == 0.0 && sd == 0.0);
    free(ns);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_samples_give_zeros),
        cmocka_unit_test(test_few_samples_are_sorted_outright),
        cmocka_unit_test(test_one_value_repeated),
        cmocka_unit_test(test_an_outlier_crowds_one_bucket),
        cmocka_unit_test(test_a_narrow_range_is_read_off_the_counts),
        cmocka_unit_test(test_random_shapes_agree),
        cmocka_unit_test(test_moments_agree_with_stats_moments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
