/* What machine the generator runs on: CPUs and cores, frequency policy,
 * memory, descriptor limits and the kernel's network limits, read from /proc
 * and /sys in a few milliseconds. Every run records it in --meta, and the
 * preflight checks judge the options against it. The parsers take text, so
 * unit tests feed them fixtures. */
#ifndef LOADGEN_MACHINE_H
#define LOADGEN_MACHINE_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lg_machine {
    char hostname[256];
    char kernel[128];        /* uname's release */
    char cpu_model[128];     /* /proc/cpuinfo's model name */
    unsigned logical_cpus;   /* online */
    unsigned physical_cores; /* distinct sets of SMT siblings among the online CPUs */
    int smt;                 /* 1 active, 0 not, -1 unknown */
    cpu_set_t allowed;       /* the CPUs this process may run on (its affinity) */
    unsigned n_allowed;
    /* SMT siblings among the allowed CPUs: how many allowed CPUs share a
     * core with another allowed CPU, and one such pair */
    unsigned allowed_siblings;
    int sibling_a, sibling_b;
    char governor[32];     /* the first allowed CPU's scaling governor; "" without cpufreq */
    bool governors_differ; /* the allowed CPUs do not all have that governor */
    int boost;             /* frequency boost (turbo): 1 on, 0 off, -1 unknown */
    uint64_t mem_total, mem_available;   /* bytes, /proc/meminfo */
    uint64_t cgroup_limit, cgroup_usage; /* bytes; limit 0: none */
    uint64_t fd_soft, fd_hard;           /* RLIMIT_NOFILE; UINT64_MAX: unlimited */
    unsigned port_lo, port_hi;           /* ip_local_port_range; 0 when unreadable */
    unsigned ports_reserved;             /* ip_local_reserved_ports inside that range */
    int tw_reuse, tcp_timestamps;        /* -1 when unreadable */
    bool conntrack;                      /* nf_conntrack is loaded */
    uint64_t conntrack_max, conntrack_count;
    unsigned conntrack_tw_s, conntrack_udp_s; /* entry lifetimes after TIME_WAIT, for UDP */
    uint64_t rmem_default, rmem_max;          /* net.core, bytes; 0 when unreadable */
    double loadavg1;                          /* -1 when unreadable */
};

/* Reads everything above; what cannot be read keeps its "unknown" value. */
void lg_machine_read(struct lg_machine *m);

/* The memory this process can still take: MemAvailable, or less when a
 * cgroup limit leaves less. */
uint64_t lg_machine_memory_left(const struct lg_machine *m);

/* Parsers, free of I/O. */
/* A kernel CPU list ("0-3,8,10-11") into set; -1 when it is not one. */
int lg_machine_parse_cpulist(const char *text, cpu_set_t *set);
/* A set as a kernel CPU list ("0-3,8"), cut short with "..." when it does not fit. */
void lg_machine_format_cpulist(const cpu_set_t *set, char *buf, size_t len);
/* MemTotal and MemAvailable of /proc/meminfo, in bytes; -1 when either is missing. */
int lg_machine_parse_meminfo(const char *text, uint64_t *total, uint64_t *available);
/* The first "model name" (x86) or "Hardware"/"Processor" (ARM) value of
 * /proc/cpuinfo into out; -1 when none. */
int lg_machine_parse_cpu_model(const char *text, char *out, size_t len);
/* How many ports of lo..hi a reserved-ports list ("8080,9000-9010") holds. */
unsigned lg_machine_reserved_in_range(const char *text, unsigned lo, unsigned hi);
/* The memory cgroup of this process from /proc/self/cgroup: the path under
 * the v1 memory controller (*v1 = true) or the v2 hierarchy; -1 when neither. */
int lg_machine_parse_cgroup(const char *text, char *path, size_t len, bool *v1);

#endif
