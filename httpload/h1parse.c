/* HTTP/1.1 response parser. See h1parse.h. */
#include "httpload/h1parse.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void h1_init(struct h1_parser *p)
{
    memset(p, 0, sizeof(*p));
}

void h1_reset(struct h1_parser *p, bool head_request)
{
    char *carry = p->carry;
    uint32_t cap = p->carry_cap;
    memset(p, 0, sizeof(*p));
    p->carry = carry;
    p->carry_cap = cap;
    p->head_request = head_request;
}

void h1_free(struct h1_parser *p)
{
    free(p->carry);
    p->carry = NULL;
    p->carry_cap = p->carry_len = 0;
}

static int fail(struct h1_parser *p, const char *why)
{
    p->state = H1_FAILED;
    p->error = why;
    return H1_ERROR;
}

static bool is_ows(char c)
{
    return c == ' ' || c == '\t';
}

static bool token_char(unsigned char c)
{
    /* RFC 9110 tchar */
    return c > 0x20 && c < 0x7f && !strchr("\"(),/:;<=>?@[\\]{}", c);
}

/* Does the comma-separated list contain `token` (case-insensitive)? Also
 * reports whether it is the last element. */
static bool list_has(const char *v, size_t n, const char *token, bool *last)
{
    size_t tl = strlen(token);
    bool found = false;
    size_t i = 0;
    while (i < n) {
        while (i < n && (is_ows(v[i]) || v[i] == ','))
            i++;
        size_t start = i;
        while (i < n && v[i] != ',')
            i++;
        size_t end = i;
        while (end > start && is_ows(v[end - 1]))
            end--;
        if (end == start) continue;
        bool match = end - start == tl && strncasecmp(v + start, token, tl) == 0;
        if (match) found = true;
        if (last) *last = match;
    }
    return found;
}

static int status_line(struct h1_parser *p, const char *l, size_t n)
{
    /* HTTP/1.x SP 3DIGIT [SP reason] */
    if (n < 12 || memcmp(l, "HTTP/1.", 7) != 0 || (l[7] != '0' && l[7] != '1') || l[8] != ' ')
        return fail(p, "malformed status line");
    int code = 0;
    for (int i = 9; i < 12; i++) {
        if (l[i] < '0' || l[i] > '9') return fail(p, "malformed status code");
        code = code * 10 + (l[i] - '0');
    }
    if (code < 100 || (n > 12 && l[12] != ' ')) return fail(p, "malformed status code");
    p->status = (uint16_t)code;
    p->http_minor = (uint8_t)(l[7] - '0');
    p->state = H1_HEADERS;
    return H1_MORE;
}

/* Checks the syntax of a header (or trailer) line; only headers (apply)
 * change the framing. */
static int header_line(struct h1_parser *p, const char *l, size_t n, bool apply)
{
    if (is_ows(l[0])) return fail(p, "obsolete header line folding");
    const char *colon = memchr(l, ':', n);
    if (!colon || colon == l) return fail(p, "header line without a name and colon");
    size_t nl = (size_t)(colon - l);
    for (size_t i = 0; i < nl; i++)
        if (!token_char((unsigned char)l[i])) return fail(p, "invalid character in a header name");
    const char *v = colon + 1;
    size_t vn = n - nl - 1;
    while (vn && is_ows(*v)) {
        v++;
        vn--;
    }
    while (vn && is_ows(v[vn - 1]))
        vn--;
    if (!apply) return H1_MORE;
    /* Only three headers matter for framing; the first letter rules out the rest. */
    char first = (char)(l[0] | 0x20);
    if (first == 'c' && nl == 14 && strncasecmp(l, "content-length", 14) == 0) {
        if (vn == 0 || vn > 19) return fail(p, "invalid Content-Length");
        uint64_t x = 0;
        for (size_t i = 0; i < vn; i++) {
            if (v[i] < '0' || v[i] > '9') return fail(p, "invalid Content-Length");
            x = x * 10 + (uint64_t)(v[i] - '0');
        }
        if (p->has_length && p->content_length != x)
            return fail(p, "conflicting Content-Length headers");
        p->has_length = true;
        p->content_length = x;
    } else if (first == 't' && nl == 17 && strncasecmp(l, "transfer-encoding", 17) == 0) {
        bool last = false;
        bool has = list_has(v, vn, "chunked", &last);
        if (has && !last) return fail(p, "chunked is not the final transfer coding");
        p->chunked = has;
        if (!has) p->conn_close = true; /* unknown coding: the body runs to the close */
    } else if (first == 'c' && nl == 10 && strncasecmp(l, "connection", 10) == 0) {
        if (list_has(v, vn, "close", NULL)) p->conn_close = true;
        if (list_has(v, vn, "keep-alive", NULL)) p->keep_alive = true;
    }
    return H1_MORE;
}

/* The blank line after the headers: decide how the body is framed. */
static int headers_done(struct h1_parser *p)
{
    if (p->status < 200) {
        if (p->status == 101) return fail(p, "unexpected 101 Switching Protocols");
        /* an interim response: the real one follows */
        bool head = p->head_request;
        unsigned interim = p->interim + 1;
        uint32_t hb = p->header_bytes;
        h1_reset(p, head);
        p->interim = interim;
        p->header_bytes = hb;
        return H1_MORE;
    }
    if (p->head_request || p->status == 204 || p->status == 304) {
        p->state = H1_DONE;
        return H1_COMPLETE;
    }
    if (p->chunked) {
        p->state = H1_CHUNK_SIZE;
        p->chunk_digits = 0;
        p->remaining = 0;
        p->header_bytes = 0;
        return H1_MORE;
    }
    if (p->has_length) {
        p->remaining = p->content_length;
        if (p->remaining == 0) {
            p->state = H1_DONE;
            return H1_COMPLETE;
        }
        p->state = H1_BODY_LENGTH;
        return H1_MORE;
    }
    p->state = H1_BODY_UNTIL_EOF;
    return H1_MORE;
}

static int on_line(struct h1_parser *p, const char *l, size_t n)
{
    if (n && l[n - 1] == '\r') n--;
    /* RFC 9112 2.2: a bare CR is never a line end; accepting it would frame
     * the message differently from other parsers */
    if (memchr(l, '\r', n)) return fail(p, "bare CR in a header line");
    switch (p->state) {
    case H1_STATUS_LINE:
        if (n == 0 && p->interim == 0 && p->header_bytes <= 2) return fail(p, "empty status line");
        return status_line(p, l, n);
    case H1_HEADERS:
        return n == 0 ? headers_done(p) : header_line(p, l, n, true);
    case H1_TRAILERS:
        if (n == 0) {
            p->state = H1_DONE;
            return H1_COMPLETE;
        }
        return header_line(p, l, n, false); /* trailers are checked, not used */
    default:
        return fail(p, "internal parser state");
    }
}

static int carry_append(struct h1_parser *p, const uint8_t *d, size_t n)
{
    if (p->carry_len + n > H1_HEADER_LIMIT) return fail(p, "header block too large");
    if (p->carry_len + n > p->carry_cap) {
        uint32_t cap = p->carry_cap ? p->carry_cap : 256;
        while (cap < p->carry_len + n)
            cap *= 2;
        char *c = realloc(p->carry, cap);
        if (!c) return fail(p, "out of memory");
        p->carry = c;
        p->carry_cap = cap;
    }
    memcpy(p->carry + p->carry_len, d, n);
    p->carry_len += (uint32_t)n;
    return H1_MORE;
}

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

int h1_parse(struct h1_parser *p, const uint8_t *d, size_t len, size_t *consumed)
{
    size_t pos = 0;
    int rc = H1_MORE;
    while (pos < len && rc == H1_MORE) {
        switch (p->state) {
        case H1_STATUS_LINE:
        case H1_HEADERS:
        case H1_TRAILERS: {
            const uint8_t *nl = memchr(d + pos, '\n', len - pos);
            size_t take = nl ? (size_t)(nl - (d + pos)) + 1 : len - pos;
            p->header_bytes += (uint32_t)take;
            if (p->header_bytes > H1_HEADER_LIMIT) {
                rc = fail(p, "header block too large");
                break;
            }
            if (!nl) {
                rc = carry_append(p, d + pos, take);
                pos += take;
                break;
            }
            if (p->carry_len) {
                if ((rc = carry_append(p, d + pos, take - 1)) != H1_MORE) break;
                pos += take;
                size_t n = p->carry_len;
                p->carry_len = 0;
                rc = on_line(p, p->carry, n);
            } else {
                const char *l = (const char *)d + pos;
                pos += take;
                rc = on_line(p, l, take - 1);
            }
            break;
        }
        case H1_BODY_LENGTH: {
            size_t n = len - pos;
            if (n > p->remaining) n = (size_t)p->remaining;
            pos += n;
            p->remaining -= n;
            p->body_bytes += n;
            if (p->remaining == 0) {
                p->state = H1_DONE;
                rc = H1_COMPLETE;
            }
            break;
        }
        case H1_CHUNK_SIZE: {
            int h = hexval(d[pos]);
            if (h >= 0) {
                if (++p->chunk_digits > 15) {
                    rc = fail(p, "chunk size too large");
                    break;
                }
                p->remaining = p->remaining * 16 + (uint64_t)h;
                pos++;
            } else if (p->chunk_digits == 0) {
                rc = fail(p, "invalid chunk size");
            } else if (d[pos] == ';') {
                p->state = H1_CHUNK_EXT;
                pos++;
            } else if (is_ows((char)d[pos])) {
                p->state = H1_CHUNK_SIZE_OWS;
                pos++;
            } else if (d[pos] == '\r') {
                p->state = H1_CHUNK_SIZE_LF;
                pos++;
            } else {
                rc = fail(p, "invalid chunk size");
            }
            break;
        }
        case H1_CHUNK_SIZE_OWS:
            /* BWS after the size: only more whitespace, an extension or the line end */
            if (is_ows((char)d[pos])) {
                pos++;
            } else if (d[pos] == ';') {
                p->state = H1_CHUNK_EXT;
                pos++;
            } else if (d[pos] == '\r') {
                p->state = H1_CHUNK_SIZE_LF;
                pos++;
            } else {
                rc = fail(p, "invalid chunk size line");
            }
            break;
        case H1_CHUNK_EXT: {
            /* extensions are skipped to the CRLF that ends the line, within
             * the header limit */
            const uint8_t *cr = memchr(d + pos, '\r', len - pos);
            size_t take = cr ? (size_t)(cr - (d + pos)) : len - pos;
            if (memchr(d + pos, '\n', take)) {
                rc = fail(p, "chunk size line not ended by CRLF");
                break;
            }
            p->header_bytes += (uint32_t)take;
            if (p->header_bytes > H1_HEADER_LIMIT) {
                rc = fail(p, "chunk extension too large");
                break;
            }
            pos += take;
            if (cr) {
                p->state = H1_CHUNK_SIZE_LF;
                pos++;
            }
            break;
        }
        case H1_CHUNK_SIZE_LF:
            if (d[pos] != '\n') {
                rc = fail(p, "invalid chunk size line");
                break;
            }
            pos++;
            p->header_bytes = 0;
            if (p->remaining == 0) {
                p->state = H1_TRAILERS;
            } else {
                p->state = H1_CHUNK_DATA;
            }
            break;
        case H1_CHUNK_DATA: {
            size_t n = len - pos;
            if (n > p->remaining) n = (size_t)p->remaining;
            pos += n;
            p->remaining -= n;
            p->body_bytes += n;
            if (p->remaining == 0) p->state = H1_CHUNK_DATA_CR;
            break;
        }
        case H1_CHUNK_DATA_CR:
            if (d[pos] != '\r') {
                rc = fail(p, "chunk data longer than its size");
                break;
            }
            p->state = H1_CHUNK_DATA_LF;
            pos++;
            break;
        case H1_CHUNK_DATA_LF:
            if (d[pos] != '\n') {
                rc = fail(p, "chunk data longer than its size");
                break;
            }
            pos++;
            p->state = H1_CHUNK_SIZE;
            p->chunk_digits = 0;
            p->remaining = 0;
            break;
        case H1_BODY_UNTIL_EOF:
            p->body_bytes += len - pos;
            pos = len;
            break;
        case H1_DONE:
            rc = H1_COMPLETE;
            break;
        default:
            rc = H1_ERROR;
            break;
        }
    }
    if (rc == H1_MORE && p->state == H1_DONE) rc = H1_COMPLETE;
    *consumed = pos;
    return rc;
}

int h1_parse_eof(struct h1_parser *p)
{
    if (p->state == H1_BODY_UNTIL_EOF) {
        p->state = H1_DONE;
        return H1_COMPLETE;
    }
    if (p->state == H1_DONE) return H1_COMPLETE;
    if (p->state == H1_FAILED) return H1_ERROR;
    return fail(p, p->state == H1_STATUS_LINE && p->header_bytes == 0
                       ? "connection closed before a response"
                       : "connection closed in the middle of a response");
}

bool h1_must_close(const struct h1_parser *p)
{
    if (p->conn_close || p->state == H1_BODY_UNTIL_EOF) return true;
    return p->http_minor == 0 && !p->keep_alive;
}
