/* htmlout.h — the words the report writes HTML and SVG with: text escaped for
 * both (the page is also well-formed XML, so a strict parser can check it), and
 * numbers formatted for people to read rather than for programs to parse. */
#ifndef LOADGEN_STATS_HTMLOUT_H
#define LOADGEN_STATS_HTMLOUT_H

#include <stddef.h>
#include <stdio.h>

/* Writes s with & < > " ' escaped: safe in element content and in attributes.
 * Each character XML 1.0 cannot hold, even as a character reference, becomes
 * '?': bytes below 0x20 other than tab and newline, U+FFFE and U+FFFF, and
 * each byte that is not part of a whole UTF-8 character. */
void html_text(FILE *out, const char *s);

/* printf, then html_text of the result (at most 1023 bytes). */
void html_printf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define HTML_NUMBER_MAX 48

/* An integer-valued count with thousands separators: "1,234,567" (from 1e15
 * up as html_value writes it). */
const char *html_count(double x, char buf[HTML_NUMBER_MAX]);

/* A measured value with about three significant digits, thousands separated
 * from 1,000 up: "12,345", "123", "12.3", "1.23", "0.0123"; "0" for zero;
 * from 1e15 up with an exponent, "1.6e+308". */
const char *html_value(double x, char buf[HTML_NUMBER_MAX]);

/* Bytes in binary units: "512 B", "12.3 KiB", "1.50 GiB". */
const char *html_bytes(double x, char buf[HTML_NUMBER_MAX]);

/* A number in an SVG attribute: one decimal, no exponent ("12.5"). */
const char *html_coord(double x, char buf[HTML_NUMBER_MAX]);

#endif
