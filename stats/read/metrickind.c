/* metrickind.c — lookups in the table of metric kinds (see metrickind.h and
 * metrickinds.def). */
#include "stats/read/metrickind.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

enum worse { HIGHER, LOWER, NEITHER };
enum presence { ALWAYS, SOMETIMES };
enum tally { WHOLE, PART };

struct row {
    const char *pattern, *unit;
    enum stats_metric_kind kind;
    enum worse worse;
    enum presence presence;
    enum tally tally;
};

static const struct row table[] = {
#define METRIC(pattern, unit, kind, worse, presence, tally)                                        \
    {pattern, unit, STATS_KIND_##kind, worse, presence, tally},
#include "stats/read/metrickinds.def"
#undef METRIC
};

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

/* '*' matches any run of characters, dots included (glob without classes). */
static bool matches(const char *pattern, const char *name)
{
    const char *star = NULL, *resume = NULL;
    while (*name) {
        if (*pattern == '*') {
            star = pattern++;
            resume = name;
        } else if (*pattern == *name) {
            pattern++;
            name++;
        } else if (star) {
            pattern = star + 1;
            name = ++resume;
        } else {
            return false;
        }
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == '\0';
}

/* Past the "shard<K>." and "input<K>." a merge puts before gauges it keeps apart. */
static const char *without_parts(const char *metric)
{
    for (;;) {
        const char *p = metric;
        if (strncmp(p, "shard", 5) == 0)
            p += 5;
        else if (strncmp(p, "input", 5) == 0)
            p += 5;
        else
            return metric;
        if (*p < '0' || *p > '9') return metric;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p != '.' || p[1] == '\0') return metric;
        metric = p + 1;
    }
}

static const struct row *lookup(const char *key, enum stats_unit unit)
{
    const char *metric = without_parts(stats_key_metric(key));
    const char *unit_name = stats_unit_name(unit);
    size_t last = sizeof table / sizeof *table - 1;
    for (size_t i = 0; i < last; i++)
        if ((strcmp(table[i].unit, "*") == 0 || strcmp(table[i].unit, unit_name) == 0) &&
            matches(table[i].pattern, metric))
            return &table[i];
    return &table[last]; /* "*", "*": anything else is samples */
}

void stats_metric_info(const char *key, enum stats_unit unit, struct stats_metric_info *out)
{
    const struct row *row = lookup(key, unit);
    out->kind = row->kind;
    out->lower_is_worse = row->worse == LOWER;
    out->directionless = row->worse == NEITHER;
    out->always = row->presence == ALWAYS;
    out->part = row->tally == PART;
}

enum stats_metric_kind stats_metric_kind(const char *key, enum stats_unit unit)
{
    return lookup(key, unit)->kind;
}

const char *stats_metric_kind_name(enum stats_metric_kind kind)
{
    switch (kind) {
    case STATS_KIND_COUNT:
        return "count";
    case STATS_KIND_TIMELINE:
        return "timeline";
    case STATS_KIND_GAUGE:
        return "gauge";
    case STATS_KIND_SPAN:
        return "span";
    default:
        return "samples";
    }
}

const char *stats_metric_unit_name(const char *metric)
{
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strcmp(table[i].unit, "*") != 0 && matches(table[i].pattern, metric))
            return table[i].unit;
    return NULL;
}

int stats_gauge_key(const char *key, const char *part, char *out, size_t size)
{
    unsigned long clients;
    const char *metric;
    int n = stats_key_level(key, &clients, &metric)
                ? snprintf(out, size, "c%lu.%s.%s", clients, part, metric)
                : snprintf(out, size, "%s.%s", part, key);
    return n >= 0 && (size_t)n < size ? n : -1;
}
