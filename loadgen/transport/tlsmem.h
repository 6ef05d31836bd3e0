/* OpenSSL's allocator, recycling per thread the blocks it allocates and frees
 * for every record: the record buffers SSL_MODE_RELEASE_BUFFERS frees once a
 * record is through (so an idle connection holds none) and the small
 * sub-packet structs of each record it writes. A loop thread keeps a few of
 * each for its next record instead of calling malloc and free per request. */
#ifndef LOADGEN_TLSMEM_H
#define LOADGEN_TLSMEM_H

/* Routes OpenSSL's allocations through here: before OpenSSL allocates
 * anything (the first TLS context). Without it OpenSSL uses malloc. */
void lg_tlsmem_init(void);
/* The calling thread starts keeping blocks (a level's loop begins on it). */
void lg_tlsmem_thread_begin(void);
/* It frees what it keeps and stops keeping (the loop ended). */
void lg_tlsmem_thread_end(void);

#endif
