/* Building what is sent, once per run: each request's HTTP/1.1 bytes and
 * HTTP/2 header list, and the CONNECT request for a proxy tunnel. */
#ifndef HTTPLOAD_REQUEST_H
#define HTTPLOAD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "httpload/http.h"
#include "httpload/url.h"

struct request_spec {
    const char *method;   /* NULL: GET, or POST with --data */
    const char **headers; /* "K: V" as given */
    size_t n_headers;
    const char **proxy_headers;
    size_t n_proxy_headers;
    uint8_t *body;
    size_t body_len;
};

void request_spec_init(struct request_spec *s);
void request_spec_add_header(struct request_spec *s, const char *h);
void request_spec_add_proxy_header(struct request_spec *s, const char *h);
void request_spec_free(struct request_spec *s);

/* What one request is made of: the command line's, or a target's. */
struct request_parts {
    const char *method;
    const struct http_url *url;
    const char *const *headers; /* "K: V" in order; "K:" removes a default header */
    size_t n_headers;
    const uint8_t *body; /* NULL: none */
    size_t body_len;
    unsigned line; /* its --targets line, or 0 */
    bool no_h2;    /* the run never speaks HTTP/2 or HTTP/3: no header list for them */
};

/* Builds a request: its HTTP/1.1 bytes (and, with close_variant, the same
 * with Connection: close in place of any Connection header) and its HTTP/2
 * form. absolute_form: the request target is the whole URL (plain HTTP
 * proxying). 0, or -1 when memory ran out. */
int request_build(const struct request_parts *p, bool absolute_form, bool close_variant,
                  struct http_request *out);
void request_free(struct http_request *r);
/* A target's headers on top of -H's: -H's headers except those of a name the
 * target gives itself, then the target's (malloc'd array of borrowed
 * strings; NULL when memory ran out). */
const char **request_merge_headers(const char *const *cmdline, size_t n_cmdline,
                                   const char *const *own, size_t n_own, size_t *n);
int request_build_connect(const struct request_spec *s, const char *authority, struct lg_target *t);

#endif
