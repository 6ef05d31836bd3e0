/* nearest.h — the word of a list nearest a mistyped one, for the "did you
 * mean" of the option parsers of httpload, dnsload and loadstats. It lives in
 * libstats because that is the lowest library all three link: loadgen links
 * libstats, and stats includes nothing of loadgen. */
#ifndef LOADGEN_STATS_NEAREST_H
#define LOADGEN_STATS_NEAREST_H

#include <stddef.h>

/* Words longer than this are never near anything (the distance's rows live
 * on the stack). */
#define STATS_NEAREST_MAX_LEN 64

/* The edits between a and b: insertions, deletions, substitutions and swaps
 * of two adjacent letters, each one edit (optimal string alignment, so
 * "clinets" is one edit from "clients"). SIZE_MAX when either is longer than
 * STATS_NEAREST_MAX_LEN. */
size_t stats_edit_distance(const char *a, const char *b);

/* The best candidate seen so far for a mistyped word. */
struct stats_nearest {
    const char *given; /* the mistyped word */
    const char *best;  /* NULL while none is near enough */
    size_t distance;
};

void stats_nearest_init(struct stats_nearest *n, const char *given);
/* Offers a candidate: kept when it is near enough to the given word (about
 * a third of its letters edited, at least one edit allowed) and nearer
 * than the one kept; of equals, the first offered stays. */
void stats_nearest_offer(struct stats_nearest *n, const char *candidate);

#endif
