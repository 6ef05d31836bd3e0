/* An incremental HTTP/1.1 response parser for the load path: it reads status
 * line and headers a line at a time (a vector probe per line, not a
 * byte-wise state machine), keeps only what framing needs (status,
 * Content-Length, Transfer-Encoding, Connection) and counts bodies without
 * storing them. Bytes of a line split across reads are carried in a buffer
 * allocated only when that happens. */
#ifndef HTTPLOAD_H1PARSE_H
#define HTTPLOAD_H1PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "httpload/h1scan.h"

/* A response's header block (status line, headers, or trailers) may not be
 * larger than this: beyond it the response is a protocol error. */
#define H1_HEADER_LIMIT (64 * 1024)

/* The three states that read lines come first: one comparison tells them. */
enum h1_state {
    H1_STATUS_LINE,
    H1_HEADERS,
    H1_TRAILERS,
    H1_BODY_LENGTH,
    H1_CHUNK_SIZE,
    H1_CHUNK_SIZE_OWS,
    H1_CHUNK_EXT,
    H1_CHUNK_SIZE_LF,
    H1_CHUNK_DATA,
    H1_CHUNK_DATA_CR,
    H1_CHUNK_DATA_LF,
    H1_BODY_UNTIL_EOF,
    H1_DONE,
    H1_FAILED,
};

enum h1_result {
    H1_MORE = 0,     /* everything consumed, the response is not complete */
    H1_COMPLETE = 1, /* the response is complete; *consumed says where it ended */
    H1_ERROR = -1,   /* a protocol error; p->error says what */
};

struct h1_parser {
    uint8_t state;
    bool head_request; /* the response to HEAD has no body */
    bool chunked;
    bool has_te; /* a Transfer-Encoding header: it, not Content-Length, frames the body */
    bool has_length;
    bool conn_close;
    bool keep_alive;
    uint8_t http_minor;
    uint16_t status;
    uint8_t probe; /* 1 + the probe's enum h1_simd; 0 until the first header line */
    unsigned chunk_digits;
    uint32_t header_bytes;
    uint64_t content_length;
    uint64_t remaining; /* body bytes left (length or current chunk) */
    uint64_t body_bytes;
    unsigned interim; /* 1xx responses seen before this one */
    char *carry;      /* a line split across reads */
    uint32_t carry_len, carry_cap;
    const char *error;
};

/* A zeroed parser is initialised too. The widest probe the CPU has
 * (h1scan.h) is chosen when lines are first scanned, and kept. */
void h1_init(struct h1_parser *p);
/* The parser uses the widest probe up to `limit` instead (tests: every
 * version on one machine); h1_reset keeps the choice. */
void h1_use_probe(struct h1_parser *p, enum h1_simd limit);
/* Prepares for the response to the next request. */
void h1_reset(struct h1_parser *p, bool head_request);
void h1_free(struct h1_parser *p);
/* Feeds bytes. */
int h1_parse(struct h1_parser *p, const uint8_t *data, size_t len, size_t *consumed);
/* The peer closed the connection: completes a close-delimited body. */
int h1_parse_eof(struct h1_parser *p);
/* True when the connection may not carry another request after this response. */
bool h1_must_close(const struct h1_parser *p);
/* A header block that repeats, byte for byte, the last one this thread read
 * whole is not scanned again: its verdict is kept (h1parse.c). Tests and
 * fuzzers forget it, so that the next block is checked line by line. */
void h1_memo_forget(void);
/* How many blocks took a kept verdict on this thread (tests). */
uint64_t h1_memo_hits(void);

#endif
