/* plainverdict.h — a comparison of base and new in one sentence for people,
 * "new is slower: warm p50 +31% [+22%, +41%]; throughput not distinguishable
 * from noise with 2 runs a side: run more", read off the rows `loadstats
 * compare` judged: nothing is judged again, only put in words. */
#ifndef LOADGEN_STATS_PLAINVERDICT_H
#define LOADGEN_STATS_PLAINVERDICT_H

#include <stddef.h>

#include "stats/compare/comparison.h"

/* The sentence in two parts: its opening ("new is slower", "new is faster",
 * "no real difference", ...) from the verdicts of every counted row; and
 * its clauses: each level's warm latency (cold where it has no warm one),
 * throughput and errors (where a side has any), whatever their verdicts,
 * then every other row that moved for real. A percentage is new/base − 1,
 * with compare's interval of the ratio in brackets. Both are cut to fit. */
void stats_plain_verdict(const struct stats_compare_report *report,
                         const struct stats_compare_settings *settings, char *opening,
                         size_t opening_size, char *clauses, size_t clauses_size);

#endif
