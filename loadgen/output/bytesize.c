/* Byte counts in binary units. See bytesize.h. */
#include "loadgen/output/bytesize.h"
#include "stats/read/units.h"

#include <stdio.h>

void lg_format_bytes(double bytes, char *buf, size_t len)
{
    /* the unit loadstats shows bytes in, so both say a size the same way */
    struct stats_display_unit u = stats_unit_display(STATS_UNIT_BYTES, bytes);
    snprintf(buf, len, u.factor == 1.0 ? "%.0f %s" : "%.1f %s", bytes * u.factor, u.symbol);
}
