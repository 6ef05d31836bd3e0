/* The bind of a new socket to the next --source address, in turn: the
 * worker's own counter (no lock, no shared cache line between loops), so
 * each loop spreads its connections evenly over the addresses. See
 * source.h; the addresses themselves are parsed in options/sources.c. */
#include "loadgen/transport/source.h"
#include "loadgen/core/internal.h"
#include "loadgen/options/sources.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* Linux 4.2; older headers lack the name */
#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

int lg_source_bind(struct lg_client *c, int fd, bool stream)
{
    struct lg_worker *w = c->w;
    const struct lg_config *cfg = w->cfg;
    if (cfg->n_sources == 0) return 0;
    /* loop k starts k addresses in, so that loops of few clients each
     * do not all begin on the first */
    size_t i = (w->source_next + w->index) % cfg->n_sources;
    w->source_next++;
    const struct lg_source *s = &cfg->sources[i];
    if (stream) {
        int one = 1;
        /* IPv6 sockets take it at the IPv4 level too (the option is the
         * socket's, whatever its family) */
        setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
    }
    if (bind(fd, (const struct sockaddr *)&s->addr, s->addrlen) == 0) return 0;
    int err = errno;
    char text[64], detail[160];
    lg_source_text(s, text, sizeof(text));
    snprintf(detail, sizeof(detail), "binding source address %s: %s", text, strerror(err));
    lg_conn_fail(c, LG_ERR_CONNECT, detail);
    return -1;
}

int lg_sources_fit_target(const struct lg_config *cfg, const struct lg_target *tgt)
{
    if (cfg->n_sources == 0) return 0;
    int family = tgt->addr.ss_family;
    if (family != AF_INET && family != AF_INET6) {
        fprintf(stderr, "%s: --source: the target is a Unix socket, which has no source address\n",
                cfg->tool);
        return -1;
    }
    if (cfg->sources[0].addr.ss_family != family) {
        char text[64];
        lg_source_text(&cfg->sources[0], text, sizeof(text));
        fprintf(stderr,
                "%s: --source: %s is an %s address and the target %s is %s: give sources of "
                "the target's family\n",
                cfg->tool, text, family == AF_INET ? "IPv6" : "IPv4",
                cfg->target_desc ? cfg->target_desc : "", family == AF_INET ? "IPv4" : "IPv6");
        return -1;
    }
    return 0;
}
