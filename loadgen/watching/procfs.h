/* Parsers for the /proc texts the process-tree sampler and the generator's
 * self-diagnostics read (stat, smaps_rollup, statm, schedstat, net/udp, pid
 * files), kept free of I/O so unit tests can feed them fixture text. */
#ifndef LOADGEN_PROCFS_H
#define LOADGEN_PROCFS_H

#include <stddef.h>
#include <stdint.h>

/* A command name as it may appear in a metric key: TASK_COMM_LEN bytes. */
#define LG_COMM_MAX 16

/* The fields of /proc/<pid>/stat the sampler uses. Times are in clock ticks. */
struct lg_proc_stat {
    int pid, ppid;
    char state;              /* R, S, D, Z, ... */
    char comm[LG_COMM_MAX];  /* as the kernel has it, NUL-terminated */
    uint64_t utime, stime;   /* this process (all its threads) */
    uint64_t cutime, cstime; /* children it has waited for */
    uint64_t starttime;      /* since boot: with the pid, identifies the process */
    uint64_t rss_pages;
    int processor; /* the CPU it last ran on (field 39); -1 when the line stops before it */
};

/* The sums of /proc/<pid>/smaps_rollup, in bytes. */
struct lg_proc_rollup {
    uint64_t rss, pss, uss; /* uss = Private_Clean + Private_Dirty */
};

/* 0, or -1 when the text is not a stat line. The command name sits between
 * the first '(' and the last ')', and may hold spaces and parentheses. */
int lg_procfs_parse_stat(const char *text, size_t len, struct lg_proc_stat *st);
/* 0 when Rss, Pss, Private_Clean and Private_Dirty were all found, else -1. */
int lg_procfs_parse_rollup(const char *text, size_t len, struct lg_proc_rollup *r);
/* Resident pages: the second field of /proc/<pid>/statm. */
int lg_procfs_parse_statm(const char *text, size_t len, uint64_t *resident_pages);
/* Time on a CPU and time waiting on a run queue, from /proc/.../schedstat. */
int lg_procfs_parse_schedstat(const char *text, size_t len, uint64_t *run_ns, uint64_t *wait_ns);
/* A pid file: a positive decimal number, optionally surrounded by white space. */
int lg_procfs_parse_pid(const char *text, size_t len, int *pid);
/* Sums the drops column of /proc/net/udp or udp6 over the sockets whose inode
 * is in `inodes` (sorted ascending). Lines that do not parse are skipped. */
uint64_t lg_procfs_udp_drops(const char *text, size_t len, const uint64_t *inodes, size_t n);
/* A command name as one component of a metric key: letters, digits, '-' and
 * '_' are kept, anything else (dots, spaces, slashes) becomes '_'. */
void lg_procfs_key_component(const char *comm, char out[LG_COMM_MAX]);

/* Reads a whole file (relative to dirfd, or absolute) into *buf, growing it
 * as needed and keeping it for the next call; NUL-terminates. Returns the
 * length, or -1 with errno set. */
long lg_procfs_read(int dirfd, const char *path, char **buf, size_t *cap);

#endif
