/* docscan.h — the input side of the collector document reader, shared by
 * docread.c (the document's shape) and docscan.c (bytes, errors, strings):
 * the reader's state, the byte cursor the sample loop runs on, inline, and
 * the first error recorded with its position. Internal to docread. */
#ifndef LOADGEN_STATS_DOCSCAN_H
#define LOADGEN_STATS_DOCSCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/read/docread.h"
#include "stats/read/keyindex.h"

#define READ_CHUNK (64 * 1024)
#define NUMBER_MAX 1024 /* longest number accepted, in characters */
#define END (-1)        /* peek() at the end of the input */

struct reader {
    int fd; /* -1 when reading from memory */
    const unsigned char *buf;
    unsigned char *chunk;
    size_t pos, len;
    bool at_end;
    int read_errno;
    size_t line, column; /* of the next byte, from 1 */
    char *text;          /* the last string read, NUL-terminated */
    size_t text_len, text_cap;
    char number[NUMBER_MAX + 1];
    struct keyindex metric_keys;
    const struct docread_options *options;
    struct docread_result *result;
    enum docread_status status;
};

/* Records the first error (DOCREAD_INVALID with its line and column) and
 * returns -1 for the caller to pass up. */
int docscan_fail(struct reader *r, enum docread_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The next chunk's first byte, or END (a read error is kept for docscan_fail). */
int docscan_refill(struct reader *r);

static inline int peek(struct reader *r)
{
    if (r->pos < r->len) return r->buf[r->pos];
    return docscan_refill(r);
}

/* Consumes the byte peek() returned (never call it after END). */
static inline void advance(struct reader *r)
{
    if (r->buf[r->pos++] == '\n') {
        r->line++;
        r->column = 1;
    } else {
        r->column++;
    }
}

static inline int skip_whitespace(struct reader *r)
{
    int c;
    while ((c = peek(r)) == ' ' || c == '\t' || c == '\n' || c == '\r')
        advance(r);
    return c;
}

/* How a byte reads in an error message: 'x', byte 0x0a, the end of the input. */
const char *docscan_describe(int c, char *out, size_t size);

/* Skips whitespace, `want` and whitespace after it; else fails naming `context`. */
int docscan_expect_byte(struct reader *r, int want, const char *context);

/* Reads the string at the '"' peek() shows into r->text (NUL-terminated,
 * r->text_len bytes); `what` names it in errors ("a metric key"). */
int docscan_read_string(struct reader *r, const char *what);

/* Is the last string read exactly `word`? */
bool docscan_text_is(const struct reader *r, const char *word);

#endif
