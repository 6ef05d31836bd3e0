/* A per-connection allocator of small blocks, recycled by size class: the
 * protocol libraries (the QUIC transport's below the engine's API, the
 * tools' above it) allocate several small blocks per request or packet and
 * free them soon after; a pool per session serves them without malloc and
 * free. */
#ifndef LOADGEN_BLOCKPOOL_H
#define LOADGEN_BLOCKPOOL_H

#include <stddef.h>
#include <stdint.h>

/* pooled blocks of 8, 24, 40, ... 520 bytes (16 k + 8); larger use malloc */
#define LG_BLOCK_POOL_CLASSES 33

struct pool_chunk;

struct lg_block_pool {
    void *free[LG_BLOCK_POOL_CLASSES]; /* singly linked through the blocks themselves */
    struct pool_chunk *chunks;
    uint8_t *cur;
    size_t left;
};

/* The four functions of an allocator table with user data (the pool, zeroed
 * by the caller), in the shape those libraries' tables share. */
void *lg_block_pool_malloc(size_t size, void *pool);
void lg_block_pool_free(void *ptr, void *pool);
void *lg_block_pool_calloc(size_t n, size_t size, void *pool);
void *lg_block_pool_realloc(void *ptr, size_t size, void *pool);
/* Frees every chunk: after the session that used it is gone. */
void lg_block_pool_destroy(struct lg_block_pool *p);

#endif
