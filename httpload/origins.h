/* The origins (scheme, host, port) a run's requests go to, each once, with
 * where its connections go (the server, --resolve's address, the proxy with
 * a CONNECT of its own) and its TLS names: a client switches its one
 * connection between them as its walk of the targets crosses origins. A set
 * of 100,000 names costs one entry each, shared by every client. */
#ifndef HTTPLOAD_ORIGINS_H
#define HTTPLOAD_ORIGINS_H

#include <stdbool.h>
#include <stddef.h>

#include "httpload/url.h"
#include "loadgen/engine.h"
#include "loadgen/transport/transport.h"

struct http_origin {
    const struct http_url *url; /* the first request's on it (borrowed) */
    struct lg_target target;
    struct lg_tls_config tls; /* the run's context, this origin's names */
};

struct http_origins {
    struct http_origin *o;
    size_t n;
};

struct lg_names;
struct lg_tls_options;
struct request_spec;

/* Where every origin's connections go. */
struct http_route {
    const char *tool, *what;         /* for messages: "httpload", "--targets" */
    const struct lg_names *names;    /* --resolve, --connect-to */
    const struct lg_target *via;     /* a Unix socket's or the proxy's address, or NULL */
    bool tunnel;                     /* through the proxy: a CONNECT to the origin first */
    const struct request_spec *spec; /* its --proxy-header lines */
    bool datagram;                   /* QUIC: resolve for UDP */
};

/* The distinct origins of urls[0..n) into out (first seen first), and for
 * each URL the index of its origin in of[i]. 0, or -1 when memory ran out. */
int http_origins_find(const struct http_url *const *urls, size_t n, struct http_origins *out,
                      size_t *of);
/* Each origin's target: its address (or via's, with a CONNECT of its own
 * when tunnelling). A name that does not resolve is a usage error; memory
 * that runs out ends the process (lg_out_of_memory). */
void http_origins_route(struct http_origins *os, const struct http_route *r);
/* Each https origin's TLS: the run's context (base), the names the origin's
 * host gives (lg_tls_name). */
void http_origins_tls(struct http_origins *os, const struct lg_tls_config *base,
                      const struct lg_tls_options *opt);
void http_origins_free(struct http_origins *os);

#endif
