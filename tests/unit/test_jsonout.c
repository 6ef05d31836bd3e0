/* The collector writer: number formatting that reads back exactly, string
 * escaping for any bytes, a whole document written through a pipe, and
 * the rest of one kept in memory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "loadgen/output/jsonout.h"
#include "stats/math/rng.h"
#include "loadgen/output/results.h"

static void integers_and_fixed_point(void **state)
{
    char b[40];
    lg_format_double(b, 0);
    assert_string_equal(b, "0");
    lg_format_double(b, 42);
    assert_string_equal(b, "42");
    lg_format_double(b, -3);
    assert_string_equal(b, "-3");
    lg_format_double(b, 0.5);
    assert_string_equal(b, "0.5");
    lg_format_double(b, 412345.0 / 1e6);
    assert_string_equal(b, "0.412345");
    lg_format_double(b, 1.0 / 1e9);
    assert_string_equal(b, "0.000000001");
    lg_format_double(b, 1e15);
    assert_string_equal(b, "1000000000000000");
    lg_format_u64(b, UINT64_MAX);
    assert_string_equal(b, "18446744073709551615");
}

static void every_sample_of_nanosecond_origin_reads_back(void **state)
{
    char b[40];
    for (uint64_t ns = 1; ns < 5000000000ull; ns = ns * 3 + 7) {
        double ms = (double)ns / 1e6;
        lg_format_double(b, ms);
        assert_true(strtod(b, NULL) == ms);
        double s = (double)ns / 1e9;
        lg_format_double(b, s);
        assert_true(strtod(b, NULL) == s);
    }
    const double odd[] = {1.0 / 3, 2.0 / 3, 1e-12, 123456789.123456789, 1e300, -1e-300, 0.1, 1e21};
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        lg_format_double(b, odd[i]);
        assert_true(strtod(b, NULL) == odd[i]);
    }
}

static char *capture(void (*write_fn)(struct lg_jsonout *, const void *), const void *arg)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    struct lg_jsonout o;
    assert_int_equal(lg_jsonout_open(&o, fds[1], 4096), 0);
    write_fn(&o, arg);
    assert_int_equal(lg_jsonout_close(&o), 0);
    close(fds[1]);
    char *buf = calloc(1, 65536);
    size_t n = 0;
    ssize_t k;
    while ((k = read(fds[0], buf + n, 65535 - n)) > 0)
        n += (size_t)k;
    close(fds[0]);
    return buf;
}

/* Per-request series are kept as integer nanoseconds and written straight
 * from the integer: the text must be what the double ns / 1e6 gave. */
static void nanoseconds_written_as_the_double_in_ms_was(void **state)
{
    struct stats_rng rng;
    stats_rng_seed(&rng, 42);
    uint64_t fixed[] = {0,
                        1,
                        9,
                        10,
                        999,
                        1000,
                        1500,
                        999999,
                        1000000,
                        1000001,
                        123456789,
                        10000000000ull,
                        3600000000000ull,
                        86400000000000ull};
    char a[64], b[64];
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + 1000000; i++) {
        uint64_t ns = i < sizeof(fixed) / sizeof(fixed[0])
                          ? fixed[i]
                          : stats_rng_below(&rng, i % 2 ? 1000000000ull : 100000000000000ull);
        size_t na = lg_format_double(a, (double)ns / 1e6);
        size_t nb = lg_format_ns_as_ms(b, ns);
        assert_int_equal(na, nb);
        assert_string_equal(a, b);
    }
}

static void write_str(struct lg_jsonout *o, const void *s)
{
    lg_json_str(o, s);
}

static void strings_are_escaped(void **state)
{
    char *out = capture(write_str, "a\"b\\c\nd\te\x01\x7f");
    assert_string_equal(out, "\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\"");
    free(out);
    out = capture(write_str, "caf\xc3\xa9 \xe2\x82\xac");
    assert_string_equal(out, "\"caf\xc3\xa9 \xe2\x82\xac\"");
    free(out);
    /* invalid UTF-8 (a lone continuation, a truncated sequence, an overlong) */
    out = capture(write_str, "x\x80y\xc3z\xc0\xaf");
    assert_string_equal(out, "\"x\\ufffdy\\ufffdz\\ufffd\\ufffd\"");
    free(out);
}

static void write_doc(struct lg_jsonout *o, const void *arg)
{
    (void)o;
    (void)arg;
}

static void document_has_one_key_and_prefixed_metrics(void **state)
{
    (void)write_doc;
    struct lg_level_result r = {0};
    r.clients = 64;
    double *lat = malloc(3 * sizeof(double));
    lat[0] = 0.412;
    lat[1] = 0.398;
    lat[2] = 1.5;
    assert_int_equal(lg_result_add(&r, "latency_warm_ms", "milliseconds", lat, 3, 3), 0);
    assert_int_equal(lg_result_add_count(&r, "errors", 0), 0);
    /* a metric without samples is never written */
    assert_int_equal(lg_result_add(&r, "ttfb_ms", "milliseconds", malloc(8), 0, 0), 0);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(lg_results_write(fds[1], &r, 1, NULL), 0);
    close(fds[1]);
    char buf[4096] = {0};
    ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
    close(fds[0]);
    assert_true(n > 0);
    assert_string_equal(
        buf,
        "{\"metrics\": {\n"
        "  \"c64.latency_warm_ms\": {\"unit\": \"milliseconds\", \"samples\": [0.412,0.398,1.5]},\n"
        "  \"c64.errors\": {\"unit\": \"count\", \"samples\": [0]}\n"
        "}}\n");
    lg_result_free(&r, 0);
}

/* A level of n samples per series, large enough for several buffers. */
static void big_level(struct lg_level_result *r, size_t n)
{
    memset(r, 0, sizeof(*r));
    r->clients = 8;
    uint64_t *ns = malloc(n * sizeof(*ns));
    for (size_t i = 0; i < n; i++)
        ns[i] = 100000 + i * 37;
    assert_int_equal(lg_result_add_series(r, "latency_warm_ms", ns, n, n), 0);
    assert_int_equal(lg_result_add_count(r, "requests", n), 0);
}

static void size_is_what_the_writer_writes(void **state)
{
    struct lg_level_result r;
    big_level(&r, 300000); /* about 3 MB: three of the writer's buffers */
    int fd = open("/dev/null", O_WRONLY);
    size_t written = 0;
    assert_int_equal(lg_results_write(fd, &r, 1, &written), 0);
    close(fd);
    assert_true(written > 2u << 20);
    assert_int_equal(lg_results_size(&r, 1), written);
    lg_result_free(&r, 0);
}

/* `full` callbacks over a non-blocking pipe holding at most its 64 KiB. */
struct drain {
    int rfd;
    size_t got, calls;
    int answer; /* what to return once the pipe was drained twice */
};

static int drain_pipe(struct lg_jsonout *o, void *arg)
{
    struct drain *d = arg;
    d->calls++;
    if (d->calls > 2 && d->answer != 0) {
        o->err = ETIMEDOUT;
        return d->answer;
    }
    char buf[65536];
    ssize_t k;
    while ((k = read(d->rfd, buf, sizeof(buf))) > 0)
        d->got += (size_t)k;
    return 0;
}

static void a_full_pipe_asks_what_next(void **state)
{
    struct lg_level_result r;
    big_level(&r, 100000);
    size_t size = lg_results_size(&r, 1);
    const int answers[] = {0, 1, -1}; /* write again, stop, fail */
    for (size_t a = 0; a < 3; a++) {
        int answer = answers[a];
        int fds[2];
        assert_int_equal(pipe2(fds, O_NONBLOCK), 0);
        struct drain d = {.rfd = fds[0], .answer = answer};
        struct lg_jsonout o;
        assert_int_equal(lg_jsonout_open(&o, fds[1], 1 << 20), 0);
        o.full = drain_pipe;
        o.full_arg = &d;
        lg_results_write_to(&o, &r, 1);
        int rc = lg_jsonout_close(&o);
        char buf[65536];
        ssize_t k;
        while ((k = read(fds[0], buf, sizeof(buf))) > 0)
            d.got += (size_t)k;
        close(fds[0]);
        close(fds[1]);
        assert_true(d.calls >= 3);
        if (answer == 0) { /* room was made each time: the whole document */
            assert_int_equal(rc, 0);
            assert_int_equal(d.got, size);
            assert_int_equal(o.written, size);
        } else { /* stopped, or failed: what went out is all that was written */
            assert_int_equal(rc, answer > 0 ? 0 : -1);
            assert_int_equal(o.stopped, answer > 0);
            assert_int_equal(o.failed, answer < 0);
            if (answer < 0) assert_int_equal(o.err, ETIMEDOUT);
            assert_int_equal(d.got, o.written);
            assert_true(o.written < size);
        }
    }
    lg_result_free(&r, 0);
}

/* The whole document as lg_results_write writes it, read back from a file. */
static char *document_text(const struct lg_level_result *r, size_t *len)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(lg_results_write(fileno(f), r, 1, len), 0);
    char *text = malloc(*len);
    assert_non_null(text);
    assert_int_equal(pread(fileno(f), text, *len, 0), (ssize_t)*len);
    fclose(f);
    return text;
}

/* The hand-off's child gets the rest of the document formatted in memory:
 * the bytes after the first `skip`, whether the size was known ahead
 * (expect) or not. */
static void a_memory_writer_keeps_what_follows_skip(void **state)
{
    struct lg_level_result r;
    big_level(&r, 300000); /* about 3 MB: the memory writer flushes many times */
    size_t size;
    char *whole = document_text(&r, &size);
    const size_t skips[] = {0, 1, 4096, (1 << 16) + 7, size / 2, size - 1, size};
    for (size_t i = 0; i < sizeof(skips) / sizeof(skips[0]); i++) {
        for (int known = 0; known < 2; known++) {
            size_t skip = skips[i];
            struct lg_jsonout m;
            assert_int_equal(lg_jsonout_open_memory(&m, skip, known ? size - skip : 0), 0);
            lg_results_write_to(&m, &r, 1);
            char *rest;
            size_t len;
            assert_int_equal(lg_jsonout_take(&m, &rest, &len), 0);
            assert_int_equal(len, size - skip);
            if (len) assert_memory_equal(rest, whole + skip, len);
            free(rest);
        }
    }
    /* a writer closed without taking frees what it kept */
    struct lg_jsonout m;
    assert_int_equal(lg_jsonout_open_memory(&m, 10, 0), 0);
    lg_results_write_to(&m, &r, 1);
    assert_int_equal(lg_jsonout_close(&m), 0);
    free(whole);
    lg_result_free(&r, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nanoseconds_written_as_the_double_in_ms_was),
        cmocka_unit_test(integers_and_fixed_point),
        cmocka_unit_test(every_sample_of_nanosecond_origin_reads_back),
        cmocka_unit_test(strings_are_escaped),
        cmocka_unit_test(document_has_one_key_and_prefixed_metrics),
        cmocka_unit_test(size_is_what_the_writer_writes),
        cmocka_unit_test(a_full_pipe_asks_what_next),
        cmocka_unit_test(a_memory_writer_keeps_what_follows_skip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
