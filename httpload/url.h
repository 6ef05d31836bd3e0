/* Parsing the target and proxy URLs: scheme, host (name, IPv4 or [IPv6]),
 * port and request target. Anything else gets a message saying what is
 * wrong with it. */
#ifndef HTTPLOAD_URL_H
#define HTTPLOAD_URL_H

#include <stdbool.h>

/* The longest host a URL may have (a DNS name is at most 253 bytes). */
#define HTTP_URL_HOST_MAX 255

struct http_url {
    bool https;
    char *host; /* without brackets (malloc'd) */
    bool host_is_ipv6;
    unsigned port;
    bool port_given;
    char *target; /* path and query, "/" at least (malloc'd) */
};

/* Returns 0, or -1 with a reason in `why` (a static string); LG_NO_MEMORY,
 * why lg_no_memory, when memory ran out. A URL that failed holds nothing to
 * free; one that parsed is freed with http_url_free. */
int http_url_parse(const char *s, struct http_url *u, const char **why);
void http_url_free(struct http_url *u);
/* "host" or "host:port" (brackets for IPv6), as the Host header and CONNECT want. */
void http_url_authority(const struct http_url *u, bool always_port, char *buf, unsigned len);

#endif
