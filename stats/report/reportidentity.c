/* reportidentity.c — the report's "Runs" section (see reportidentity.h): each
 * run's identity from its descriptor (document, tool, target, command line,
 * exit status, options), then the machine once for all of them: what every
 * run's descriptor says alike, and beside it only what differs from run to
 * run, with a warning where the machines themselves differ (machines.h). */
#include <stdlib.h>
#include <string.h>

#include "stats/write/htmlout.h"
#include "stats/report/reportidentity.h"

static void identity_row(FILE *out, const char *name, const char *value, bool warn)
{
    if (value == NULL || value[0] == '\0') return;
    fprintf(out, "<tr><th>%s</th><td%s>", name, warn ? " class=\"warn\"" : "");
    html_text(out, value);
    fputs("</td></tr>\n", out);
}

/* One line of "name value" pairs: a machine has a dozen of them. */
static void pairs_cell(FILE *out, const struct report_pair *const *pairs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fputs(i ? " &#183; <b>" : "<b>", out);
        html_text(out, pairs[i]->name);
        fputs("</b> ", out);
        html_text(out, pairs[i]->value);
    }
}

static void pairs_row(FILE *out, const char *name, const struct report_pair *pairs, size_t n)
{
    if (n == 0) return;
    fprintf(out, "<tr><th>%s</th><td>", name);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? " &#183; <b>" : "<b>", out);
        html_text(out, pairs[i].name);
        fputs("</b> ", out);
        html_text(out, pairs[i].value);
    }
    fputs("</td></tr>\n", out);
}

/* The runs of the page in order, base's before new's, and what each is called. */
struct run_ref {
    const struct report_run *run;
    char title[160];
};

static size_t list_runs(const struct report_page *page, struct run_ref *refs)
{
    size_t n = 0;
    for (size_t s = 0; s < page->n_sides; s++)
        for (size_t r = 0; r < page->sides[s].n_runs; r++) {
            const struct report_side *side = &page->sides[s];
            refs[n].run = &side->runs[r];
            if (page->n_sides > 1 || side->n_runs > 1)
                snprintf(refs[n].title, sizeof refs[n].title, "%s%srun %zu", side->label,
                         side->label[0] ? " " : "", r + 1);
            else
                snprintf(refs[n].title, sizeof refs[n].title, "the run");
            n++;
        }
    return n;
}

static void run_table(FILE *out, const struct run_ref *ref)
{
    const struct report_run *run = ref->run;
    const struct report_meta *m = &run->meta;
    fputs("<table class=\"identity\">\n<tr><th colspan=\"2\">", out);
    html_text(out, ref->title);
    fputs("</th></tr>\n", out);
    identity_row(out, "document", strcmp(run->path, "-") == 0 ? "<stdin>" : run->path, false);
    if (m->loaded)
        identity_row(out, "descriptor", m->path, false);
    else if (m->problem)
        identity_row(out, "descriptor", m->problem, true);
    else
        identity_row(out, "descriptor",
                     "none (run the generator with --meta FILE for tool, target, options, "
                     "machine and exit status)",
                     false);
    identity_row(out, "tool", m->tool, false);
    identity_row(out, "version", m->version, false);
    identity_row(out, "target", m->target, false);
    identity_row(out, "command", m->command_line, false);
    identity_row(out, "started", m->started_at, false);
    identity_row(out, "run id", m->run_id, false);
    if (m->has_shard) {
        char shard[64];
        snprintf(shard, sizeof shard, "%lu of %lu", m->shard_index + 1, m->shard_count);
        identity_row(out, "shard", shard, false);
    }
    for (size_t i = 0; i < m->n_inputs; i++)
        identity_row(out, i == 0 ? "merged from" : "", m->inputs[i], false);
    if (m->has_exit_status) {
        char status[400];
        snprintf(status, sizeof status, "%d%s%s", m->exit_status,
                 m->exit_status ? ": " : " (clean)", report_exit_meaning(m->exit_status));
        identity_row(out, "exit status", status, m->exit_status != 0);
    }
    pairs_row(out, "options", m->options, m->n_options);
    fputs("</table>\n", out);
}

static const struct report_pair *pair_named(const struct report_meta *m, const char *name)
{
    for (size_t i = 0; i < m->n_machine; i++)
        if (strcmp(m->machine[i].name, name) == 0) return &m->machine[i];
    return NULL;
}

/* Is the pair `name` the same in every run that names a machine (a run
 * whose machine lacks it differs)? */
static bool alike(const struct run_ref *refs, size_t n, const char *name)
{
    const char *first = NULL;
    bool seen = false;
    for (size_t i = 0; i < n; i++) {
        if (refs[i].run->meta.n_machine == 0) continue;
        const struct report_pair *p = pair_named(&refs[i].run->meta, name);
        const char *value = p ? p->value : NULL;
        if (seen && (value == NULL) != (first == NULL)) return false;
        if (seen && value && strcmp(value, first) != 0) return false;
        first = value;
        seen = true;
    }
    return true;
}

/* The machine table: a warning for each run measured on another machine
 * than the first run that names one, the pairs alike in every run, and a
 * row per pair that is not, with each run's value. */
static int machine_table(FILE *out, const struct run_ref *refs, size_t n)
{
    size_t with = 0, most = 0;
    for (size_t i = 0; i < n; i++) {
        with += refs[i].run->meta.n_machine > 0;
        most += refs[i].run->meta.n_machine;
    }
    if (with == 0) return 0;
    /* every pair name once, in the order the runs name them */
    const struct report_pair **names = calloc(most, sizeof *names);
    const struct report_pair **common = calloc(most, sizeof *common);
    if (names == NULL || common == NULL) {
        free(names);
        free(common);
        return -1;
    }
    size_t n_names = 0, n_common = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < refs[i].run->meta.n_machine; k++) {
            const struct report_pair *p = &refs[i].run->meta.machine[k];
            size_t j = 0;
            while (j < n_names && strcmp(names[j]->name, p->name) != 0)
                j++;
            if (j == n_names) names[n_names++] = p;
        }
    for (size_t j = 0; j < n_names; j++)
        if (alike(refs, n, names[j]->name)) common[n_common++] = names[j];

    fputs("<table class=\"identity machine\">\n<tr><th colspan=\"2\">", out);
    if (n == 1)
        fputs("the machine", out);
    else if (with == n)
        html_printf(out, "the machine of every run%s",
                    n_common < n_names ? ", what differs from run to run apart" : "");
    else
        html_printf(out, "the machine of the %zu runs whose descriptor names it", with);
    fputs("</th></tr>\n", out);
    const struct report_run *first = NULL;
    const char *first_title = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct report_meta *m = &refs[i].run->meta;
        if (!m->machine_identity.known) continue;
        if (first == NULL) {
            first = refs[i].run;
            first_title = refs[i].title;
            continue;
        }
        char difference[800];
        stats_machine_difference(&first->meta.machine_identity, &m->machine_identity, difference,
                                 sizeof difference);
        if (difference[0] == '\0') continue;
        fputs("<tr><th>another machine</th><td class=\"warn\">", out);
        html_printf(out,
                    "%s was measured on another machine than %s (%s): their numbers do not "
                    "compare",
                    refs[i].title, first_title, difference);
        fputs("</td></tr>\n", out);
    }
    if (n_common > 0) {
        fprintf(out, "<tr><th>%s</th><td>", n_common < n_names ? "in every run" : "machine");
        pairs_cell(out, common, n_common);
        fputs("</td></tr>\n", out);
    }
    for (size_t j = 0; j < n_names; j++) {
        if (alike(refs, n, names[j]->name)) continue;
        fputs("<tr><th>", out);
        html_text(out, names[j]->name);
        fputs("</th><td>", out);
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            if (refs[i].run->meta.n_machine == 0) continue;
            const struct report_pair *p = pair_named(&refs[i].run->meta, names[j]->name);
            fputs(any ? " &#183; <b>" : "<b>", out);
            html_text(out, refs[i].title);
            fputs("</b> ", out);
            html_text(out, p ? p->value : "(not given)");
            any = true;
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    free(names);
    free(common);
    return 0;
}

int report_identity_write(FILE *out, const struct report_page *page)
{
    size_t n = 0;
    for (size_t s = 0; s < page->n_sides; s++)
        n += page->sides[s].n_runs;
    struct run_ref *refs = calloc(n ? n : 1, sizeof *refs);
    if (refs == NULL) return -1;
    n = list_runs(page, refs);
    fputs("<section id=\"identity\">\n<h2>Runs</h2>\n", out);
    for (size_t i = 0; i < n; i++)
        run_table(out, &refs[i]);
    int failed = machine_table(out, refs, n);
    fputs("</section>\n", out);
    free(refs);
    return failed;
}
