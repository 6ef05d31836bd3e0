/* sametest.c — comparing what two descriptors say decides the numbers (see
 * sametest.h). */
#include "stats/runs/sametest.h"

#include <stdio.h>
#include <string.h>

void stats_level_order(const struct stats_runmeta *meta, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < meta->n_levels; i++) {
        int n = snprintf(out + used, size - used, "%sc%lu", i ? "," : "", meta->levels[i].clients);
        if (n < 0 || (size_t)n >= size - used) break;
        used += (size_t)n;
    }
    if (meta->n_levels == 0) snprintf(out, size, "none");
}

static bool same_string(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* A value for a message: quoted, or "none". */
static void quoted(const char *s, char *out, size_t size)
{
    if (s == NULL)
        snprintf(out, size, "none");
    else
        snprintf(out, size, "\"%.200s\"", s);
}

static int string_field(const char *name, const char *mine, const char *theirs,
                        stats_difference_fn report, void *ctx)
{
    if (same_string(mine, theirs)) return 0;
    char a[210], b[210], phrase[512];
    quoted(mine, a, sizeof a);
    quoted(theirs, b, sizeof b);
    snprintf(phrase, sizeof phrase, "%s %s differs from %s", name, a, b);
    return report(ctx, STATS_DIFF_FIELD, phrase);
}

static int option_fields(const struct stats_runmeta *run, const struct stats_runmeta *reference,
                         stats_difference_fn report, void *ctx)
{
    for (int i = 0; i < STATS_OPT__COUNT; i++) {
        bool mine = run->has_option[i], theirs = reference->has_option[i];
        if (mine == theirs && (!mine || run->option[i] == reference->option[i])) continue;
        char a[40] = "none", b[40] = "none", phrase[160];
        if (mine) snprintf(a, sizeof a, "%g", run->option[i]);
        if (theirs) snprintf(b, sizeof b, "%g", reference->option[i]);
        snprintf(phrase, sizeof phrase, "%s %s differs from %s",
                 stats_runmeta_option_name((enum stats_runmeta_option)i), a, b);
        int rc = report(ctx, STATS_DIFF_FIELD, phrase);
        if (rc != 0) return rc;
    }
    return 0;
}

static bool has_level(const struct stats_runmeta *meta, unsigned long clients)
{
    return stats_runmeta_level(meta, clients) != NULL;
}

static int level_fields(const struct stats_runmeta *run, const struct stats_runmeta *reference,
                        bool requested_starts, stats_difference_fn report, void *ctx)
{
    char mine[256], theirs[256], phrase[700];
    stats_level_order(run, mine, sizeof mine);
    stats_level_order(reference, theirs, sizeof theirs);
    size_t common = run->n_levels < reference->n_levels ? run->n_levels : reference->n_levels;
    bool prefix = true;
    for (size_t i = 0; i < common; i++)
        prefix &= run->levels[i].clients == reference->levels[i].clients;
    if (!prefix || run->n_levels != reference->n_levels) {
        bool same_set = run->n_levels == reference->n_levels;
        for (size_t i = 0; i < run->n_levels && same_set; i++)
            same_set = has_level(reference, run->levels[i].clients);
        if (same_set)
            snprintf(phrase, sizeof phrase, "levels ran in the order %s, not %s", mine, theirs);
        else
            snprintf(phrase, sizeof phrase, "levels %s differ from %s", mine, theirs);
        /* the first levels of the reference and no others: a run that stopped */
        bool stopped = prefix && run->n_levels > 0 && run->n_levels < reference->n_levels;
        int rc = report(ctx, stopped ? STATS_DIFF_STOPPED : STATS_DIFF_FIELD, phrase);
        if (rc != 0 || !stopped) return rc;
    }
    for (size_t i = 0; requested_starts && i < common; i++) {
        const char *a = run->levels[i].requested_start, *b = reference->levels[i].requested_start;
        if (same_string(a, b)) continue;
        char qa[210], qb[210];
        quoted(a, qa, sizeof qa);
        quoted(b, qb, sizeof qb);
        snprintf(phrase, sizeof phrase, "level c%lu's requested_start %s differs from %s",
                 run->levels[i].clients, qa, qb);
        int rc = report(ctx, STATS_DIFF_FIELD, phrase);
        if (rc != 0) return rc;
    }
    return 0;
}

int stats_same_test(const struct stats_runmeta *run, const struct stats_runmeta *reference,
                    bool requested_starts, stats_difference_fn report, void *ctx)
{
    int rc = string_field("tool", run->tool, reference->tool, report, ctx);
    if (rc == 0) rc = string_field("target", run->target, reference->target, report, ctx);
    if (rc == 0) rc = option_fields(run, reference, report, ctx);
    if (rc == 0) rc = level_fields(run, reference, requested_starts, report, ctx);
    return rc;
}
