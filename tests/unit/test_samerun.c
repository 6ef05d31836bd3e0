/* test_samerun.c — telling one run given twice to a merge: descriptors that
 * name their runs are one run only when tool, host, start, command line, run
 * id and shard all agree; without them, documents are one run when their
 * metrics, units and samples are the same, exactly and in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stats/runs/runmeta.h"
#include "stats/runs/samerun.h"

static const char generator_descriptor[] =
    "{\"tool\": \"httpload\", \"host\": \"gen0\", \"started_at\": \"2026-12-03T10:00:00.123Z\",\n"
    " \"argv\": [\"httpload\", \"-c\", \"2\", \"--meta\", \"a.meta.json\", \"http://x/\"],\n"
    " \"run_id\": null, \"shard\": {\"index\": 0, \"count\": 1}, \"levels\": []}";

/* The generator's descriptor with `from` replaced by `to` (once). */
static void parse_edited(const char *from, const char *to, struct stats_runmeta *out)
{
    char text[sizeof generator_descriptor + 64];
    const char *at = strstr(generator_descriptor, from);
    assert_non_null(at);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - generator_descriptor), generator_descriptor,
             to, at + strlen(from));
    char error[200];
    if (stats_runmeta_parse(text, strlen(text), out, error, sizeof error) != 0)
        fail_msg("%s: %s", text, error);
}

static void test_a_generators_descriptor_names_its_run(void **state)
{
    (void)state;
    struct stats_runmeta a, b;
    parse_edited("", "", &a);
    assert_true(stats_runmeta_names_run(&a));
    assert_string_equal(a.started_at, "2026-12-03T10:00:00.123Z");
    assert_int_equal(a.argc, 6);
    assert_string_equal(a.argv[4], "a.meta.json");
    parse_edited("", "", &b);
    assert_true(stats_same_run(&a, &b)); /* a copy of the descriptor */
    stats_runmeta_free(&b);
    /* a merged document's descriptor, or one written by hand, does not */
    const char *merged = "{\"tool\": \"loadstats merge\", \"run_id\": null, \"levels\": []}";
    char error[200];
    assert_int_equal(stats_runmeta_parse(merged, strlen(merged), &b, error, sizeof error), 0);
    assert_false(stats_runmeta_names_run(&b));
    stats_runmeta_free(&b);
    stats_runmeta_free(&a);
}

static void test_runs_that_differ_in_one_field_are_two(void **state)
{
    (void)state;
    static const struct {
        const char *from, *to;
    } edits[] = {
        {"\"httpload\", \"host\"", "\"dnsload\", \"host\""},
        {"gen0", "gen1"},
        {"00.123Z", "00.124Z"},         /* a millisecond later */
        {"a.meta.json", "b.meta.json"}, /* started together, beside another document */
        {"\"http://x/\"]", "\"http://x/\", \"-q\"]"},
        {"\"run_id\": null", "\"run_id\": \"r1\""},
        {"\"index\": 0, \"count\": 1", "\"index\": 0, \"count\": 2"},
        {", \"shard\": {\"index\": 0, \"count\": 1}", ""},
    };
    struct stats_runmeta a, b;
    parse_edited("", "", &a);
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        parse_edited(edits[i].from, edits[i].to, &b);
        if (stats_same_run(&a, &b) || stats_same_run(&b, &a))
            fail_msg("one run after replacing %s with %s", edits[i].from, edits[i].to);
        stats_runmeta_free(&b);
    }
    stats_runmeta_free(&a);
}

static void test_argv_must_be_strings(void **state)
{
    (void)state;
    struct stats_runmeta m;
    char error[200];
    const char *bad = "{\"argv\": [\"httpload\", 3]}";
    assert_int_equal(stats_runmeta_parse(bad, strlen(bad), &m, error, sizeof error), -1);
    assert_non_null(strstr(error, "argv[1] must be a string"));
    bad = "{\"argv\": \"httpload -c 2\"}";
    assert_int_equal(stats_runmeta_parse(bad, strlen(bad), &m, error, sizeof error), -1);
    assert_non_null(strstr(error, "argv must be an array of strings"));
}

struct metric {
    const char *key;
    enum stats_unit unit;
    double samples[3];
    size_t n;
};

static struct stats_content_digest digest_of(const struct metric *metrics, size_t n)
{
    struct stats_content_digest d;
    stats_digest_init(&d);
    for (size_t i = 0; i < n; i++)
        stats_digest_metric(&d, metrics[i].key, metrics[i].unit, metrics[i].samples, metrics[i].n);
    return d;
}

static void test_the_same_content_and_only_it_matches(void **state)
{
    (void)state;
    const struct metric doc[] = {
        {"c2.attempts", STATS_UNIT_COUNT, {100}, 1},
        {"c2.latency_warm_ms", STATS_UNIT_MILLISECONDS, {0.4, 0.5, 0.6}, 3},
    };
    struct stats_content_digest d = digest_of(doc, 2), again = digest_of(doc, 2);
    assert_true(stats_same_content(&d, &again));
    const struct metric others[][2] = {
        {{"c2.attempts", STATS_UNIT_COUNT, {101}, 1}, doc[1]},
        {{"c2.attempts", STATS_UNIT_BYTES, {100}, 1}, doc[1]},
        {{"c2.attempts.", STATS_UNIT_COUNT, {100}, 1}, doc[1]},
        {doc[0], {"c2.latency_warm_ms", STATS_UNIT_MILLISECONDS, {0.4, 0.6, 0.5}, 3}},
        {doc[0], {"c2.latency_warm_ms", STATS_UNIT_MILLISECONDS, {0.4, 0.5}, 2}},
        {doc[1], doc[0]}, /* another order: not a copy */
    };
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        struct stats_content_digest o = digest_of(others[i], 2);
        if (stats_same_content(&d, &o)) fail_msg("variant %zu matches", i);
    }
    /* each sample's exact value: 0 and -0 compare equal, but a copy keeps the sign */
    const struct metric zero = {"c2.x", STATS_UNIT_COUNT, {0.0}, 1},
                        minus = {"c2.x", STATS_UNIT_COUNT, {-0.0}, 1};
    struct stats_content_digest z = digest_of(&zero, 1), m = digest_of(&minus, 1);
    assert_false(stats_same_content(&z, &m));
    /* a metric more or fewer */
    struct stats_content_digest first = digest_of(doc, 1);
    assert_false(stats_same_content(&d, &first));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_generators_descriptor_names_its_run),
        cmocka_unit_test(test_runs_that_differ_in_one_field_are_two),
        cmocka_unit_test(test_argv_must_be_strings),
        cmocka_unit_test(test_the_same_content_and_only_it_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
