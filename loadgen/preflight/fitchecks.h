/* The preflight checks, one function each, and what the options need that
 * they judge against. Engine files only: preflight.c fills the needs and
 * calls them; each writes one struct lg_check. */
#ifndef LOADGEN_FITCHECKS_H
#define LOADGEN_FITCHECKS_H

#include <stdbool.h>
#include <stdint.h>

#include "loadgen/preflight/preflight.h"
#include "loadgen/preflight/probe.h"
#include "loadgen/preflight/strays.h"

struct lg_config;

/* What the options ask of the machine, for the largest level this process runs. */
struct lg_needs {
    const struct lg_config *cfg;
    unsigned clients; /* of the largest level, this shard's share */
    unsigned threads, watches, slots;
    bool datagram;    /* one UDP socket per client */
    bool unix_socket; /* no ports, no conntrack */
    bool loopback;    /* the target is 127.0.0.0/8 or ::1 */
    /* new connections per second that --conn-requests makes: at least
     * conn_rate_min, at most conn_rate_max (< 0: not known); 0 without it */
    double conn_rate_min, conn_rate_max;
    const char *rate_basis;    /* how those were found, for the report */
    char rate_basis_text[200]; /* rate_basis when it carries a figure */
    /* how long the levels open new connections: their durations, summed
     * (none opens in a drain window or between levels), the most that
     * TIME_WAIT or conntrack can hold of them */
    double churn_s;
    const struct lg_probe *probe; /* --preflight's, or NULL */
    bool full; /* --preflight: the checks may measure with sockets of their own */
};

/* fit_limits.c: descriptors and memory. */
void lg_fit_descriptors(const struct lg_needs *n, const struct lg_machine *m, struct lg_check *c);
void lg_fit_memory(const struct lg_needs *n, const struct lg_machine *m, struct lg_check *c);
/* fit_net.c: ephemeral ports, conntrack, datagram receive buffers. */
void lg_fit_ports(const struct lg_needs *n, const struct lg_machine *m, struct lg_check *c);
void lg_fit_conntrack(const struct lg_needs *n, const struct lg_machine *m, struct lg_check *c);
void lg_fit_receive_buffer(const struct lg_needs *n, const struct lg_machine *m,
                           struct lg_check *c);
/* fit_cpu.c: CPUs, frequency, the timer floor, the clock, strays. */
void lg_fit_cpus(const struct lg_needs *n, const struct lg_machine *m, struct lg_check *c);
void lg_fit_frequency(const struct lg_machine *m, struct lg_check *c);
void lg_fit_timer(const struct lg_needs *n, const struct lg_timer_floor *tf, struct lg_check *c);
void lg_fit_clock(const struct lg_needs *n, struct lg_check *c);
void lg_fit_strays(const struct lg_needs *n, const struct lg_machine *m, const struct lg_strays *s,
                   struct lg_check *c);

/* The ports a level holds toward the target: its connections at once and
 * those waiting in TIME_WAIT at `rate` new ones per second. */
double lg_fit_ports_needed(const struct lg_needs *n, const struct lg_machine *m, double rate);
/* How long a closed port stays unusable for a new connection to the target:
 * 60 s of TIME_WAIT, or 1 s when tcp_tw_reuse applies to it. */
unsigned lg_fit_time_wait_s(const struct lg_needs *n, const struct lg_machine *m);

#endif
