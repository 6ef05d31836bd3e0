/* palette.h — how the report's series look: Okabe and Ito's colours, which
 * stay apart for the common colour-vision deficiencies, each with its own
 * dash pattern and marker so they also stay apart in greyscale and print. */
#ifndef LOADGEN_STATS_PALETTE_H
#define LOADGEN_STATS_PALETTE_H

#include <stddef.h>

enum palette_marker { MARKER_CIRCLE, MARKER_SQUARE, MARKER_TRIANGLE, MARKER_DIAMOND, MARKER_CROSS };

struct series_style {
    const char *colour; /* "#0072B2" */
    const char *dash;   /* an SVG stroke-dasharray, "" for a solid line */
    enum palette_marker marker;
};

/* The style of the index-th series of a figure (cycles after the palette). */
struct series_style palette_series(size_t index);

/* A/B: the base and the new side each have one colour, apart in lightness
 * (blue and orange); the quantity a series shows (cold, warm, p50, ...) takes
 * the dash pattern and marker of its index. */
struct series_style palette_side(size_t side, size_t quantity);

/* The style of a series of `quantity` on `side` of a page with n_sides sides:
 * palette_series(quantity) with one side, palette_side otherwise. */
struct series_style palette_pick(size_t n_sides, size_t side, size_t quantity);

/* Fill colours for stacked segments (phases), apart in lightness. */
const char *palette_fill(size_t index);

#endif
