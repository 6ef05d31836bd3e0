/* shardset.c — the completeness check of a shard set (see shardset.h). */
#include "stats/shardset.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_line(struct stats_shard_lines *lines, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int add_line(struct stats_shard_lines *lines, const char *fmt, ...)
{
    if (lines->count == lines->cap) {
        size_t cap = lines->cap ? lines->cap * 2 : 8;
        char **grown = realloc(lines->lines, cap * sizeof *grown);
        if (grown == NULL) return -1;
        lines->lines = grown;
        lines->cap = cap;
    }
    va_list args;
    va_start(args, fmt);
    int len = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    char *line = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (line == NULL) return -1;
    va_start(args, fmt);
    vsnprintf(line, (size_t)len + 1, fmt, args);
    va_end(args);
    lines->lines[lines->count++] = line;
    return 0;
}

static void lines_free(struct stats_shard_lines *lines)
{
    for (size_t i = 0; i < lines->count; i++)
        free(lines->lines[i]);
    free(lines->lines);
    memset(lines, 0, sizeof *lines);
}

void stats_shard_findings_free(struct stats_shard_findings *findings)
{
    lines_free(&findings->refusals);
    lines_free(&findings->missing);
    lines_free(&findings->warnings);
}

/* "c1,c16,c64" (ascending), cut short past `size`. */
static void level_list(const struct stats_runmeta *meta, char *out, size_t size)
{
    unsigned long previous = 0;
    size_t used = 0;
    out[0] = '\0';
    for (size_t listed = 0; listed < meta->n_levels; listed++) {
        unsigned long next = 0;
        for (size_t i = 0; i < meta->n_levels; i++)
            if (meta->levels[i].clients > previous && (next == 0 || meta->levels[i].clients < next))
                next = meta->levels[i].clients;
        int n = snprintf(out + used, size - used, "%sc%lu", listed ? "," : "", next);
        if (n < 0 || (size_t)n >= size - used) break;
        used += (size_t)n;
        previous = next;
    }
    if (meta->n_levels == 0) snprintf(out, size, "none");
}

static bool same_levels(const struct stats_runmeta *a, const struct stats_runmeta *b)
{
    if (a->n_levels != b->n_levels) return false;
    for (size_t i = 0; i < a->n_levels; i++)
        if (stats_runmeta_level(b, a->levels[i].clients) == NULL) return false;
    return true;
}

static bool same_run_id(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* A run id for a message: quoted, or "none". */
static void quoted(const char *run_id, char *out, size_t size)
{
    if (run_id == NULL)
        snprintf(out, size, "none");
    else
        snprintf(out, size, "\"%.80s\"", run_id);
}

struct shard_slot {
    unsigned long index;
    size_t input;
};

static int by_index(const void *a, const void *b)
{
    const struct shard_slot *x = a, *y = b;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return (x->input > y->input) - (x->input < y->input);
}

/* Shards first..last of `shards` are missing. */
static int add_missing(struct stats_shard_findings *out, unsigned long first, unsigned long last,
                       unsigned long shards)
{
    if (first == last) return add_line(&out->missing, "shard %lu of %lu is missing", first, shards);
    return add_line(&out->missing, "shards %lu-%lu of %lu are missing", first, last, shards);
}

/* Duplicated and missing shard indices among the inputs that agree on N. */
static int check_indices(const struct stats_shard_input *inputs, size_t count, size_t ref,
                         struct stats_shard_findings *out)
{
    unsigned long shards = inputs[ref].meta->shard_count;
    struct shard_slot *slots = calloc(count, sizeof *slots);
    if (slots == NULL) return -1;
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        const struct stats_runmeta *m = inputs[i].meta;
        if (m != NULL && m->has_shard && m->shard_count == shards)
            slots[used++] = (struct shard_slot){m->shard_index, i};
    }
    qsort(slots, used, sizeof *slots, by_index);
    int rc = 0;
    unsigned long expected = 0; /* the next index not yet seen */
    for (size_t k = 0; k < used && rc == 0; k++) {
        unsigned long index = slots[k].index;
        if (k > 0 && slots[k - 1].index == index) {
            rc = add_line(&out->refusals, "%s and %s are both shard %lu of %lu",
                          inputs[slots[k - 1].input].document, inputs[slots[k].input].document,
                          index, shards);
            continue;
        }
        if (index > expected) rc = add_missing(out, expected, index - 1, shards);
        expected = index + 1;
    }
    if (rc == 0 && expected < shards) rc = add_missing(out, expected, shards - 1, shards);
    free(slots);
    return rc;
}

/* With every shard present: their clients must add up to each level's total. */
static int check_clients(const struct stats_shard_input *inputs, size_t count, size_t ref,
                         struct stats_shard_findings *out)
{
    const struct stats_runmeta *reference = inputs[ref].meta;
    for (size_t l = 0; l < reference->n_levels; l++) {
        unsigned long clients = reference->levels[l].clients, sum = 0;
        bool known = true;
        for (size_t i = 0; i < count && known; i++) {
            const struct stats_runmeta_level *level = stats_runmeta_level(inputs[i].meta, clients);
            known = level != NULL && level->has_shard_clients;
            if (known) sum += level->shard_clients;
        }
        if (known && sum != clients &&
            add_line(&out->refusals, "level c%lu: the shards' clients add up to %lu, not %lu",
                     clients, sum, clients) != 0)
            return -1;
    }
    return 0;
}

static int warn_timing(const struct stats_shard_input *in, double max_start_lag_s,
                       struct stats_shard_findings *out)
{
    const struct stats_runmeta *m = in->meta;
    char who[512];
    snprintf(who, sizeof who, "%.300s (shard %lu of %lu%s%.100s)", in->document, m->shard_index,
             m->shard_count, m->host ? ", host " : "", m->host ? m->host : "");
    if (m->has_clock_offset && fabs(m->clock_offset_s) > max_start_lag_s) {
        /* the shard measured it, and waited for the reference's moments */
        if (add_line(&out->warnings,
                     "warning: %s: its clock was %.3f s %s the --clock-ref server's (more than "
                     "%g s); its levels started at the server's moments regardless",
                     who, fabs(m->clock_offset_s), m->clock_offset_s > 0 ? "ahead of" : "behind",
                     max_start_lag_s) != 0)
            return -1;
    } else if (m->has_clock && !m->clock_synchronized && !m->has_clock_offset) {
        char error[64] = "";
        if (m->has_est_error)
            snprintf(error, sizeof error, " (estimated error %.0f us)", m->est_error_us);
        if (add_line(&out->warnings,
                     "warning: %s: clock not synchronized%s; its levels may not have started "
                     "with the other shards'",
                     who, error) != 0)
            return -1;
    }
    for (size_t l = 0; l < m->n_levels; l++) {
        const struct stats_runmeta_level *level = &m->levels[l];
        if (!level->has_start_lag || fabs(level->start_lag_s) <= max_start_lag_s) continue;
        if (add_line(&out->warnings,
                     "warning: %s: level c%lu started %.3f s %s (more than %g s); its seconds "
                     "do not line up with the other shards'",
                     who, level->clients, fabs(level->start_lag_s),
                     level->start_lag_s > 0 ? "late" : "early", max_start_lag_s) != 0)
            return -1;
    }
    return 0;
}

int stats_shardset_check(const struct stats_shard_input *inputs, size_t count,
                         double max_start_lag_s, struct stats_shard_findings *out)
{
    memset(out, 0, sizeof *out);
    size_t ref = count;
    for (size_t i = 0; i < count; i++) {
        const struct stats_shard_input *in = &inputs[i];
        int rc = 0;
        if (in->meta == NULL)
            rc = add_line(&out->refusals, "%s: no valid shard descriptor %s (%s)", in->document,
                          in->descriptor, in->meta_error ? in->meta_error : "unreadable");
        else if (!in->meta->has_shard)
            rc = add_line(&out->refusals,
                          "%s: %s has no \"shard\" field (was it written by a run with --shard "
                          "I/N?)",
                          in->document, in->descriptor);
        else if (ref == count)
            ref = i;
        if (rc != 0) goto out_of_memory;
    }
    if (ref == count) return 0; /* nothing to compare: every input was refused */

    const struct stats_shard_input *r = &inputs[ref];
    char levels_ref[256], levels[256], id_ref[100], id[100];
    level_list(r->meta, levels_ref, sizeof levels_ref);
    quoted(r->meta->run_id, id_ref, sizeof id_ref);
    for (size_t i = ref + 1; i < count; i++) {
        const struct stats_runmeta *m = inputs[i].meta;
        if (m == NULL || !m->has_shard) continue;
        const char *name = inputs[i].document;
        if (m->shard_count != r->meta->shard_count &&
            add_line(&out->refusals, "%s: shard %lu of %lu, but %s is shard %lu of %lu", name,
                     m->shard_index, m->shard_count, r->document, r->meta->shard_index,
                     r->meta->shard_count) != 0)
            goto out_of_memory;
        quoted(m->run_id, id, sizeof id);
        if (!same_run_id(m->run_id, r->meta->run_id) &&
            add_line(&out->refusals, "%s: run id %s differs from %s in %s", name, id, id_ref,
                     r->document) != 0)
            goto out_of_memory;
        level_list(m, levels, sizeof levels);
        if (!same_levels(m, r->meta) &&
            add_line(&out->refusals, "%s: levels %s differ from %s in %s", name, levels, levels_ref,
                     r->document) != 0)
            goto out_of_memory;
    }
    if (check_indices(inputs, count, ref, out) != 0) goto out_of_memory;
    if (out->refusals.count == 0 && out->missing.count == 0 &&
        check_clients(inputs, count, ref, out) != 0)
        goto out_of_memory;
    for (size_t i = 0; i < count; i++)
        if (inputs[i].meta != NULL && inputs[i].meta->has_shard &&
            warn_timing(&inputs[i], max_start_lag_s, out) != 0)
            goto out_of_memory;
    return 0;
out_of_memory:
    stats_shard_findings_free(out);
    return -1;
}
