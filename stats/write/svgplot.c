/* svgplot.c — figures as inline SVG (see svgplot.h). */
#include "stats/write/svgplot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/write/htmlout.h"

#define TITLE_HEIGHT 34
#define PLOT_HEIGHT 250
#define AXIS_BELOW 48 /* tick labels and the x label under the plot area */
#define MARGIN_LEFT 78
#define MARGIN_RIGHT 22
#define LEGEND_ROW 18
#define LEGEND_SAMPLE 30 /* the line sample before each legend name */

void plot_init(struct plot *p, const char *kind)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->x.scale = p->y.scale = PLOT_LINEAR;
}

int plot_add(struct plot *p, const char *name, struct series_style style, const double *x,
             const double *y, size_t n, bool markers)
{
    if (p->n_series == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 8;
        struct plot_series *grown = realloc(p->series, cap * sizeof *grown);
        if (grown == NULL) return -1;
        p->series = grown;
        p->cap = cap;
    }
    struct plot_series *s = &p->series[p->n_series++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->style = style;
    s->x = x;
    s->y = y;
    s->n = n;
    s->markers = markers;
    return 0;
}

void plot_mark(struct plot *p, double x, const char *label)
{
    if (p->n_marks == PLOT_MAX_MARKS) return;
    p->marks[p->n_marks].x = x;
    snprintf(p->marks[p->n_marks].label, sizeof p->marks[p->n_marks].label, "%s", label);
    p->n_marks++;
}

void plot_free(struct plot *p)
{
    free(p->series);
    p->series = NULL;
    p->n_series = p->cap = 0;
}

static bool drawable(enum plot_scale scale, double v)
{
    return isfinite(v) && (scale == PLOT_LINEAR || v > 0);
}

bool plot_has_data(const struct plot *p)
{
    for (size_t s = 0; s < p->n_series; s++)
        for (size_t i = 0; i < p->series[s].n; i++)
            if (drawable(p->x.scale, p->series[s].x[i]) && drawable(p->y.scale, p->series[s].y[i]))
                return true;
    return false;
}

/* ---- axes ---- */

/* The step of about `want` ticks over span: 1, 2 or 5 × 10^k. */
static double nice_step(double span, int want)
{
    double raw = span / want;
    double scale = pow(10.0, floor(log10(raw)));
    double f = raw / scale;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * scale;
}

void plot_fit_axis(struct plot_axis *axis, double lo, double hi)
{
    if (axis->scale == PLOT_LINEAR) {
        if (axis->from_zero && lo > 0) lo = 0;
        if (!(hi > lo)) hi = lo + (lo == 0 ? 1 : fabs(lo) * 0.1);
        double step = nice_step(hi - lo, 5);
        axis->min = floor(lo / step + 1e-9) * step;
        axis->max = ceil(hi / step - 1e-9) * step;
    } else {
        if (!(lo > 0)) lo = 1;
        if (!(hi > lo)) hi = lo * 10;
        axis->min = pow(10.0, floor(log10(lo) + 1e-9));
        axis->max = pow(10.0, ceil(log10(hi) - 1e-9));
        if (axis->scale == PLOT_NINES) {
            axis->min = 1; /* 0% */
            if (axis->max < 100) axis->max = 100;
        }
        if (axis->max <= axis->min) axis->max = axis->min * 10;
    }
}

static double fraction(const struct plot_axis *a, double v)
{
    if (a->scale == PLOT_LINEAR) return (v - a->min) / (a->max - a->min);
    return (log10(v) - log10(a->min)) / (log10(a->max) - log10(a->min));
}

double plot_px(const struct plot_frame *f, double x)
{
    return f->left + fraction(&f->x, x) * (f->right - f->left);
}

double plot_py(const struct plot_frame *f, double y)
{
    return f->bottom - fraction(&f->y, y) * (f->bottom - f->top);
}

/* The tick values of an axis, at most max_ticks. */
static size_t axis_ticks(const struct plot_axis *a, double *ticks, size_t max_ticks)
{
    size_t n = 0;
    if (a->scale == PLOT_LINEAR) {
        double step = nice_step(a->max - a->min, 5);
        for (double v = a->min; v <= a->max + step * 1e-6 && n < max_ticks; v += step)
            ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
        return n;
    }
    double decades = log10(a->max) - log10(a->min);
    for (double d = a->min; d <= a->max * (1 + 1e-9) && n < max_ticks; d *= 10) {
        ticks[n++] = d;
        if (a->scale == PLOT_LOG && decades <= 2 && d * 2 < a->max && n + 2 < max_ticks) {
            ticks[n++] = d * 2;
            ticks[n++] = d * 5;
        }
    }
    return n;
}

/* "0%", "90%", "99%", "99.9%", ... for x = 1/(1-p) = 10^k. */
static const char *nines_label(double x, char buf[HTML_NUMBER_MAX])
{
    int k = (int)lround(log10(x));
    if (k <= 0) return strcpy(buf, "0%");
    if (k == 1) return strcpy(buf, "90%");
    snprintf(buf, HTML_NUMBER_MAX, "99.%.*s%%", k - 2, "9999999999999999");
    if (k == 2) strcpy(buf, "99%");
    return buf;
}

static const char *tick_label(const struct plot_axis *a, double v, char buf[HTML_NUMBER_MAX])
{
    return a->scale == PLOT_NINES ? nines_label(v, buf) : html_value(v, buf);
}

void plot_draw_x_axis(FILE *out, const struct plot_frame *f)
{
    double ticks[32];
    size_t n = axis_ticks(&f->x, ticks, 32);
    /* each argument of one printf has a buffer of its own: they are all
     * formatted before any is printed */
    char a[HTML_NUMBER_MAX], b[HTML_NUMBER_MAX], c[HTML_NUMBER_MAX], d[HTML_NUMBER_MAX],
        e[HTML_NUMBER_MAX], label[HTML_NUMBER_MAX], tick[HTML_NUMBER_MAX];
    fputs("<g class=\"axis x-axis\">\n", out);
    for (size_t i = 0; i < n; i++) {
        double x = plot_px(f, ticks[i]);
        fprintf(out,
                "<line class=\"grid\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>"
                "<text class=\"tick\" x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>\n",
                html_coord(x, a), html_coord(f->top, b), html_coord(x, c), html_coord(f->bottom, d),
                html_coord(x, e), html_coord(f->bottom + 16, label),
                tick_label(&f->x, ticks[i], tick));
    }
    fprintf(out, "<text class=\"axis-label\" x=\"%s\" y=\"%s\" text-anchor=\"middle\">",
            html_coord((f->left + f->right) / 2, a), html_coord(f->bottom + 38, b));
    html_text(out, f->x.label);
    fputs("</text>\n</g>\n", out);
}

void plot_draw_y_axis(FILE *out, const struct plot_frame *f, const char *const *y_categories,
                      size_t n_categories)
{
    char a[HTML_NUMBER_MAX], b[HTML_NUMBER_MAX], c[HTML_NUMBER_MAX], d[HTML_NUMBER_MAX],
        e[HTML_NUMBER_MAX], g[HTML_NUMBER_MAX], label[HTML_NUMBER_MAX];
    fputs("<g class=\"axis y-axis\">\n", out);
    if (y_categories != NULL) {
        double band = (f->bottom - f->top) / (double)(n_categories ? n_categories : 1);
        for (size_t i = 0; i < n_categories; i++) {
            fprintf(out, "<text class=\"tick\" x=\"%s\" y=\"%s\" text-anchor=\"end\">",
                    html_coord(f->left - 6, a),
                    html_coord(f->bottom - band * ((double)i + 0.5) + 4, b));
            html_text(out, y_categories[i]);
            fputs("</text>\n", out);
        }
    } else {
        double ticks[32];
        size_t n = axis_ticks(&f->y, ticks, 32);
        for (size_t i = 0; i < n; i++) {
            double y = plot_py(f, ticks[i]);
            fprintf(out,
                    "<line class=\"grid\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>"
                    "<text class=\"tick\" x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n",
                    html_coord(f->left, a), html_coord(y, b), html_coord(f->right, c),
                    html_coord(y, d), html_coord(f->left - 6, e), html_coord(y + 4, g),
                    tick_label(&f->y, ticks[i], label));
        }
    }
    double mid = (f->top + f->bottom) / 2;
    fprintf(out,
            "<text class=\"axis-label\" x=\"%s\" y=\"%s\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 %s %s)\">",
            html_coord(18, a), html_coord(mid, b), html_coord(18, c), html_coord(mid, label));
    html_text(out, f->y.label);
    fputs("</text>\n</g>\n", out);
}

/* ---- the figure, markers and legend ---- */

/* The figure's <svg> and its title; `at`, when not NULL, places it in an
 * enclosing SVG document, which then also learns its kind. */
static void svg_open(FILE *out, const char *kind, const char *title, int height, const double *at)
{
    char x[HTML_NUMBER_MAX], y[HTML_NUMBER_MAX];
    fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\"", out);
    if (at != NULL)
        fprintf(out, " data-kind=\"%s\" x=\"%s\" y=\"%s\" width=\"%d\" height=\"%d\"", kind,
                html_coord(at[0], x), html_coord(at[1], y), PLOT_WIDTH, height);
    else /* on a page: as wide as the page, as high as its proportions say */
        fputs(" width=\"100%\" preserveAspectRatio=\"xMinYMin meet\"", out);
    fprintf(out, " viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", PLOT_WIDTH, height);
    html_text(out, title);
    fputs("\">\n<title>", out);
    html_text(out, title);
    fputs("</title>\n<text class=\"figure-title\" x=\"12\" y=\"22\">", out);
    html_text(out, title);
    fputs("</text>\n", out);
}

void plot_figure_open(FILE *out, const char *kind, const char *title, int height, int *figures)
{
    ++*figures;
    fprintf(out, "<figure class=\"figure\" id=\"figure-%d\" data-kind=\"%s\">\n", *figures, kind);
    svg_open(out, kind, title, height, NULL);
}

void plot_figure_close(FILE *out, const char *caption)
{
    fputs("</svg>\n<figcaption>", out);
    html_text(out, caption);
    fputs("</figcaption>\n</figure>\n", out);
}

static void draw_marker(FILE *out, enum palette_marker marker, const char *colour, double x,
                        double y)
{
    char a[HTML_NUMBER_MAX], b[HTML_NUMBER_MAX], c[HTML_NUMBER_MAX], d[HTML_NUMBER_MAX],
        e[HTML_NUMBER_MAX], g[HTML_NUMBER_MAX], h[HTML_NUMBER_MAX], k[HTML_NUMBER_MAX];
    switch (marker) {
    case MARKER_SQUARE:
        fprintf(out, "<rect x=\"%s\" y=\"%s\" width=\"7\" height=\"7\" fill=\"%s\"/>",
                html_coord(x - 3.5, a), html_coord(y - 3.5, b), colour);
        break;
    case MARKER_TRIANGLE:
        fprintf(out, "<polygon points=\"%s,%s %s,%s %s,%s\" fill=\"%s\"/>", html_coord(x, a),
                html_coord(y - 4.5, b), html_coord(x - 4.5, c), html_coord(y + 3.5, d),
                html_coord(x + 4.5, e), html_coord(y + 3.5, g), colour);
        break;
    case MARKER_DIAMOND:
        fprintf(out, "<polygon points=\"%s,%s %s,%s %s,%s ", html_coord(x, a), html_coord(y - 5, b),
                html_coord(x + 5, c), html_coord(y, d), html_coord(x, e), html_coord(y + 5, g));
        fprintf(out, "%s,%s\" fill=\"%s\"/>", html_coord(x - 5, a), html_coord(y, b), colour);
        break;
    case MARKER_CROSS:
        fprintf(out, "<path d=\"M%s %sL%s %sM%s %sL%s %s\" stroke=\"%s\" stroke-width=\"2.2\"/>",
                html_coord(x - 4, a), html_coord(y - 4, b), html_coord(x + 4, c),
                html_coord(y + 4, d), html_coord(x - 4, e), html_coord(y + 4, g),
                html_coord(x + 4, h), html_coord(y - 4, k), colour);
        break;
    default:
        fprintf(out, "<circle cx=\"%s\" cy=\"%s\" r=\"3.6\" fill=\"%s\"/>", html_coord(x, a),
                html_coord(y, b), colour);
    }
}

/* A legend name's width in pixels at 12 px sans-serif (an estimate: no font is measured). */
static double text_width(const char *s)
{
    return 6.6 * (double)strlen(s);
}

/* Places the next legend entry: *x and *row are where the previous one left
 * off (12 and 0 before the first); returns the entry's x. Rows wrap at the
 * figure's width. */
static double legend_place(const struct plot_legend_entry *e, double *x, size_t *row)
{
    double w = LEGEND_SAMPLE + 8 + text_width(e->name) + 18;
    if (*x > 12 && *x + w > PLOT_WIDTH - 8) {
        (*row)++;
        *x = 12;
    }
    double at = *x;
    *x += w;
    return at;
}

/* The rows the entries take. */
static size_t legend_rows(const struct plot_legend_entry *entries, size_t n)
{
    double x = 12;
    size_t row = 0;
    for (size_t i = 0; i < n; i++)
        legend_place(&entries[i], &x, &row);
    return n ? row + 1 : 0;
}

double plot_legend_height(const struct plot_legend_entry *entries, size_t n)
{
    return (double)legend_rows(entries, n) * LEGEND_ROW + 8;
}

double plot_draw_legend(FILE *out, const struct plot_legend_entry *entries, size_t n, double top)
{
    /* placed as they are drawn: nothing to allocate, so the legend is always whole */
    double next_x = 12;
    size_t row = 0;
    char a[HTML_NUMBER_MAX], b[HTML_NUMBER_MAX], c[HTML_NUMBER_MAX], d[HTML_NUMBER_MAX];
    fputs("<g class=\"legend\">\n", out);
    for (size_t i = 0; i < n; i++) {
        double x = legend_place(&entries[i], &next_x, &row);
        double y = top + 12 + LEGEND_ROW * (double)row;
        const struct plot_legend_entry *e = &entries[i];
        fputs("<g class=\"legend-entry\">", out);
        if (e->swatch) {
            fprintf(out, "<rect x=\"%s\" y=\"%s\" width=\"%d\" height=\"11\" fill=\"%s\"/>",
                    html_coord(x, a), html_coord(y - 9, b), LEGEND_SAMPLE, e->style.colour);
        } else {
            fprintf(out,
                    "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" "
                    "stroke-width=\"2.4\"%s%s%s/>",
                    html_coord(x, a), html_coord(y - 4, b), html_coord(x + LEGEND_SAMPLE, c),
                    html_coord(y - 4, d), e->style.colour,
                    e->style.dash[0] ? " stroke-dasharray=\"" : "", e->style.dash,
                    e->style.dash[0] ? "\"" : "");
            if (e->markers)
                draw_marker(out, e->style.marker, e->style.colour, x + LEGEND_SAMPLE / 2.0, y - 4);
        }
        fprintf(out, "<text class=\"legend-name\" x=\"%s\" y=\"%s\">",
                html_coord(x + LEGEND_SAMPLE + 8, a), html_coord(y, b));
        html_text(out, e->name);
        fputs("</text></g>\n", out);
    }
    fputs("</g>\n", out);
    return (double)(n ? row + 1 : 0) * LEGEND_ROW + 8;
}

/* ---- line charts ---- */

static void data_range(const struct plot *p, bool want_x, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t s = 0; s < p->n_series; s++) {
        const struct plot_series *ser = &p->series[s];
        for (size_t i = 0; i < ser->n; i++) {
            if (!drawable(p->x.scale, ser->x[i]) || !drawable(p->y.scale, ser->y[i])) continue;
            double v = want_x ? ser->x[i] : ser->y[i];
            if (v < *lo) *lo = v;
            if (v > *hi) *hi = v;
        }
    }
    if (want_x)
        for (size_t m = 0; m < p->n_marks; m++)
            if (drawable(p->x.scale, p->marks[m].x)) {
                if (p->marks[m].x < *lo) *lo = p->marks[m].x;
                if (p->marks[m].x > *hi) *hi = p->marks[m].x;
            }
    if (!isfinite(*lo)) *lo = *hi = 0;
}

static void draw_series(FILE *out, const struct plot_frame *f, const struct plot_series *s)
{
    char a[HTML_NUMBER_MAX], b[HTML_NUMBER_MAX];
    bool open = false;
    size_t points = 0;
    fputs("<g class=\"series\" data-name=\"", out);
    html_text(out, s->name);
    fputs("\">\n", out);
    for (size_t i = 0; i < s->n; i++) {
        bool ok = drawable(f->x.scale, s->x[i]) && drawable(f->y.scale, s->y[i]);
        if (!ok) { /* a gap: the line breaks */
            if (open) fputs("\"/>\n", out);
            open = false;
            continue;
        }
        if (!open) {
            fprintf(out,
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                    "stroke-linejoin=\"round\"%s%s%s points=\"",
                    s->style.colour, s->style.dash[0] ? " stroke-dasharray=\"" : "", s->style.dash,
                    s->style.dash[0] ? "\"" : "");
            open = true;
        }
        fprintf(out, "%s,%s ", html_coord(plot_px(f, s->x[i]), a),
                html_coord(plot_py(f, s->y[i]), b));
        points++;
    }
    if (open) fputs("\"/>\n", out);
    if (s->markers || points == 1)
        for (size_t i = 0; i < s->n; i++)
            if (drawable(f->x.scale, s->x[i]) && drawable(f->y.scale, s->y[i]))
                draw_marker(out, s->style.marker, s->style.colour, plot_px(f, s->x[i]),
                            plot_py(f, s->y[i]));
    fputs("</g>\n", out);
}

static bool same_style(struct series_style a, struct series_style b)
{
    return strcmp(a.colour, b.colour) == 0 && strcmp(a.dash, b.dash) == 0 && a.marker == b.marker;
}

/* One legend entry per distinct name and style, in order (malloc'd), or NULL
 * when memory ran out. */
static struct plot_legend_entry *legend_of(const struct plot *p, size_t *n_entries)
{
    struct plot_legend_entry *entries = calloc(p->n_series ? p->n_series : 1, sizeof *entries);
    *n_entries = 0;
    if (entries == NULL) return NULL;
    for (size_t s = 0; s < p->n_series; s++) {
        bool seen = false;
        for (size_t e = 0; e < *n_entries && !seen; e++)
            seen = strcmp(entries[e].name, p->series[s].name) == 0 &&
                   same_style(entries[e].style, p->series[s].style);
        if (!seen)
            entries[(*n_entries)++] =
                (struct plot_legend_entry){p->series[s].name, p->series[s].style, false,
                                           p->series[s].markers || p->series[s].n == 1};
    }
    return entries;
}

static int chart_height(const struct plot_legend_entry *entries, size_t n_entries)
{
    return (int)(TITLE_HEIGHT + 8 + PLOT_HEIGHT + AXIS_BELOW +
                 plot_legend_height(entries, n_entries) + 4);
}

/* What is inside the figure's <svg> after its title: the frame, axes, marks,
 * series and legend. */
static void draw_chart(FILE *out, const struct plot *p, const struct plot_legend_entry *entries,
                       size_t n_entries)
{
    struct plot_frame f = {MARGIN_LEFT,
                           PLOT_WIDTH - MARGIN_RIGHT,
                           TITLE_HEIGHT + 8,
                           TITLE_HEIGHT + 8 + PLOT_HEIGHT,
                           p->x,
                           p->y};
    double lo, hi;
    data_range(p, true, &lo, &hi);
    plot_fit_axis(&f.x, lo, hi);
    data_range(p, false, &lo, &hi);
    plot_fit_axis(&f.y, lo, hi * (f.y.scale == PLOT_LINEAR ? 1.04 : 1)); /* headroom */

    char a[HTML_NUMBER_MAX], b[HTML_NUMBER_MAX], c[HTML_NUMBER_MAX], d[HTML_NUMBER_MAX],
        e[HTML_NUMBER_MAX], g[HTML_NUMBER_MAX];
    fprintf(out, "<rect class=\"plot-area\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/>\n",
            html_coord(f.left, a), html_coord(f.top, b), html_coord(f.right - f.left, c),
            html_coord(f.bottom - f.top, d));
    plot_draw_x_axis(out, &f);
    plot_draw_y_axis(out, &f, NULL, 0);
    fputs("<g class=\"marks\">\n", out);
    for (size_t m = 0; m < p->n_marks; m++) {
        if (!drawable(f.x.scale, p->marks[m].x)) continue;
        double x = plot_px(&f, p->marks[m].x);
        fprintf(out,
                "<line class=\"mark\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>"
                "<text class=\"mark-label\" x=\"%s\" y=\"%s\">",
                html_coord(x, a), html_coord(f.top, b), html_coord(x, c), html_coord(f.bottom, d),
                html_coord(x + 3, e), html_coord(f.top + 12, g));
        html_text(out, p->marks[m].label);
        fputs("</text>\n", out);
    }
    fputs("</g>\n<g class=\"data\">\n", out);
    for (size_t s = 0; s < p->n_series; s++)
        draw_series(out, &f, &p->series[s]);
    fputs("</g>\n", out);
    plot_draw_legend(out, entries, n_entries, f.bottom + AXIS_BELOW);
}

int plot_write(FILE *out, const struct plot *p, int *figures)
{
    /* without room for the legend the figure is not drawn at all, never
     * drawn without its legend */
    size_t n_entries;
    struct plot_legend_entry *entries = legend_of(p, &n_entries);
    if (entries == NULL) return -1;
    plot_figure_open(out, p->kind, p->title, chart_height(entries, n_entries), figures);
    draw_chart(out, p, entries, n_entries);
    free(entries);
    plot_figure_close(out, p->caption);
    return 0;
}

int plot_height(const struct plot *p)
{
    size_t n_entries;
    struct plot_legend_entry *entries = legend_of(p, &n_entries);
    if (entries == NULL) return -1;
    int height = chart_height(entries, n_entries);
    free(entries);
    return height;
}

int plot_write_svg(FILE *out, const struct plot *p, double x, double y)
{
    size_t n_entries;
    struct plot_legend_entry *entries = legend_of(p, &n_entries);
    if (entries == NULL) return -1;
    const double at[2] = {x, y};
    svg_open(out, p->kind, p->title, chart_height(entries, n_entries), at);
    draw_chart(out, p, entries, n_entries);
    free(entries);
    fputs("</svg>\n", out);
    return 0;
}
