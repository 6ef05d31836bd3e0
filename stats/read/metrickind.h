/* metrickind.h — what a metric is, looked up in the one table of metric kinds
 * (stats/read/metrickinds.def): an exact count, per-request samples, a per-second
 * timeline, a gauge or how long the level ran, which direction is worse (if
 * either), whether a document may lack it, whether it is a part of another
 * row's quantity, and the unit the generators write it in. merge, export,
 * compare and summary decide by it, and so do the generators and the tests'
 * checkers. */
#ifndef LOADGEN_STATS_METRICKIND_H
#define LOADGEN_STATS_METRICKIND_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/read/units.h"

enum stats_metric_kind {
    STATS_KIND_COUNT,    /* attempts, requests, errors.<class>, rcode.<NAME>, bytes_received ... */
    STATS_KIND_TIMELINE, /* requests_per_second, generator_cpu_s: one value per second */
    STATS_KIND_SAMPLES,  /* latencies and phases: one sample per request or connection */
    STATS_KIND_GAUGE,    /* generator_rss_bytes, loop_lag_ms, watch.*_bytes: a state per second */
    STATS_KIND_SPAN,     /* ran_s: how long the level ran, one value per level */
};

/* What the table says of one metric. */
struct stats_metric_info {
    enum stats_metric_kind kind;
    bool lower_is_worse; /* rates and counts of work done; otherwise higher is worse */
    bool directionless;  /* neither is worse: which is better depends on the change */
    bool always;         /* a document of the same test has it (merge warns when one lacks it) */
    bool part;           /* a part of what another row measures (a command of a watched tree) */
};

/* Splits "c64.latency_warm_ms" into 64 and "latency_warm_ms"; false for a key
 * without a c<N>. level prefix, or with an N near or beyond ULONG_MAX. */
bool stats_key_level(const char *key, unsigned long *clients, const char **metric);

/* The metric part of a key: "latency_warm_ms" for "c64.latency_warm_ms"; the
 * whole key when it has no level (as stats_key_level decides). */
const char *stats_key_metric(const char *key);

/* The table's row for a key in its document unit: the first whose pattern
 * matches the metric (its shard<K>. or input<K>. prefixes, which a merge gives
 * gauges kept apart, set aside) and whose unit is the same or "*". */
void stats_metric_info(const char *key, enum stats_unit unit, struct stats_metric_info *out);

/* The kind alone. */
enum stats_metric_kind stats_metric_kind(const char *key, enum stats_unit unit);

/* "count", "samples", "timeline", "gauge", "span". */
const char *stats_metric_kind_name(enum stats_metric_kind kind);

/* The unit the generators write a metric in (its name without a level,
 * "bytes_received"), from the first row naming one: "bytes"; NULL when the
 * table names none. */
const char *stats_metric_unit_name(const char *metric);

/* Writes the key that document part `part` ("shard2", "input0") gives a gauge
 * kept apart: "c64.shard2.generator_rss_bytes" for "c64.generator_rss_bytes".
 * Returns the length, or -1 when it does not fit in `size`. */
int stats_gauge_key(const char *key, const char *part, char *out, size_t size);

#endif
