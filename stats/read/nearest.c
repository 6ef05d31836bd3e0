/* nearest.c — edit distance and the nearest word (see nearest.h). */
#include "stats/read/nearest.h"

#include <stdint.h>
#include <string.h>

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

size_t stats_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > STATS_NEAREST_MAX_LEN || lb > STATS_NEAREST_MAX_LEN) return SIZE_MAX;
    /* three rows of the table: the one before the previous is what a swap
     * of two letters reaches back to */
    size_t rows[3][STATS_NEAREST_MAX_LEN + 1];
    size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                before[j - 2] + 1 < cur[j])
                cur[j] = before[j - 2] + 1;
        }
        size_t *spare = before;
        before = prev;
        prev = cur;
        cur = spare;
    }
    return prev[lb];
}

void stats_nearest_init(struct stats_nearest *n, const char *given)
{
    n->given = given;
    n->best = NULL;
    n->distance = SIZE_MAX;
}

void stats_nearest_offer(struct stats_nearest *n, const char *candidate)
{
    size_t len = strlen(n->given);
    /* about a third of the letters: "thred" and "clinets" may be two edits
     * off, "tls" one */
    size_t allowed = len < 5 ? 1 : (len + 1) / 3;
    size_t d = stats_edit_distance(n->given, candidate);
    if (d <= allowed && d < n->distance) {
        n->best = candidate;
        n->distance = d;
    }
}
