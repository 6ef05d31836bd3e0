/* test_stats_judge.c — the comparison verdicts (direction or none, interval,
 * noise, time resolution, zero baselines). The interval itself is tested in
 * test_bootstrap.c, merging in test_merge.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/compare/compare.h"

static const struct stats_thresholds defaults = STATS_THRESHOLDS_DEFAULT;

/* One run a side, and an interval with nothing to resample (a count): the
 * rule as it was before runs, the baseline's cv deciding the noise. */
static struct stats_comparison judge(double base_median, double base_cv, double new_median,
                                     enum stats_unit unit, const struct stats_thresholds *t)
{
    struct stats_comparison c = {.base_runs = 1, .new_runs = 1, .base_cv = base_cv};
    stats_comparison_move(&c, base_median, new_median);
    c.ratio_low = c.ratio_high = c.ratio;
    c.lower_is_worse = stats_unit_is_rate(unit);
    stats_judge(&c, unit, t ? t : &defaults);
    return c;
}

/* Several runs a side, with an interval. */
static struct stats_comparison judge_runs(double base, double current, double low, double high,
                                          enum stats_unit unit)
{
    struct stats_comparison c = {.base_runs = 2, .new_runs = 3, .base_cv = 0.9};
    stats_comparison_move(&c, base, current);
    c.ratio_low = low;
    c.ratio_high = high;
    c.lower_is_worse = stats_unit_is_rate(unit);
    stats_judge(&c, unit, &defaults);
    return c;
}

static void test_slower_latency_regresses(void **state)
{
    struct stats_comparison c = judge(10.0, 0.05, 12.0, STATS_UNIT_MILLISECONDS, NULL);
    assert_true(c.significant);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
    assert_true(c.base == 10.0 && c.current == 12.0);
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

static void test_an_interval_beyond_the_factor_is_a_regression_whatever_the_cv(void **state)
{
    /* several runs a side: the interval carries the noise, the cv rule is off */
    struct stats_comparison c = judge_runs(10.0, 12.0, 1.15, 1.25, STATS_UNIT_MILLISECONDS);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
    assert_true(c.significant);
    assert_int_equal(c.noise, STATS_NOISE_NONE);
    assert_false(stats_comparison_single_run(&c));
    c = judge_runs(1000.0, 800.0, 0.75, 0.85, STATS_UNIT_REQUESTS_PER_SECOND);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
    c = judge_runs(1000.0, 1300.0, 1.2, 1.4, STATS_UNIT_REQUESTS_PER_SECOND);
    assert_int_equal(c.verdict, STATS_VERDICT_IMPROVED);
    assert_false(c.significant);
}

static void test_an_interval_straddling_the_factor_is_noisy(void **state)
{
    /* +20%, but the interval reaches back to +5%: not shown to be beyond 1.1 */
    struct stats_comparison c = judge_runs(10.0, 12.0, 1.05, 1.35, STATS_UNIT_MILLISECONDS);
    assert_int_equal(c.verdict, STATS_VERDICT_NOISY);
    assert_int_equal(c.noise, STATS_NOISE_INTERVAL);
    assert_false(c.significant);
    /* falling throughput whose interval reaches 0.95 */
    c = judge_runs(1000.0, 850.0, 0.7, 0.95, STATS_UNIT_REQUESTS_PER_SECOND);
    assert_int_equal(c.noise, STATS_NOISE_INTERVAL);
    /* one run a side, a within-run interval that straddles: noisy too */
    struct stats_comparison one = {.base_runs = 1, .new_runs = 1, .base_cv = 0.0};
    stats_comparison_move(&one, 10.0, 12.0);
    one.ratio_low = 1.08;
    one.ratio_high = 1.3;
    stats_judge(&one, STATS_UNIT_MILLISECONDS, &defaults);
    assert_int_equal(one.verdict, STATS_VERDICT_NOISY);
    assert_int_equal(one.noise, STATS_NOISE_INTERVAL);
    assert_true(stats_comparison_single_run(&one));
    /* a point inside the factor whose interval lies beyond it still moved */
    c = judge_runs(100.0, 109.0, 1.12, 1.3, STATS_UNIT_MILLISECONDS);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
}

static void test_runs_on_one_side_are_enough_for_the_interval(void **state)
{
    /* the runs of one side give the spread both share: no cv rule */
    struct stats_comparison c = {.base_runs = 3, .new_runs = 1, .base_cv = 0.5};
    stats_comparison_move(&c, 10.0, 12.0);
    c.ratio_low = 1.15;
    c.ratio_high = 1.25;
    stats_judge(&c, STATS_UNIT_MILLISECONDS, &defaults);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
    assert_false(stats_comparison_single_run(&c));
}

static void test_a_metric_in_one_run_of_each_side_is_noisy(void **state)
{
    /* two runs asked for a side, the metric in one of each: its run-to-run
     * noise is unknown, whatever the within-run interval says */
    struct stats_comparison c = {.base_runs = 1, .new_runs = 1, .base_given = 2, .new_given = 2};
    stats_comparison_move(&c, 1.0, 3.0);
    c.ratio_low = c.ratio_high = 3.0;
    stats_judge(&c, STATS_UNIT_MILLISECONDS, &defaults);
    assert_int_equal(c.verdict, STATS_VERDICT_NOISY);
    assert_int_equal(c.noise, STATS_NOISE_RUNS);
    /* one run given a side: the rule of one run a side */
    c.base_given = c.new_given = 1;
    stats_judge(&c, STATS_UNIT_MILLISECONDS, &defaults);
    assert_int_equal(c.verdict, STATS_VERDICT_REGRESSED);
}

static void test_the_move_is_rounded_as_summary_rounds(void **state)
{
    struct stats_comparison c = {0};
    stats_comparison_move(&c, 0.054, 0.066);
    assert_true(c.base == 0.05 && c.current == 0.07);
    assert_true(c.delta_abs == 0.01);
    /* the ratio is of the unrounded values */
    assert_true(fabs(c.ratio - 0.066 / 0.054) < 1e-12);
}

/* bytes_received, connections: fewer bytes is less work done, or the same
 * work compressed; which is better depends on the change. A real move is
 * "changed", neither regressed (no exit status 1) nor improved. */
static void test_a_metric_without_a_direction_changes(void **state)
{
    struct stats_comparison c = {.base_runs = 2, .new_runs = 2, .directionless = true};
    stats_comparison_move(&c, 1000.0, 500.0);
    c.ratio_low = 0.45;
    c.ratio_high = 0.55;
    stats_judge(&c, STATS_UNIT_BYTES, &defaults);
    assert_int_equal(c.verdict, STATS_VERDICT_CHANGED);
    assert_false(c.significant);
    assert_string_equal(stats_verdict_name(c.verdict), "changed");
    /* up as well as down, whatever lower_is_worse says */
    c.lower_is_worse = true;
    stats_comparison_move(&c, 1000.0, 2000.0);
    c.ratio_low = 1.8;
    c.ratio_high = 2.2;
    stats_judge(&c, STATS_UNIT_BYTES, &defaults);
    assert_int_equal(c.verdict, STATS_VERDICT_CHANGED);
    assert_false(c.significant);
    /* the other verdicts are as for any metric */
    c.ratio_low = 1.05;
    stats_judge(&c, STATS_UNIT_BYTES, &defaults);
    assert_int_equal(c.verdict, STATS_VERDICT_NOISY);
    stats_comparison_move(&c, 1000.0, 1050.0);
    c.ratio_low = 1.0;
    c.ratio_high = 1.08;
    stats_judge(&c, STATS_UNIT_BYTES, &defaults);
    assert_int_equal(c.verdict, STATS_VERDICT_OK);
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
        cmocka_unit_test(test_an_interval_beyond_the_factor_is_a_regression_whatever_the_cv),
        cmocka_unit_test(test_an_interval_straddling_the_factor_is_noisy),
        cmocka_unit_test(test_runs_on_one_side_are_enough_for_the_interval),
        cmocka_unit_test(test_a_metric_in_one_run_of_each_side_is_noisy),
        cmocka_unit_test(test_the_move_is_rounded_as_summary_rounds),
        cmocka_unit_test(test_zero_baselines),
        cmocka_unit_test(test_a_metric_without_a_direction_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
