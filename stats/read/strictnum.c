/* strictnum.c — serde_json's default reading of a JSON number, replayed to
 * see whether it overflows (see strictnum.h). It follows serde_json's
 * parse_integer, parse_long_integer, parse_decimal(_overflow),
 * parse_exponent(_overflow) and f64_from_parts step by step, in the same
 * IEEE double arithmetic, so it overflows exactly where they do. */
#include "stats/read/strictnum.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* serde_json's overflow!(a * 10 + digit, max) */
static bool grows_past(uint64_t a, unsigned digit, uint64_t max)
{
    return a >= max / 10 && (a > max / 10 || digit > max % 10);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

bool strictnum_out_of_range(const char *s, size_t len)
{
    const char *p = s, *end = s + len;
    if (p < end && *p == '-') p++;
    uint64_t significand = 0;
    int64_t exponent = 0;
    bool is_float = false, dropping = false;
    /* the integer part: digits past what a u64 holds only count as powers of ten */
    for (; p < end && is_digit(*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (!dropping && grows_past(significand, d, UINT64_MAX)) dropping = is_float = true;
        if (dropping)
            exponent++;
        else
            significand = significand * 10 + d;
    }
    /* the fraction: digits past what a u64 holds are dropped */
    if (p < end && *p == '.') {
        is_float = true;
        dropping = false;
        for (p++; p < end && is_digit(*p); p++) {
            unsigned d = (unsigned)(*p - '0');
            if (!dropping && grows_past(significand, d, UINT64_MAX)) dropping = true;
            if (!dropping) {
                significand = significand * 10 + d;
                exponent--;
            }
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        is_float = true;
        p++;
        bool negative = p < end && *p == '-';
        if (p < end && (*p == '-' || *p == '+')) p++;
        uint64_t e = 0;
        for (; p < end && is_digit(*p); p++) {
            unsigned d = (unsigned)(*p - '0');
            /* an exponent past i32: infinity unless it is 0 or negative */
            if (grows_past(e, d, INT32_MAX)) return significand != 0 && !negative;
            e = e * 10 + d;
        }
        exponent += negative ? -(int64_t)e : (int64_t)e;
    }
    if (!is_float) return false; /* an integer that fits a u64 (or i64) */
    /* f64_from_parts: a division never overflows; beyond 1e308, anything
     * but zero does */
    if (exponent < 0) return false;
    if (exponent > 308) return significand != 0;
    char pow[8];
    snprintf(pow, sizeof(pow), "1e%d", (int)exponent);
    /* strtod rounds correctly, as Rust does the literals of serde_json's table */
    volatile double f = (double)significand * strtod(pow, NULL);
    return isinf(f);
}
