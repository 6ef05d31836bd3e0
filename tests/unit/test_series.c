/* Sample series: exact counts, the reservoir's limit and uniformity, merging. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "loadgen/output/series.h"

static void keeps_everything_below_the_limit(void **state)
{
    struct lg_series s;
    struct stats_rng rng;
    stats_rng_seed(&rng, 1);
    lg_series_init(&s, 10000);
    for (int i = 0; i < 5000; i++)
        lg_series_add(&s, i, &rng);
    assert_int_equal(s.n, 5000);
    assert_int_equal(s.seen, 5000);
    assert_false(lg_series_sampled(&s));
    for (uint64_t i = 0; i < 5000; i++)
        assert_true(s.v[i] == i);
    lg_series_free(&s);
}

/* The open loop's room made before a level: offering that many samples
 * never moves the array (no allocation while the loop keeps time); the room
 * stops at the limit, and beyond the room the series grows as before. */
static void prepared_room_is_used_without_allocating(void **state)
{
    struct lg_series s;
    struct stats_rng rng;
    stats_rng_seed(&rng, 1);
    lg_series_init(&s, 10000);
    assert_int_equal(lg_series_prepare(&s, 5000), 0);
    assert_int_equal(s.cap, 5000);
    assert_int_equal(s.n, 0);
    const uint64_t *room = s.v;
    for (int i = 0; i < 5000; i++)
        lg_series_add(&s, i, &rng);
    assert_ptr_equal(s.v, room);
    for (int i = 5000; i < 7000; i++)
        lg_series_add(&s, i, &rng);
    assert_int_equal(s.n, 7000);
    for (uint64_t i = 0; i < 7000; i++)
        assert_true(s.v[i] == i);
    lg_series_free(&s);

    lg_series_init(&s, 300);
    assert_int_equal(lg_series_prepare(&s, 1000000), 0);
    assert_int_equal(s.cap, 300);
    lg_series_free(&s);
}

static void reservoir_is_bounded_and_uniform(void **state)
{
    struct lg_series s;
    struct stats_rng rng;
    stats_rng_seed(&rng, 7);
    lg_series_init(&s, 1000);
    for (int i = 0; i < 100000; i++)
        lg_series_add(&s, i, &rng);
    assert_int_equal(s.n, 1000);
    assert_int_equal(s.seen, 100000);
    assert_true(lg_series_sampled(&s));
    /* a uniform subset: the mean of the kept values is near the mean of all */
    double sum = 0;
    int low = 0;
    for (size_t i = 0; i < s.n; i++) {
        sum += (double)s.v[i];
        low += s.v[i] < 50000;
    }
    double mean = sum / (double)s.n;
    assert_true(mean > 45000 && mean < 55000);
    assert_true(low > 430 && low < 570);
    lg_series_free(&s);
}

static void merge_concatenates_when_it_fits(void **state)
{
    struct lg_series a, b, out;
    struct stats_rng rng;
    stats_rng_seed(&rng, 3);
    lg_series_init(&a, 100);
    lg_series_init(&b, 100);
    lg_series_init(&out, 100);
    for (int i = 0; i < 10; i++)
        lg_series_add(&a, 1, &rng);
    for (int i = 0; i < 20; i++)
        lg_series_add(&b, 2, &rng);
    struct lg_series *parts[] = {&a, &b};
    assert_int_equal(lg_series_merge(&out, parts, 2, &rng), 0);
    assert_int_equal(out.n, 30);
    assert_int_equal(out.seen, 30);
    double sum = 0;
    for (size_t i = 0; i < out.n; i++)
        sum += out.v[i];
    assert_true(sum == 50);
    lg_series_free(&a);
    lg_series_free(&b);
    lg_series_free(&out);
}

/* The level's end neither copies nor holds twice the samples of its first
 * worker: its array becomes the result's, and the others follow in order. */
static void merge_takes_the_first_part_s_array_and_keeps_the_order(void **state)
{
    struct lg_series a, b, out;
    struct stats_rng rng;
    stats_rng_seed(&rng, 4);
    lg_series_init(&a, 5000);
    lg_series_init(&b, 5000);
    lg_series_init(&out, 5000);
    for (uint64_t i = 0; i < 3000; i++)
        lg_series_add(&a, i, &rng);
    for (uint64_t i = 0; i < 1500; i++)
        lg_series_add(&b, 10000 + i, &rng);
    const uint64_t *a_array = a.v;
    struct lg_series *parts[] = {&a, &b};
    assert_int_equal(lg_series_merge(&out, parts, 2, &rng), 0);
    assert_int_equal(out.n, 4500);
    assert_int_equal(out.seen, 4500);
    assert_null(a.v);
    assert_int_equal(a.n, 0);
    assert_int_equal(a.seen, 3000);
    for (uint64_t i = 0; i < 3000; i++)
        assert_int_equal(out.v[i], i);
    for (uint64_t i = 0; i < 1500; i++)
        assert_int_equal(out.v[3000 + i], 10000 + i);
    lg_series_free(&a);
    lg_series_free(&b);
    lg_series_free(&out);

    /* one part: the very array, not a copy */
    lg_series_init(&a, 5000);
    lg_series_init(&out, 5000);
    for (uint64_t i = 0; i < 2000; i++)
        lg_series_add(&a, 7 * i, &rng);
    a_array = a.v;
    struct lg_series *one[] = {&a};
    assert_int_equal(lg_series_merge(&out, one, 1, &rng), 0);
    assert_ptr_equal(out.v, a_array);
    assert_int_equal(out.n, 2000);
    assert_int_equal(out.v[1999], 7 * 1999);
    lg_series_free(&a);
    lg_series_free(&out);
}

static void merge_samples_in_proportion_to_what_each_saw(void **state)
{
    struct lg_series a, b, out;
    struct stats_rng rng;
    stats_rng_seed(&rng, 5);
    lg_series_init(&a, 1000);
    lg_series_init(&b, 1000);
    lg_series_init(&out, 1000);
    for (int i = 0; i < 30000; i++)
        lg_series_add(&a, 1, &rng);
    for (int i = 0; i < 10000; i++)
        lg_series_add(&b, 2, &rng);
    struct lg_series *parts[] = {&a, &b};
    assert_int_equal(lg_series_merge(&out, parts, 2, &rng), 0);
    assert_int_equal(out.n, 1000);
    assert_int_equal(out.seen, 40000);
    int twos = 0;
    for (size_t i = 0; i < out.n; i++)
        twos += out.v[i] == 2;
    assert_int_equal(twos, 250);
    lg_series_free(&a);
    lg_series_free(&b);
    lg_series_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keeps_everything_below_the_limit),
        cmocka_unit_test(prepared_room_is_used_without_allocating),
        cmocka_unit_test(reservoir_is_bounded_and_uniform),
        cmocka_unit_test(merge_concatenates_when_it_fits),
        cmocka_unit_test(merge_takes_the_first_part_s_array_and_keeps_the_order),
        cmocka_unit_test(merge_samples_in_proportion_to_what_each_saw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
