/* A buffered JSON writer for the collector document (to a descriptor, or
 * into memory for the hand-off's child) and the --log and --meta files:
 * large writes, string escaping correct for any byte string, and a number
 * formatter that needs no printf for the samples we produce. */
#ifndef LOADGEN_JSONOUT_H
#define LOADGEN_JSONOUT_H

#include <stddef.h>
#include <stdint.h>

struct lg_jsonout {
    int fd; /* -1: nothing is written, only counted (the document's size) */
    char *buf;
    size_t len, cap;
    int failed; /* a write failed: errno is kept in err */
    int err;
    int stopped;    /* `full` took the rest over: what follows is dropped */
    size_t written; /* bytes handed to write() so far (a memory writer: formatted) */
    /* When fd is non-blocking and full (EAGAIN): 0 to write again, 1 to stop
     * (stopped is set, the rest is dropped), -1 to fail with o->err. NULL
     * makes EAGAIN a failure like any other. */
    int (*full)(struct lg_jsonout *o, void *arg);
    void *full_arg;
    /* a memory writer's (lg_jsonout_open_memory): what follows the first
     * `skip` bytes, kept in mem */
    int to_memory;
    char *mem;
    size_t mem_len, mem_cap, skip;
};

/* A writer to fd (-1: counts only), with a buffer of cap bytes. */
int lg_jsonout_open(struct lg_jsonout *o, int fd, size_t cap);
/* Flushes and frees the buffer; returns -1 if any write failed (not when
 * the writer was stopped). */
int lg_jsonout_close(struct lg_jsonout *o);
int lg_jsonout_flush(struct lg_jsonout *o);
/* A writer into memory that keeps what is written after its first `skip`
 * bytes (the part of a document still to go out), in a buffer made for
 * `expect` bytes and grown beyond them if need be: -1 when memory runs out. */
int lg_jsonout_open_memory(struct lg_jsonout *o, size_t skip, size_t expect);
/* Closes a memory writer and hands over what it kept, in a buffer the
 * caller frees (NULL when it kept nothing): 0, or -1 with errno ENOMEM when
 * memory ran out on the way. */
int lg_jsonout_take(struct lg_jsonout *o, char **mem, size_t *len);

void lg_json_raw(struct lg_jsonout *o, const char *s, size_t n);
void lg_json_lit(struct lg_jsonout *o, const char *s);
/* A quoted, escaped string; bytes that are not valid UTF-8 become \ufffd so
 * the document stays valid JSON whatever a key contains. */
void lg_json_str(struct lg_jsonout *o, const char *s);
void lg_json_u64(struct lg_jsonout *o, uint64_t v);
void lg_json_i64(struct lg_jsonout *o, int64_t v);
/* A finite double in the shortest of: an integer, fixed point with up to nine
 * decimals when that reads back exactly, or %.17g. Non-finite values are the
 * caller's bug; they are written as 0 to keep the document valid. */
void lg_json_double(struct lg_jsonout *o, double v);
/* n doubles separated by commas: the samples of one metric, with one buffer
 * check per number and no call per separator. */
void lg_json_doubles(struct lg_jsonout *o, const double *v, size_t n);

/* Nanosecond durations written as milliseconds: the same text lg_json_doubles
 * writes for ns / 1e6, made from the integer directly (no division, no check
 * that the double reads back). */
void lg_json_ns_as_ms(struct lg_jsonout *o, const uint64_t *ns, size_t n);
size_t lg_format_ns_as_ms(char *buf, uint64_t ns);

/* Formats v into buf (at least 32 bytes) as lg_json_double does; returns length. */
size_t lg_format_double(char *buf, double v);
size_t lg_format_u64(char *buf, uint64_t v);

#endif
