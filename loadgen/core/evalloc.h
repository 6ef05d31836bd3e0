/* libev's allocator: memory running out inside an event loop fails the run
 * (lg_control_fail: exit status 4, no document) instead of libev's abort. */
#ifndef LOADGEN_EVALLOC_H
#define LOADGEN_EVALLOC_H

struct lg_run_ctx;

/* Installs it, before the first loop is made: memory running out fails
 * `run`; `tool` names the program in the one message printed if even the
 * reserve runs out. */
void lg_evalloc_install(struct lg_run_ctx *run, const char *tool);
/* `run` is ending: a later failure fails no run (none has loops then). */
void lg_evalloc_forget(struct lg_run_ctx *run);

#endif
