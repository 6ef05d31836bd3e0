/* The per-connection block pool of the protocol libraries. See blockpool.h. */
#include "loadgen/core/blockpool.h"

#include <stdlib.h>
#include <string.h>

/* A protocol library allocates several small blocks per request (a header copy,
 * the stream, queue items, decoded header values) and frees them when the
 * stream closes. A pool per session recycles them by size class instead of
 * going through malloc and free each time; the pool goes with the session. */
/* Each block is an 8-byte header (its class) and 16 k + 8 bytes for the
 * caller, 16 (k + 1) bytes in all; a chunk's first header sits 8 bytes in,
 * so every block starts 16-byte aligned, as malloc's do. The header and the
 * rounding cost 16 bytes per block on average, as malloc's do: a session's
 * long-lived blocks (HPACK's dynamic table, 150 blocks of nghttp2's with
 * nginx's responses) cost no more than they would without the pool. Before,
 * a 16-byte header and classes of 32 cost about 32 per block: 3.6 KiB more
 * per HTTP/2 session than malloc. */
#define POOL_GRAIN 16
#define POOL_HDR 8
/* carved into blocks; small, as there is one pool per connection: an idle
 * session uses about 3 KiB of blocks, and 4 KiB chunks left one mostly empty */
#define POOL_CHUNK 1024
/* where a chunk's first header goes: the chunk's own link, then 8 bytes so
 * that the block after the header is 16-byte aligned */
#define POOL_FIRST 8
#define POOL_LARGE UINT64_MAX
#define POOL_LARGE_HDR 16 /* malloc's 16-byte alignment kept for large blocks */

struct pool_chunk {
    struct pool_chunk *next;
};

/* The class of a block of `size` bytes: the smallest k with 16 k + 8 >= size. */
static size_t class_of(size_t size)
{
    return size <= POOL_HDR ? 0 : (size - POOL_HDR - 1) / POOL_GRAIN + 1; /* no overflow */
}

static size_t class_bytes(size_t cls)
{
    return cls * POOL_GRAIN + POOL_HDR;
}

static uint64_t *header_of(void *ptr)
{
    return (uint64_t *)((uint8_t *)ptr - POOL_HDR);
}

void *lg_block_pool_malloc(size_t size, void *mem_user_data)
{
    struct lg_block_pool *p = mem_user_data;
    size_t cls = class_of(size);
    uint8_t *b;
    if (cls >= LG_BLOCK_POOL_CLASSES) {
        if (size > SIZE_MAX - POOL_LARGE_HDR) return NULL;
        b = malloc(POOL_LARGE_HDR + size);
        if (!b) return NULL;
        b += POOL_LARGE_HDR;
        *header_of(b) = POOL_LARGE;
        return b;
    }
    if (p->free[cls]) {
        b = p->free[cls];
        p->free[cls] = *(void **)b;
        return b;
    }
    size_t need = POOL_HDR + class_bytes(cls);
    if (p->left < need) {
        struct pool_chunk *ch = malloc(POOL_CHUNK);
        if (!ch) return NULL;
        ch->next = p->chunks;
        p->chunks = ch;
        p->cur = (uint8_t *)ch + POOL_FIRST;
        p->left = POOL_CHUNK - POOL_FIRST;
    }
    *(uint64_t *)p->cur = cls;
    b = p->cur + POOL_HDR;
    p->cur += need;
    p->left -= need;
    return b;
}

void lg_block_pool_free(void *ptr, void *mem_user_data)
{
    struct lg_block_pool *p = mem_user_data;
    if (!ptr) return;
    uint64_t cls = *header_of(ptr);
    if (cls == POOL_LARGE) {
        free((uint8_t *)ptr - POOL_LARGE_HDR);
        return;
    }
    *(void **)ptr = p->free[cls];
    p->free[cls] = ptr;
}

void *lg_block_pool_calloc(size_t n, size_t size, void *mem_user_data)
{
    if (size && n > SIZE_MAX / size) return NULL;
    void *b = lg_block_pool_malloc(n * size, mem_user_data);
    if (b) memset(b, 0, n * size);
    return b;
}

void *lg_block_pool_realloc(void *ptr, size_t size, void *mem_user_data)
{
    if (!ptr) return lg_block_pool_malloc(size, mem_user_data);
    uint64_t cls = *header_of(ptr);
    if (cls == POOL_LARGE) {
        if (size > SIZE_MAX - POOL_LARGE_HDR) return NULL;
        uint8_t *b = realloc((uint8_t *)ptr - POOL_LARGE_HDR, POOL_LARGE_HDR + size);
        return b ? b + POOL_LARGE_HDR : NULL;
    }
    size_t cap = class_bytes(cls);
    if (size <= cap) return ptr;
    void *b = lg_block_pool_malloc(size, mem_user_data);
    if (b) {
        memcpy(b, ptr, cap);
        lg_block_pool_free(ptr, mem_user_data);
    }
    return b;
}

void lg_block_pool_destroy(struct lg_block_pool *p)
{
    while (p->chunks) {
        struct pool_chunk *next = p->chunks->next;
        free(p->chunks);
        p->chunks = next;
    }
}
