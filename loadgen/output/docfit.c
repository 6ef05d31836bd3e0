/* Fitting the document into --max-doc-bytes. See docfit.h. The sizes are
 * exact: the document is measured by formatting it without writing it, each
 * series by formatting its samples as the writer does. */
#include "loadgen/output/docfit.h"
#include "loadgen/output/jsonout.h"
#include "loadgen/output/results.h"
#include "stats/math/sampling.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The bytes of a series' samples with the commas between them. */
static size_t samples_bytes(const uint64_t *ns, size_t n)
{
    char buf[40];
    size_t bytes = n ? n - 1 : 0;
    for (size_t i = 0; i < n; i++)
        bytes += lg_format_ns_as_ms(buf, ns[i]);
    return bytes;
}

int lg_results_fit(struct lg_level_result *levels, size_t n_levels, size_t max_bytes,
                   struct stats_rng *rng, FILE *report, const char *tool, size_t *need)
{
    size_t total = lg_results_size(levels, n_levels);
    if (total <= max_bytes) return 0;
    /* the document without any latency series' samples (base), and with
     * the shortest one sample of each that has more (at_least) */
    size_t base = total, cuttable = 0, at_least;
    for (size_t l = 0; l < n_levels; l++)
        for (size_t i = 0; i < levels[l].n; i++) {
            struct lg_metric *m = &levels[l].m[i];
            if (!m->ns) continue;
            size_t b = samples_bytes(m->ns, m->n);
            base -= b;
            if (m->n > 1) cuttable += b;
        }
    at_least = base;
    for (size_t l = 0; l < n_levels; l++)
        for (size_t i = 0; i < levels[l].n; i++) {
            const struct lg_metric *m = &levels[l].m[i];
            if (!m->ns || m->n == 0) continue;
            size_t shortest = SIZE_MAX;
            for (size_t k = 0; k < m->n; k++) {
                size_t len = samples_bytes(&m->ns[k], 1);
                if (len < shortest) shortest = len;
            }
            at_least += m->n > 1 ? shortest : samples_bytes(m->ns, m->n);
        }
    if (at_least > max_bytes) {
        *need = at_least;
        return -1;
    }
    /* keep the same share of every series; then, as long as the samples
     * kept are longer than the average (their lengths vary a little), the
     * same again of what is left. Each round counts the samples as they
     * now are: a draw changes which one is first, and its length with it
     * (a document one byte over --max-doc-bytes, t_output, 2026-12-04). */
    double share = (double)(max_bytes - base) / (double)cuttable;
    for (int round = 0; round < 64; round++) {
        size_t bytes = base;
        for (size_t l = 0; l < n_levels; l++)
            for (size_t i = 0; i < levels[l].n; i++) {
                struct lg_metric *m = &levels[l].m[i];
                if (!m->ns) continue;
                size_t k = (size_t)(share * (double)m->n);
                if (k < 1) k = 1;
                if (k < m->n) {
                    stats_draw_front(m->ns, m->n, k, rng);
                    m->n = k;
                }
                bytes += samples_bytes(m->ns, m->n);
            }
        if (bytes <= max_bytes) break;
        share = (double)(max_bytes - base) / (double)(bytes - base) * 0.99;
    }
    total = lg_results_size(levels, n_levels);
    if (total > max_bytes) { /* cannot happen unless a length was miscounted */
        *need = total;
        return -1;
    }
    for (size_t l = 0; l < n_levels; l++)
        for (size_t i = 0; i < levels[l].n; i++) {
            const struct lg_metric *m = &levels[l].m[i];
            if (m->ns && m->n < m->seen)
                fprintf(report, "%s: --max-doc-bytes %zu: c%u.%s keeps %zu of %llu samples\n", tool,
                        max_bytes, levels[l].clients, m->name, m->n, (unsigned long long)m->seen);
        }
    return 0;
}
