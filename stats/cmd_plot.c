/* cmd_plot.c — `loadstats plot FILE -o OUT.svg`: one self-contained SVG with a
 * row per level: cold and warm latency percentile curves on a "nines" axis (where
 * the tail gets as much room as the median) and the requests_per_second timeline. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/cmd.h"
#include "stats/metrickind.h"
#include "stats/stats.h"

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
             "and warm) on a log \"nines\" axis (50%, 90%, 99%, 99.9%, 99.99%) in milliseconds,\n"
             "and the requests_per_second timeline, second by second.\n",
    .epilog = "Exit status: 0 drawn, 1 the document is invalid or has nothing to draw, 2 usage or\n"
              "I/O error, 4 out of memory.\n",
    .help_column = 20,
    .options = plot_options,
    .n_options = sizeof plot_options / sizeof *plot_options,
    .operands = CMD_ONE_FILE,
    .take = take_option,
};

#define CURVE_POINTS 241 /* samples of each percentile curve along the nines axis */
#define MAX_NINES 4.0    /* the axis ends at 99.99% */

struct curve {
    char *name;
    size_t n;
    double ms[CURVE_POINTS]; /* latency at nines 0 .. MAX_NINES, in milliseconds */
    double p50_ms, p99_ms;   /* for the legend */
};

struct level {
    bool has_level;
    unsigned long clients;
    struct curve *curves;
    size_t curve_count;
    char *rate_name;
    double *rate; /* requests per second, one per second of the level */
    size_t rate_len;
};

struct plot {
    struct level *levels;
    size_t count;
};

static struct level *level_for(struct plot *plot, bool has_level, unsigned long clients)
{
    for (size_t i = 0; i < plot->count; i++)
        if (plot->levels[i].has_level == has_level && plot->levels[i].clients == clients)
            return &plot->levels[i];
    struct level *grown = realloc(plot->levels, (plot->count + 1) * sizeof *grown);
    if (grown == NULL) return NULL;
    plot->levels = grown;
    struct level *level = &plot->levels[plot->count++];
    memset(level, 0, sizeof *level);
    level->has_level = has_level;
    level->clients = clients;
    return level;
}

static double nines_to_fraction(double nines)
{
    return 1.0 - pow(10.0, -nines);
}

static int add_curve(struct level *level, const char *name, struct docread_metric *metric)
{
    struct curve *grown = realloc(level->curves, (level->curve_count + 1) * sizeof *grown);
    if (grown == NULL) return -1;
    level->curves = grown;
    struct curve *curve = &level->curves[level->curve_count];
    curve->name = strdup(name);
    if (curve->name == NULL) return -1;
    level->curve_count++;
    curve->n = metric->n;
    double to_ms = metric->unit == STATS_UNIT_SECONDS       ? 1000.0
                   : metric->unit == STATS_UNIT_NANOSECONDS ? 1e-6
                                                            : 1.0;
    stats_sort(metric->samples, metric->n);
    for (int i = 0; i < CURVE_POINTS; i++) {
        double nines = MAX_NINES * i / (CURVE_POINTS - 1);
        curve->ms[i] =
            to_ms * stats_percentile_sorted(metric->samples, metric->n, nines_to_fraction(nines));
    }
    curve->p50_ms = to_ms * stats_percentile_sorted(metric->samples, metric->n, 0.5);
    curve->p99_ms = to_ms * stats_percentile_sorted(metric->samples, metric->n, 0.99);
    return 0;
}

static int collect_metric(void *ctx, struct docread_metric *metric)
{
    struct plot *plot = ctx;
    unsigned long clients = 0;
    const char *name = metric->key;
    bool has_level = stats_key_level(metric->key, &clients, &name);
    bool latency = strncmp(name, "latency", 7) == 0 && stats_unit_is_time(metric->unit);
    bool timeline = metric->unit == STATS_UNIT_REQUESTS_PER_SECOND;
    if (!latency && !timeline) return 0;

    struct level *level = level_for(plot, has_level, clients);
    if (level == NULL) goto out_of_memory;
    if (latency && add_curve(level, name, metric) != 0) goto out_of_memory;
    if (timeline && level->rate == NULL) {
        level->rate_name = strdup(name);
        if (level->rate_name == NULL) goto out_of_memory;
        level->rate = metric->samples;
        level->rate_len = metric->n;
        metric->samples = NULL;
    }
    return 0;
out_of_memory:
    return no_memory("plot", "at metric \"%s\"", metric->key);
}

static void plot_free(struct plot *plot)
{
    for (size_t i = 0; i < plot->count; i++) {
        struct level *level = &plot->levels[i];
        for (size_t c = 0; c < level->curve_count; c++)
            free(level->curves[c].name);
        free(level->curves);
        free(level->rate_name);
        free(level->rate);
    }
    free(plot->levels);
}

static int by_clients(const void *a, const void *b)
{
    const struct level *x = a, *y = b;
    if (x->has_level != y->has_level) return x->has_level ? -1 : 1;
    return (x->clients > y->clients) - (x->clients < y->clients);
}

/* ---- drawing ---- */

#define WIDTH 1000
#define HEADER 64
#define ROW 340
#define PLOT_TOP 50 /* from the top of a row to the top of its plot areas */
#define PLOT_HEIGHT 230
#define LEFT_X0 80
#define LEFT_X1 470
#define RIGHT_X0 580
#define RIGHT_X1 970

static const char *const palette[] = {"#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"};

static const char *curve_colour(const char *name, size_t index)
{
    if (strstr(name, "cold") != NULL) return "#d62728";
    if (strstr(name, "warm") != NULL) return "#1f77b4";
    return palette[index % (sizeof palette / sizeof *palette)];
}

static void xml_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            putc(*s, out);
        }
    }
}

/* The smallest 1, 2, 2.5 or 5 × 10^k at or above v: an axis end that reads well. */
static double nice_ceiling(double v)
{
    if (!(v > 0)) return 1.0;
    double scale = pow(10.0, floor(log10(v)));
    double f = v / scale;
    double steps[] = {1.0, 2.0, 2.5, 5.0, 10.0};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        if (f <= steps[i] * (1 + 1e-12)) return steps[i] * scale;
    return 10.0 * scale;
}

struct frame {
    double x0, x1, y0, y1;   /* pixel box: y0 top, y1 bottom */
    double xmin, xmax, ymax; /* data range; y starts at 0 */
};

static double px(const struct frame *f, double x)
{
    return f->x0 + (x - f->xmin) / (f->xmax - f->xmin) * (f->x1 - f->x0);
}

static double py(const struct frame *f, double y)
{
    return f->y1 - y / f->ymax * (f->y1 - f->y0);
}

static void draw_frame(FILE *out, const struct frame *f, const char *ylabel, const char *xlabel)
{
    /* horizontal grid and y tick labels: five steps of the nice axis */
    for (int i = 0; i <= 5; i++) {
        double v = f->ymax * i / 5, y = py(f, v);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%g</text>\n",
                f->x0, y, f->x1, y, f->x0 - 6, y + 4, v);
    }
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#555\"/>\n",
            f->x0, f->y0, f->x1 - f->x0, f->y1 - f->y0);
    double mid_y = (f->y0 + f->y1) / 2;
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" "
            "text-anchor=\"middle\" class=\"label\">",
            f->x0 - 52, mid_y, f->x0 - 52, mid_y);
    xml_text(out, ylabel);
    fprintf(out, "</text>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"label\">",
            (f->x0 + f->x1) / 2, f->y1 + 36);
    xml_text(out, xlabel);
    fputs("</text>\n", out);
}

static void draw_latency(FILE *out, const struct level *level, double top)
{
    struct frame f = {LEFT_X0,   LEFT_X1, top + PLOT_TOP, top + PLOT_TOP + PLOT_HEIGHT, 0.0,
                      MAX_NINES, 1.0};
    if (level->curve_count == 0) {
        fprintf(out,
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\" class=\"label\">no "
                "latency metrics at this level</text>\n",
                (LEFT_X0 + LEFT_X1) / 2, top + PLOT_TOP + PLOT_HEIGHT / 2);
        return;
    }
    double highest = 0;
    for (size_t c = 0; c < level->curve_count; c++)
        for (int i = 0; i < CURVE_POINTS; i++)
            if (level->curves[c].ms[i] > highest) highest = level->curves[c].ms[i];
    f.ymax = nice_ceiling(highest * 1.08); /* headroom above the tail */
    draw_frame(out, &f, "latency (ms)", "percentile (log scale of nines)");

    static const struct {
        double nines;
        const char *label;
    } ticks[] = {{0, "0%"}, {0.30103, "50%"}, {1, "90%"}, {2, "99%"}, {3, "99.9%"}, {4, "99.99%"}};
    for (size_t t = 0; t < sizeof ticks / sizeof *ticks; t++) {
        double x = px(&f, ticks[t].nines);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">%s</text>\n",
                x, f.y0, x, f.y1, x, f.y1 + 16, ticks[t].label);
    }
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" "
            "fill-opacity=\"0.85\"/>\n",
            f.x0 + 4, f.y0 + 4, f.x1 - f.x0 - 8, 16.0 * (double)level->curve_count + 4);
    for (size_t c = 0; c < level->curve_count; c++) {
        const struct curve *curve = &level->curves[c];
        const char *colour = curve_colour(curve->name, c);
        fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colour);
        for (int i = 0; i < CURVE_POINTS; i++)
            fprintf(out, "%s%.1f,%.1f", i ? " " : "", px(&f, MAX_NINES * i / (CURVE_POINTS - 1)),
                    py(&f, curve->ms[i]));
        fputs("\"/>\n", out);
        /* legend, top left inside the plot */
        double ly = f.y0 + 16 + 16.0 * (double)c;
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"3\"/>\n<text x=\"%.1f\" y=\"%.1f\" class=\"legend\">",
                f.x0 + 10, ly - 4, f.x0 + 30, ly - 4, colour, f.x0 + 36, ly);
        xml_text(out, curve->name);
        fprintf(out, " (n=%zu, p50 %.2f ms, p99 %.2f ms)</text>\n", curve->n, curve->p50_ms,
                curve->p99_ms);
    }
}

static void draw_timeline(FILE *out, const struct level *level, double top)
{
    if (level->rate == NULL) {
        fprintf(out,
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\" class=\"label\">no "
                "requests_per_second timeline at this level</text>\n",
                (RIGHT_X0 + RIGHT_X1) / 2, top + PLOT_TOP + PLOT_HEIGHT / 2);
        return;
    }
    double highest = 0, total = 0;
    for (size_t i = 0; i < level->rate_len; i++) {
        if (level->rate[i] > highest) highest = level->rate[i];
        total += level->rate[i];
    }
    struct frame f = {RIGHT_X0,
                      RIGHT_X1,
                      top + PLOT_TOP,
                      top + PLOT_TOP + PLOT_HEIGHT,
                      0.0,
                      (double)level->rate_len,
                      nice_ceiling(highest * 1.08)};
    draw_frame(out, &f, "requests per second (req/s)", "second of the level (s)");

    double step = nice_ceiling((double)level->rate_len / 6);
    if (step < 1) step = 1;
    for (double s = 0; s <= (double)level->rate_len + 1e-9; s += step)
        fprintf(out,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">%g</text>\n",
                px(&f, s), f.y1 + 16, s);
    /* each second's count drawn at the middle of its second */
    fputs("<polyline fill=\"none\" stroke=\"#ff7f0e\" stroke-width=\"2\" points=\"", out);
    for (size_t i = 0; i < level->rate_len; i++)
        fprintf(out, "%s%.1f,%.1f", i ? " " : "", px(&f, (double)i + 0.5), py(&f, level->rate[i]));
    fputs("\"/>\n", out);
    if (level->rate_len <= 120)
        for (size_t i = 0; i < level->rate_len; i++)
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#ff7f0e\"/>\n",
                    px(&f, (double)i + 0.5), py(&f, level->rate[i]));
    double ly = f.y0 + 16;
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ff7f0e\" "
            "stroke-width=\"3\"/>\n<text x=\"%.1f\" y=\"%.1f\" class=\"legend\">",
            f.x0 + 10, ly - 4, f.x0 + 30, ly - 4, f.x0 + 36, ly);
    xml_text(out, level->rate_name);
    fprintf(out, " (%zu s, mean %.1f req/s)</text>\n", level->rate_len,
            total / (double)level->rate_len);
}

static void draw(FILE *out, const struct plot *plot, const char *title)
{
    int height = HEADER + ROW * (int)plot->count;
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\">\n<title>",
            WIDTH, height, WIDTH, height);
    xml_text(out, title);
    fputs("</title>\n<style>text{font-family:sans-serif;fill:#222}"
          ".title{font-size:18px;font-weight:bold}.level{font-size:15px;font-weight:bold}"
          ".label{font-size:12px}.tick{font-size:11px;fill:#555}.legend{font-size:11px}"
          "</style>\n",
          out);
    fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", WIDTH, height);
    fputs("<text x=\"20\" y=\"32\" class=\"title\">", out);
    xml_text(out, title);
    fputs("</text>\n<text x=\"20\" y=\"52\" class=\"label\">latency percentiles (left) and "
          "completed requests per second (right), one row per level</text>\n",
          out);
    for (size_t i = 0; i < plot->count; i++) {
        const struct level *level = &plot->levels[i];
        double top = HEADER + ROW * (double)i;
        if (level->has_level)
            fprintf(out, "<text x=\"20\" y=\"%.1f\" class=\"level\">c%lu: %lu client%s</text>\n",
                    top + 28, level->clients, level->clients, level->clients == 1 ? "" : "s");
        else
            fprintf(out, "<text x=\"20\" y=\"%.1f\" class=\"level\">without a level</text>\n",
                    top + 28);
        draw_latency(out, level, top);
        draw_timeline(out, level, top);
    }
    fputs("</svg>\n", out);
}

int cmd_plot(int argc, char **argv)
{
    const char *output = NULL;
    char **files;
    int n_files;
    int status = cmd_parse(&plot_spec, argc, argv, &output, &files, &n_files);
    if (status != CMD_PROCEED) return status;
    const char *path = files[0];

    struct plot plot = {0};
    struct docread_options read_options = {.on_metric = collect_metric, .ctx = &plot};
    struct docread_result result;
    status = read_document("plot", path, &read_options, &result);
    docread_result_free(&result);
    if (status == EXIT_FINE && plot.count == 0) {
        complain("plot", "%s: nothing to draw: no latency_* or requests_per_second metrics",
                 input_name(path));
        status = EXIT_FAILS;
    }
    if (status == EXIT_FINE) {
        qsort(plot.levels, plot.count, sizeof *plot.levels, by_clients);
        FILE *out = stdout;
        if (output != NULL && strcmp(output, "-") != 0) out = fopen(output, "w");
        if (out == NULL) {
            status = cannot_write("plot", output);
        } else {
            char title[256];
            snprintf(title, sizeof title, "loadstats plot: %s", input_name(path));
            draw(out, &plot, title);
            status = finish_output("plot", out, output ? output : "standard output");
        }
    }
    plot_free(&plot);
    return status;
}
