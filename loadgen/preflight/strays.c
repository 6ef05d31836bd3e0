/* Strays over a window. See strays.h. Runs only under --preflight: reading
 * every thread's stat twice costs tens of milliseconds on a busy host. */
#include "loadgen/preflight/strays.h"
#include "loadgen/core/clock.h"
#include "loadgen/core/grow.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct task {
    int tid, pid, processor;
    uint64_t ticks;
    char comm[LG_COMM_MAX];
};

struct snapshot {
    struct task *t;
    size_t n, cap;
    uint64_t busy[CPU_SETSIZE], total[CPU_SETSIZE];
    uint64_t wall_ns, own_cpu_ns;
};

int lg_strays_parse_cpu_line(const char *line, size_t len, int *cpu, uint64_t *busy,
                             uint64_t *total)
{
    const char *p = line, *end = line + len;
    if (len < 4 || memcmp(p, "cpu", 3) != 0 || !isdigit((unsigned char)p[3])) return -1;
    p += 3;
    int n = 0;
    while (p < end && isdigit((unsigned char)*p))
        n = n * 10 + (*p++ - '0');
    /* user nice system idle iowait irq softirq steal (guest time is in user) */
    uint64_t f[8] = {0};
    unsigned k = 0;
    for (; k < 8; k++) {
        while (p < end && *p == ' ')
            p++;
        if (p >= end || !isdigit((unsigned char)*p)) break;
        uint64_t v = 0;
        while (p < end && isdigit((unsigned char)*p))
            v = v * 10 + (uint64_t)(*p++ - '0');
        f[k] = v;
    }
    if (k < 4 || n >= CPU_SETSIZE) return -1;
    *cpu = n;
    *total = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7];
    *busy = *total - f[3] - f[4];
    return 0;
}

static int read_cpu_times(struct snapshot *s, char **buf, size_t *cap)
{
    long len = lg_procfs_read(AT_FDCWD, "/proc/stat", buf, cap);
    if (len < 0) return -1;
    const char *end = *buf + len;
    for (const char *line = *buf; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *eol = nl ? nl : end;
        int cpu;
        uint64_t busy, total;
        if (lg_strays_parse_cpu_line(line, (size_t)(eol - line), &cpu, &busy, &total) == 0) {
            s->busy[cpu] = busy;
            s->total[cpu] = total;
        }
        line = eol + 1;
    }
    return 0;
}

/* Every thread of one process. */
static void read_process(struct snapshot *s, int pid, char **buf, size_t *cap)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d) return; /* it exited */
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        char rel[64];
        snprintf(rel, sizeof(rel), "%.40s/stat", e->d_name); /* a thread id */
        long len = lg_procfs_read(dirfd(d), rel, buf, cap);
        struct lg_proc_stat st;
        if (len <= 0 || lg_procfs_parse_stat(*buf, (size_t)len, &st) < 0) continue;
        if (!lg_grow(&s->t, &s->cap, s->n + 1, sizeof(*s->t), 256)) break;
        struct task *t = &s->t[s->n++];
        t->tid = st.pid;
        t->pid = pid;
        t->processor = st.processor;
        t->ticks = st.utime + st.stime;
        memcpy(t->comm, st.comm, sizeof(t->comm));
    }
    closedir(d);
}

static int by_tid(const void *a, const void *b)
{
    const struct task *x = a, *y = b;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static int take(struct snapshot *s, char **buf, size_t *cap)
{
    s->n = 0;
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    s->own_cpu_ns = (uint64_t)ts.tv_sec * LG_NS_PER_S + (uint64_t)ts.tv_nsec;
    s->wall_ns = lg_now_ns();
    if (read_cpu_times(s, buf, cap) < 0) return -1;
    DIR *d = opendir("/proc");
    if (!d) return -1;
    int self = getpid();
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        int pid = atoi(e->d_name);
        if (pid != self) read_process(s, pid, buf, cap);
    }
    closedir(d);
    qsort(s->t, s->n, sizeof(*s->t), by_tid);
    return 0;
}

static const struct task *find(const struct snapshot *s, int tid)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->t[mid].tid == tid) return &s->t[mid];
        if (s->t[mid].tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Adds a process's CPU to the top list (kept sorted, busiest first). */
static void rank(struct lg_strays *out, int pid, const char *comm, double cpus)
{
    unsigned i = out->n_top;
    if (i == LG_STRAYS_TOP) {
        if (cpus <= out->top[i - 1].cpus) return;
        i--;
    } else {
        out->n_top++;
    }
    while (i > 0 && out->top[i - 1].cpus < cpus) {
        out->top[i] = out->top[i - 1];
        i--;
    }
    out->top[i].pid = pid;
    out->top[i].cpus = cpus;
    snprintf(out->top[i].comm, sizeof(out->top[i].comm), "%s", comm);
}

/* Per process, the CPU its threads used while last seen on one of `cpus`. */
static void rank_processes(const struct snapshot *a, const struct snapshot *b,
                           const cpu_set_t *cpus, double tick_s, struct lg_strays *out)
{
    int pid = -1;
    uint64_t ticks = 0;
    const char *comm = "";
    /* b is in process order: one pass sums each process's threads */
    for (size_t i = 0; i <= b->n; i++) {
        const struct task *t = i < b->n ? &b->t[i] : NULL;
        if (!t || t->pid != pid) {
            if (pid > 0 && ticks) {
                double used = (double)ticks * tick_s / out->window_s;
                if (used >= 0.05) rank(out, pid, comm, used);
            }
            if (!t) break;
            pid = t->pid;
            ticks = 0;
            comm = t->comm;
        }
        if (t->tid == t->pid) comm = t->comm;
        const struct task *before = find(a, t->tid);
        if (before && t->ticks > before->ticks && t->processor >= 0 && t->processor < CPU_SETSIZE &&
            CPU_ISSET(t->processor, cpus))
            ticks += t->ticks - before->ticks;
    }
}

static int by_pid_then_tid(const void *x, const void *y)
{
    const struct task *a = x, *b = y;
    if (a->pid != b->pid) return (a->pid > b->pid) - (a->pid < b->pid);
    return (a->tid > b->tid) - (a->tid < b->tid);
}

int lg_strays_measure(const cpu_set_t *cpus, uint64_t window_ns, int stop_fd, struct lg_strays *out)
{
    memset(out, 0, sizeof(*out));
    out->busiest_cpu = -1;
    struct snapshot *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
    char *buf = NULL;
    size_t cap = 0;
    int rc = -1;
    if (!a || !b || take(a, &buf, &cap) < 0) goto out;
    /* the window is a wait on stop_fd (poll ignores a negative one) */
    uint64_t deadline = lg_now_ns() + window_ns;
    for (uint64_t now; (now = lg_now_ns()) < deadline;) {
        struct pollfd p = {.fd = stop_fd, .events = POLLIN};
        int ms = (int)((deadline - now + LG_NS_PER_MS - 1) / LG_NS_PER_MS);
        if (poll(&p, 1, ms) > 0 && p.revents) {
            rc = 1;
            goto out;
        }
    }
    if (take(b, &buf, &cap) < 0) goto out;
    out->window_s = (double)(b->wall_ns - a->wall_ns) / 1e9;
    out->tasks = (unsigned)b->n;
    double own = (double)(b->own_cpu_ns - a->own_cpu_ns) / 1e9 / out->window_s;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, cpus) || b->total[c] <= a->total[c]) continue;
        double share = (double)(b->busy[c] - a->busy[c]) / (double)(b->total[c] - a->total[c]);
        out->n_cpus++;
        out->busy_cpus += share;
        if (share > out->busiest_share || out->busiest_cpu < 0) {
            out->busiest_share = share;
            out->busiest_cpu = c;
        }
    }
    out->busy_cpus = out->busy_cpus > own ? out->busy_cpus - own : 0;
    /* b sorted by process for the sums, a by thread for the look-ups */
    qsort(b->t, b->n, sizeof(*b->t), by_pid_then_tid);
    rank_processes(a, b, cpus, 1.0 / (double)sysconf(_SC_CLK_TCK), out);
    rc = 0;
out:
    if (a) free(a->t);
    if (b) free(b->t);
    free(a);
    free(b);
    free(buf);
    return rc;
}
