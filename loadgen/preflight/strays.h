/* Strays: other processes using the CPUs the generator will run on. Over a
 * short window it takes each of those CPUs' busy time (/proc/stat) and every
 * thread's CPU time (/proc/PID/task/TID/stat), and names the processes whose
 * threads ran there the most. */
#ifndef LOADGEN_STRAYS_H
#define LOADGEN_STRAYS_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "loadgen/watching/procfs.h"

#define LG_STRAYS_TOP 5

struct lg_stray {
    int pid;
    char comm[LG_COMM_MAX];
    double cpus; /* CPU it used on those CPUs over the window, in CPUs (1 = one CPU) */
};

struct lg_strays {
    double window_s;
    unsigned n_cpus;  /* the CPUs looked at */
    double busy_cpus; /* their busy time over the window, in CPUs, the generator's own excluded */
    int busiest_cpu;  /* the busiest of them, -1 when none was read */
    double busiest_share;               /* its busy fraction, 0..1 */
    struct lg_stray top[LG_STRAYS_TOP]; /* busiest first; those above 5 % of a CPU */
    unsigned n_top;
    unsigned tasks; /* threads read */
};

/* Waits window_ns between two readings; 0, -1 when /proc/stat cannot be
 * read, 1 when stop_fd (-1: none) became readable first (out holds nothing). */
int lg_strays_measure(const cpu_set_t *cpus, uint64_t window_ns, int stop_fd,
                      struct lg_strays *out);

/* One "cpuN ..." line of /proc/stat: the CPU's number, and its busy and
 * total ticks (busy: all but idle and iowait; steal counts as busy, the
 * hypervisor gave that time to someone else). -1 for any other line. */
int lg_strays_parse_cpu_line(const char *line, size_t len, int *cpu, uint64_t *busy,
                             uint64_t *total);

#endif
