/* Byte counts in binary units. See bytesize.h. */
#include "loadgen/output/bytesize.h"

#include <stdio.h>

void lg_format_bytes(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
}
