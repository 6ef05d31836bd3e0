/* cpuwork.h — how much work a watched process tree did per CPU second it
 * consumed: the level's mean requests per second over the tree's mean CPU
 * seconds per second (--watch's cpu_s). Rates over rates, so a CPU series one
 * sample shorter than the level's timeline weighs the same seconds. */
#ifndef LOADGEN_STATS_CPUWORK_H
#define LOADGEN_STATS_CPUWORK_H

#include <stdbool.h>
#include <stddef.h>

/* Requests per consumed CPU second: mean(rps) / mean(cpu_s); NAN when either
 * series is empty or the tree consumed no CPU. */
double stats_requests_per_cpu_second(double mean_requests_per_second, double mean_cpu_s);

/* Is `metric` (without its level) a watched tree's CPU series,
 * "watch.<NAME>.cpu_s" (not a component's "watch.<NAME>.<comm>.cpu_s")?
 * Sets *name and *name_len to the tree's name. */
bool stats_watch_tree_cpu(const char *metric, const char **name, size_t *name_len);

#endif
