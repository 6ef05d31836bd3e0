/* The preflight's lines as a person reads them: one short line per check
 * (the figure, the need, the fix), and with --verbose its details beneath,
 * wrapped, so that no line is wider than a terminal. See preflight.h. */
#include "loadgen/preflight/preflight.h"

#include <stdio.h>
#include <string.h>

void lg_check_line(const char *tool, const struct lg_check *c, char *buf, size_t len)
{
    size_t max = len < LG_CHECK_LINE_MAX ? len : LG_CHECK_LINE_MAX;
    int n = snprintf(buf, max, "%s: preflight %s: %s; %s", tool, c->name,
                     lg_verdict_name(c->verdict), c->brief);
    /* every brief is written to fit (test_fitchecks holds them to it); a
     * figure longer than any seen there is cut, never wrapped */
    if (n >= (int)max && max > 4) memcpy(buf + max - 4, "...", 4);
}

/* "    LABEL TEXT", broken at spaces into lines under LG_CHECK_LINE_MAX
 * characters, continued under the text. */
static void print_wrapped(const char *label, const char *text)
{
    const size_t indent = 4 + strlen(label) + 1, width = LG_CHECK_LINE_MAX - 1 - indent;
    fprintf(stderr, "    %s ", label);
    while (*text) {
        size_t n = strlen(text);
        if (n > width) {
            n = width;
            while (n > 0 && text[n] != ' ')
                n--;
            if (n == 0) n = width; /* a word wider than the line: cut it */
        }
        fprintf(stderr, "%.*s\n", (int)n, text);
        text += n;
        while (*text == ' ')
            text++;
        if (*text) fprintf(stderr, "%*s", (int)indent, "");
    }
}

void lg_check_print(const char *tool, const struct lg_check *c, bool verbose)
{
    char line[LG_CHECK_LINE_MAX];
    lg_check_line(tool, c, line, sizeof(line));
    fprintf(stderr, "%s\n", line);
    if (!verbose) return;
    print_wrapped("found", c->found);
    print_wrapped("needs", c->needed);
    if (strcmp(c->todo, "nothing") != 0) print_wrapped("to do:", c->todo);
}
