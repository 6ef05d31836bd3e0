/* Process-tree sampling for --watch. See watch.h. Each sample reads the
 * trees' processes (proctree.h); a breadth-first walk from the watched pid
 * gives each tree. Buffers live for the run and only grow. */
#include "loadgen/watching/watch.h"
#include "loadgen/watching/control.h"
#include "loadgen/engine.h"
#include "loadgen/core/grow.h"
#include "loadgen/options/options.h"
#include "loadgen/watching/procfs.h"
#include "loadgen/watching/proctree.h"
#include "loadgen/output/results.h"
#include "loadgen/core/runctx.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { WM_CPU, WM_RSS, WM_PSS, WM_USS, WM_FDS, WM__COUNT };
static const char *const metric_names[WM__COUNT] = {"cpu_s", "rss_bytes", "pss_bytes", "uss_bytes",
                                                    "fds"};
static const char *const metric_units[WM__COUNT] = {"seconds", "bytes", "bytes", "bytes", "count"};

struct dvec {
    double *v;
    size_t n, cap;
};

/* A process of a watched tree at one sample; CPU in clock ticks. */
struct member {
    int pid, ppid;
    uint64_t start, self_ticks, child_ticks;
    uint64_t reaped_expected; /* CPU of vanished children this one presumably reaped */
    unsigned comm;            /* index into the watch's command table */
    size_t row;
};

/* The per-command series of a tree, and the sums of the current sample. */
struct comm_series {
    char key[LG_COMM_MAX];
    struct dvec m[WM__COUNT];
    double sum[WM__COUNT];
    bool present, pss_known, fds_known;
};

struct watch {
    struct lg_watcher *watcher; /* that samples it */
    const struct lg_watch_spec *spec;
    int pid;
    uint64_t root_start; /* identifies the root across samples (pids are reused) */
    bool gone;           /* the root exited; nothing more is sampled */
    bool noted_pss, noted_fds;
    size_t samples; /* this level */
    /* the generator had no descriptor free to read /proc (EMFILE): seconds
     * left out this level, and the next read only a new CPU baseline */
    size_t left_out;
    bool rebase;
    struct member *prev, *cur;
    size_t n_prev, n_cur, cap_prev, cap_cur;
    struct comm_series *comms;
    size_t n_comms, cap_comms;
    struct dvec tree[WM__COUNT];
};

/* --- options ----------------------------------------------------------- */

static bool valid_name(const char *s, size_t n)
{
    if (n == 0 || n > 64) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_'))
            return false;
    }
    return true;
}

/* 0 when /proc/<pid>/stat reads and the process is not a zombie; LG_NO_MEMORY
 * when memory ran out reading it. */
static int process_alive(int pid, struct lg_proc_stat *st)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    char *buf = NULL;
    size_t cap = 0;
    long n = lg_procfs_read(AT_FDCWD, path, &buf, &cap);
    int rc = n >= 0 && lg_procfs_parse_stat(buf, (size_t)n, st) == 0 && st->state != 'Z' &&
                     st->state != 'X'
                 ? 0
             : n < 0 && errno == ENOMEM ? LG_NO_MEMORY
                                        : -1;
    free(buf);
    return rc;
}

/* The pid a pid file names, or -1 with a reason. */
static int read_pidfile(const char *path, const char **why)
{
    char *buf = NULL;
    size_t cap = 0;
    long n = lg_procfs_read(AT_FDCWD, path, &buf, &cap);
    int pid = -1;
    if (n < 0)
        *why = lg_errno_why(errno);
    else if (lg_procfs_parse_pid(buf, (size_t)n, &pid) < 0) {
        *why = "it holds no process id";
        pid = -1;
    }
    free(buf);
    return pid;
}

void lg_watch_option(struct lg_config *cfg, const char *arg)
{
    const char *tool = cfg->tool;
    const char *eq = strchr(arg, '=');
    if (!eq || !valid_name(arg, (size_t)(eq - arg)))
        lg_usage_error(tool,
                       "--watch: '%s' is not NAME=PID or NAME=pidfile:PATH (NAME: up to 64 "
                       "letters, digits, '-' and '_')",
                       arg);
    for (size_t i = 0; i < cfg->n_watches; i++)
        if (strlen(cfg->watches[i].name) == (size_t)(eq - arg) &&
            memcmp(cfg->watches[i].name, arg, (size_t)(eq - arg)) == 0)
            lg_usage_error(tool, "--watch %s: the name %.*s is given twice", arg, (int)(eq - arg),
                           arg);
    struct lg_watch_spec spec = {0};
    const char *value = eq + 1;
    if (strncmp(value, "pidfile:", 8) == 0) {
        const char *why = NULL;
        spec.pid = read_pidfile(value + 8, &why);
        if (spec.pid < 0 && why == lg_no_memory) lg_out_of_memory(tool, "reading --watch");
        if (spec.pid < 0) lg_usage_error(tool, "--watch %s: cannot use the pid file: %s", arg, why);
    } else {
        unsigned long long u;
        if (lg_parse_unsigned(value, 1, 0x7fffffff, &u) < 0)
            lg_usage_error(tool, "--watch %s: '%s' is not a process id or pidfile:PATH", arg,
                           value);
        spec.pid = (int)u;
    }
    struct lg_proc_stat st;
    int alive = process_alive(spec.pid, &st);
    if (alive == LG_NO_MEMORY) lg_out_of_memory(tool, "reading --watch");
    if (alive < 0) lg_usage_error(tool, "--watch %s: there is no process %d", arg, spec.pid);
    struct lg_watch_spec *v = realloc(cfg->watches, (cfg->n_watches + 1) * sizeof(*v));
    if (!v) lg_out_of_memory(tool, "reading --watch");
    cfg->watches = v;
    spec.name = strdup(arg);
    if (!spec.name) lg_out_of_memory(tool, "reading --watch");
    spec.name[eq - arg] = '\0';
    if (strncmp(value, "pidfile:", 8) == 0) spec.pidfile = spec.name + (eq - arg) + 1 + 8;
    v[cfg->n_watches++] = spec;
    cfg->watches = v;
}

void lg_watch_free_specs(struct lg_config *cfg)
{
    for (size_t i = 0; i < cfg->n_watches; i++)
        free(cfg->watches[i].name);
    free(cfg->watches);
    cfg->watches = NULL;
    cfg->n_watches = 0;
}

/* --- scanning ---------------------------------------------------------- */

static void dvec_push(struct watch *wt, struct dvec *d, double x)
{
    if (!lg_grow(&d->v, &d->cap, d->n + 1, sizeof(*d->v), 16)) {
        lg_control_fail(wt->watcher->run,
                        "out of memory for --watch samples"); /* never a silent gap */
        return;
    }
    d->v[d->n++] = x;
}

static int cmp_member_pid(const void *a, const void *b)
{
    int x = ((const struct member *)a)->pid, y = ((const struct member *)b)->pid;
    return (x > y) - (x < y);
}

/* Reads the processes of every tree still watched. */
static void scan(struct lg_watcher *watcher)
{
    size_t n = 0;
    for (size_t i = 0; i < watcher->n; i++)
        if (!watcher->w[i].gone) watcher->roots[n++] = watcher->w[i].pid;
    lg_proctree_scan(&watcher->pt, watcher->roots, n);
}

static struct member *find_member(struct member *v, size_t n, int pid)
{
    struct member key = {.pid = pid};
    return n ? bsearch(&key, v, n, sizeof(*v), cmp_member_pid) : NULL; /* v may be NULL then */
}

static unsigned comm_index(struct watch *wt, const char *comm)
{
    char key[LG_COMM_MAX];
    lg_procfs_key_component(comm, key);
    for (unsigned i = 0; i < wt->n_comms; i++)
        if (strcmp(wt->comms[i].key, key) == 0) return i;
    if (!lg_grow(&wt->comms, &wt->cap_comms, wt->n_comms + 1, sizeof(*wt->comms), 8)) {
        lg_control_fail(wt->watcher->run, "out of memory for --watch's command names");
        return 0;
    }
    struct comm_series *c = &wt->comms[wt->n_comms];
    memset(c, 0, sizeof(*c));
    memcpy(c->key, key, sizeof(key));
    return (unsigned)wt->n_comms++;
}

/* The tree under the root, breadth first, into wt->cur (then sorted by pid).
 * Returns false when the root is gone. */
static bool collect_tree(struct watch *wt)
{
    struct lg_watcher *watcher = wt->watcher;
    long root = lg_proctree_find(&watcher->pt, wt->pid);
    if (root < 0) return false;
    const struct lg_proc_stat *rs = &watcher->pt.rows[root];
    if (rs->state == 'Z' || rs->state == 'X') return false;
    if (wt->root_start && rs->starttime != wt->root_start) return false; /* pid reused */
    wt->root_start = rs->starttime;
    size_t tail = lg_proctree_walk(&watcher->pt, (size_t)root);
    if (!lg_grow(&wt->cur, &wt->cap_cur, tail, sizeof(*wt->cur), 64)) {
        lg_control_fail(wt->watcher->run, "out of memory for a --watch tree");
        wt->n_cur = 0;
        return true;
    }
    wt->n_cur = tail;
    for (size_t i = 0; i < tail; i++) {
        const struct lg_proc_stat *st = &watcher->pt.rows[watcher->pt.queue[i]];
        wt->cur[i] = (struct member){
            .pid = st->pid,
            .ppid = st->ppid,
            .start = st->starttime,
            .self_ticks = st->utime + st->stime,
            .child_ticks = st->cutime + st->cstime,
            .comm = comm_index(wt, st->comm),
            .row = watcher->pt.queue[i],
        };
    }
    qsort(wt->cur, wt->n_cur, sizeof(*wt->cur), cmp_member_pid);
    return true;
}

/* CPU ticks of the tree since the previous sample, per command and in total.
 * A child that vanished was (presumably) reaped by its parent, whose
 * children's time then grew by the child's whole life: only the part since
 * the previous sample is new. A parent that did not wait (SIGCHLD ignored)
 * adds nothing, hence the clamp. */
static void account_cpu(struct watch *wt, double *tree_ticks)
{
    for (size_t i = 0; i < wt->n_cur; i++)
        wt->cur[i].reaped_expected = 0;
    for (size_t i = 0; i < wt->n_prev; i++) {
        const struct member *old = &wt->prev[i];
        const struct member *now = find_member(wt->cur, wt->n_cur, old->pid);
        if (now && now->start == old->start) continue;
        struct member *parent = find_member(wt->cur, wt->n_cur, old->ppid);
        if (parent) parent->reaped_expected += old->self_ticks + old->child_ticks;
    }
    *tree_ticks = 0;
    for (size_t i = 0; i < wt->n_cur; i++) {
        const struct member *m = &wt->cur[i];
        const struct member *old = find_member(wt->prev, wt->n_prev, m->pid);
        if (old && old->start != m->start) old = NULL;
        uint64_t self =
            old ? (m->self_ticks > old->self_ticks ? m->self_ticks - old->self_ticks : 0)
                : m->self_ticks;
        uint64_t kids =
            old ? (m->child_ticks > old->child_ticks ? m->child_ticks - old->child_ticks : 0)
                : m->child_ticks;
        kids = kids > m->reaped_expected ? kids - m->reaped_expected : 0;
        wt->comms[m->comm].sum[WM_CPU] += (double)(self + kids);
        *tree_ticks += (double)(self + kids);
    }
}

/* Open descriptors: the directory's size on Linux 6.2 and later, else a count. */
static int count_fds(int dfd, int pid, uint64_t *out)
{
    char path[64];
    snprintf(path, sizeof(path), "%d/fd", pid);
    struct stat sb;
    if (fstatat(dfd, path, &sb, 0) < 0) return -1;
    if (sb.st_size > 0) {
        *out = (uint64_t)sb.st_size;
        return 0;
    }
    int fd = openat(dfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    uint64_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.') n++;
    closedir(d);
    *out = n;
    return 0;
}

/* The generator ran out of descriptors during this second's reads: the
 * second is left out of the tree's series (never a sum of what could be
 * read), and the next second only takes a new CPU baseline, so that every
 * cpu_s sample stays one second's. A process missed then has not exited. */
static bool short_of_fds(struct watch *wt)
{
    if (!wt->watcher->pt.short_of_fds) return false;
    wt->left_out++;
    wt->rebase = true;
    return true;
}

static void sample_watch(struct watch *wt)
{
    struct lg_watcher *watcher = wt->watcher;
    if (wt->gone || short_of_fds(wt)) return;
    bool rebase = wt->rebase;
    if (!collect_tree(wt)) {
        if (short_of_fds(wt)) return;
        wt->gone = true;
        fprintf(stderr,
                "%s: --watch %s: process %d exited during level c%u; its series end after %zu s\n",
                watcher->tool, wt->spec->name, wt->pid, watcher->clients, wt->samples);
        return;
    }
    if (rebase) { /* the tree as it is now, and no sample: see short_of_fds */
        wt->rebase = false;
        wt->left_out++;
        return;
    }
    for (size_t i = 0; i < wt->n_comms; i++) {
        struct comm_series *c = &wt->comms[i];
        memset(c->sum, 0, sizeof(c->sum));
        c->present = false;
        c->pss_known = c->fds_known = true;
    }
    double ticks = 0;
    account_cpu(wt, &ticks);
    int dfd = lg_proctree_dirfd(&watcher->pt);
    double tree[WM__COUNT] = {ticks * watcher->tick_s};
    bool pss_known = !watcher->no_rollup, fds_known = true;
    for (size_t i = 0; i < wt->n_cur; i++) {
        const struct member *m = &wt->cur[i];
        const struct lg_proc_stat *st = &watcher->pt.rows[m->row];
        struct comm_series *c = &wt->comms[m->comm];
        c->present = true;
        if (watcher->no_rollup) c->pss_known = false;
        if (st->state == 'Z' || st->state == 'X') continue; /* no memory, no descriptors */
        double rss = (double)(st->rss_pages * watcher->page);
        if (!watcher->no_rollup) {
            char path[64];
            snprintf(path, sizeof(path), "%d/smaps_rollup", m->pid);
            struct lg_proc_rollup r;
            long n = lg_procfs_read(dfd, path, &watcher->buf, &watcher->cap);
            if (n >= 0 && lg_procfs_parse_rollup(watcher->buf, (size_t)n, &r) == 0) {
                rss = (double)r.rss; /* from the same walk as PSS, so PSS <= RSS holds */
                c->sum[WM_PSS] += (double)r.pss;
                c->sum[WM_USS] += (double)r.uss;
                tree[WM_PSS] += (double)r.pss;
                tree[WM_USS] += (double)r.uss;
            } else if (n < 0 && (errno == EACCES || errno == EPERM)) {
                c->pss_known = pss_known = false;
                if (!wt->noted_pss)
                    fprintf(stderr,
                            "%s: --watch %s: cannot read /proc/%d/smaps_rollup (%s): pss_bytes "
                            "and uss_bytes are left out where it counts\n",
                            watcher->tool, wt->spec->name, m->pid, strerror(errno));
                wt->noted_pss = true;
            } else if (n < 0) {
                /* out of memory fails the run, out of descriptors leaves the
                 * second out; else the process is exiting: it holds no
                 * memory any more */
                lg_proctree_read_failed(&watcher->pt);
            }
        }
        c->sum[WM_RSS] += rss;
        tree[WM_RSS] += rss;
        uint64_t fds;
        if (count_fds(dfd, m->pid, &fds) == 0) {
            c->sum[WM_FDS] += (double)fds;
            tree[WM_FDS] += (double)fds;
        } else if (errno == ENOMEM || errno == EMFILE || errno == ENFILE) {
            lg_proctree_read_failed(&watcher->pt);
        } else if (errno == EACCES || errno == EPERM) {
            c->fds_known = fds_known = false;
            if (!wt->noted_fds)
                fprintf(stderr,
                        "%s: --watch %s: cannot read /proc/%d/fd (%s): fds is left out where it "
                        "counts\n",
                        watcher->tool, wt->spec->name, m->pid, strerror(errno));
            wt->noted_fds = true;
        }
    }
    if (short_of_fds(wt)) return;
    for (int k = 0; k < WM__COUNT; k++) {
        if ((k == WM_PSS || k == WM_USS) && !pss_known) continue;
        if (k == WM_FDS && !fds_known) continue;
        dvec_push(wt, &wt->tree[k], tree[k]);
    }
    for (size_t i = 0; i < wt->n_comms; i++) {
        struct comm_series *c = &wt->comms[i];
        if (!c->present) continue;
        c->sum[WM_CPU] *= watcher->tick_s;
        for (int k = 0; k < WM__COUNT; k++) {
            if ((k == WM_PSS || k == WM_USS) && !c->pss_known) continue;
            if (k == WM_FDS && !c->fds_known) continue;
            dvec_push(wt, &c->m[k], c->sum[k]);
        }
    }
    wt->samples++;
}

/* The CPU baseline: the tree as it is now, without a sample. */
static void baseline_watch(struct watch *wt)
{
    struct lg_watcher *watcher = wt->watcher;
    wt->n_prev = 0;
    wt->left_out = 0;
    /* a tree read short is no baseline: its first second takes one */
    wt->rebase = watcher->pt.short_of_fds != 0;
    if (wt->gone) return;
    if (!collect_tree(wt) && !wt->rebase) {
        wt->gone = true;
        fprintf(stderr,
                "%s: --watch %s: process %d is not running at the start of level c%u; nothing "
                "is sampled for it\n",
                watcher->tool, wt->spec->name, wt->pid, watcher->clients);
    }
}

static void swap_members(struct watch *wt)
{
    struct member *t = wt->prev;
    size_t cap = wt->cap_prev;
    wt->prev = wt->cur;
    wt->n_prev = wt->n_cur;
    wt->cap_prev = wt->cap_cur;
    wt->cur = t;
    wt->cap_cur = cap;
    wt->n_cur = 0;
}

/* --- the level ----------------------------------------------------------- */

void lg_watch_level_begin(struct lg_watcher *watcher, const struct lg_config *cfg, unsigned clients)
{
    if (!cfg->n_watches) return;
    watcher->tool = cfg->tool;
    watcher->clients = clients;
    if (!watcher->w) {
        watcher->w = calloc(cfg->n_watches, sizeof(*watcher->w));
        watcher->roots = calloc(cfg->n_watches, sizeof(*watcher->roots));
        if (!watcher->w || !watcher->roots) {
            free(watcher->w);
            free(watcher->roots);
            watcher->w = NULL;
            watcher->roots = NULL;
            lg_control_fail(watcher->run, "out of memory for --watch"); /* never a silent gap */
            return;
        }
        watcher->n = cfg->n_watches;
        for (size_t i = 0; i < watcher->n; i++) {
            watcher->w[i].watcher = watcher;
            watcher->w[i].spec = &cfg->watches[i];
            watcher->w[i].pid = cfg->watches[i].pid;
        }
        long tck = sysconf(_SC_CLK_TCK);
        watcher->tick_s = 1.0 / (double)(tck > 0 ? tck : 100);
        long page = sysconf(_SC_PAGESIZE);
        watcher->page = (uint64_t)(page > 0 ? page : 4096);
        watcher->no_rollup = access("/proc/self/smaps_rollup", R_OK) != 0;
        if (watcher->no_rollup)
            fprintf(stderr,
                    "%s: --watch: this kernel has no /proc/<pid>/smaps_rollup; pss_bytes and "
                    "uss_bytes are left out\n",
                    watcher->tool);
    }
    watcher->pt.run = watcher->run;
    if (lg_proctree_open(&watcher->pt) < 0) {
        if (errno == ENOMEM)
            lg_control_fail(watcher->run, "out of memory reading /proc for --watch");
        return; /* no /proc: nothing is sampled */
    }
    for (size_t i = 0; i < watcher->n; i++) {
        struct watch *wt = &watcher->w[i];
        wt->samples = 0;
        if (wt->spec->pidfile) { /* the service may have been restarted between levels */
            const char *why;
            int pid = read_pidfile(wt->spec->pidfile, &why);
            if (pid > 0 && (pid != wt->pid || wt->gone)) {
                struct lg_proc_stat st;
                if (process_alive(pid, &st) == 0) {
                    wt->pid = pid;
                    wt->gone = false;
                    wt->root_start = 0;
                }
            }
        }
    }
    scan(watcher);
    /* a scan cut short by memory running out fails the run: no process is
     * said to be gone on its account */
    if (lg_control_failure(watcher->run)) return;
    for (size_t i = 0; i < watcher->n; i++) {
        baseline_watch(&watcher->w[i]);
        swap_members(&watcher->w[i]);
    }
}

void lg_watch_sample(struct lg_watcher *watcher)
{
    if (!watcher->n || !watcher->pt.proc) return;
    scan(watcher);
    if (lg_control_failure(watcher->run)) return;
    for (size_t i = 0; i < watcher->n; i++) {
        struct watch *wt = &watcher->w[i];
        sample_watch(wt);
        /* a tree read short is no baseline: the next read is */
        if (!wt->gone && !watcher->pt.short_of_fds) swap_members(wt);
    }
}

static int add_series(struct lg_level_result *res, const char *name, int k, struct dvec *d)
{
    int rc = lg_result_add(res, name, metric_units[k], d->v, d->n, d->n);
    *d = (struct dvec){0};
    return rc;
}

int lg_watch_collect(struct lg_watcher *watcher, struct lg_level_result *res)
{
    for (size_t i = 0; i < watcher->n; i++) {
        struct watch *wt = &watcher->w[i];
        if (wt->left_out)
            fprintf(stderr,
                    "%s: --watch %s: %zu second%s of level c%u left out of its series: the "
                    "generator had no descriptor free to read /proc (EMFILE or ENFILE)\n",
                    watcher->tool, wt->spec->name, wt->left_out, wt->left_out == 1 ? "" : "s",
                    watcher->clients);
        char name[160];
        for (int k = 0; k < WM__COUNT; k++) {
            snprintf(name, sizeof(name), "watch.%s.%s", wt->spec->name, metric_names[k]);
            if (add_series(res, name, k, &wt->tree[k]) < 0) return -1;
        }
        for (size_t c = 0; c < wt->n_comms; c++)
            for (int k = 0; k < WM__COUNT; k++) {
                snprintf(name, sizeof(name), "watch.%s.%s.%s", wt->spec->name, wt->comms[c].key,
                         metric_names[k]);
                if (add_series(res, name, k, &wt->comms[c].m[k]) < 0) return -1;
            }
    }
    return 0;
}

void lg_watch_level_end(struct lg_watcher *watcher)
{
    for (size_t i = 0; i < watcher->n; i++) {
        struct watch *wt = &watcher->w[i];
        for (int k = 0; k < WM__COUNT; k++) {
            free(wt->tree[k].v);
            wt->tree[k] = (struct dvec){0};
        }
        for (size_t c = 0; c < wt->n_comms; c++)
            for (int k = 0; k < WM__COUNT; k++)
                free(wt->comms[c].m[k].v);
        wt->n_comms = 0; /* commands are found afresh each level */
        wt->n_prev = wt->n_cur = 0;
    }
    lg_proctree_close(&watcher->pt);
}

void lg_watch_free(struct lg_watcher *watcher)
{
    for (size_t i = 0; i < watcher->n; i++) {
        struct watch *wt = &watcher->w[i];
        free(wt->prev);
        free(wt->cur);
        free(wt->comms);
    }
    free(watcher->w);
    free(watcher->roots);
    free(watcher->buf);
    watcher->w = NULL;
    watcher->roots = NULL;
    watcher->buf = NULL;
    watcher->n = watcher->cap = 0;
}
