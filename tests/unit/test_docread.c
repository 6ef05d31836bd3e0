/* test_docread.c — the collector protocol rules one by one (a valid and an
 * invalid document per rule), the callback contract, streaming reads of
 * documents larger than the reader's buffer, and the walk's one line. */
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

#include "stats/read/docread.h"

static enum docread_status read_text(const char *text, struct docread_result *result)
{
    struct docread_options options = {0};
    return docread_memory(text, strlen(text), &options, result);
}

static void assert_valid(const char *text)
{
    struct docread_result result;
    enum docread_status status = read_text(text, &result);
    if (status != DOCREAD_OK) print_error("unexpected error: %s\nin: %s\n", result.error, text);
    assert_int_equal(status, DOCREAD_OK);
    docread_result_free(&result);
}

/* Invalid, with a reason that mentions `reason`. */
static void assert_invalid(const char *text, const char *reason)
{
    struct docread_result result;
    enum docread_status status = read_text(text, &result);
    if (status != DOCREAD_INVALID || strstr(result.error, reason) == NULL)
        print_error("status %d, error '%s', wanted '%s'\nin: %s\n", status, result.error, reason,
                    text);
    assert_int_equal(status, DOCREAD_INVALID);
    assert_non_null(strstr(result.error, reason));
    assert_null(strchr(result.error, '\n')); /* one line */
    assert_null(result.sidecar);
    docread_result_free(&result);
}

#define ONE_METRIC "{\"metrics\": {\"c1.x\": {\"unit\": \"count\", \"samples\": [1]}}}"
#define METRIC_WITH(body) "{\"metrics\": {\"c1.x\": " body "}}"
#define SAMPLES(list) METRIC_WITH("{\"unit\": \"milliseconds\", \"samples\": " list "}")

static void test_rule_leading_text_is_tolerated(void **state)
{
    assert_valid("collector: warming up\nwarning: slow disk\n" ONE_METRIC);
    assert_valid("\xef\xbb\xbf" ONE_METRIC); /* a byte-order mark is leading noise too */
    assert_invalid("collector printed nothing useful\n", "no JSON document");
    assert_invalid("", "no JSON document");
}

static void test_rule_exactly_one_document(void **state)
{
    assert_valid(ONE_METRIC "\n  \r\n\t");
    assert_invalid(ONE_METRIC "\n" ONE_METRIC, "second JSON document");
    assert_invalid(ONE_METRIC " done", "after the document");
    assert_invalid("{\"metrics\": {\"c1.x\": {\"unit\": \"count\", \"samples\": [1]}}",
                   "expected ',' or '}'");
    assert_invalid("{\"metrics\": {\"c1.x\": {\"unit\": \"count\", \"samples\": [1",
                   "found the end");
}

static void test_rule_top_level_keys(void **state)
{
    assert_valid("{\"metrics\": {\"a\": {\"unit\": \"count\", \"samples\": [1]}}, \"sidecar\": "
                 "\"bulk.txt\"}");
    assert_valid("{\"sidecar\": \"s\", \"metrics\": {\"a\": {\"unit\": \"count\", \"samples\": "
                 "[1]}}}");
    assert_invalid("{\"metrics\": {\"a\": {\"unit\": \"count\", \"samples\": [1]}}, \"meta\": {}}",
                   "unknown top-level key \"meta\"");
    assert_invalid(
        "{\"metrics\": {\"a\": {\"unit\": \"count\", \"samples\": [1]}}, \"sidecar\": 1}",
        "sidecar must be a string");
    assert_invalid("{\"sidecar\": \"s\"}", "no metrics key");
    assert_invalid("{}", "needs metrics");
    assert_invalid("{\"metrics\": {\"a\": {\"unit\": \"count\", \"samples\": [1]}}, \"metrics\": "
                   "{\"b\": {\"unit\": \"count\", \"samples\": [1]}}}",
                   "metrics appears twice");
}

static void test_sidecar_is_returned(void **state)
{
    struct docread_result result;
    assert_int_equal(read_text("{\"metrics\": {\"a\": {\"unit\": \"count\", \"samples\": [1]}}, "
                               "\"sidecar\": \"caf\\u00e9 \\ud83d\\ude00\"}",
                               &result),
                     DOCREAD_OK);
    assert_string_equal(result.sidecar, "caf\xc3\xa9 \xf0\x9f\x98\x80");
    docread_result_free(&result);
}

static void test_rule_metrics_is_a_non_empty_object(void **state)
{
    assert_valid(ONE_METRIC);
    assert_invalid("{\"metrics\": {}}", "metrics is empty");
    assert_invalid("{\"metrics\": []}", "metrics must be an object");
    assert_invalid("{\"metrics\": null}", "metrics must be an object");
}

static void test_rule_metric_has_exactly_unit_and_samples(void **state)
{
    assert_valid(METRIC_WITH("{\"samples\": [1], \"unit\": \"count\"}"));
    assert_invalid(METRIC_WITH("{\"unit\": \"count\", \"samples\": [1], \"mean\": 1}"),
                   "unknown key \"mean\"");
    assert_invalid(METRIC_WITH("{\"samples\": [1]}"), "has no unit");
    assert_invalid(METRIC_WITH("{\"unit\": \"count\"}"), "has no samples");
    assert_invalid(METRIC_WITH("{}"), "is empty");
    assert_invalid(METRIC_WITH("[1, 2]"), "must be an object");
    assert_invalid(METRIC_WITH("{\"unit\": \"count\", \"unit\": \"count\", \"samples\": [1]}"),
                   "unit twice");
    assert_invalid(METRIC_WITH("{\"unit\": \"count\", \"samples\": [1], \"samples\": [2]}"),
                   "samples twice");
}

static void test_rule_unit_is_one_of_the_list(void **state)
{
    static const char *const units[] = {"seconds",
                                        "milliseconds",
                                        "nanoseconds",
                                        "bytes",
                                        "megabytes",
                                        "requests_per_second",
                                        "megabits_per_second",
                                        "operations",
                                        "ratio",
                                        "count"};
    char text[256];
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        snprintf(text, sizeof text, METRIC_WITH("{\"unit\": \"%s\", \"samples\": [1]}"), units[i]);
        assert_valid(text);
    }
    assert_invalid(METRIC_WITH("{\"unit\": \"msec\", \"samples\": [1]}"), "unknown unit \"msec\"");
    assert_invalid(METRIC_WITH("{\"unit\": \"Seconds\", \"samples\": [1]}"), "unknown unit");
    assert_invalid(METRIC_WITH("{\"unit\": 1, \"samples\": [1]}"), "unit must be a string");
}

static void test_rule_samples_are_finite_numbers(void **state)
{
    assert_valid(SAMPLES("[0, -0, 1, -1.5, 2e3, 2E-3, 1.25e+2, 0.0]"));
    assert_valid(SAMPLES("[1e-400]")); /* underflows to 0: still a finite sample */
    assert_valid(SAMPLES("[ 1 , 2 ]"));
    assert_invalid(SAMPLES("[]"), "samples is empty");
    assert_invalid(SAMPLES("[ ]"), "samples is empty");
    assert_invalid(SAMPLES("{}"), "samples must be an array");
    assert_invalid(SAMPLES("1"), "samples must be an array");
    assert_invalid(SAMPLES("[\"1.5\"]"), "samples[0] is a string");
    assert_invalid(SAMPLES("[1, true]"), "samples[1] is true");
    assert_invalid(SAMPLES("[false]"), "is false");
    assert_invalid(SAMPLES("[null]"), "is null");
    assert_invalid(SAMPLES("[NaN]"), "is NaN");
    assert_invalid(SAMPLES("[Infinity]"), "is Infinity");
    assert_invalid(SAMPLES("[-Infinity]"), "is -Infinity");
    assert_invalid(SAMPLES("[1e400]"), "overflows a double");
    assert_invalid(SAMPLES("[-1e309]"), "overflows a double");
    assert_invalid(SAMPLES("[[1]]"), "is an array");
    assert_invalid(SAMPLES("[{}]"), "is an object");
    assert_invalid(SAMPLES("[01]"), "not a valid JSON number");
    assert_invalid(SAMPLES("[1.]"), "not a valid JSON number");
    assert_invalid(SAMPLES("[.5]"), "expected samples[0]");
    assert_invalid(SAMPLES("[+1]"), "found '+'");
    assert_invalid(SAMPLES("[1e]"), "not a valid JSON number");
    assert_invalid(SAMPLES("[0x10]"), "expected ',' or ']'");
    assert_invalid(SAMPLES("[1,]"), "expected samples[1]");
    assert_invalid(SAMPLES("[1 2]"), "expected ',' or ']'");
    assert_invalid(SAMPLES("[1-2]"), "not a valid JSON number");
}

static void test_duplicate_metric_key_is_refused(void **state)
{
    assert_invalid("{\"metrics\": {\"a\": {\"unit\": \"count\", \"samples\": [1]}, \"a\": "
                   "{\"unit\": \"count\", \"samples\": [2]}}}",
                   "\"a\" appears twice");
}

static void test_strings_follow_json(void **state)
{
    assert_valid("{\"metrics\": {\"c1.caf\\u00e9\\n\\\"q\\\"\": {\"unit\": \"count\", "
                 "\"samples\": [1]}}}");
    assert_valid("{\"metrics\": {\"c1.\xc3\xa9\xe2\x82\xac\": {\"unit\": \"count\", \"samples\": "
                 "[1]}}}");
    assert_invalid("{\"metrics\": {\"a\\ud800\": {\"unit\": \"count\", \"samples\": [1]}}}",
                   "lone high surrogate");
    assert_invalid("{\"metrics\": {\"a\\udc00\": {\"unit\": \"count\", \"samples\": [1]}}}",
                   "lone low surrogate");
    assert_invalid("{\"metrics\": {\"a\\u0000\": {\"unit\": \"count\", \"samples\": [1]}}}",
                   "\\u0000");
    assert_invalid("{\"metrics\": {\"a\\x\": {\"unit\": \"count\", \"samples\": [1]}}}",
                   "invalid escape");
    assert_invalid("{\"metrics\": {\"a\\u12\": {\"unit\": \"count\", \"samples\": [1]}}}",
                   "four hex digits");
    assert_invalid("{\"metrics\": {\"a\tb\": {\"unit\": \"count\", \"samples\": [1]}}}",
                   "control character");
    assert_invalid("{\"metrics\": {\"a\xff\": {\"unit\": \"count\", \"samples\": [1]}}}",
                   "not valid UTF-8");
    assert_invalid("{\"metrics\": {\"a\xc0\xaf\": {\"unit\": \"count\", \"samples\": [1]}}}",
                   "not valid UTF-8"); /* overlong '/' */
    assert_invalid("{\"metrics\": {\"a\xed\xa0\x80\": {\"unit\": \"count\", \"samples\": [1]}}}",
                   "not valid UTF-8"); /* an encoded surrogate */
    assert_invalid("{\"metrics\": {a: {\"unit\": \"count\", \"samples\": [1]}}}",
                   "expected a metric key");
}

static void test_error_names_line_and_column(void **state)
{
    struct docread_result result;
    read_text("{\"metrics\": {\n  \"c1.x\": {\"unit\": \"count\", \"samples\": [1, \"2\"]}}}",
              &result);
    assert_non_null(strstr(result.error, "line 2, column "));
    assert_non_null(strstr(result.error, "c1.x"));
}

struct collected {
    char keys[8][32];
    enum stats_unit units[8];
    double sums[8];
    size_t counts[8];
    size_t calls;
    size_t stop_after;
    double *kept;
};

static int collect(void *ctx, struct docread_metric *metric)
{
    struct collected *c = ctx;
    size_t i = c->calls++;
    snprintf(c->keys[i], sizeof c->keys[i], "%s", metric->key);
    c->units[i] = metric->unit;
    c->counts[i] = metric->n;
    for (size_t j = 0; metric->samples && j < metric->n; j++)
        c->sums[i] += metric->samples[j];
    if (i == 0 && metric->samples) { /* take ownership of the first metric's samples */
        c->kept = metric->samples;
        metric->samples = NULL;
    }
    return c->stop_after && c->calls >= c->stop_after;
}

static const char two_metrics[] =
    "{\"metrics\": {\"c2.lat\": {\"unit\": \"milliseconds\", \"samples\": [0.5, 1.5, 2]}, "
    "\"c2.rps\": {\"samples\": [10, 20], \"unit\": \"requests_per_second\"}}}";

static void test_callback_sees_each_metric_in_order(void **state)
{
    struct collected c = {0};
    struct docread_options options = {.on_metric = collect, .ctx = &c};
    struct docread_result result;
    assert_int_equal(docread_memory(two_metrics, strlen(two_metrics), &options, &result),
                     DOCREAD_OK);
    assert_int_equal(c.calls, 2);
    assert_string_equal(c.keys[0], "c2.lat");
    assert_int_equal(c.units[0], STATS_UNIT_MILLISECONDS);
    assert_int_equal(c.counts[0], 3);
    assert_true(c.sums[0] == 4.0);
    assert_string_equal(c.keys[1], "c2.rps");
    assert_int_equal(c.units[1], STATS_UNIT_REQUESTS_PER_SECOND);
    assert_true(c.sums[1] == 30.0);
    assert_int_equal(result.metrics, 2);
    assert_int_equal(result.samples, 5);
    assert_true(c.kept[2] == 2.0); /* ours now */
    free(c.kept);
    docread_result_free(&result);
}

static void test_callback_can_stop(void **state)
{
    struct collected c = {.stop_after = 1};
    struct docread_options options = {.on_metric = collect, .ctx = &c};
    struct docread_result result;
    assert_int_equal(docread_memory(two_metrics, strlen(two_metrics), &options, &result),
                     DOCREAD_STOPPED);
    assert_int_equal(c.calls, 1);
    /* what the callback returned is kept: loadstats passes out-of-memory (4) on */
    assert_int_equal(result.stopped_with, 1);
    free(c.kept);
    docread_result_free(&result);
}

static void test_discarding_samples_still_counts_them(void **state)
{
    struct collected c = {0};
    struct docread_options options = {.on_metric = collect, .ctx = &c, .discard_samples = true};
    struct docread_result result;
    assert_int_equal(docread_memory(two_metrics, strlen(two_metrics), &options, &result),
                     DOCREAD_OK);
    assert_int_equal(c.counts[0], 3);
    assert_null(c.kept);
    assert_int_equal(result.samples, 5);
    docread_result_free(&result);
}

/* A document several times the reader's 64 KiB buffer, so numbers, keys and
 * escapes straddle buffer boundaries; read through a file and a pipe. */
static char *large_document(size_t samples, double *sum)
{
    size_t cap = samples * 24 + 4096, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len,
                            "noise first\n{\"metrics\": {\"c1.k\\u00e9y\": {\"unit\": \"bytes\", "
                            "\"samples\": [");
    *sum = 0;
    for (size_t i = 0; i < samples; i++) {
        double v = (double)(i % 1000) / 8.0 + 0.125;
        *sum += v;
        len += (size_t)snprintf(text + len, cap - len, "%s%.17g", i ? ",\n " : "", v);
    }
    len += (size_t)snprintf(text + len, cap - len,
                            "]}, \"c1.n\": {\"unit\": \"count\", \"samples\": [7]}}}\n\n");
    return text;
}

static void test_streaming_read_of_a_large_file(void **state)
{
    double expected;
    char *text = large_document(200000, &expected);
    char path[] = "/tmp/test_docread_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);

    struct collected c = {0};
    struct docread_options options = {.on_metric = collect, .ctx = &c};
    struct docread_result result;
    assert_int_equal(docread_path(path, &options, &result), DOCREAD_OK);
    assert_int_equal(c.counts[0], 200000);
    assert_true(c.sums[0] == expected);
    assert_string_equal(c.keys[0], "c1.k\xc3\xa9y");
    assert_true(c.sums[1] == 7.0);
    free(c.kept);
    docread_result_free(&result);

    /* the same bytes through a pipe arrive in uneven reads */
    int pipe_fds[2];
    assert_int_equal(pipe(pipe_fds), 0);
    FILE *source = fopen(path, "r");
    pid_t child = fork();
    if (child == 0) {
        close(pipe_fds[0]);
        char chunk[7919];
        size_t got;
        while ((got = fread(chunk, 1, sizeof chunk, source)) > 0)
            if (write(pipe_fds[1], chunk, got) < 0) _exit(1);
        _exit(0);
    }
    fclose(source);
    close(pipe_fds[1]);
    struct collected piped = {0};
    options.ctx = &piped;
    assert_int_equal(docread_fd(pipe_fds[0], &options, &result), DOCREAD_OK);
    close(pipe_fds[0]);
    assert_true(piped.sums[0] == expected);
    free(piped.kept);
    docread_result_free(&result);
    unlink(path);
    free(text);
}

static void test_missing_file_is_an_io_error(void **state)
{
    struct docread_result result;
    assert_int_equal(docread_path("/nonexistent/doc.json", NULL, &result), DOCREAD_IO);
    assert_non_null(strstr(result.error, "cannot open"));
    assert_int_equal(docread_path("/", NULL, &result), DOCREAD_IO); /* a directory */
}

/* A callback that refuses the first metric: `stop` is what it returns, `why`
 * the reason it leaves (NULL: none, as a command that complains itself). */
struct refusal {
    int stop;
    const char *why;
};

static int refuse(void *ctx, struct docread_metric *metric)
{
    const struct refusal *r = ctx;
    if (r->why) snprintf(metric->why, metric->why_size, "%s", r->why);
    return r->stop;
}

/* docread_walk on `text` written to a file; the file's name in *path. */
static enum docread_status walk_text(const char *text, const struct refusal *r, char *path,
                                     struct docread_result *result)
{
    strcpy(path, "/tmp/test_docread_walk_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    struct docread_options options = {.on_metric = r ? refuse : NULL, .ctx = (void *)r};
    enum docread_status status = docread_walk(path, &options, result);
    unlink(path);
    return status;
}

static void test_walk_names_the_input_in_its_one_line(void **state)
{
    char path[64], want[256];
    struct docread_result result;
    assert_int_equal(walk_text(ONE_METRIC, NULL, path, &result), DOCREAD_OK);
    assert_string_equal(result.error, "");
    docread_result_free(&result);

    assert_int_equal(walk_text("{\"metrics\": {}}", NULL, path, &result), DOCREAD_INVALID);
    snprintf(want, sizeof want, "%s: ", path);
    assert_memory_equal(result.error, want, strlen(want));
    assert_non_null(strstr(result.error, "metrics"));

    assert_int_equal(docread_walk("/nonexistent/doc.json", NULL, &result), DOCREAD_IO);
    assert_string_equal(result.error,
                        "/nonexistent/doc.json: cannot open: No such file or directory");
    assert_string_equal(docread_input_name("-"), "<stdin>");
    assert_string_equal(docread_input_name("a.json"), "a.json");
}

static void test_walk_gives_a_stop_its_kind_and_its_reason(void **state)
{
    char path[64], want[256];
    struct docread_result result;
    /* memory: the callback's reason, after the input's name */
    struct refusal memory = {DOCREAD_NO_MEMORY, "out of memory at metric \"c1.x\""};
    assert_int_equal(walk_text(ONE_METRIC, &memory, path, &result), DOCREAD_NO_MEMORY);
    snprintf(want, sizeof want, "%s: out of memory at metric \"c1.x\"", path);
    assert_string_equal(result.error, want);
    /* any other stop refuses the input */
    struct refusal refused = {1, "\"c1.x\" is in count here but in bytes before"};
    assert_int_equal(walk_text(ONE_METRIC, &refused, path, &result), DOCREAD_INVALID);
    snprintf(want, sizeof want, "%s: \"c1.x\" is in count here but in bytes before", path);
    assert_string_equal(result.error, want);
    /* a callback that complained itself leaves no line to print again */
    struct refusal silent = {DOCREAD_NO_MEMORY, NULL};
    assert_int_equal(walk_text(ONE_METRIC, &silent, path, &result), DOCREAD_NO_MEMORY);
    assert_string_equal(result.error, "");
    /* and the plain reader leaves it empty too, with the status it stopped on */
    assert_int_equal(docread_memory(ONE_METRIC, strlen(ONE_METRIC),
                                    &(struct docread_options){.on_metric = refuse, .ctx = &silent},
                                    &result),
                     DOCREAD_STOPPED);
    assert_int_equal(result.stopped_with, DOCREAD_NO_MEMORY);
    assert_string_equal(result.error, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_leading_text_is_tolerated),
        cmocka_unit_test(test_rule_exactly_one_document),
        cmocka_unit_test(test_rule_top_level_keys),
        cmocka_unit_test(test_sidecar_is_returned),
        cmocka_unit_test(test_rule_metrics_is_a_non_empty_object),
        cmocka_unit_test(test_rule_metric_has_exactly_unit_and_samples),
        cmocka_unit_test(test_rule_unit_is_one_of_the_list),
        cmocka_unit_test(test_rule_samples_are_finite_numbers),
        cmocka_unit_test(test_duplicate_metric_key_is_refused),
        cmocka_unit_test(test_strings_follow_json),
        cmocka_unit_test(test_error_names_line_and_column),
        cmocka_unit_test(test_callback_sees_each_metric_in_order),
        cmocka_unit_test(test_callback_can_stop),
        cmocka_unit_test(test_discarding_samples_still_counts_them),
        cmocka_unit_test(test_streaming_read_of_a_large_file),
        cmocka_unit_test(test_missing_file_is_an_io_error),
        cmocka_unit_test(test_walk_names_the_input_in_its_one_line),
        cmocka_unit_test(test_walk_gives_a_stop_its_kind_and_its_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
