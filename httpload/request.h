/* Building what is sent, once per run: the HTTP/1.1 request bytes, the HTTP/2
 * header list, and the CONNECT request for a proxy tunnel. */
#ifndef HTTPLOAD_REQUEST_H
#define HTTPLOAD_REQUEST_H

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

/* Fills ctx's method, authority, path, headers and HTTP/1.1 request bytes.
 * absolute_form: the request target is the whole URL (plain HTTP proxying). */
int request_build(const struct request_spec *s, const struct http_url *u, int absolute_form,
                  struct http_ctx *ctx);
int request_build_connect(const struct request_spec *s, const char *authority, struct lg_target *t);
void request_ctx_free(struct http_ctx *ctx);

#endif
