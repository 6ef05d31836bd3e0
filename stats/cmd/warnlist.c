/* warnlist.c — warnings kept for a command's JSON. See warnlist.h. */
#include "stats/cmd/warnlist.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "stats/cmd/cmd.h"

static char *copy_or_null(const char *s, bool *failed)
{
    if (!s) return NULL;
    char *c = strdup(s);
    if (!c) *failed = true;
    return c;
}

void stats_warn(struct stats_warnlist *l, const char *command, const char *prefix, const char *kind,
                const char *side, const char *run, unsigned long level, const char *metric,
                const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int len = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    char *message = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (message) {
        va_start(args, fmt);
        vsnprintf(message, (size_t)len + 1, fmt, args);
        va_end(args);
        fprintf(stderr, "loadstats %s: %s: %s\n", command, prefix, message);
    } else { /* the line still reaches stderr */
        fprintf(stderr, "loadstats %s: %s: ", command, prefix);
        va_start(args, fmt);
        vfprintf(stderr, fmt, args);
        va_end(args);
        fputc('\n', stderr);
        l->lost = true;
        return;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        struct stats_warning *v = realloc(l->v, cap * sizeof(*v));
        if (!v) {
            free(message);
            l->lost = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    bool failed = false;
    struct stats_warning w = {
        kind, side, copy_or_null(run, &failed), level, copy_or_null(metric, &failed), message};
    if (failed) {
        free(w.run);
        free(w.metric);
        free(message);
        l->lost = true;
        return;
    }
    l->v[l->n++] = w;
}

void stats_warnlist_write_json(FILE *out, const struct stats_warnlist *l)
{
    fputc('[', out);
    for (size_t i = 0; i < l->n; i++) {
        const struct stats_warning *w = &l->v[i];
        fputs(i ? ",\n  {\"kind\": " : "\n  {\"kind\": ", out);
        json_write_string(out, w->kind);
        if (w->side) {
            fputs(", \"side\": ", out);
            json_write_string(out, w->side);
        }
        if (w->run) {
            fputs(", \"run\": ", out);
            json_write_string(out, w->run);
        }
        if (w->level) fprintf(out, ", \"level\": \"c%lu\"", w->level);
        if (w->metric) {
            fputs(", \"metric\": ", out);
            json_write_string(out, w->metric);
        }
        fputs(", \"message\": ", out);
        json_write_string(out, w->message);
        fputc('}', out);
    }
    fputc(']', out);
}

void stats_warnlist_free(struct stats_warnlist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].run);
        free(l->v[i].metric);
        free(l->v[i].message);
    }
    free(l->v);
    memset(l, 0, sizeof(*l));
}
