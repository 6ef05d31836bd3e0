/* --resolve and --connect-to: their parsers, and where a connection for a
 * name goes once they are read. See names.h. */
#include "loadgen/options/names.h"
#include "loadgen/core/grow.h"
#include "loadgen/options/options.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One field of a colon-separated option: up to the next ':' (a field that
 * starts with '[' runs to its ']'), brackets off. -1 when a bracket is not
 * closed or not followed by ':' or the end. *s moves past the ':'. */
static int next_field(const char **s, const char **f, size_t *n, bool *more)
{
    const char *p = *s;
    if (*p == '[') {
        const char *close = strchr(p, ']');
        if (!close || (close[1] != ':' && close[1] != '\0')) return -1;
        *f = p + 1;
        *n = (size_t)(close - p - 1);
        *more = close[1] == ':';
        *s = close + (*more ? 2 : 1);
        return 0;
    }
    const char *colon = strchr(p, ':');
    *f = p;
    *n = colon ? (size_t)(colon - p) : strlen(p);
    *more = colon != NULL;
    *s = colon ? colon + 1 : p + *n;
    return 0;
}

/* A name or an IP literal: letters, digits, '-', '.', '_', and ':' for
 * IPv6; not starting with '-' (curl's form to remove an entry). */
static bool host_ok(const char *h, size_t n)
{
    if (n == 0 || n > 253 || h[0] == '-') return false;
    for (size_t i = 0; i < n; i++) {
        char c = h[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '.' || c == '_' || c == ':'))
            return false;
    }
    return true;
}

static char *lower_copy(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) return NULL;
    for (size_t i = 0; i < n; i++)
        d[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i];
    d[n] = '\0';
    return d;
}

/* A port field: 1..65535, or empty when `empty_ok` (0 then). */
static int port_field(const char *f, size_t n, bool empty_ok, unsigned *port)
{
    if (n == 0) {
        *port = 0;
        return empty_ok ? 0 : -1;
    }
    char buf[8];
    if (n >= sizeof(buf)) return -1;
    memcpy(buf, f, n);
    buf[n] = '\0';
    unsigned long long p;
    if (lg_parse_unsigned(buf, 1, 65535, &p) < 0) return -1;
    *port = (unsigned)p;
    return 0;
}

/* An IP literal (no brackets) into addr with the port. */
static bool ip_address(const char *f, size_t n, unsigned port, struct sockaddr_storage *addr,
                       socklen_t *len)
{
    char buf[INET6_ADDRSTRLEN + 1];
    if (n == 0 || n >= sizeof(buf)) return false;
    memcpy(buf, f, n);
    buf[n] = '\0';
    memset(addr, 0, sizeof(*addr));
    struct sockaddr_in *in = (struct sockaddr_in *)addr;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)addr;
    if (inet_pton(AF_INET, buf, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)port);
        *len = sizeof(*in);
        return true;
    }
    if (inet_pton(AF_INET6, buf, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*in6);
        return true;
    }
    return false;
}

int lg_names_add_resolve(struct lg_names *n, const char *arg, const char **why)
{
    const char *s = arg, *host, *port_s;
    size_t hn, pn;
    bool more;
    *why = "is not HOST:PORT:ADDR (example: example.test:443:127.0.0.1, '*' for any name, "
           "an IPv6 ADDR in brackets)";
    if (next_field(&s, &host, &hn, &more) < 0 || !more) return -1;
    if (next_field(&s, &port_s, &pn, &more) < 0 || !more) return -1;
    if (!(hn == 1 && host[0] == '*') && !host_ok(host, hn)) return -1;
    unsigned port;
    if (port_field(port_s, pn, false, &port) < 0) {
        *why = "has no port from 1 to 65535 in HOST:PORT:ADDR";
        return -1;
    }
    /* ADDR: the rest, a list of which the first is used */
    const char *addr = s;
    size_t an = strcspn(addr, ",");
    if (an >= 2 && addr[0] == '[' && addr[an - 1] == ']') {
        addr++;
        an -= 2;
    }
    struct lg_name_addr e = {.port = port};
    if (!ip_address(addr, an, port, &e.addr, &e.addrlen)) {
        *why = "has no IP address as ADDR in HOST:PORT:ADDR (a name is not resolved there)";
        return -1;
    }
    if (!lg_grow(&n->addrs, &n->cap_addrs, n->n_addrs + 1, sizeof(*n->addrs), 4))
        return LG_NO_MEMORY;
    if (!(e.host = lower_copy(host, hn))) return LG_NO_MEMORY;
    n->addrs[n->n_addrs++] = e;
    return 0;
}

int lg_names_add_connect_to(struct lg_names *n, const char *arg, const char **why)
{
    const char *s = arg, *f[4];
    size_t len[4];
    bool more = true;
    *why = "is not HOST:PORT:HOST2:PORT2 (any may be empty: example: example.test:443:"
           "127.0.0.1:8443)";
    for (int i = 0; i < 4; i++) {
        if (!more || next_field(&s, &f[i], &len[i], &more) < 0) return -1;
    }
    if (more) return -1;
    if ((len[0] && !(len[0] == 1 && f[0][0] == '*') && !host_ok(f[0], len[0])) ||
        (len[2] && !host_ok(f[2], len[2])))
        return -1;
    struct lg_name_route r = {0};
    if (port_field(f[1], len[1], true, &r.port) < 0 || port_field(f[3], len[3], true, &r.to_port))
        return -1;
    if (!lg_grow(&n->routes, &n->cap_routes, n->n_routes + 1, sizeof(*n->routes), 4))
        return LG_NO_MEMORY;
    bool any = len[0] == 1 && f[0][0] == '*';
    r.host = lower_copy(f[0], any ? 0 : len[0]);
    r.to_host = lower_copy(f[2], len[2]);
    if (!r.host || !r.to_host) {
        free(r.host);
        free(r.to_host);
        return LG_NO_MEMORY;
    }
    n->routes[n->n_routes++] = r;
    return 0;
}

void lg_names_option(const char *tool, struct lg_names *n, bool connect_to, const char *arg)
{
    const char *why;
    int rc =
        connect_to ? lg_names_add_connect_to(n, arg, &why) : lg_names_add_resolve(n, arg, &why);
    if (rc == LG_NO_MEMORY) lg_out_of_memory(tool, "reading the options");
    if (rc < 0)
        lg_usage_error(tool, "%s: '%s' %s", connect_to ? "--connect-to" : "--resolve", arg, why);
}

const struct lg_name_addr *lg_names_find(const struct lg_names *n, const char *host, unsigned port)
{
    const struct lg_name_addr *any = NULL;
    for (size_t i = 0; i < n->n_addrs; i++) {
        const struct lg_name_addr *e = &n->addrs[i];
        if (e->port != port) continue;
        if (strcasecmp(e->host, host) == 0) return e;
        if (!any && strcmp(e->host, "*") == 0) any = e;
    }
    return any;
}

void lg_names_resolve(const char *tool, const char *what, const struct lg_names *n,
                      const char *host, unsigned port, bool datagram, struct lg_target *t)
{
    for (size_t i = 0; i < n->n_routes; i++) {
        const struct lg_name_route *r = &n->routes[i];
        if ((r->host[0] && strcasecmp(r->host, host) != 0) || (r->port && r->port != port))
            continue;
        if (r->to_host[0]) host = r->to_host;
        if (r->to_port) port = r->to_port;
        break;
    }
    const struct lg_name_addr *e = lg_names_find(n, host, port);
    if (!e) {
        lg_resolve_target(tool, what, host, port, datagram, t);
        return;
    }
    memcpy(&t->addr, &e->addr, e->addrlen);
    t->addrlen = e->addrlen;
}

void lg_names_free(struct lg_names *n)
{
    for (size_t i = 0; i < n->n_addrs; i++)
        free(n->addrs[i].host);
    for (size_t i = 0; i < n->n_routes; i++) {
        free(n->routes[i].host);
        free(n->routes[i].to_host);
    }
    free(n->addrs);
    free(n->routes);
    memset(n, 0, sizeof(*n));
}
