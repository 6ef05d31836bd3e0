/* numfmt.h — writing a double as the short decimal that reads back as the same
 * double, so 0.1 prints as 0.1 and a merged document keeps every sample exact. */
#ifndef LOADGEN_STATS_NUMFMT_H
#define LOADGEN_STATS_NUMFMT_H

#include <stddef.h>

#define STATS_NUMBER_MAX 40

/* Writes x into buf (at least STATS_NUMBER_MAX bytes) as JSON and returns the
 * length. Non-finite values, which documents never hold, are written as null. */
size_t stats_format_double(double x, char *buf);

#endif
