/* compare.c — the verdict on one metric between two runs (see compare.h).
 * Follows the harness's comparison, with the direction made explicit: for rates
 * lower is worse, for everything else higher is worse. */
#include "stats/compare.h"

#include <math.h>

const char *stats_verdict_name(enum stats_verdict verdict)
{
    switch (verdict) {
    case STATS_VERDICT_TINY:
        return "tiny";
    case STATS_VERDICT_NOISY:
        return "noisy";
    case STATS_VERDICT_IMPROVED:
        return "improved";
    case STATS_VERDICT_REGRESSED:
        return "regressed";
    default:
        return "ok";
    }
}

void stats_compare(const struct stats_summary *base, const struct stats_summary *current,
                   enum stats_unit unit, const struct stats_thresholds *thresholds,
                   struct stats_comparison *out)
{
    double before = base->median, after = current->median;
    out->base_median = before;
    out->new_median = after;
    /* Both medians have two decimals; rounding the difference removes the
     * binary residue (1.41 − 0.41 = 0.9999999999999999) before it meets a floor. */
    out->delta_abs = stats_round2(after - before);
    if (before == 0.0) {
        /* A zero baseline has no ratio: growth from it is a change this scale
         * cannot quantify, so it is infinite rather than silently 1. */
        out->ratio = after == 0.0 ? 1.0 : INFINITY;
        out->delta_pct = after == 0.0 ? 0.0 : NAN;
    } else {
        out->ratio = after / before;
        out->delta_pct = out->delta_abs / before * 100.0;
    }

    double factor = thresholds->maximum_factor;
    bool higher = out->ratio > factor, lower = out->ratio < 1.0 / factor;
    bool lower_is_worse = stats_unit_is_rate(unit);
    bool worse = lower_is_worse ? lower : higher;
    bool better = lower_is_worse ? higher : lower;

    double floor_in_unit = stats_unit_from_ms(unit, thresholds->minimum_time_resolution_ms);
    bool material = !stats_unit_is_time(unit) || fabs(out->delta_abs) >= floor_in_unit;
    bool clears_noise = fabs(out->ratio - 1.0) > base->cv * thresholds->noise_factor;

    out->significant = worse && material && clears_noise;
    if (!worse && !better)
        out->verdict = STATS_VERDICT_OK;
    else if (!material)
        out->verdict = STATS_VERDICT_TINY;
    else if (!clears_noise)
        out->verdict = STATS_VERDICT_NOISY;
    else
        out->verdict = worse ? STATS_VERDICT_REGRESSED : STATS_VERDICT_IMPROVED;
}
