/* The processes of --watch's trees, read from /proc once per sample. Where
 * the kernel lists each task's children (/proc/PID/task/TID/children) only
 * the trees are read, so a sample costs what the trees hold, not what the
 * host runs; elsewhere one pass over every /proc/PID/stat. */
#ifndef LOADGEN_PROCTREE_H
#define LOADGEN_PROCTREE_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>

#include "loadgen/watching/procfs.h"

struct lg_run_ctx;

struct lg_proctree {
    struct lg_run_ctx *run; /* whose run a failed allocation fails (lg_control_fail) */
    DIR *proc;              /* /proc */
    bool by_children;       /* the kernel has children files */
    bool whole_host;        /* force the pass over every process (tests) */
    char *buf;
    size_t cap;
    struct lg_proc_stat *rows; /* the processes read, in pid order */
    size_t n_rows, cap_rows;
    size_t *by_ppid, *queue; /* row indexes: in parent order; a walk's result */
    size_t cap_by_ppid, cap_queue;
    int *pending; /* pids still to read, in a children walk */
    size_t cap_pending;
    /* a read since the last scan began failed for want of a descriptor
     * (EMFILE, ENFILE: the generator's own limit): what it read is not the
     * whole tree, and a process it missed has not exited */
    int short_of_fds;
};

/* A read of /proc for the trees failed with errno: notes the generator's own
 * want of descriptors (short_of_fds); fails the run when memory ran out. */
void lg_proctree_read_failed(struct lg_proctree *t);

/* Opens /proc: 0, or -1 with errno set. */
int lg_proctree_open(struct lg_proctree *t);
/* Reads the processes under each of the roots (and the roots themselves). */
void lg_proctree_scan(struct lg_proctree *t, const int *roots, size_t n_roots);
/* The row of pid, or -1 when the last scan did not see it. */
long lg_proctree_find(const struct lg_proctree *t, int pid);
/* The tree under the row `root`, breadth first, as row indexes in t->queue;
 * returns how many. */
size_t lg_proctree_walk(struct lg_proctree *t, size_t root);
/* The directory descriptor of /proc, for reading other files of a pid. */
int lg_proctree_dirfd(const struct lg_proctree *t);
void lg_proctree_close(struct lg_proctree *t);

#endif
