/* fuzz_docread.c — libFuzzer target for the collector document reader: any
 * input must end in a verdict without a crash, leak or undefined behaviour, and
 * every sample it accepts must summarize and print back to the same double. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/read/docread.h"
#include "stats/write/numfmt.h"
#include "stats/math/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_metric(void *ctx, struct docread_metric *metric)
{
    char text[STATS_NUMBER_MAX];
    for (size_t i = 0; i < metric->n; i++) {
        stats_format_double(metric->samples[i], text);
        if (strtod(text, NULL) != metric->samples[i]) abort();
    }
    struct stats_summary summary;
    if (stats_summarize(metric->samples, metric->n, &summary) != 0) abort();
    if (summary.n != metric->n || summary.min > summary.max) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct docread_options keep = {.on_metric = check_metric};
    struct docread_options discard = {.discard_samples = true};
    struct docread_result kept, discarded;
    enum docread_status a = docread_memory(data, size, &keep, &kept);
    enum docread_status b = docread_memory(data, size, &discard, &discarded);
    /* storing samples or not must not change the verdict */
    if (a != b || kept.samples != discarded.samples) abort();
    if (a == DOCREAD_OK && (kept.metrics == 0 || kept.samples == 0)) abort();
    docread_result_free(&kept);
    docread_result_free(&discarded);
    return 0;
}
