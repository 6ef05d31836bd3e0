/* reportfigs.c — the report's figures (see reportfigs.h): latency percentile
 * curves (cold, warm, send lag), requests and errors per second over time, the
 * knee across levels, and the phases as stacked bars. Each is left out when no
 * run has its data, so a page never shows an empty frame. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/math/cpuwork.h"
#include "stats/write/htmlout.h"
#include "stats/report/reportfigs.h"
#include "stats/write/svgplot.h"

/* The arrays a figure's series point into, freed once it is written. */
struct arrays {
    double **blocks;
    size_t n;
    bool failed;
};

static double *arrays_new(struct arrays *a, size_t n)
{
    double **grown = realloc(a->blocks, (a->n + 1) * sizeof *grown);
    double *block = grown ? calloc(n ? n : 1, sizeof *block) : NULL;
    if (grown) a->blocks = grown;
    if (block == NULL) {
        a->failed = true;
        return NULL;
    }
    a->blocks[a->n++] = block;
    return block;
}

static void arrays_free(struct arrays *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->blocks[i]);
    free(a->blocks);
    memset(a, 0, sizeof *a);
}

static size_t index_of(const unsigned long *clients, size_t n, unsigned long c)
{
    for (size_t i = 0; i < n; i++)
        if (clients[i] == c) return i;
    return 0;
}

static int finish(FILE *out, struct plot *p, struct arrays *a, int failed, int *figures)
{
    if (!failed && !a->failed && plot_has_data(p) && plot_write(out, p, figures) < 0) failed = 1;
    plot_free(p);
    failed |= a->failed;
    arrays_free(a);
    return failed ? -1 : 0;
}

static const char *const curve_titles[REPORT_CURVES] = {
    [REPORT_COLD] = "Cold latency by percentile: each connection's first request",
    [REPORT_WARM] = "Warm latency by percentile: requests on established connections",
    [REPORT_SEND_LAG] = "Send lag by percentile: the generator's lateness (open loop)",
};

static int latency_figure(FILE *out, const struct report_page *page, const unsigned long *levels,
                          size_t n_levels, enum report_curve_kind kind, int *figures)
{
    struct plot p;
    struct arrays a = {0};
    int failed = 0;
    plot_init(&p, kind == REPORT_SEND_LAG ? "send-lag"
                  : kind == REPORT_COLD   ? "latency-cold"
                                          : "latency-warm");
    snprintf(p.title, sizeof p.title, "%s", curve_titles[kind]);
    p.x.scale = PLOT_NINES;
    snprintf(p.x.label, sizeof p.x.label, "percentile (log scale of 1/(1-p))");
    p.y.scale = PLOT_LOG;
    snprintf(p.y.label, sizeof p.y.label, "%s (ms, log scale)",
             kind == REPORT_SEND_LAG ? "send lag" : "latency");
    snprintf(p.caption, sizeof p.caption,
             "One curve per level%s, as HdrHistogram's plotter draws them: the x axis spreads the "
             "tail, so 99%% and 99.9%% sit a decade apart. A curve ends at the percentile its "
             "sample count can show.",
             page->n_sides > 1 ? " and side" : "");
    for (size_t s = 0; s < page->n_sides; s++)
        for (size_t r = 0; r < page->sides[s].n_runs; r++) {
            const struct report_run *run = &page->sides[s].runs[r];
            for (size_t l = 0; l < run->n_levels && !failed; l++) {
                const struct report_curve *c = &run->levels[l].curves[kind];
                if (!c->present) continue;
                char name[96];
                report_series_name(page, s, r, run->levels[l].clients, name, sizeof name);
                size_t q = index_of(levels, n_levels, run->levels[l].clients);
                failed = plot_add(&p, name, palette_pick(page->n_sides, s, q), c->x, c->y,
                                  c->points, false);
            }
        }
    return finish(out, &p, &a, failed, figures);
}

static int timeline_figure(FILE *out, const struct report_page *page, const unsigned long *levels,
                           size_t n_levels, bool errors, int *figures)
{
    struct plot p;
    struct arrays a = {0};
    int failed = 0;
    plot_init(&p, errors ? "errors-timeline" : "requests-timeline");
    snprintf(p.title, sizeof p.title, "%s per second over each level",
             errors ? "Errors" : "Requests");
    snprintf(p.x.label, sizeof p.x.label, "second of the level (s)");
    snprintf(p.y.label, sizeof p.y.label, "%s (per second)",
             errors ? "errors" : "completed requests");
    p.x.from_zero = p.y.from_zero = true;
    snprintf(p.caption, sizeof p.caption,
             "One line per level%s: %s in each whole second of the level, from its start.",
             page->n_sides > 1 ? " and side" : "",
             errors ? "requests that ended in an error" : "responses completed");
    bool any = false;
    for (size_t s = 0; s < page->n_sides; s++)
        for (size_t r = 0; r < page->sides[s].n_runs; r++) {
            const struct report_run *run = &page->sides[s].runs[r];
            for (size_t l = 0; l < run->n_levels && !failed; l++) {
                const struct report_level *level = &run->levels[l];
                const double *y = errors ? level->eps : level->rps;
                size_t n = errors ? level->eps_len : level->rps_len;
                if (y == NULL || n == 0) continue;
                double *x = arrays_new(&a, n);
                if (x == NULL) break;
                for (size_t i = 0; i < n; i++) {
                    x[i] = (double)(i + 1);
                    any |= !errors || y[i] > 0;
                }
                char name[96];
                report_series_name(page, s, r, level->clients, name, sizeof name);
                size_t q = index_of(levels, n_levels, level->clients);
                failed = plot_add(&p, name, palette_pick(page->n_sides, s, q), x, y, n, n <= 12);
            }
        }
    if (errors && !any) { /* no run had an error: a figure of zeros says less than the table */
        plot_free(&p);
        arrays_free(&a);
        return failed ? -1 : 0;
    }
    return finish(out, &p, &a, failed, figures);
}

/* The most levels any run of the page has: a figure across levels needs two. */
static size_t most_levels(const struct report_page *page)
{
    size_t most = 0;
    for (size_t s = 0; s < page->n_sides; s++)
        for (size_t r = 0; r < page->sides[s].n_runs; r++)
            most = page->sides[s].runs[r].n_levels > most ? page->sides[s].runs[r].n_levels : most;
    return most;
}

/* Does the run's x across levels become the requested rate? Only when every
 * level ran an open loop and the rates differ; otherwise the clients. */
static bool knee_by_rate(const struct report_run *run)
{
    double first = NAN;
    bool differ = false;
    for (size_t l = 0; l < run->n_levels; l++) {
        const struct report_meta_level *m = report_meta_level(&run->meta, run->levels[l].clients);
        if (!report_level_open_loop(&run->levels[l]) || m == NULL || !isfinite(m->requested_rate))
            return false;
        if (isnan(first)) first = m->requested_rate;
        differ |= m->requested_rate != first;
    }
    return differ;
}

static double knee_x(const struct report_run *run, const struct report_level *level, bool by_rate)
{
    if (by_rate) return report_meta_level(&run->meta, level->clients)->requested_rate;
    return (double)level->clients;
}

/* The knee: the smallest x whose requests/s reach 95% of the run's peak:
 * beyond it more clients (or rate) bought at most 5% more throughput. */
static bool find_knee(const double *x, const double *rps, size_t n, double *knee)
{
    double peak = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(rps[i]) && rps[i] > peak) peak = rps[i];
    if (n < 3 || !(peak > 0)) return false;
    bool found = false;
    for (size_t i = 0; i < n; i++)
        if (isfinite(rps[i]) && rps[i] >= 0.95 * peak && (!found || x[i] < *knee)) {
            *knee = x[i];
            found = true;
        }
    return found;
}

static void knee_axis(struct plot *p, const struct report_page *page, bool *by_rate_out)
{
    bool by_rate = true;
    double lo = INFINITY, hi = 0;
    for (size_t s = 0; s < page->n_sides; s++)
        for (size_t r = 0; r < page->sides[s].n_runs; r++) {
            const struct report_run *run = &page->sides[s].runs[r];
            by_rate &= knee_by_rate(run);
            for (size_t l = 0; l < run->n_levels; l++) {
                double c = (double)run->levels[l].clients;
                lo = c < lo ? c : lo;
                hi = c > hi ? c : hi;
            }
        }
    *by_rate_out = by_rate;
    p->x.scale = by_rate || hi >= 8 * lo ? PLOT_LOG : PLOT_LINEAR;
    p->x.from_zero = p->x.scale == PLOT_LINEAR;
    snprintf(p->x.label, sizeof p->x.label, "%s%s",
             by_rate ? "requested rate (requests per second)" : "clients (concurrent connections)",
             p->x.scale == PLOT_LOG ? ", log scale" : "");
}

static int knee_figure(FILE *out, const struct report_page *page, int *figures)
{
    struct plot p;
    struct arrays a = {0};
    int failed = 0;
    bool by_rate;
    plot_init(&p, "knee");
    knee_axis(&p, page, &by_rate);
    snprintf(p.title, sizeof p.title, "Throughput across levels: where it stops growing");
    snprintf(p.y.label, sizeof p.y.label, "requests per second (mean of the level)");
    p.y.from_zero = true;
    if (most_levels(page) < 2) { /* one level: nothing to read across */
        plot_free(&p);
        return 0;
    }
    char marks[2][96] = {"", ""};
    for (size_t s = 0; s < page->n_sides && !failed; s++)
        for (size_t r = 0; r < page->sides[s].n_runs && !failed; r++) {
            const struct report_run *run = &page->sides[s].runs[r];
            double *x = arrays_new(&a, run->n_levels), *y = arrays_new(&a, run->n_levels);
            if (x == NULL || y == NULL) break;
            for (size_t l = 0; l < run->n_levels; l++) {
                x[l] = knee_x(run, &run->levels[l], by_rate);
                y[l] = report_level_rps(&run->levels[l]);
            }
            /* levels may have run in any order: the line goes left to right */
            for (size_t i = 1; i < run->n_levels; i++)
                for (size_t j = i; j > 0 && x[j - 1] > x[j]; j--) {
                    double tx = x[j], ty = y[j];
                    x[j] = x[j - 1], y[j] = y[j - 1];
                    x[j - 1] = tx, y[j - 1] = ty;
                }
            failed = plot_add(&p, page->n_sides > 1 ? page->sides[s].label : "requests/s",
                              palette_pick(page->n_sides, s, 0), x, y, run->n_levels, true);
            double knee = 0;
            if (r == 0 && find_knee(x, y, run->n_levels, &knee)) {
                char v[HTML_NUMBER_MAX];
                snprintf(marks[s], sizeof marks[s], "%s%sknee: %s%s", page->sides[s].label,
                         page->n_sides > 1 ? " " : "", by_rate ? "" : "c", html_count(knee, v));
                plot_mark(&p, knee, marks[s]);
            }
        }
    snprintf(p.caption, sizeof p.caption,
             "Mean requests per second of each level against its %s. The dashed line marks the "
             "knee: the smallest level whose throughput reaches 95%% of the run's peak, beyond "
             "which more load bought at most 5%% more throughput.",
             by_rate ? "requested rate (open loop)" : "clients");
    return finish(out, &p, &a, failed, figures);
}

static int knee_latency_figure(FILE *out, const struct report_page *page, int *figures)
{
    struct plot p;
    struct arrays a = {0};
    int failed = 0;
    bool by_rate;
    plot_init(&p, "knee-latency");
    knee_axis(&p, page, &by_rate);
    snprintf(p.title, sizeof p.title, "Latency across levels: p50 and p99");
    p.y.scale = PLOT_LOG;
    snprintf(p.y.label, sizeof p.y.label, "latency (ms, log scale)");
    if (most_levels(page) < 2) {
        plot_free(&p);
        return 0;
    }
    for (size_t s = 0; s < page->n_sides && !failed; s++)
        for (size_t r = 0; r < page->sides[s].n_runs && !failed; r++) {
            const struct report_run *run = &page->sides[s].runs[r];
            size_t n = run->n_levels;
            double *x = arrays_new(&a, n), *p50 = arrays_new(&a, n), *p99 = arrays_new(&a, n);
            if (x == NULL || p50 == NULL || p99 == NULL) break;
            size_t order[n ? n : 1];
            for (size_t l = 0; l < n; l++)
                order[l] = l;
            for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && knee_x(run, &run->levels[order[j - 1]], by_rate) >
                                                knee_x(run, &run->levels[order[j]], by_rate);
                     j--) {
                    size_t t = order[j];
                    order[j] = order[j - 1];
                    order[j - 1] = t;
                }
            for (size_t i = 0; i < n; i++) {
                const struct report_level *level = &run->levels[order[i]];
                const struct report_curve *c = level->curves[REPORT_WARM].present
                                                   ? &level->curves[REPORT_WARM]
                                                   : &level->curves[REPORT_COLD];
                x[i] = knee_x(run, level, by_rate);
                p50[i] = c->present ? c->p50 : NAN;
                p99[i] = c->present ? c->p99 : NAN;
            }
            char name[64];
            snprintf(name, sizeof name, "%s%sp50", page->sides[s].label,
                     page->n_sides > 1 ? " " : "");
            failed = plot_add(&p, name, palette_pick(page->n_sides, s, 0), x, p50, n, true);
            snprintf(name, sizeof name, "%s%sp99", page->sides[s].label,
                     page->n_sides > 1 ? " " : "");
            if (!failed)
                failed = plot_add(&p, name, palette_pick(page->n_sides, s, 1), x, p99, n, true);
        }
    snprintf(p.caption, sizeof p.caption,
             "Median and 99th percentile of each level's warm latency (cold where a level has no "
             "warm request) against its %s.",
             by_rate ? "requested rate" : "clients");
    return finish(out, &p, &a, failed, figures);
}

/* ---- phases: horizontal stacked bars ---- */

static const char *const phase_labels[REPORT_PHASES] = {[REPORT_CONNECT] = "connect",
                                                        [REPORT_PROXY] = "proxy CONNECT",
                                                        [REPORT_TLS] = "TLS handshake",
                                                        [REPORT_TTFB] = "first byte"};

#define BAR_BAND 22

static int phases_figure(FILE *out, const struct report_page *page, const unsigned long *levels,
                         size_t n_levels, int *figures)
{
    size_t n_cat = n_levels * page->n_sides;
    double *medians = calloc(n_cat * REPORT_PHASES + 1, sizeof *medians);
    char(*names)[64] = calloc(n_cat + 1, sizeof *names);
    const char **cat = calloc(n_cat + 1, sizeof *cat);
    if (medians == NULL || names == NULL || cat == NULL) {
        free(medians);
        free(names);
        free(cat);
        return -1;
    }
    bool present[REPORT_PHASES] = {false};
    double widest = 0;
    /* categories bottom to top: the first level at the top */
    for (size_t l = 0; l < n_levels; l++)
        for (size_t s = 0; s < page->n_sides; s++) {
            size_t c = n_cat - 1 - (l * page->n_sides + s);
            report_series_name(page, s, 0, levels[l], names[c], sizeof names[c]);
            cat[c] = names[c];
            double total = 0;
            for (int ph = 0; ph < REPORT_PHASES; ph++) {
                double sum = 0;
                size_t runs = 0;
                for (size_t r = 0; r < page->sides[s].n_runs; r++) {
                    const struct report_level *level =
                        report_run_level(&page->sides[s].runs[r], levels[l]);
                    if (level && level->has_phase[ph]) {
                        sum += level->phase_median_ms[ph];
                        runs++;
                    }
                }
                medians[c * REPORT_PHASES + ph] = runs ? sum / (double)runs : 0;
                present[ph] |= runs > 0;
                total += medians[c * REPORT_PHASES + ph];
            }
            widest = total > widest ? total : widest;
        }
    struct plot_legend_entry entries[REPORT_PHASES];
    size_t n_entries = 0;
    for (int ph = 0; ph < REPORT_PHASES; ph++)
        if (present[ph])
            entries[n_entries++] = (struct plot_legend_entry){
                phase_labels[ph], {palette_fill((size_t)ph), "", MARKER_CIRCLE}, true, false};
    if (n_entries > 0) {
        double plot_h = BAR_BAND * (double)n_cat;
        struct plot_frame f;
        memset(&f, 0, sizeof f);
        f.left = 96;
        f.right = PLOT_WIDTH - 22;
        f.top = 42;
        f.bottom = 42 + plot_h;
        f.x.scale = PLOT_LINEAR;
        f.x.from_zero = true;
        snprintf(f.x.label, sizeof f.x.label, "milliseconds (medians of each phase, stacked)");
        plot_fit_axis(&f.x, 0, widest > 0 ? widest * 1.04 : 1);
        snprintf(f.y.label, sizeof f.y.label, "level");
        int height = (int)(f.bottom + 48 + plot_legend_height(entries, n_entries) + 4);
        plot_figure_open(out, "phases", "Phases of a cold request: connect, proxy, TLS, first byte",
                         height, figures);
        plot_draw_x_axis(out, &f);
        plot_draw_y_axis(out, &f, cat, n_cat);
        fputs("<g class=\"data\">\n", out);
        char a[HTML_NUMBER_MAX], b[HTML_NUMBER_MAX], c[HTML_NUMBER_MAX], d[HTML_NUMBER_MAX],
            v[HTML_NUMBER_MAX];
        for (size_t i = 0; i < n_cat; i++) {
            double x0 = 0, top = f.bottom - BAR_BAND * ((double)i + 1) + BAR_BAND * 0.15;
            fputs("<g class=\"bar\" data-category=\"", out);
            html_text(out, cat[i]);
            fputs("\">", out);
            for (int ph = 0; ph < REPORT_PHASES; ph++) {
                double ms = medians[i * REPORT_PHASES + ph];
                if (!present[ph] || !(ms > 0)) continue;
                fprintf(out,
                        "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" "
                        "stroke=\"#fff\"><title>",
                        html_coord(plot_px(&f, x0), a), html_coord(top, b),
                        html_coord(plot_px(&f, x0 + ms) - plot_px(&f, x0), c),
                        html_coord(BAR_BAND * 0.7, d), palette_fill((size_t)ph));
                html_printf(out, "%s %s: %s ms", cat[i], phase_labels[ph], html_value(ms, v));
                fputs("</title></rect>", out);
                x0 += ms;
            }
            fputs("</g>\n", out);
        }
        fputs("</g>\n", out);
        plot_draw_legend(out, entries, n_entries, f.bottom + 48);
        plot_figure_close(out, "The median of each phase of the requests that went through it, "
                               "laid end to end: a sum of medians, not the median of sums. The "
                               "first byte is timed from the request's start.");
    }
    free(medians);
    free(names);
    free(cat);
    return 0;
}

/* ---- watched trees across levels ---- */

/* A tree's figure across levels: requests per consumed CPU second, or PSS. */
static int watch_figure(FILE *out, const struct report_page *page, bool pss, int *figures)
{
    struct plot p;
    struct arrays a = {0};
    int failed = 0;
    plot_init(&p, pss ? "watch-pss" : "watch-cpu");
    snprintf(p.title, sizeof p.title, "%s",
             pss ? "Memory of each watched tree across levels (PSS)"
                 : "Work per CPU second of each watched tree across levels");
    bool by_rate;
    knee_axis(&p, page, &by_rate);
    if (by_rate) { /* the trees are read per level: their clients */
        p.x.scale = PLOT_LOG;
        snprintf(p.x.label, sizeof p.x.label, "clients (concurrent connections), log scale");
    }
    snprintf(p.y.label, sizeof p.y.label, "%s",
             pss ? "PSS, median of the level (MiB)" : "requests per consumed CPU second");
    p.y.from_zero = true;
    snprintf(p.caption, sizeof p.caption, "%s",
             pss ? "The median over each level's seconds of the tree's proportional set size: "
                   "its processes' memory, shared pages divided among their sharers."
                 : "Each level's mean requests per second over the tree's mean CPU seconds per "
                   "second: the requests the target served per second of CPU it consumed.");
    const char *trees[16];
    size_t n_trees = 0;
    for (size_t s = 0; s < page->n_sides && !failed; s++)
        for (size_t r = 0; r < page->sides[s].n_runs && !failed; r++) {
            const struct report_run *run = &page->sides[s].runs[r];
            const char *run_trees[16];
            size_t n_run_trees = 0;
            for (size_t l = 0; l < run->n_levels; l++)
                for (size_t w = 0; w < run->levels[l].n_watch; w++) {
                    const struct report_watch *watch = &run->levels[l].watch[w];
                    size_t k = 0;
                    while (k < n_run_trees && strcmp(run_trees[k], watch->tree) != 0)
                        k++;
                    if (watch->component == NULL && k == n_run_trees && n_run_trees < 16)
                        run_trees[n_run_trees++] = watch->tree;
                }
            for (size_t t = 0; t < n_run_trees && !failed; t++) {
                const char *tree = run_trees[t];
                size_t q = 0;
                while (q < n_trees && strcmp(trees[q], tree) != 0)
                    q++;
                if (q == n_trees && n_trees < 16) trees[n_trees++] = tree;
                double *x = arrays_new(&a, run->n_levels), *y = arrays_new(&a, run->n_levels);
                if (x == NULL || y == NULL) break;
                size_t n = 0;
                for (size_t l = 0; l < run->n_levels; l++)
                    for (size_t w = 0; w < run->levels[l].n_watch; w++) {
                        const struct report_watch *watch = &run->levels[l].watch[w];
                        if (watch->component != NULL || strcmp(watch->tree, tree) != 0) continue;
                        x[n] = (double)run->levels[l].clients;
                        y[n++] = pss ? (watch->has_pss ? watch->pss / (1024.0 * 1024.0) : NAN)
                                 : watch->has_cpu
                                     ? stats_requests_per_cpu_second(
                                           report_level_rps(&run->levels[l]), watch->cpu_cores)
                                     : NAN;
                    }
                for (size_t i = 1; i < n; i++) /* left to right */
                    for (size_t j = i; j > 0 && x[j - 1] > x[j]; j--) {
                        double tx = x[j], ty = y[j];
                        x[j] = x[j - 1], y[j] = y[j - 1];
                        x[j - 1] = tx, y[j - 1] = ty;
                    }
                char name[96];
                snprintf(name, sizeof name, "%s%s%s", page->sides[s].label,
                         page->n_sides > 1 ? " " : "", tree);
                failed = plot_add(&p, name, palette_pick(page->n_sides, s, q), x, y, n, true);
            }
        }
    return finish(out, &p, &a, failed, figures);
}

int report_watch_figures(FILE *out, const struct report_page *page, int *figures)
{
    int failed = watch_figure(out, page, false, figures);
    return failed | watch_figure(out, page, true, figures);
}

int report_figures_write(FILE *out, const struct report_page *page, int *figures)
{
    unsigned long *levels;
    size_t n_levels;
    if (report_page_levels(page, &levels, &n_levels) != 0) return -1;
    int failed = 0;
    fputs("<section id=\"latency\">\n<h2>Latency</h2>\n", out);
    failed |= latency_figure(out, page, levels, n_levels, REPORT_COLD, figures);
    failed |= latency_figure(out, page, levels, n_levels, REPORT_WARM, figures);
    failed |= phases_figure(out, page, levels, n_levels, figures);
    fputs("</section>\n<section id=\"timeline\">\n<h2>Over time</h2>\n", out);
    failed |= timeline_figure(out, page, levels, n_levels, false, figures);
    failed |= timeline_figure(out, page, levels, n_levels, true, figures);
    fputs("</section>\n", out);
    if (most_levels(page) >= 2) { /* one level has nothing to read across */
        fputs("<section id=\"levels-figures\">\n<h2>Across levels</h2>\n", out);
        failed |= knee_figure(out, page, figures);
        failed |= knee_latency_figure(out, page, figures);
        fputs("</section>\n", out);
    }
    bool open_loop = false;
    for (size_t s = 0; s < page->n_sides; s++)
        for (size_t r = 0; r < page->sides[s].n_runs; r++)
            for (size_t l = 0; l < page->sides[s].runs[r].n_levels; l++)
                open_loop |= page->sides[s].runs[r].levels[l].curves[REPORT_SEND_LAG].present;
    if (open_loop) {
        fputs("<section id=\"open-loop-figures\">\n<h2>Open loop</h2>\n", out);
        failed |= latency_figure(out, page, levels, n_levels, REPORT_SEND_LAG, figures);
        fputs("</section>\n", out);
    }
    free(levels);
    return failed ? -1 : 0;
}
