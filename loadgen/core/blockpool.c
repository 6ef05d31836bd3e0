/* The per-connection block pool of the protocol libraries. See blockpool.h. */
#include "loadgen/core/blockpool.h"

#include <stdlib.h>
#include <string.h>

/* A protocol library allocates several small blocks per request (a header copy,
 * the stream, queue items, decoded header values) and frees them when the
 * stream closes. A pool per session recycles them by size class instead of
 * going through malloc and free each time; the pool goes with the session. */
#define POOL_GRAIN 32 /* size classes are multiples of this */
/* carved into blocks; small, as there is one pool per connection: an idle
 * session uses about 3 KiB of blocks, and 4 KiB chunks left one mostly empty */
#define POOL_CHUNK 1024
#define POOL_LARGE UINT32_MAX
#define POOL_HDR 16 /* keeps the blocks 16-byte aligned */

struct pool_chunk {
    struct pool_chunk *next;
};

void *lg_block_pool_malloc(size_t size, void *mem_user_data)
{
    struct lg_block_pool *p = mem_user_data;
    size_t cls = size ? (size - 1) / POOL_GRAIN : 0;
    uint8_t *b;
    if (cls >= LG_BLOCK_POOL_CLASSES) {
        b = malloc(POOL_HDR + size);
        if (!b) return NULL;
        *(uint32_t *)b = POOL_LARGE;
        return b + POOL_HDR;
    }
    if (p->free[cls]) {
        b = p->free[cls];
        p->free[cls] = *(void **)b;
        return b;
    }
    size_t need = POOL_HDR + (cls + 1) * POOL_GRAIN;
    if (p->left < need) {
        struct pool_chunk *ch = malloc(POOL_CHUNK);
        if (!ch) return NULL;
        ch->next = p->chunks;
        p->chunks = ch;
        p->cur = (uint8_t *)ch + POOL_HDR;
        p->left = POOL_CHUNK - POOL_HDR;
    }
    b = p->cur;
    p->cur += need;
    p->left -= need;
    *(uint32_t *)b = (uint32_t)cls;
    return b + POOL_HDR;
}

void lg_block_pool_free(void *ptr, void *mem_user_data)
{
    struct lg_block_pool *p = mem_user_data;
    if (!ptr) return;
    uint32_t cls = *(uint32_t *)((uint8_t *)ptr - POOL_HDR);
    if (cls == POOL_LARGE) {
        free((uint8_t *)ptr - POOL_HDR);
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
    uint8_t *hdr = (uint8_t *)ptr - POOL_HDR;
    uint32_t cls = *(uint32_t *)hdr;
    if (cls == POOL_LARGE) {
        uint8_t *b = realloc(hdr, POOL_HDR + size);
        return b ? b + POOL_HDR : NULL;
    }
    size_t cap = (cls + 1) * (size_t)POOL_GRAIN;
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
