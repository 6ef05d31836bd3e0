/* The processes of the watched trees. See proctree.h. Buffers live for the
 * run and only grow. */
#include "loadgen/watching/proctree.h"
#include "loadgen/watching/control.h"
#include "loadgen/core/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A children walk stops here: a tree this large is beyond any pid space. */
enum { MAX_PIDS = 4 * 1024 * 1024 };

int lg_proctree_open(struct lg_proctree *t)
{
    if (t->proc) return 0;
    t->proc = opendir("/proc");
    if (!t->proc) return -1;
    t->by_children = faccessat(dirfd(t->proc), "thread-self/children", R_OK, 0) == 0;
    return 0;
}

int lg_proctree_dirfd(const struct lg_proctree *t)
{
    return dirfd(t->proc);
}

/* A read of /proc that failed: the process exited since it was listed,
 * unless memory ran out, which would leave a silent gap in the samples, or
 * the generator had no descriptor free to open the file with. */
void lg_proctree_read_failed(struct lg_proctree *t)
{
    if (errno == ENOMEM) lg_control_fail(t->run, "out of memory reading /proc for --watch");
    if (errno == EMFILE || errno == ENFILE) t->short_of_fds = errno;
}

static bool read_stat(struct lg_proctree *t, const char *pid)
{
    char path[64];
    snprintf(path, sizeof(path), "%s/stat", pid);
    long n = lg_procfs_read(dirfd(t->proc), path, &t->buf, &t->cap);
    if (n < 0) {
        lg_proctree_read_failed(t);
        return false;
    }
    if (!lg_grow(&t->rows, &t->cap_rows, t->n_rows + 1, sizeof(*t->rows), 64)) {
        lg_control_fail(t->run, "out of memory reading /proc for --watch");
        return false;
    }
    if (lg_procfs_parse_stat(t->buf, (size_t)n, &t->rows[t->n_rows]) < 0) return false;
    t->n_rows++;
    return true;
}

/* Every /proc/<pid>/stat. */
static void scan_host(struct lg_proctree *t)
{
    rewinddir(t->proc);
    struct dirent *de;
    while ((de = readdir(t->proc)))
        if (de->d_name[0] >= '1' && de->d_name[0] <= '9') read_stat(t, de->d_name);
}

static bool push_pid(struct lg_proctree *t, size_t *tail, int pid)
{
    if (*tail >= MAX_PIDS) return false;
    if (!lg_grow(&t->pending, &t->cap_pending, *tail + 1, sizeof(int), 64)) {
        lg_control_fail(t->run, "out of memory reading /proc for --watch");
        return false;
    }
    t->pending[(*tail)++] = pid;
    return true;
}

/* The children of every thread of pid, queued. */
static void queue_children(struct lg_proctree *t, const char *pid, size_t *tail)
{
    char path[64];
    snprintf(path, sizeof(path), "%s/task", pid);
    int fd = openat(dirfd(t->proc), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        lg_proctree_read_failed(t);
        return;
    }
    DIR *tasks = fdopendir(fd);
    if (!tasks) {
        lg_proctree_read_failed(t);
        close(fd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(tasks))) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9') continue;
        char cpath[64 + sizeof(de->d_name) + 16];
        snprintf(cpath, sizeof(cpath), "%s/%s/children", path, de->d_name);
        long n = lg_procfs_read(dirfd(t->proc), cpath, &t->buf, &t->cap);
        if (n < 0) lg_proctree_read_failed(t);
        for (char *p = t->buf, *end; n > 0 && *p; p = end) {
            long child = strtol(p, &end, 10);
            if (end == p) break;
            if (child > 0 && !push_pid(t, tail, (int)child)) break;
        }
    }
    closedir(tasks);
}

/* The trees alone: each root, then the children its threads list. */
static void scan_trees(struct lg_proctree *t, const int *roots, size_t n_roots)
{
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n_roots; i++)
        push_pid(t, &tail, roots[i]);
    while (head < tail) {
        char pid[16];
        snprintf(pid, sizeof(pid), "%d", t->pending[head++]);
        if (read_stat(t, pid)) queue_children(t, pid, &tail);
    }
}

static int cmp_row_pid(const void *a, const void *b)
{
    int x = ((const struct lg_proc_stat *)a)->pid, y = ((const struct lg_proc_stat *)b)->pid;
    return (x > y) - (x < y);
}

/* Row indexes by their rows' parent pid; the rows come as qsort_r's context. */
static int cmp_idx_ppid(const void *a, const void *b, void *rows_arg)
{
    const struct lg_proc_stat *rows = rows_arg;
    int x = rows[*(const size_t *)a].ppid, y = rows[*(const size_t *)b].ppid;
    return (x > y) - (x < y);
}

void lg_proctree_scan(struct lg_proctree *t, const int *roots, size_t n_roots)
{
    t->n_rows = 0;
    t->short_of_fds = 0;
    if (!t->proc) return;
    if (t->by_children && !t->whole_host)
        scan_trees(t, roots, n_roots);
    else
        scan_host(t);
    if (t->n_rows) qsort(t->rows, t->n_rows, sizeof(*t->rows), cmp_row_pid);
    size_t k = 0; /* trees that overlap list a process twice */
    for (size_t i = 0; i < t->n_rows; i++)
        if (k == 0 || t->rows[i].pid != t->rows[k - 1].pid) t->rows[k++] = t->rows[i];
    t->n_rows = k;
    if (!lg_grow(&t->by_ppid, &t->cap_by_ppid, t->n_rows, sizeof(size_t), 64) ||
        !lg_grow(&t->queue, &t->cap_queue, t->n_rows, sizeof(size_t), 64)) {
        lg_control_fail(t->run, "out of memory reading /proc for --watch");
        t->n_rows = 0;
        return;
    }
    for (size_t i = 0; i < t->n_rows; i++)
        t->by_ppid[i] = i;
    if (t->n_rows) qsort_r(t->by_ppid, t->n_rows, sizeof(size_t), cmp_idx_ppid, t->rows);
}

long lg_proctree_find(const struct lg_proctree *t, int pid)
{
    size_t lo = 0, hi = t->n_rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->rows[mid].pid == pid) return (long)mid;
        if (t->rows[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

size_t lg_proctree_walk(struct lg_proctree *t, size_t root)
{
    size_t head = 0, tail = 0;
    t->queue[tail++] = root;
    while (head < tail) {
        int pid = t->rows[t->queue[head++]].pid;
        /* first child in parent order */
        size_t lo = 0, hi = t->n_rows;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (t->rows[t->by_ppid[mid]].ppid < pid)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < t->n_rows && t->rows[t->by_ppid[k]].ppid == pid; k++)
            if (tail < t->n_rows) t->queue[tail++] = t->by_ppid[k];
    }
    return tail;
}

void lg_proctree_close(struct lg_proctree *t)
{
    if (t->proc) closedir(t->proc);
    free(t->buf);
    free(t->rows);
    free(t->by_ppid);
    free(t->queue);
    free(t->pending);
    memset(t, 0, sizeof(*t));
}
