/* machines.c — the machines of documents, from their descriptors (see machines.h). */
#include "stats/runs/machines.h"

#include <stdlib.h>
#include <string.h>

#include "stats/read/json.h"
#include "stats/runs/runmeta.h"

#define DESCRIPTOR_MAX_BYTES (16u << 20)

static void copy_string(const struct stats_json *obj, const char *key, char *out, size_t len)
{
    const struct stats_json *v = stats_json_get(obj, key);
    out[0] = '\0';
    if (v && v->type == STATS_JSON_STRING) snprintf(out, len, "%s", v->string);
}

static double number(const struct stats_json *obj, const char *key)
{
    const struct stats_json *v = stats_json_get(obj, key);
    return v && v->type == STATS_JSON_NUMBER ? v->number : -1;
}

void stats_machine_take(const struct stats_json *descriptor, struct stats_machine *out)
{
    memset(out, 0, sizeof(*out));
    out->physical_cores = out->logical_cpus = -1;
    const struct stats_json *m = stats_json_get(descriptor, "machine");
    if (m && m->type == STATS_JSON_OBJECT) {
        out->known = true;
        copy_string(m, "cpu_model", out->cpu_model, sizeof(out->cpu_model));
        copy_string(m, "kernel", out->kernel, sizeof(out->kernel));
        copy_string(m, "hostname", out->hostname, sizeof(out->hostname));
        out->physical_cores = number(m, "physical_cores");
        out->logical_cpus = number(m, "logical_cpus");
    }
}

int stats_machine_parse(const char *text, size_t len, struct stats_machine *out)
{
    memset(out, 0, sizeof(*out));
    out->physical_cores = out->logical_cpus = -1;
    struct stats_json root;
    char error[256];
    if (stats_json_parse(text, len, &root, error, sizeof(error)) < 0) return -1;
    stats_machine_take(&root, out);
    stats_json_free(&root);
    return 0;
}

void stats_machine_difference(const struct stats_machine *a, const struct stats_machine *b,
                              char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (used < len) used += (size_t)snprintf(buf + used, len - used, __VA_ARGS__);             \
    } while (0)
    if (strcmp(a->cpu_model, b->cpu_model) != 0)
        ADD("%sCPU model '%s' against '%s'", used ? ", " : "", b->cpu_model, a->cpu_model);
    if (a->physical_cores != b->physical_cores)
        ADD("%s%g physical cores against %g", used ? ", " : "", b->physical_cores,
            a->physical_cores);
    if (a->logical_cpus != b->logical_cpus)
        ADD("%s%g logical CPUs against %g", used ? ", " : "", b->logical_cpus, a->logical_cpus);
    if (strcmp(a->kernel, b->kernel) != 0)
        ADD("%skernel %s against %s", used ? ", " : "", b->kernel, a->kernel);
#undef ADD
}

/* The machine of a document's descriptor; false when there is none to read. */
static bool machine_of(const char *document, struct stats_machine *m)
{
    if (strcmp(document, "-") == 0) return false;
    char *path = stats_runmeta_path_for(document);
    if (!path) return false;
    FILE *f = fopen(path, "rb");
    free(path);
    if (!f) return false;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *text = size > 0 && size <= (long)DESCRIPTOR_MAX_BYTES && fseek(f, 0, SEEK_SET) == 0
                     ? malloc((size_t)size)
                     : NULL;
    size_t len = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    bool ok = text && len == (size_t)size && stats_machine_parse(text, len, m) == 0 && m->known;
    free(text);
    return ok;
}

size_t stats_machines_differ(const char *const *documents, size_t n,
                             void (*each)(void *ctx, size_t document, size_t first,
                                          const char *difference),
                             void *ctx)
{
    struct stats_machine first, other;
    size_t d = 0, found = 0;
    while (d < n && !machine_of(documents[d], &first))
        d++;
    for (size_t i = d + 1; i < n; i++) {
        char diff[800];
        if (!machine_of(documents[i], &other)) continue;
        stats_machine_difference(&first, &other, diff, sizeof(diff));
        if (!diff[0]) continue;
        each(ctx, i, d, diff);
        found++;
    }
    return found;
}

struct warn_ctx {
    FILE *err;
    const char *command;
    const char *const *documents;
};

static void warn_line(void *ctx, size_t document, size_t first, const char *difference)
{
    const struct warn_ctx *w = ctx;
    fprintf(w->err, "loadstats %s: warning: " STATS_MACHINES_PHRASE "\n", w->command,
            w->documents[document], w->documents[first], difference);
}

size_t stats_machines_warn(FILE *err, const char *command, const char *const *documents, size_t n)
{
    struct warn_ctx w = {err, command, documents};
    return stats_machines_differ(documents, n, warn_line, &w);
}
