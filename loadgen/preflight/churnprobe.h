/* How fast this machine can open and close connections on loopback: the
 * CPU one connection with one small exchange costs, measured in this
 * process before a run that churns, so the ports and conntrack checks judge
 * against the machine at hand rather than a figure from another one. */
#ifndef LOADGEN_CHURNPROBE_H
#define LOADGEN_CHURNPROBE_H

#include <stdbool.h>

struct lg_churn_probe {
    bool ok;
    bool datagram;      /* UDP sockets, not TCP connections */
    double cpu_us;      /* CPU per connection of the cheapest batch */
    double conns_per_s; /* 1e6 / cpu_us: the most one event loop opens */
    unsigned conns;     /* connections measured */
    char error[64];     /* why it could not measure ("Too many open files") */
};

/* Opens LG_CHURN_PROBE_CONNS connections to a listener of its own on
 * 127.0.0.1 (::1 when there is no IPv4 loopback), each with one request-
 * and answer-sized write, closed with a reset so none stays in TIME_WAIT;
 * datagram: as many connected UDP sockets, each with one datagram and its
 * answer. Fills *out; never fails the run: out->ok false and out->error
 * say why. */
void lg_churn_probe_run(struct lg_churn_probe *out, bool datagram);

#define LG_CHURN_PROBE_CONNS 128
/* The figure used when the probe cannot run: 40 us of generator CPU per
 * connection carrying one request, httpload against nginx on this project's
 * 2-CPU machine (doc/preflight.md says how it was measured). */
#define LG_CHURN_FALLBACK_PER_S 25000

#endif
