/* units.c — the unit table of the collector protocol (see units.h). */
#include "stats/units.h"

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
