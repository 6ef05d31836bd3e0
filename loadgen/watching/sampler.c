/* Progress line, the generator's CPU and RSS, and the --watch sampler's
 * clock. See sampler.h. */
#include "loadgen/watching/sampler.h"
#include "loadgen/watching/control.h"
#include "loadgen/core/grow.h"
#include "loadgen/core/internal.h"
#include "loadgen/output/results.h"
#include "loadgen/core/runctx.h"
#include "loadgen/watching/selfwatch.h"
#include "loadgen/watching/watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static double process_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

void lg_sampler_begin(struct lg_run_ctx *run, struct lg_worker *ws, unsigned n, unsigned clients,
                      const struct lg_config *cfg, uint64_t start_ns)
{
    struct lg_sampler *smp = &run->sampler;
    smp->ws = ws;
    smp->n = n;
    smp->clients = clients;
    smp->cfg = cfg;
    smp->start_ns = start_ns;
    smp->last_cpu = process_cpu_s();
    smp->last_requests = 0;
    smp->n_cpu = 0;
    smp->shown = 0;
    lg_selfwatch_rss_bytes(); /* opens /proc/self/statm, before the load takes descriptors */
    lg_watch_level_begin(&run->watch, cfg, clients);
}

static void cpu_sample(struct lg_run_ctx *run)
{
    struct lg_sampler *smp = &run->sampler;
    double cpu = process_cpu_s();
    size_t cap = smp->cap_cpu;
    if (!lg_grow(&smp->cpu, &cap, smp->n_cpu + 1, sizeof(*smp->cpu), 64) ||
        !lg_grow(&smp->rss, &smp->cap_cpu, smp->n_cpu + 1, sizeof(*smp->rss), 64)) {
        lg_control_fail(run, "out of memory for the generator's own samples");
        return;
    }
    smp->rss[smp->n_cpu] = (double)lg_selfwatch_rss_bytes();
    /* getrusage has microsecond resolution; keep it at that. */
    smp->cpu[smp->n_cpu++] = (double)(int64_t)((cpu - smp->last_cpu) * 1e6 + 0.5) / 1e6;
    smp->last_cpu = cpu;
    lg_watch_sample(&run->watch);
}

void lg_sampler_tick(struct lg_run_ctx *run)
{
    struct lg_sampler *smp = &run->sampler;
    uint64_t now = lg_now_ns();
    /* one sample per whole second of the level */
    if (smp->n_cpu < smp->cfg->duration_ns / LG_NS_PER_S) cpu_sample(run);
    if (!smp->cfg->progress) return;
    uint64_t req = 0, err = 0;
    for (unsigned i = 0; i < smp->n; i++) {
        req += atomic_load_explicit(&smp->ws[i].progress_requests, memory_order_relaxed);
        err += atomic_load_explicit(&smp->ws[i].progress_errors, memory_order_relaxed);
    }
    double elapsed = (double)(now - smp->start_ns) / 1e9;
    double total = (double)smp->cfg->duration_ns / 1e9;
    if (smp->cfg->duration_ns == LG_NO_DEADLINE_NS) /* -n alone: no end to show */
        fprintf(stderr, "\r\033[K%s c%u  %5.1fs  %8llu req/s  %llu done of -n %llu", smp->cfg->tool,
                smp->clients, elapsed, (unsigned long long)(req - smp->last_requests),
                (unsigned long long)(req + err), (unsigned long long)smp->cfg->level_requests);
    else
        fprintf(stderr, "\r\033[K%s c%u  %5.1fs/%.1fs  %8llu req/s  %llu errors", smp->cfg->tool,
                smp->clients, elapsed < total ? elapsed : total, total,
                (unsigned long long)(req - smp->last_requests), (unsigned long long)err);
    smp->last_requests = req;
    smp->shown = 1;
}

int lg_sampler_collect(struct lg_run_ctx *run, struct lg_level_result *res)
{
    struct lg_sampler *smp = &run->sampler;
    /* The last whole second's tick may come after the deadline ended the
     * loop; a level shorter than a second gets one sample, all of its CPU.
     * An interrupted level's seconds end with the last whole one it ran, as
     * its requests_per_second do: the part of a second before the signal
     * is no second's CPU. */
    uint64_t whole = smp->cfg->duration_ns / LG_NS_PER_S;
    uint64_t ran = (uint64_t)res->seconds;
    if (ran < whole) whole = ran;
    if (smp->n_cpu < (whole ? whole : 1)) cpu_sample(run);
    double *v = malloc(smp->n_cpu * sizeof(*v));
    if (!v) return -1;
    for (size_t i = 0; i < smp->n_cpu; i++)
        v[i] = smp->cpu[i];
    if (lg_result_add(res, "generator_cpu_s", "seconds", v, smp->n_cpu, smp->n_cpu) < 0) return -1;
    size_t n_rss = 0; /* 0 means /proc/self/statm was unreadable: no sample */
    double *r = malloc((smp->n_cpu ? smp->n_cpu : 1) * sizeof(*r));
    if (!r) return -1;
    for (size_t i = 0; i < smp->n_cpu; i++)
        if (smp->rss[i] > 0) r[n_rss++] = smp->rss[i];
    if (lg_result_add(res, "generator_rss_bytes", "bytes", r, n_rss, n_rss) < 0) return -1;
    return lg_watch_collect(&run->watch, res);
}

void lg_sampler_end(struct lg_run_ctx *run)
{
    struct lg_sampler *smp = &run->sampler;
    if (smp->shown) fprintf(stderr, "\r\033[K");
    free(smp->cpu);
    free(smp->rss);
    smp->cpu = smp->rss = NULL;
    smp->n_cpu = smp->cap_cpu = 0;
    smp->shown = 0;
    lg_watch_level_end(&run->watch);
}
