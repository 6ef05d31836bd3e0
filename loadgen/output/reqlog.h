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

/* A lost record (memory ran out) fails `run`. */
struct lg_reqlog *lg_reqlog_open(struct lg_run_ctx *run, const char *path,
                                 const struct lg_driver *drv, lg_reqlog_namer name);
/* error_class -1 marks an unfinished request. Called by the request's thread. */
void lg_reqlog_write(struct lg_reqlog *log, struct lg_client *c, const struct lg_req *r,
                     uint64_t done_ns, int error_class);
int lg_reqlog_flush(struct lg_reqlog *log);
int lg_reqlog_close(struct lg_reqlog *log);

#endif
