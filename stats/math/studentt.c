/* studentt.c — Student's t quantiles (see studentt.h): the distribution
 * function through the regularized incomplete beta function (a continued
 * fraction, Lentz's method), inverted by bisection. */
#include "stats/math/studentt.h"

#include <math.h>

/* The continued fraction of the incomplete beta function I_x(a, b). */
static double beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) { /* converges in well under 100 terms here */
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + aa * d;
        d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + aa * d;
        d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        double step = d * c;
        h *= step;
        if (fabs(step - 1.0) < 1e-15) break;
    }
    return h;
}

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
static double incomplete_beta(double a, double b, double x)
{
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_fraction(a, b, x) / a;
    return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

/* P(T <= t) for Student's t with df degrees of freedom. */
static double t_cdf(double t, double df)
{
    if (isinf(df)) return 0.5 * erfc(-t / sqrt(2.0));
    double tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
    return t > 0 ? 1.0 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
    if (p == 0.5) return 0.0;
    /* bisection on a bracket that holds every quantile from 1e-12 to
     * 1 − 1e-12 down to df = 0.5; 200 halvings leave nothing to gain */
    double low = -1e13, high = 1e13;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (low + high);
        if (t_cdf(mid, df) < p)
            low = mid;
        else
            high = mid;
    }
    return 0.5 * (low + high);
}
