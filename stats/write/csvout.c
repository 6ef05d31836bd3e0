/* csvout.c — CSV rows of collector documents (see csvout.h). */
#include "stats/write/csvout.h"

#include <stdbool.h>
#include <string.h>

#include "stats/read/metrickind.h"
#include "stats/write/numfmt.h"

void stats_csv_field(FILE *out, const char *text)
{
    if (strpbrk(text, ",\"\r\n") == NULL) {
        fputs(text, out);
        return;
    }
    putc('"', out);
    for (; *text; text++) {
        if (*text == '"') putc('"', out);
        putc(*text, out);
    }
    putc('"', out);
}

static void number(FILE *out, double x)
{
    char buf[STATS_NUMBER_MAX];
    fwrite(buf, 1, stats_format_double(x, buf), out);
}

/* clients,metric,unit, -- the columns every row starts with. */
static void key_fields(FILE *out, const char *key, enum stats_unit unit)
{
    const char *metric = stats_key_metric(key);
    if (metric != key) fwrite(key + 1, 1, (size_t)(metric - key - 2), out);
    putc(',', out);
    stats_csv_field(out, metric);
    putc(',', out);
    fputs(stats_unit_name(unit), out);
    putc(',', out);
}

void stats_csv_samples_header(FILE *out)
{
    fputs("clients,metric,unit,sample,value\r\n", out);
}

void stats_csv_samples_rows(FILE *out, const char *key, enum stats_unit unit, const double *samples,
                            size_t n)
{
    for (size_t i = 0; i < n; i++) {
        key_fields(out, key, unit);
        fprintf(out, "%zu,", i + 1);
        number(out, samples[i]);
        fputs("\r\n", out);
    }
}

void stats_csv_summary_header(FILE *out)
{
    fputs("clients,metric,unit,n,min,median,p90,p95,p99,p999,max,mean,stddev,cv,mad\r\n", out);
}

void stats_csv_summary_row(FILE *out, const char *key, enum stats_unit unit,
                           const struct stats_summary *s)
{
    key_fields(out, key, unit);
    fprintf(out, "%zu", s->n);
    const double values[] = {s->min, s->median, s->p90,    s->p95, s->p99, s->p999,
                             s->max, s->mean,   s->stddev, s->cv,  s->mad};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        putc(',', out);
        number(out, values[i]);
    }
    fputs("\r\n", out);
}
