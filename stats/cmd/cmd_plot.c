/* cmd_plot.c — `loadstats plot FILE -o OUT.svg`: one self-contained SVG with a
 * row per level: its latency percentile curves on HdrHistogram's 1/(1-p) axis
 * (where the tail gets as much room as the median) and its requests_per_second
 * timeline. The curves, figures, colours and escaping are the report page's
 * (reportrun.c, svgplot.c, palette.c, htmlout.c), so both commands write the
 * same SVG; this file gathers each level's metrics and lays the rows out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stats/cmd/cmd.h"
#include "stats/math/stats.h"
#include "stats/write/htmlout.h"
#include "stats/read/metrickind.h"
#include "stats/report/reportrun.h"
#include "stats/write/svgplot.h"

static const struct cmd_option plot_options[] = {
    {"output", 'o', true, "-o, --output OUT", "write the SVG to OUT (default: standard output)"},
};

static int take_option(void *settings, int id, const char *value)
{
    const char **output = settings;
    if (id == 'o') *output = value;
    return EXIT_FINE;
}

static const struct cmd_spec plot_spec = {
    .name = "plot",
    .synopsis = "[-o OUT.svg] FILE",
    .about = "Draws a collector document (FILE, or - for stdin) as one self-contained SVG: per\n"
             "level, the latency percentile curves (every latency_* metric in a time unit: cold\n"
             "and warm) in milliseconds on HdrHistogram's percentile axis (0%, 90%, 99%, 99.9%,\n"
             "... as far as the samples reach), and the requests_per_second timeline, second by\n"
             "second; drawn as loadstats report draws its figures.\n",
    .epilog = "Exit status: 0 drawn, 1 the document is invalid or has nothing to draw, 2 usage or\n"
              "I/O error, 4 out of memory.\n",
    .help_column = 20,
    .options = plot_options,
    .n_options = sizeof plot_options / sizeof *plot_options,
    .operands = CMD_ONE_FILE,
    .take = take_option,
};

/* ---- the document's levels ---- */

struct curve {
    char *name;      /* the metric after its level: "latency_warm_ms" */
    size_t quantity; /* its place among the document's latency names: its style */
    struct report_curve *points;
};

struct level {
    bool has_level;
    unsigned long clients;
    struct curve *curves;
    size_t curve_count;
    char *rate_name;
    double *rate, *seconds; /* per second of the level: its value, and which second (1, 2, ...) */
    size_t rate_len;
};

struct levels {
    struct level *levels;
    size_t count;
    char **names; /* latency metric names in the order first seen, for their styles */
    size_t n_names;
};

static struct level *level_for(struct levels *doc, bool has_level, unsigned long clients)
{
    for (size_t i = 0; i < doc->count; i++)
        if (doc->levels[i].has_level == has_level && doc->levels[i].clients == clients)
            return &doc->levels[i];
    struct level *grown = realloc(doc->levels, (doc->count + 1) * sizeof *grown);
    if (grown == NULL) return NULL;
    doc->levels = grown;
    struct level *level = &doc->levels[doc->count++];
    memset(level, 0, sizeof *level);
    level->has_level = has_level;
    level->clients = clients;
    return level;
}

/* The place of a latency name among those seen, added when new; -1 when memory ran out.
 * The same metric keeps one style on every level. */
static long quantity_of(struct levels *doc, const char *name)
{
    for (size_t i = 0; i < doc->n_names; i++)
        if (strcmp(doc->names[i], name) == 0) return (long)i;
    char **grown = realloc(doc->names, (doc->n_names + 1) * sizeof *grown);
    if (grown == NULL) return -1;
    doc->names = grown;
    if ((doc->names[doc->n_names] = strdup(name)) == NULL) return -1;
    return (long)doc->n_names++;
}

static int add_curve(struct levels *doc, struct level *level, const char *name,
                     struct docread_metric *metric)
{
    long quantity = quantity_of(doc, name);
    if (quantity < 0) return -1;
    struct curve *grown = realloc(level->curves, (level->curve_count + 1) * sizeof *grown);
    if (grown == NULL) return -1;
    level->curves = grown;
    struct curve *curve = &level->curves[level->curve_count];
    curve->quantity = (size_t)quantity;
    curve->name = strdup(name);
    curve->points = malloc(sizeof *curve->points);
    if (curve->name == NULL || curve->points == NULL) {
        free(curve->name);
        free(curve->points);
        return -1;
    }
    level->curve_count++;
    double to_ms = metric->unit == STATS_UNIT_SECONDS       ? 1000.0
                   : metric->unit == STATS_UNIT_NANOSECONDS ? 1e-6
                                                            : 1.0;
    for (size_t i = 0; i < metric->n; i++)
        metric->samples[i] *= to_ms;
    report_curve_fill(curve->points, metric->samples, metric->n);
    return 0;
}

/* The level's timeline: requests_per_second, or the first metric in its unit
 * when the level has none of that name. */
static int take_timeline(struct level *level, const char *name, struct docread_metric *metric)
{
    if (level->rate != NULL && strcmp(name, "requests_per_second") != 0) return 0;
    char *rate_name = strdup(name);
    double *seconds = malloc((metric->n ? metric->n : 1) * sizeof *seconds);
    if (rate_name == NULL || seconds == NULL) {
        free(rate_name);
        free(seconds);
        return -1;
    }
    for (size_t i = 0; i < metric->n; i++)
        seconds[i] = (double)(i + 1); /* each second's count, at the second's end */
    free(level->rate_name);
    free(level->rate);
    free(level->seconds);
    level->rate_name = rate_name;
    level->seconds = seconds;
    level->rate = metric->samples;
    level->rate_len = metric->n;
    metric->samples = NULL;
    return 0;
}

static int collect_metric(void *ctx, struct docread_metric *metric)
{
    struct levels *doc = ctx;
    unsigned long clients = 0;
    const char *name = metric->key;
    bool has_level = stats_key_level(metric->key, &clients, &name);
    bool latency = strncmp(name, "latency", 7) == 0 && stats_unit_is_time(metric->unit);
    bool timeline = metric->unit == STATS_UNIT_REQUESTS_PER_SECOND;
    if (!latency && !timeline) return 0;

    struct level *level = level_for(doc, has_level, clients);
    if (level == NULL || (latency && add_curve(doc, level, name, metric) != 0) ||
        (timeline && take_timeline(level, name, metric) != 0))
        return no_memory("plot", "at metric \"%s\"", metric->key);
    return 0;
}

static void levels_free(struct levels *doc)
{
    for (size_t i = 0; i < doc->count; i++) {
        struct level *level = &doc->levels[i];
        for (size_t c = 0; c < level->curve_count; c++) {
            free(level->curves[c].name);
            free(level->curves[c].points);
        }
        free(level->curves);
        free(level->rate_name);
        free(level->rate);
        free(level->seconds);
    }
    free(doc->levels);
    for (size_t i = 0; i < doc->n_names; i++)
        free(doc->names[i]);
    free(doc->names);
}

static int by_clients(const void *a, const void *b)
{
    const struct level *x = a, *y = b;
    if (x->has_level != y->has_level) return x->has_level ? -1 : 1;
    return (x->clients > y->clients) - (x->clients < y->clients);
}

/* ---- the figures of a level ---- */

struct row {
    struct plot latency, timeline; /* each drawn when it has data, else a line says why */
    bool draw_latency, draw_timeline;
    int height; /* of its taller figure */
};

/* "latency_warm_ms (n=5,000, p50 0.412 ms, p99 1.2 ms)": a curve's legend. */
static void curve_name(const struct curve *curve, char *buf, size_t size)
{
    char n[HTML_NUMBER_MAX], p50[HTML_NUMBER_MAX], p99[HTML_NUMBER_MAX];
    snprintf(buf, size, "%.64s (n=%s, p50 %s ms, p99 %s ms)", curve->name,
             html_count((double)curve->points->n, n), html_value(curve->points->p50, p50),
             html_value(curve->points->p99, p99));
}

static int latency_figure(struct plot *p, const struct level *level)
{
    plot_init(p, "latency");
    snprintf(p->title, sizeof p->title, "Latency by percentile");
    p->x.scale = PLOT_NINES;
    snprintf(p->x.label, sizeof p->x.label, "percentile (log scale of 1/(1-p))");
    p->y.scale = PLOT_LOG;
    snprintf(p->y.label, sizeof p->y.label, "latency (ms), log scale");
    for (size_t c = 0; c < level->curve_count; c++) {
        const struct curve *curve = &level->curves[c];
        char name[128];
        curve_name(curve, name, sizeof name);
        if (plot_add(p, name, palette_series(curve->quantity), curve->points->x, curve->points->y,
                     curve->points->points, false) != 0)
            return -1;
    }
    return 0;
}

static int timeline_figure(struct plot *p, const struct level *level)
{
    plot_init(p, "timeline");
    snprintf(p->title, sizeof p->title, "Requests per second over the level");
    snprintf(p->x.label, sizeof p->x.label, "second of the level (s)");
    snprintf(p->y.label, sizeof p->y.label, "requests per second (req/s)");
    p->x.from_zero = p->y.from_zero = true;
    if (level->rate == NULL) return 0;
    char name[128], mean[HTML_NUMBER_MAX];
    snprintf(name, sizeof name, "%.64s (%zu s, mean %s req/s)", level->rate_name, level->rate_len,
             html_value(stats_mean(level->rate, level->rate_len), mean));
    return plot_add(p, name, palette_series(0), level->seconds, level->rate, level->rate_len,
                    level->rate_len <= 12);
}

/* A row's figures and heights. Returns 0, or -1 when memory ran out. */
static int row_make(struct row *row, const struct level *level)
{
    memset(row, 0, sizeof *row);
    if (latency_figure(&row->latency, level) != 0 || timeline_figure(&row->timeline, level) != 0)
        return -1;
    row->draw_latency = plot_has_data(&row->latency);
    row->draw_timeline = plot_has_data(&row->timeline);
    int latency = row->draw_latency ? plot_height(&row->latency) : 0;
    int timeline = row->draw_timeline ? plot_height(&row->timeline) : 0;
    if (latency < 0 || timeline < 0) return -1;
    row->height = latency > timeline ? latency : timeline;
    if (row->height < 120) row->height = 120; /* room for the line that says why not */
    return 0;
}

/* ---- the SVG document ---- */

#define MARGIN 20
#define HEADER 64      /* the title and what the rows show */
#define LEVEL_LABEL 40 /* a row's level, above its figures */
#define ROW_GAP 16
#define FIGURE_GAP 20
#define WIDTH (2 * MARGIN + 2 * PLOT_WIDTH + FIGURE_GAP)

static const char style[] =
    PLOT_STYLE "text{font-family:sans-serif;fill:#222}.title{font-size:18px;font-weight:bold}"
               ".level{font-size:15px;font-weight:bold}.label{font-size:12px}\n";

static void no_figure(FILE *out, double x, double top, const char *why)
{
    char a[HTML_NUMBER_MAX], b[HTML_NUMBER_MAX];
    fprintf(out, "<text class=\"label\" x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>\n",
            html_coord(x + PLOT_WIDTH / 2.0, a), html_coord(top + 60, b), why);
}

static int draw_row(FILE *out, const struct level *level, const struct row *row, double top)
{
    if (level->has_level)
        fprintf(out, "<text x=\"%d\" y=\"%.0f\" class=\"level\">c%lu: %lu client%s</text>\n",
                MARGIN, top + 26, level->clients, level->clients, level->clients == 1 ? "" : "s");
    else
        fprintf(out, "<text x=\"%d\" y=\"%.0f\" class=\"level\">without a level</text>\n", MARGIN,
                top + 26);
    double figures = top + LEVEL_LABEL, left = MARGIN, right = MARGIN + PLOT_WIDTH + FIGURE_GAP;
    if (row->draw_latency) {
        if (plot_write_svg(out, &row->latency, left, figures) != 0) return -1;
    } else {
        no_figure(out, left, figures,
                  level->curve_count ? "no latency above 0 ms at this level (a log scale)"
                                     : "no latency metrics at this level");
    }
    if (row->draw_timeline) return plot_write_svg(out, &row->timeline, right, figures);
    no_figure(out, right, figures, "no requests_per_second timeline at this level");
    return 0;
}

/* Writes the whole SVG. Returns 0, or -1 when memory ran out. */
static int draw(FILE *out, const struct levels *doc, const char *title)
{
    struct row *rows = calloc(doc->count, sizeof *rows);
    if (rows == NULL) return -1;
    int failed = 0;
    double height = HEADER;
    for (size_t i = 0; i < doc->count && !failed; i++) {
        failed = row_make(&rows[i], &doc->levels[i]);
        height += LEVEL_LABEL + rows[i].height + ROW_GAP;
    }
    if (!failed) {
        fprintf(out,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
                "viewBox=\"0 0 %d %.0f\">\n<title>",
                WIDTH, height, WIDTH, height);
        html_text(out, title);
        fprintf(out, "</title>\n<style>\n%s</style>\n", style);
        fprintf(out, "<rect width=\"%d\" height=\"%.0f\" fill=\"white\"/>\n", WIDTH, height);
        fputs("<text x=\"20\" y=\"32\" class=\"title\">", out);
        html_text(out, title);
        fputs("</text>\n<text x=\"20\" y=\"52\" class=\"label\">latency percentiles (left) and "
              "completed requests per second (right), one row per level</text>\n",
              out);
        double top = HEADER;
        for (size_t i = 0; i < doc->count && !failed; i++) {
            failed = draw_row(out, &doc->levels[i], &rows[i], top);
            top += LEVEL_LABEL + rows[i].height + ROW_GAP;
        }
        fputs("</svg>\n", out);
    }
    for (size_t i = 0; i < doc->count; i++) {
        plot_free(&rows[i].latency);
        plot_free(&rows[i].timeline);
    }
    free(rows);
    return failed ? -1 : 0;
}

/* Draws into memory first: running out of memory half-way leaves no half an SVG. */
static int write_svg(const struct levels *doc, const char *path, const char *output)
{
    char title[256];
    snprintf(title, sizeof title, "loadstats plot: %s", input_name(path));
    char *svg = NULL;
    size_t len = 0;
    FILE *memory = open_memstream(&svg, &len);
    if (memory == NULL) return no_memory("plot", "for the SVG");
    int drawn = draw(memory, doc, title);
    bool broken = ferror(memory) != 0; /* the buffer could not grow */
    /* glibc's memstream can close without error and leave no buffer when
     * its last allocation fails: that SVG was empty, and the exit 0 */
    if (fclose(memory) != 0 || broken || drawn != 0 || svg == NULL) {
        free(svg);
        return no_memory("plot", "drawing the SVG");
    }
    FILE *out = stdout;
    if (output != NULL && strcmp(output, "-") != 0) out = fopen(output, "w");
    int status;
    if (out == NULL) {
        status = cannot_write("plot", output);
    } else {
        fwrite(svg, 1, len, out);
        status = finish_output("plot", out, output ? output : "standard output");
    }
    free(svg);
    return status;
}

int cmd_plot(int argc, char **argv)
{
    const char *output = NULL;
    char **files;
    int n_files;
    int status = cmd_parse(&plot_spec, argc, argv, &output, &files, &n_files);
    if (status != CMD_PROCEED) return status;
    const char *path = files[0];

    struct levels doc = {0};
    struct docread_options read_options = {.on_metric = collect_metric, .ctx = &doc};
    struct docread_result result;
    status = read_document("plot", path, &read_options, &result);
    docread_result_free(&result);
    if (status == EXIT_FINE && doc.count == 0) {
        complain("plot", "%s: nothing to draw: no latency_* or requests_per_second metrics",
                 input_name(path));
        status = EXIT_FAILS;
    }
    if (status == EXIT_FINE) {
        qsort(doc.levels, doc.count, sizeof *doc.levels, by_clients);
        status = write_svg(&doc, path, output);
    }
    levels_free(&doc);
    return status;
}
