/* --resolve HOST:PORT:ADDR and --connect-to HOST:PORT:HOST2:PORT2, as curl
 * has them: where a connection for a name goes, while the name itself still
 * goes into SNI, Host, CONNECT and a DoH URL. Read at start; both tools. */
#ifndef LOADGEN_NAMES_H
#define LOADGEN_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "loadgen/engine.h"

/* --resolve: connections for host:port go to addr (host "*": any name). */
struct lg_name_addr {
    char *host; /* lower case, brackets off an IPv6 literal; "*" for any */
    unsigned port;
    struct sockaddr_storage addr; /* the port in it is `port` */
    socklen_t addrlen;
};

/* --connect-to: connections for host:port go to to_host:to_port instead
 * (an empty host or a port of 0 matches any; an empty to_host or a to_port
 * of 0 keeps the original). */
struct lg_name_route {
    char *host, *to_host;
    unsigned port, to_port;
};

struct lg_names {
    struct lg_name_addr *addrs;
    size_t n_addrs, cap_addrs;
    struct lg_name_route *routes;
    size_t n_routes, cap_routes;
};

/* Adds one --resolve entry: 0, or -1 with *why saying what is wrong (to
 * follow the quoted text), LG_NO_MEMORY when memory ran out. ADDR is an
 * IPv4 or IPv6 address (IPv6 in brackets or not), or a comma-separated list
 * of them, of which the first is used (as of a name resolved). */
int lg_names_add_resolve(struct lg_names *n, const char *arg, const char **why);
/* Adds one --connect-to entry; the same results. */
int lg_names_add_connect_to(struct lg_names *n, const char *arg, const char **why);

/* A tool's --resolve (or, with connect_to, --connect-to) ARG added to n:
 * a bad one is a usage error, memory running out ends the process. */
void lg_names_option(const char *tool, struct lg_names *n, bool connect_to, const char *arg);

/* The address given for host:port by --resolve (an exact name before "*"),
 * or NULL. */
const struct lg_name_addr *lg_names_find(const struct lg_names *n, const char *host, unsigned port);

/* Where connections for host:port go: --connect-to's host and port in
 * place of them (the first entry that matches), then --resolve's address
 * for that, else the resolver's first answer; a name that does not resolve
 * is a usage error naming the option `what`. */
void lg_names_resolve(const char *tool, const char *what, const struct lg_names *n,
                      const char *host, unsigned port, bool datagram, struct lg_target *t);

void lg_names_free(struct lg_names *n);

#endif
