/* numfmt.h — writing a double as the short decimal that reads back as the same
 * double, so 0.1 prints as 0.1 and a merged document keeps every sample exact;
 * and as a text table's cell with a fixed number of decimals, never cut short. */
#ifndef LOADGEN_STATS_NUMFMT_H
#define LOADGEN_STATS_NUMFMT_H

#include <stdbool.h>
#include <stddef.h>

#define STATS_NUMBER_MAX 40

/* Writes x into buf (at least STATS_NUMBER_MAX bytes) as JSON and returns the
 * length. Non-finite values, which documents never hold, are written as null. */
size_t stats_format_double(double x, char *buf);

#define STATS_FIXED_MAX 32

/* Writes x with `decimals` places (0..6) as "%.*f" does, with a + before a
 * positive value when `sign`; where that would take more than 15 digits
 * before the point (|x| >= 1e15) in exponent form with as many decimals
 * ("1.60e+308"), so that a cell of a table never truncates a number into
 * another. Non-finite values as printf writes them. Returns buf. */
const char *stats_format_fixed(double x, int decimals, bool sign, char buf[STATS_FIXED_MAX]);

#endif
