/* Is this machine fit to drive the load the options ask for? Every run
 * checks the cheap things (descriptors, ports, conntrack, memory, CPUs,
 * frequency, the timer floor, the clock, datagram receive buffers: a few
 * milliseconds and a 15 ms timer burst) and keeps the result for --meta;
 * --preflight adds strays over a window and one probe of the target, prints
 * every check (one short line each; --verbose adds its details) and exits.
 * Each check is ok, warn (the run works, its numbers may suffer) or unfit
 * (the run cannot do what was asked). */
#ifndef LOADGEN_PREFLIGHT_H
#define LOADGEN_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loadgen/preflight/churnprobe.h"
#include "loadgen/preflight/machine.h"
#include "loadgen/preflight/timerfloor.h"

struct lg_config;
struct lg_driver;
struct lg_target;
struct lg_jsonout;

enum lg_verdict { LG_FIT_OK, LG_FIT_WARN, LG_FIT_UNFIT };

struct lg_check {
    const char *name; /* "descriptors", "ports", ... */
    enum lg_verdict verdict;
    /* the line a person reads, after the verdict: "FIGURE; needs NEED",
     * and "; fix: FIX" unless ok, short enough that the whole line stays
     * under LG_CHECK_LINE_MAX characters */
    char brief[256];
    /* the details (--verbose, --meta) */
    char found[400];  /* what the machine has */
    char needed[400]; /* what the options need of it */
    char todo[400];   /* what to do about it ("nothing" when ok) */
};

/* Every line the preflight prints is shorter than this: a terminal's
 * width, not a paragraph. */
#define LG_CHECK_LINE_MAX 120

#define LG_MAX_CHECKS 12

struct lg_fitness {
    bool full; /* --preflight: strays and the probe too */
    struct lg_machine machine;
    struct lg_timer_floor timer;
    struct lg_check checks[LG_MAX_CHECKS];
    size_t n_checks;
    unsigned n_unfit, n_warn;
    double took_s; /* the checks' wall time */
    /* run when the closed loop churns connections (--conn-requests without
     * --rate): how many one event loop can open here */
    bool churn_probed;
    struct lg_churn_probe churn;
};

/* --preflight: runs every check, prints one line each on stderr, sends at
 * most one probe; LG_EXIT_OK when fit, LG_EXIT_UNFIT when not. */
int lg_preflight_main(const struct lg_config *cfg, const struct lg_driver *drv,
                      const struct lg_target *tgt);
/* Before a run: the cheap checks into *result (the run context's, for
 * --meta), a line on stderr for each unfit one and for a clock that
 * --start-at or --shard needs and is not synchronized; -1 when one is unfit
 * and --require-fit was given. */
int lg_preflight_before_run(struct lg_fitness *result, const struct lg_config *cfg,
                            const struct lg_driver *drv, const struct lg_target *tgt);

const char *lg_verdict_name(enum lg_verdict v);

/* The descriptors a run of `clients` (its largest level's share) needs:
 * one per client, 4 per event loop, one per --watch tree, 16 more (stdio,
 * the control thread's, --output, --meta, --log, /proc reads). The
 * descriptor check judges it, and a run raises its soft limit to it. */
uint64_t lg_descriptors_needed(unsigned clients, unsigned threads, unsigned watches);

/* A check's line, "TOOL: preflight NAME: VERDICT; BRIEF", into buf (at
 * least LG_CHECK_LINE_MAX bytes), cut with "..." should it not fit. */
void lg_check_line(const char *tool, const struct lg_check *c, char *buf, size_t len);
/* Prints it on stderr; with verbose, the found, needs and to-do details
 * beneath it, each wrapped under LG_CHECK_LINE_MAX characters. */
void lg_check_print(const char *tool, const struct lg_check *c, bool verbose);

/* Writes the "machine" and "preflight" members (each preceded by ",\n  ")
 * of --meta from the checks of this run; nothing when f is NULL (they did
 * not run). */
void lg_preflight_write_meta(struct lg_jsonout *o, const struct lg_fitness *f);

#endif
