/* test_merge.c — the typed merge of collector documents: counts summed (with 0
 * for a document that lacks the key), timelines added second by second, samples
 * pooled, and, where --max-samples cut an input, a draw weighted by the true
 * counts that is a uniform sample of all requests (checked statistically);
 * and the table of metric kinds it merges by (kinds, directions, parts). */
#include <math.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/runs/merge.h"
#include "stats/read/metrickind.h"
#include "stats/math/sampling.h"

static double *copy_of(const double *values, size_t n)
{
    double *copy = malloc(n * sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, values, n * sizeof *copy);
    return copy;
}

static void add_seen(struct stats_merge *m, size_t doc, const char *key, enum stats_unit unit,
                     const double *values, size_t n, uint64_t seen)
{
    char error[256];
    double *samples = copy_of(values, n);
    int rc = stats_merge_add(m, doc, key, unit, &samples, n, seen, error, sizeof error);
    if (rc != 0) fail_msg("stats_merge_add %s: %s", key, error);
    assert_null(samples);
}

static void add(struct stats_merge *m, size_t doc, const char *key, enum stats_unit unit,
                const double *values, size_t n)
{
    add_seen(m, doc, key, unit, values, n, n);
}

static void finish(struct stats_merge *m, size_t max_samples, uint64_t seed)
{
    struct stats_merge_options options = {.max_samples = max_samples, .seed = seed};
    char error[256];
    assert_int_equal(stats_merge_finish(m, &options, error, sizeof error), 0);
}

static const struct stats_merged_metric *find(const struct stats_merge *m, const char *key)
{
    long at = keyindex_find(&m->keys, key, strlen(key));
    if (at < 0) fail_msg("no merged metric %s", key);
    return &m->metrics[at];
}

static double only_sample(const struct stats_merge *m, const char *key)
{
    const struct stats_merged_metric *metric = find(m, key);
    assert_int_equal(metric->n, 1);
    return metric->samples[0];
}

/* ---- what each metric is ---- */

static void test_metric_kinds_follow_name_and_unit(void **state)
{
    static const struct {
        const char *key;
        enum stats_unit unit;
        enum stats_metric_kind kind;
    } table[] = {
        {"c64.attempts", STATS_UNIT_COUNT, STATS_KIND_COUNT},
        {"c64.errors.connect_refused", STATS_UNIT_COUNT, STATS_KIND_COUNT},
        {"c64.rcode.NXDOMAIN", STATS_UNIT_COUNT, STATS_KIND_COUNT},
        {"c64.scheduled", STATS_UNIT_COUNT, STATS_KIND_COUNT},
        {"c64.unsent", STATS_UNIT_COUNT, STATS_KIND_COUNT},
        {"c64.send_blocked", STATS_UNIT_COUNT, STATS_KIND_COUNT},
        {"c64.rx_dropped", STATS_UNIT_COUNT, STATS_KIND_COUNT},
        {"c64.bytes_received", STATS_UNIT_BYTES, STATS_KIND_COUNT},
        {"c64.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, STATS_KIND_TIMELINE},
        {"c64.ran_s", STATS_UNIT_SECONDS, STATS_KIND_SPAN},
        {"c64.latency_warm_ms", STATS_UNIT_MILLISECONDS, STATS_KIND_SAMPLES},
        {"c64.send_lag_ms", STATS_UNIT_MILLISECONDS, STATS_KIND_SAMPLES},
        {"c64.generator_rss_bytes", STATS_UNIT_BYTES, STATS_KIND_GAUGE},
        {"c64.generator_cpu_s", STATS_UNIT_SECONDS, STATS_KIND_TIMELINE},
        {"c64.watch.nginx.fds", STATS_UNIT_COUNT, STATS_KIND_GAUGE},
        {"c64.watch.nginx.nginx.rss_bytes", STATS_UNIT_BYTES, STATS_KIND_GAUGE},
        {"c64.watch.nginx.cpu_s", STATS_UNIT_SECONDS, STATS_KIND_TIMELINE},
        {"c64.shard3.generator_rss_bytes", STATS_UNIT_BYTES, STATS_KIND_GAUGE},
        {"c64.input1.shard0.loop_lag_ms", STATS_UNIT_MILLISECONDS, STATS_KIND_GAUGE},
        {"c64.target.7.latency_warm_ms", STATS_UNIT_MILLISECONDS, STATS_KIND_SAMPLES},
        {"c64.loop_lag_ms", STATS_UNIT_MILLISECONDS, STATS_KIND_GAUGE},
        {"requests", STATS_UNIT_COUNT, STATS_KIND_COUNT},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (stats_metric_kind(table[i].key, table[i].unit) != table[i].kind)
            fail_msg("%s: %s, expected %s", table[i].key,
                     stats_metric_kind_name(stats_metric_kind(table[i].key, table[i].unit)),
                     stats_metric_kind_name(table[i].kind));
    assert_string_equal(stats_key_metric("c64.errors.timeout"), "errors.timeout");
    assert_string_equal(stats_key_metric("c.x"), "c.x");
    assert_string_equal(stats_key_metric("c12."), "c12.");
}

/* Which direction compare calls worse, and which rows are parts of another's
 * quantity (counted once, as the whole). */
static void test_metric_directions_and_parts(void **state)
{
    static const struct {
        const char *key;
        enum stats_unit unit;
        const char *worse; /* "higher", "lower" or "neither" */
        bool part;
    } table[] = {
        {"c64.requests", STATS_UNIT_COUNT, "lower", false},
        {"c64.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, "lower", false},
        {"c64.errors.timeout", STATS_UNIT_COUNT, "higher", false},
        {"c64.latency_warm_ms", STATS_UNIT_MILLISECONDS, "higher", false},
        /* compressed, or less work done: the change decides */
        {"c64.bytes_received", STATS_UNIT_BYTES, "neither", false},
        /* with --conn-requests they follow the work done, without it failures */
        {"c64.connections", STATS_UNIT_COUNT, "neither", false},
        {"c64.connect_attempts", STATS_UNIT_COUNT, "neither", false},
        {"c64.reconnects", STATS_UNIT_COUNT, "neither", false},
        {"c64.tls_resumed", STATS_UNIT_COUNT, "neither", false},
        {"c64.watch.nginx.rss_bytes", STATS_UNIT_BYTES, "higher", false},
        {"c64.watch.nginx.cpu_s", STATS_UNIT_SECONDS, "higher", false},
        {"c64.watch.nginx.fds", STATS_UNIT_COUNT, "higher", false},
        /* a command inside the tree: a part of the tree's own row */
        {"c64.watch.nginx.nginx.rss_bytes", STATS_UNIT_BYTES, "higher", true},
        {"c64.watch.nginx.nginx.pss_bytes", STATS_UNIT_BYTES, "higher", true},
        {"c64.watch.nginx.cache_mgr.cpu_s", STATS_UNIT_SECONDS, "higher", true},
        {"c64.watch.nginx.nginx.fds", STATS_UNIT_COUNT, "higher", true},
        {"c64.shard1.watch.nginx.nginx.uss_bytes", STATS_UNIT_BYTES, "higher", true},
        {"c64.shard1.watch.nginx.uss_bytes", STATS_UNIT_BYTES, "higher", false},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        struct stats_metric_info info;
        stats_metric_info(table[i].key, table[i].unit, &info);
        const char *worse = info.directionless    ? "neither"
                            : info.lower_is_worse ? "lower"
                                                  : "higher";
        if (strcmp(worse, table[i].worse) != 0 || info.part != table[i].part)
            fail_msg("%s: worse %s, part %d; expected %s, %d", table[i].key, worse, info.part,
                     table[i].worse, table[i].part);
    }
}

static void test_the_level_of_a_key(void **state)
{
    (void)state;
    unsigned long clients = 7;
    const char *metric = NULL;
    assert_true(stats_key_level("c64.latency_warm_ms", &clients, &metric));
    assert_int_equal(clients, 64);
    assert_string_equal(metric, "latency_warm_ms");
    assert_true(stats_key_level("c0.watch.nginx.fds", &clients, &metric));
    assert_int_equal(clients, 0);
    assert_string_equal(metric, "watch.nginx.fds");
    static const char *const levelless[] = {"requests", "c.x",   "c12.", "c12x.y",
                                            "64.x",     "C64.x", "c-1.x"};
    for (size_t i = 0; i < sizeof levelless / sizeof *levelless; i++) {
        clients = 7;
        if (stats_key_level(levelless[i], &clients, &metric) || clients != 7)
            fail_msg("%s read as a level", levelless[i]);
        assert_string_equal(stats_key_metric(levelless[i]), levelless[i]);
    }
    /* a level beyond an unsigned long is no level, for every command alike */
    char key[64];
    snprintf(key, sizeof key, "c%lu.bytes_received", ULONG_MAX / 10);
    assert_true(stats_key_level(key, &clients, &metric));
    assert_true(clients == ULONG_MAX / 10);
    snprintf(key, sizeof key, "c%lu0.bytes_received", ULONG_MAX);
    assert_false(stats_key_level(key, &clients, &metric));
    assert_string_equal(stats_key_metric(key), key);
    assert_int_equal(stats_metric_kind(key, STATS_UNIT_BYTES), STATS_KIND_SAMPLES);
}

/* ---- counts ---- */

static void test_counts_are_summed_with_zero_for_absent_keys(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 3);
    for (size_t d = 0; d < 3; d++) {
        add(&m, d, "c8.attempts", STATS_UNIT_COUNT, (double[]){100.0 * (double)(d + 1)}, 1);
        add(&m, d, "c8.bytes_received", STATS_UNIT_BYTES, (double[]){1000.0 + (double)d}, 1);
    }
    /* classes and rcodes are written only where non-zero: present in some documents */
    add(&m, 1, "c8.errors.timeout", STATS_UNIT_COUNT, (double[]){3}, 1);
    add(&m, 2, "c8.errors.timeout", STATS_UNIT_COUNT, (double[]){4}, 1);
    add(&m, 0, "c8.rcode.NXDOMAIN", STATS_UNIT_COUNT, (double[]){7}, 1);
    add(&m, 0, "c8.scheduled", STATS_UNIT_COUNT, (double[]){50}, 1);
    add(&m, 2, "c8.scheduled", STATS_UNIT_COUNT, (double[]){60}, 1);
    add(&m, 1, "c8.send_blocked", STATS_UNIT_COUNT, (double[]){2}, 1);
    add(&m, 0, "c8.unsent", STATS_UNIT_COUNT, (double[]){0}, 1);
    finish(&m, 0, 1);
    finish(&m, 0, 1); /* idempotent: a second finish changes nothing */
    assert_true(only_sample(&m, "c8.attempts") == 600.0);
    assert_true(only_sample(&m, "c8.bytes_received") == 3003.0);
    assert_true(only_sample(&m, "c8.errors.timeout") == 7.0);
    assert_true(only_sample(&m, "c8.rcode.NXDOMAIN") == 7.0);
    assert_true(only_sample(&m, "c8.scheduled") == 110.0);
    assert_true(only_sample(&m, "c8.send_blocked") == 2.0);
    assert_true(only_sample(&m, "c8.unsent") == 0.0);
    const struct stats_merged_metric *timeout = find(&m, "c8.errors.timeout");
    assert_int_equal(timeout->documents, 2);
    assert_true(timeout->parts[0].n == 0 && timeout->parts[1].n == 1 && timeout->parts[2].n == 1);
    assert_int_equal(find(&m, "c8.attempts")->documents, 3);
    stats_merge_free(&m);
}

static void test_count_with_several_samples_is_refused(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 2);
    char error[256];
    double *samples = copy_of((double[]){1, 2}, 2);
    assert_int_equal(stats_merge_add(&m, 0, "c1.requests", STATS_UNIT_COUNT, &samples, 2, 2, error,
                                     sizeof error),
                     -1);
    assert_non_null(strstr(error, "c1.requests"));
    assert_non_null(strstr(error, "one sample"));
    free(samples); /* still the caller's */
    stats_merge_free(&m);
}

/* ---- samples ---- */

static void test_one_sample_latencies_are_pooled_not_summed(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 3);
    add(&m, 0, "c1.latency_cold_ms", STATS_UNIT_MILLISECONDS, (double[]){2.5}, 1);
    add(&m, 1, "c1.latency_cold_ms", STATS_UNIT_MILLISECONDS, (double[]){3.5}, 1);
    add(&m, 2, "c1.latency_cold_ms", STATS_UNIT_MILLISECONDS, (double[]){4.5}, 1);
    add(&m, 0, "c1.latency_warm_ms", STATS_UNIT_MILLISECONDS, (double[]){0.5, 0.6}, 2);
    add(&m, 2, "c1.latency_warm_ms", STATS_UNIT_MILLISECONDS, (double[]){0.7}, 1);
    finish(&m, 0, 1);
    const struct stats_merged_metric *cold = find(&m, "c1.latency_cold_ms");
    assert_int_equal(cold->n, 3);
    assert_true(cold->samples[0] == 2.5 && cold->samples[1] == 3.5 && cold->samples[2] == 4.5);
    assert_false(cold->drawn);
    const struct stats_merged_metric *warm = find(&m, "c1.latency_warm_ms");
    assert_int_equal(warm->n, 3);
    assert_true(warm->samples[0] == 0.5 && warm->samples[1] == 0.6 && warm->samples[2] == 0.7);
    stats_merge_free(&m);
}

/* ---- gauges and per-second series of the generators ---- */

static void test_gauges_are_kept_apart_per_document(void **state)
{
    struct stats_merge m;
    assert_int_equal(stats_merge_init(&m, 3), 0);
    assert_int_equal(stats_merge_name_part(&m, 2, "shard7"), 0);
    add(&m, 0, "c1.watch.x.fds", STATS_UNIT_COUNT, (double[]){5, 6}, 2);
    add(&m, 1, "c1.watch.x.fds", STATS_UNIT_COUNT, (double[]){7}, 1);
    add(&m, 0, "c1.generator_rss_bytes", STATS_UNIT_BYTES, (double[]){100, 200}, 2);
    add(&m, 2, "c1.generator_rss_bytes", STATS_UNIT_BYTES, (double[]){300}, 1);
    finish(&m, 0, 1);
    const struct stats_merged_metric *fds = find(&m, "c1.input0.watch.x.fds");
    assert_int_equal(fds->n, 2);
    assert_true(fds->samples[0] == 5 && fds->samples[1] == 6);
    assert_int_equal(fds->kind, STATS_KIND_GAUGE);
    assert_int_equal(find(&m, "c1.input1.watch.x.fds")->n, 1);
    assert_int_equal(find(&m, "c1.input0.generator_rss_bytes")->n, 2);
    assert_true(find(&m, "c1.shard7.generator_rss_bytes")->samples[0] == 300);
    assert_int_equal(keyindex_find(&m.keys, "c1.watch.x.fds", 14), -1);
    assert_int_equal(stats_merge_name_part(&m, 3, "shard9"), -1);
    stats_merge_free(&m);
}

static void test_generator_cpu_is_added_second_by_second(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 2);
    add(&m, 0, "c8.generator_cpu_s", STATS_UNIT_SECONDS, (double[]){0.5, 0.25}, 2);
    add(&m, 1, "c8.generator_cpu_s", STATS_UNIT_SECONDS, (double[]){0.25, 0.5}, 2);
    add(&m, 0, "c8.watch.proxy.cpu_s", STATS_UNIT_SECONDS, (double[]){1, 2}, 2);
    add(&m, 1, "c8.watch.proxy.cpu_s", STATS_UNIT_SECONDS, (double[]){3, 4}, 2);
    finish(&m, 0, 1);
    const struct stats_merged_metric *cpu = find(&m, "c8.generator_cpu_s");
    assert_int_equal(cpu->n, 2);
    assert_true(cpu->samples[0] == 0.75 && cpu->samples[1] == 0.75);
    const struct stats_merged_metric *watched = find(&m, "c8.watch.proxy.cpu_s");
    assert_true(watched->samples[0] == 4 && watched->samples[1] == 6);
    assert_false(cpu->lengths_differ);
    stats_merge_free(&m);
}

static void test_refusals(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 2);
    add(&m, 0, "c1.connect_ms", STATS_UNIT_MILLISECONDS, (double[]){1}, 1);
    char error[256];
    double *samples = copy_of((double[]){0.001}, 1);
    assert_int_equal(stats_merge_add(&m, 1, "c1.connect_ms", STATS_UNIT_SECONDS, &samples, 1, 1,
                                     error, sizeof error),
                     -1);
    assert_non_null(strstr(error, "unit conflict"));
    assert_non_null(strstr(error, "\"c1.connect_ms\"")); /* which metric */
    assert_non_null(strstr(error, "milliseconds in an earlier document"));
    assert_non_null(strstr(error, "seconds in this one"));
    free(samples);
    samples = copy_of((double[]){1, 2, 3}, 3);
    assert_int_equal(stats_merge_add(&m, 1, "c1.ttfb_ms", STATS_UNIT_MILLISECONDS, &samples, 3, 2,
                                     error, sizeof error),
                     -1);
    assert_non_null(strstr(error, "saw only 2"));
    free(samples);
    samples = copy_of((double[]){1}, 1);
    assert_int_equal(stats_merge_add(&m, 0, "c1.connect_ms", STATS_UNIT_MILLISECONDS, &samples, 1,
                                     1, error, sizeof error),
                     -1);
    assert_non_null(strstr(error, "twice"));
    free(samples);
    stats_merge_free(&m);
}

/* ---- timelines ---- */

static void test_timelines_are_added_second_by_second(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 3);
    add(&m, 0, "c2.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){10, 20, 30}, 3);
    add(&m, 1, "c2.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){1, 2, 3}, 3);
    add(&m, 0, "r", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){1, 1}, 2);
    add(&m, 1, "r", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){10, 10, 10, 10}, 4);
    add(&m, 2, "r", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){100}, 1);
    finish(&m, 0, 1);
    const struct stats_merged_metric *rps = find(&m, "c2.requests_per_second");
    assert_int_equal(rps->n, 3);
    assert_true(rps->samples[0] == 11 && rps->samples[1] == 22 && rps->samples[2] == 33);
    assert_false(rps->lengths_differ);
    /* the third document lacks it: two had it, and it stays out of their count */
    assert_int_equal(rps->documents, 2);
    assert_true(rps->parts[0].n == 3 && rps->parts[1].n == 3 && rps->parts[2].n == 0);
    const struct stats_merged_metric *r = find(&m, "r");
    assert_int_equal(r->n, 4);
    assert_true(r->samples[0] == 111 && r->samples[1] == 11 && r->samples[2] == 10 &&
                r->samples[3] == 10);
    assert_true(r->lengths_differ);
    stats_merge_free(&m);
}

/* A level one input ran for 2.5 s (interrupted) and another for 60 s: the
 * seconds past the second the first stopped in hold only the second's work,
 * and would read as the rate of the merged level falling. */
static void test_timelines_end_with_the_seconds_every_input_ran(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 3);
    add(&m, 0, "c8.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){10, 20}, 2);
    add(&m, 0, "c8.ran_s", STATS_UNIT_SECONDS, (double[]){2.5}, 1);
    add(&m, 1, "c8.ran_s", STATS_UNIT_SECONDS, (double[]){60}, 1);
    add(&m, 1, "c8.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){1, 2, 3, 4, 5},
        5);
    add(&m, 1, "c8.generator_cpu_s", STATS_UNIT_SECONDS, (double[]){0.5, 0.5, 0.5}, 3);
    /* a level the third document lacks its span for, and one shorter than a second */
    add(&m, 2, "c8.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){100}, 1);
    add(&m, 0, "c2.ran_s", STATS_UNIT_SECONDS, (double[]){0.4}, 1);
    add(&m, 0, "c2.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){500}, 1);
    add(&m, 1, "c2.ran_s", STATS_UNIT_SECONDS, (double[]){3}, 1);
    add(&m, 1, "c2.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){1, 2, 3}, 3);
    finish(&m, 0, 1);
    const struct stats_merged_metric *span = find(&m, "c8.ran_s");
    assert_true(only_sample(&m, "c8.ran_s") == 2.5 && span->longest == 60);
    const struct stats_merged_metric *rps = find(&m, "c8.requests_per_second");
    assert_int_equal(rps->n, 2);
    assert_true(rps->samples[0] == 111 && rps->samples[1] == 22);
    assert_true(rps->cut);
    assert_true(rps->lengths_differ); /* the third document's second 1 counts as 0 */
    const struct stats_merged_metric *cpu = find(&m, "c8.generator_cpu_s");
    assert_int_equal(cpu->n, 2);
    assert_true(cpu->cut && !cpu->lengths_differ);
    assert_true(only_sample(&m, "c2.ran_s") == 0.4);
    assert_true(only_sample(&m, "c2.requests_per_second") == 501);
    stats_merge_free(&m);

    /* levels that ran as long as each other keep every second */
    stats_merge_init(&m, 2);
    for (size_t d = 0; d < 2; d++) {
        add(&m, d, "c4.ran_s", STATS_UNIT_SECONDS, (double[]){3}, 1);
        add(&m, d, "c4.requests_per_second", STATS_UNIT_REQUESTS_PER_SECOND, (double[]){1, 2, 3},
            3);
    }
    finish(&m, 0, 1);
    rps = find(&m, "c4.requests_per_second");
    assert_int_equal(rps->n, 3);
    assert_true(rps->samples[2] == 6 && !rps->cut && !rps->lengths_differ);
    assert_true(find(&m, "c4.ran_s")->longest == 3);
    stats_merge_free(&m);

    /* a span is one value per level */
    stats_merge_init(&m, 1);
    char error[256];
    double *samples = copy_of((double[]){1, 2}, 2);
    assert_int_equal(
        stats_merge_add(&m, 0, "c1.ran_s", STATS_UNIT_SECONDS, &samples, 2, 2, error, sizeof error),
        -1);
    assert_non_null(strstr(error, "one sample"));
    free(samples);
    stats_merge_free(&m);
}

/* ---- the weighted draw ---- */

static void test_draw_plan_is_proportional_to_true_counts(void **state)
{
    double a[1000], b[1000], c[500];
    struct stats_draw_input inputs[] = {{a, 1000, 4000}, {b, 1000, 1000}, {c, 500, 500}};
    size_t take[3];
    /* shares 8/11, 2/11, 1/11 of 1000 */
    assert_int_equal(stats_draw_plan(inputs, 3, 1000, take), 1000);
    assert_int_equal(take[0], 727);
    assert_int_equal(take[1], 182);
    assert_int_equal(take[2], 91);
    /* the first input holds 1000 of its 4000: the total cannot pass 1000·5500/4000 */
    assert_int_equal(stats_draw_plan(inputs, 3, 100000, take), 1375);
    assert_int_equal(take[0], 1000);
    assert_int_equal(take[1], 250);
    assert_int_equal(take[2], 125);
    /* nothing seen, nothing taken */
    struct stats_draw_input none[] = {{a, 0, 0}};
    assert_int_equal(stats_draw_plan(none, 1, 10, take), 0);
}

/* Algorithm R: what a generator's --max-samples reservoir keeps. */
static void reservoir(double *kept, size_t limit, double first, uint64_t seen,
                      struct stats_rng *rng)
{
    for (uint64_t i = 0; i < seen; i++) {
        double value = first + (double)i;
        if (i < limit) {
            kept[i] = value;
        } else {
            uint64_t j = stats_rng_below(rng, i + 1);
            if (j < limit) kept[j] = value;
        }
    }
}

#define SHARDS 3
#define BINS 26

/* Chi-square of the merged sample over BINS equal slices of every request any
 * shard saw (request k of shard s is the value offset_s + k). */
static double chi_square_over_requests(const struct stats_merged_metric *merged, uint64_t total)
{
    double counts[BINS] = {0};
    for (size_t i = 0; i < merged->n; i++) {
        size_t bin = (size_t)(merged->samples[i] * BINS / (double)total);
        assert_true(bin < BINS);
        counts[bin]++;
    }
    double expected = (double)merged->n / BINS, chi = 0.0;
    for (size_t b = 0; b < BINS; b++)
        chi += (counts[b] - expected) * (counts[b] - expected) / expected;
    return chi;
}

static void merge_cut_shards(struct stats_merge *m, bool weighted, uint64_t seed)
{
    static const uint64_t seen[SHARDS] = {200000, 50000, 10000};
    static const size_t limit[SHARDS] = {20000, 20000, 20000};
    struct stats_rng rng;
    stats_rng_seed(&rng, 12345);
    stats_merge_init(m, SHARDS);
    double offset = 0.0;
    for (size_t s = 0; s < SHARDS; s++) {
        size_t n = seen[s] < limit[s] ? (size_t)seen[s] : limit[s];
        double *kept = malloc(n * sizeof *kept);
        assert_non_null(kept);
        reservoir(kept, n, offset, seen[s], &rng);
        add_seen(m, s, "c64.latency_warm_ms", STATS_UNIT_MILLISECONDS, kept, n,
                 weighted ? seen[s] : n);
        free(kept);
        offset += (double)seen[s];
    }
    finish(m, 0, seed);
}

static void test_weighted_merge_is_uniform_over_all_requests(void **state)
{
    struct stats_merge m;
    merge_cut_shards(&m, true, 1);
    const struct stats_merged_metric *warm = find(&m, "c64.latency_warm_ms");
    /* capped at the largest input (20000); shares 20/26, 5/26 and 1/26 */
    assert_int_equal(warm->n, 20000);
    assert_true(warm->drawn);
    assert_int_equal(warm->seen, 260000);
    size_t from[SHARDS] = {0};
    for (size_t i = 0; i < warm->n; i++)
        from[warm->samples[i] < 200000 ? 0 : warm->samples[i] < 250000 ? 1 : 2]++;
    assert_int_equal(from[0], 15385);
    assert_int_equal(from[1], 3846);
    assert_int_equal(from[2], 769);
    /* Uniform over the 260000 requests: chi-square with 25 degrees of freedom
     * stays under 52.6 with probability 0.999; the seed is fixed. */
    double chi = chi_square_over_requests(warm, 260000);
    if (!(chi < 52.6)) fail_msg("weighted merge not uniform: chi-square %.1f", chi);
    stats_merge_free(&m);

    /* The same check catches the merge that ignores the true counts. */
    merge_cut_shards(&m, false, 1);
    warm = find(&m, "c64.latency_warm_ms");
    assert_false(warm->drawn);
    assert_int_equal(warm->n, 50000);
    chi = chi_square_over_requests(warm, 260000);
    if (!(chi > 1000.0)) fail_msg("unweighted pool looked uniform: chi-square %.1f", chi);
    stats_merge_free(&m);
}

static void test_weighted_merge_is_deterministic_per_seed(void **state)
{
    struct stats_merge a, b, c;
    merge_cut_shards(&a, true, 7);
    merge_cut_shards(&b, true, 7);
    merge_cut_shards(&c, true, 8);
    const struct stats_merged_metric *x = find(&a, "c64.latency_warm_ms"),
                                     *y = find(&b, "c64.latency_warm_ms"),
                                     *z = find(&c, "c64.latency_warm_ms");
    assert_int_equal(x->n, y->n);
    assert_memory_equal(x->samples, y->samples, x->n * sizeof *x->samples);
    assert_int_equal(x->n, z->n);
    assert_true(memcmp(x->samples, z->samples, x->n * sizeof *x->samples) != 0);
    stats_merge_free(&a);
    stats_merge_free(&b);
    stats_merge_free(&c);
}

static void test_max_samples_caps_an_uncut_pool(void **state)
{
    struct stats_merge m;
    stats_merge_init(&m, 2);
    double first[300], second[100];
    for (size_t i = 0; i < 300; i++)
        first[i] = (double)i;
    for (size_t i = 0; i < 100; i++)
        second[i] = 1000.0 + (double)i;
    add(&m, 0, "c1.ttfb_ms", STATS_UNIT_MILLISECONDS, first, 300);
    add(&m, 1, "c1.ttfb_ms", STATS_UNIT_MILLISECONDS, second, 100);
    add(&m, 0, "c1.connect_ms", STATS_UNIT_MILLISECONDS, first, 3);
    finish(&m, 40, 1);
    const struct stats_merged_metric *ttfb = find(&m, "c1.ttfb_ms");
    assert_int_equal(ttfb->n, 40);
    assert_true(ttfb->drawn);
    size_t from_second = 0;
    for (size_t i = 0; i < ttfb->n; i++)
        from_second += ttfb->samples[i] >= 1000.0;
    assert_int_equal(from_second, 10); /* 100 of 400 */
    /* under the cap: untouched */
    assert_int_equal(find(&m, "c1.connect_ms")->n, 3);
    assert_false(find(&m, "c1.connect_ms")->drawn);
    stats_merge_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metric_kinds_follow_name_and_unit),
        cmocka_unit_test(test_metric_directions_and_parts),
        cmocka_unit_test(test_the_level_of_a_key),
        cmocka_unit_test(test_counts_are_summed_with_zero_for_absent_keys),
        cmocka_unit_test(test_count_with_several_samples_is_refused),
        cmocka_unit_test(test_one_sample_latencies_are_pooled_not_summed),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_timelines_are_added_second_by_second),
        cmocka_unit_test(test_timelines_end_with_the_seconds_every_input_ran),
        cmocka_unit_test(test_gauges_are_kept_apart_per_document),
        cmocka_unit_test(test_generator_cpu_is_added_second_by_second),
        cmocka_unit_test(test_draw_plan_is_proportional_to_true_counts),
        cmocka_unit_test(test_weighted_merge_is_uniform_over_all_requests),
        cmocka_unit_test(test_weighted_merge_is_deterministic_per_seed),
        cmocka_unit_test(test_max_samples_caps_an_uncut_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
