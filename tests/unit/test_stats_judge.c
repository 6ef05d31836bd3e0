/* test_stats_judge.c — the comparison verdicts (direction, noise, time
 * resolution, zero baselines) and the arithmetic of merging documents. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/compare.h"
#include "stats/merge.h"

static const struct stats_thresholds defaults = STATS_THRESHOLDS_DEFAULT;

static struct stats_comparison judge(double base_median, double base_cv, double new_median,
                                     enum stats_unit unit, const struct stats_thresholds *t)
{
    struct stats_summary base = {.n = 10, .median = base_median, .cv = base_cv};
    struct stats_summary current = {.n = 10, .median = new_median, .cv = 0.0};
    struct stats_comparison c;
    stats_compare(&base, &current, unit, t ? t : &defaults, &c);
    return c;
}

static void test_slower_latency_regresses(void **state)
{
    struct stats_comparison c = judge(10.0, 0.05, 12.0, STATS_UNIT_MILLISECONDS, NULL);
    assert_true(c.significant);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
    assert_true(c.base_median == 10.0 && c.new_median == 12.0);
    assert_true(c.delta_abs == 2.0);
    assert_true(c.delta_pct == 20.0);
    assert_true(c.ratio == 1.2);
    assert_string_equal(stats_verdict_name(c.verdict), "regressed");
}

static void test_faster_latency_improves(void **state)
{
    struct stats_comparison c = judge(10.0, 0.05, 8.0, STATS_UNIT_MILLISECONDS, NULL);
    assert_false(c.significant);
    assert_int_equal(c.verdict, STATS_VERDICT_IMPROVED);
    assert_true(c.delta_abs == -2.0);
}

static void test_lower_rate_regresses(void **state)
{
    struct stats_comparison c = judge(1000.0, 0.02, 800.0, STATS_UNIT_REQUESTS_PER_SECOND, NULL);
    assert_true(c.significant);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
    c = judge(100.0, 0.02, 80.0, STATS_UNIT_MEGABITS_PER_SECOND, NULL);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
}

static void test_higher_rate_improves(void **state)
{
    struct stats_comparison c = judge(1000.0, 0.02, 1200.0, STATS_UNIT_REQUESTS_PER_SECOND, NULL);
    assert_false(c.significant);
    assert_int_equal(c.verdict, STATS_VERDICT_IMPROVED);
}

static void test_within_factor_is_ok(void **state)
{
    assert_int_equal(judge(10.0, 0.0, 10.5, STATS_UNIT_MILLISECONDS, NULL).verdict,
                     STATS_VERDICT_OK);
    /* exactly the factor is not beyond it */
    assert_int_equal(judge(10.0, 0.0, 11.0, STATS_UNIT_MILLISECONDS, NULL).verdict,
                     STATS_VERDICT_OK);
    assert_int_equal(judge(1000.0, 0.0, 950.0, STATS_UNIT_REQUESTS_PER_SECOND, NULL).verdict,
                     STATS_VERDICT_OK);
}

static void test_move_inside_baseline_noise_is_noisy(void **state)
{
    /* +20% against a baseline that wobbles by 30% */
    struct stats_comparison c = judge(10.0, 0.3, 12.0, STATS_UNIT_MILLISECONDS, NULL);
    assert_false(c.significant);
    assert_int_equal(c.verdict, STATS_VERDICT_NOISY);
    /* the noise factor scales the band: 0.3 × 0.5 = 0.15 < 0.2 */
    struct stats_thresholds half = {1.1, 1.0, 0.5};
    c = judge(10.0, 0.3, 12.0, STATS_UNIT_MILLISECONDS, &half);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
}

static void test_move_below_time_resolution_is_tiny(void **state)
{
    /* fivefold, but 0.4 ms < 1 ms */
    struct stats_comparison c = judge(0.1, 0.0, 0.5, STATS_UNIT_MILLISECONDS, NULL);
    assert_false(c.significant);
    assert_int_equal(c.verdict, STATS_VERDICT_TINY);
    /* 300 ns to 600 ns: a percentage on nanoseconds is not product performance */
    c = judge(300.0, 0.0, 600.0, STATS_UNIT_NANOSECONDS, NULL);
    assert_int_equal(c.verdict, STATS_VERDICT_TINY);
    /* exactly at the floor is material (1.41 − 0.41 is not quite 1 in binary) */
    c = judge(0.41, 0.0, 1.41, STATS_UNIT_MILLISECONDS, NULL);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
}

static void test_resolution_converts_to_the_unit(void **state)
{
    /* 0.5 s is far above 1 ms */
    assert_int_equal(judge(1.0, 0.0, 1.5, STATS_UNIT_SECONDS, NULL).verdict,
                     STATS_VERDICT_REGRESSED);
    /* 2 ms in nanoseconds is material */
    assert_int_equal(judge(1e6, 0.0, 3e6, STATS_UNIT_NANOSECONDS, NULL).verdict,
                     STATS_VERDICT_REGRESSED);
    /* a 10 ms floor makes a 5 ms move tiny */
    struct stats_thresholds coarse = {1.1, 10.0, 1.0};
    assert_int_equal(judge(10.0, 0.0, 15.0, STATS_UNIT_MILLISECONDS, &coarse).verdict,
                     STATS_VERDICT_TINY);
}

static void test_other_units_have_no_floor(void **state)
{
    assert_int_equal(judge(1.0, 0.0, 2.0, STATS_UNIT_COUNT, NULL).verdict, STATS_VERDICT_REGRESSED);
    assert_int_equal(judge(0.01, 0.0, 0.02, STATS_UNIT_RATIO, NULL).verdict,
                     STATS_VERDICT_REGRESSED);
    assert_int_equal(judge(100.0, 0.0, 150.0, STATS_UNIT_BYTES, NULL).verdict,
                     STATS_VERDICT_REGRESSED);
}

static void test_maximum_factor_widens_the_envelope(void **state)
{
    struct stats_thresholds wide = {1.5, 1.0, 1.0};
    assert_int_equal(judge(10.0, 0.0, 12.0, STATS_UNIT_MILLISECONDS, &wide).verdict,
                     STATS_VERDICT_OK);
    assert_int_equal(judge(10.0, 0.0, 16.0, STATS_UNIT_MILLISECONDS, &wide).verdict,
                     STATS_VERDICT_REGRESSED);
}

static void test_zero_baselines(void **state)
{
    struct stats_comparison c = judge(0.0, 0.0, 0.0, STATS_UNIT_COUNT, NULL);
    assert_true(c.ratio == 1.0);
    assert_true(c.delta_pct == 0.0);
    assert_int_equal(c.verdict, STATS_VERDICT_OK);
    /* errors appearing from none: infinite ratio, no percentage, a regression */
    c = judge(0.0, 0.0, 3.0, STATS_UNIT_COUNT, NULL);
    assert_true(isinf(c.ratio));
    assert_true(isnan(c.delta_pct));
    assert_true(c.significant);
    /* a rate falling to zero */
    c = judge(500.0, 0.1, 0.0, STATS_UNIT_REQUESTS_PER_SECOND, NULL);
    assert_true(c.ratio == 0.0);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
}

/* ---- merge ---- */

static double *copy_of(const double *values, size_t n)
{
    double *copy = malloc(n * sizeof *copy);
    memcpy(copy, values, n * sizeof *copy);
    return copy;
}

static void add(struct stats_merge *m, size_t doc, const char *key, enum stats_unit unit,
                const double *values, size_t n)
{
    char error[256];
    double *samples = copy_of(values, n);
    assert_int_equal(stats_merge_add(m, doc, key, unit, &samples, n, error, sizeof error), 0);
    assert_null(samples);
}

static const struct stats_merged_metric *find(const struct stats_merge *m, const char *key)
{
    long at = keyindex_find(&m->keys, key, strlen(key));
    assert_true(at >= 0);
    return &m->metrics[at];
}

static void test_merge_concatenates_times_sizes_ratios(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 2);
    add(&m, 0, "c1.latency_warm_ms", STATS_UNIT_MILLISECONDS, (double[]){0.5, 0.6}, 2);
    add(&m, 1, "c1.latency_warm_ms", STATS_UNIT_MILLISECONDS, (double[]){0.7}, 1);
    add(&m, 0, "c1.bytes_received", STATS_UNIT_BYTES, (double[]){1000}, 1);
    add(&m, 1, "c1.bytes_received", STATS_UNIT_BYTES, (double[]){2000}, 1);
    stats_merge_finish(&m);
    const struct stats_merged_metric *lat = find(&m, "c1.latency_warm_ms");
    assert_int_equal(lat->n, 3);
    assert_true(lat->samples[0] == 0.5 && lat->samples[1] == 0.6 && lat->samples[2] == 0.7);
    const struct stats_merged_metric *bytes = find(&m, "c1.bytes_received");
    assert_int_equal(bytes->n, 2);
    assert_int_equal(m.keys.count, 2);
    stats_merge_free(&m);
}

static void test_merge_sums_one_sample_counts(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 3);
    for (size_t d = 0; d < 3; d++)
        add(&m, d, "c8.requests", STATS_UNIT_COUNT, (double[]){100.0 * (double)(d + 1)}, 1);
    add(&m, 0, "c8.watch.x.fds", STATS_UNIT_COUNT, (double[]){5, 6}, 2);
    add(&m, 1, "c8.watch.x.fds", STATS_UNIT_COUNT, (double[]){7}, 1);
    stats_merge_finish(&m);
    stats_merge_finish(&m); /* idempotent */
    const struct stats_merged_metric *requests = find(&m, "c8.requests");
    assert_int_equal(requests->n, 1);
    assert_true(requests->samples[0] == 600.0);
    /* a count series is not a total: concatenated */
    assert_int_equal(find(&m, "c8.watch.x.fds")->n, 3);
    stats_merge_free(&m);
}

static void test_merge_sums_rate_timelines_by_second(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 3);
    add(&m, 0, "c2.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){10, 20, 30}, 3);
    add(&m, 1, "c2.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){1, 2, 3}, 3);
    stats_merge_finish(&m);
    const struct stats_merged_metric *rps = find(&m, "c2.requests_per_second");
    assert_int_equal(rps->n, 3);
    assert_true(rps->samples[0] == 11 && rps->samples[1] == 22 && rps->samples[2] == 33);
    assert_false(rps->lengths_differ);
    assert_int_equal(rps->documents, 2);
    assert_true(rps->present[0] && rps->present[1] && !rps->present[2]);
    stats_merge_free(&m);
}

static void test_merge_timelines_of_different_lengths(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 3);
    add(&m, 0, "r", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){1, 1}, 2);
    add(&m, 1, "r", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){10, 10, 10, 10}, 4);
    add(&m, 2, "r", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){100}, 1);
    stats_merge_finish(&m);
    const struct stats_merged_metric *r = find(&m, "r");
    assert_int_equal(r->n, 4);
    assert_true(r->samples[0] == 111 && r->samples[1] == 11 && r->samples[2] == 10 &&
                r->samples[3] == 10);
    assert_true(r->lengths_differ);
    stats_merge_free(&m);
}

static void test_merge_refuses_unit_conflict(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 2);
    add(&m, 0, "c1.connect_ms", STATS_UNIT_MILLISECONDS, (double[]){1}, 1);
    char error[256];
    double *samples = copy_of((double[]){0.001}, 1);
    assert_int_equal(stats_merge_add(&m, 1, "c1.connect_ms", STATS_UNIT_SECONDS, &samples, 1, error,
                                     sizeof error),
                     -1);
    assert_non_null(strstr(error, "c1.connect_ms"));
    assert_non_null(strstr(error, "milliseconds"));
    assert_non_null(strstr(error, "seconds"));
    free(samples); /* still the caller's */
    stats_merge_free(&m);
}

static void test_merge_keeps_partial_keys(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 2);
    add(&m, 1, "c4.errors.timeout", STATS_UNIT_COUNT, (double[]){3}, 1);
    stats_merge_finish(&m);
    const struct stats_merged_metric *e = find(&m, "c4.errors.timeout");
    assert_int_equal(e->documents, 1);
    assert_false(e->present[0]);
    assert_true(e->present[1]);
    assert_true(e->samples[0] == 3.0);
    stats_merge_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slower_latency_regresses),
        cmocka_unit_test(test_faster_latency_improves),
        cmocka_unit_test(test_lower_rate_regresses),
        cmocka_unit_test(test_higher_rate_improves),
        cmocka_unit_test(test_within_factor_is_ok),
        cmocka_unit_test(test_move_inside_baseline_noise_is_noisy),
        cmocka_unit_test(test_move_below_time_resolution_is_tiny),
        cmocka_unit_test(test_resolution_converts_to_the_unit),
        cmocka_unit_test(test_other_units_have_no_floor),
        cmocka_unit_test(test_maximum_factor_widens_the_envelope),
        cmocka_unit_test(test_zero_baselines),
        cmocka_unit_test(test_merge_concatenates_times_sizes_ratios),
        cmocka_unit_test(test_merge_sums_one_sample_counts),
        cmocka_unit_test(test_merge_sums_rate_timelines_by_second),
        cmocka_unit_test(test_merge_timelines_of_different_lengths),
        cmocka_unit_test(test_merge_refuses_unit_conflict),
        cmocka_unit_test(test_merge_keeps_partial_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
