/* metrickind.c — the kind of a metric (see metrickind.h). */
#include "stats/metrickind.h"

#include <limits.h>
#include <string.h>

bool stats_key_level(const char *key, unsigned long *clients, const char **metric)
{
    if (key[0] != 'c' || key[1] < '0' || key[1] > '9') return false;
    unsigned long value = 0;
    const char *p = key + 1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (value > (ULONG_MAX - 9) / 10) return false;
        value = value * 10 + (unsigned long)(*p - '0');
    }
    if (*p != '.' || p[1] == '\0') return false;
    *clients = value;
    *metric = p + 1;
    return true;
}

const char *stats_key_metric(const char *key)
{
    unsigned long clients;
    const char *metric;
    return stats_key_level(key, &clients, &metric) ? metric : key;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool stats_metric_is_gauge(const char *key)
{
    const char *metric = stats_key_metric(key);
    return starts_with(metric, "watch.") || starts_with(metric, "generator_") ||
           strcmp(metric, "loop_lag_ms") == 0;
}

enum stats_metric_kind stats_metric_kind(const char *key, enum stats_unit unit)
{
    const char *metric = stats_key_metric(key);
    if (stats_unit_is_rate(unit)) return STATS_KIND_TIMELINE;
    if (stats_metric_is_gauge(key)) return STATS_KIND_SAMPLES;
    /* one count per client: a distribution, pooled like samples */
    if (strcmp(metric, "client_attempts") == 0) return STATS_KIND_SAMPLES;
    if (unit == STATS_UNIT_COUNT || unit == STATS_UNIT_OPERATIONS) return STATS_KIND_COUNT;
    if (unit == STATS_UNIT_BYTES && strcmp(metric, "bytes_received") == 0) return STATS_KIND_COUNT;
    return STATS_KIND_SAMPLES;
}

const char *stats_metric_kind_name(enum stats_metric_kind kind)
{
    switch (kind) {
    case STATS_KIND_COUNT:
        return "count";
    case STATS_KIND_TIMELINE:
        return "timeline";
    default:
        return "samples";
    }
}
