/* test_bootstrap.c — the interval behind compare: a run's resampled statistic
 * drawn through order statistics matches resampling sample by sample, a window
 * around the rank gives the very same draws as the whole run, runs add their
 * spread to the interval, the same seed gives the same interval; zeros (a 0
 * sample widens the interval as a tiny one does, a statistic that can be 0,
 * unchanged runs with zeros flag at most once in 20 pairings); and the run
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

#include "stats/compare/bootstrap.h"
#include "stats/compare/compare.h"
#include "stats/compare/comparison.h"
#include "stats/runs/runset.h"
#include "stats/math/variates.h"

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

/* ---- zeros ---- */

/* A run of the n samples given (sorted here), its statistic the median. */
static struct stats_run_metric run_of(double *samples, size_t n)
{
    qsort(samples, n, sizeof *samples, by_value);
    struct stats_run_metric run = {.present = true, .n = n, .window = samples, .from = 0, .len = n};
    stats_summarize((double[]){samples[0]}, 1, &run.summary);
    run.value = stats_percentile_sorted(samples, n, 0.5);
    stats_moments_sorted(samples, n, &run.mean, &run.stddev);
    return run;
}

/* compare's judgement of two sides of runs (as comparison.c makes it), at 99%
 * with the default thresholds, on a metric in `unit`. */
static struct stats_comparison judged(const struct stats_run_metric *const *base, size_t nb,
                                      const struct stats_run_metric *const *current, size_t nn,
                                      enum stats_unit unit, bool lower_is_worse, uint64_t seed)
{
    struct stats_bootstrap settings = {STATS_STAT_MEDIAN, 0.99, 2000, seed};
    struct stats_interval interval;
    assert_int_equal(stats_bootstrap_ratio(base, nb, current, nn, &settings, &interval), 0);
    double b = 0, n = 0;
    for (size_t i = 0; i < nb; i++)
        b += base[i]->value / (double)nb;
    for (size_t i = 0; i < nn; i++)
        n += current[i]->value / (double)nn;
    struct stats_comparison c = {
        .base_runs = nb, .new_runs = nn, .base_given = nb, .new_given = nn};
    stats_comparison_move(&c, b, n);
    c.ratio_low = interval.low;
    c.ratio_high = interval.high;
    c.lower_is_worse = lower_is_worse;
    struct stats_thresholds thresholds = STATS_THRESHOLDS_DEFAULT;
    stats_judge(&c, unit, &thresholds);
    return c;
}

/* Five samples a run around its median m, the lowest `lowest` × m. */
static struct stats_run_metric five(double *storage, double m, double lowest)
{
    const double shape[] = {lowest, 0.95, 1.0, 1.05, 1.1};
    for (size_t i = 0; i < 5; i++)
        storage[i] = shape[i] * m;
    return run_of(storage, 5);
}

/* Two runs a side of five samples, base medians 10 and 13, new 35 and 45.5:
 * with the lowest sample of each run at 0.9× its median the 99% interval was
 * [0.4965, 24.67], noisy; at 0 (a resample of 0 in one of 300) the interval
 * switched to the resampled ratios' percentiles without Student's t (9.9
 * here), [1.2522, 9.1389], and the same runs regressed. The interval cannot
 * depend on whether a sample is 0: as the lowest sample goes to 0 it widens
 * steadily, and at 0 it is where 1e-9 of the median took it. */
static void test_one_zero_sample_does_not_switch_the_interval(void **state)
{
    const double lowest[] = {0.9, 0.5, 0.1, 1e-9, 0.0};
    enum { CASES = sizeof lowest / sizeof *lowest };
    double storage[4][5], low[CASES], high[CASES];
    for (size_t k = 0; k < CASES; k++) {
        struct stats_run_metric b1 = five(storage[0], 10, lowest[k]),
                                b2 = five(storage[1], 13, lowest[k]),
                                n1 = five(storage[2], 35, lowest[k]),
                                n2 = five(storage[3], 45.5, lowest[k]);
        const struct stats_run_metric *base[] = {&b1, &b2}, *current[] = {&n1, &n2};
        struct stats_comparison c = judged(base, 2, current, 2, STATS_UNIT_MILLISECONDS, false, 1);
        print_message("lowest sample %g x median: %s [%g, %g]\n", lowest[k],
                      stats_verdict_name(c.verdict), c.ratio_low, c.ratio_high);
        if (c.verdict != STATS_VERDICT_NOISY)
            fail_msg("lowest %g: %s [%g, %g], not noisy", lowest[k], stats_verdict_name(c.verdict),
                     c.ratio_low, c.ratio_high);
        assert_int_equal(c.noise, STATS_NOISE_INTERVAL);
        assert_true(c.ratio_low < 3.5 && c.ratio_high > 3.5);
        low[k] = c.ratio_low;
        high[k] = c.ratio_high;
        if (k > 0 && log(high[k] / low[k]) < log(high[k - 1] / low[k - 1]))
            fail_msg("lowest %g: the interval narrowed", lowest[k]);
    }
    /* at 0, within 1% of where 1e-9 × the median took it */
    assert_true(fabs(log(low[CASES - 1] / low[CASES - 2])) < 0.01);
    assert_true(fabs(log(high[CASES - 1] / high[CASES - 2])) < 0.01);
}

/* Counts of errors, one sample a run. A side of several runs can be 0 when
 * their statistics' mean less 2.58 of their standard errors reaches 0: a base
 * that can be 0 has no ratio to bound, unless it is 0 in every run (1 over a
 * new side 0 in every run, infinity over one that cannot be 0); a new side
 * that can be 0 has its ratio from 0 up, on the linear scale, each side ±
 * Student's t (9.9) of its standard error. */
static void test_several_runs_with_a_zero_statistic(void **state)
{
    double s[4];
    struct stats_run_metric r[4];
    const struct stats_run_metric *base[] = {&r[0], &r[1]}, *current[] = {&r[2], &r[3]};
    const struct {
        double runs[4]; /* base, base, new, new */
        enum stats_verdict verdict;
        const char *interval; /* "undefined", "one", "inf", "zero", "from zero" or "wide" */
    } cases[] = {
        /* a base run without errors: the base can be 0 */
        {{0, 4, 1, 3}, STATS_VERDICT_OK, "undefined"},
        {{0, 4, 20, 30}, STATS_VERDICT_NOISY, "undefined"}, /* was [5, inf]: regressed */
        {{0, 0, 0, 3}, STATS_VERDICT_NOISY, "undefined"},
        {{0, 0, 0, 0}, STATS_VERDICT_OK, "one"},
        /* errors where there were none, in every new run */
        {{0, 0, 5, 3}, STATS_VERDICT_REGRESSED, "inf"},
        {{20, 22, 0, 0}, STATS_VERDICT_IMPROVED, "zero"},
        /* runs 3-fold apart: their mean less 2.58 of their standard errors
         * reaches 0, so 0 over it may be 0 over 0 */
        {{2, 6, 0, 0}, STATS_VERDICT_NOISY, "undefined"},
        /* a new side that can be 0, over a base clear of it: from 0 up */
        {{20, 22, 0, 3}, STATS_VERDICT_NOISY, "from zero"},
        {{4, 5, 40, 50}, STATS_VERDICT_REGRESSED, "wide"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        for (int i = 0; i < 4; i++) {
            s[i] = cases[k].runs[i];
            r[i] = run_of(&s[i], 1);
        }
        struct stats_comparison c = judged(base, 2, current, 2, STATS_UNIT_COUNT, false, 3);
        print_message("errors %g,%g -> %g,%g: %s [%g, %g]\n", s[0], s[1], s[2], s[3],
                      stats_verdict_name(c.verdict), c.ratio_low, c.ratio_high);
        if (c.verdict != cases[k].verdict)
            fail_msg("case %zu: %s, expected %s", k, stats_verdict_name(c.verdict),
                     stats_verdict_name(cases[k].verdict));
        const char *shape = cases[k].interval;
        if (strcmp(shape, "undefined") == 0) {
            assert_true(stats_comparison_undefined(&c));
            if (c.verdict == STATS_VERDICT_NOISY) assert_int_equal(c.noise, STATS_NOISE_ZERO_BASE);
        } else if (strcmp(shape, "one") == 0) {
            assert_true(c.ratio_low == 1.0 && c.ratio_high == 1.0);
        } else if (strcmp(shape, "inf") == 0) {
            assert_true(isinf(c.ratio_low) && isinf(c.ratio_high));
        } else if (strcmp(shape, "zero") == 0) {
            assert_true(c.ratio_low == 0.0 && c.ratio_high == 0.0);
        } else if (strcmp(shape, "from zero") == 0) {
            assert_true(c.ratio_low == 0.0 && c.ratio < c.ratio_high);
        } else {
            assert_false(stats_comparison_undefined(&c));
            assert_true(c.ratio_low < c.ratio && c.ratio < c.ratio_high);
        }
    }

    /* a loop's lag, one sample a run, a base run of 0.0012 ms and one of
     * 0.31: no resample is 0, but the runs' mean less 2.58 of their standard
     * errors reaches it; its logarithm's spread made 0.0000-1.3e14 of it */
    const double lags[4] = {0.0012, 0.313, 0.29, 0.2};
    for (int i = 0; i < 4; i++) {
        s[i] = lags[i];
        r[i] = run_of(&s[i], 1);
    }
    struct stats_comparison lag = judged(base, 2, current, 2, STATS_UNIT_MILLISECONDS, false, 3);
    assert_true(stats_comparison_undefined(&lag));

    /* a new statistic of 0 whose resamples are not all 0 (runs whose median
     * is 0, of five seconds, two of them with an error): from 0 up to its
     * statistic + t standard errors over the base's − t standard errors */
    double seconds[4][5] = {
        {19, 20, 20, 21, 22}, {21, 22, 22, 23, 24}, {0, 0, 0, 1, 1}, {0, 0, 0, 1, 2}};
    for (int i = 0; i < 4; i++)
        r[i] = run_of(seconds[i], 5);
    struct stats_comparison c = judged(base, 2, current, 2, STATS_UNIT_COUNT, false, 3);
    print_message("errors per second 20, 22 -> 0, 0: %s [%g, %g]\n", stats_verdict_name(c.verdict),
                  c.ratio_low, c.ratio_high);
    assert_int_equal(c.verdict, STATS_VERDICT_IMPROVED);
    assert_true(c.ratio == 0.0 && c.ratio_low == 0.0 && c.ratio_high > 0.0 &&
                c.ratio_high < 1.0 / 1.1);
    /* over a base whose range ± t (9.9) standard errors then reaches 0 (runs
     * of medians 10 and 13), unbounded above */
    double low_seconds[2][5] = {{9, 9.5, 10, 10.5, 11}, {12, 12.5, 13, 13.5, 14}};
    r[0] = run_of(low_seconds[0], 5);
    r[1] = run_of(low_seconds[1], 5);
    c = judged(base, 2, current, 2, STATS_UNIT_COUNT, false, 3);
    assert_int_equal(c.verdict, STATS_VERDICT_NOISY);
    assert_true(c.ratio_low == 0.0 && isinf(c.ratio_high));
}

/* A/A with zeros present: 20 pairings of two unchanged runs against two
 * flag a metric (regressed or improved) at most once, for latencies whose
 * lowest sample is 0, errors per second (Poisson, 2 a second: 0 in one second
 * of seven), and a per-second timeline of which a fifth of the seconds are 0.
 * Runs differ from run to run by 30% (lognormal), as a shared machine's do. */
enum family { LATENCY_WITH_A_ZERO, ERRORS_PER_SECOND, TIMELINE_WITH_ZEROS };

static double poisson(struct stats_rng *rng, double mean)
{
    double p = stats_rng_open01(rng), limit = exp(-mean);
    unsigned count = 0;
    while (p > limit) {
        p *= stats_rng_open01(rng);
        count++;
    }
    return count;
}

static size_t unchanged_run(enum family family, struct stats_rng *rng, double *samples)
{
    double level = exp(0.3 * stats_normal(rng));
    size_t n = family == LATENCY_WITH_A_ZERO ? 5 : 10;
    for (size_t i = 0; i < n; i++)
        samples[i] = family == ERRORS_PER_SECOND ? poisson(rng, 2.0 * level)
                                                 : 100.0 * level * exp(0.05 * stats_normal(rng));
    if (family == LATENCY_WITH_A_ZERO) samples[0] = 0.0;
    if (family == TIMELINE_WITH_ZEROS)
        for (size_t i = 0; i < n; i++)
            if (stats_rng_open01(rng) < 0.2) samples[i] = 0.0;
    return n;
}

static void test_unchanged_runs_with_zeros_flag_at_most_once_in_20_pairings(void **state)
{
    static const char *const names[] = {"latencies with a 0", "errors per second",
                                        "timeline with 0s"};
    struct stats_rng rng;
    stats_rng_seed(&rng, 2024);
    for (int family = LATENCY_WITH_A_ZERO; family <= TIMELINE_WITH_ZEROS; family++) {
        int alarms = 0, runs_with_a_zero = 0;
        for (int pairing = 0; pairing < 20; pairing++) {
            double samples[4][10];
            struct stats_run_metric runs[4];
            for (int i = 0; i < 4; i++)
                runs[i] = run_of(samples[i], unchanged_run(family, &rng, samples[i]));
            const struct stats_run_metric *base[] = {&runs[0], &runs[1]},
                                          *current[] = {&runs[2], &runs[3]};
            struct stats_comparison c =
                judged(base, 2, current, 2, STATS_UNIT_COUNT, false, (uint64_t)pairing + 1);
            bool alarm =
                c.verdict == STATS_VERDICT_REGRESSED || c.verdict == STATS_VERDICT_IMPROVED;
            if (alarm)
                print_message("%s, pairing %d: %s, %g -> %g, [%g, %g]\n", names[family], pairing,
                              stats_verdict_name(c.verdict), c.base, c.current, c.ratio_low,
                              c.ratio_high);
            alarms += alarm;
            for (int i = 0; i < 4; i++)
                runs_with_a_zero += runs[i].window[0] == 0.0;
        }
        print_message("%s: %d false alarms in 20 pairings\n", names[family], alarms);
        assert_true(runs_with_a_zero > 0); /* the zeros are there */
        if (alarms > 1) fail_msg("%s: %d of 20 unchanged pairings flagged", names[family], alarms);
    }
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

/* A watched tree's memory is in its tree's row and again in its commands':
 * each measured quantity counts once in the tally and the exit status, and
 * a smaller bytes_received (gzip's purpose) is changed, not less work done.
 * On an A/B of nginx with and without gzip the tally said "6 improved", the
 * tree's memory rows counted twice, and bytes_received regressed. */
static void test_compare_counts_each_quantity_once(void **state)
{
    char dir[] = "/tmp/test_bootstrap.XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *const texts[] = {
        "{\"metrics\": {\"c4.watch.w.rss_bytes\": {\"unit\": \"bytes\", \"samples\": [100, 100]},"
        " \"c4.watch.w.nginx.rss_bytes\": {\"unit\": \"bytes\", \"samples\": [100, 100]},"
        " \"c4.watch.w.cat.rss_bytes\": {\"unit\": \"bytes\", \"samples\": [10, 10]},"
        " \"c4.bytes_received\": {\"unit\": \"bytes\", \"samples\": [1000]}}}",
        /* the tree's memory halved, one command's up 50%, a third of the bytes */
        "{\"metrics\": {\"c4.watch.w.rss_bytes\": {\"unit\": \"bytes\", \"samples\": [50, 50]},"
        " \"c4.watch.w.nginx.rss_bytes\": {\"unit\": \"bytes\", \"samples\": [50, 50]},"
        " \"c4.watch.w.cat.rss_bytes\": {\"unit\": \"bytes\", \"samples\": [15, 15]},"
        " \"c4.bytes_received\": {\"unit\": \"bytes\", \"samples\": [333]}}}"};
    char *a = write_doc(dir, "a.json", texts[0]), *b = write_doc(dir, "b.json", texts[1]);
    char error[512];
    struct stats_runset base, current;
    assert_int_equal(stats_runset_read(&base, a, STATS_STAT_MEDIAN, true, error, sizeof error), 0);
    assert_int_equal(stats_runset_read(&current, b, STATS_STAT_MEDIAN, true, error, sizeof error),
                     0);
    struct stats_compare_settings settings = STATS_COMPARE_SETTINGS_DEFAULT;
    struct stats_compare_report report;
    assert_int_equal(stats_compare_runsets(&base, &current, &settings, &report), 0);
    assert_int_equal(report.n_rows, 4);
    const char *const verdicts[] = {"improved", "improved", "regressed", "changed"};
    const bool counted[] = {true, false, false, true};
    for (size_t i = 0; i < 4; i++) {
        const struct stats_compare_row *row = &report.rows[i];
        if (strcmp(stats_verdict_name(row->result.verdict), verdicts[i]) != 0 ||
            row->counted != counted[i])
            fail_msg("%s: %s, counted %d", row->key, stats_verdict_name(row->result.verdict),
                     row->counted);
    }
    struct stats_compare_tally tally;
    stats_compare_tally(&report, &tally);
    assert_int_equal(tally.compared, 2);
    assert_int_equal(tally.parts, 2);
    assert_int_equal(tally.verdicts[STATS_VERDICT_IMPROVED], 1);
    assert_int_equal(tally.verdicts[STATS_VERDICT_CHANGED], 1);
    assert_int_equal(tally.verdicts[STATS_VERDICT_REGRESSED], 0);
    char text[256];
    stats_compare_tally_text(&report, text, sizeof text);
    assert_string_equal(text, "2 compared: 0 regressed, 1 improved, 1 changed, 0 noisy, 0 tiny, "
                              "0 ok; 2 rows of commands in watched trees shown, not counted");
    /* a command's memory regressed, inside a tree that did not: no exit 1 */
    assert_true(report.rows[2].result.significant);
    assert_false(stats_compare_regressed(&report));
    stats_compare_report_free(&report);
    /* the other way round, the tree's own row regressed: exit 1 */
    assert_int_equal(stats_compare_runsets(&current, &base, &settings, &report), 0);
    assert_true(stats_compare_regressed(&report));
    stats_compare_report_free(&report);
    stats_runset_free(&base);
    stats_runset_free(&current);
    unlink(a);
    unlink(b);
    rmdir(dir);
    free(a);
    free(b);
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
        cmocka_unit_test(test_one_zero_sample_does_not_switch_the_interval),
        cmocka_unit_test(test_several_runs_with_a_zero_statistic),
        cmocka_unit_test(test_unchanged_runs_with_zeros_flag_at_most_once_in_20_pairings),
        cmocka_unit_test(test_run_sets_read_lists_and_zero_missing_counts),
        cmocka_unit_test(test_samples_near_the_largest_double_compare_finitely),
        cmocka_unit_test(test_compare_counts_each_quantity_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
