/* variates.h — draws from the distributions the bootstrap needs, on the
 * suite's one generator (rng.h): standard normal, gamma and beta. A resampled
 * run's k-th smallest sample is the sample at a Beta(k, n−k+1)-distributed
 * rank, so one beta draw stands for resampling n samples and selecting. */
#ifndef LOADGEN_STATS_VARIATES_H
#define LOADGEN_STATS_VARIATES_H

#include "stats/math/rng.h"

/* Standard normal (Marsaglia's polar method). */
double stats_normal(struct stats_rng *rng);

/* Gamma(shape, 1), shape >= 1 (Marsaglia and Tsang). */
double stats_gamma(struct stats_rng *rng, double shape);

/* Beta(a, b), a, b >= 1. */
double stats_beta(struct stats_rng *rng, double a, double b);

#endif
