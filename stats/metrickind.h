/* metrickind.h — what a metric is, by its name and unit: an exact count (one
 * sample per level, added across generators), a per-second timeline (added
 * second by second), or a set of samples (pooled). merge and export decide by
 * this one table, so a count is summed and exported as a counter alike. */
#ifndef LOADGEN_STATS_METRICKIND_H
#define LOADGEN_STATS_METRICKIND_H

#include <stdbool.h>

#include "stats/units.h"

enum stats_metric_kind {
    STATS_KIND_COUNT,    /* attempts, requests, errors.<class>, rcode.<NAME>, bytes_received ... */
    STATS_KIND_TIMELINE, /* requests_per_second, megabits_per_second: one sample per second */
    STATS_KIND_SAMPLES,  /* latencies, phases, per-second gauges (generator_*, watch.*) */
};

/* Splits "c64.latency_warm_ms" into 64 and "latency_warm_ms"; false for a key
 * without a c<N>. level prefix, or with an N near or beyond ULONG_MAX. */
bool stats_key_level(const char *key, unsigned long *clients, const char **metric);

/* The metric part of a key: "latency_warm_ms" for "c64.latency_warm_ms"; the
 * whole key when it has no level (as stats_key_level decides). */
const char *stats_key_metric(const char *key);

/* The kind of a metric key with its document unit:
 *   - a rate unit (requests_per_second, megabits_per_second) is a timeline;
 *   - the generators' per-second gauges (generator_*, loop_lag_ms, watch.*) are samples,
 *     whatever their unit (watch.<NAME>.fds is a count per second);
 *   - any other count or operations metric is an exact count, and so is bytes_received;
 *   - everything else is samples. */
enum stats_metric_kind stats_metric_kind(const char *key, enum stats_unit unit);

const char *stats_metric_kind_name(enum stats_metric_kind kind);

/* A per-second gauge series of the generator (generator_*, loop_lag_ms,
 * watch.*): samples of a state over time, taken when they can be, so a
 * document may lack one without anything being wrong. */
bool stats_metric_is_gauge(const char *key);

#endif
