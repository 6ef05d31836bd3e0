/* OpenSSL's allocator. See tlsmem.h.
 *
 * Per request OpenSSL 3.0 allocates and frees the write buffer (16,584 bytes)
 * and the read buffer (16,712) under SSL_MODE_RELEASE_BUFFERS, and two
 * 40-byte WPACKET_SUB structs for each record it writes, whatever the mode.
 * The record buffers go through malloc's bins each time (a few hundred
 * instructions each way); keeping them allocated per connection instead
 * would cost 33 KiB per idle connection. A thread-local stack per size
 * class keeps the blocks of the records in progress on this thread: only a
 * handful are ever out at once, so a few kept per class serve every request.
 * The class of a block on free is its malloc_usable_size (no header, so no
 * byte more per allocation); a kept block serves a request only if it is
 * large enough. Outside a loop (start-up, exit) everything goes to malloc. */
#include "loadgen/transport/tlsmem.h"

#include <malloc.h>
#include <openssl/crypto.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#define SMALL_MAX 64 /* small classes: usable sizes 16..79, one per 16 bytes */
#define SMALL_CLASSES (SMALL_MAX / 16 + 1)
#define SMALL_KEEP 64
#define LARGE_MIN 16384 /* the record buffers */
#define LARGE_MAX 34816
#define LARGE_KEEP 8

struct block {
    struct block *next;
    size_t usable;
};

struct stack {
    struct block *top;
    unsigned n;
};

static _Thread_local struct {
    bool on;
    struct stack small[SMALL_CLASSES];
    struct stack large;
} cache;

static struct stack *stack_for(size_t size)
{
    if (size < sizeof(struct block)) return NULL;
    if (size < SMALL_CLASSES * 16) return &cache.small[size / 16];
    if (size >= LARGE_MIN && size <= LARGE_MAX) return &cache.large;
    return NULL;
}

static void *tls_malloc(size_t n, const char *file, int line)
{
    if (cache.on) {
        struct stack *s = stack_for(n);
        if (s && s->top && s->top->usable >= n) {
            struct block *b = s->top;
            s->top = b->next;
            s->n--;
            return b;
        }
    }
    return malloc(n);
}

static void *tls_realloc(void *p, size_t n, const char *file, int line)
{
    return realloc(p, n);
}

static void tls_free(void *p, const char *file, int line)
{
    if (p && cache.on) {
        size_t usable = malloc_usable_size(p);
        struct stack *s = stack_for(usable);
        if (s && s->n < (s == &cache.large ? LARGE_KEEP : SMALL_KEEP)) {
            struct block *b = p;
            b->usable = usable;
            b->next = s->top;
            s->top = b;
            s->n++;
            return;
        }
    }
    free(p);
}

void lg_tlsmem_init(void)
{
    static bool done;
    if (done) return;
    done = true;
    /* fails only when OpenSSL has allocated already: then it keeps malloc */
    CRYPTO_set_mem_functions(tls_malloc, tls_realloc, tls_free);
}

void lg_tlsmem_thread_begin(void)
{
    cache.on = true;
}

static void drain(struct stack *s)
{
    while (s->top) {
        struct block *b = s->top;
        s->top = b->next;
        free(b);
    }
    s->n = 0;
}

void lg_tlsmem_thread_end(void)
{
    cache.on = false;
    for (int i = 0; i < SMALL_CLASSES; i++)
        drain(&cache.small[i]);
    drain(&cache.large);
}
