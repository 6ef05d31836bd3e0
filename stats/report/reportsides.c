/* reportsides.c — the levels of a report page and the names of its series
 * (see reportsides.h). */
#include "stats/report/reportsides.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

int report_page_levels(const struct report_page *page, unsigned long **clients, size_t *n)
{
    size_t cap = 0;
    for (size_t s = 0; s < page->n_sides; s++)
        for (size_t r = 0; r < page->sides[s].n_runs; r++)
            cap += page->sides[s].runs[r].n_levels;
    *clients = calloc(cap + 1, sizeof **clients);
    *n = 0;
    if (*clients == NULL) return -1;
    for (size_t s = 0; s < page->n_sides; s++)
        for (size_t r = 0; r < page->sides[s].n_runs; r++) {
            const struct report_run *run = &page->sides[s].runs[r];
            for (size_t l = 0; l < run->n_levels; l++) {
                bool seen = false;
                for (size_t i = 0; i < *n && !seen; i++)
                    seen = (*clients)[i] == run->levels[l].clients;
                if (!seen) (*clients)[(*n)++] = run->levels[l].clients;
            }
        }
    return 0;
}

void report_series_name(const struct report_page *page, size_t side, size_t run,
                        unsigned long clients, char *buf, size_t size)
{
    (void)run; /* the runs of a side share their legend entry */
    if (page->n_sides > 1)
        snprintf(buf, size, "%s c%lu", page->sides[side].label, clients);
    else
        snprintf(buf, size, "c%lu", clients);
}
