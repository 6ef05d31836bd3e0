/* Request building. See request.h. */
#include "httpload/request.h"
#include "loadgen/options/options.h"
#include "proto/h2session.h"
#include "proto/tunnel.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void request_spec_init(struct request_spec *s)
{
    memset(s, 0, sizeof(*s));
}

static void push(const char ***list, size_t *n, const char *h)
{
    const char **l = realloc(*list, (*n + 1) * sizeof(*l));
    if (!l) lg_out_of_memory("httpload", "reading the headers");
    l[(*n)++] = h;
    *list = l;
}

void request_spec_add_header(struct request_spec *s, const char *h)
{
    push(&s->headers, &s->n_headers, h);
}

void request_spec_add_proxy_header(struct request_spec *s, const char *h)
{
    push(&s->proxy_headers, &s->n_proxy_headers, h);
}

void request_spec_free(struct request_spec *s)
{
    free(s->headers);
    free(s->proxy_headers);
    free(s->body);
    memset(s, 0, sizeof(*s));
}

/* A growing byte buffer for building requests at start-up. */
struct buf {
    char *p;
    size_t n, cap;
    int failed;
};

static void put(struct buf *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* The length of a "K: V" header's name. */
static size_t name_length(const char *h)
{
    const char *colon = strchr(h, ':');
    return colon ? (size_t)(colon - h) : strlen(h);
}

static bool header_is(const char *h, const char *name)
{
    size_t nl = strlen(name);
    return name_length(h) == nl && strncasecmp(h, name, nl) == 0;
}

static bool has_header(const struct request_parts *p, const char *name)
{
    for (size_t i = 0; i < p->n_headers; i++)
        if (header_is(p->headers[i], name)) return true;
    return false;
}

/* Splits "K: V" into a lower-case name and a trimmed value. */
static int split_header(const char *h, struct http_header *out)
{
    const char *colon = strchr(h, ':');
    size_t nl = (size_t)(colon - h);
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    size_t vl = strlen(v);
    while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
        vl--;
    out->name = strndup(h, nl);
    out->value = strndup(v, vl);
    if (!out->name || !out->value) return -1;
    for (char *p = out->name; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return 0;
}

static bool h2_forbidden(const char *lname)
{
    /* connection-specific headers are not allowed in HTTP/2 (RFC 9113 8.2.2) */
    static const char *const names[] = {"connection",        "keep-alive", "proxy-connection",
                                        "transfer-encoding", "upgrade",    "host"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(lname, names[i]) == 0) return true;
    return false;
}

/* The HTTP/1.1 bytes of a request; with `close`, any Connection header gives
 * way to Connection: close. NULL when memory ran out. */
static uint8_t *h1_bytes(const struct request_parts *p, bool absolute_form, const char *authority,
                         bool close, size_t *len)
{
    const struct http_url *u = p->url;
    struct buf b = {0};
    puts_(&b, p->method);
    puts_(&b, " ");
    if (absolute_form) {
        puts_(&b, u->https ? "https://" : "http://");
        puts_(&b, authority);
    }
    puts_(&b, u->target);
    puts_(&b, " HTTP/1.1\r\n");
    if (!has_header(p, "Host")) {
        puts_(&b, "Host: ");
        puts_(&b, authority);
        puts_(&b, "\r\n");
    }
    if (!has_header(p, "User-Agent")) puts_(&b, "User-Agent: httpload/" PACKAGE_VERSION "\r\n");
    if (!has_header(p, "Accept")) puts_(&b, "Accept: */*\r\n");
    for (size_t i = 0; i < p->n_headers; i++) {
        const char *colon = strchr(p->headers[i], ':');
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v == '\0') continue; /* "K:" removes a default header, as curl does */
        if (close && header_is(p->headers[i], "Connection")) continue;
        puts_(&b, p->headers[i]);
        puts_(&b, "\r\n");
    }
    if (close) puts_(&b, "Connection: close\r\n");
    if (p->body && !has_header(p, "Content-Length")) {
        char cl[48];
        snprintf(cl, sizeof(cl), "Content-Length: %zu\r\n", p->body_len);
        puts_(&b, cl);
    }
    puts_(&b, "\r\n");
    if (p->body) put(&b, (const char *)p->body, p->body_len);
    if (b.failed) {
        free(b.p);
        return NULL;
    }
    /* kept for the whole run, one per target: no room left over (a list of
     * 100,000 targets would keep 15 MB of it) */
    char *fit = realloc(b.p, b.n + 1);
    *len = b.n;
    return (uint8_t *)(fit ? fit : b.p);
}

/* The HTTP/2 header list (the session adds the pseudo-headers); the first
 * -H 'Host: NAME' becomes the :authority. */
static int h2_headers(const struct request_parts *p, struct http_request *r)
{
    r->headers = calloc(p->n_headers + 3, sizeof(*r->headers));
    if (!r->headers) return -1;
    size_t n = 0;
    if (!has_header(p, "User-Agent")) {
        r->headers[n].name = strdup("user-agent");
        r->headers[n++].value = strdup("httpload/" PACKAGE_VERSION);
    }
    if (!has_header(p, "Accept")) {
        r->headers[n].name = strdup("accept");
        r->headers[n++].value = strdup("*/*");
    }
    if (p->body && !has_header(p, "Content-Length")) {
        char cl[24];
        snprintf(cl, sizeof(cl), "%zu", p->body_len);
        r->headers[n].name = strdup("content-length");
        r->headers[n++].value = strdup(cl);
    }
    r->n_headers = n; /* what is filled in so far, for request_free */
    bool host_given = false;
    for (size_t i = 0; i < p->n_headers; i++) {
        struct http_header h;
        if (split_header(p->headers[i], &h) < 0) {
            free(h.name);
            free(h.value);
            return -1;
        }
        if (!host_given && strcmp(h.name, "host") == 0 && h.value[0] != '\0') {
            /* The virtual host is the same on both protocols: HTTP/1.1 sends
             * the header as given, HTTP/2 sends it as :authority (as curl and
             * h2load do). Otherwise --http auto could load another host than
             * --http 1.1 without a word. */
            free(r->authority);
            r->authority = h.value;
            h.value = NULL;
            host_given = true;
        }
        if (!h.value || h2_forbidden(h.name) || h.value[0] == '\0') {
            free(h.name);
            free(h.value);
            continue;
        }
        r->headers[n++] = h;
        r->n_headers = n;
    }
    for (size_t i = 0; i < n; i++)
        if (!r->headers[i].name || !r->headers[i].value) return -1;
    /* the HTTP/2 header list, made once: every stream submits it as it is */
    struct lg_h2_header *hs = calloc(n ? n : 1, sizeof(*hs));
    if (!hs) return -1;
    for (size_t i = 0; i < n; i++)
        hs[i] = (struct lg_h2_header){r->headers[i].name, r->headers[i].value};
    struct lg_h2_request req = {r->method, r->scheme, r->authority, r->path, hs, n};
    r->h2 = lg_h2_prepare(&req);
    free(hs);
    return r->h2 ? 0 : -1;
}

int request_build(const struct request_parts *p, bool absolute_form, bool close_variant,
                  struct http_request *r)
{
    memset(r, 0, sizeof(*r));
    const struct http_url *u = p->url;
    char authority[300];
    http_url_authority(u, false, authority, sizeof(authority));
    r->line = p->line;
    r->head = strcmp(p->method, "HEAD") == 0;
    r->method = strdup(p->method);
    /* HTTP/2's :authority; the first -H 'Host: NAME' replaces it below */
    r->authority = strdup(authority);
    r->scheme = strdup(u->https ? "https" : "http");
    r->path = strdup(u->target);
    if (!r->method || !r->authority || !r->scheme || !r->path) return -1;
    if (p->body) {
        r->body = malloc(p->body_len ? p->body_len : 1);
        if (!r->body) return -1;
        memcpy(r->body, p->body, p->body_len);
        r->body_len = p->body_len;
    }
    r->h1 = h1_bytes(p, absolute_form, authority, false, &r->h1_len);
    if (!r->h1) return -1;
    if (close_variant &&
        !(r->h1_close = h1_bytes(p, absolute_form, authority, true, &r->h1_close_len)))
        return -1;
    return p->no_h2 ? 0 : h2_headers(p, r);
}

const char **request_merge_headers(const char *const *cmdline, size_t n_cmdline,
                                   const char *const *own, size_t n_own, size_t *n)
{
    const char **all = malloc((n_cmdline + n_own + 1) * sizeof(*all));
    if (!all) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n_cmdline; i++) {
        size_t nl = name_length(cmdline[i]);
        bool replaced = false;
        for (size_t j = 0; j < n_own && !replaced; j++)
            replaced = name_length(own[j]) == nl && strncasecmp(own[j], cmdline[i], nl) == 0;
        if (!replaced) all[k++] = cmdline[i];
    }
    for (size_t j = 0; j < n_own; j++)
        all[k++] = own[j];
    *n = k;
    return all;
}

int request_build_connect(const struct request_spec *s, const char *authority, struct lg_target *t)
{
    struct buf b = {0};
    puts_(&b, "CONNECT ");
    puts_(&b, authority);
    puts_(&b, " HTTP/1.1\r\nHost: ");
    puts_(&b, authority);
    puts_(&b, "\r\n");
    for (size_t i = 0; i < s->n_proxy_headers; i++) {
        puts_(&b, s->proxy_headers[i]);
        puts_(&b, "\r\n");
    }
    puts_(&b, "\r\n");
    if (b.failed) return -1;
    t->tunnel = &lg_stage_tunnel;
    t->tunnel_request = b.p;
    t->tunnel_request_len = b.n;
    return 0;
}

void request_free(struct http_request *r)
{
    lg_h2_prepared_free(r->h2);
    free(r->method);
    free(r->authority);
    free(r->scheme);
    free(r->path);
    free(r->body);
    free(r->h1);
    free(r->h1_close);
    for (size_t i = 0; i < r->n_headers; i++) {
        free(r->headers[i].name);
        free(r->headers[i].value);
    }
    free(r->headers);
    memset(r, 0, sizeof(*r));
}
