/* --source: the local addresses a run's connections and UDP sockets come
 * from (a list, or CIDR blocks), parsed once at start and checked to be this
 * machine's, so that more clients than one address's ephemeral ports reach
 * one server. The bind itself is loadgen/transport/source.c. */
#include "loadgen/options/sources.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* One address, no prefix: into s. */
static int parse_one(const char *text, struct lg_source *s)
{
    memset(s, 0, sizeof(*s));
    struct sockaddr_in *v4 = (struct sockaddr_in *)&s->addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&s->addr;
    if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        s->addrlen = sizeof(*v4);
        return 0;
    }
    if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        s->addrlen = sizeof(*v6);
        return 0;
    }
    return -1;
}

/* The address `base` with the low `bits` bits (of 32 or 128) replaced by
 * the number k: one host of a block. */
static void nth_host(const struct lg_source *base, unsigned bits, uint64_t k, struct lg_source *s)
{
    *s = *base;
    if (s->addr.ss_family == AF_INET) {
        struct sockaddr_in *v4 = (struct sockaddr_in *)&s->addr;
        uint32_t a = ntohl(v4->sin_addr.s_addr);
        uint32_t mask = bits >= 32 ? 0 : ~(uint32_t)0 << bits;
        v4->sin_addr.s_addr = htonl((a & mask) | (uint32_t)k);
        return;
    }
    uint8_t *b = ((struct sockaddr_in6 *)&s->addr)->sin6_addr.s6_addr;
    for (unsigned i = 0; i < 128; i++) { /* bit i counts from the lowest */
        if (i >= bits) break;
        unsigned byte = 15 - i / 8, bit = i % 8;
        uint8_t v = i < 64 && (k >> i) & 1;
        b[byte] = (uint8_t)((b[byte] & ~(1u << bit)) | ((unsigned)v << bit));
    }
}

/* Appends one address, or every host of a block, to the list (n, room for
 * LG_SOURCES_MAX). */
static int add_item(const char *item, struct lg_source *list, size_t *n, char *why, size_t len)
{
    char addr[INET6_ADDRSTRLEN + 8];
    const char *slash = strchr(item, '/');
    size_t alen = slash ? (size_t)(slash - item) : strlen(item);
    if (alen == 0 || alen >= sizeof(addr)) {
        snprintf(why, len, "'%s' is not an IPv4 or IPv6 address", item);
        return -1;
    }
    memcpy(addr, item, alen);
    addr[alen] = '\0';
    struct lg_source base;
    if (parse_one(addr, &base) < 0) {
        snprintf(why, len, "'%s' is not an IPv4 or IPv6 address", addr);
        return -1;
    }
    unsigned width = base.addr.ss_family == AF_INET ? 32 : 128;
    unsigned long long prefix = width;
    if (slash) {
        char *end;
        errno = 0;
        prefix = strtoull(slash + 1, &end, 10);
        if (errno || end == slash + 1 || *end || prefix > width) {
            snprintf(why, len, "'%s': the prefix length is not from 0 to %u", item, width);
            return -1;
        }
    }
    unsigned host_bits = width - (unsigned)prefix;
    /* a block's network address (and IPv4's broadcast) is no host's own:
     * skipped, as ipcalc's host range does, except in the smallest blocks */
    uint64_t first = 0, count = 1;
    if (host_bits >= 63) {
        count = UINT64_MAX;
    } else if (host_bits > 0) {
        count = (uint64_t)1 << host_bits;
        if (host_bits >= 2) {
            first = 1;
            count -= base.addr.ss_family == AF_INET ? 2 : 1;
        }
    }
    if (count > LG_SOURCES_MAX - *n) {
        snprintf(why, len,
                 "'%s' makes more than %d addresses in all (the most: a /22 of IPv4, a /118 of "
                 "IPv6)",
                 item, LG_SOURCES_MAX);
        return -1;
    }
    if (host_bits == 0)
        list[(*n)++] = base;
    else
        for (uint64_t k = 0; k < count; k++)
            nth_host(&base, host_bits, first + k, &list[(*n)++]);
    return 0;
}

int lg_parse_sources(const char *s, struct lg_source **out, size_t *n_out, char *why, size_t len)
{
    snprintf(why, len, "give at least one address");
    if (!s || !*s) return -1;
    struct lg_source *list = calloc(LG_SOURCES_MAX, sizeof(*list));
    if (!list) return LG_NO_MEMORY;
    size_t n = 0;
    char item[128];
    const char *p = s;
    for (;;) {
        size_t ilen = strcspn(p, ",");
        if (ilen == 0 || ilen >= sizeof(item)) {
            snprintf(why, len, "an empty or overlong address in the list");
            free(list);
            return -1;
        }
        memcpy(item, p, ilen);
        item[ilen] = '\0';
        if (add_item(item, list, &n, why, len) < 0) {
            free(list);
            return -1;
        }
        if (!p[ilen]) break;
        p += ilen + 1;
    }
    for (size_t i = 1; i < n; i++)
        if (list[i].addr.ss_family != list[0].addr.ss_family) {
            snprintf(why, len, "mixes IPv4 and IPv6 addresses: a target has one family");
            free(list);
            return -1;
        }
    /* the room asked for was the most a list may take: hand back its size */
    struct lg_source *fit = realloc(list, n * sizeof(*list));
    *out = fit ? fit : list;
    *n_out = n;
    return 0;
}

void lg_source_text(const struct lg_source *s, char *buf, size_t len)
{
    const void *a = s->addr.ss_family == AF_INET
                        ? (const void *)&((const struct sockaddr_in *)&s->addr)->sin_addr
                        : (const void *)&((const struct sockaddr_in6 *)&s->addr)->sin6_addr;
    if (!inet_ntop(s->addr.ss_family, a, buf, (socklen_t)len)) snprintf(buf, len, "?");
}

/* A test bind (a datagram socket, the kernel's port) tells whether the
 * machine has the address: EADDRNOTAVAIL when not. Every address of
 * 127.0.0.0/8 is the loopback's on Linux. */
int lg_sources_check_local(const struct lg_source *s, size_t n, size_t *bad, int *err)
{
    for (size_t i = 0; i < n; i++) {
        int fd = socket(s[i].addr.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        int rc = fd < 0 ? -1 : bind(fd, (const struct sockaddr *)&s[i].addr, s[i].addrlen);
        int e = errno;
        if (fd >= 0) close(fd);
        if (rc < 0) {
            *bad = i;
            *err = e;
            return -1;
        }
    }
    return 0;
}

void lg_source_option(struct lg_config *cfg, const char *arg)
{
    char why[200];
    struct lg_source *list = NULL;
    size_t n = 0;
    int rc = lg_parse_sources(arg, &list, &n, why, sizeof(why));
    if (rc == LG_NO_MEMORY) lg_out_of_memory(cfg->tool, "reading --source");
    if (rc < 0) lg_usage_error(cfg->tool, "--source: %s", why);
    size_t bad;
    int err;
    if (lg_sources_check_local(list, n, &bad, &err) < 0) {
        char text[INET6_ADDRSTRLEN];
        lg_source_text(&list[bad], text, sizeof(text));
        free(list);
        if (err == EADDRNOTAVAIL)
            lg_usage_error(cfg->tool,
                           "--source: %s is not an address of this machine (ip addr add %s dev "
                           "IFACE, or give one that ip -brief addr lists)",
                           text, text);
        lg_usage_error(cfg->tool, "--source: cannot bind %s: %s", text, strerror(err));
    }
    free(cfg->sources);
    cfg->sources = list;
    cfg->n_sources = n;
    cfg->sources_text = arg;
}
