/* The chunked-body states of the HTTP/1.1 parser, apart from its line loop:
 * h1_parse hands them the bytes while the parser is inside a chunked body. */
#ifndef HTTPLOAD_H1CHUNKED_H
#define HTTPLOAD_H1CHUNKED_H

#include "httpload/h1parse.h"

/* RFC 9110 optional whitespace. */
static inline bool h1_is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* Marks the response failed for `why` and returns H1_ERROR. */
static inline int h1_fail(struct h1_parser *p, const char *why)
{
    p->state = H1_FAILED;
    p->error = why;
    return H1_ERROR;
}

/* One step in a chunked body (p->state one of the H1_CHUNK_* states), from
 * d[*pos] on: advances *pos; H1_MORE, or H1_ERROR. */
int h1_chunked_step(struct h1_parser *p, const uint8_t *d, size_t len, size_t *pos);

#endif
