/* reportpage.c — the report page around its figures (see reportpage.h): the
 * style sheet, the verdict and the A/B table that head a page with a base,
 * and the tables per level (counts and errors, latency, watched trees, open
 * loop). The page is XHTML-compatible: well-formed XML that any browser
 * reads as HTML, with nothing fetched. */
#include "stats/report/reportpage.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/math/cpuwork.h"
#include "stats/report/reportfigs.h"
#include "stats/report/reportidentity.h"
#include "stats/write/htmlout.h"
#include "stats/compare/plainverdict.h"
#include "stats/write/svgplot.h"

static const char style_sheet[] =
    "body{font:14px/1.45 sans-serif;color:#1a1a1a;background:#fff;margin:1.5em auto;"
    "max-width:1100px;padding:0 1em}\n"
    "h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin:1.6em 0 .5em;"
    "border-bottom:1px solid #bbb}\n"
    "table{border-collapse:collapse;margin:.4em 0 1em;font-size:13px}\n"
    "th,td{border:1px solid #ccc;padding:2px 6px;vertical-align:top}"
    "th{background:#f0f0f0;text-align:left}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "table.identity th{width:11em}\n"
    ".warn{background:#fde8d8;font-weight:bold}.regressed{background:#fde8d8}"
    ".improved{background:#dff0e6}.changed{background:#e6ecf7}\n"
    "figure{margin:1em 0;break-inside:avoid}figcaption{font-size:12px;color:#444}\n"
    "p.verdict{font-size:1.2em;margin:.8em 0 .2em;padding:.3em .6em;border-left:4px solid #555;"
    "background:#f6f6f6}\n" PLOT_STYLE ".note{color:#444}\n"
    "@media print{body{max-width:none}section{break-inside:auto}}\n";

/* A table row's label: the series name, and the run's number when a side has several. */
static void row_label(const struct report_page *page, size_t side, size_t run,
                      unsigned long clients, char *buf, size_t size)
{
    const struct report_side *s = &page->sides[side];
    char number[24] = "";
    if (s->n_runs > 1) snprintf(number, sizeof number, " #%zu", run + 1);
    if (page->n_sides > 1)
        snprintf(buf, size, "%s%s c%lu", s->label, number, clients);
    else
        snprintf(buf, size, "c%lu%s", clients, number);
}

/* ---- cells ---- */

static void cell_text(FILE *out, const char *s)
{
    fputs("<td>", out);
    html_text(out, s);
    fputs("</td>", out);
}

static void cell_count(FILE *out, bool has, double x)
{
    char buf[HTML_NUMBER_MAX];
    fprintf(out, "<td class=\"n\">%s</td>", has ? html_count(x, buf) : "");
}

static void cell_value(FILE *out, double x)
{
    char buf[HTML_NUMBER_MAX];
    fprintf(out, "<td class=\"n\">%s</td>", isfinite(x) ? html_value(x, buf) : "");
}

static void cell_bytes(FILE *out, bool has, double x)
{
    char buf[HTML_NUMBER_MAX];
    fprintf(out, "<td class=\"n\">%s</td>", has ? html_bytes(x, buf) : "");
}

static void header_row(FILE *out, const char *const *names, size_t n)
{
    fputs("<tr>", out);
    for (size_t i = 0; i < n; i++) {
        fputs("<th>", out);
        html_text(out, names[i]);
        fputs("</th>", out);
    }
    fputs("</tr>\n", out);
}

#define COUNT_OF(a) (sizeof(a) / sizeof *(a))

/* ---- the verdict and the A/B table ---- */

/* The page's first words on an A/B: compare's rows in a sentence. */
static void verdict(FILE *out, const struct report_page *page)
{
    char opening[160], clauses[2048];
    stats_plain_verdict(page->comparison, page->compare_settings, opening, sizeof opening, clauses,
                        sizeof clauses);
    fputs("<section id=\"verdict\">\n<p class=\"verdict\"><strong>", out);
    html_text(out, opening);
    fputs("</strong>", out);
    if (clauses[0]) {
        fputs(": ", out);
        html_text(out, clauses);
    }
    fputs("</p>\n<p class=\"note\">", out);
    html_printf(out,
                "In words, the judgement of the table below (loadstats compare): each "
                "percentage is new/base - 1 of the %s, with its %g%% interval in brackets.",
                stats_statistic_name(page->compare_settings->bootstrap.statistic),
                page->compare_settings->bootstrap.confidence * 100);
    fputs("</p>\n</section>\n", out);
}

static void ratio_text(char *buf, size_t size, double x)
{
    if (isfinite(x))
        snprintf(buf, size, fabs(x) < 1000 ? "%.4f" : "%.3g", x);
    else
        snprintf(buf, size, "%s", isnan(x) ? "n/a" : "inf");
}

static void ab_table(FILE *out, const struct report_page *page)
{
    const struct stats_compare_report *report = page->comparison;
    const struct stats_compare_settings *settings = page->compare_settings;
    static const char *const headers[] = {"verdict", "metric",   "unit",  "base", "new",
                                          "ratio",   "interval", "delta", "runs", "note"};
    fputs("<section id=\"ab\">\n<h2>Base against new</h2>\n<p class=\"note\">", out);
    html_printf(out,
                "Every metric both sides have, as loadstats compare judges it: the %s of each "
                "side (the mean over its runs of each run's), the ratio new/base with its %g%% "
                "interval, run-to-run noise included where a side has several runs; a move is "
                "called when its interval lies beyond x%g (time resolution %g ms).",
                stats_statistic_name(settings->bootstrap.statistic),
                settings->bootstrap.confidence * 100, settings->thresholds.maximum_factor,
                settings->thresholds.minimum_time_resolution_ms);
    fputs("</p>\n<table class=\"ab\">\n", out);
    header_row(out, headers, COUNT_OF(headers));
    for (size_t i = 0; i < report->n_rows; i++) {
        const struct stats_compare_row *row = &report->rows[i];
        const struct stats_comparison *c = &row->result;
        const char *verdict = stats_verdict_name(c->verdict);
        fprintf(out, "<tr class=\"%s\">", verdict);
        cell_text(out, verdict);
        cell_text(out, row->key);
        cell_text(out, stats_unit_symbol(row->unit));
        cell_value(out, c->base);
        cell_value(out, c->current);
        char a[64], b[64], text[160];
        ratio_text(a, sizeof a, c->ratio);
        fprintf(out, "<td class=\"n\">%s</td>", a);
        ratio_text(a, sizeof a, c->ratio_low);
        ratio_text(b, sizeof b, c->ratio_high);
        if (stats_comparison_undefined(c))
            fputs("<td class=\"n\">undefined</td>", out);
        else
            fprintf(out, "<td class=\"n\">%s – %s</td>", a, b);
        if (isfinite(c->delta_pct))
            snprintf(a, sizeof a, "%+.2f%%", c->delta_pct);
        else
            snprintf(a, sizeof a, "n/a");
        fprintf(out, "<td class=\"n\">%s</td>", a);
        fprintf(out, "<td class=\"n\">%zu/%zu</td>", c->base_runs, c->new_runs);
        stats_comparison_note(c, &settings->thresholds, text, sizeof text);
        cell_text(out, text);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n<p class=\"summary\">", out);
    char tally[256];
    stats_compare_tally_text(report, tally, sizeof tally);
    html_text(out, tally);
    if (report->n_only_base || report->n_only_new)
        html_printf(out, "; %zu metrics only in base and %zu only in new were not compared",
                    report->n_only_base, report->n_only_new);
    fputs("</p>\n</section>\n", out);
}

/* ---- per level ---- */

/* Calls row(page, side, run, level) for each level in page order, then side, then run. */
typedef void (*row_fn)(FILE *out, const struct report_page *page, size_t s, size_t r,
                       const struct report_level *level);

static void each_row(FILE *out, const struct report_page *page, const unsigned long *levels,
                     size_t n_levels, row_fn row)
{
    for (size_t l = 0; l < n_levels; l++)
        for (size_t s = 0; s < page->n_sides; s++)
            for (size_t r = 0; r < page->sides[s].n_runs; r++) {
                const struct report_level *level =
                    report_run_level(&page->sides[s].runs[r], levels[l]);
                if (level) row(out, page, s, r, level);
            }
}

static void label_cell(FILE *out, const struct report_page *page, size_t s, size_t r,
                       unsigned long clients)
{
    char label[96];
    row_label(page, s, r, clients, label, sizeof label);
    fputs("<th>", out);
    html_text(out, label);
    fputs("</th>", out);
}

/* What the self-watch measured of a limited level, as far as the descriptor
 * says: its busiest loop's shares of the level, its tick's p99 lateness. */
static void write_self_watch_shares(FILE *out, const struct report_meta_level *meta)
{
    if (isfinite(meta->on_cpu)) fprintf(out, ": on a CPU %.0f%%", 100 * meta->on_cpu);
    if (isfinite(meta->waiting_for_cpu))
        fprintf(out, "%s waiting for one %.0f%%", isfinite(meta->on_cpu) ? "," : ":",
                100 * meta->waiting_for_cpu);
    if (isfinite(meta->tick_lag_p99_ms))
        fprintf(out, "%s its tick %.1f ms late at p99",
                isfinite(meta->on_cpu) || isfinite(meta->waiting_for_cpu) ? "," : ":",
                meta->tick_lag_p99_ms);
}

static void counts_row(FILE *out, const struct report_page *page, size_t s, size_t r,
                       const struct report_level *level)
{
    const struct report_run *run = &page->sides[s].runs[r];
    const struct report_meta_level *meta = report_meta_level(&run->meta, level->clients);
    bool bad = (level->has_count[REPORT_ERRORS] && level->count[REPORT_ERRORS] > 0) ||
               (level->has_count[REPORT_UNFINISHED] && level->count[REPORT_UNFINISHED] > 0) ||
               (meta && (meta->interrupted || meta->generator_limited));
    fprintf(out, "<tr%s>", bad ? " class=\"warn\"" : "");
    label_cell(out, page, s, r, level->clients);
    cell_value(out, report_level_seconds(run, level));
    cell_count(out, level->has_count[REPORT_ATTEMPTS], level->count[REPORT_ATTEMPTS]);
    cell_count(out, level->has_count[REPORT_REQUESTS], level->count[REPORT_REQUESTS]);
    cell_value(out, report_level_rps(level));
    cell_count(out, level->has_count[REPORT_ERRORS], level->count[REPORT_ERRORS]);
    fputs("<td>", out);
    char buf[HTML_NUMBER_MAX];
    for (size_t c = 0; c < level->n_classes; c++) {
        if (c) fputs("<br/>", out);
        fputs("<b>", out);
        html_text(out, level->classes[c].name);
        fprintf(out, "</b> %s", html_count(level->classes[c].count, buf));
        for (size_t i = 0; meta && i < meta->n_error_reasons; i++)
            if (strcmp(meta->error_reasons[i].name, level->classes[c].name) == 0) {
                fputs(": ", out);
                html_text(out, meta->error_reasons[i].value);
            }
    }
    if (meta && meta->interrupted) fputs("<br/>interrupted", out);
    if (meta && meta->generator_limited) {
        fputs("<br/>the generator limited this measurement (its self-watch", out);
        write_self_watch_shares(out, meta);
        fputs(")", out);
    }
    fputs("</td>", out);
    cell_count(out, level->has_count[REPORT_UNFINISHED], level->count[REPORT_UNFINISHED]);
    cell_count(out, level->has_count[REPORT_UNSENT], level->count[REPORT_UNSENT]);
    cell_count(out, level->has_count[REPORT_CONNECTIONS], level->count[REPORT_CONNECTIONS]);
    cell_count(out, level->has_count[REPORT_RECONNECTS], level->count[REPORT_RECONNECTS]);
    cell_bytes(out, level->has_count[REPORT_BYTES_RECEIVED], level->count[REPORT_BYTES_RECEIVED]);
    fputs("</tr>\n", out);
}

static void latency_cells(FILE *out, const struct report_curve *c)
{
    const double v[] = {c->p50, c->p90, c->p99, c->p999, c->max};
    for (size_t i = 0; i < COUNT_OF(v); i++)
        cell_value(out, c->present ? v[i] : NAN);
}

static void latency_row(FILE *out, const struct report_page *page, size_t s, size_t r,
                        const struct report_level *level)
{
    fputs("<tr>", out);
    label_cell(out, page, s, r, level->clients);
    cell_count(out, level->curves[REPORT_COLD].present, (double)level->curves[REPORT_COLD].n);
    latency_cells(out, &level->curves[REPORT_COLD]);
    cell_count(out, level->curves[REPORT_WARM].present, (double)level->curves[REPORT_WARM].n);
    latency_cells(out, &level->curves[REPORT_WARM]);
    fputs("</tr>\n", out);
}

static void levels_tables(FILE *out, const struct report_page *page, const unsigned long *levels,
                          size_t n_levels)
{
    static const char *const counts[] = {"level",      "seconds",     "attempts",   "requests",
                                         "requests/s", "errors",      "by class",   "unfinished",
                                         "unsent",     "connections", "reconnects", "received"};
    static const char *const latency[] = {"level",  "cold n", "p50", "p90", "p99",   "p99.9", "max",
                                          "warm n", "p50",    "p90", "p99", "p99.9", "max"};
    fputs("<section id=\"levels\">\n<h2>Levels</h2>\n<table class=\"counts\">\n", out);
    header_row(out, counts, COUNT_OF(counts));
    each_row(out, page, levels, n_levels, counts_row);
    fputs("</table>\n<p class=\"note\">seconds is how long the level ran; requests/s is the "
          "mean of its per-second timeline over those seconds; the error classes carry the first "
          "reason the generator gave.</p>\n"
          "<table class=\"latency\">\n"
          "<tr><th></th><th colspan=\"6\">cold latency (ms)</th>"
          "<th colspan=\"6\">warm latency (ms)</th></tr>\n",
          out);
    header_row(out, latency, COUNT_OF(latency));
    each_row(out, page, levels, n_levels, latency_row);
    fputs("</table>\n</section>\n", out);
}

/* ---- watched trees ---- */

static void watch_row(FILE *out, const struct report_page *page, size_t s, size_t r,
                      const struct report_level *level)
{
    double rps = report_level_rps(level);
    for (size_t w = 0; w < level->n_watch; w++) {
        const struct report_watch *watch = &level->watch[w];
        fputs("<tr>", out);
        label_cell(out, page, s, r, level->clients);
        cell_text(out, watch->tree);
        cell_text(out, watch->component ? watch->component : "(the whole tree)");
        cell_value(out, watch->has_cpu ? watch->cpu_cores : NAN);
        cell_bytes(out, watch->has_rss, watch->rss);
        cell_bytes(out, watch->has_pss, watch->pss);
        cell_bytes(out, watch->has_uss, watch->uss);
        cell_value(out, watch->component == NULL && watch->has_cpu
                            ? stats_requests_per_cpu_second(rps, watch->cpu_cores)
                            : NAN);
        fputs("</tr>\n", out);
    }
}

static int watch_section(FILE *out, const struct report_page *page, const unsigned long *levels,
                         size_t n_levels, int *figures)
{
    bool any = false;
    for (size_t s = 0; s < page->n_sides; s++)
        for (size_t r = 0; r < page->sides[s].n_runs; r++)
            for (size_t l = 0; l < page->sides[s].runs[r].n_levels; l++)
                any |= page->sides[s].runs[r].levels[l].n_watch > 0;
    if (!any) return 0;
    static const char *const headers[] = {"level", "tree", "command", "CPU (cores)",
                                          "RSS",   "PSS",  "USS",     "requests per CPU second"};
    fputs("<section id=\"watch\">\n<h2>Watched process trees (--watch)</h2>\n"
          "<table class=\"watch\">\n",
          out);
    header_row(out, headers, COUNT_OF(headers));
    each_row(out, page, levels, n_levels, watch_row);
    fputs("</table>\n<p class=\"note\">CPU is the mean of CPU seconds consumed per second of "
          "the level; RSS, PSS and USS are medians over its seconds. Requests per CPU second is "
          "the level's mean requests per second over the tree's CPU cores: the work the target "
          "did per second of CPU it consumed.</p>\n",
          out);
    int failed = report_watch_figures(out, page, figures);
    fputs("</section>\n", out);
    return failed;
}

/* ---- open loop ---- */

static void open_loop_row(FILE *out, const struct report_page *page, size_t s, size_t r,
                          const struct report_level *level)
{
    if (!report_level_open_loop(level)) return;
    const struct report_run *run = &page->sides[s].runs[r];
    const struct report_meta_level *meta = report_meta_level(&run->meta, level->clients);
    bool unsent = level->has_count[REPORT_UNSENT] && level->count[REPORT_UNSENT] > 0;
    fprintf(out, "<tr%s>", unsent ? " class=\"warn\"" : "");
    label_cell(out, page, s, r, level->clients);
    cell_value(out, meta ? meta->requested_rate : NAN);
    cell_value(out, meta ? meta->achieved_rate : NAN);
    cell_count(out, true, level->count[REPORT_SCHEDULED]);
    cell_count(out, level->has_count[REPORT_ATTEMPTS], level->count[REPORT_ATTEMPTS]);
    cell_count(out, level->has_count[REPORT_UNSENT], level->count[REPORT_UNSENT]);
    const struct report_curve *lag = &level->curves[REPORT_SEND_LAG];
    cell_value(out, lag->present ? lag->p50 : NAN);
    cell_value(out, lag->present ? lag->p99 : NAN);
    cell_value(out, lag->present ? lag->max : NAN);
    fputs("</tr>\n", out);
}

static void open_loop_table(FILE *out, const struct report_page *page, const unsigned long *levels,
                            size_t n_levels)
{
    bool any = false;
    for (size_t s = 0; s < page->n_sides; s++)
        for (size_t r = 0; r < page->sides[s].n_runs; r++)
            for (size_t l = 0; l < page->sides[s].runs[r].n_levels; l++)
                any |= report_level_open_loop(&page->sides[s].runs[r].levels[l]);
    if (!any) return;
    static const char *const headers[] = {"level",
                                          "requested rate (req/s)",
                                          "achieved rate (req/s)",
                                          "scheduled",
                                          "attempts",
                                          "unsent",
                                          "send lag p50 (ms)",
                                          "p99 (ms)",
                                          "max (ms)"};
    fputs("<section id=\"open-loop\">\n<h2>Open loop: the schedule against what was sent</h2>\n"
          "<table class=\"open-loop\">\n",
          out);
    header_row(out, headers, COUNT_OF(headers));
    each_row(out, page, levels, n_levels, open_loop_row);
    fputs("</table>\n<p class=\"note\">scheduled = attempts + unsent; the send lag is the "
          "generator's own lateness, from a request's scheduled moment to its bytes leaving.</p>\n"
          "</section>\n",
          out);
}

/* ---- the page ---- */

static void page_title(const struct report_page *page, char *buf, size_t size)
{
    const struct report_run *first = &page->sides[page->n_sides - 1].runs[0];
    const char *tool = first->meta.tool ? first->meta.tool : "loadgen";
    const char *target = first->meta.target ? first->meta.target : first->path;
    if (page->n_sides > 1)
        snprintf(buf, size, "%s report: base against new, %s", tool, target);
    else
        snprintf(buf, size, "%s report: %s", tool, target);
}

int report_page_write(FILE *out, const struct report_page *page)
{
    unsigned long *levels;
    size_t n_levels;
    if (report_page_levels(page, &levels, &n_levels) != 0) return -1;
    char title[400];
    page_title(page, title, sizeof title);
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>",
          out);
    html_text(out, title);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style_sheet);
    html_text(out, title);
    fputs("</h1>\n", out);
    char buf[HTML_NUMBER_MAX];
    fprintf(out, "<p class=\"note\">Written by loadstats report from the raw samples: %s level%s",
            html_count((double)n_levels, buf), n_levels == 1 ? "" : "s");
    for (size_t s = 0; s < page->n_sides; s++) {
        fprintf(out, "%s%s run%s", s ? ", against " : ", ",
                html_count((double)page->sides[s].n_runs, buf),
                page->sides[s].n_runs == 1 ? "" : "s");
        if (page->n_sides > 1) {
            fputs(" as ", out);
            html_text(out, page->sides[s].label);
        }
    }
    fputs(".</p>\n", out);
    if (page->n_sides > 1 && page->comparison) {
        verdict(out, page);
        ab_table(out, page);
    }
    int failed = report_identity_write(out, page);
    levels_tables(out, page, levels, n_levels);
    int figures = 0;
    failed |= report_figures_write(out, page, &figures);
    failed |= watch_section(out, page, levels, n_levels, &figures);
    open_loop_table(out, page, levels, n_levels);
    fputs("</body>\n</html>\n", out);
    free(levels);
    return failed;
}
