/* palette.c — the report's colours, dashes and markers (see palette.h). */
#include "stats/write/palette.h"

/* Okabe & Ito (2008), ordered so that neighbours differ in lightness too:
 * blue, orange, bluish green, reddish purple, vermillion, sky blue, black. */
static const char *const colours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                      "#D55E00", "#56B4E9", "#000000"};
static const char *const dashes[] = {"", "7 4", "2 3", "9 3 2 3", "4 2", "12 4", "1 2"};
static const enum palette_marker markers[] = {MARKER_CIRCLE, MARKER_SQUARE, MARKER_TRIANGLE,
                                              MARKER_DIAMOND, MARKER_CROSS};
#define N_COLOURS (sizeof colours / sizeof *colours)
#define N_DASHES (sizeof dashes / sizeof *dashes)
#define N_MARKERS (sizeof markers / sizeof *markers)

struct series_style palette_series(size_t index)
{
    return (struct series_style){colours[index % N_COLOURS], dashes[index % N_DASHES],
                                 markers[index % N_MARKERS]};
}

struct series_style palette_side(size_t side, size_t quantity)
{
    /* base: blue (dark in greyscale); new: orange (light) */
    return (struct series_style){side == 0 ? colours[0] : colours[1], dashes[quantity % N_DASHES],
                                 markers[(quantity + side) % N_MARKERS]};
}

struct series_style palette_pick(size_t n_sides, size_t side, size_t quantity)
{
    return n_sides > 1 ? palette_side(side, quantity) : palette_series(quantity);
}

const char *palette_fill(size_t index)
{
    /* dark blue, light orange, mid green, pale purple, vermillion, sky blue */
    static const char *const fills[] = {"#0072B2", "#E69F00", "#009E73",
                                        "#CC79A7", "#D55E00", "#56B4E9"};
    return fills[index % (sizeof fills / sizeof *fills)];
}
