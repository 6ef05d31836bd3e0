/* URL parsing. See url.h. */
#include "httpload/url.h"
#include "loadgen/core/nomem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The host of the authority [p, end): a name, an address or [IPv6]; sets
 * *port to the text after its colon (NULL: none). */
static int parse_host(const char *p, const char *end, struct http_url *u, const char **port,
                      const char **why)
{
    const char *host = p, *host_end;
    size_t alen = (size_t)(end - p);
    *port = NULL;
    if (*p == '[') {
        const char *close = memchr(p, ']', alen);
        if (!close) return *why = "unterminated [IPv6] address", -1;
        host = p + 1;
        host_end = close;
        u->host_is_ipv6 = true;
        if (close + 1 < end) {
            if (close[1] != ':') return *why = "unexpected text after the [IPv6] address", -1;
            *port = close + 2;
        }
    } else {
        const char *colon = memchr(p, ':', alen);
        host_end = colon ? colon : end;
        if (colon) *port = colon + 1;
    }
    size_t hl = (size_t)(host_end - host);
    if (hl == 0) return *why = "missing host", -1;
    if (hl > HTTP_URL_HOST_MAX) return *why = "host name too long", -1;
    for (size_t i = 0; i < hl; i++) {
        unsigned char c = (unsigned char)host[i];
        if (!(isalnum(c) || c == '-' || c == '.' || c == '_' ||
              (u->host_is_ipv6 && (c == ':' || c == '%'))))
            return *why = "invalid character in the host", -1;
    }
    /* its own size: a --targets list keeps a URL per target */
    if (!(u->host = strndup(host, hl))) return *why = lg_no_memory, LG_NO_MEMORY;
    return 0;
}

/* The port text [port, end): 1 to 65535. */
static int parse_port(const char *port, const char *end, struct http_url *u, const char **why)
{
    size_t pl = (size_t)(end - port);
    if (pl == 0 || pl > 5) return *why = "port out of range (1-65535)", -1;
    unsigned v = 0;
    for (size_t i = 0; i < pl; i++) {
        if (!isdigit((unsigned char)port[i])) return *why = "port is not a number", -1;
        v = v * 10 + (unsigned)(port[i] - '0');
    }
    if (v == 0 || v > 65535) return *why = "port out of range (1-65535)", -1;
    u->port = v;
    u->port_given = true;
    return 0;
}

/* The request target: path and query, never the fragment; "/" when empty. */
static int parse_target(const char *rest, struct http_url *u, const char **why)
{
    size_t tl = strcspn(rest, "#");
    for (size_t i = 0; i < tl; i++) {
        unsigned char c = (unsigned char)rest[i];
        if (c <= 0x20 || c == 0x7f)
            return *why = "spaces or control characters in the path (percent-encode them)", -1;
    }
    bool needs_slash = tl == 0 || rest[0] != '/';
    u->target = malloc(tl + 2);
    if (!u->target) return *why = lg_no_memory, LG_NO_MEMORY;
    snprintf(u->target, tl + 2, "%s%.*s", needs_slash ? "/" : "", (int)tl, rest);
    return 0;
}

int http_url_parse(const char *s, struct http_url *u, const char **why)
{
    memset(u, 0, sizeof(*u));
    const char *p;
    if (strncasecmp(s, "http://", 7) == 0) {
        p = s + 7;
    } else if (strncasecmp(s, "https://", 8) == 0) {
        u->https = true;
        p = s + 8;
    } else {
        *why = strstr(s, "://") ? "unsupported scheme (use http:// or https://)"
                                : "missing scheme (start with http:// or https://)";
        return -1;
    }
    const char *auth_end = p + strcspn(p, "/?#");
    if (memchr(p, '@', (size_t)(auth_end - p)))
        return *why = "user information in URLs is not supported (use -H Authorization)", -1;
    const char *port;
    int rc = parse_host(p, auth_end, u, &port, why);
    if (rc < 0) return rc;
    u->port = u->https ? 443 : 80;
    rc = port ? parse_port(port, auth_end, u, why) : 0;
    if (rc == 0) rc = parse_target(auth_end, u, why);
    if (rc < 0) http_url_free(u); /* a URL that failed holds nothing */
    return rc;
}

void http_url_free(struct http_url *u)
{
    free(u->host);
    u->host = NULL;
    free(u->target);
    u->target = NULL;
}

void http_url_authority(const struct http_url *u, bool always_port, char *buf, unsigned len)
{
    bool default_port = u->port == (u->https ? 443u : 80u);
    const char *l = u->host_is_ipv6 ? "[" : "", *r = u->host_is_ipv6 ? "]" : "";
    if (always_port || !default_port)
        snprintf(buf, len, "%s%s%s:%u", l, u->host, r, u->port);
    else
        snprintf(buf, len, "%s%s%s", l, u->host, r);
}
