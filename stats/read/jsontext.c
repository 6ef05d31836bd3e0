/* jsontext.c — the character rules of JSON text (see jsontext.h). */
#include "stats/read/jsontext.h"

int jsontext_hex_digit(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

size_t jsontext_utf8_encode(unsigned long cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

int jsontext_utf8_continuations(int lead, int *low, int *high)
{
    *low = 0x80;
    *high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) return 1;
    if (lead >= 0xe0 && lead <= 0xef) {
        if (lead == 0xe0) *low = 0xa0;  /* below: overlong */
        if (lead == 0xed) *high = 0x9f; /* above: surrogates */
        return 2;
    }
    if (lead >= 0xf0 && lead <= 0xf4) {
        if (lead == 0xf0) *low = 0x90;  /* below: overlong */
        if (lead == 0xf4) *high = 0x8f; /* above: beyond U+10FFFF */
        return 3;
    }
    return 0;
}
