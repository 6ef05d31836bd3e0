/* shardset.c — the completeness check of a shard set (see shardset.h). */
#include "stats/runs/shardset.h"
#include "stats/runs/sametest.h"

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
    lines_free(&findings->partial);
    lines_free(&findings->warnings);
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

/* "s1.json (shard 1 of 4, host gen1)": a shard for a message. */
static void shard_name(const struct stats_shard_input *in, bool with_host, char *out, size_t size)
{
    const struct stats_runmeta *m = in->meta;
    with_host &= m->host != NULL;
    snprintf(out, size, "%.300s (shard %lu of %lu%s%.100s)", in->document, m->shard_index,
             m->shard_count, with_host ? ", host " : "", with_host ? m->host : "");
}

struct same_test_report {
    const struct stats_shard_input *in, *ref;
    struct stats_shard_findings *out;
};

/* A shard that differs from the reference: a refusal, or, when it only
 * stopped early in a level that was interrupted, a partial shard. */
static int on_difference(void *ctx, enum stats_difference kind, const char *phrase)
{
    struct same_test_report *r = ctx;
    const struct stats_runmeta *m = r->in->meta;
    char who[420];
    shard_name(r->in, false, who, sizeof who);
    if (kind == STATS_DIFF_STOPPED && m->levels[m->n_levels - 1].interrupted)
        return add_line(&r->out->partial, "%s stopped in level c%lu (interrupted): %s in %s", who,
                        m->levels[m->n_levels - 1].clients, phrase, r->ref->document);
    return add_line(&r->out->refusals, "%s: %s in %s", who, phrase, r->ref->document);
}

static int check_interrupted(const struct stats_shard_input *in, struct stats_shard_findings *out)
{
    char who[420];
    shard_name(in, false, who, sizeof who);
    for (size_t l = 0; l < in->meta->n_levels; l++)
        if (in->meta->levels[l].interrupted &&
            add_line(&out->partial,
                     "%s: level c%lu was interrupted (\"interrupted\": true): its counts are "
                     "partial",
                     who, in->meta->levels[l].clients) != 0)
            return -1;
    return 0;
}

static int check_timing(const struct stats_shard_input *in, const struct stats_shard_rules *rules,
                        struct stats_shard_findings *out)
{
    const struct stats_runmeta *m = in->meta;
    double bound = rules->max_start_lag_s;
    char who[512];
    shard_name(in, true, who, sizeof who);
    if (m->has_clock_offset && fabs(m->clock_offset_s) > bound) {
        /* the shard measured it, and waited for the reference's moments */
        if (add_line(&out->warnings,
                     "warning: %s: its clock was %.3f s %s the --clock-ref server's (more than "
                     "%g s); its levels started at the server's moments regardless",
                     who, fabs(m->clock_offset_s), m->clock_offset_s > 0 ? "ahead of" : "behind",
                     bound) != 0)
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
        if (!level->has_start_lag || fabs(level->start_lag_s) <= bound) continue;
        int rc = rules->accept_start_lag
                     ? add_line(&out->warnings,
                                "warning: %s: level c%lu started %.3f s %s (more than "
                                "--max-start-lag %g s); its seconds do not line up with the "
                                "other shards' (merged anyway: --accept-start-lag)",
                                who, level->clients, fabs(level->start_lag_s),
                                level->start_lag_s > 0 ? "late" : "early", bound)
                     : add_line(&out->refusals,
                                "%s: level c%lu started %.3f s %s (start_lag_s; more than "
                                "--max-start-lag %g s): its seconds do not line up with the "
                                "other shards' (--accept-start-lag merges it anyway)",
                                who, level->clients, fabs(level->start_lag_s),
                                level->start_lag_s > 0 ? "late" : "early", bound);
        if (rc != 0) return -1;
    }
    return 0;
}

static bool is_shard(const struct stats_shard_input *in)
{
    return in->meta != NULL && in->meta->has_shard;
}

int stats_shardset_check(const struct stats_shard_input *inputs, size_t count,
                         const struct stats_shard_rules *rules, struct stats_shard_findings *out)
{
    memset(out, 0, sizeof *out);
    size_t ref = count; /* the shard that ran the most levels: the others are compared with it */
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
        else if (ref == count || in->meta->n_levels > inputs[ref].meta->n_levels)
            ref = i;
        if (rc != 0) goto out_of_memory;
    }
    if (ref == count) return 0; /* nothing to compare: every input was refused */

    const struct stats_shard_input *r = &inputs[ref];
    char id_ref[100], id[100];
    quoted(r->meta->run_id, id_ref, sizeof id_ref);
    for (size_t i = 0; i < count; i++) {
        const struct stats_runmeta *m = inputs[i].meta;
        if (i == ref || !is_shard(&inputs[i])) continue;
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
        struct same_test_report report = {&inputs[i], r, out};
        if (stats_same_test(m, r->meta, true, on_difference, &report) != 0) goto out_of_memory;
    }
    for (size_t i = 0; i < count; i++)
        if (is_shard(&inputs[i]) && check_interrupted(&inputs[i], out) != 0) goto out_of_memory;
    if (check_indices(inputs, count, ref, out) != 0) goto out_of_memory;
    if (out->refusals.count == 0 && out->missing.count == 0 && out->partial.count == 0 &&
        check_clients(inputs, count, ref, out) != 0)
        goto out_of_memory;
    for (size_t i = 0; i < count; i++)
        if (is_shard(&inputs[i]) && check_timing(&inputs[i], rules, out) != 0) goto out_of_memory;
    return 0;
out_of_memory:
    stats_shard_findings_free(out);
    return -1;
}
