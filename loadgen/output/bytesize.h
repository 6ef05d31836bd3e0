/* A byte count as a person reads it: "512 B", "45.4 KiB", "219.4 MiB"
 * (binary units, one decimal, as loadstats shows them), for the summary and
 * the preflight's lines; documents keep exact counts. */
#ifndef LOADGEN_BYTESIZE_H
#define LOADGEN_BYTESIZE_H

#include <stddef.h>

void lg_format_bytes(double bytes, char *buf, size_t len);

#endif
