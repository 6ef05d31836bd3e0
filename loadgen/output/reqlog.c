/* Per-request NDJSON log. Each worker formats records into a buffer of its
 * own; a full buffer goes to a writer thread, which writes it with one
 * write() of whole records on an O_APPEND descriptor, so no request loop
 * waits for the disk and threads never interleave inside a record. When a
 * write fails (a full disk), the file is cut back to its last whole record,
 * nothing more is written or formatted, and every record from there on is
 * counted as lost, for the run to say how many. */
#include "loadgen/output/reqlog.h"
#include "loadgen/watching/control.h"
#include "loadgen/core/internal.h"
#include "loadgen/output/jsonout.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { LOG_BUF = 1 << 20, LOG_RECORD_MAX = 512, LOG_THREADS = 256 };

struct logbuf {
    struct logbuf *next;
    size_t len;
    uint64_t records; /* whole records in data[0..len) */
    char data[LOG_BUF];
};

struct lg_reqlog {
    struct lg_run_ctx *run; /* whose run a lost record fails */
    int fd;
    const struct lg_driver *drv;
    lg_reqlog_namer name;
    pthread_t writer;
    pthread_mutex_t mu;
    pthread_cond_t work, idle;
    struct logbuf *head, *tail; /* full buffers, in the order they filled */
    struct logbuf *spare;       /* written buffers, for reuse */
    bool writing, quit;
    /* the writer's: the errno of the write that failed (0: none), and the
     * records and bytes written whole, and the records it could not write */
    int failed;
    uint64_t kept, dropped;
    off_t kept_bytes;
    atomic_bool broken; /* failed, as the request loops see it: they stop formatting */
    struct {
        struct lg_jsonout o; /* formats into b->data; never writes itself */
        struct logbuf *b;
        uint64_t skipped; /* records this thread did not format: the log had failed */
    } out[LOG_THREADS];
};

/* Whole records in p[0..n). */
static uint64_t count_records(const char *p, size_t n)
{
    uint64_t k = 0;
    for (const char *end = p + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        k++;
    return k;
}

/* The write failed after `done` bytes of b: the file is cut back to its last
 * whole record (a reader never meets half a record, and the space goes back
 * to whoever else needs it), and what did not make it is counted as lost. */
static void write_failed(struct lg_reqlog *log, const struct logbuf *b, size_t done, int err)
{
    size_t whole = done;
    while (whole && b->data[whole - 1] != '\n')
        whole--;
    uint64_t in = count_records(b->data, whole);
    log->kept += in;
    log->kept_bytes += (off_t)whole;
    log->dropped += b->records - in;
    while (ftruncate(log->fd, log->kept_bytes) < 0 && errno == EINTR) {
    }
    log->failed = err ? err : EIO;
    atomic_store_explicit(&log->broken, true, memory_order_relaxed);
}

static void write_buffer(struct lg_reqlog *log, const struct logbuf *b)
{
    if (log->failed) {
        log->dropped += b->records;
        return;
    }
    size_t off = 0;
    while (off < b->len) {
        ssize_t k = write(log->fd, b->data + off, b->len - off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            write_failed(log, b, off, k < 0 ? errno : ENOSPC);
            return;
        }
        off += (size_t)k;
    }
    log->kept += b->records;
    log->kept_bytes += (off_t)b->len;
}

/* The writer yields to the request loops whenever both want a CPU: a write
 * of a full buffer takes milliseconds, and a loop waiting for it sends late.
 * A real-time policy inherited from the tool's start (chrt) would let it hold
 * a loop of the same priority for the whole write (a 1 MiB buffer kept one
 * 47 ms away from its timer, at 20,000/s under chrt -f 10): the writer
 * takes the normal policy, and in it a lower weight. */
static void writer_yield_to_loops(void)
{
    int policy;
    struct sched_param sp;
    if (pthread_getschedparam(pthread_self(), &policy, &sp) == 0 && policy != SCHED_OTHER &&
        policy != SCHED_BATCH && policy != SCHED_IDLE) {
        sp.sched_priority = 0;
        pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
    }
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
}

static void *writer_main(void *arg)
{
    struct lg_reqlog *log = arg;
    writer_yield_to_loops();
    pthread_mutex_lock(&log->mu);
    for (;;) {
        while (!log->head && !log->quit)
            pthread_cond_wait(&log->work, &log->mu);
        if (!log->head) break;
        struct logbuf *b = log->head;
        log->head = b->next;
        if (!log->head) log->tail = NULL;
        log->writing = true;
        pthread_mutex_unlock(&log->mu);
        write_buffer(log, b);
        pthread_mutex_lock(&log->mu);
        log->writing = false;
        b->next = log->spare;
        log->spare = b;
        if (!log->head) pthread_cond_broadcast(&log->idle);
    }
    pthread_mutex_unlock(&log->mu);
    return NULL;
}

struct lg_reqlog *lg_reqlog_open(struct lg_run_ctx *run, const char *path,
                                 const struct lg_driver *drv, lg_reqlog_namer name)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return NULL;
    struct lg_reqlog *log = calloc(1, sizeof(*log));
    if (!log) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    log->run = run;
    log->fd = fd;
    log->drv = drv;
    log->name = name;
    pthread_mutex_init(&log->mu, NULL);
    pthread_cond_init(&log->work, NULL);
    pthread_cond_init(&log->idle, NULL);
    int err = pthread_create(&log->writer, NULL, writer_main, log);
    if (err) {
        close(fd);
        free(log);
        errno = err;
        return NULL;
    }
    return log;
}

/* Queues a worker's buffer (if it holds anything) and gives the worker an
 * empty one. Called with the lock held. */
static void hand_off(struct lg_reqlog *log, unsigned i, bool want_new)
{
    struct logbuf *b = log->out[i].b;
    if (b && log->out[i].o.len) {
        b->len = log->out[i].o.len;
        b->records = count_records(b->data, b->len);
        b->next = NULL;
        if (log->tail)
            log->tail->next = b;
        else
            log->head = b;
        log->tail = b;
        log->out[i].b = b = NULL;
        pthread_cond_signal(&log->work);
    }
    if (b || !want_new) return;
    if (log->spare) {
        b = log->spare;
        log->spare = b->next;
    } else if (!(b = malloc(sizeof(*b)))) {
        /* a record would be lost: the run fails (status 4, which says why)
         * rather than leave a log of a part of it */
        lg_control_fail(log->run, "out of memory for --log records");
        return;
    }
    log->out[i].b = b;
    memset(&log->out[i].o, 0, sizeof(log->out[i].o));
    log->out[i].o.fd = -1;
    log->out[i].o.buf = b->data;
    log->out[i].o.cap = LOG_BUF;
}

/* Milliseconds from a to b, signed: a moment out of order (which the engine
 * never produces) shows as a negative number, never as a wrapped one. */
static double ms_between(uint64_t a, uint64_t b)
{
    return b >= a ? (double)(b - a) / 1e6 : -(double)(a - b) / 1e6;
}

void lg_reqlog_write(struct lg_reqlog *log, struct lg_client *c, const struct lg_req *r,
                     uint64_t done_ns, int cls)
{
    struct lg_worker *w = c->w;
    if (w->index >= LOG_THREADS) return; /* --threads allows no more */
    if (atomic_load_explicit(&log->broken, memory_order_relaxed)) {
        log->out[w->index].skipped++; /* it could not be written: counted as lost */
        return;
    }
    struct lg_jsonout *o = &log->out[w->index].o;
    if (!log->out[w->index].b || o->len + LOG_RECORD_MAX > o->cap) {
        pthread_mutex_lock(&log->mu);
        hand_off(log, w->index, true);
        pthread_mutex_unlock(&log->mu);
        if (!log->out[w->index].b) { /* out of memory: the run fails, said why */
            log->out[w->index].skipped++;
            return;
        }
    }
    uint64_t t0 = w->level_start_ns;
    lg_json_lit(o, "{\"level\":");
    lg_json_u64(o, w->level_clients);
    lg_json_lit(o, ",\"client\":");
    lg_json_u64(o, c->id);
    lg_json_lit(o, ",\"connection\":");
    lg_json_u64(o, c->conn_attempts);
    lg_json_lit(o, ",\"request\":");
    lg_json_u64(o, c->conn_requests);
    lg_json_lit(o, (r->flags & LG_REQ_COLD) ? ",\"cold\":true" : ",\"cold\":false");
    if (w->tgt->tls) /* whether the request's connection resumed a TLS session */
        lg_json_lit(o, c->tls_resumed ? ",\"tls_resumed\":true" : ",\"tls_resumed\":false");
    lg_json_lit(o, ",\"origin_ms\":");
    lg_json_double(o, ms_between(t0, r->origin_ns));
    if (r->flags & LG_REQ_COLD) { /* where its connection attempt began */
        lg_json_lit(o, ",\"attempt_ms\":");
        lg_json_double(o, ms_between(t0, c->conn_start_ns));
        /* its connection replaced one to another origin (--targets across
         * origins); said only then, so other logs keep their shape */
        if (c->switched && c->state == LG_CONN_READY) lg_json_lit(o, ",\"origin_switch\":true");
    }
    lg_json_lit(o, ",\"sent_ms\":");
    lg_json_double(o, ms_between(t0, r->sent_ns));
    if (r->flags & LG_REQ_FIRST_BYTE) {
        lg_json_lit(o, ",\"ttfb_ms\":");
        lg_json_double(o, ms_between(r->sent_ns, r->first_byte_ns));
    }
    lg_json_lit(o, ",\"done_ms\":");
    lg_json_double(o, ms_between(t0, done_ns));
    lg_json_lit(o, ",\"latency_ms\":");
    lg_json_double(o, ms_between(r->origin_ns, done_ns));
    lg_json_lit(o, ",\"outcome\":");
    if (cls < 0)
        lg_json_str(o, "unfinished");
    else
        lg_json_str(o, cls == 0 ? "ok" : log->name(log->drv, (unsigned)cls));
    lg_json_lit(o, "}\n");
}

int lg_reqlog_flush(struct lg_reqlog *log)
{
    pthread_mutex_lock(&log->mu);
    for (unsigned i = 0; i < LOG_THREADS; i++)
        hand_off(log, i, false);
    while (log->head || log->writing)
        pthread_cond_wait(&log->idle, &log->mu);
    int failed = log->failed;
    pthread_mutex_unlock(&log->mu);
    return failed ? -1 : 0;
}

int lg_reqlog_loss(struct lg_reqlog *log, struct lg_reqlog_loss *loss)
{
    pthread_mutex_lock(&log->mu);
    uint64_t skipped = 0;
    for (unsigned i = 0; i < LOG_THREADS; i++)
        skipped += log->out[i].skipped;
    loss->kept = log->kept;
    loss->lost = log->dropped + skipped;
    loss->err = log->failed;
    pthread_mutex_unlock(&log->mu);
    return loss->lost || loss->err ? -1 : 0;
}

int lg_reqlog_close(struct lg_reqlog *log)
{
    int err = lg_reqlog_flush(log) < 0 ? log->failed : 0;
    pthread_mutex_lock(&log->mu);
    log->quit = true;
    pthread_cond_signal(&log->work);
    pthread_mutex_unlock(&log->mu);
    pthread_join(log->writer, NULL);
    for (unsigned i = 0; i < LOG_THREADS; i++)
        free(log->out[i].b);
    while (log->spare) {
        struct logbuf *b = log->spare;
        log->spare = b->next;
        free(b);
    }
    if (close(log->fd) < 0 && !err) err = errno;
    pthread_mutex_destroy(&log->mu);
    pthread_cond_destroy(&log->work);
    pthread_cond_destroy(&log->idle);
    free(log);
    errno = err;
    return err ? -1 : 0;
}
