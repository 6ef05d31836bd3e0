/* The names of the error classes every driver shares, what each means (the
 * summary's line for a class whose errors came with no reason), and what a
 * user can do about those an option accepts or avoids. */
#include "loadgen/core/internal.h"

static const char *const base_error_names[LG_ERR__BASE_COUNT] = {
    [LG_OK] = "ok",
    [LG_ERR_CONNECT_REFUSED] = "connect_refused",
    [LG_ERR_CONNECT_TIMEOUT] = "connect_timeout",
    [LG_ERR_CONNECT] = "connect",
    [LG_ERR_PROXY_REFUSED] = "proxy_refused",
    [LG_ERR_PROXY_TIMEOUT] = "proxy_timeout",
    [LG_ERR_TLS_HANDSHAKE] = "tls_handshake",
    [LG_ERR_TLS_VERIFY] = "tls_verify",
    [LG_ERR_RESET] = "reset",
    [LG_ERR_EOF] = "eof",
    [LG_ERR_TIMEOUT] = "timeout",
    [LG_ERR_SEND] = "send",
    [LG_ERR_SOCKET] = "socket",
};

/* What each class means: the summary's line for a class whose errors came
 * with no reason of their own. */
static const char *const base_error_descriptions[LG_ERR__BASE_COUNT] = {
    [LG_OK] = "success",
    [LG_ERR_CONNECT_REFUSED] = "the server refused the connection (nothing listens on the port)",
    [LG_ERR_CONNECT_TIMEOUT] = "the connection was not established within --timeout",
    [LG_ERR_CONNECT] = "the connection could not be established",
    [LG_ERR_PROXY_REFUSED] =
        "the proxy did not open the tunnel (it refused, or its reply was malformed)",
    [LG_ERR_PROXY_TIMEOUT] = "the proxy did not open the tunnel within --timeout",
    [LG_ERR_TLS_HANDSHAKE] = "the TLS handshake failed or did not finish",
    [LG_ERR_TLS_VERIFY] = "the server's certificate could not be verified",
    [LG_ERR_RESET] = "the connection was reset or failed with requests in flight",
    [LG_ERR_EOF] = "the server closed the connection before the response was complete",
    [LG_ERR_TIMEOUT] = "no response within --timeout",
    [LG_ERR_SEND] = "the request could not be sent",
    [LG_ERR_SOCKET] = "no socket could be created (out of descriptors or memory)",
};

/* The fix an option offers, said after the class's reason. A certificate
 * that fails to verify is most often a test server's own CA. */
static const char *const base_error_hints[LG_ERR__BASE_COUNT] = {
    [LG_ERR_TLS_VERIFY] = "--cacert FILE trusts a CA; -k skips verification",
};

const char *lg_error_name(const struct lg_driver *d, unsigned cls)
{
    if (cls < LG_ERR__BASE_COUNT) return base_error_names[cls];
    return d->error_names[cls - LG_ERR__BASE_COUNT];
}

const char *lg_error_description(const struct lg_driver *d, unsigned cls)
{
    if (cls < LG_ERR__BASE_COUNT) return base_error_descriptions[cls];
    const char *what =
        d->error_descriptions ? d->error_descriptions[cls - LG_ERR__BASE_COUNT] : NULL;
    return what ? what : "no reason recorded";
}

const char *lg_error_hint(const struct lg_driver *d, unsigned cls)
{
    if (cls < LG_ERR__BASE_COUNT) return base_error_hints[cls];
    return d->error_hints ? d->error_hints[cls - LG_ERR__BASE_COUNT] : NULL;
}
