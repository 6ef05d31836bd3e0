/* studentt.h — quantiles of Student's t distribution, for intervals built on
 * few runs: with k runs a side the run-to-run spread is known only to k − 1
 * degrees of freedom, and the interval widens accordingly (1.96 standard
 * errors with many runs, 12.7 with two). */
#ifndef LOADGEN_STATS_STUDENTT_H
#define LOADGEN_STATS_STUDENTT_H

/* The p-quantile (0 < p < 1) of Student's t with `df` degrees of freedom
 * (df > 0, not necessarily whole; INFINITY gives the standard normal's). */
double stats_t_quantile(double p, double df);

#endif
