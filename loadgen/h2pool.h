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
/* The same four functions (user data: the pool), for the libraries whose
 * allocator tables have nghttp2's shape: ngtcp2's and nghttp3's (QUIC and
 * HTTP/3 allocate per packet and per stream as nghttp2 does per frame). */
void *lg_h2_pool_malloc(size_t size, void *pool);
void lg_h2_pool_free(void *ptr, void *pool);
void *lg_h2_pool_calloc(size_t n, size_t size, void *pool);
void *lg_h2_pool_realloc(void *ptr, size_t size, void *pool);
/* Frees every chunk: after the session that used it is gone. */
void lg_h2_pool_destroy(struct lg_h2_pool *p);

#endif
