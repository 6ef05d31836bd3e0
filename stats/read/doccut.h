/* doccut.h — does a document show that its samples were cut? A generator
 * keeps one latency sample per successful request (latency_cold_ms for a
 * connection's first, latency_warm_ms for the rest), so a level whose
 * `requests` count exceeds the samples both stand for had them cut
 * (--max-samples, --max-doc-bytes): pooled as if whole, they would weigh its
 * requests wrongly. Fed metric by metric while a document is read. */
#ifndef LOADGEN_STATS_DOCCUT_H
#define LOADGEN_STATS_DOCCUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stats_doccut_level {
    unsigned long clients;
    bool has_requests;
    uint64_t requests;
    uint64_t latency; /* the requests the latency samples stand for (their true counts) */
    size_t held;      /* the latency samples the document holds */
};

struct stats_doccut {
    struct stats_doccut_level *levels;
    size_t count, cap;
};

/* Records one metric of the document: `requests` (its count in `value`), or
 * latency_cold_ms / latency_warm_ms with the samples held (n) and the true
 * count they stand for (seen: n when nothing says otherwise). Other keys are
 * ignored. Returns 0, or -1 when memory runs out. */
int stats_doccut_note(struct stats_doccut *cut, const char *key, double value, size_t n,
                      uint64_t seen);

/* The first level whose requests exceed what its latency samples stand for,
 * or NULL. */
const struct stats_doccut_level *stats_doccut_find(const struct stats_doccut *cut);

void stats_doccut_free(struct stats_doccut *cut);

#endif
