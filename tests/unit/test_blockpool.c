/* The per-connection block pool: every block 16-byte aligned whatever its
 * size (as malloc's, which the protocol libraries may assume), its bytes its
 * own, a freed block reused for the next of its class, growth by realloc
 * keeping the contents, large blocks through malloc, and the chunk count of
 * a session-like churn bounded by what is live at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loadgen/core/blockpool.h"

static size_t chunks_of(const struct lg_block_pool *p)
{
    size_t n = 0;
    for (const struct pool_chunk *c = p->chunks; c; c = *(const struct pool_chunk *const *)c)
        n++;
    return n;
}

static void blocks_are_aligned_and_their_own(void **state)
{
    (void)state;
    struct lg_block_pool pool;
    memset(&pool, 0, sizeof(pool));
    uint8_t *b[700];
    for (size_t size = 0; size < 700; size++) {
        b[size] = lg_block_pool_malloc(size, &pool);
        assert_non_null(b[size]);
        assert_int_equal((uintptr_t)b[size] % 16, 0);
        memset(b[size], (int)(size & 0xff), size);
    }
    /* no block overlaps another: each still holds its own bytes */
    for (size_t size = 0; size < 700; size++)
        for (size_t i = 0; i < size; i++)
            assert_int_equal(b[size][i], size & 0xff);
    for (size_t size = 0; size < 700; size++)
        lg_block_pool_free(b[size], &pool);
    lg_block_pool_free(NULL, &pool);
    lg_block_pool_destroy(&pool);
}

static void a_freed_block_is_the_next_of_its_class(void **state)
{
    (void)state;
    struct lg_block_pool pool;
    memset(&pool, 0, sizeof(pool));
    void *a = lg_block_pool_malloc(40, &pool);
    lg_block_pool_free(a, &pool);
    /* 33 to 40 bytes share a class (16 k + 8) */
    void *b = lg_block_pool_malloc(33, &pool);
    assert_ptr_equal(a, b);
    void *c = lg_block_pool_malloc(41, &pool);
    assert_ptr_not_equal(b, c);
    lg_block_pool_free(b, &pool);
    lg_block_pool_free(c, &pool);
    lg_block_pool_destroy(&pool);
}

static void realloc_and_calloc(void **state)
{
    (void)state;
    struct lg_block_pool pool;
    memset(&pool, 0, sizeof(pool));
    uint8_t *p = lg_block_pool_realloc(NULL, 10, &pool);
    assert_non_null(p);
    memcpy(p, "0123456789", 10);
    /* within its class, in place; beyond it, moved with its bytes; then large */
    assert_ptr_equal(lg_block_pool_realloc(p, 24, &pool), p);
    for (size_t size = 25; size < 5000; size += 211) {
        p = lg_block_pool_realloc(p, size, &pool);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        assert_memory_equal(p, "0123456789", 10);
    }
    lg_block_pool_free(p, &pool);
    uint8_t *z = lg_block_pool_calloc(7, 9, &pool);
    assert_non_null(z);
    for (int i = 0; i < 63; i++)
        assert_int_equal(z[i], 0);
    lg_block_pool_free(z, &pool);
    assert_null(lg_block_pool_calloc(SIZE_MAX / 2, 3, &pool));
    assert_null(lg_block_pool_malloc(SIZE_MAX - 4, &pool));
    lg_block_pool_destroy(&pool);
}

/* A session's pattern: a few long-lived blocks, then many requests that each
 * take and give back the same sizes; the chunks follow what is live at once,
 * not the number of requests. */
static void churn_needs_no_new_chunks(void **state)
{
    (void)state;
    struct lg_block_pool pool;
    memset(&pool, 0, sizeof(pool));
    static const size_t sizes[] = {40, 40, 56, 64, 72, 96, 96, 150, 200, 250};
    enum { N = sizeof(sizes) / sizeof(sizes[0]) };
    void *held[8];
    for (int i = 0; i < 8; i++)
        held[i] = lg_block_pool_malloc(48, &pool);
    void *b[N];
    for (int i = 0; i < N; i++)
        b[i] = lg_block_pool_malloc(sizes[i], &pool);
    for (int i = 0; i < N; i++)
        lg_block_pool_free(b[i], &pool);
    size_t chunks = chunks_of(&pool);
    for (int round = 0; round < 10000; round++) {
        for (int i = 0; i < N; i++)
            b[i] = lg_block_pool_malloc(sizes[i], &pool);
        for (int i = N - 1; i >= 0; i--)
            lg_block_pool_free(b[i], &pool);
    }
    assert_int_equal(chunks_of(&pool), chunks);
    /* 8 blocks of 48 and the ten above take 1,696 bytes with their headers:
     * two chunks of 1,016 usable bytes, three with the tail a chunk leaves */
    assert_true(chunks <= 3);
    for (int i = 0; i < 8; i++)
        lg_block_pool_free(held[i], &pool);
    lg_block_pool_destroy(&pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks_are_aligned_and_their_own),
        cmocka_unit_test(a_freed_block_is_the_next_of_its_class),
        cmocka_unit_test(realloc_and_calloc),
        cmocka_unit_test(churn_needs_no_new_chunks),
    };
    return cmocka_run_group_tests_name("blockpool", tests, NULL, NULL);
}
