/* htmlout.c — escaping and people's numbers for the report (see htmlout.h). */
#include "stats/write/htmlout.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "stats/read/jsontext.h"

/* The length of the character at s, and whether XML 1.0 can hold it: no
 * control character but tab and newline, and neither U+FFFE nor U+FFFF; not
 * even a character reference may name the others, a parser refuses the
 * document. A byte that begins no whole UTF-8 character (text cut to fit a
 * buffer may end inside one) is a character of its own that XML cannot hold. */
static size_t next_character(const unsigned char *s, bool *allowed)
{
    *allowed = false;
    if (s[0] < 0x80) {
        *allowed = s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n';
        return 1;
    }
    int low, high, extra = jsontext_utf8_continuations(s[0], &low, &high);
    for (int i = 1; i <= extra; i++) /* stops at the NUL, which is no continuation */
        if (s[i] < (i == 1 ? low : 0x80) || s[i] > (i == 1 ? high : 0xbf)) return 1;
    if (extra == 0) return 1;
    *allowed = !(s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe);
    return (size_t)extra + 1;
}

void html_text(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        bool allowed;
        size_t len = next_character(p, &allowed);
        if (!allowed || len > 1) {
            if (allowed)
                fwrite(p, 1, len, out);
            else
                putc('?', out);
            p += len;
            continue;
        }
        switch (*p) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            putc(*p, out);
        }
        p++;
    }
}

void html_printf(FILE *out, const char *fmt, ...)
{
    char buf[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    html_text(out, buf);
}

/* Inserts a ',' every three digits of the integer part of the number in buf. */
static const char *group_thousands(char *buf)
{
    char *digits = buf + (buf[0] == '-');
    size_t int_len = strcspn(digits, ".");
    if (int_len <= 3) return buf;
    size_t commas = (int_len - 1) / 3, len = strlen(buf);
    if (len + commas >= HTML_NUMBER_MAX) return buf;
    char *src = buf + len, *dst = buf + len + commas;
    size_t tail = strlen(digits + int_len);
    for (size_t i = 0; i <= tail; i++) /* the fraction and the NUL move as they are */
        *dst-- = *src--;
    for (size_t i = 0; i < int_len; i++) {
        *dst-- = *src--;
        if (i % 3 == 2 && i + 1 < int_len) *dst-- = ',';
    }
    return buf;
}

/* Beyond this a number's digits would not fit a buffer (1e308 has 309): it is
 * written with an exponent instead of being cut into another number. */
#define HTML_DIGITS_LIMIT 1e15

const char *html_count(double x, char buf[HTML_NUMBER_MAX])
{
    if (!isfinite(x)) return strcpy(buf, "n/a");
    if (fabs(x) >= HTML_DIGITS_LIMIT) return html_value(x, buf);
    snprintf(buf, HTML_NUMBER_MAX, "%.0f", x);
    return group_thousands(buf);
}

const char *html_value(double x, char buf[HTML_NUMBER_MAX])
{
    if (!isfinite(x)) return strcpy(buf, "n/a");
    double a = fabs(x);
    if (a >= HTML_DIGITS_LIMIT) {
        snprintf(buf, HTML_NUMBER_MAX, "%.3g", x);
        return buf;
    }
    if (a == 0)
        snprintf(buf, HTML_NUMBER_MAX, "0");
    else if (a >= 99.95)
        snprintf(buf, HTML_NUMBER_MAX, "%.0f", x);
    else if (a >= 9.995)
        snprintf(buf, HTML_NUMBER_MAX, "%.1f", x);
    else if (a >= 0.9995)
        snprintf(buf, HTML_NUMBER_MAX, "%.2f", x);
    else
        snprintf(buf, HTML_NUMBER_MAX, "%.3g", x);
    return group_thousands(buf);
}

const char *html_bytes(double x, char buf[HTML_NUMBER_MAX])
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (!isfinite(x)) return strcpy(buf, "n/a");
    size_t u = 0;
    while (fabs(x) >= 1024 && u + 1 < sizeof units / sizeof *units) {
        x /= 1024;
        u++;
    }
    char number[HTML_NUMBER_MAX];
    snprintf(buf, HTML_NUMBER_MAX, "%s %s", u == 0 ? html_count(x, number) : html_value(x, number),
             units[u]);
    return buf;
}

const char *html_coord(double x, char buf[HTML_NUMBER_MAX])
{
    if (!isfinite(x)) x = 0;
    snprintf(buf, HTML_NUMBER_MAX, "%.1f", x);
    /* "-0.0" reads oddly and "12.0" is longer than needed */
    size_t len = strlen(buf);
    if (len >= 2 && strcmp(buf + len - 2, ".0") == 0) buf[len - 2] = '\0';
    if (strcmp(buf, "-0") == 0) strcpy(buf, "0");
    return buf;
}
