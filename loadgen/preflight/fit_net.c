/* Preflight checks of the kernel's network limits: ephemeral ports,
 * conntrack, and the receive buffer of a datagram client's socket. See
 * fitchecks.h. */
#include "loadgen/engine.h"
#include "loadgen/preflight/fitchecks.h"

#include <arpa/inet.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* TIME_WAIT holds a port 60 s (TCP_TIMEWAIT_LEN, fixed in the kernel);
 * tcp_tw_reuse lets connect() take it back after 1 s, for every
 * destination (1) or toward loopback only (2, the default), and only with
 * TCP timestamps on. */
unsigned lg_fit_time_wait_s(const struct lg_needs *n, const struct lg_machine *m)
{
    bool reuse = m->tcp_timestamps != 0 && (m->tw_reuse == 1 || (m->tw_reuse == 2 && n->loopback));
    return reuse ? 1 : 60;
}

/* The generator counts as the side that closes (it does when a multiplexed
 * protocol says goodbye and for queries over TCP, and races the server when
 * a one-at-a-time protocol announces the close), so each closed connection
 * keeps its port. A UDP
 * socket frees its port when it closes. */
double lg_fit_ports_needed(const struct lg_needs *n, const struct lg_machine *m, double rate)
{
    double held = n->clients;
    if (!n->datagram && rate > 0) {
        double hold = lg_fit_time_wait_s(n, m);
        held += rate * (hold < n->churn_s ? hold : n->churn_s);
    }
    return held;
}

/* A rate for a report line: whole numbers from 100 on, three digits below. */
static const char *rate_text(double v, char *buf, size_t len)
{
    snprintf(buf, len, v >= 100 ? "%.0f" : "%.3g", v);
    return buf;
}

/* A count for a short line: whole below ten million, else in millions
 * ("4295M"), so that no figure takes more than a few characters. */
static const char *count_text(double v, char *buf, size_t len)
{
    snprintf(buf, len, v < 1e7 ? "%.0f" : "%.0fM", v < 1e7 ? v : v / 1e6);
    return buf;
}

/* "needs 64", "needs 70 to 25064", "needs 70 or more" (no upper bound
 * known), or for a verdict on one end only that end: "needs 16 or more"
 * (unfit: even the least is too many), "needs up to 30064" (warn). */
static void need_text(double lo, double hi, enum lg_verdict v, char *buf, size_t len)
{
    char a[32], b[32];
    count_text(lo, a, sizeof(a));
    count_text(hi, b, sizeof(b));
    if (v == LG_FIT_UNFIT || hi < 0)
        snprintf(buf, len, "needs %s or more", a);
    else if (v == LG_FIT_WARN)
        snprintf(buf, len, "needs up to %s", b);
    else if (hi > lo)
        snprintf(buf, len, "needs %s to %s", a, b);
    else
        snprintf(buf, len, "needs %s", a);
}

/* "4 clients + 0.4 to 40000 new connections/s (why) x 60 s of TIME_WAIT". */
static void churn_text(const struct lg_needs *n, double hold, char *buf, size_t len)
{
    char lo[32], hi[32];
    rate_text(n->conn_rate_min, lo, sizeof(lo));
    rate_text(n->conn_rate_max, hi, sizeof(hi));
    if (n->conn_rate_max < 0)
        snprintf(buf, len, "%u clients + at least %s new connections/s (%s) x %g s", n->clients, lo,
                 n->rate_basis, hold);
    else if (n->conn_rate_max > n->conn_rate_min * 1.0001)
        snprintf(buf, len, "%u clients + %s to %s new connections/s (%s) x %g s", n->clients, lo,
                 hi, n->rate_basis, hold);
    else
        snprintf(buf, len, "%u clients + %s new connections/s (%s) x %g s", n->clients, lo,
                 n->rate_basis, hold);
}

void lg_fit_ports(const struct lg_needs *n, const struct lg_machine *m, struct lg_check *c)
{
    c->name = "ports";
    c->verdict = LG_FIT_OK;
    snprintf(c->todo, sizeof(c->todo), "nothing");
    if (n->unix_socket) {
        snprintf(c->found, sizeof(c->found), "a Unix socket target");
        snprintf(c->needed, sizeof(c->needed), "no ephemeral ports");
        snprintf(c->brief, sizeof(c->brief), "a Unix socket; needs no ports");
        return;
    }
    if (m->port_hi == 0) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->found, sizeof(c->found), "ip_local_port_range unreadable");
        snprintf(c->needed, sizeof(c->needed), "%u ports at least", n->clients);
        snprintf(c->todo, sizeof(c->todo), "check net.ipv4.ip_local_port_range by hand");
        snprintf(c->brief, sizeof(c->brief),
                 "ip_local_port_range unreadable; needs %u; fix: check it by hand", n->clients);
        return;
    }
    /* the kernel's range is per source address (--source binds each
     * connection to one of several): each brings the whole range again */
    double per_source = (double)(m->port_hi - m->port_lo + 1) - m->ports_reserved;
    size_t sources = n->cfg->n_sources ? n->cfg->n_sources : 1;
    double avail = per_source * (double)sources;
    unsigned tw = lg_fit_time_wait_s(n, m);
    double hold = tw < n->churn_s ? tw : n->churn_s;
    char from[64] = "";
    if (sources > 1) snprintf(from, sizeof(from), " from each of %zu source addresses", sources);
    snprintf(c->found, sizeof(c->found),
             "ip_local_port_range %u-%u: %.0f ports toward one address (%u reserved)%s; "
             "tcp_tw_reuse %d: a closed port is free again after %u s",
             m->port_lo, m->port_hi, per_source, m->ports_reserved, from, m->tw_reuse, tw);
    bool churn = !n->datagram && n->cfg->conn_requests > 0;
    double need_min = lg_fit_ports_needed(n, m, n->conn_rate_min);
    double need_max = n->conn_rate_max < 0 ? -1 : lg_fit_ports_needed(n, m, n->conn_rate_max);
    if (churn) {
        char why[320]; /* the clients, the rates and rate_basis_text */
        churn_text(n, hold, why, sizeof(why));
        if (need_max < 0)
            snprintf(c->needed, sizeof(c->needed), "%.0f or more: %s", need_min, why);
        else if (need_max > need_min)
            snprintf(c->needed, sizeof(c->needed), "%.0f to %.0f: %s", need_min, need_max, why);
        else
            snprintf(c->needed, sizeof(c->needed), "%.0f: %s", need_min, why);
    } else {
        snprintf(c->needed, sizeof(c->needed), "%u: one per client's %s", n->clients,
                 n->datagram ? "socket" : "connection");
    }
    double ceiling = hold > 0 && avail > n->clients ? (avail - n->clients) / hold : 0;
    char ceil_s[32];
    rate_text(ceiling, ceil_s, sizeof(ceil_s));
    if (need_min > avail) {
        c->verdict = LG_FIT_UNFIT;
        if (churn)
            snprintf(c->todo, sizeof(c->todo),
                     "the range lasts for %s new connections/s at most: widen it (sysctl -w "
                     "net.ipv4.ip_local_port_range='1024 65535'), set net.ipv4.tcp_tw_reuse=1, "
                     "raise --conn-requests or lower --rate",
                     ceil_s);
        else
            snprintf(c->todo, sizeof(c->todo),
                     "widen the range (sysctl -w net.ipv4.ip_local_port_range='1024 65535'), "
                     "give more source addresses (--source), or use fewer clients per generator "
                     "(--shard)");
    } else if (churn && (need_max < 0 || need_max > avail)) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "above %s new connections/s connect() fails (EADDRNOTAVAIL): widen the range, "
                 "add source addresses (--source), set net.ipv4.tcp_tw_reuse=1, or bound the "
                 "churn with --rate",
                 ceil_s);
    }
    char avail_s[64], need_s[96];
    count_text(avail, avail_s, sizeof(avail_s));
    snprintf(avail_s + strlen(avail_s), sizeof(avail_s) - strlen(avail_s), " ports");
    if (sources > 1)
        snprintf(avail_s + strlen(avail_s), sizeof(avail_s) - strlen(avail_s), " (%zu sources)",
                 sources);
    need_text(need_min, churn ? need_max : need_min, c->verdict, need_s, sizeof(need_s));
    if (n->datagram)
        snprintf(c->brief, sizeof(c->brief), "%s; %s", avail_s, need_s);
    else
        snprintf(c->brief, sizeof(c->brief), "%s, %u s TIME_WAIT; %s", avail_s, tw, need_s);
    if (c->verdict != LG_FIT_OK)
        snprintf(c->brief + strlen(c->brief), sizeof(c->brief) - strlen(c->brief),
                 "; fix: widen ip_local_port_range%s", churn ? "" : ", or --source");
}

void lg_fit_conntrack(const struct lg_needs *n, const struct lg_machine *m, struct lg_check *c)
{
    c->name = "conntrack";
    c->verdict = LG_FIT_OK;
    snprintf(c->todo, sizeof(c->todo), "nothing");
    if (n->unix_socket || !m->conntrack) {
        snprintf(c->found, sizeof(c->found),
                 n->unix_socket ? "a Unix socket target"
                                : "nf_conntrack not loaded: nothing "
                                  "tracks the connections");
        snprintf(c->needed, sizeof(c->needed), "no table entries");
        snprintf(c->brief, sizeof(c->brief), "%s; needs no entries",
                 n->unix_socket ? "a Unix socket" : "not loaded");
        return;
    }
    /* an entry outlives its connection: TIME_WAIT's timeout, or UDP's */
    unsigned life = n->datagram ? m->conntrack_udp_s : m->conntrack_tw_s;
    double hold = life < n->churn_s ? life : n->churn_s;
    bool churn = n->cfg->conn_requests > 0;
    double need_min = n->clients + (churn ? n->conn_rate_min * hold : 0);
    double need_max = !churn                 ? need_min
                      : n->conn_rate_max < 0 ? -1
                                             : n->clients + n->conn_rate_max * hold;
    double avail =
        m->conntrack_max > m->conntrack_count ? (double)(m->conntrack_max - m->conntrack_count) : 0;
    snprintf(c->found, sizeof(c->found),
             "nf_conntrack_max %llu, %llu entries in use; an entry stays %u s after its %s closes",
             (unsigned long long)m->conntrack_max, (unsigned long long)m->conntrack_count, life,
             n->datagram ? "socket" : "connection");
    if (!churn)
        snprintf(c->needed, sizeof(c->needed), "%.0f: one per client", need_min);
    else if (need_max < 0)
        snprintf(c->needed, sizeof(c->needed),
                 "%.0f or more: %u clients, and those closed in the last %g s (%s)", need_min,
                 n->clients, hold, n->rate_basis);
    else
        snprintf(c->needed, sizeof(c->needed),
                 "%.0f to %.0f: %u clients, and those closed in the last %g s (%s)", need_min,
                 need_max, n->clients, hold, n->rate_basis);
    if (need_min > avail) {
        c->verdict = LG_FIT_UNFIT;
        snprintf(c->todo, sizeof(c->todo),
                 "raise net.netfilter.nf_conntrack_max to %.0f or more, or exempt the load from "
                 "tracking (a NOTRACK rule in the raw table)",
                 need_min + (double)m->conntrack_count);
    } else if (need_max < 0 || need_max > avail) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "a full table drops new connections: raise net.netfilter.nf_conntrack_max or "
                 "exempt the load from tracking");
    }
    char max_s[32], used_s[32], need_s[96];
    count_text((double)m->conntrack_max, max_s, sizeof(max_s));
    count_text((double)m->conntrack_count, used_s, sizeof(used_s));
    need_text(need_min, need_max, c->verdict, need_s, sizeof(need_s));
    snprintf(c->brief, sizeof(c->brief), "max %s, %s in use; %s%s", max_s, used_s, need_s,
             c->verdict == LG_FIT_OK ? "" : "; fix: raise nf_conntrack_max");
}

/* What one datagram of `bytes` takes of a socket's receive buffer: its
 * kernel size (truesize), measured by sending one over loopback and asking
 * the receiver (SO_MEMINFO). Also the receive buffer a new socket gets. */
static long datagram_truesize(size_t bytes, long *rcvbuf)
{
    int rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    long truesize = -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    char *msg = calloc(1, bytes);
    int size;
    socklen_t sl = sizeof(size);
    *rcvbuf = -1;
    if (rx < 0 || tx < 0 || !msg) goto out;
    if (getsockopt(rx, SOL_SOCKET, SO_RCVBUF, &size, &sl) == 0) *rcvbuf = size;
    if (bind(rx, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        getsockname(rx, (struct sockaddr *)&a, &al) < 0 ||
        sendto(tx, msg, bytes, 0, (struct sockaddr *)&a, sizeof(a)) != (ssize_t)bytes)
        goto out;
    /* loopback delivers within the send call */
    uint32_t mem[SK_MEMINFO_VARS];
    socklen_t ml = sizeof(mem);
    if (getsockopt(rx, SOL_SOCKET, SO_MEMINFO, mem, &ml) == 0 && mem[SK_MEMINFO_RMEM_ALLOC] > 0)
        truesize = mem[SK_MEMINFO_RMEM_ALLOC];
out:
    if (rx >= 0) close(rx);
    if (tx >= 0) close(tx);
    free(msg);
    return truesize;
}

void lg_fit_receive_buffer(const struct lg_needs *n, const struct lg_machine *m, struct lg_check *c)
{
    const struct lg_config *cfg = n->cfg;
    size_t bytes = cfg->answer_bytes ? cfg->answer_bytes : 512;
    if (bytes > 65507) bytes = 65507; /* the largest UDP payload over IPv4 */
    /* Only --preflight measures: a run opens no socket but its clients'.
     * Without the measurement an answer counts as its payload alone, so the
     * buffer holds at most that many. */
    long rcvbuf = -1, truesize = n->full ? datagram_truesize(bytes, &rcvbuf) : -1;
    if (rcvbuf < 0) rcvbuf = (long)m->rmem_default;
    bool measured = truesize > 0;
    if (!measured) truesize = (long)bytes;
    long holds = rcvbuf / truesize;
    const char *slots = cfg->slots_option ? cfg->slots_option : "requests in flight";
    c->name = "receive buffer";
    if (measured)
        snprintf(c->found, sizeof(c->found),
                 "a client socket's receive buffer of %ld bytes (net.core.rmem_default) holds %ld "
                 "answers of %zu bytes (%ld bytes each in the kernel, measured over loopback)",
                 rcvbuf, holds, bytes, truesize);
    else
        snprintf(c->found, sizeof(c->found),
                 "a client socket's receive buffer of %ld bytes (net.core.rmem_default) holds at "
                 "most %ld answers of %zu bytes (more each in the kernel: --preflight measures "
                 "it)",
                 rcvbuf, holds, bytes);
    snprintf(c->needed, sizeof(c->needed), "%u answers arriving at once (%s %u)", cfg->slots, slots,
             cfg->slots);
    if (holds < (long)cfg->slots) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "answers beyond it are dropped (rx_dropped) and time out: sysctl -w "
                 "net.core.rmem_default=%ld, or lower %s",
                 truesize * (long)cfg->slots, slots);
    } else {
        c->verdict = LG_FIT_OK;
        snprintf(c->todo, sizeof(c->todo), "nothing");
    }
    snprintf(c->brief, sizeof(c->brief), "a socket holds %ld answers; needs %u at once%s", holds,
             cfg->slots, c->verdict == LG_FIT_OK ? "" : "; fix: raise rmem_default");
}
