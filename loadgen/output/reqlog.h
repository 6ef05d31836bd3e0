/* --log FILE: one NDJSON record per request with every field of that request
 * together, written by each thread in large whole-record writes. */
#ifndef LOADGEN_REQLOG_H
#define LOADGEN_REQLOG_H

#include <stdint.h>

struct lg_client;
struct lg_req;
struct lg_driver;
struct lg_reqlog;
struct lg_run_ctx;

typedef const char *(*lg_reqlog_namer)(const struct lg_driver *d, unsigned cls);

/* A record lost for want of memory fails `run`; records lost to a failed
 * write are counted (lg_reqlog_loss). */
struct lg_reqlog *lg_reqlog_open(struct lg_run_ctx *run, const char *path,
                                 const struct lg_driver *drv, lg_reqlog_namer name);
/* error_class -1 marks an unfinished request. Called by the request's thread. */
void lg_reqlog_write(struct lg_reqlog *log, struct lg_client *c, const struct lg_req *r,
                     uint64_t done_ns, int error_class);
/* Waits until every record handed off so far is written; -1 once a write
 * has failed. */
int lg_reqlog_flush(struct lg_reqlog *log);
/* What a failed write lost, after the last flush: the records in the file
 * (whole: it is cut back to the last), those lost, and the write's errno;
 * -1 when any was lost. */
struct lg_reqlog_loss {
    uint64_t kept, lost;
    int err;
};
int lg_reqlog_loss(struct lg_reqlog *log, struct lg_reqlog_loss *loss);
/* Flushes and closes; -1 with errno when a write or the close failed. */
int lg_reqlog_close(struct lg_reqlog *log);

#endif
