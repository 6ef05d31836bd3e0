/* openmetrics.h — collector documents as OpenMetrics text: exact counts become
 * counters, everything else a summary whose quantiles are loadstats' own
 * (rank q·(n−1), interpolated, unrounded), one family per metric with the
 * level as a label (clients="64"), ending in # EOF. */
#ifndef LOADGEN_STATS_OPENMETRICS_H
#define LOADGEN_STATS_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stats/read/keyindex.h"
#include "stats/read/metrickind.h"
#include "stats/read/units.h"

#define STATS_OM_QUANTILES 7 /* 0, 0.5, 0.9, 0.95, 0.99, 0.999, 1 */

/* One level of one metric. */
struct stats_om_series {
    bool has_level;
    unsigned long clients;
    double value;                         /* a counter's total */
    double quantiles[STATS_OM_QUANTILES]; /* a summary's */
    double sum;
    bool has_sum; /* left out when samples are negative (OpenMetrics sums are not) or
                     their sum overflows a double */
    size_t count;
};

struct stats_om_family {
    char *name;   /* loadgen_<metric>, sanitized; a counter's samples add _total */
    char *metric; /* the metric as the document names it */
    enum stats_unit unit;
    bool counter;
    struct stats_om_series *series;
    size_t count, cap;
};

struct stats_om {
    struct keyindex names;    /* family names, parallel to families */
    struct keyindex reserved; /* every sample name a family writes, to refuse clashes */
    struct stats_om_family *families;
    size_t cap;
};

void stats_om_init(struct stats_om *om);
void stats_om_free(struct stats_om *om);

/* Adds metric `key` (reorders `samples`). Returns 0, or -1 with a reason: two
 * metrics whose names sanitize alike, a metric whose unit or kind differs
 * between levels, a count with other than one non-negative sample, a name too
 * long; or -2 when memory ran out (`error` says for what). */
int stats_om_add(struct stats_om *om, const char *key, enum stats_unit unit, double *samples,
                 size_t n, char *error, size_t error_size);

/* The quantile levels of a summary, as written in its quantile labels. */
extern const double stats_om_quantile_levels[STATS_OM_QUANTILES];

void stats_om_write(FILE *out, const struct stats_om *om);

#endif
