/* --max-doc-bytes: the document made to fit a size a reader can take whole
 * (a harness that reads a pipe only after the process exits deadlocks once
 * the document outgrows the pipe's buffer). */
#ifndef LOADGEN_DOCFIT_H
#define LOADGEN_DOCFIT_H

#include <stddef.h>
#include <stdio.h>

struct lg_level_result;
struct stats_rng;

/* Cuts the per-request series of the levels to uniform random subsets, each
 * in proportion to its size, until the document is at most max_bytes long;
 * counts and per-second series stay whole. Says on `report` how many samples
 * each cut metric kept. 0, or -1 when even the smallest document (one sample
 * of each per-request series) is larger: *need is then its size. */
int lg_results_fit(struct lg_level_result *levels, size_t n_levels, size_t max_bytes,
                   struct stats_rng *rng, FILE *report, const char *tool, size_t *need);

#endif
