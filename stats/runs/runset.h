/* runset.h — several runs of one test (a comma-separated list of documents),
 * read metric by metric and reduced, per run, to what summary and compare
 * need: the run's summary, its statistic, and for the bootstrap the sorted
 * samples around that statistic's rank. Memory follows the largest metric of
 * one document plus a small window per run and metric, not the documents. */
#ifndef LOADGEN_STATS_RUNSET_H
#define LOADGEN_STATS_RUNSET_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/read/keyindex.h"
#include "stats/math/stats.h"
#include "stats/read/units.h"

/* The statistic a comparison is made on. */
enum stats_statistic {
    STATS_STAT_MEDIAN,
    STATS_STAT_P90,
    STATS_STAT_P99,
    STATS_STAT_MEAN,
};

/* "median", "p90", "p99", "mean". */
const char *stats_statistic_name(enum stats_statistic statistic);

/* 0 and *out for one of those names, -1 otherwise. */
int stats_statistic_parse(const char *name, enum stats_statistic *out);

/* One run's samples of one metric. */
struct stats_run_metric {
    bool present; /* the run has the metric (a count it lacks is 0: present) */
    size_t n;
    struct stats_summary summary; /* rounded as `loadstats summary` rounds */
    struct stats_summary exact;   /* the same unrounded (summary's table for people) */
    double value;                 /* the statistic, unrounded */
    double mean, stddev;          /* unrounded */
    /* The bootstrap's material: sorted samples [from, from + len) of the n,
     * all of them for a small run, else a window around the statistic's rank
     * (none for the mean of a large run, which the bootstrap takes as normal). */
    double *window;
    size_t from, len;
};

struct stats_runset_metric {
    enum stats_unit unit;
    struct stats_run_metric *runs; /* one per run */
    size_t present;                /* runs that have it */
};

struct stats_runset {
    size_t n_runs;
    char **paths;         /* as named in the list */
    struct keyindex keys; /* first-seen order over the runs */
    struct stats_runset_metric *metrics;
    size_t cap;
    enum stats_statistic statistic;
    bool windows;
};

/* Splits `list` at commas into *paths (malloc'd, each malloc'd); returns the
 * count, 0 for an empty name in the list, or -1 when memory runs out. */
long stats_runset_split(const char *list, char ***paths);

/* Reads each document of `list` (comma-separated; "-" is stdin) and reduces
 * it. With `windows`, keeps the bootstrap's material for `statistic`.
 * Returns 0; otherwise the docread status (DOCREAD_INVALID, DOCREAD_IO
 * unreadable, DOCREAD_NO_MEMORY) with one line in `error` naming the document. A metric whose unit
 * differs between runs is invalid. */
int stats_runset_read(struct stats_runset *set, const char *list, enum stats_statistic statistic,
                      bool windows, char *error, size_t error_size);

void stats_runset_free(struct stats_runset *set);

#endif
