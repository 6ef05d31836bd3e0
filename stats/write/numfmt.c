/* numfmt.c — shortest-enough round-trip formatting of doubles (see numfmt.h).
 * Collector samples are mostly short decimals (0.412, 1536): those take a fast
 * path without printf; everything else tries %.15g, %.16g, %.17g in turn. */
#include "stats/write/numfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double powers_of_ten[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
#define EXACT_INTEGER_LIMIT 9007199254740992.0 /* 2^53 */

/* digits of v with a decimal point before the last `decimals` of them */
static size_t write_scaled(uint64_t v, int decimals, int negative, char *buf)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n <= decimals)
        digits[n++] = '0'; /* at least one digit before the point */

    size_t len = 0;
    if (negative) buf[len++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        buf[len++] = digits[i];
        if (i == decimals && decimals > 0) buf[len++] = '.';
    }
    if (decimals > 0) {
        while (buf[len - 1] == '0')
            len--;
        if (buf[len - 1] == '.') len--;
    }
    buf[len] = '\0';
    return len;
}

size_t stats_format_double(double x, char *buf)
{
    if (!isfinite(x)) {
        memcpy(buf, "null", 5);
        return 4;
    }
    if (x == 0.0) {
        strcpy(buf, signbit(x) ? "-0" : "0");
        return strlen(buf);
    }
    double magnitude = fabs(x);
    /* r / 10^k with both operands exact is the correctly rounded value of the
     * decimal r·10^-k, which is also what strtod reads from that decimal: so
     * when the quotient equals x, the decimal round-trips. */
    if (magnitude < EXACT_INTEGER_LIMIT) {
        for (int k = 0; k < (int)(sizeof powers_of_ten / sizeof *powers_of_ten); k++) {
            double scaled = magnitude * powers_of_ten[k];
            if (scaled >= EXACT_INTEGER_LIMIT) break;
            double r = nearbyint(scaled);
            if (r / powers_of_ten[k] == magnitude) return write_scaled((uint64_t)r, k, x < 0, buf);
        }
    }
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(buf, STATS_NUMBER_MAX, "%.*g", precision, x);
        if (strtod(buf, NULL) == x) break;
    }
    return strlen(buf);
}

const char *stats_format_fixed(double x, int decimals, bool sign, char buf[STATS_FIXED_MAX])
{
    const char *format = fabs(x) >= 1e15 ? (sign ? "%+.*e" : "%.*e") : (sign ? "%+.*f" : "%.*f");
    snprintf(buf, STATS_FIXED_MAX, format, decimals, x);
    return buf;
}
