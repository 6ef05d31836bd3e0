/* json.c — the tree-building JSON reader (see json.h). Recursive descent over
 * a buffer in memory, bounded in depth, every string checked to be UTF-8. */
#include "stats/read/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/read/jsontext.h"

#define MAX_DEPTH 64
#define NUMBER_MAX 64 /* longest number accepted, in characters */

struct parser {
    const unsigned char *p, *end, *start;
    char *error;
    size_t error_size;
    bool failed;
    bool no_memory; /* the failure was an allocation */
};

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the first error with its line and column; returns -1. */
static int fail(struct parser *ps, const char *fmt, ...)
{
    if (ps->failed) return -1;
    ps->failed = true;
    size_t line = 1, column = 1;
    for (const unsigned char *q = ps->start; q < ps->p; q++) {
        if (*q == '\n') {
            line++;
            column = 1;
        } else {
            column++;
        }
    }
    int used = snprintf(ps->error, ps->error_size, "line %zu, column %zu: ", line, column);
    if (used < 0 || (size_t)used >= ps->error_size) return -1;
    va_list args;
    va_start(args, fmt);
    vsnprintf(ps->error + used, ps->error_size - (size_t)used, fmt, args);
    va_end(args);
    return -1;
}

static void skip_space(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int peek(const struct parser *ps)
{
    return ps->p < ps->end ? *ps->p : -1;
}

/* An allocation failed: memory, not the text, is at fault. */
static int out_of_memory(struct parser *ps)
{
    if (!ps->failed) ps->no_memory = true;
    return fail(ps, "out of memory");
}

/* ---- strings ---- */

struct text {
    char *s;
    size_t len, cap;
};

static int text_push(struct parser *ps, struct text *t, const char *bytes, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 32;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (s == NULL) return out_of_memory(ps);
        t->s = s;
        t->cap = cap;
    }
    memcpy(t->s + t->len, bytes, n);
    t->len += n;
    t->s[t->len] = '\0';
    return 0;
}

static int hex4(struct parser *ps, unsigned long *out)
{
    if (ps->end - ps->p < 4) return fail(ps, "a \\u escape needs four hex digits");
    unsigned long v = 0;
    for (int i = 0; i < 4; i++) {
        int d = jsontext_hex_digit(*ps->p++);
        if (d < 0) return fail(ps, "a \\u escape needs four hex digits");
        v = v * 16 + (unsigned long)d;
    }
    *out = v;
    return 0;
}

static int push_code_point(struct parser *ps, struct text *t, unsigned long cp)
{
    char b[4];
    size_t n = jsontext_utf8_encode(cp, b);
    return text_push(ps, t, b, n);
}

static int read_escape(struct parser *ps, struct text *t)
{
    if (ps->p == ps->end) return fail(ps, "the input ends inside a string");
    int c = *ps->p++;
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *hit = strchr(from, c);
    if (hit != NULL && c != '\0') return text_push(ps, t, &to[hit - from], 1);
    if (c != 'u') return fail(ps, "invalid escape in a string");
    unsigned long cp, low;
    if (hex4(ps, &cp) != 0) return -1;
    if (cp >= 0xdc00 && cp <= 0xdfff) return fail(ps, "a lone low surrogate in a string");
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
            return fail(ps, "a lone high surrogate in a string");
        ps->p += 2;
        if (hex4(ps, &low) != 0) return -1;
        if (low < 0xdc00 || low > 0xdfff) return fail(ps, "a lone high surrogate in a string");
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    if (cp == 0) return fail(ps, "a string holds \\u0000");
    return push_code_point(ps, t, cp);
}

/* One UTF-8 sequence starting at a byte >= 0x80: no overlongs, no surrogates. */
static int read_utf8(struct parser *ps, struct text *t)
{
    const unsigned char *s = ps->p;
    int low, high;
    int extra = jsontext_utf8_continuations(s[0], &low, &high);
    if (extra == 0 || ps->end - s <= extra) return fail(ps, "a string is not valid UTF-8");
    for (int i = 1; i <= extra; i++)
        if (s[i] < (i == 1 ? low : 0x80) || s[i] > (i == 1 ? high : 0xbf))
            return fail(ps, "a string is not valid UTF-8");
    ps->p += extra + 1;
    return text_push(ps, t, (const char *)s, (size_t)extra + 1);
}

/* At the opening quote: reads the string into *out (malloc'd). */
static int read_string(struct parser *ps, char **out)
{
    struct text t = {0};
    ps->p++;
    if (text_push(ps, &t, "", 0) != 0) return -1;
    for (;;) {
        if (ps->p == ps->end) {
            fail(ps, "the input ends inside a string");
            break;
        }
        int c = *ps->p;
        int rc;
        if (c == '"') {
            ps->p++;
            *out = t.s;
            return 0;
        }
        if (c < 0x20) {
            rc = fail(ps, "a string holds an unescaped control character");
        } else if (c == '\\') {
            ps->p++;
            rc = read_escape(ps, &t);
        } else if (c >= 0x80) {
            rc = read_utf8(ps, &t);
        } else {
            char plain = (char)c;
            ps->p++;
            rc = text_push(ps, &t, &plain, 1);
        }
        if (rc != 0) break;
    }
    free(t.s);
    return -1;
}

/* ---- numbers and words ---- */

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int read_number(struct parser *ps, double *out)
{
    const unsigned char *s = ps->p;
    if (peek(ps) == '-') ps->p++;
    if (peek(ps) == '0') {
        ps->p++;
    } else if (is_digit(peek(ps))) {
        while (is_digit(peek(ps)))
            ps->p++;
    } else {
        return fail(ps, "invalid number");
    }
    if (peek(ps) == '.') {
        ps->p++;
        if (!is_digit(peek(ps))) return fail(ps, "invalid number: a digit must follow '.'");
        while (is_digit(peek(ps)))
            ps->p++;
    }
    if (peek(ps) == 'e' || peek(ps) == 'E') {
        ps->p++;
        if (peek(ps) == '+' || peek(ps) == '-') ps->p++;
        if (!is_digit(peek(ps)))
            return fail(ps, "invalid number: a digit must follow the exponent");
        while (is_digit(peek(ps)))
            ps->p++;
    }
    size_t len = (size_t)(ps->p - s);
    if (len > NUMBER_MAX) return fail(ps, "a number longer than %d characters", NUMBER_MAX);
    char buf[NUMBER_MAX + 1];
    memcpy(buf, s, len);
    buf[len] = '\0';
    double v = strtod(buf, NULL);
    if (!isfinite(v)) return fail(ps, "a number overflows a double");
    *out = v;
    return 0;
}

static int read_word(struct parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return fail(ps, "unexpected character");
    ps->p += n;
    return 0;
}

/* ---- values ---- */

static int read_value(struct parser *ps, struct stats_json *v, int depth);

static int grow(struct parser *ps, struct stats_json *v, size_t *cap, bool with_keys)
{
    if (v->count < *cap) return 0;
    size_t n = *cap ? *cap * 2 : 8;
    struct stats_json *items = realloc(v->items, n * sizeof *items);
    if (items == NULL) return out_of_memory(ps);
    v->items = items;
    if (with_keys) {
        char **keys = realloc(v->keys, n * sizeof *keys);
        if (keys == NULL) return out_of_memory(ps);
        v->keys = keys;
    }
    *cap = n;
    return 0;
}

static int read_array(struct parser *ps, struct stats_json *v, int depth)
{
    size_t cap = 0;
    ps->p++;
    skip_space(ps);
    if (peek(ps) == ']') {
        ps->p++;
        return 0;
    }
    for (;;) {
        if (grow(ps, v, &cap, false) != 0) return -1;
        v->items[v->count++].type = STATS_JSON_NULL; /* counted first: freed if it fails */
        if (read_value(ps, &v->items[v->count - 1], depth + 1) != 0) return -1;
        skip_space(ps);
        int c = peek(ps);
        ps->p += c >= 0;
        if (c == ']') return 0;
        if (c != ',') return fail(ps, "expected ',' or ']' in an array");
        skip_space(ps);
    }
}

static int compare_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorting a copy of the key list keeps a hostile object of many keys linear-logarithmic. */
static int refuse_duplicate_keys(struct parser *ps, const struct stats_json *v)
{
    if (v->count < 2) return 0;
    char **sorted = malloc(v->count * sizeof *sorted);
    if (sorted == NULL) return out_of_memory(ps);
    memcpy(sorted, v->keys, v->count * sizeof *sorted);
    qsort(sorted, v->count, sizeof *sorted, compare_keys);
    int rc = 0;
    for (size_t i = 1; i < v->count && rc == 0; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0)
            rc = fail(ps, "key \"%.60s\" appears twice in an object", sorted[i]);
    free(sorted);
    return rc;
}

static int read_object(struct parser *ps, struct stats_json *v, int depth)
{
    size_t cap = 0;
    ps->p++;
    skip_space(ps);
    if (peek(ps) == '}') {
        ps->p++;
        return 0;
    }
    for (;;) {
        if (peek(ps) != '"') return fail(ps, "expected a key in an object");
        if (grow(ps, v, &cap, true) != 0) return -1;
        char *key;
        if (read_string(ps, &key) != 0) return -1;
        v->keys[v->count] = key;
        memset(&v->items[v->count], 0, sizeof *v->items); /* counted first: freed if it fails */
        v->count++;
        skip_space(ps);
        if (peek(ps) != ':') return fail(ps, "expected ':' after a key");
        ps->p++;
        skip_space(ps);
        if (read_value(ps, &v->items[v->count - 1], depth + 1) != 0) return -1;
        skip_space(ps);
        int c = peek(ps);
        ps->p += c >= 0;
        if (c == '}') return refuse_duplicate_keys(ps, v);
        if (c != ',') return fail(ps, "expected ',' or '}' in an object");
        skip_space(ps);
    }
}

static int read_value(struct parser *ps, struct stats_json *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth > MAX_DEPTH) return fail(ps, "nested deeper than %d levels", MAX_DEPTH);
    int c = peek(ps);
    switch (c) {
    case '{':
        v->type = STATS_JSON_OBJECT;
        return read_object(ps, v, depth);
    case '[':
        v->type = STATS_JSON_ARRAY;
        return read_array(ps, v, depth);
    case '"':
        v->type = STATS_JSON_STRING;
        return read_string(ps, &v->string);
    case 't':
        v->type = STATS_JSON_BOOL;
        v->boolean = true;
        return read_word(ps, "true");
    case 'f':
        v->type = STATS_JSON_BOOL;
        return read_word(ps, "false");
    case 'n':
        return read_word(ps, "null");
    case -1:
        return fail(ps, "the input ends where a value should be");
    default:
        if (c == '-' || is_digit(c)) {
            v->type = STATS_JSON_NUMBER;
            return read_number(ps, &v->number);
        }
        return fail(ps, "unexpected character");
    }
}

int stats_json_parse(const char *text, size_t len, struct stats_json *out, char *error,
                     size_t error_size)
{
    struct parser ps = {.p = (const unsigned char *)text,
                        .end = (const unsigned char *)text + len,
                        .start = (const unsigned char *)text,
                        .error = error,
                        .error_size = error_size};
    skip_space(&ps);
    int rc = read_value(&ps, out, 0);
    if (rc == 0) {
        skip_space(&ps);
        if (ps.p != ps.end) rc = fail(&ps, "unexpected text after the JSON value");
    }
    if (rc != 0) {
        stats_json_free(out);
        return ps.no_memory ? -2 : -1;
    }
    return 0;
}

void stats_json_free(struct stats_json *value)
{
    for (size_t i = 0; i < value->count; i++) {
        stats_json_free(&value->items[i]);
        if (value->keys) free(value->keys[i]);
    }
    free(value->items);
    free(value->keys);
    free(value->string);
    memset(value, 0, sizeof *value);
}

const struct stats_json *stats_json_get(const struct stats_json *object, const char *key)
{
    if (object == NULL || object->type != STATS_JSON_OBJECT) return NULL;
    for (size_t i = 0; i < object->count; i++)
        if (strcmp(object->keys[i], key) == 0) return &object->items[i];
    return NULL;
}

const char *stats_json_type_name(enum stats_json_type type)
{
    static const char *const names[] = {"null",     "true or false", "a number",
                                        "a string", "an array",      "an object"};
    return names[type];
}
