/* The nearest word to a mistyped one: the edit distance, and which
 * candidate "did you mean" offers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/read/nearest.h"

static void edits_are_counted_one_each(void **state)
{
    (void)state;
    assert_int_equal(stats_edit_distance("clients", "clients"), 0);
    assert_int_equal(stats_edit_distance("clinets", "clients"), 1);  /* a swap */
    assert_int_equal(stats_edit_distance("client", "clients"), 1);   /* an insertion */
    assert_int_equal(stats_edit_distance("clientss", "clients"), 1); /* a deletion */
    assert_int_equal(stats_edit_distance("clyents", "clients"), 1);  /* a substitution */
    assert_int_equal(stats_edit_distance("", "rate"), 4);
    assert_int_equal(stats_edit_distance("rate", ""), 4);
    assert_int_equal(stats_edit_distance("kitten", "sitting"), 3);
}

static void words_too_long_are_never_near(void **state)
{
    (void)state;
    char longer[STATS_NEAREST_MAX_LEN + 2];
    for (size_t i = 0; i < sizeof(longer) - 1; i++)
        longer[i] = 'a';
    longer[sizeof(longer) - 1] = '\0';
    assert_int_equal(stats_edit_distance(longer, "a"), SIZE_MAX);
    longer[STATS_NEAREST_MAX_LEN] = '\0'; /* exactly the most it takes */
    assert_int_equal(stats_edit_distance(longer, longer), 0);
}

static const char *nearest(const char *given, const char *const *words, size_t n)
{
    struct stats_nearest near;
    stats_nearest_init(&near, given);
    for (size_t i = 0; i < n; i++)
        stats_nearest_offer(&near, words[i]);
    return near.best;
}

static void the_nearest_candidate_is_offered(void **state)
{
    (void)state;
    static const char *const words[] = {"clients", "levels",      "duration", "threads",
                                        "rate",    "retry-delay", "timeout"};
    const size_t n = sizeof(words) / sizeof(words[0]);
    assert_string_equal(nearest("clinets", words, n), "clients");
    assert_string_equal(nearest("thred", words, n), "threads");
    assert_string_equal(nearest("durration", words, n), "duration");
    assert_string_equal(nearest("rte", words, n), "rate");
    assert_string_equal(nearest("timeuot", words, n), "timeout");
}

static void nothing_far_is_offered(void **state)
{
    (void)state;
    static const char *const words[] = {"clients", "levels", "duration", "rate"};
    const size_t n = sizeof(words) / sizeof(words[0]);
    assert_null(nearest("bogus", words, n));
    assert_null(nearest("latency", words, n));
    assert_null(nearest("x", words, n));
    assert_null(nearest("", words, n));
}

static void of_equals_the_first_stays(void **state)
{
    (void)state;
    static const char *const words[] = {"seed", "send"};
    assert_string_equal(nearest("sead", words, 2), "seed");
    static const char *const reversed[] = {"send", "seed"};
    assert_string_equal(nearest("sead", reversed, 2), "send");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edits_are_counted_one_each),
        cmocka_unit_test(words_too_long_are_never_near),
        cmocka_unit_test(the_nearest_candidate_is_offered),
        cmocka_unit_test(nothing_far_is_offered),
        cmocka_unit_test(of_equals_the_first_stays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
