/* libev's allocator (loadgen/core/evalloc.c): when memory runs out it fails the
 * run and serves the request from its reserve, holding the old block's
 * bytes, so libev (which answers a NULL with abort()) never sees one; a
 * block of the reserve is never handed to free, and can grow again. The
 * file is included with realloc and malloc made to fail on demand. */
#include <ev.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "loadgen/watching/control.h"
#include "loadgen/core/evalloc.h"
#include "loadgen/options/options.h"

static int failing; /* the next this many reallocs and mallocs fail */

void *failing_realloc(void *p, size_t n);
void *failing_realloc(void *p, size_t n)
{
    if (failing > 0) {
        failing--;
        return NULL;
    }
    return realloc(p, n);
}

void *failing_malloc(size_t n);
void *failing_malloc(size_t n)
{
    if (failing > 0) {
        failing--;
        return NULL;
    }
    return malloc(n);
}

#define realloc failing_realloc
#define malloc failing_malloc
#include "loadgen/core/evalloc.c"
#undef realloc
#undef malloc

/* the run evalloc fails: only its address matters here */
static char the_run_tag;
#define THE_RUN ((struct lg_run_ctx *)(void *)&the_run_tag)
static const char *failure;
static struct lg_run_ctx *failed_run;
void lg_control_fail(struct lg_run_ctx *run, const char *why)
{
    if (!failure) {
        failure = why;
        failed_run = run;
    }
}

static void fill(unsigned char *p, size_t n, unsigned char seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed + i);
}

static bool holds(const unsigned char *p, size_t n, unsigned char seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed + i)) return false;
    return true;
}

static void test_a_failed_growth_is_served_from_the_reserve(void **state)
{
    (void)state;
    atomic_store(&failing_run, THE_RUN);
    unsigned char *p = ev_alloc(NULL, 100);
    assert_non_null(p);
    assert_false(in_reserve(p));
    fill(p, 100, 7);
    failing = 1;
    unsigned char *q = ev_alloc(p, 300); /* p is freed: the bytes moved */
    assert_non_null(q);
    assert_true(in_reserve(q));
    assert_true(holds(q, 100, 7));
    assert_string_equal(failure, "out of memory in the event loop");
    assert_ptr_equal(failed_run, THE_RUN);
    /* a block of the reserve grows on the heap again once memory is back */
    fill(q, 300, 3);
    unsigned char *r = ev_alloc(q, 500);
    assert_false(in_reserve(r));
    assert_true(holds(r, 300, 3));
    assert_null(ev_alloc(r, 0));
}

static void test_a_reserve_block_grows_within_the_reserve_when_memory_stays_short(void **state)
{
    (void)state;
    failing = 1;
    unsigned char *p = ev_alloc(NULL, 40);
    assert_true(in_reserve(p));
    fill(p, 40, 9);
    failing = 1;
    unsigned char *q = ev_alloc(p, 4000);
    assert_true(in_reserve(q));
    assert_true(holds(q, 40, 9));
    /* freeing blocks of the reserve hands nothing to free() */
    assert_null(ev_alloc(q, 0));
    assert_null(ev_alloc(p, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_failed_growth_is_served_from_the_reserve),
        cmocka_unit_test(test_a_reserve_block_grows_within_the_reserve_when_memory_stays_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
