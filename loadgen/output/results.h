/* A level's results as named metrics (the collector document's vocabulary),
 * built by merging the workers' stores after the level, and the writer of the
 * one document on stdout. */
#ifndef LOADGEN_RESULTS_H
#define LOADGEN_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loadgen/engine.h"

struct lg_metric {
    char *name;       /* without the c<N>. prefix */
    const char *unit; /* milliseconds, seconds, bytes, count, requests_per_second, ratio */
    double *v;        /* the samples; NULL for a per-request series, which has ns */
    uint64_t *ns;     /* a per-request series: nanoseconds, written as milliseconds */
    size_t n;
    uint64_t seen; /* more than n when the reservoir kept a subset */
};

struct lg_level_result {
    unsigned clients;       /* the level's, across all shards: its key c<clients> */
    unsigned shard_clients; /* this process's share */
    uint64_t requested_start_ns,
        actual_start_ns; /* wall clock; requested is 0 without --start-at */
    struct lg_metric *m;
    size_t n, cap;
    uint64_t attempts, requests, errors, unfinished;
    uint64_t scheduled, unsent; /* open loop */
    unsigned idle_clients;      /* clients that made no attempt */
    double seconds;             /* how long the level ran until its deadline */
    bool interrupted;           /* a signal stopped the run */
    /* --fail-fast ended the run at this level (nothing succeeded in its
     * first second), and its loops were stopped before the deadline
     * (stopped: by a signal or by --fail-fast) */
    bool failed_fast, stopped;
    const char *transport; /* how the level's bytes moved (its loops' transport's name) */
    bool peer_limited;     /* a server allowed fewer requests at once than the slots */
    unsigned peer_limit;   /* the smallest limit a server gave, when peer_limited */
    /* --tls-resume was given: handshakes of clients' later connections, those
     * that offered a resumable session, and those the server resumed */
    bool tls_resume;
    uint64_t tls_rehandshakes, tls_sessions_offered, tls_resumed;
    /* established connections per protocol the driver names (its
     * protocol_names, n_protocols of them; none: it names none) */
    const char *const *protocol_names;
    unsigned n_protocols;
    uint64_t protocols[LG_MAX_PROTOCOLS];
    char **error_detail; /* per class, first reason seen */
    /* the self-watch's verdict (selfwatch.c), for --meta: the busiest event
     * loop's shares of the level, running and waiting for a CPU (waiting < 0:
     * the kernel keeps no schedstats), and the loops' 1 s ticks' lateness */
    struct lg_self_watch {
        bool measured; /* false: no loop ran this level */
        bool limited;  /* stderr said the generator limited this measurement */
        unsigned thread, threads;
        double on_cpu, waiting;
        double tick_lag_p99_ms, tick_lag_max_ms;
        /* the largest share of the level a loop slept while work it had
         * handed the kernel waited for it, and which loop (wakewatch.h);
         * asleep_on_work < 0: its transport cannot tell */
        double asleep_on_work;
        unsigned asleep_thread;
    } self_watch;
};

/* Appends a metric; takes ownership of v (malloc'd). Returns -1 on no memory. */
int lg_result_add(struct lg_level_result *r, const char *name, const char *unit, double *v,
                  size_t n, uint64_t seen);
int lg_result_add_count(struct lg_level_result *r, const char *name, uint64_t count);
/* Appends a series with one sample per request, durations in nanoseconds
 * (the one kind --max-doc-bytes may cut to a uniform subset); takes
 * ownership of ns. */
int lg_result_add_series(struct lg_level_result *r, const char *name, uint64_t *ns, size_t n,
                         uint64_t seen);
/* Sample i of a metric as the document shows it. */
static inline double lg_metric_value(const struct lg_metric *m, size_t i)
{
    return m->ns ? (double)m->ns[i] / 1e6 : m->v[i];
}
const struct lg_metric *lg_result_find(const struct lg_level_result *r, const char *name);
void lg_result_free(struct lg_level_result *r, unsigned n_classes);

/* Writes {"metrics": {...}} for every level to fd. Returns -1 if writing
 * failed; *bytes (may be NULL) gets the document's length. */
int lg_results_write(int fd, const struct lg_level_result *levels, size_t n_levels, size_t *bytes);
/* The same into a writer the caller opened (and closes); it stops early
 * once the writer failed or was stopped. */
struct lg_jsonout;
void lg_results_write_to(struct lg_jsonout *o, const struct lg_level_result *levels,
                         size_t n_levels);
/* The document's length in bytes, formatted but written nowhere (SIZE_MAX
 * when memory ran out). */
size_t lg_results_size(const struct lg_level_result *levels, size_t n_levels);

#endif
