/* Request building. See request.h. */
#include "httpload/request.h"
#include "loadgen/h2session.h"

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
    if (!l) {
        fprintf(stderr, "httpload: out of memory\n");
        exit(LG_EXIT_FAILED);
    }
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

static bool has_header(const struct request_spec *s, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < s->n_headers; i++)
        if (strncasecmp(s->headers[i], name, nl) == 0 && s->headers[i][nl] == ':') return true;
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

int request_build(const struct request_spec *s, const struct http_url *u, int absolute_form,
                  struct http_ctx *ctx)
{
    char authority[300];
    http_url_authority(u, false, authority, sizeof(authority));
    ctx->method = s->method ? s->method : "GET";
    ctx->head = strcmp(ctx->method, "HEAD") == 0;
    /* HTTP/2's :authority; the first -H 'Host: NAME' replaces it below */
    ctx->authority = strdup(authority);
    ctx->scheme = strdup(u->https ? "https" : "http");
    ctx->path = strdup(u->target);
    if (!ctx->authority || !ctx->scheme || !ctx->path) return -1;
    if (s->body) {
        ctx->body = malloc(s->body_len ? s->body_len : 1);
        if (!ctx->body) return -1;
        memcpy(ctx->body, s->body, s->body_len);
        ctx->body_len = s->body_len;
    }

    /* HTTP/1.1 bytes */
    struct buf b = {0};
    puts_(&b, ctx->method);
    puts_(&b, " ");
    if (absolute_form) {
        puts_(&b, u->https ? "https://" : "http://");
        puts_(&b, authority);
    }
    puts_(&b, u->target);
    puts_(&b, " HTTP/1.1\r\n");
    if (!has_header(s, "Host")) {
        puts_(&b, "Host: ");
        puts_(&b, authority);
        puts_(&b, "\r\n");
    }
    if (!has_header(s, "User-Agent")) puts_(&b, "User-Agent: httpload/" PACKAGE_VERSION "\r\n");
    if (!has_header(s, "Accept")) puts_(&b, "Accept: */*\r\n");
    for (size_t i = 0; i < s->n_headers; i++) {
        const char *colon = strchr(s->headers[i], ':');
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v == '\0') continue; /* "K:" removes a default header, as curl does */
        puts_(&b, s->headers[i]);
        puts_(&b, "\r\n");
    }
    if (s->body && !has_header(s, "Content-Length")) {
        char cl[48];
        snprintf(cl, sizeof(cl), "Content-Length: %zu\r\n", s->body_len);
        puts_(&b, cl);
    }
    puts_(&b, "\r\n");
    if (s->body) put(&b, (const char *)s->body, s->body_len);
    if (b.failed) return -1;
    ctx->h1_request = (uint8_t *)b.p;
    ctx->h1_request_len = b.n;

    /* HTTP/2 header list (pseudo-headers are added by the session) */
    ctx->headers = calloc(s->n_headers + 3, sizeof(*ctx->headers));
    if (!ctx->headers) return -1;
    size_t n = 0;
    if (!has_header(s, "User-Agent")) {
        ctx->headers[n].name = strdup("user-agent");
        ctx->headers[n++].value = strdup("httpload/" PACKAGE_VERSION);
    }
    if (!has_header(s, "Accept")) {
        ctx->headers[n].name = strdup("accept");
        ctx->headers[n++].value = strdup("*/*");
    }
    if (s->body && !has_header(s, "Content-Length")) {
        char cl[24];
        snprintf(cl, sizeof(cl), "%zu", s->body_len);
        ctx->headers[n].name = strdup("content-length");
        ctx->headers[n++].value = strdup(cl);
    }
    bool host_given = false;
    for (size_t i = 0; i < s->n_headers; i++) {
        struct http_header h;
        if (split_header(s->headers[i], &h) < 0) return -1;
        if (!host_given && strcmp(h.name, "host") == 0 && h.value[0] != '\0') {
            /* The virtual host is the same on both protocols: HTTP/1.1 sends
             * the header as given, HTTP/2 sends it as :authority (as curl and
             * h2load do). Otherwise --http auto could load another host than
             * --http 1.1 without a word. */
            free(ctx->authority);
            ctx->authority = h.value;
            h.value = NULL;
            host_given = true;
        }
        if (!h.value || h2_forbidden(h.name) || h.value[0] == '\0') {
            free(h.name);
            free(h.value);
            continue;
        }
        ctx->headers[n++] = h;
    }
    ctx->n_headers = n;
    for (size_t i = 0; i < n; i++)
        if (!ctx->headers[i].name || !ctx->headers[i].value) return -1;
    /* the HTTP/2 header list, made once: every stream submits it as it is */
    struct lg_h2_header *hs = calloc(n ? n : 1, sizeof(*hs));
    if (!hs) return -1;
    for (size_t i = 0; i < n; i++)
        hs[i] = (struct lg_h2_header){ctx->headers[i].name, ctx->headers[i].value};
    struct lg_h2_request req = {ctx->method, ctx->scheme, ctx->authority, ctx->path, hs, n};
    ctx->h2_request = lg_h2_prepare(&req);
    free(hs);
    return ctx->h2_request ? 0 : -1;
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
    t->tunnel_request = b.p;
    t->tunnel_request_len = b.n;
    return 0;
}

void request_ctx_free(struct http_ctx *ctx)
{
    lg_h2_prepared_free(ctx->h2_request);
    free(ctx->authority);
    free(ctx->scheme);
    free(ctx->path);
    free(ctx->body);
    free(ctx->h1_request);
    for (size_t i = 0; i < ctx->n_headers; i++) {
        free(ctx->headers[i].name);
        free(ctx->headers[i].value);
    }
    free(ctx->headers);
}
