/* The hand-off of a document's rest to a child process (pipedoc.c's last
 * way): the child keeps the pipe's write end and writes the rest, already
 * formatted in memory, within a time bound, while the tool exits. It is a
 * fork of a threaded process, so it makes async-signal-safe calls only. */
#ifndef LOADGEN_HANDOFF_H
#define LOADGEN_HANDOFF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lg_handoff {
    const char *tool;
    uint64_t bound_ns; /* how long the child may take */
    int fd;            /* the pipe's write end, non-blocking */
    int shared_flags;  /* stdout's own flags to put back when fd is stdout, else -1 */
    const char *rest;  /* the document's bytes still to go out */
    size_t rest_len;
    size_t before; /* the document's bytes already in the pipe */
};

/* Forks the child that writes the rest: its pid, or -1 with errno. The
 * child never returns: it exits 0 when the document went out whole, or 1
 * after a line on stderr saying how much of it did (it gives up at the
 * bound, or when the reader closes the pipe). It ignores SIGINT and
 * SIGTERM, and an alarm a second past the bound ends it should a write
 * block all the same. */
pid_t lg_handoff_start(const struct lg_handoff *job);

#endif
