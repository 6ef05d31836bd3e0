/* units.h — the units a collector document may name, and what each one means
 * for a comparison (which direction is worse, the time floor) and for display. */
#ifndef LOADGEN_STATS_UNITS_H
#define LOADGEN_STATS_UNITS_H

#include <stdbool.h>
#include <stddef.h>

enum stats_unit {
    STATS_UNIT_SECONDS,
    STATS_UNIT_MILLISECONDS,
    STATS_UNIT_NANOSECONDS,
    STATS_UNIT_BYTES,
    STATS_UNIT_MEGABYTES,
    STATS_UNIT_REQUESTS_PER_SECOND,
    STATS_UNIT_MEGABITS_PER_SECOND,
    STATS_UNIT_OPERATIONS,
    STATS_UNIT_RATIO,
    STATS_UNIT_COUNT,
};
#define STATS_UNITS ((int)STATS_UNIT_COUNT + 1)

/* Looks up a unit by its document name (len bytes, not NUL-terminated).
 * Returns 0 and sets *out, or -1 for a name that is not a unit. */
int stats_unit_parse(const char *name, size_t len, enum stats_unit *out);

/* The name as written in documents ("milliseconds"). */
const char *stats_unit_name(enum stats_unit unit);

/* A short label for tables and plot axes ("ms", "req/s"). */
const char *stats_unit_symbol(enum stats_unit unit);

/* "seconds, milliseconds, ..." for error messages. */
const char *stats_unit_list(void);

/* seconds, milliseconds, nanoseconds. */
bool stats_unit_is_time(enum stats_unit unit);

/* Rates are per-second timelines: lower is worse, and merging sums them. */
bool stats_unit_is_rate(enum stats_unit unit);

/* A duration in milliseconds expressed in a time unit (0 for other units). */
double stats_unit_from_ms(enum stats_unit unit, double ms);

/* A unit to show values of `unit` in, for people: times in ns, µs, ms or s
 * and bytes in B, KiB, MiB, GiB or TiB, the largest in which `reference`
 * (a row's median, say) is still 1 or more; other units, and a reference of
 * 0 or not finite, as they are. Shown value = value × factor. */
struct stats_display_unit {
    const char *symbol;
    double factor;
};
struct stats_display_unit stats_unit_display(enum stats_unit unit, double reference);

#endif
