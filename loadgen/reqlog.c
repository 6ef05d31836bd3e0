/* Per-request NDJSON log. Each thread formats into its own buffer; a full
 * buffer goes out in one write() of whole records on an O_APPEND descriptor,
 * so threads never interleave inside a record. */
#include "loadgen/reqlog.h"
#include "loadgen/internal.h"
#include "loadgen/jsonout.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LOG_BUF = 1 << 20, LOG_RECORD_MAX = 512, LOG_THREADS = 256 };

struct lg_reqlog {
    int fd;
    const struct lg_driver *drv;
    lg_reqlog_namer name;
    struct lg_jsonout out[LOG_THREADS];
    int failed;
};

struct lg_reqlog *lg_reqlog_open(const char *path, const struct lg_driver *drv,
                                 lg_reqlog_namer name)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return NULL;
    struct lg_reqlog *log = calloc(1, sizeof(*log));
    if (!log) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    log->fd = fd;
    log->drv = drv;
    log->name = name;
    return log;
}

void lg_reqlog_write(struct lg_reqlog *log, struct lg_client *c, const struct lg_req *r,
                     uint64_t done_ns, int cls)
{
    struct lg_worker *w = c->w;
    if (w->index >= LOG_THREADS) return;
    struct lg_jsonout *o = &log->out[w->index];
    if (!o->buf && lg_jsonout_open(o, log->fd, LOG_BUF) < 0) return;
    if (o->len + LOG_RECORD_MAX > o->cap && lg_jsonout_flush(o) < 0) log->failed = 1;
    uint64_t t0 = w->level_start_ns;
    lg_json_lit(o, "{\"level\":");
    lg_json_u64(o, w->level_clients);
    lg_json_lit(o, ",\"client\":");
    lg_json_u64(o, c->id);
    lg_json_lit(o, ",\"connection\":");
    lg_json_u64(o, c->connections);
    lg_json_lit(o, ",\"request\":");
    lg_json_u64(o, c->conn_requests);
    lg_json_lit(o, (r->flags & LG_REQ_COLD) ? ",\"cold\":true" : ",\"cold\":false");
    lg_json_lit(o, ",\"origin_ms\":");
    lg_json_double(o, (double)(int64_t)(r->origin_ns - t0) / 1e6);
    lg_json_lit(o, ",\"sent_ms\":");
    lg_json_double(o, (double)(int64_t)(r->sent_ns - t0) / 1e6);
    if (r->flags & LG_REQ_FIRST_BYTE) {
        lg_json_lit(o, ",\"ttfb_ms\":");
        lg_json_double(o, (double)(r->first_byte_ns - r->sent_ns) / 1e6);
    }
    lg_json_lit(o, ",\"done_ms\":");
    lg_json_double(o, (double)(int64_t)(done_ns - t0) / 1e6);
    lg_json_lit(o, ",\"latency_ms\":");
    lg_json_double(o, (double)(done_ns - r->origin_ns) / 1e6);
    lg_json_lit(o, ",\"outcome\":");
    if (cls < 0)
        lg_json_str(o, "unfinished");
    else
        lg_json_str(o, cls == 0 ? "ok" : log->name(log->drv, (unsigned)cls));
    lg_json_lit(o, "}\n");
}

int lg_reqlog_flush(struct lg_reqlog *log)
{
    for (int i = 0; i < LOG_THREADS; i++)
        if (log->out[i].buf && lg_jsonout_flush(&log->out[i]) < 0) log->failed = 1;
    return log->failed ? -1 : 0;
}

int lg_reqlog_close(struct lg_reqlog *log)
{
    for (int i = 0; i < LOG_THREADS; i++)
        if (log->out[i].buf && lg_jsonout_close(&log->out[i]) < 0) log->failed = 1;
    int failed = log->failed;
    if (close(log->fd) < 0) failed = 1;
    free(log);
    return failed ? -1 : 0;
}
