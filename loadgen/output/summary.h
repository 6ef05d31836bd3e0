/* The human side of a level on stderr, in the order a wrk user reads it:
 * requests per second and the transfer rate first, then the connections
 * (per protocol) or UDP sockets and the bytes in binary units, a table of
 * mean, deviation and percentiles from the stats library (never a second
 * implementation of them), the error classes, and each --watch tree's CPU,
 * memory and requests per CPU second. */
#ifndef LOADGEN_SUMMARY_H
#define LOADGEN_SUMMARY_H

#include <stdio.h>

struct lg_level_result;
struct lg_driver;
struct lg_config;

typedef const char *(*lg_error_namer)(const struct lg_driver *d, unsigned cls);

void lg_summary_level(FILE *out, const struct lg_level_result *r, const struct lg_driver *drv,
                      unsigned n_classes, lg_error_namer name, const struct lg_config *cfg);

#endif
