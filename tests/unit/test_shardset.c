/* test_shardset.c — reading --meta descriptors (the JSON reader under it, the
 * schema's fields, the true counts) and the completeness check of a shard set:
 * missing, duplicated and foreign shards are named, shards of another test
 * or interrupted ones refused, a late start refused unless accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/read/json.h"
#include "stats/runs/runmeta.h"
#include "stats/runs/sametest.h"
#include "stats/runs/shardset.h"

/* ---- the JSON reader ---- */

static void test_json_reads_nested_values(void **state)
{
    const char *text = "{\"a\": [1, -2.5e1, true, null, \"x\\u00e9\\ud83d\\ude00\"], \"b\": {}}";
    struct stats_json v;
    char error[200];
    assert_int_equal(stats_json_parse(text, strlen(text), &v, error, sizeof error), 0);
    const struct stats_json *a = stats_json_get(&v, "a");
    assert_non_null(a);
    assert_int_equal(a->type, STATS_JSON_ARRAY);
    assert_int_equal(a->count, 5);
    assert_true(a->items[1].number == -25.0);
    assert_true(a->items[2].boolean);
    assert_int_equal(a->items[3].type, STATS_JSON_NULL);
    assert_string_equal(a->items[4].string, "x\xc3\xa9\xf0\x9f\x98\x80");
    assert_int_equal(stats_json_get(&v, "b")->type, STATS_JSON_OBJECT);
    assert_null(stats_json_get(&v, "c"));
    stats_json_free(&v);
}

static void test_json_refuses_what_is_not_json(void **state)
{
    static const struct {
        const char *text, *reason;
    } bad[] = {
        {"{\"a\": 1, \"a\": 2}", "appears twice"},
        {"{\"a\": 1} x", "after the JSON value"},
        {"[1, 2", "expected ',' or ']'"},
        {"[01]", "expected ',' or ']'"},
        {"[1.]", "digit must follow"},
        {"[NaN]", "unexpected character"},
        {"[1e999]", "overflows"},
        {"\"\\u0000\"", "\\u0000"},
        {"\"\xc0\xaf\"", "UTF-8"},
        {"\"\\ud800\"", "surrogate"},
        {"", "ends where a value"},
        {"{\"a\" 1}", "expected ':'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct stats_json v;
        char error[200];
        if (stats_json_parse(bad[i].text, strlen(bad[i].text), &v, error, sizeof error) == 0)
            fail_msg("accepted %s", bad[i].text);
        if (strstr(error, bad[i].reason) == NULL)
            fail_msg("%s: \"%s\" does not say \"%s\"", bad[i].text, error, bad[i].reason);
    }
    /* nesting is bounded */
    char deep[200];
    memset(deep, '[', sizeof deep);
    struct stats_json v;
    char error[200];
    assert_int_equal(stats_json_parse(deep, sizeof deep, &v, error, sizeof error), -1);
    assert_non_null(strstr(error, "nested deeper"));
}

/* ---- descriptors ---- */

static const char full_descriptor[] =
    "{\"tool\": \"httpload\", \"version\": \"0.1.0\", \"run_id\": \"abc\",\n"
    " \"shard\": {\"index\": 1, \"count\": 4}, \"host\": \"gen2\",\n"
    " \"clock\": {\"synchronized\": false, \"est_error_us\": 120, \"max_error_us\": 5000},\n"
    " \"start_at\": \"2026-12-01T10:00:00.000000000Z\", \"options\": {\"threads\": 1},\n"
    " \"levels\": [\n"
    "  {\"clients\": 64, \"shard_clients\": 16, \"requested_start\": null,\n"
    "   \"actual_start\": \"2026-12-01T10:00:00.000123456Z\", \"start_lag_s\": 0.000123,\n"
    "   \"requested_rate\": 1000, \"achieved_rate\": 998.5, \"seconds\": 2.0,\n"
    "   \"interrupted\": false, \"sampled\": [\"latency_warm_ms\", \"ttfb_ms\"],\n"
    "   \"seen\": {\"latency_warm_ms\": 4000000}},\n"
    "  {\"clients\": 1, \"seconds\": 2.0, \"interrupted\": false, \"sampled\": []}\n"
    " ]}\n";

static void test_runmeta_reads_the_descriptor_schema(void **state)
{
    struct stats_runmeta m;
    char error[200];
    if (stats_runmeta_parse(full_descriptor, strlen(full_descriptor), &m, error, sizeof error))
        fail_msg("%s", error);
    assert_string_equal(m.tool, "httpload");
    assert_string_equal(m.run_id, "abc");
    assert_string_equal(m.host, "gen2");
    assert_true(m.has_shard);
    assert_int_equal(m.shard_index, 1);
    assert_int_equal(m.shard_count, 4);
    assert_true(m.has_clock && !m.clock_synchronized && m.has_est_error);
    assert_true(m.est_error_us == 120.0);
    assert_int_equal(m.n_levels, 2);
    const struct stats_runmeta_level *l = stats_runmeta_level(&m, 64);
    assert_non_null(l);
    assert_true(l->has_shard_clients);
    assert_int_equal(l->shard_clients, 16);
    assert_true(l->has_start_lag && l->start_lag_s == 0.000123);
    uint64_t seen = 0;
    assert_int_equal(stats_runmeta_seen(l, "latency_warm_ms", &seen), STATS_SEEN_KNOWN);
    assert_int_equal(seen, 4000000);
    assert_int_equal(stats_runmeta_seen(l, "ttfb_ms", &seen), STATS_SEEN_UNKNOWN);
    assert_int_equal(stats_runmeta_seen(l, "connect_ms", &seen), STATS_SEEN_WHOLE);
    l = stats_runmeta_level(&m, 1);
    assert_non_null(l);
    assert_false(l->has_shard_clients);
    assert_false(l->has_start_lag);
    assert_null(stats_runmeta_level(&m, 16));
    stats_runmeta_free(&m);

    /* today's descriptors, without the shard fields, read too */
    const char *old = "{\"tool\": \"dnsload\", \"levels\": [{\"clients\": 1, \"sampled\": []}]}";
    assert_int_equal(stats_runmeta_parse(old, strlen(old), &m, error, sizeof error), 0);
    assert_false(m.has_shard);
    assert_null(m.run_id);
    assert_false(m.has_clock);
    stats_runmeta_free(&m);
}

static void test_runmeta_names_a_bad_field(void **state)
{
    static const struct {
        const char *text, *reason;
    } bad[] = {
        {"[]", "JSON object"},
        {"{\"run_id\": 3}", "run_id must be a string"},
        {"{\"shard\": {\"index\": 4, \"count\": 4}}", "not below shard.count"},
        {"{\"shard\": {\"index\": 0}}", "no count"},
        {"{\"shard\": {\"index\": -1, \"count\": 2}}", "shard.index must be a non-negative"},
        {"{\"clock\": {\"synchronized\": \"yes\"}}", "clock.synchronized"},
        {"{\"levels\": [{\"clients\": 0}]}", "levels[0].clients must be at least 1"},
        {"{\"levels\": [{\"clients\": 2}, {\"clients\": 2}]}", "both have 2 clients"},
        {"{\"levels\": [{\"clients\": 2, \"seen\": {\"x\": 1.5}}]}", "levels[0].seen.x"},
        {"{\"levels\": [{\"clients\": 2, \"sampled\": [1]}]}", "levels[0].sampled[0]"},
        {"{\"levels\": [{\"clients\": 2, \"start_lag_s\": \"0\"}]}", "start_lag_s"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct stats_runmeta m;
        char error[200];
        if (stats_runmeta_parse(bad[i].text, strlen(bad[i].text), &m, error, sizeof error) == 0)
            fail_msg("accepted %s", bad[i].text);
        if (strstr(error, bad[i].reason) == NULL)
            fail_msg("%s: \"%s\" does not say \"%s\"", bad[i].text, error, bad[i].reason);
    }
}

static void test_descriptor_path_beside_the_document(void **state)
{
    char *p = stats_runmeta_path_for("results/A.json");
    assert_string_equal(p, "results/A.meta.json");
    free(p);
    p = stats_runmeta_path_for("run.out");
    assert_string_equal(p, "run.out.meta.json");
    free(p);
}

/* ---- shard sets ---- */

struct shard_spec {
    const char *run_id;
    unsigned long index, count;
    bool synchronized;
    double lag; /* of level c64 */
    unsigned long shard_clients;
};

#define MAX_SET 6

struct set {
    struct stats_runmeta metas[MAX_SET];
    struct stats_shard_input inputs[MAX_SET];
    char names[MAX_SET][32], descriptors[MAX_SET][32];
    size_t count;
};

static void make_set(struct set *set, const struct shard_spec *specs, size_t count)
{
    memset(set, 0, sizeof *set);
    set->count = count;
    for (size_t i = 0; i < count; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"run_id\": %s%s%s, \"shard\": {\"index\": %lu, \"count\": %lu},"
                 " \"host\": \"h%zu\", \"clock\": {\"synchronized\": %s, \"est_error_us\": 9000},"
                 " \"levels\": [{\"clients\": 1, \"shard_clients\": %d},"
                 " {\"clients\": 64, \"shard_clients\": %lu, \"start_lag_s\": %g}]}",
                 specs[i].run_id ? "\"" : "", specs[i].run_id ? specs[i].run_id : "null",
                 specs[i].run_id ? "\"" : "", specs[i].index, specs[i].count, i,
                 specs[i].synchronized ? "true" : "false", specs[i].index == 0 ? 1 : 0,
                 specs[i].shard_clients, specs[i].lag);
        char error[200];
        if (stats_runmeta_parse(text, strlen(text), &set->metas[i], error, sizeof error) != 0)
            fail_msg("%s: %s", text, error);
        snprintf(set->names[i], sizeof set->names[i], "s%zu.json", i);
        snprintf(set->descriptors[i], sizeof set->descriptors[i], "s%zu.meta.json", i);
        set->inputs[i] =
            (struct stats_shard_input){set->names[i], set->descriptors[i], &set->metas[i], NULL};
    }
}

static void free_set(struct set *set)
{
    for (size_t i = 0; i < set->count; i++)
        stats_runmeta_free(&set->metas[i]);
}

static bool has_line(const struct stats_shard_lines *lines, const char *text)
{
    for (size_t i = 0; i < lines->count; i++)
        if (strstr(lines->lines[i], text) != NULL) return true;
    return false;
}

static void expect_line(const struct stats_shard_lines *lines, const char *text)
{
    if (has_line(lines, text)) return;
    for (size_t i = 0; i < lines->count; i++)
        print_error("  %s\n", lines->lines[i]);
    fail_msg("no line says \"%s\"", text);
}

static const struct stats_shard_rules rules = {.max_start_lag_s = 0.05};

static void check(struct set *set, struct stats_shard_findings *f)
{
    assert_int_equal(stats_shardset_check(set->inputs, set->count, &rules, f), 0);
}

static void test_complete_set_passes(void **state)
{
    struct shard_spec specs[] = {{"r1", 2, 4, true, 0.001, 16},
                                 {"r1", 0, 4, true, 0.0, 16},
                                 {"r1", 3, 4, true, -0.01, 16},
                                 {"r1", 1, 4, true, 0.02, 16}};
    struct set set;
    make_set(&set, specs, 4);
    struct stats_shard_findings f;
    check(&set, &f);
    assert_int_equal(f.refusals.count, 0);
    assert_int_equal(f.missing.count, 0);
    assert_int_equal(f.warnings.count, 0);
    stats_shard_findings_free(&f);
    free_set(&set);
}

static void test_missing_and_duplicated_shards_are_named(void **state)
{
    struct shard_spec specs[] = {
        {"r1", 0, 6, true, 0, 10}, {"r1", 2, 6, true, 0, 10}, {"r1", 2, 6, true, 0, 10}};
    struct set set;
    make_set(&set, specs, 3);
    struct stats_shard_findings f;
    check(&set, &f);
    expect_line(&f.missing, "shard 1 of 6 is missing");
    expect_line(&f.missing, "shards 3-5 of 6 are missing");
    assert_int_equal(f.missing.count, 2);
    expect_line(&f.refusals, "s1.json and s2.json are both shard 2 of 6");
    assert_int_equal(f.refusals.count, 1);
    stats_shard_findings_free(&f);
    free_set(&set);
}

static void test_foreign_shards_are_refused(void **state)
{
    struct shard_spec specs[] = {
        {"r1", 0, 2, true, 0, 32}, {"r2", 1, 2, true, 0, 32}, {"r1", 1, 3, true, 0, 32}};
    struct set set;
    make_set(&set, specs, 3);
    struct stats_shard_findings f;
    check(&set, &f);
    expect_line(&f.refusals, "s1.json: run id \"r2\" differs from \"r1\" in s0.json");
    expect_line(&f.refusals, "s2.json: shard 1 of 3, but s0.json is shard 0 of 2");
    stats_shard_findings_free(&f);
    free_set(&set);

    /* a document without a descriptor, or with one from an unsharded generator */
    struct stats_runmeta unsharded;
    char error[200];
    const char *text = "{\"levels\": [{\"clients\": 1}]}";
    assert_int_equal(stats_runmeta_parse(text, strlen(text), &unsharded, error, sizeof error), 0);
    struct stats_shard_input inputs[] = {
        {"a.json", "a.meta.json", NULL, "cannot open: No such file or directory"},
        {"b.json", "b.meta.json", &unsharded, NULL}};
    assert_int_equal(stats_shardset_check(inputs, 2, &rules, &f), 0);
    expect_line(&f.refusals, "a.json: no valid shard descriptor a.meta.json (cannot open");
    expect_line(&f.refusals, "b.json: b.meta.json has no \"shard\" field");
    stats_shard_findings_free(&f);
    stats_runmeta_free(&unsharded);
}

static void test_clients_must_add_up_and_levels_agree(void **state)
{
    struct shard_spec specs[] = {{NULL, 0, 2, true, 0, 32}, {NULL, 1, 2, true, 0, 30}};
    struct set set;
    make_set(&set, specs, 2);
    struct stats_shard_findings f;
    check(&set, &f);
    expect_line(&f.refusals, "level c64: the shards' clients add up to 62, not 64");
    stats_shard_findings_free(&f);
    /* a shard that ran other levels */
    free(set.metas[1].levels);
    set.metas[1].levels = NULL;
    set.metas[1].n_levels = 0;
    check(&set, &f);
    expect_line(&f.refusals, "s1.json (shard 1 of 2): levels none differ from c1,c64 in s0.json");
    stats_shard_findings_free(&f);
    free_set(&set);
}

static void test_clock_is_warned_and_a_late_start_refused(void **state)
{
    struct shard_spec specs[] = {{"r", 0, 2, false, 0.2, 32}, {"r", 1, 2, true, -0.06, 32}};
    struct set set;
    make_set(&set, specs, 2);
    struct stats_shard_findings f;
    check(&set, &f);
    expect_line(
        &f.warnings,
        "s0.json (shard 0 of 2, host h0): clock not synchronized (estimated error 9000 us)");
    assert_int_equal(f.warnings.count, 1);
    expect_line(&f.refusals, "s0.json (shard 0 of 2, host h0): level c64 started 0.200 s late");
    expect_line(&f.refusals, "s1.json (shard 1 of 2, host h1): level c64 started 0.060 s early");
    expect_line(&f.refusals, "(--accept-start-lag merges it anyway)");
    assert_int_equal(f.refusals.count, 2);
    stats_shard_findings_free(&f);
    /* accepted: warnings, no refusal */
    struct stats_shard_rules accept = {.max_start_lag_s = 0.05, .accept_start_lag = true};
    assert_int_equal(stats_shardset_check(set.inputs, set.count, &accept, &f), 0);
    assert_int_equal(f.refusals.count, 0);
    expect_line(&f.warnings, "s0.json (shard 0 of 2, host h0): level c64 started 0.200 s late");
    expect_line(&f.warnings, "merged anyway: --accept-start-lag");
    assert_int_equal(f.warnings.count, 3);
    stats_shard_findings_free(&f);
    /* a wider bound lets both through */
    struct stats_shard_rules wide = {.max_start_lag_s = 0.5};
    assert_int_equal(stats_shardset_check(set.inputs, set.count, &wide, &f), 0);
    assert_int_equal(f.refusals.count, 0);
    assert_int_equal(f.warnings.count, 1);
    stats_shard_findings_free(&f);
    free_set(&set);
}

/* Two shards from descriptor texts. */
static void make_pair(struct set *set, const char *a, const char *b)
{
    memset(set, 0, sizeof *set);
    const char *texts[2] = {a, b};
    set->count = 2;
    for (size_t i = 0; i < 2; i++) {
        char error[200];
        if (stats_runmeta_parse(texts[i], strlen(texts[i]), &set->metas[i], error, sizeof error))
            fail_msg("%s: %s", texts[i], error);
        snprintf(set->names[i], sizeof set->names[i], "s%zu.json", i);
        snprintf(set->descriptors[i], sizeof set->descriptors[i], "s%zu.meta.json", i);
        set->inputs[i] =
            (struct stats_shard_input){set->names[i], set->descriptors[i], &set->metas[i], NULL};
    }
}

#define SHARD_HEAD(i) "{\"tool\": \"httpload\", \"shard\": {\"index\": " #i ", \"count\": 2}, "
#define OPTIONS(d) "\"options\": {\"duration_s\": " #d ", \"rate\": 0, \"timeout_s\": 10}, "
#define LEVEL(c, at, stopped)                                                                      \
    "{\"clients\": " #c ", \"requested_start\": \"" at "\", \"interrupted\": " stopped "}"

static void test_shards_of_another_test_are_refused(void **state)
{
    struct set set;
    struct stats_shard_findings f;
    const char *base = SHARD_HEAD(0) "\"target\": \"http://a/\", " OPTIONS(
        3) "\"levels\": [{\"clients\": 2, \"requested_start\": \"T0\"}, "
           "{\"clients\": 4, \"requested_start\": \"T1\"}]}";
    /* another tool, target and duration, levels in another order */
    make_pair(
        &set, base,
        "{\"tool\": \"dnsload\", \"shard\": {\"index\": 1, \"count\": 2}, \"target\": "
        "\"127.0.0.1\", " OPTIONS(2) "\"levels\": [{\"clients\": 4, \"requested_start\": "
                                     "\"T0\"}, {\"clients\": 2, \"requested_start\": \"T1\"}]}");
    check(&set, &f);
    expect_line(&f.refusals,
                "s1.json (shard 1 of 2): tool \"dnsload\" differs from \"httpload\" in s0.json");
    expect_line(&f.refusals,
                "s1.json (shard 1 of 2): target \"127.0.0.1\" differs from \"http://a/\"");
    expect_line(&f.refusals, "s1.json (shard 1 of 2): duration_s 2 differs from 3 in s0.json");
    expect_line(&f.refusals, "s1.json (shard 1 of 2): levels ran in the order c4,c2, not c2,c4");
    assert_int_equal(f.refusals.count, 4);
    stats_shard_findings_free(&f);
    free_set(&set);
    /* the same levels, one starting 12 s apart */
    make_pair(&set, base,
              SHARD_HEAD(1) "\"target\": \"http://a/\", " OPTIONS(
                  3) "\"levels\": [{\"clients\": 2, \"requested_start\": \"T0\"}, "
                     "{\"clients\": 4, \"requested_start\": \"T12\"}]}");
    check(&set, &f);
    expect_line(&f.refusals,
                "s1.json (shard 1 of 2): level c4's requested_start \"T12\" differs from \"T1\"");
    assert_int_equal(f.refusals.count, 1);
    stats_shard_findings_free(&f);
    free_set(&set);
    /* an option one descriptor lacks */
    make_pair(
        &set, base,
        SHARD_HEAD(1) "\"target\": \"http://a/\", \"options\": {\"duration_s\": 3, "
                      "\"rate\": 0}, \"levels\": [{\"clients\": 2, \"requested_start\": \"T0\"}, "
                      "{\"clients\": 4, \"requested_start\": \"T1\"}]}");
    check(&set, &f);
    expect_line(&f.refusals, "s1.json (shard 1 of 2): timeout_s none differs from 10");
    stats_shard_findings_free(&f);
    free_set(&set);
    /* another -n (a descriptor without one writes null) */
    make_pair(&set, base,
              SHARD_HEAD(1) "\"target\": \"http://a/\", \"options\": {\"duration_s\": 3, "
                            "\"rate\": 0, \"timeout_s\": 10, \"requests_per_level\": 500}, "
                            "\"levels\": [{\"clients\": 2, \"requested_start\": \"T0\"}, "
                            "{\"clients\": 4, \"requested_start\": \"T1\"}]}");
    check(&set, &f);
    expect_line(&f.refusals, "s1.json (shard 1 of 2): requests_per_level 500 differs from none");
    assert_int_equal(f.refusals.count, 1);
    stats_shard_findings_free(&f);
    free_set(&set);
}

static void test_interrupted_shards_are_partial(void **state)
{
    struct set set;
    struct stats_shard_findings f;
    const char *whole =
        SHARD_HEAD(0) "\"levels\": [" LEVEL(2, "T0", "false") ", " LEVEL(4, "T1", "false") "]}";
    const char *whole1 =
        SHARD_HEAD(1) "\"levels\": [" LEVEL(2, "T0", "false") ", " LEVEL(4, "T1", "false") "]}";
    /* interrupted in its last level, like every shard a SIGINT reached */
    make_pair(
        &set, whole,
        SHARD_HEAD(1) "\"levels\": [" LEVEL(2, "T0", "false") ", " LEVEL(4, "T1", "true") "]}");
    check(&set, &f);
    assert_int_equal(f.refusals.count, 0);
    expect_line(&f.partial, "s1.json (shard 1 of 2): level c4 was interrupted");
    assert_int_equal(f.partial.count, 1);
    stats_shard_findings_free(&f);
    free_set(&set);
    /* stopped in its first level: it never reached the second */
    make_pair(&set, SHARD_HEAD(0) "\"levels\": [" LEVEL(2, "T0", "true") "]}", whole1);
    check(&set, &f);
    assert_int_equal(f.refusals.count, 0);
    expect_line(&f.partial, "s0.json (shard 0 of 2) stopped in level c2 (interrupted): levels c2 "
                            "differ from c2,c4 in s1.json");
    expect_line(&f.partial, "s0.json (shard 0 of 2): level c2 was interrupted");
    stats_shard_findings_free(&f);
    free_set(&set);
    /* fewer levels without an interruption: another test */
    make_pair(&set, SHARD_HEAD(0) "\"levels\": [" LEVEL(2, "T0", "false") "]}", whole1);
    check(&set, &f);
    expect_line(&f.refusals, "s0.json (shard 0 of 2): levels c2 differ from c2,c4 in s1.json");
    assert_int_equal(f.partial.count, 0);
    stats_shard_findings_free(&f);
    free_set(&set);
}

static int collect(void *ctx, enum stats_difference kind, const char *phrase)
{
    (void)kind;
    strncat(ctx, phrase, 400);
    strcat(ctx, ";");
    return 0;
}

static void test_runs_of_one_test_may_start_apart(void **state)
{
    /* compare's use: two runs made at different times are the same test */
    struct set set;
    make_pair(&set, SHARD_HEAD(0) "\"levels\": [" LEVEL(2, "T0", "false") "]}",
              SHARD_HEAD(1) "\"levels\": [" LEVEL(2, "T9", "false") "]}");
    char found[1024] = "";
    assert_int_equal(stats_same_test(&set.metas[1], &set.metas[0], false, collect, found), 0);
    assert_string_equal(found, "");
    assert_int_equal(stats_same_test(&set.metas[1], &set.metas[0], true, collect, found), 0);
    assert_string_equal(found, "level c2's requested_start \"T9\" differs from \"T0\";");
    free_set(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_reads_nested_values),
        cmocka_unit_test(test_json_refuses_what_is_not_json),
        cmocka_unit_test(test_runmeta_reads_the_descriptor_schema),
        cmocka_unit_test(test_runmeta_names_a_bad_field),
        cmocka_unit_test(test_descriptor_path_beside_the_document),
        cmocka_unit_test(test_complete_set_passes),
        cmocka_unit_test(test_missing_and_duplicated_shards_are_named),
        cmocka_unit_test(test_foreign_shards_are_refused),
        cmocka_unit_test(test_clients_must_add_up_and_levels_agree),
        cmocka_unit_test(test_clock_is_warned_and_a_late_start_refused),
        cmocka_unit_test(test_shards_of_another_test_are_refused),
        cmocka_unit_test(test_interrupted_shards_are_partial),
        cmocka_unit_test(test_runs_of_one_test_may_start_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
