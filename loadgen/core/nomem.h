/* Memory running out before a run starts: how a parser says so (its own
 * return value and reason, so the caller can tell it from bad input), and
 * the one way a tool then reports it: one line, exit status 4, never the
 * usage error (status 2) the input's fault would be. */
#ifndef LOADGEN_NOMEM_H
#define LOADGEN_NOMEM_H

/* What a parser returns, and the reason it gives, when an allocation
 * failed. */
enum { LG_NO_MEMORY = -2 };
extern const char lg_no_memory[];

/* A failed call's errno as a reason: lg_no_memory for ENOMEM (the memory,
 * not the input, was at fault), else strerror's text. */
const char *lg_errno_why(int err);

/* Prints "<tool>: out of memory <doing>" to stderr and exits with status 4
 * (the run could not be carried out). */
__attribute__((noreturn)) void lg_out_of_memory(const char *tool, const char *doing);
/* Prints "<tool>: <why>" to stderr and exits with status 4: the run cannot
 * be carried out for a reason that is not the input's (a library that
 * cannot do what it must). */
__attribute__((noreturn)) void lg_cannot_run(const char *tool, const char *why);

#endif
