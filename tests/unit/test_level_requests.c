/* -n's requests dealt out: request k of a level goes to client k mod
 * clients, so every client gets one when -n covers the level, and the
 * shares of every shard and every event loop add up to -n exactly; and the
 * per-second counts of a level with no deadline (-n alone), which grow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "loadgen/core/internal.h"
#include "loadgen/core/start.h"

static void one_process_makes_them_all(void **state)
{
    (void)state;
    assert_int_equal(lg_shard_requests(101, 4, 0, 1, 0, 4), 101);
    /* 101 over 4 clients: 26, 25, 25, 25 */
    assert_int_equal(lg_shard_requests(101, 4, 0, 1, 0, 1), 26);
    assert_int_equal(lg_shard_requests(101, 4, 0, 1, 1, 3), 75);
    assert_int_equal(lg_shard_requests(4, 4, 0, 1, 3, 1), 1);
}

/* Every split of every level into shards, and of each shard's clients into
 * loops, adds up to -n, and no client is left without a request. */
static void shards_and_loops_add_up(void **state)
{
    (void)state;
    static const uint64_t ns[] = {7, 10, 101, 1000003};
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
        for (unsigned clients = 1; clients <= 7 && clients <= ns[a]; clients++)
            for (unsigned count = 1; count <= 4; count++) {
                uint64_t total = 0;
                for (unsigned index = 0; index < count; index++) {
                    unsigned mine = lg_shard_clients(clients, index, count);
                    uint64_t shard = lg_shard_requests(ns[a], clients, index, count, 0, mine);
                    uint64_t loops = 0;
                    for (unsigned j = 0; j < mine; j++) { /* one client per loop */
                        uint64_t one = lg_shard_requests(ns[a], clients, index, count, j, 1);
                        assert_true(one >= 1);
                        loops += one;
                    }
                    assert_int_equal(loops, shard);
                    total += shard;
                }
                assert_int_equal(total, ns[a]);
            }
}

static void per_second_counts_grow_and_keep_what_they_held(void **state)
{
    (void)state;
    struct lg_store st;
    assert_int_equal(lg_store_init(&st, 2, 0, 10, 3), 0);
    st.timeline[2] = 7;
    st.error_timeline[1] = 5;
    assert_int_equal(lg_store_grow_timeline(&st, 2), 0); /* room enough already */
    assert_int_equal(st.timeline_len, 3);
    assert_int_equal(lg_store_grow_timeline(&st, 13), 0);
    assert_int_equal(st.timeline_len, 24); /* doubled until it holds 13 */
    assert_int_equal(st.timeline[2], 7);
    assert_int_equal(st.error_timeline[1], 5);
    for (size_t k = 3; k < st.timeline_len; k++) {
        assert_int_equal(st.timeline[k], 0);
        assert_int_equal(st.error_timeline[k], 0);
    }
    lg_store_free(&st, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_process_makes_them_all),
        cmocka_unit_test(shards_and_loops_add_up),
        cmocka_unit_test(per_second_counts_grow_and_keep_what_they_held),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
