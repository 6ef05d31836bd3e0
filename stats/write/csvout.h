/* csvout.h — collector documents as CSV (RFC 4180: comma-separated, CRLF line
 * ends, a field quoted when it holds a comma, quote, CR or LF, quotes doubled)
 * for spreadsheets: one row per sample, or one row per metric and level. */
#ifndef LOADGEN_STATS_CSVOUT_H
#define LOADGEN_STATS_CSVOUT_H

#include <stddef.h>
#include <stdio.h>

#include "stats/math/stats.h"
#include "stats/read/units.h"

/* One field, quoted where RFC 4180 needs it. */
void stats_csv_field(FILE *out, const char *text);

/* clients,metric,unit,sample,value */
void stats_csv_samples_header(FILE *out);
/* One row per sample of `key`: its level (empty without one), the metric, the
 * unit, the sample's 1-based position in the document, and its value. */
void stats_csv_samples_rows(FILE *out, const char *key, enum stats_unit unit, const double *samples,
                            size_t n);

/* clients,metric,unit,n,min,median,p90,p95,p99,p999,max,mean,stddev,cv,mad */
void stats_csv_summary_header(FILE *out);
/* One row: the numbers `loadstats summary --json` prints for `key`. */
void stats_csv_summary_row(FILE *out, const char *key, enum stats_unit unit,
                           const struct stats_summary *s);

#endif
