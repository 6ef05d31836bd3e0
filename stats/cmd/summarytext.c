/* summarytext.c — summary's table for people (see summarytext.h). Each level
 * is a heading, a block of counts, a table of samples and a table of
 * per-second series. The columns are laid out once for the whole document,
 * so levels line up, and a statistic that does not fit the width is left
 * out, the least telling first. */
#include "stats/cmd/summarytext.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats/read/metrickind.h"
#include "stats/write/numfmt.h"

/* The blocks of a level, in the order printed; ran_s goes in the heading. */
enum block { BLOCK_COUNTS, BLOCK_SAMPLES, BLOCK_SECONDS, BLOCKS, BLOCK_HEADING };

static const char *const block_titles[BLOCKS] = {"counts", "samples", "per second"};

/* The statistics a table may show, in the order shown. */
enum stat {
    ST_N,
    ST_MIN,
    ST_P50,
    ST_P90,
    ST_P99,
    ST_P999,
    ST_MAX,
    ST_MEAN,
    ST_STDDEV,
    STATS_SHOWN
};

static const char *const stat_headers[STATS_SHOWN] = {"n",     "min", "p50",  "p90",   "p99",
                                                      "p99.9", "max", "mean", "stddev"};

/* Which a table offers, most telling first: the order they get room in. */
static const enum stat samples_priority[] = {ST_P50,  ST_P99,  ST_N,   ST_MAX,   ST_P90,
                                             ST_P999, ST_MEAN, ST_MIN, ST_STDDEV};
static const enum stat seconds_priority[] = {ST_MEAN, ST_MIN, ST_MAX, ST_N, ST_P50, ST_STDDEV};

/* A metric name longer than this goes on a line of its own, the numbers
 * under it, so that one long name does not push every table past the width. */
#define NAME_MAX_COLUMNS 40
#define GAP 2    /* spaces between columns */
#define INDENT 2 /* of a block's title; its rows are indented twice */

static int by_level(const void *a, const void *b)
{
    const struct summary_row *x = a, *y = b;
    unsigned long cx = 0, cy = 0;
    const char *rest;
    bool lx = stats_key_level(x->key, &cx, &rest), ly = stats_key_level(y->key, &cy, &rest);
    if (lx != ly) return lx ? -1 : 1;
    if (cx != cy) return cx < cy ? -1 : 1;
    return (x->position > y->position) - (x->position < y->position);
}

void summary_rows_sort(struct summary_rows *all)
{
    qsort(all->rows, all->count, sizeof *all->rows, by_level);
}

/* Columns a text takes on a terminal: its UTF-8 characters (µ, ±), not its bytes. */
static int columns_of(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static void pad(FILE *out, const char *s, int width, bool right)
{
    int fill = width - columns_of(s);
    if (right)
        for (int i = 0; i < fill; i++)
            putc(' ', out);
    fputs(s, out);
    if (!right)
        for (int i = 0; i < fill; i++)
            putc(' ', out);
}

static enum block block_of(const struct summary_row *row)
{
    switch (stats_metric_kind(row->key, row->unit)) {
    case STATS_KIND_COUNT:
        /* one exact count per run; a "count" of many samples is a distribution */
        return row->summary.n == row->runs ? BLOCK_COUNTS : BLOCK_SAMPLES;
    case STATS_KIND_SPAN:
        return BLOCK_HEADING;
    case STATS_KIND_TIMELINE:
    case STATS_KIND_GAUGE:
        return BLOCK_SECONDS;
    default:
        return BLOCK_SAMPLES;
    }
}

static const char *metric_of(const struct summary_row *row)
{
    return stats_key_metric(row->key);
}

/* ---- numbers ---- */

/* How a row's values are written: one unit and one number of decimals for
 * the row, so its columns compare at a glance; the median gets three
 * significant digits or more. */
struct row_format {
    struct stats_display_unit unit;
    int decimals;
};

static int decimals_for(double shown)
{
    double x = fabs(shown);
    if (x == 0.0 || x >= 100 || !isfinite(x)) return 0;
    if (x >= 10) return 1;
    if (x >= 1) return 2;
    int d = 2 - (int)floor(log10(x));
    return d > 6 ? 6 : d;
}

static struct row_format format_of(const struct summary_row *row)
{
    const struct stats_summary *s = &row->exact;
    double reference = s->median != 0.0               ? s->median
                       : fabs(s->max) >= fabs(s->min) ? s->max
                                                      : s->min;
    struct row_format f = {stats_unit_display(row->unit, reference), 0};
    /* a row whose extremes a smaller unit would carry past a double keeps its own */
    if (!isfinite(s->max * f.unit.factor) || !isfinite(s->min * f.unit.factor))
        f.unit = (struct stats_display_unit){stats_unit_symbol(row->unit), 1.0};
    f.decimals = decimals_for(reference * f.unit.factor);
    return f;
}

/* A bare count has no unit to show. */
static const char *unit_label(const struct row_format *f)
{
    return strcmp(f->unit.symbol, "count") == 0 ? "" : f->unit.symbol;
}

static double stat_value(const struct stats_summary *s, enum stat stat)
{
    const double values[STATS_SHOWN] = {(double)s->n, s->min, s->median, s->p90,   s->p99,
                                        s->p999,      s->max, s->mean,   s->stddev};
    return values[stat];
}

#define CELL_MAX (2 * STATS_FIXED_MAX + 8)

/* A number with the row's decimals; one in exponent form (from 1e15 up)
 * keeps three significant digits whatever the row's. */
static const char *number(double x, int decimals, char buf[STATS_FIXED_MAX])
{
    return stats_format_fixed(x, fabs(x) >= 1e15 ? 2 : decimals, false, buf);
}

static void stat_cell(const struct summary_row *row, const struct row_format *f, enum stat stat,
                      char cell[CELL_MAX])
{
    if (stat == ST_N) {
        snprintf(cell, CELL_MAX, "%zu", row->summary.n);
        return;
    }
    char value[STATS_FIXED_MAX], spread[STATS_FIXED_MAX];
    number(stat_value(&row->exact, stat) * f->unit.factor, f->decimals, value);
    if (row->runs > 1)
        snprintf(
            cell, CELL_MAX, "%s±%s", value,
            number(stat_value(&row->exact_spread, stat) * f->unit.factor, f->decimals, spread));
    else
        snprintf(cell, CELL_MAX, "%s", value);
}

/* A count as an integer (over runs, the runs' mean, rounded, ± their spread);
 * a count a foreign collector wrote with a fraction keeps two decimals. */
static void count_cell(const struct summary_row *row, char cell[CELL_MAX])
{
    double x = row->exact.mean;
    int decimals = row->runs == 1 && x != nearbyint(x) ? 2 : 0;
    char value[STATS_FIXED_MAX], spread[STATS_FIXED_MAX];
    number(x, decimals, value);
    if (row->runs > 1)
        snprintf(cell, CELL_MAX, "%s±%s", value, number(row->exact_spread.mean, 0, spread));
    else
        snprintf(cell, CELL_MAX, "%s", value);
}

static const struct summary_row *find_in_level(const struct summary_row *from,
                                               const struct summary_row *to, const char *metric)
{
    for (const struct summary_row *r = from; r < to; r++)
        if (strcmp(metric_of(r), metric) == 0) return r;
    return NULL;
}

/* What follows a count: its unit, bytes also in a larger one, and an
 * error's share of the level's attempts. */
static void count_note(const struct summary_row *row, const struct summary_row *level_from,
                       const struct summary_row *level_to, char *note, size_t size)
{
    note[0] = '\0';
    double x = row->exact.mean;
    if (row->unit == STATS_UNIT_BYTES) {
        struct stats_display_unit big = stats_unit_display(row->unit, x);
        char value[STATS_FIXED_MAX];
        if (big.factor == 1.0)
            snprintf(note, size, "B");
        else
            snprintf(note, size, "B (%s %s)",
                     number(x * big.factor, decimals_for(x * big.factor), value), big.symbol);
        return;
    }
    if (row->unit != STATS_UNIT_COUNT) {
        snprintf(note, size, "%s", stats_unit_symbol(row->unit));
        return;
    }
    const char *metric = metric_of(row);
    if (strcmp(metric, "errors") != 0 && strncmp(metric, "errors.", 7) != 0 &&
        strcmp(metric, "unfinished") != 0)
        return;
    const struct summary_row *attempts = find_in_level(level_from, level_to, "attempts");
    if (attempts == NULL || !(attempts->exact.mean > 0) || !(x > 0)) return;
    double share = 100.0 * x / attempts->exact.mean;
    if (share < 0.1)
        snprintf(note, size, "<0.1%% of attempts");
    else
        snprintf(note, size, "%.1f%% of attempts", share);
}

/* ---- layout ---- */

struct layout {
    int first;        /* the first column: a block's title, or a row's indented name */
    int value;        /* the counts' column */
    int unit[BLOCKS]; /* each table's unit column */
    int stat[BLOCKS][STATS_SHOWN];
    bool shown[BLOCKS][STATS_SHOWN];
};

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

/* The widths of every cell of the document, then the statistics each table
 * has room for within `width`, in the order of its priorities. */
static void lay_out(const struct summary_rows *all, int width, struct layout *l)
{
    memset(l, 0, sizeof *l);
    for (int b = 0; b < BLOCKS; b++) {
        l->first = max_int(l->first, columns_of(block_titles[b]));
        l->unit[b] = columns_of("unit");
        for (int s = 0; s < STATS_SHOWN; s++)
            l->stat[b][s] = columns_of(stat_headers[s]);
    }
    char cell[CELL_MAX];
    for (size_t i = 0; i < all->count; i++) {
        const struct summary_row *row = &all->rows[i];
        enum block b = block_of(row);
        if (b == BLOCK_HEADING) continue;
        int name = INDENT + columns_of(metric_of(row));
        if (name <= INDENT + NAME_MAX_COLUMNS) l->first = max_int(l->first, name);
        if (b == BLOCK_COUNTS) {
            count_cell(row, cell);
            l->value = max_int(l->value, columns_of(cell));
            continue;
        }
        struct row_format f = format_of(row);
        l->unit[b] = max_int(l->unit[b], columns_of(unit_label(&f)));
        for (int s = 0; s < STATS_SHOWN; s++) {
            stat_cell(row, &f, (enum stat)s, cell);
            l->stat[b][s] = max_int(l->stat[b][s], columns_of(cell));
        }
    }
    const enum stat *priority[BLOCKS] = {NULL, samples_priority, seconds_priority};
    const size_t n_priority[BLOCKS] = {0, sizeof samples_priority / sizeof *samples_priority,
                                       sizeof seconds_priority / sizeof *seconds_priority};
    for (int b = BLOCK_SAMPLES; b < BLOCKS; b++) {
        int used = INDENT + l->first + GAP + l->unit[b];
        for (size_t k = 0; k < n_priority[b]; k++) {
            enum stat s = priority[b][k];
            if (used + GAP + l->stat[b][s] > width) continue;
            used += GAP + l->stat[b][s];
            l->shown[b][s] = true;
        }
    }
}

/* The first column of a row: its indented name; a name too long for the
 * column on a line of its own, the row's numbers beneath it. */
static void row_name(FILE *out, const struct layout *l, const char *name)
{
    fprintf(out, "%*s", 2 * INDENT, "");
    if (INDENT + columns_of(name) > l->first) {
        fprintf(out, "%s\n%*s", name, INDENT + l->first, "");
        return;
    }
    pad(out, name, l->first - INDENT, false);
}

static void write_counts(FILE *out, const struct layout *l, const struct summary_row *from,
                         const struct summary_row *to)
{
    char cell[CELL_MAX], note[128];
    for (const struct summary_row *r = from; r < to; r++) {
        if (block_of(r) != BLOCK_COUNTS) continue;
        row_name(out, l, metric_of(r));
        count_cell(r, cell);
        fprintf(out, "%*s", GAP, "");
        pad(out, cell, l->value, true);
        count_note(r, from, to, note, sizeof note);
        if (note[0]) fprintf(out, "%*s%s", GAP, "", note);
        putc('\n', out);
    }
}

static void write_table(FILE *out, const struct layout *l, enum block b,
                        const struct summary_row *from, const struct summary_row *to)
{
    fprintf(out, "%*s", INDENT, "");
    pad(out, block_titles[b], l->first, false);
    fprintf(out, "%*s", GAP, "");
    pad(out, "unit", l->unit[b], false);
    for (int s = 0; s < STATS_SHOWN; s++)
        if (l->shown[b][s]) {
            fprintf(out, "%*s", GAP, "");
            pad(out, stat_headers[s], l->stat[b][s], true);
        }
    putc('\n', out);
    char cell[CELL_MAX];
    for (const struct summary_row *r = from; r < to; r++) {
        if (block_of(r) != b) continue;
        struct row_format f = format_of(r);
        row_name(out, l, metric_of(r));
        fprintf(out, "%*s", GAP, "");
        pad(out, unit_label(&f), l->unit[b], false);
        for (int s = 0; s < STATS_SHOWN; s++)
            if (l->shown[b][s]) {
                stat_cell(r, &f, (enum stat)s, cell);
                fprintf(out, "%*s", GAP, "");
                pad(out, cell, l->stat[b][s], true);
            }
        putc('\n', out);
    }
}

/* "c64: 64 clients, ran 10.0 s" (how long from its ran_s, when it has one). */
static void write_heading(FILE *out, const struct summary_row *from, const struct summary_row *to)
{
    unsigned long clients;
    const char *metric;
    if (stats_key_level(from->key, &clients, &metric))
        fprintf(out, "c%lu: %lu client%s", clients, clients, clients == 1 ? "" : "s");
    else
        fputs("without a level", out);
    for (const struct summary_row *r = from; r < to; r++)
        if (block_of(r) == BLOCK_HEADING) {
            struct row_format f = format_of(r);
            char cell[CELL_MAX];
            stat_cell(r, &f, ST_MEAN, cell);
            fprintf(out, ", ran %s %s", cell, f.unit.symbol); /* ran_s */
        }
    putc('\n', out);
}

static bool same_level(const struct summary_row *a, const struct summary_row *b)
{
    unsigned long ca = 0, cb = 0;
    const char *rest;
    bool la = stats_key_level(a->key, &ca, &rest), lb = stats_key_level(b->key, &cb, &rest);
    return la == lb && ca == cb;
}

void summary_text_write(FILE *out, const struct summary_rows *all, int width)
{
    struct layout l;
    lay_out(all, width, &l);
    size_t runs = 1;
    for (size_t i = 0; i < all->count; i++)
        runs = all->rows[i].runs > runs ? all->rows[i].runs : runs;
    if (runs > 1)
        fprintf(out,
                "over %zu runs: each number is the mean of the runs', ± their standard "
                "deviation\n\n",
                runs);
    for (size_t i = 0; i < all->count;) {
        const struct summary_row *from = &all->rows[i], *to = from;
        while (to < all->rows + all->count && same_level(from, to))
            to++;
        if (i > 0) putc('\n', out);
        write_heading(out, from, to);
        bool has[BLOCKS] = {false};
        for (const struct summary_row *r = from; r < to; r++)
            if (block_of(r) < BLOCKS) has[block_of(r)] = true;
        if (has[BLOCK_COUNTS]) {
            fprintf(out, "%*s%s\n", INDENT, "", block_titles[BLOCK_COUNTS]);
            write_counts(out, &l, from, to);
        }
        for (enum block b = BLOCK_SAMPLES; b < BLOCKS; b++)
            if (has[b]) write_table(out, &l, b, from, to);
        i = (size_t)(to - all->rows);
    }
}
