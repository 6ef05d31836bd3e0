/* units.c — the unit table of the collector protocol (see units.h). */
#include "stats/read/units.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    const char *symbol;
} unit_table[STATS_UNITS] = {
    [STATS_UNIT_SECONDS] = {"seconds", "s"},
    [STATS_UNIT_MILLISECONDS] = {"milliseconds", "ms"},
    [STATS_UNIT_NANOSECONDS] = {"nanoseconds", "ns"},
    [STATS_UNIT_BYTES] = {"bytes", "B"},
    [STATS_UNIT_MEGABYTES] = {"megabytes", "MB"},
    [STATS_UNIT_REQUESTS_PER_SECOND] = {"requests_per_second", "req/s"},
    [STATS_UNIT_MEGABITS_PER_SECOND] = {"megabits_per_second", "Mbit/s"},
    [STATS_UNIT_OPERATIONS] = {"operations", "ops"},
    [STATS_UNIT_RATIO] = {"ratio", "ratio"},
    [STATS_UNIT_COUNT] = {"count", "count"},
};

int stats_unit_parse(const char *name, size_t len, enum stats_unit *out)
{
    for (int i = 0; i < STATS_UNITS; i++) {
        if (strlen(unit_table[i].name) == len && memcmp(unit_table[i].name, name, len) == 0) {
            *out = (enum stats_unit)i;
            return 0;
        }
    }
    return -1;
}

const char *stats_unit_name(enum stats_unit unit)
{
    return unit_table[unit].name;
}

const char *stats_unit_symbol(enum stats_unit unit)
{
    return unit_table[unit].symbol;
}

const char *stats_unit_list(void)
{
    return "seconds, milliseconds, nanoseconds, bytes, megabytes, requests_per_second, "
           "megabits_per_second, operations, ratio, count";
}

bool stats_unit_is_time(enum stats_unit unit)
{
    return unit == STATS_UNIT_SECONDS || unit == STATS_UNIT_MILLISECONDS ||
           unit == STATS_UNIT_NANOSECONDS;
}

bool stats_unit_is_rate(enum stats_unit unit)
{
    return unit == STATS_UNIT_REQUESTS_PER_SECOND || unit == STATS_UNIT_MEGABITS_PER_SECOND;
}

double stats_unit_from_ms(enum stats_unit unit, double ms)
{
    switch (unit) {
    case STATS_UNIT_SECONDS:
        return ms / 1000.0;
    case STATS_UNIT_MILLISECONDS:
        return ms;
    case STATS_UNIT_NANOSECONDS:
        return ms * 1000000.0;
    default:
        return 0.0;
    }
}

/* Scales of a kind of unit, largest first: how many of the smallest each is. */
struct scale {
    const char *symbol;
    double size;
};
static const struct scale time_scales[] = {{"s", 1e9}, {"ms", 1e6}, {"µs", 1e3}, {"ns", 1}};
static const struct scale byte_scales[] = {
    {"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0}, {"KiB", 1024.0}, {"B", 1}};

static struct stats_display_unit pick(const struct scale *scales, size_t n, double unit_size,
                                      double reference)
{
    double in_smallest = fabs(reference) * unit_size;
    size_t i = 0;
    while (i + 1 < n && in_smallest < scales[i].size)
        i++;
    return (struct stats_display_unit){scales[i].symbol, unit_size / scales[i].size};
}

struct stats_display_unit stats_unit_display(enum stats_unit unit, double reference)
{
    struct stats_display_unit as_is = {stats_unit_symbol(unit), 1.0};
    if (reference == 0.0 || !isfinite(reference)) return as_is;
    const size_t n_time = sizeof time_scales / sizeof *time_scales;
    switch (unit) {
    case STATS_UNIT_SECONDS:
        return pick(time_scales, n_time, 1e9, reference);
    case STATS_UNIT_MILLISECONDS:
        return pick(time_scales, n_time, 1e6, reference);
    case STATS_UNIT_NANOSECONDS:
        return pick(time_scales, n_time, 1, reference);
    case STATS_UNIT_BYTES:
        return pick(byte_scales, sizeof byte_scales / sizeof *byte_scales, 1, reference);
    default:
        return as_is;
    }
}
