/* The HTTP/2 session's allocator: nghttp2 allocates several small blocks per
 * request (the stream, queue items, decoded header values) and frees them
 * when the stream closes; a pool per session recycles them by size class. */
#ifndef LOADGEN_H2POOL_H
#define LOADGEN_H2POOL_H

#include <nghttp2/nghttp2.h>
#include <stddef.h>
#include <stdint.h>

#define LG_H2_POOL_CLASSES 16 /* pooled blocks up to 512 bytes; larger use malloc */

struct pool_chunk;

struct lg_h2_pool {
    void *free[LG_H2_POOL_CLASSES]; /* singly linked through the blocks themselves */
    struct pool_chunk *chunks;
    uint8_t *cur;
    size_t left;
};

/* nghttp2's allocator table drawing from the pool (zeroed by the caller). */
nghttp2_mem lg_h2_pool_mem(struct lg_h2_pool *p);
/* Frees every chunk: after the session that used it is gone. */
void lg_h2_pool_destroy(struct lg_h2_pool *p);

#endif
