/* The --targets file. See targets.h. */
#include "httpload/targets.h"
#include "httpload/readfile.h"
#include "loadgen/core/grow.h"
#include "loadgen/core/nomem.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Where the parser is: between blocks, in a block's headers, or after the
 * body, which is a block's last line. */
enum block_state { BETWEEN, HEADERS, AFTER_BODY };

struct parser {
    const char *file;
    unsigned line;
    bool no_memory; /* the failure was memory running out, not the file */
    char *err;
    size_t errlen;
    struct target_list *out;
    char shown[80]; /* a line quoted in a message */
};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...)
{
    int k = snprintf(p->err, p->errlen, "%s:%u: ", p->file, p->line);
    if (k >= 0 && (size_t)k < p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int no_memory(struct parser *p)
{
    p->no_memory = true;
    return fail(p, "%s", lg_no_memory);
}

/* A line for a message: its first 60 bytes, anything unprintable as '?'
 * (the message must stay one line). */
static const char *shown(struct parser *p, const char *s, size_t n)
{
    size_t k = n > 60 ? 60 : n;
    for (size_t i = 0; i < k; i++)
        p->shown[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
    strcpy(p->shown + k, n > k ? "..." : "");
    return p->shown;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static void trim(const char **s, size_t *n)
{
    while (*n && is_space(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && is_space((*s)[*n - 1]))
        (*n)--;
}

/* RFC 9110's token characters: a header name is made of them. */
static bool is_tchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Length of the method word a request line starts with (capital letters,
 * then capitals, digits, '-' or '_', then white space), or 0: vegeta's rule,
 * which no header line ("Name: value") can meet. */
static size_t method_length(const char *s, size_t n)
{
    if (!n || s[0] < 'A' || s[0] > 'Z') return 0;
    size_t i = 1;
    while (i < n && ((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
                     s[i] == '_'))
        i++;
    return i < n && (s[i] == ' ' || s[i] == '\t') ? i : 0;
}

static struct target *push_target(struct parser *p)
{
    struct target_list *l = p->out;
    if (!lg_grow(&l->t, &l->cap, l->n + 1, sizeof(*l->t), 16)) return NULL;
    struct target *t = &l->t[l->n++];
    memset(t, 0, sizeof(*t));
    t->line = p->line;
    return t;
}

/* `METHOD URL`: a new target. */
static int request_line(struct parser *p, const char *s, size_t n, size_t mlen)
{
    const char *u = s + mlen;
    size_t un = n - mlen;
    trim(&u, &un);
    size_t word = 0;
    while (word < un && u[word] != ' ' && u[word] != '\t')
        word++;
    if (word < un)
        return fail(p, "'%s': expected 'METHOD URL' (percent-encode spaces in the URL)",
                    shown(p, s, n));
    struct target *t = push_target(p);
    if (!t) return no_memory(p);
    t->method = strndup(s, mlen);
    t->url_text = strndup(u, un);
    if (!t->method || !t->url_text) return no_memory(p);
    const char *why;
    int rc = http_url_parse(t->url_text, &t->url, &why);
    if (rc == LG_NO_MEMORY) return no_memory(p);
    if (rc < 0) return fail(p, "URL '%s': %s", shown(p, u, un), why);
    const struct target *first = &p->out->t[0];
    if (t != first && t->url.https != first->url.https)
        return fail(p,
                    "'%s' is not %s like the first target: a run's connections are all set up "
                    "alike (TLS or not)",
                    shown(p, u, un), first->url.https ? "https" : "http");
    return 0;
}

/* `Name: value`, kept as "Name: value" with the value trimmed. */
static int header_line(struct parser *p, struct target *t, const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    size_t nl = colon ? (size_t)(colon - s) : 0;
    bool name_ok = nl > 0;
    for (size_t i = 0; i < nl && name_ok; i++)
        name_ok = is_tchar(s[i]);
    if (!name_ok)
        return fail(p,
                    "'%s' is not a request line (METHOD URL, the method in capitals), a header "
                    "(Name: value) or a body (@FILE)",
                    shown(p, s, n));
    const char *v = colon + 1;
    size_t vn = n - nl - 1;
    trim(&v, &vn);
    for (size_t i = 0; i < vn; i++)
        if (((unsigned char)v[i] < 0x20 && v[i] != '\t') || v[i] == 0x7f)
            return fail(p, "header '%s' has a control character in its value", shown(p, s, nl));
    char **h = realloc(t->headers, (t->n_headers + 1) * sizeof(*h));
    if (!h) return no_memory(p);
    t->headers = h;
    size_t len = nl + 2 + vn;
    char *line = malloc(len + 1);
    if (!line) return no_memory(p);
    memcpy(line, s, nl);
    memcpy(line + nl, ": ", 2);
    memcpy(line + nl + 2, v, vn);
    line[len] = '\0';
    t->headers[t->n_headers++] = line;
    return 0;
}

/* The next line of the text from *pos: its bytes without the LF, and *pos
 * moved past it. False at the end. */
static bool next_line(const char *text, size_t len, size_t *pos, const char **s, size_t *n)
{
    if (*pos >= len) return false;
    *s = text + *pos;
    const char *nl = memchr(*s, '\n', len - *pos);
    *n = nl ? (size_t)(nl - *s) : len - *pos;
    *pos += *n + (nl ? 1 : 0);
    return true;
}

/* `@<<TAG`: the body is every following line up to one that is exactly TAG,
 * each with its LF (a CR before the LF is not part of the line). */
static int inline_body(struct parser *p, struct target *t, const char *text, size_t len,
                       size_t *pos, const char *tag, size_t tag_len)
{
    unsigned start = p->line;
    size_t cap = 0;
    const char *s;
    size_t n;
    t->body_line = start;
    while (next_line(text, len, pos, &s, &n)) {
        p->line++;
        if (n && s[n - 1] == '\r') n--;
        if (n == tag_len && memcmp(s, tag, n) == 0) {
            if (!t->body) t->body = malloc(1); /* an empty body is still a body */
            if (!t->body) return no_memory(p);
            return 0;
        }
        if (memchr(s, '\0', n)) return fail(p, "a NUL byte (is this a text file?)");
        if (!lg_grow(&t->body, &cap, t->body_len + n + 1, 1, 256)) return no_memory(p);
        memcpy(t->body + t->body_len, s, n);
        t->body[t->body_len + n] = '\n';
        t->body_len += n + 1;
    }
    p->line = start;
    return fail(p, "'@<<%.*s' is never closed by a line '%.*s'", (int)tag_len, tag, (int)tag_len,
                tag);
}

/* `@FILE` or `@<<TAG`: the target's body, its last line. */
static int body_line(struct parser *p, struct target *t, const char *s, size_t n, const char *text,
                     size_t len, size_t *pos)
{
    if (n >= 3 && s[1] == '<' && s[2] == '<') {
        const char *tag = s + 3;
        size_t tl = n - 3;
        trim(&tag, &tl);
        if (!tl) return fail(p, "'@<<' names no end tag (example: @<<EOF)");
        return inline_body(p, t, text, len, pos, tag, tl);
    }
    const char *path = s + 1;
    size_t pl = n - 1;
    trim(&path, &pl);
    if (!pl) return fail(p, "'@' names no body file");
    t->body_path = strndup(path, pl);
    t->body_line = p->line;
    return t->body_path ? 0 : no_memory(p);
}

static int parse(struct parser *p, const char *text, size_t len)
{
    enum block_state state = BETWEEN;
    size_t pos = 0;
    const char *s;
    size_t n;
    while (next_line(text, len, &pos, &s, &n)) {
        p->line++;
        if (memchr(s, '\0', n)) return fail(p, "a NUL byte (is this a text file?)");
        trim(&s, &n);
        if (n == 0) {
            state = BETWEEN;
            continue;
        }
        if (s[0] == '#') continue;
        size_t mlen = method_length(s, n);
        if (mlen) {
            if (request_line(p, s, n, mlen) < 0) return -1;
            state = HEADERS;
            continue;
        }
        if (state == BETWEEN)
            return fail(p,
                        "'%s' is not a request line: a target starts with 'METHOD URL' (the "
                        "method in capitals)",
                        shown(p, s, n));
        if (state == AFTER_BODY)
            return fail(p,
                        "'%s' after the body: the body is a target's last line (a blank line "
                        "or 'METHOD URL' starts the next)",
                        shown(p, s, n));
        struct target *t = &p->out->t[p->out->n - 1];
        if (s[0] == '@') {
            if (body_line(p, t, s, n, text, len, &pos) < 0) return -1;
            state = AFTER_BODY;
            continue;
        }
        if (header_line(p, t, s, n) < 0) return -1;
    }
    if (p->out->n == 0) {
        snprintf(p->err, p->errlen,
                 "%s: no targets (a target is 'METHOD URL', then headers, then @BODY)", p->file);
        return -1;
    }
    return 0;
}

int targets_parse(const char *text, size_t len, const char *file, struct target_list *out,
                  char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    struct parser p = {.file = file, .err = err, .errlen = errlen, .out = out};
    if (parse(&p, text, len) == 0) return 0;
    targets_free(out);
    return p.no_memory ? LG_NO_MEMORY : -1;
}

int targets_load(const char *path, struct target_list *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    size_t len;
    const char *why;
    char *text = (char *)read_whole_file(path, &len, &why);
    if (!text) {
        snprintf(err, errlen, "%s: %s", path, why);
        return why == lg_no_memory ? LG_NO_MEMORY : -1;
    }
    int rc = targets_parse(text, len, path, out, err, errlen);
    free(text);
    if (rc < 0) return rc;
    for (size_t i = 0; i < out->n; i++) {
        struct target *t = &out->t[i];
        if (!t->body_path) continue;
        t->body = read_whole_file(t->body_path, &t->body_len, &why);
        if (!t->body) {
            snprintf(err, errlen, "%s:%u: cannot read the body file '%s': %s", path, t->body_line,
                     t->body_path, why);
            targets_free(out);
            return why == lg_no_memory ? LG_NO_MEMORY : -1;
        }
    }
    return 0;
}

void targets_free(struct target_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        struct target *t = &l->t[i];
        free(t->method);
        free(t->url_text);
        http_url_free(&t->url);
        for (size_t k = 0; k < t->n_headers; k++)
            free(t->headers[k]);
        free(t->headers);
        free(t->body_path);
        free(t->body);
    }
    free(l->t);
    memset(l, 0, sizeof(*l));
}
