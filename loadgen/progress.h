/* Once a second during a level: the one-line progress display on stderr (when
 * enabled), the generator's own CPU time and RSS (generator_cpu_s,
 * generator_rss_bytes) and the --watch samples. Driven by worker 0's tick. */
#ifndef LOADGEN_PROGRESS_H
#define LOADGEN_PROGRESS_H

#include <stdint.h>

struct lg_worker;
struct lg_config;
struct lg_level_result;

void lg_progress_begin(struct lg_worker *ws, unsigned n, unsigned clients,
                       const struct lg_config *cfg, uint64_t start_ns);
void lg_progress_tick(void);
/* Adds generator_cpu_s, generator_rss_bytes and watch.* to the level's result. */
int lg_progress_collect(struct lg_level_result *res);
void lg_progress_end(void);

#endif
