/* test_bootstrap.c — the interval behind compare: a run's resampled statistic
 * drawn through order statistics matches resampling sample by sample, a window
 * around the rank gives the very same draws as the whole run, runs add their
 * spread to the interval, the same seed gives the same interval; and the run
 * sets it is computed on (lists of documents, a count a run lacks is 0). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stats/bootstrap.h"
#include "stats/comparison.h"
#include "stats/runset.h"
#include "stats/variates.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A run of n samples value(i), sorted, its window the whole run. */
static struct stats_run_metric make_run(double *storage, size_t n, double scale, double shift)
{
    for (size_t i = 0; i < n; i++) /* a skewed distribution, like latencies */
        storage[i] = shift + scale * pow((double)(i + 1) / (double)n, 3.0);
    qsort(storage, n, sizeof *storage, by_value);
    struct stats_run_metric run = {.present = true, .n = n, .window = storage, .from = 0, .len = n};
    stats_summarize((double[]){storage[0]}, 1, &run.summary);
    run.value = stats_percentile_sorted(storage, n, 0.5);
    double mean, sd;
    stats_moments_sorted(storage, n, &mean, &sd);
    run.mean = mean;
    run.stddev = sd;
    return run;
}

static void quantiles(double *v, size_t n, double out[3])
{
    qsort(v, n, sizeof *v, by_value);
    out[0] = stats_percentile_sorted(v, n, 0.05);
    out[1] = stats_percentile_sorted(v, n, 0.5);
    out[2] = stats_percentile_sorted(v, n, 0.95);
}

static void test_variates_have_their_means(void **state)
{
    struct stats_rng rng;
    stats_rng_seed(&rng, 3);
    double beta = 0, normal = 0, normal2 = 0;
    for (int i = 0; i < 20000; i++) {
        beta += stats_beta(&rng, 30.0, 70.0);
        double z = stats_normal(&rng);
        normal += z;
        normal2 += z * z;
    }
    assert_true(fabs(beta / 20000 - 0.3) < 0.003);
    assert_true(fabs(normal / 20000) < 0.03);
    assert_true(fabs(normal2 / 20000 - 1.0) < 0.05);
    double gamma = 0;
    for (int i = 0; i < 20000; i++)
        gamma += stats_gamma(&rng, 1000.0);
    assert_true(fabs(gamma / 20000 - 1000.0) < 1.0);
}

/* Resampling a run sample by sample and taking its percentile, as the
 * definition says: what the order-statistic draw must reproduce. */
static double brute_percentile(const double *sorted, size_t n, double q, double *scratch,
                               struct stats_rng *rng)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = sorted[stats_rng_below(rng, n)];
    qsort(scratch, n, sizeof *scratch, by_value);
    return stats_percentile_sorted(scratch, n, q);
}

static void test_order_statistic_draws_match_resampling(void **state)
{
    enum { N = 200, DRAWS = 4000 };
    static double samples[N], scratch[N], fast[DRAWS], slow[DRAWS];
    struct stats_run_metric run = make_run(samples, N, 10.0, 1.0);
    const struct {
        enum stats_statistic statistic;
        double q;
    } cases[] = {{STATS_STAT_MEDIAN, 0.5}, {STATS_STAT_P90, 0.9}, {STATS_STAT_P99, 0.99}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct stats_rng a, b;
        stats_rng_seed(&a, 11);
        stats_rng_seed(&b, 12);
        for (int i = 0; i < DRAWS; i++) {
            fast[i] = stats_bootstrap_run(&run, cases[c].statistic, &a);
            slow[i] = brute_percentile(samples, N, cases[c].q, scratch, &b);
        }
        double qf[3], qs[3];
        quantiles(fast, DRAWS, qf);
        quantiles(slow, DRAWS, qs);
        double spread = qs[2] - qs[0];
        for (int k = 0; k < 3; k++)
            if (fabs(qf[k] - qs[k]) > 0.1 * spread)
                fail_msg("statistic %d, quantile %d: %g drawn, %g resampled (spread %g)", (int)c, k,
                         qf[k], qs[k], spread);
    }
    /* the mean of a small run, resampled exactly */
    struct stats_rng a;
    stats_rng_seed(&a, 5);
    for (int i = 0; i < DRAWS; i++)
        fast[i] = stats_bootstrap_run(&run, STATS_STAT_MEAN, &a);
    double qf[3];
    quantiles(fast, DRAWS, qf);
    double se = run.stddev / sqrt((double)N);
    assert_true(fabs(qf[1] - run.mean) < 0.1 * se);
    assert_true(fabs((qf[2] - qf[0]) / (2 * 1.645 * se) - 1.0) < 0.1);
}

static void test_a_window_draws_what_the_whole_run_draws(void **state)
{
    enum { N = 1000000 };
    double *samples = malloc(N * sizeof *samples);
    assert_non_null(samples);
    struct stats_run_metric whole = make_run(samples, N, 5.0, 0.2);
    /* the window runset.c keeps for the median: 8 sigmas of the rank each side */
    double half = ceil(8.0 * sqrt(N * 0.25)) + 2.0;
    size_t from = (size_t)(0.5 * (N - 1) - half), to = (size_t)(0.5 * (N - 1) + half) + 2;
    struct stats_run_metric windowed = whole;
    windowed.window = samples + from;
    windowed.from = from;
    windowed.len = to - from;
    struct stats_rng a, b;
    stats_rng_seed(&a, 99);
    stats_rng_seed(&b, 99);
    for (int i = 0; i < 20000; i++) {
        double x = stats_bootstrap_run(&whole, STATS_STAT_MEDIAN, &a);
        double y = stats_bootstrap_run(&windowed, STATS_STAT_MEDIAN, &b);
        if (x != y) fail_msg("draw %d: %g from the whole run, %g from the window", i, x, y);
    }
    free(samples);
}

static void interval(const struct stats_run_metric *const *base, size_t nb,
                     const struct stats_run_metric *const *current, size_t nn, uint64_t seed,
                     double *low, double *high)
{
    struct stats_bootstrap settings = {STATS_STAT_MEDIAN, 0.95, 2000, seed};
    struct stats_interval out;
    assert_int_equal(stats_bootstrap_ratio(base, nb, current, nn, &settings, &out), 0);
    *low = out.low;
    *high = out.high;
}

static void test_runs_add_their_spread_to_the_interval(void **state)
{
    enum { N = 2000 };
    static double s1[N], s2[N], s3[N], s4[N];
    struct stats_run_metric a = make_run(s1, N, 1.0, 1.0), b = make_run(s2, N, 1.0, 1.0);
    /* a second base run 20% slower: run-to-run noise */
    struct stats_run_metric c = make_run(s3, N, 1.2, 1.2), d = make_run(s4, N, 1.0, 1.0);
    const struct stats_run_metric *one[] = {&a}, *other[] = {&b}, *noisy[] = {&a, &c},
                                  *quiet[] = {&b, &d};
    double low, high;
    interval(one, 1, other, 1, 1, &low, &high);
    assert_true(low < 1.0 && high > 1.0);
    assert_true(high - low < 0.2); /* within-run noise of 2000 samples */
    double low2, high2;
    interval(noisy, 2, quiet, 2, 1, &low2, &high2);
    /* the slow base run shows: from {a, a} (ratio 1) to {c, c} (ratio 1/1.2) */
    assert_true(high2 - low2 > 2 * (high - low));
    assert_true(low2 < 1.0 / 1.15 && high2 > 0.99);
    /* the same seed, the same interval; another seed, nearly */
    double again_low, again_high;
    interval(noisy, 2, quiet, 2, 1, &again_low, &again_high);
    assert_true(again_low == low2 && again_high == high2);
    interval(noisy, 2, quiet, 2, 2, &again_low, &again_high);
    print_message("one run a side %g-%g; two %g-%g; another seed %g-%g\n", low, high, low2, high2,
                  again_low, again_high);
    assert_true(fabs(again_low - low2) < 0.03 && fabs(again_high - high2) < 0.03);
}

static void test_zero_bases_give_infinite_ratios(void **state)
{
    double zero = 0.0, three = 3.0;
    struct stats_run_metric z = {.present = true, .n = 1, .window = &zero, .len = 1},
                            t = {.present = true, .n = 1, .window = &three, .len = 1};
    const struct stats_run_metric *zs[] = {&z}, *ts[] = {&t};
    double low, high;
    interval(zs, 1, zs, 1, 1, &low, &high);
    assert_true(low == 1.0 && high == 1.0);
    interval(zs, 1, ts, 1, 1, &low, &high);
    assert_true(isinf(low) && isinf(high));
}

/* ---- run sets ---- */

static char *write_doc(const char *dir, const char *name, const char *text)
{
    char *path = malloc(512);
    assert_non_null(path);
    snprintf(path, 512, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_run_sets_read_lists_and_zero_missing_counts(void **state)
{
    char dir[] = "/tmp/test_bootstrap.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *a = write_doc(dir, "a.json",
                        "{\"metrics\": {\"c1.latency_warm_ms\": {\"unit\": \"milliseconds\", "
                        "\"samples\": [1, 2, 3]}, \"c1.errors.timeout\": {\"unit\": \"count\", "
                        "\"samples\": [4]}}}");
    char *b = write_doc(dir, "b.json",
                        "{\"metrics\": {\"c1.latency_warm_ms\": {\"unit\": \"milliseconds\", "
                        "\"samples\": [5, 6]}}}");
    char *c = write_doc(dir, "c.json",
                        "{\"metrics\": {\"c1.latency_warm_ms\": {\"unit\": \"seconds\", "
                        "\"samples\": [5]}}}");
    char list[1200], error[512];
    snprintf(list, sizeof list, "%s,%s", a, b);
    struct stats_runset set;
    assert_int_equal(stats_runset_read(&set, list, STATS_STAT_MEDIAN, true, error, sizeof error),
                     0);
    assert_int_equal(set.n_runs, 2);
    assert_int_equal(set.keys.count, 2);
    const struct stats_runset_metric *warm = &set.metrics[0], *timeouts = &set.metrics[1];
    assert_int_equal(warm->present, 2);
    assert_true(warm->runs[0].value == 2.0 && warm->runs[1].value == 5.5);
    assert_int_equal(warm->runs[1].len, 2); /* a small run keeps all its samples */
    /* the count b lacks is 0 there, not a run missing */
    assert_int_equal(timeouts->present, 2);
    assert_true(timeouts->runs[0].value == 4.0 && timeouts->runs[1].value == 0.0);
    stats_runset_free(&set);

    /* one unit in one run, another in the next */
    snprintf(list, sizeof list, "%s,%s", a, c);
    assert_int_equal(stats_runset_read(&set, list, STATS_STAT_MEDIAN, true, error, sizeof error),
                     1);
    assert_non_null(strstr(error, "c.json: \"c1.latency_warm_ms\" is in seconds here but in "
                                  "milliseconds in an earlier run"));
    stats_runset_free(&set);
    /* an empty name in the list */
    snprintf(list, sizeof list, "%s,,%s", a, b);
    assert_int_equal(stats_runset_read(&set, list, STATS_STAT_MEDIAN, true, error, sizeof error),
                     2);
    assert_non_null(strstr(error, "an empty name in the list of runs"));
    stats_runset_free(&set);

    /* compare's rows: a count of work done is worse lower; latency has its p99 */
    struct stats_runset base, current;
    snprintf(list, sizeof list, "%s,%s", a, b);
    assert_int_equal(stats_runset_read(&base, list, STATS_STAT_MEDIAN, true, error, sizeof error),
                     0);
    assert_int_equal(stats_runset_read(&current, a, STATS_STAT_MEDIAN, true, error, sizeof error),
                     0);
    struct stats_compare_settings settings = STATS_COMPARE_SETTINGS_DEFAULT;
    struct stats_compare_report report;
    assert_int_equal(stats_compare_runsets(&base, &current, &settings, &report), 0);
    assert_int_equal(report.n_rows, 2);
    assert_string_equal(report.rows[0].key, "c1.latency_warm_ms");
    assert_true(report.rows[0].has_p99);
    assert_int_equal(report.rows[0].result.base_runs, 2);
    assert_int_equal(report.rows[0].result.new_runs, 1);
    assert_true(report.rows[0].result.base == 3.75 && report.rows[0].result.current == 2.0);
    assert_false(report.rows[1].has_p99);
    assert_false(report.rows[1].result.lower_is_worse);
    stats_compare_report_free(&report);
    stats_runset_free(&base);
    stats_runset_free(&current);

    unlink(a);
    unlink(b);
    unlink(c);
    rmdir(dir);
    free(a);
    free(b);
    free(c);
}

/* Runs of samples near the largest double: each side's statistic (a mean
 * over its runs), the move and the interval are finite numbers, not the inf
 * and nan of sums that overflow. */
static void test_samples_near_the_largest_double_compare_finitely(void **state)
{
    char dir[] = "/tmp/test_bootstrap.XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *const texts[] = {
        "{\"metrics\": {\"c1.latency_warm_ms\": {\"unit\": \"milliseconds\", \"samples\": "
        "[1.5e308, 1.6e308, 1.7e308]}}}",
        "{\"metrics\": {\"c1.latency_warm_ms\": {\"unit\": \"milliseconds\", \"samples\": "
        "[1.4e308, 1.5e308, 1.6e308]}}}"};
    char *a = write_doc(dir, "a.json", texts[0]), *b = write_doc(dir, "b.json", texts[1]);
    char base_list[1100], new_list[1100], error[512];
    snprintf(base_list, sizeof base_list, "%s,%s", a, b);
    snprintf(new_list, sizeof new_list, "%s,%s", b, b);
    struct stats_runset base, current;
    assert_int_equal(
        stats_runset_read(&base, base_list, STATS_STAT_MEDIAN, true, error, sizeof error), 0);
    assert_int_equal(
        stats_runset_read(&current, new_list, STATS_STAT_MEDIAN, true, error, sizeof error), 0);
    struct stats_compare_settings settings = STATS_COMPARE_SETTINGS_DEFAULT;
    struct stats_compare_report report;
    assert_int_equal(stats_compare_runsets(&base, &current, &settings, &report), 0);
    const struct stats_comparison *c = &report.rows[0].result;
    print_message("base %g new %g delta %g ratio %g [%g, %g]\n", c->base, c->current, c->delta_abs,
                  c->ratio, c->ratio_low, c->ratio_high);
    assert_true(fabs(c->base - 1.55e308) < 1e294 && c->current == 1.5e308);
    assert_true(isfinite(c->delta_abs) && isfinite(c->delta_pct) &&
                isfinite(report.rows[0].base_p99));
    assert_true(fabs(c->ratio - 1.5 / 1.55) < 1e-12);
    assert_true(c->ratio_low > 0 && c->ratio_low < c->ratio && c->ratio < c->ratio_high &&
                isfinite(c->ratio_high));
    stats_compare_report_free(&report);
    stats_runset_free(&base);
    stats_runset_free(&current);
    unlink(a);
    unlink(b);
    rmdir(dir);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variates_have_their_means),
        cmocka_unit_test(test_order_statistic_draws_match_resampling),
        cmocka_unit_test(test_a_window_draws_what_the_whole_run_draws),
        cmocka_unit_test(test_runs_add_their_spread_to_the_interval),
        cmocka_unit_test(test_zero_bases_give_infinite_ratios),
        cmocka_unit_test(test_run_sets_read_lists_and_zero_missing_counts),
        cmocka_unit_test(test_samples_near_the_largest_double_compare_finitely),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
