/* libev's allocator. libev aborts the process whenever its allocator returns
 * NULL, wherever it was, so this one never does: when memory runs out it
 * fails the run (exit status 4, no document) and serves the request from a
 * reserve set aside for that, which keeps every loop's structures whole until
 * the workers have stopped and the loops are destroyed. See evalloc.h. */
#include "loadgen/core/evalloc.h"
#include "loadgen/watching/control.h"
#include "loadgen/options/options.h"

#include <ev.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Enough for libev's largest arrays at 200,000 descriptors (its per-fd table
 * holds 16 bytes each): pages of it are only touched once memory ran out. */
enum { RESERVE_BYTES = 4 << 20, HEADER = 16 };

static _Alignas(16) unsigned char reserve[RESERVE_BYTES];
static _Atomic size_t reserve_used;
static const char *tool_name = "loadgen";
/* libev's allocator is one for the process (ev_set_allocator takes no
 * context), so the run it fails is kept here, the one piece of a run's state
 * outside its context: the run that installed it last. */
static struct lg_run_ctx *_Atomic failing_run;

static bool in_reserve(const void *p)
{
    return (const unsigned char *)p >= reserve &&
           (const unsigned char *)p < reserve + RESERVE_BYTES;
}

/* A block of the reserve, after a header holding its size. Blocks are never
 * reused: the run ends soon after the first is taken. */
static void *reserve_take(size_t size)
{
    size_t need = HEADER + ((size + 15) & ~(size_t)15);
    size_t at = atomic_fetch_add(&reserve_used, need);
    if (need > RESERVE_BYTES || at > RESERVE_BYTES - need) return NULL;
    memcpy(reserve + at, &size, sizeof(size));
    return reserve + at + HEADER;
}

static size_t block_size(const void *p)
{
    size_t size;
    memcpy(&size, (const unsigned char *)p - HEADER, sizeof(size));
    return size;
}

/* The reserve cannot serve it either: the one way left that is not an
 * abort. stdio could allocate; write cannot. */
static _Noreturn void give_up(void)
{
    static const char msg[] = ": out of memory in the event loop\n";
    ssize_t rc = write(STDERR_FILENO, tool_name, strlen(tool_name));
    rc = write(STDERR_FILENO, msg, sizeof(msg) - 1);
    (void)rc;
    _exit(LG_EXIT_FAILED);
}

static void *ev_alloc(void *ptr, long size)
{
    if (size <= 0) {
        if (!in_reserve(ptr)) free(ptr);
        return NULL;
    }
    size_t n = (size_t)size;
    if (in_reserve(ptr)) {
        /* a block of the reserve grows (the run has failed already) */
        void *grown = malloc(n);
        if (!grown) grown = reserve_take(n);
        if (!grown) give_up();
        size_t old = block_size(ptr);
        memcpy(grown, ptr, old < n ? old : n);
        return grown;
    }
    size_t old = ptr ? malloc_usable_size(ptr) : 0;
    void *grown = realloc(ptr, n);
    if (grown) return grown;
    /* realloc failed: ptr is as it was */
    struct lg_run_ctx *run = atomic_load(&failing_run);
    if (run) lg_control_fail(run, "out of memory in the event loop");
    grown = reserve_take(n);
    if (!grown) give_up();
    if (ptr) {
        memcpy(grown, ptr, old < n ? old : n);
        free(ptr);
    }
    return grown;
}

void lg_evalloc_install(struct lg_run_ctx *run, const char *tool)
{
    tool_name = tool;
    atomic_store(&failing_run, run);
    ev_set_allocator(ev_alloc);
}

void lg_evalloc_forget(struct lg_run_ctx *run)
{
    struct lg_run_ctx *expected = run;
    atomic_compare_exchange_strong(&failing_run, &expected, NULL);
}
