/* strictnum.h — the JSON numbers the harness's reader refuses as out of
 * range although strtod reads them as finite. The harness reads collector
 * documents with serde_json, whose default number parser (without its
 * float_roundtrip feature) turns a decimal number into its first 19 or 20
 * significant digits as a double, times or divided by a power of ten; near
 * the top of the double range that product overflows where a correctly
 * rounded reading does not, and serde_json refuses the number ("number out
 * of range"): 1.7976931348623158e308, which strtod reads as DBL_MAX, is one. */
#ifndef LOADGEN_STATS_STRICTNUM_H
#define LOADGEN_STATS_STRICTNUM_H

#include <stdbool.h>
#include <stddef.h>

/* Whether serde_json's default parser reads the JSON number s (len bytes of
 * valid JSON number syntax) as infinite and so refuses it. Only numbers of
 * magnitude 1e308 and above can be; callers may skip the others. */
bool strictnum_out_of_range(const char *s, size_t len);

#endif
