/* docscan.c — the input side of the collector document reader (see
 * docscan.h): bytes in chunks, the first error with its line and column, and
 * JSON strings, checked and decoded. */
#include "stats/read/docscan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/read/jsontext.h"

/* Records the first error (with its position) and returns -1 for the caller to
 * pass up. A read error shows up to the parser as an early end; report it as
 * what it is. */
int docscan_fail(struct reader *r, enum docread_status status, const char *fmt, ...)
{
    if (r->status != DOCREAD_OK) return -1;
    if (r->read_errno != 0) {
        r->status = DOCREAD_IO;
        snprintf(r->result->error, sizeof r->result->error, "read error: %s",
                 strerror(r->read_errno));
        return -1;
    }
    r->status = status;
    char *error = r->result->error;
    size_t size = sizeof r->result->error, used = 0;
    if (status == DOCREAD_INVALID) {
        int n = snprintf(error, size, "line %zu, column %zu: ", r->line, r->column);
        used = n > 0 && (size_t)n < size ? (size_t)n : 0;
    }
    va_list args;
    va_start(args, fmt);
    vsnprintf(error + used, size - used, fmt, args);
    va_end(args);
    return -1;
}

int docscan_refill(struct reader *r)
{
    if (r->at_end) return END;
    for (;;) {
        ssize_t got = read(r->fd, r->chunk, READ_CHUNK);
        if (got > 0) {
            r->buf = r->chunk;
            r->pos = 0;
            r->len = (size_t)got;
            return r->buf[0];
        }
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) r->read_errno = errno;
        r->at_end = true;
        return END;
    }
}

const char *docscan_describe(int c, char *out, size_t size)
{
    if (c == END)
        snprintf(out, size, "the end of the input");
    else if (c > 0x20 && c < 0x7f)
        snprintf(out, size, "'%c'", c);
    else
        snprintf(out, size, "byte 0x%02x", (unsigned)c);
    return out;
}

int docscan_expect_byte(struct reader *r, int want, const char *context)
{
    int c = skip_whitespace(r);
    if (c == want) {
        advance(r);
        skip_whitespace(r);
        return 0;
    }
    char found[32];
    return docscan_fail(r, DOCREAD_INVALID, "expected '%c' %s, found %s", want, context,
                        docscan_describe(c, found, sizeof found));
}

/* ---- strings ---- */

static int text_push(struct reader *r, char c)
{
    if (r->text_len + 1 >= r->text_cap) {
        size_t cap = r->text_cap ? r->text_cap * 2 : 256;
        char *text = realloc(r->text, cap);
        if (text == NULL)
            return docscan_fail(r, DOCREAD_NO_MEMORY, "out of memory reading a string");
        r->text = text;
        r->text_cap = cap;
    }
    r->text[r->text_len++] = c;
    return 0;
}

static int push_utf8(struct reader *r, unsigned long cp)
{
    char out[4];
    size_t n = jsontext_utf8_encode(cp, out);
    for (size_t i = 0; i < n; i++)
        if (text_push(r, out[i]) != 0) return -1;
    return 0;
}

static int read_hex4(struct reader *r, unsigned long *out)
{
    unsigned long value = 0;
    for (int i = 0; i < 4; i++) {
        int digit = jsontext_hex_digit(peek(r));
        if (digit < 0)
            return docscan_fail(r, DOCREAD_INVALID, "a \\u escape needs four hex digits");
        advance(r);
        value = value * 16 + (unsigned long)digit;
    }
    *out = value;
    return 0;
}

static int read_escape(struct reader *r)
{
    int c = peek(r);
    static const char plain_from[] = "\"\\/bfnrt";
    static const char plain_to[] = "\"\\/\b\f\n\r\t";
    const char *hit = c == END ? NULL : strchr(plain_from, c);
    if (hit != NULL && c != '\0') {
        advance(r);
        return text_push(r, plain_to[hit - plain_from]);
    }
    if (c != 'u') {
        char found[32];
        return docscan_fail(r, DOCREAD_INVALID, "invalid escape \\%s in a string",
                            docscan_describe(c, found, sizeof found));
    }
    advance(r);
    unsigned long cp;
    if (read_hex4(r, &cp) != 0) return -1;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return docscan_fail(r, DOCREAD_INVALID, "a string holds a lone low surrogate \\u%04lx", cp);
    if (cp >= 0xd800 && cp <= 0xdbff) {
        unsigned long low;
        if (peek(r) != '\\') goto lone_high;
        advance(r);
        if (peek(r) != 'u') goto lone_high;
        advance(r);
        if (read_hex4(r, &low) != 0) return -1;
        if (low < 0xdc00 || low > 0xdfff) goto lone_high;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    if (cp == 0)
        return docscan_fail(r, DOCREAD_INVALID,
                            "a string holds \\u0000, which no key or sidecar may");
    return push_utf8(r, cp);
lone_high:
    return docscan_fail(r, DOCREAD_INVALID, "a string holds a lone high surrogate \\u%04lx", cp);
}

/* Bytes 0x80 and up must form well-formed UTF-8 (no overlongs, no surrogates). */
static int read_utf8_sequence(struct reader *r, int lead)
{
    int low, high; /* the allowed range of the second byte */
    int extra = jsontext_utf8_continuations(lead, &low, &high);
    if (extra == 0)
        return docscan_fail(r, DOCREAD_INVALID, "a string is not valid UTF-8 (byte 0x%02x)",
                            (unsigned)lead);
    advance(r);
    if (text_push(r, (char)lead) != 0) return -1;
    for (int i = 0; i < extra; i++) {
        int c = peek(r);
        if (c == END || c < (i == 0 ? low : 0x80) || c > (i == 0 ? high : 0xbf))
            return docscan_fail(r, DOCREAD_INVALID, "a string is not valid UTF-8");
        advance(r);
        if (text_push(r, (char)c) != 0) return -1;
    }
    return 0;
}

/* Reads the string at the '"' peek() shows into r->text. */
int docscan_read_string(struct reader *r, const char *what)
{
    advance(r);
    r->text_len = 0;
    for (;;) {
        int c = peek(r);
        if (c == END) return docscan_fail(r, DOCREAD_INVALID, "the input ends inside %s", what);
        if (c == '"') {
            advance(r);
            break;
        }
        if (c < 0x20)
            return docscan_fail(r, DOCREAD_INVALID,
                                "%s holds an unescaped control character (0x%02x)", what,
                                (unsigned)c);
        int rc;
        if (c == '\\') {
            advance(r);
            rc = read_escape(r);
        } else if (c >= 0x80) {
            rc = read_utf8_sequence(r, c);
        } else {
            advance(r);
            rc = text_push(r, (char)c);
        }
        if (rc != 0) return -1;
    }
    if (text_push(r, '\0') != 0) return -1;
    r->text_len--;
    return 0;
}

bool docscan_text_is(const struct reader *r, const char *word)
{
    return strlen(word) == r->text_len && memcmp(r->text, word, r->text_len) == 0;
}
