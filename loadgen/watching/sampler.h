/* Once a second during a level: the one-line progress display on stderr (when
 * enabled), the generator's own CPU time and RSS (generator_cpu_s,
 * generator_rss_bytes) and the --watch samples. Driven by the control thread
 * (control.h). */
#ifndef LOADGEN_SAMPLER_H
#define LOADGEN_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

struct lg_worker;
struct lg_config;
struct lg_level_result;
struct lg_run_ctx;

/* The sampler's state for the current level, a field of the run context
 * (runctx.h); zeroed is ready. */
struct lg_sampler {
    struct lg_worker *ws;
    unsigned n, clients;
    const struct lg_config *cfg;
    uint64_t start_ns;
    double last_cpu;
    uint64_t last_requests;
    double *cpu, *rss; /* generator_cpu_s, generator_rss_bytes */
    size_t n_cpu, cap_cpu;
    int shown;
};

void lg_sampler_begin(struct lg_run_ctx *run, struct lg_worker *ws, unsigned n, unsigned clients,
                      const struct lg_config *cfg, uint64_t start_ns);
void lg_sampler_tick(struct lg_run_ctx *run);
/* Adds generator_cpu_s, generator_rss_bytes and watch.* to the level's result. */
int lg_sampler_collect(struct lg_run_ctx *run, struct lg_level_result *res);
void lg_sampler_end(struct lg_run_ctx *run);

#endif
