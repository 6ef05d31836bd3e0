/* cpuwork.c — requests per CPU second of a watched tree (see cpuwork.h). */
#include "stats/math/cpuwork.h"

#include <math.h>
#include <string.h>

double stats_requests_per_cpu_second(double mean_requests_per_second, double mean_cpu_s)
{
    if (!isfinite(mean_requests_per_second) || !isfinite(mean_cpu_s) || !(mean_cpu_s > 0))
        return NAN;
    return mean_requests_per_second / mean_cpu_s;
}

bool stats_watch_tree_cpu(const char *metric, const char **name, size_t *name_len)
{
    static const char prefix[] = "watch.", suffix[] = ".cpu_s";
    size_t len = strlen(metric), p = sizeof prefix - 1, s = sizeof suffix - 1;
    if (len <= p + s || strncmp(metric, prefix, p) != 0 || strcmp(metric + len - s, suffix) != 0)
        return false;
    const char *tree = metric + p;
    size_t tree_len = len - p - s;
    if (memchr(tree, '.', tree_len) != NULL) return false; /* a component's */
    *name = tree;
    *name_len = tree_len;
    return true;
}
