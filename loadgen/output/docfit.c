/* Fitting the document into --max-doc-bytes. See docfit.h. The sizes are
 * exact: the document is measured by formatting it without writing it, each
 * series by formatting its samples as the writer does. */
#include "loadgen/output/docfit.h"
#include "loadgen/output/jsonout.h"
#include "loadgen/output/results.h"
#include "stats/math/sampling.h"

#include <stdint.h>
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
    /* what cannot be cut, and what can, both counted with the shortest
     * possible series (one sample each) */
    size_t cuttable = 0, at_least = total;
    for (size_t l = 0; l < n_levels; l++)
        for (size_t i = 0; i < levels[l].n; i++) {
            struct lg_metric *m = &levels[l].m[i];
            if (!m->ns || m->n <= 1) continue;
            size_t b = samples_bytes(m->ns, m->n);
            cuttable += b;
            at_least -= b - samples_bytes(m->ns, 1);
        }
    if (at_least > max_bytes) {
        *need = at_least;
        return -1;
    }
    /* keep the same share of every series; then, as long as the samples
     * kept are longer than the average (their lengths vary a little), the
     * same again of what is left */
    double share = (double)(max_bytes - at_least) / (double)cuttable;
    for (int round = 0; round < 64; round++) {
        size_t bytes = at_least;
        for (size_t l = 0; l < n_levels; l++)
            for (size_t i = 0; i < levels[l].n; i++) {
                struct lg_metric *m = &levels[l].m[i];
                if (!m->ns || m->n <= 1) continue;
                size_t k = (size_t)(share * (double)m->n);
                if (k < 1) k = 1;
                if (k < m->n) {
                    stats_draw_front(m->ns, m->n, k, rng);
                    m->n = k;
                }
                bytes += samples_bytes(m->ns, m->n) - samples_bytes(m->ns, 1);
            }
        if (bytes <= max_bytes) break;
        share = (double)(max_bytes - at_least) / (double)(bytes - at_least) * 0.99;
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
