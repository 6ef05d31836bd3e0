/* cmd_common.c — what the loadstats commands share besides the option loop
 * (see cmd.h): their messages, reading a document, writing JSON and output. */
#include "stats/cmd/cmd.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "stats/write/numfmt.h"

static void vcomplain(const char *command, const char *fmt, va_list args)
{
    fprintf(stderr, "loadstats %s: ", command);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
}

void complain(const char *command, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vcomplain(command, fmt, args);
    va_end(args);
}

int no_memory(const char *command, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "loadstats %s: out of memory ", command);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    return EXIT_NO_MEMORY;
}

int usage_error(const char *command, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vcomplain(command, fmt, args);
    va_end(args);
    return EXIT_USAGE;
}

const char *input_name(const char *path)
{
    return docread_input_name(path);
}

/* A command's metric callback stops the read with its exit status, and the
 * reader takes 4 for memory as the commands do. */
_Static_assert((int)EXIT_NO_MEMORY == (int)DOCREAD_NO_MEMORY, "out of memory is 4 for both");

int read_document(const char *command, const char *path, const struct docread_options *options,
                  struct docread_result *result)
{
    enum docread_status status = docread_walk(path, options, result);
    /* a callback that stopped the read without a reason has complained itself */
    if (status != DOCREAD_OK && result->error[0] != '\0') complain(command, "%s", result->error);
    switch (status) {
    case DOCREAD_OK:
        return EXIT_FINE;
    case DOCREAD_INVALID:
        return EXIT_FAILS;
    case DOCREAD_NO_MEMORY:
        return EXIT_NO_MEMORY;
    default:
        return EXIT_USAGE;
    }
}

int parse_number_option(const char *command, const char *name, const char *text, double *out)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !isfinite(value) || value < 0)
        return usage_error(command, "%s needs a non-negative number, not '%s'", name, text);
    *out = value;
    return EXIT_FINE;
}

void json_write_string(FILE *out, const char *s)
{
    putc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            putc('\\', out);
            putc(*p, out);
        } else if (*p < 0x20) {
            fprintf(out, "\\u%04x", *p);
        } else {
            putc(*p, out);
        }
    }
    putc('"', out);
}

void json_write_number(FILE *out, double x)
{
    char buf[STATS_NUMBER_MAX];
    size_t len = stats_format_double(x, buf);
    fwrite(buf, 1, len, out);
}

int cannot_write(const char *command, const char *name)
{
    if (errno == ENOMEM) return no_memory(command, "opening %s", name);
    return usage_error(command, "cannot write %s: %s", name, strerror(errno));
}

int finish_output(const char *command, FILE *out, const char *name)
{
    int failed = fflush(out) != 0 || ferror(out);
    if (out != stdout && out != stderr) failed |= fclose(out) != 0;
    if (failed && errno == ENOMEM) return no_memory(command, "writing %s", name);
    if (failed) return usage_error(command, "cannot write %s: %s", name, strerror(errno));
    return EXIT_FINE;
}
