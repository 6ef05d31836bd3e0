/* The document on stdout when stdout is a pipe, made safe for a harness that
 * waits for the tool to exit before it reads: once nobody has read the pipe
 * for LG_PIPE_STALL_MS, the pipe is grown to hold the rest, or, when it
 * cannot be made that large, a child process keeps the write end and writes
 * the rest within a time bound while this process exits with its status (or,
 * when no child can be had, exits leaving what fitted, and says so). A
 * reader that reads while the tool runs never meets either. */
#ifndef LOADGEN_PIPEDOC_H
#define LOADGEN_PIPEDOC_H

#include <stddef.h>
#include <stdint.h>

struct lg_level_result;

/* A reader that takes nothing for this long reads only after the exit. */
#define LG_PIPE_STALL_MS 100
/* The most a pipe is grown to. Pipe pages are kernel memory held until the
 * reader takes them; a process without CAP_SYS_RESOURCE stops earlier, at
 * /proc/sys/fs/pipe-max-size (1 MiB by default). */
#define LG_PIPE_GROW_MAX (64 << 20)
/* How long the child may take to write the rest, unless
 * LOADGEN_HANDOFF_TIMEOUT says otherwise. */
#define LG_HANDOFF_DEFAULT_S 60

/* The hand-off's time bound in nanoseconds, from LOADGEN_HANDOFF_TIMEOUT (a
 * duration as --duration takes it) or the default; -1 after one line on
 * stderr naming the variable when its value is not a duration. */
int lg_pipedoc_bound(const char *tool, uint64_t *bound_ns);

/* What lg_pipedoc_write returns when stdout was left with part of the
 * document (no process could take the rest over), which stderr has said. */
#define LG_PIPEDOC_INCOMPLETE (-2)

/* Writes the document to stdout, as lg_results_write does when stdout is
 * not a pipe: 0, -1 with errno, or LG_PIPEDOC_INCOMPLETE. The child that
 * takes the rest over never returns: it exits, 0 when the document went out
 * whole, 1 after a line on stderr saying how much of it did. */
int lg_pipedoc_write(const struct lg_level_result *levels, size_t n_levels, const char *tool,
                     uint64_t bound_ns);

#endif
