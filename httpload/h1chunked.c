/* The chunked body of an HTTP/1.1 response (RFC 9112 7.1), a byte or a run
 * at a time: sizes, extensions (skipped within the header limit), data
 * (counted, not stored) and the CRLF after each chunk. See h1chunked.h. */
#include "httpload/h1chunked.h"

#include <string.h>

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

int h1_chunked_step(struct h1_parser *p, const uint8_t *d, size_t len, size_t *pos)
{
    int rc = H1_MORE;
    switch (p->state) {
    case H1_CHUNK_SIZE: {
        int h = hexval(d[*pos]);
        if (h >= 0) {
            if (++p->chunk_digits > 15) {
                rc = h1_fail(p, "chunk size too large");
                break;
            }
            p->remaining = p->remaining * 16 + (uint64_t)h;
            (*pos)++;
        } else if (p->chunk_digits == 0) {
            rc = h1_fail(p, "invalid chunk size");
        } else if (d[*pos] == ';') {
            p->state = H1_CHUNK_EXT;
            (*pos)++;
        } else if (h1_is_ows((char)d[*pos])) {
            p->state = H1_CHUNK_SIZE_OWS;
            (*pos)++;
        } else if (d[*pos] == '\r') {
            p->state = H1_CHUNK_SIZE_LF;
            (*pos)++;
        } else {
            rc = h1_fail(p, "invalid chunk size");
        }
        break;
    }
    case H1_CHUNK_SIZE_OWS:
        /* BWS after the size: only more whitespace, an extension or the line end */
        if (h1_is_ows((char)d[*pos])) {
            (*pos)++;
        } else if (d[*pos] == ';') {
            p->state = H1_CHUNK_EXT;
            (*pos)++;
        } else if (d[*pos] == '\r') {
            p->state = H1_CHUNK_SIZE_LF;
            (*pos)++;
        } else {
            rc = h1_fail(p, "invalid chunk size line");
        }
        break;
    case H1_CHUNK_EXT: {
        /* extensions are skipped to the CRLF that ends the line, within
         * the header limit */
        const uint8_t *cr = memchr(d + *pos, '\r', len - *pos);
        size_t take = cr ? (size_t)(cr - (d + *pos)) : len - *pos;
        if (memchr(d + *pos, '\n', take)) {
            rc = h1_fail(p, "chunk size line not ended by CRLF");
            break;
        }
        p->header_bytes += (uint32_t)take;
        if (p->header_bytes > H1_HEADER_LIMIT) {
            rc = h1_fail(p, "chunk extension too large");
            break;
        }
        *pos += take;
        if (cr) {
            p->state = H1_CHUNK_SIZE_LF;
            (*pos)++;
        }
        break;
    }
    case H1_CHUNK_SIZE_LF:
        if (d[*pos] != '\n') {
            rc = h1_fail(p, "invalid chunk size line");
            break;
        }
        (*pos)++;
        p->header_bytes = 0;
        if (p->remaining == 0) {
            p->state = H1_TRAILERS;
        } else {
            p->state = H1_CHUNK_DATA;
        }
        break;
    case H1_CHUNK_DATA: {
        size_t n = len - *pos;
        if (n > p->remaining) n = (size_t)p->remaining;
        *pos += n;
        p->remaining -= n;
        p->body_bytes += n;
        if (p->remaining == 0) p->state = H1_CHUNK_DATA_CR;
        break;
    }
    case H1_CHUNK_DATA_CR:
        if (d[*pos] != '\r') {
            rc = h1_fail(p, "chunk data longer than its size");
            break;
        }
        p->state = H1_CHUNK_DATA_LF;
        (*pos)++;
        break;
    case H1_CHUNK_DATA_LF:
        if (d[*pos] != '\n') {
            rc = h1_fail(p, "chunk data longer than its size");
            break;
        }
        (*pos)++;
        p->state = H1_CHUNK_SIZE;
        p->chunk_digits = 0;
        p->remaining = 0;
        break;
    default:
        rc = h1_fail(p, "internal parser state");
        break;
    }
    return rc;
}
