/* reportrun.h — one run as the report draws it: per level its exact counts,
 * errors by class, latency percentile curves (cold, warm, send lag) sampled
 * along HdrHistogram's 1/(1-p) axis, phase medians, the per-second series and
 * the watched trees. A document is read one metric at a time and each metric
 * is reduced at once, so memory follows its largest metric and the page
 * follows the number of levels, not the number of samples. */
#ifndef LOADGEN_STATS_REPORTRUN_H
#define LOADGEN_STATS_REPORTRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/report/reportmeta.h"

/* Points of a percentile curve: 1/(1-p) from 1 in steps of 10^(1/24) up to
 * the sample count (at most 10^6, six nines), and the sample count itself. */
#define REPORT_CURVE_STEPS_PER_DECADE 24
#define REPORT_CURVE_MAX_POINTS (6 * REPORT_CURVE_STEPS_PER_DECADE + 2)

enum report_curve_kind { REPORT_COLD, REPORT_WARM, REPORT_SEND_LAG, REPORT_CURVES };

struct report_curve {
    bool present;
    size_t n;
    double p50, p90, p99, p999, max; /* milliseconds */
    size_t points;
    double x[REPORT_CURVE_MAX_POINTS]; /* 1/(1-p) */
    double y[REPORT_CURVE_MAX_POINTS]; /* milliseconds */
};

enum report_phase { REPORT_CONNECT, REPORT_PROXY, REPORT_TLS, REPORT_TTFB, REPORT_PHASES };

enum report_count {
    REPORT_ATTEMPTS,
    REPORT_REQUESTS,
    REPORT_ERRORS,
    REPORT_UNFINISHED,
    REPORT_SCHEDULED,
    REPORT_UNSENT,
    REPORT_CONNECT_ATTEMPTS,
    REPORT_CONNECTIONS,
    REPORT_RECONNECTS,
    REPORT_TLS_RESUMED,
    REPORT_BYTES_RECEIVED,
    REPORT_COUNTS
};

struct report_error_class {
    char *name; /* "timeout" (errors.timeout) */
    double count;
};

/* A watched tree (component NULL) or one command inside it, over a level. */
struct report_watch {
    char *tree, *component;
    bool has_cpu, has_rss, has_pss, has_uss;
    double cpu_cores;     /* mean CPU seconds per second */
    double rss, pss, uss; /* medians over the level's seconds, bytes */
};

struct report_level {
    unsigned long clients;
    bool has_count[REPORT_COUNTS];
    double count[REPORT_COUNTS];
    struct report_error_class *classes;
    size_t n_classes;
    struct report_curve curves[REPORT_CURVES];
    bool has_phase[REPORT_PHASES];
    double phase_median_ms[REPORT_PHASES];
    double *rps, *eps; /* requests_per_second, errors_per_second (NULL when absent) */
    size_t rps_len, eps_len;
    double ran_s; /* how long the level ran (its ran_s), NAN when the document does not say */
    struct report_watch *watch;
    size_t n_watch;
};

struct report_run {
    char *path;
    struct report_level *levels; /* in the document's order: the order they ran */
    size_t n_levels;
    struct report_meta meta;
};

/* Reads the document at `path` and its descriptor: `meta_path`, or when it
 * is NULL the one beside it (X.json -> X.meta.json) if there is one. A
 * level's per-second timelines end with the last whole second it ran (as
 * report_level_seconds says): a document written before the generators
 * ended an interrupted level's series there has zeros past it. Returns
 * 0, or the docread status (DOCREAD_INVALID, DOCREAD_IO unreadable, DOCREAD_NO_MEMORY) with one
 * line naming the input in `error`. */
int report_run_read(const char *path, const char *meta_path, struct report_run *run, char *error,
                    size_t error_size);

void report_run_free(struct report_run *run);

const struct report_level *report_run_level(const struct report_run *run, unsigned long clients);

/* The level's mean requests per second (of its per-second timeline), NAN without one. */
double report_level_rps(const struct report_level *level);

/* How long the level ran, in seconds: the descriptor's, else the document's
 * ran_s, else its timeline's length; NAN when none says. */
double report_level_seconds(const struct report_run *run, const struct report_level *level);

/* Whether the level ran an open loop (it has `scheduled`). */
bool report_level_open_loop(const struct report_level *level);

/* Fills `curve` from n samples in milliseconds (sorts them). */
void report_curve_fill(struct report_curve *curve, double *samples, size_t n);

#endif
