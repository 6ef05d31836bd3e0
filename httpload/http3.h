/* httpload's HTTP/3 (httpload/http3.c and http3_app.c, nghttp3 over the
 * engine's QUIC transport): the session, the QUIC application it is, and each
 * request's HTTP/3 header list made once. Built only with HTTP/3 (HAVE_HTTP3). */
#ifndef HTTPLOAD_HTTP3_H
#define HTTPLOAD_HTTP3_H

#include <stdint.h>

#include "httpload/http.h"
#include "loadgen/transport/quic.h"

extern const struct http_session_ops http3_session_ops;
extern const struct lg_quic_app http3_quic_app;

/* The request's HTTP/3 header list (r->h3). 0, or -1 when memory ran out. */
int http3_prepare(struct http_request *r);
void http3_prepared_free(struct http_request *r);
/* "H3_REQUEST_CANCELLED" for 0x10c; NULL for a code HTTP/3 does not define. */
const char *http3_error_name(uint64_t code);
/* nghttp3's version, for --version and --meta. */
const char *http3_version(void);

#endif
