/* svgplot.h — one figure as SVG, for the report page and for `loadstats
 * plot`: a title, a plot area with labelled axes (linear, logarithmic, or
 * HdrHistogram's percentile axis on a log scale of 1/(1-p)), lines and
 * markers, vertical marks, and a legend below. Each part carries a class
 * (figure, x-axis, y-axis, legend, data) so the browser tests can find it.
 * Line charts are built whole by plot_write (in an HTML <figure>) or
 * plot_write_svg (inside an SVG document); other kinds (stacked bars) use the
 * frame functions underneath. */
#ifndef LOADGEN_STATS_SVGPLOT_H
#define LOADGEN_STATS_SVGPLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stats/write/palette.h"

/* How the parts look, by their classes: for the <style> of the page or the
 * SVG document the figures are in. */
#define PLOT_STYLE                                                                                 \
    "svg.chart{font:12px sans-serif;background:#fff}figure>svg.chart{height:auto}\n"               \
    ".figure-title{font-size:14px;font-weight:bold}.plot-area{fill:none;stroke:#888}\n"            \
    ".grid{stroke:#e4e4e4}.tick{fill:#333;font-size:11px}.axis-label{fill:#111}\n"                 \
    ".mark{stroke:#000;stroke-dasharray:5 3}.mark-label{font-size:11px}\n"

enum plot_scale {
    PLOT_LINEAR,
    PLOT_LOG,   /* base 10; values at or below 0 are left out */
    PLOT_NINES, /* x = 1/(1-p), drawn on a log scale, labelled 0%, 90%, 99%, 99.9%, ... */
};

struct plot_axis {
    enum plot_scale scale;
    char label[96];  /* what and in which unit: "latency (ms)" */
    bool from_zero;  /* linear: the range starts at 0 (counts, rates, latencies) */
    double min, max; /* the range drawn, set by plot_write from the data */
};

struct plot_series {
    char name[128];
    struct series_style style;
    const double *x, *y; /* the caller's arrays, alive until plot_write */
    size_t n;
    bool markers; /* a marker at every point (for few points) */
};

struct plot_mark {
    double x;
    char label[64];
};

#define PLOT_MAX_MARKS 32

struct plot {
    const char *kind; /* the figure's data-kind: "latency", "timeline", ... */
    char title[160];
    char caption[600];
    struct plot_axis x, y;
    struct plot_series *series;
    size_t n_series, cap;
    struct plot_mark marks[PLOT_MAX_MARKS]; /* dashed vertical lines with a label */
    size_t n_marks;
};

/* An empty plot of `kind` (a string that outlives it). */
void plot_init(struct plot *p, const char *kind);

/* Adds a series (its legend entry is shared with an earlier series of the
 * same name and style). Returns 0, or -1 when memory runs out. */
int plot_add(struct plot *p, const char *name, struct series_style style, const double *x,
             const double *y, size_t n, bool markers);

/* Adds a vertical mark at x (up to PLOT_MAX_MARKS; later ones are dropped). */
void plot_mark(struct plot *p, double x, const char *label);

/* Does any series have a point the axes can show? */
bool plot_has_data(const struct plot *p);

/* Writes the figure; *figures counts the page's figures (for ids). -1, with
 * nothing written, when memory ran out. */
int plot_write(FILE *out, const struct plot *p, int *figures);

/* The height in pixels of the figure (PLOT_WIDTH wide), as plot_write_svg
 * draws it; -1 when memory ran out. */
int plot_height(const struct plot *p);

/* Writes the figure as an <svg> element at (x, y) of an SVG document: no
 * HTML around it and no caption. -1, with nothing written, when memory ran out. */
int plot_write_svg(FILE *out, const struct plot *p, double x, double y);

void plot_free(struct plot *p);

/* ---- the frame, for figures that are not line charts ---- */

#define PLOT_WIDTH 660

struct plot_frame {
    double left, right, top, bottom; /* the plot area, in pixels */
    struct plot_axis x, y;
};

/* Fits an axis to the data range [lo, hi] (ticks end on round numbers). */
void plot_fit_axis(struct plot_axis *axis, double lo, double hi);

double plot_px(const struct plot_frame *f, double x);
double plot_py(const struct plot_frame *f, double y);

/* <figure> and the <svg> with its title, drawn PLOT_WIDTH by `height` and
 * scaled to the width of the page (its viewBox, width 100%); then the closing. */
void plot_figure_open(FILE *out, const char *kind, const char *title, int height, int *figures);
void plot_figure_close(FILE *out, const char *caption);

/* The x axis (ticks, grid and label) below the plot area; the y axis at its
 * left, or with y_categories its labels (bottom to top) instead of ticks. */
void plot_draw_x_axis(FILE *out, const struct plot_frame *f);
void plot_draw_y_axis(FILE *out, const struct plot_frame *f, const char *const *y_categories,
                      size_t n_categories);

/* A legend of n entries from `top`: each a line sample (or, with swatch, a
 * filled box) and its name. Returns the height it took. */
struct plot_legend_entry {
    const char *name;
    struct series_style style;
    bool swatch;
    bool markers;
};
double plot_draw_legend(FILE *out, const struct plot_legend_entry *entries, size_t n, double top);

/* The height a legend of these entries will take. */
double plot_legend_height(const struct plot_legend_entry *entries, size_t n);

#endif
