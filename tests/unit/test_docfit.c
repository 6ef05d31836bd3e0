/* --max-doc-bytes' fitting (loadgen/output/docfit.c) on series whose
 * samples differ in printed length: every bound the smallest document
 * allows is met, by the document as the writer then prints it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loadgen/output/docfit.h"
#include "loadgen/output/results.h"
#include "stats/math/rng.h"

/* One level: two counts and two latency series of n samples, lengths from
 * "0.001" to "123456.789" ms; the first sample of each is the shortest, so
 * a draw that puts another first makes the document longer. */
static void level_of(struct lg_level_result *r, size_t n)
{
    memset(r, 0, sizeof(*r));
    r->clients = 8;
    assert_int_equal(lg_result_add_count(r, "attempts", n), 0);
    assert_int_equal(lg_result_add_count(r, "requests", n), 0);
    static const uint64_t lengths[] = {1000, 123456789ull, 1234567, 98765432ull, 5000001};
    const char *names[] = {"latency_warm_ms", "latency_cold_ms"};
    for (int s = 0; s < 2; s++) {
        uint64_t *ns = malloc(n * sizeof(*ns));
        assert_non_null(ns);
        for (size_t i = 0; i < n; i++)
            ns[i] = lengths[i % 5] + (i > 0 ? 7 * i : 0);
        assert_int_equal(lg_result_add_series(r, names[s], ns, n, n), 0);
    }
}

static void every_bound_above_the_smallest_is_met(void **state)
{
    (void)state;
    struct lg_level_result r;
    level_of(&r, 400);
    size_t whole = lg_results_size(&r, 1);
    /* the largest of the smallest documents: each series cut to its
     * longest sample; every bound from there on must be met */
    for (size_t i = 0; i < r.n; i++)
        if (r.m[i].ns) {
            size_t longest = 0;
            for (size_t k = 1; k < r.m[i].n; k++)
                if (r.m[i].ns[k] > r.m[i].ns[longest]) longest = k;
            r.m[i].ns[0] = r.m[i].ns[longest];
            r.m[i].n = 1;
        }
    size_t smallest_worst = lg_results_size(&r, 1);
    lg_result_free(&r, 0);
    unsigned met = 0, refused = 0;
    for (size_t max = 150; max < whole; max += 7) {
        for (uint64_t seed = 1; seed <= 5; seed++) {
            level_of(&r, 400);
            struct stats_rng rng;
            stats_rng_seed(&rng, seed);
            size_t need = 0;
            FILE *report = fopen("/dev/null", "w");
            assert_non_null(report);
            int rc = lg_results_fit(&r, 1, max, &rng, report, "test", &need);
            fclose(report);
            if (rc == 0) {
                size_t got = lg_results_size(&r, 1);
                if (got > max)
                    fail_msg("bound %zu, seed %llu: %zu bytes", max, (unsigned long long)seed, got);
                met++;
            } else {
                /* refused only when the smallest really is larger */
                if (max >= smallest_worst)
                    fail_msg("bound %zu, seed %llu: refused, saying %zu bytes", max,
                             (unsigned long long)seed, need);
                assert_true(need > max);
                refused++;
            }
            lg_result_free(&r, 0);
        }
    }
    assert_true(met > 100);
    assert_true(refused > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_bound_above_the_smallest_is_met),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
