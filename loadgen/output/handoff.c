/* The child that writes the document's rest. See handoff.h. Another thread
 * of the tool may have held malloc's lock, or stdio's, or the locale's at
 * the fork, and in the child no thread is left to release it: whatever the
 * child needs is made before the fork (the rest of the document above all),
 * and after it there are only system calls, string copies and lines put
 * together by hand (no printf, no strerror, no malloc, no free). */
#include "loadgen/output/handoff.h"
#include "loadgen/core/clock.h"
#include "loadgen/output/jsonout.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A line of stderr built without printf, cut at its size. */
struct line {
    char text[512];
    size_t len;
};

static void add(struct line *l, const char *s)
{
    size_t n = strlen(s);
    if (n > sizeof(l->text) - l->len) n = sizeof(l->text) - l->len;
    memcpy(l->text + l->len, s, n);
    l->len += n;
}

static void add_u64(struct line *l, uint64_t v)
{
    char digits[24];
    lg_format_u64(digits, v);
    add(l, digits);
}

/* The child's last resort: the writes never block and its waits end at the
 * bound, but should a write block all the same (another process sharing
 * stdout's flags took O_NONBLOCK off), SIGALRM a second past the bound says
 * so and ends it. */
static struct line backstop_line;

static void backstop(int sig)
{
    (void)sig;
    ssize_t put = write(STDERR_FILENO, backstop_line.text, backstop_line.len);
    (void)put;
    _exit(1);
}

static void arm_backstop(const struct lg_handoff *job)
{
    unsigned seconds = (unsigned)((job->bound_ns + LG_NS_PER_S - 1) / LG_NS_PER_S) + 1;
    add(&backstop_line, job->tool);
    add(&backstop_line, ": process ");
    add_u64(&backstop_line, (uint64_t)getpid());
    add(&backstop_line, " was stopped ");
    add_u64(&backstop_line, seconds);
    add(&backstop_line, " s after taking the document over: stdout holds an incomplete document\n");
    struct sigaction sa = {.sa_handler = backstop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    alarm(seconds);
}

/* Waits for room in the pipe until the deadline: 0 when there is some (or
 * the reader is gone, which the next write reports), else the errno to
 * give up with (ETIMEDOUT at the deadline). */
static int wait_until(int fd, uint64_t deadline_ns)
{
    for (;;) {
        uint64_t now = lg_now_ns();
        if (now >= deadline_ns) return ETIMEDOUT;
        uint64_t ms = (deadline_ns - now + LG_NS_PER_MS - 1) / LG_NS_PER_MS;
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int n = poll(&p, 1, ms > 60000 ? 60000 : (int)ms);
        if (n > 0) return 0;
        if (n < 0 && errno != EINTR) return errno;
    }
}

/* The line for a reader holding part of a document: how much went out. */
static void say_incomplete(const struct lg_handoff *job, const char *bound, size_t went, int err)
{
    size_t size = job->before + job->rest_len;
    struct line l = {.len = 0};
    add(&l, job->tool);
    add(&l, ": process ");
    add_u64(&l, (uint64_t)getpid());
    if (err == ETIMEDOUT) {
        add(&l, " gave up writing the document after ");
        add(&l, bound);
        add(&l, " s: ");
        if (went == 0) {
            add(&l, "none of its ");
            add_u64(&l, size);
            add(&l, " bytes went into stdout, which holds no document\n");
        } else {
            add_u64(&l, went);
            add(&l, " of its ");
            add_u64(&l, size);
            add(&l, " bytes went into stdout, which holds an incomplete document\n");
        }
    } else if (err == EPIPE) {
        add(&l, ": the reader closed stdout after ");
        add_u64(&l, went);
        add(&l, " of the document's ");
        add_u64(&l, size);
        add(&l, " bytes: what it read is an incomplete document\n");
    } else {
        add(&l, ": writing the document failed after ");
        add_u64(&l, went);
        add(&l, " of its ");
        add_u64(&l, size);
        add(&l, " bytes (errno ");
        add_u64(&l, (uint64_t)err);
        add(&l, "): stdout holds an incomplete document\n");
    }
    ssize_t put = write(STDERR_FILENO, l.text, l.len);
    (void)put; /* nowhere else to say it */
}

/* The child's job, where a leak checker (valgrind follows a fork) sees the
 * rest it points to: that buffer is released by the child's exit, since
 * free is not the child's to call. */
static struct lg_handoff child_job;

static _Noreturn void child_write(const struct lg_handoff *parent_job, const char *bound)
{
    child_job = *parent_job;
    const struct lg_handoff *job = &child_job;
    /* The run's signals stop measuring, never the delivery of what was
     * measured: a reader gets the whole document, not the part written
     * when the signal came. (They are blocked already; this says so.) */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    uint64_t deadline_ns = lg_now_ns() + job->bound_ns;
    arm_backstop(job);
    size_t off = 0;
    int err = 0;
    while (off < job->rest_len) {
        ssize_t n = write(job->fd, job->rest + off, job->rest_len - off);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN) {
            err = errno;
            break;
        }
        if ((err = wait_until(job->fd, deadline_ns)) != 0) break;
    }
    if (job->shared_flags >= 0) fcntl(STDOUT_FILENO, F_SETFL, job->shared_flags);
    if (off == job->rest_len) _exit(0);
    say_incomplete(job, bound, job->before + off, err);
    _exit(1);
}

pid_t lg_handoff_start(const struct lg_handoff *job)
{
    char bound[32]; /* in seconds, as the parent's line has it */
    snprintf(bound, sizeof(bound), "%g", (double)job->bound_ns / 1e9);
    pid_t pid = fork();
    if (pid == 0) child_write(job, bound);
    return pid;
}
