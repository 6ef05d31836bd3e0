/* The document through a pipe nobody may read until we exit. See pipedoc.h.
 * The document is written through a non-blocking descriptor, so a full pipe
 * is noticed instead of waited on: a reader that is reading makes room
 * within LG_PIPE_STALL_MS, and writing goes on as before; otherwise the pipe
 * is grown, or the rest is handed to a child. The rest, from the very byte
 * where the pipe stopped taking it, is formatted into memory before the
 * fork: the child of a threaded process may not format, allocate or free
 * (handoff.c), only write what it was given. */
#include "loadgen/output/pipedoc.h"
#include "loadgen/core/clock.h"
#include "loadgen/output/handoff.h"
#include "loadgen/output/jsonout.h"
#include "loadgen/options/options.h"
#include "loadgen/output/results.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define BOUND_VARIABLE "LOADGEN_HANDOFF_TIMEOUT"

struct pipe_writer {
    const struct lg_level_result *levels;
    size_t n_levels;
    const char *tool;
    uint64_t bound_ns;
    int fd;           /* a write end of the pipe, non-blocking */
    int shared_flags; /* stdout's own flags when fd is stdout made non-blocking, else -1 */
    size_t size;      /* the document's length, once measured */
    bool grow_tried;
    bool cut;        /* no process could take the rest over: stdout holds what fitted */
    bool handed_off; /* a child writes the rest */
};

int lg_pipedoc_bound(const char *tool, uint64_t *bound_ns)
{
    const char *s = getenv(BOUND_VARIABLE);
    *bound_ns = (uint64_t)LG_HANDOFF_DEFAULT_S * LG_NS_PER_S;
    if (!s || !*s) return 0;
    if (lg_parse_duration(s, bound_ns) < 0) {
        fprintf(stderr, "%s: %s: '%s' is not a duration (examples: 500ms, 10s, 2m)\n", tool,
                BOUND_VARIABLE, s);
        return -1;
    }
    return 0;
}

/* Waits up to timeout_ms (-1: for ever) for room in the pipe: 1 when there
 * is some (or the reader is gone, which the next write reports), 0 when
 * the time passed, -1 with errno. */
static int wait_for_room(int fd, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int n = poll(&p, 1, timeout_ms);
    if (n < 0) return errno == EINTR ? 1 : -1; /* the write tells */
    return n > 0;
}

static long read_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

/* Grows the pipe to hold what is in it and the rest of the document; false
 * with the reason in why when it cannot. */
static bool grow(struct pipe_writer *w, const struct lg_jsonout *o, char *why, size_t why_len)
{
    w->size = lg_results_size(w->levels, w->n_levels);
    int queued = 0;
    if (ioctl(w->fd, FIONREAD, &queued) < 0 || queued < 0) queued = 0;
    size_t rest = w->size > o->written ? w->size - o->written : 0;
    size_t need = (size_t)queued + rest;
    int before = fcntl(w->fd, F_GETPIPE_SZ);
    if (w->size == SIZE_MAX) {
        snprintf(why, why_len, "out of memory to measure it");
        return false;
    }
    if (need > LG_PIPE_GROW_MAX) {
        snprintf(why, why_len, "it would take %zu bytes; this tool grows a pipe to %d MiB at most",
                 need, LG_PIPE_GROW_MAX >> 20);
        return false;
    }
    /* A pipe is a ring of pages, and each write may leave its last page
     * part empty: a page of slack per write (at most 1 MiB each) and one
     * more. When the slack alone crosses pipe-max-size, that limit may
     * still do. */
    long max = read_long("/proc/sys/fs/pipe-max-size");
    size_t want = need + ((rest >> 20) + 2) * 4096;
    if (want > LG_PIPE_GROW_MAX) want = LG_PIPE_GROW_MAX;
    int after = fcntl(w->fd, F_SETPIPE_SZ, (int)want);
    if (after < 0 && errno == EPERM && max > 0 && need <= (size_t)max && want > (size_t)max)
        after = fcntl(w->fd, F_SETPIPE_SZ, (int)max);
    if (after < 0 || (size_t)after < need) {
        if (after < 0 && errno == EPERM && max > 0 && need > (size_t)max)
            snprintf(why, why_len,
                     "it would take %zu bytes; a process without CAP_SYS_RESOURCE may grow a "
                     "pipe to %ld (/proc/sys/fs/pipe-max-size)",
                     need, max);
        else if (after < 0 && errno == EPERM)
            snprintf(why, why_len,
                     "growing it to %zu bytes was refused: the user's pipes hold more than "
                     "/proc/sys/fs/pipe-user-pages-soft allows",
                     need);
        else
            snprintf(why, why_len, "growing it to %zu bytes failed: %s", need,
                     after < 0 ? strerror(errno) : "the kernel gave less");
        return false;
    }
    fprintf(stderr,
            "%s: nobody read stdout (a pipe) for %d ms: grew it from %d to %d bytes to hold the "
            "%zu-byte document, so this process exits without waiting for its reader\n",
            w->tool, LG_PIPE_STALL_MS, before, after, w->size);
    return true;
}

/* The document from byte `from` on, formatted into memory for the child
 * (into *rest, *len bytes, the caller frees): 0, or -1 when memory ran out. */
static int format_rest(const struct pipe_writer *w, size_t from, char **rest, size_t *len)
{
    size_t expect = w->size != SIZE_MAX && w->size > from ? w->size - from : 0;
    struct lg_jsonout m;
    if (lg_jsonout_open_memory(&m, from, expect) < 0) return -1;
    lg_results_write_to(&m, w->levels, w->n_levels);
    return lg_jsonout_take(&m, rest, len);
}

/* No process takes the rest over: stdout keeps what fitted, for this
 * process may not wait for a reader that reads only after it exits. */
static int cut(struct pipe_writer *w, const struct lg_jsonout *o, const char *why,
               const char *no_child)
{
    w->cut = true;
    if (o->written == 0)
        fprintf(stderr,
                "%s: nobody read stdout (a pipe) for %d ms and the %zu-byte document cannot "
                "fit it (%s); no process can take it over (%s): none of it went into "
                "stdout, which holds no document\n",
                w->tool, LG_PIPE_STALL_MS, w->size, why, no_child);
    else
        fprintf(stderr,
                "%s: nobody read stdout (a pipe) for %d ms and the %zu-byte document cannot "
                "fit it (%s); no process can take the rest over (%s): stdout holds an "
                "incomplete document, its first %zu bytes\n",
                w->tool, LG_PIPE_STALL_MS, w->size, why, no_child, o->written);
    return 1;
}

/* Hands the rest to a child process, or, when none can be had (no memory
 * for the rest, or the fork fails: a pids cgroup or RLIMIT_NPROC used up),
 * leaves stdout as it is: 1 either way, for this process writes no more. */
static int hand_off(struct pipe_writer *w, const struct lg_jsonout *o, const char *why)
{
    char no_child[128];
    struct lg_handoff job = {.tool = w->tool,
                             .bound_ns = w->bound_ns,
                             .fd = w->fd,
                             .shared_flags = w->shared_flags,
                             .before = o->written};
    char *rest;
    if (format_rest(w, o->written, &rest, &job.rest_len) < 0)
        return cut(w, o, why, "no memory to hold the rest for it");
    job.rest = rest;
    w->size = o->written + job.rest_len;
    pid_t pid = lg_handoff_start(&job);
    int err = errno;
    free(rest); /* the child has its own copy */
    if (pid < 0) {
        snprintf(no_child, sizeof(no_child), "fork: %s", strerror(err));
        return cut(w, o, why, no_child);
    }
    w->handed_off = true;
    fprintf(stderr,
            "%s: nobody read stdout (a pipe) for %d ms and the %zu-byte document cannot fit it "
            "(%s): process %d writes the remaining %zu bytes and exits, and gives up if they "
            "are not read within %g s\n",
            w->tool, LG_PIPE_STALL_MS, w->size, why, (int)pid, job.rest_len,
            (double)w->bound_ns / 1e9);
    return 1;
}

/* The writer's `full`: stdout's pipe has no room. */
static int on_full(struct lg_jsonout *o, void *arg)
{
    struct pipe_writer *w = arg;
    int rc = wait_for_room(w->fd, LG_PIPE_STALL_MS);
    if (rc != 0) {
        if (rc < 0) o->err = errno;
        return rc < 0 ? -1 : 0;
    }
    char why[256] = "";
    if (!w->grow_tried) {
        w->grow_tried = true;
        if (grow(w, o, why, sizeof(why))) return 0;
    } else {
        snprintf(why, sizeof(why), "it filled again after it was grown");
    }
    return hand_off(w, o, why);
}

/* A non-blocking write end of stdout: a descriptor of its own (opened anew
 * through /proc, so the flag stays ours), or, when that is refused (a pipe
 * another user made), stdout itself with O_NONBLOCK set until the document
 * is out. -1 when neither can be had. */
static int open_nonblocking(struct pipe_writer *w)
{
    w->shared_flags = -1;
    w->fd = open("/proc/self/fd/1", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (w->fd >= 0) return 0;
    int flags = fcntl(STDOUT_FILENO, F_GETFL);
    if (flags < 0 || fcntl(STDOUT_FILENO, F_SETFL, flags | O_NONBLOCK) < 0) return -1;
    w->fd = STDOUT_FILENO;
    w->shared_flags = flags;
    return 0;
}

int lg_pipedoc_write(const struct lg_level_result *levels, size_t n_levels, const char *tool,
                     uint64_t bound_ns)
{
    struct stat st;
    struct pipe_writer w = {
        .levels = levels, .n_levels = n_levels, .tool = tool, .bound_ns = bound_ns};
    if (fstat(STDOUT_FILENO, &st) < 0 || !S_ISFIFO(st.st_mode) || open_nonblocking(&w) < 0)
        return lg_results_write(STDOUT_FILENO, levels, n_levels, NULL);
    struct lg_jsonout o;
    int rc = -1;
    if (lg_jsonout_open(&o, w.fd, 1 << 20) == 0) {
        o.full = on_full;
        o.full_arg = &w;
        lg_results_write_to(&o, levels, n_levels);
        rc = lg_jsonout_close(&o);
    } else {
        o.err = ENOMEM;
    }
    /* after a hand-off the child still writes through stdout's flags */
    if (w.shared_flags >= 0 && !w.handed_off) fcntl(STDOUT_FILENO, F_SETFL, w.shared_flags);
    if (w.fd != STDOUT_FILENO) close(w.fd);
    errno = o.err;
    return rc < 0 ? rc : w.cut ? LG_PIPEDOC_INCOMPLETE : 0;
}
