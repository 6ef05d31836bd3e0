/* jsontext.h — the character rules of JSON text that both readers apply, the
 * streaming docread.c and the tree-building json.c: hex digits of \u escapes,
 * a code point written as UTF-8, and which bytes may follow a UTF-8 lead byte. */
#ifndef LOADGEN_STATS_JSONTEXT_H
#define LOADGEN_STATS_JSONTEXT_H

#include <stddef.h>

/* The value of a hex digit (0-9, a-f, A-F), or -1. */
int jsontext_hex_digit(int c);

/* Writes code point cp (at most 0x10FFFF) as UTF-8 into out and returns its
 * length, 1 to 4. */
size_t jsontext_utf8_encode(unsigned long cp, char out[4]);

/* For a byte from 0x80 up: how many continuation bytes follow it (1 to 3),
 * with [*low, *high] the range of the first of them (the others are
 * 0x80..0xbf), so that no overlong form, surrogate or code point beyond
 * U+10FFFF gets through (RFC 3629); 0 for a byte that cannot lead. */
int jsontext_utf8_continuations(int lead, int *low, int *high);

#endif
