/* Buffered JSON output. See jsonout.h. */
#include "loadgen/output/jsonout.h"
#include "loadgen/core/grow.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lg_jsonout_open(struct lg_jsonout *o, int fd, size_t cap)
{
    memset(o, 0, sizeof(*o));
    o->fd = fd;
    o->cap = cap < 4096 ? 4096 : cap;
    o->buf = malloc(o->cap);
    return o->buf ? 0 : -1;
}

int lg_jsonout_open_memory(struct lg_jsonout *o, size_t skip, size_t expect)
{
    if (lg_jsonout_open(o, -1, 1 << 16) < 0) return -1;
    o->to_memory = 1;
    o->skip = skip;
    if (expect && !lg_grow(&o->mem, &o->mem_cap, expect, 1, expect)) {
        lg_jsonout_close(o);
        return -1;
    }
    return 0;
}

/* A memory writer's flush: the buffer's bytes past `skip` go to mem. */
static int keep_in_memory(struct lg_jsonout *o)
{
    size_t from = o->written < o->skip ? o->skip - o->written : 0;
    if (from > o->len) from = o->len;
    size_t n = o->len - from;
    if (n && !o->failed) {
        if (lg_grow(&o->mem, &o->mem_cap, o->mem_len + n, 1, 1 << 16)) {
            memcpy(o->mem + o->mem_len, o->buf + from, n);
            o->mem_len += n;
        } else {
            o->failed = 1;
            o->err = ENOMEM;
        }
    }
    o->written += o->len;
    o->len = 0;
    return o->failed ? -1 : 0;
}

int lg_jsonout_take(struct lg_jsonout *o, char **mem, size_t *len)
{
    int rc = lg_jsonout_flush(o);
    *mem = NULL;
    *len = 0;
    if (rc == 0) {
        *mem = o->mem;
        *len = o->mem_len;
        o->mem = NULL;
    }
    lg_jsonout_close(o);
    if (rc < 0) errno = ENOMEM;
    return rc;
}

int lg_jsonout_flush(struct lg_jsonout *o)
{
    if (o->to_memory) return keep_in_memory(o);
    if (o->fd < 0 && !o->failed && !o->stopped) o->written += o->len;
    size_t off = o->fd < 0 ? o->len : 0;
    while (off < o->len && !o->failed && !o->stopped) {
        ssize_t n = write(o->fd, o->buf + off, o->len - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN && o->full) {
                int next = o->full(o, o->full_arg);
                if (next == 0) continue;
                if (next > 0)
                    o->stopped = 1;
                else
                    o->failed = 1;
                break;
            }
            o->failed = 1;
            o->err = errno;
            break;
        }
        off += (size_t)n;
        o->written += (size_t)n;
    }
    o->len = 0;
    return o->failed ? -1 : 0;
}

int lg_jsonout_close(struct lg_jsonout *o)
{
    int rc = lg_jsonout_flush(o);
    free(o->buf);
    free(o->mem); /* a memory writer's, unless taken */
    o->buf = o->mem = NULL;
    return rc;
}

static inline void ensure(struct lg_jsonout *o, size_t n)
{
    if (o->len + n > o->cap) lg_jsonout_flush(o);
}

void lg_json_raw(struct lg_jsonout *o, const char *s, size_t n)
{
    if (n > o->cap) {
        lg_jsonout_flush(o);
        while (n) {
            size_t k = n < o->cap ? n : o->cap;
            memcpy(o->buf, s, k);
            o->len = k;
            lg_jsonout_flush(o);
            s += k;
            n -= k;
        }
        return;
    }
    ensure(o, n);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

void lg_json_lit(struct lg_jsonout *o, const char *s)
{
    lg_json_raw(o, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not valid. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) return (s[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80) return 0;
        if (c == 0xe0 && s[1] < 0xa0) return 0; /* overlong */
        if (c == 0xed && s[1] > 0x9f) return 0; /* surrogate */
        return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80) return 0;
        if (c == 0xf0 && s[1] < 0x90) return 0;
        if (c == 0xf4 && s[1] > 0x8f) return 0;
        return 4;
    }
    return 0;
}

void lg_json_str(struct lg_jsonout *o, const char *str)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    lg_json_raw(o, "\"", 1);
    while (*s) {
        unsigned c = *s;
        char esc[8];
        size_t n;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            lg_json_raw(o, esc, 2);
            s++;
        } else if (c < 0x20 || c == 0x7f) {
            const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
            if (named) {
                lg_json_raw(o, named, 2);
            } else {
                memcpy(esc, "\\u00", 4);
                esc[4] = hex[c >> 4];
                esc[5] = hex[c & 15];
                lg_json_raw(o, esc, 6);
            }
            s++;
        } else if ((n = utf8_len(s)) > 0) {
            lg_json_raw(o, (const char *)s, n);
            s += n;
        } else {
            lg_json_raw(o, "\\ufffd", 6);
            s++;
        }
    }
    lg_json_raw(o, "\"", 1);
}

static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes the decimal digits of v ending just before `end`; returns the start. */
static char *digits_backwards(char *end, uint64_t v)
{
    while (v >= 100) {
        unsigned i = (unsigned)(v % 100) * 2;
        v /= 100;
        *--end = digit_pairs[i + 1];
        *--end = digit_pairs[i];
    }
    if (v >= 10) {
        unsigned i = (unsigned)v * 2;
        *--end = digit_pairs[i + 1];
        *--end = digit_pairs[i];
    } else {
        *--end = (char)('0' + v);
    }
    return end;
}

size_t lg_format_u64(char *buf, uint64_t v)
{
    char tmp[24];
    char *start = digits_backwards(tmp + sizeof(tmp), v);
    size_t n = (size_t)(tmp + sizeof(tmp) - start);
    memcpy(buf, start, n);
    buf[n] = '\0';
    return n;
}

/* Writes scaled / 10^places in decimal, without trailing zeros: the digits
 * of `scaled` are printed once and the point is put in place, so no division
 * per digit is needed to split the parts. */
static size_t fixed_point(char *buf, uint64_t scaled, size_t places)
{
    char tmp[32];
    char *end = tmp + sizeof(tmp), *s = digits_backwards(end, scaled);
    while ((size_t)(end - s) < places + 1)
        *--s = '0';
    char *point = end - places, *last = end;
    while (last > point && last[-1] == '0')
        last--;
    size_t n = (size_t)(point - s);
    memcpy(buf, s, n);
    if (last > point) {
        buf[n++] = '.';
        memcpy(buf + n, point, (size_t)(last - point));
        n += (size_t)(last - point);
    }
    buf[n] = '\0';
    return n;
}

size_t lg_format_double(char *buf, double v)
{
    if (!isfinite(v)) {
        buf[0] = '0';
        buf[1] = '\0';
        return 1;
    }
    size_t n = 0;
    double a = v;
    if (v < 0) {
        buf[n++] = '-';
        a = -v;
    }
    /* Samples are nanosecond counts scaled to ms (six decimals) or s (nine):
     * fixed point with that many decimals reads back to the same double. */
    if (a < 9e9) {
        uint64_t scaled = (uint64_t)(a * 1e6 + 0.5);
        if ((double)scaled / 1e6 == a) return n + fixed_point(buf + n, scaled, 6);
        scaled = (uint64_t)(a * 1e9 + 0.5);
        if ((double)scaled / 1e9 == a) return n + fixed_point(buf + n, scaled, 9);
    }
    if (a < 9007199254740992.0 && a == (double)(uint64_t)a)
        return n + lg_format_u64(buf + n, (uint64_t)a);
    /* Anything else: the shortest %.Ng that reads back exactly. */
    for (int prec = 15; prec <= 17; prec++) {
        int k = snprintf(buf, 32, "%.*g", prec, v);
        if (strtod(buf, NULL) == v || prec == 17) return (size_t)k;
    }
    return 0;
}

/* "000" to "999", one line of the macro per hundred: a fraction's six
 * digits are two copies from here (layout by hand, so formatting is off) */
/* clang-format off */
#define TRIPLES_1(p) p "0" p "1" p "2" p "3" p "4" p "5" p "6" p "7" p "8" p "9"
#define TRIPLES_10(p) \
    TRIPLES_1(p "0") TRIPLES_1(p "1") TRIPLES_1(p "2") TRIPLES_1(p "3") TRIPLES_1(p "4") \
    TRIPLES_1(p "5") TRIPLES_1(p "6") TRIPLES_1(p "7") TRIPLES_1(p "8") TRIPLES_1(p "9")
static const char digit_triples[] =
    TRIPLES_10("0") TRIPLES_10("1") TRIPLES_10("2") TRIPLES_10("3") TRIPLES_10("4")
    TRIPLES_10("5") TRIPLES_10("6") TRIPLES_10("7") TRIPLES_10("8") TRIPLES_10("9");
/* clang-format on */

/* ns / 10^6 as fixed_point writes it (no NUL): the document's one format per
 * sample, so it has a path of its own. A latency is a few milliseconds: its
 * integer part is one or two digits, and its six decimals are two triples
 * from the table, with no loop over digits and no copy. Always inlined: it
 * runs once per sample, and a call was a fifth of its cost. */
static inline __attribute__((always_inline)) size_t ns_as_ms(char *buf, uint64_t ns)
{
    uint64_t ms = ns / 1000000u;
    unsigned frac = (unsigned)(ns % 1000000u);
    char *p = buf;
    if (ms < 10) {
        *p++ = (char)('0' + ms);
    } else if (ms < 100) {
        memcpy(p, digit_pairs + ms * 2, 2);
        p += 2;
    } else {
        char tmp[24];
        char *s = digits_backwards(tmp + sizeof(tmp), ms);
        size_t k = (size_t)(tmp + sizeof(tmp) - s);
        memcpy(p, s, k);
        p += k;
    }
    if (frac) {
        *p = '.';
        memcpy(p + 1, digit_triples + (frac / 1000u) * 3, 3);
        memcpy(p + 4, digit_triples + (frac % 1000u) * 3, 3);
        p += 7;
        while (p[-1] == '0')
            p--;
    }
    return (size_t)(p - buf);
}

size_t lg_format_ns_as_ms(char *buf, uint64_t ns)
{
    size_t n = ns_as_ms(buf, ns);
    buf[n] = '\0';
    return n;
}

void lg_json_ns_as_ms(struct lg_jsonout *o, const uint64_t *ns, size_t n)
{
    if (n == 0) return;
    ensure(o, 40);
    o->len += ns_as_ms(o->buf + o->len, ns[0]);
    for (size_t k = 1; k < n; k++) {
        ensure(o, 40);
        o->buf[o->len++] = ',';
        o->len += ns_as_ms(o->buf + o->len, ns[k]);
    }
}

void lg_json_doubles(struct lg_jsonout *o, const double *v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        ensure(o, 40);
        if (k) o->buf[o->len++] = ',';
        o->len += lg_format_double(o->buf + o->len, v[k]);
    }
}

void lg_json_double(struct lg_jsonout *o, double v)
{
    ensure(o, 32);
    o->len += lg_format_double(o->buf + o->len, v);
}

void lg_json_u64(struct lg_jsonout *o, uint64_t v)
{
    ensure(o, 24);
    o->len += lg_format_u64(o->buf + o->len, v);
}

void lg_json_i64(struct lg_jsonout *o, int64_t v)
{
    if (v < 0) {
        lg_json_raw(o, "-", 1);
        lg_json_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        lg_json_u64(o, (uint64_t)v);
    }
}
