/* Level results and the collector document. See results.h. */
#include "loadgen/output/results.h"
#include "loadgen/core/grow.h"
#include "loadgen/output/jsonout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lg_result_add(struct lg_level_result *r, const char *name, const char *unit, double *v,
                  size_t n, uint64_t seen)
{
    if (n == 0) { /* the contract: never a metric without samples */
        free(v);
        return 0;
    }
    if (!lg_grow(&r->m, &r->cap, r->n + 1, sizeof(*r->m), 32)) {
        free(v);
        return -1;
    }
    char *copy = strdup(name);
    if (!copy) {
        free(v);
        return -1;
    }
    r->m[r->n++] = (struct lg_metric){copy, unit, v, NULL, n, seen};
    return 0;
}

int lg_result_add_series(struct lg_level_result *r, const char *name, uint64_t *ns, size_t n,
                         uint64_t seen)
{
    size_t before = r->n;
    /* lg_result_add takes the array as it comes: the type is set after */
    if (lg_result_add(r, name, "milliseconds", (double *)(void *)ns, n, seen) < 0) return -1;
    if (r->n > before) {
        r->m[before].ns = ns;
        r->m[before].v = NULL;
    }
    return 0;
}

int lg_result_add_count(struct lg_level_result *r, const char *name, uint64_t count)
{
    double *v = malloc(sizeof(*v));
    if (!v) return -1;
    v[0] = (double)count;
    return lg_result_add(r, name, "count", v, 1, 1);
}

const struct lg_metric *lg_result_find(const struct lg_level_result *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->m[i].name, name) == 0) return &r->m[i];
    return NULL;
}

void lg_result_free(struct lg_level_result *r, unsigned n_classes)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->m[i].name);
        free(r->m[i].v);
        free(r->m[i].ns);
    }
    free(r->m);
    if (r->error_detail) {
        for (unsigned i = 0; i < n_classes; i++)
            free(r->error_detail[i]);
        free(r->error_detail);
    }
    memset(r, 0, sizeof(*r));
}

void lg_results_write_to(struct lg_jsonout *o, const struct lg_level_result *levels,
                         size_t n_levels)
{
    lg_json_lit(o, "{\"metrics\": {");
    bool first = true;
    for (size_t l = 0; l < n_levels; l++) {
        const struct lg_level_result *r = &levels[l];
        char prefix[32];
        snprintf(prefix, sizeof(prefix), "c%u.", r->clients);
        /* nothing more goes out: formatting the rest would only delay the exit */
        for (size_t i = 0; i < r->n && !o->failed && !o->stopped; i++) {
            const struct lg_metric *m = &r->m[i];
            char key[512];
            snprintf(key, sizeof(key), "%s%s", prefix, m->name);
            lg_json_lit(o, first ? "\n  " : ",\n  ");
            first = false;
            lg_json_str(o, key);
            lg_json_lit(o, ": {\"unit\": ");
            lg_json_str(o, m->unit);
            lg_json_lit(o, ", \"samples\": [");
            if (m->ns)
                lg_json_ns_as_ms(o, m->ns, m->n);
            else
                lg_json_doubles(o, m->v, m->n);
            lg_json_lit(o, "]}");
        }
    }
    lg_json_lit(o, "\n}}\n");
}

int lg_results_write(int fd, const struct lg_level_result *levels, size_t n_levels, size_t *bytes)
{
    struct lg_jsonout o;
    if (lg_jsonout_open(&o, fd, 1 << 20) < 0) return -1;
    lg_results_write_to(&o, levels, n_levels);
    int rc = lg_jsonout_close(&o);
    if (bytes) *bytes = o.written;
    return rc;
}

size_t lg_results_size(const struct lg_level_result *levels, size_t n_levels)
{
    size_t bytes;
    return lg_results_write(-1, levels, n_levels, &bytes) < 0 ? SIZE_MAX : bytes;
}
