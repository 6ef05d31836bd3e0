/* variates.c — normal, gamma and beta draws (see variates.h). */
#include "stats/math/variates.h"

#include <math.h>

double stats_normal(struct stats_rng *rng)
{
    /* Each try is accepted with probability pi/4: 100 all refused has a
     * probability below 1e-65, and then the mean stands in. */
    for (int tries = 0; tries < 100; tries++) {
        double u = 2.0 * stats_rng_open01(rng) - 1.0, v = 2.0 * stats_rng_open01(rng) - 1.0;
        double s = u * u + v * v;
        if (s > 0.0 && s < 1.0) return u * sqrt(-2.0 * log(s) / s);
    }
    return 0.0;
}

double stats_gamma(struct stats_rng *rng, double shape)
{
    /* Marsaglia & Tsang (2000): each try is accepted with probability above
     * 0.95 for shape >= 1; 100 refused (below 1e-130), the mode stands in. */
    double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (int tries = 0; tries < 100; tries++) {
        double x = stats_normal(rng), v = 1.0 + c * x;
        if (v <= 0.0) continue;
        v = v * v * v;
        double u = stats_rng_open01(rng);
        if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
        if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) return d * v;
    }
    return d;
}

double stats_beta(struct stats_rng *rng, double a, double b)
{
    if (b == 1.0) return pow(stats_rng_open01(rng), 1.0 / a);       /* the largest of a uniforms */
    if (a == 1.0) return 1.0 - pow(stats_rng_open01(rng), 1.0 / b); /* the smallest of b */
    double x = stats_gamma(rng, a), y = stats_gamma(rng, b);
    return x / (x + y);
}
