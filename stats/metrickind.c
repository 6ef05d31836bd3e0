/* metrickind.c — the kind of a metric (see metrickind.h). */
#include "stats/metrickind.h"

#include <string.h>

const char *stats_key_metric(const char *key)
{
    if (key[0] != 'c' || key[1] < '0' || key[1] > '9') return key;
    const char *p = key + 1;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p == '.' && p[1] != '\0' ? p + 1 : key;
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
