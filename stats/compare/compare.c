/* compare.c — the verdict on one metric between two sets of runs (see
 * compare.h). The direction comes from the table of metric kinds: rates and
 * counts of work done are worse lower, bytes received and connections
 * neither (the change decides which is better), everything else worse
 * higher. */
#include "stats/compare/compare.h"

#include <math.h>
#include <stdio.h>

const char *stats_verdict_name(enum stats_verdict verdict)
{
    switch (verdict) {
    case STATS_VERDICT_TINY:
        return "tiny";
    case STATS_VERDICT_NOISY:
        return "noisy";
    case STATS_VERDICT_IMPROVED:
        return "improved";
    case STATS_VERDICT_CHANGED:
        return "changed";
    case STATS_VERDICT_REGRESSED:
        return "regressed";
    default:
        return "ok";
    }
}

void stats_comparison_move(struct stats_comparison *c, double base, double current)
{
    c->base = stats_round2(base);
    c->current = stats_round2(current);
    /* rounding the difference removes the binary residue
     * (1.41 − 0.41 = 0.9999999999999999) before it meets a floor */
    c->delta_abs = stats_round2(current - base);
    if (base == 0.0) {
        /* a zero baseline has no ratio: growth from it is a change this scale
         * cannot quantify, so it is infinite rather than silently 1 */
        c->ratio = current == 0.0 ? 1.0 : INFINITY;
        c->delta_pct = current == 0.0 ? 0.0 : NAN;
    } else {
        c->ratio = current / base;
        c->delta_pct = c->delta_abs / base * 100.0;
    }
}

bool stats_comparison_single_run(const struct stats_comparison *c)
{
    return c->base_runs < 2 && c->new_runs < 2;
}

bool stats_comparison_undefined(const struct stats_comparison *c)
{
    return isnan(c->ratio_low) || isnan(c->ratio_high);
}

void stats_comparison_note(const struct stats_comparison *c,
                           const struct stats_thresholds *thresholds, char *buf, size_t size)
{
    buf[0] = '\0';
    if (c->noise == STATS_NOISE_INTERVAL)
        snprintf(buf, size, "the interval straddles x%g", thresholds->maximum_factor);
    else if (c->noise == STATS_NOISE_BASELINE)
        snprintf(buf, size, "within the baseline's cv %.2f", c->base_cv);
    else if (c->noise == STATS_NOISE_RUNS)
        snprintf(buf, size, "in one run of a side of several");
    else if (c->verdict == STATS_VERDICT_TINY)
        snprintf(buf, size, "below %g ms", thresholds->minimum_time_resolution_ms);
    else if (c->noise == STATS_NOISE_ZERO_BASE || stats_comparison_undefined(c))
        snprintf(buf, size, "the base can be 0: the ratio is undefined");
}

void stats_judge(struct stats_comparison *c, enum stats_unit unit,
                 const struct stats_thresholds *thresholds)
{
    double factor = thresholds->maximum_factor;
    /* a move is beyond the factor by its ratio, or by its whole interval */
    bool up = c->ratio > factor || c->ratio_low > factor;
    bool down = !up && (c->ratio < 1.0 / factor || c->ratio_high < 1.0 / factor);
    bool worse = c->lower_is_worse ? down : up;
    bool clears_interval = up ? c->ratio_low > factor : c->ratio_high < 1.0 / factor;

    double floor_in_unit = stats_unit_from_ms(unit, thresholds->minimum_time_resolution_ms);
    bool material = !stats_unit_is_time(unit) || fabs(c->delta_abs) >= floor_in_unit;
    /* one run a side: the baseline's own spread stands in for the runs' */
    bool single = stats_comparison_single_run(c);
    bool clears_noise = !single || fabs(c->ratio - 1.0) > c->base_cv * thresholds->noise_factor;
    /* several runs asked for on a side, but the metric in one of them: that
     * side's run-to-run noise is unknown (a gauge a short run did not take) */
    bool runs_missing =
        (c->base_given > 1 && c->base_runs < 2) || (c->new_given > 1 && c->new_runs < 2);

    c->noise = STATS_NOISE_NONE;
    if (!up && !down)
        c->verdict = STATS_VERDICT_OK;
    else if (!material)
        c->verdict = STATS_VERDICT_TINY;
    else if (!clears_interval || !clears_noise || runs_missing) {
        c->verdict = STATS_VERDICT_NOISY;
        c->noise = stats_comparison_undefined(c) ? STATS_NOISE_ZERO_BASE
                   : !clears_interval            ? STATS_NOISE_INTERVAL
                   : runs_missing                ? STATS_NOISE_RUNS
                                                 : STATS_NOISE_BASELINE;
    } else if (c->directionless)
        c->verdict = STATS_VERDICT_CHANGED;
    else
        c->verdict = worse ? STATS_VERDICT_REGRESSED : STATS_VERDICT_IMPROVED;
    c->significant = c->verdict == STATS_VERDICT_REGRESSED;
}
