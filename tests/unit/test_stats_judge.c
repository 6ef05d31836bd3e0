/* test_stats_judge.c — the comparison verdicts (direction, noise, time
 * resolution, zero baselines). Merging is tested in test_merge.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/compare.h"

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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
