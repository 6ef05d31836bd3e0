/* Progress line, the generator's CPU and RSS, and the --watch sampler's
 * clock. See progress.h. */
#include "loadgen/progress.h"
#include "loadgen/control.h"
#include "loadgen/grow.h"
#include "loadgen/internal.h"
#include "loadgen/results.h"
#include "loadgen/selfwatch.h"
#include "loadgen/watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static struct {
    struct lg_worker *ws;
    unsigned n, clients;
    const struct lg_config *cfg;
    uint64_t start_ns;
    double last_cpu;
    uint64_t last_requests;
    double *cpu, *rss; /* generator_cpu_s, generator_rss_bytes */
    size_t n_cpu, cap_cpu;
    int shown;
} P;

static double process_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

void lg_progress_begin(struct lg_worker *ws, unsigned n, unsigned clients,
                       const struct lg_config *cfg, uint64_t start_ns)
{
    P.ws = ws;
    P.n = n;
    P.clients = clients;
    P.cfg = cfg;
    P.start_ns = start_ns;
    P.last_cpu = process_cpu_s();
    P.last_requests = 0;
    P.n_cpu = 0;
    P.shown = 0;
    lg_watch_level_begin(cfg, clients);
}

static void cpu_sample(void)
{
    double cpu = process_cpu_s();
    size_t cap = P.cap_cpu;
    if (!lg_grow(&P.cpu, &cap, P.n_cpu + 1, sizeof(*P.cpu), 64) ||
        !lg_grow(&P.rss, &P.cap_cpu, P.n_cpu + 1, sizeof(*P.rss), 64)) {
        lg_control_fail("out of memory for the generator's own samples");
        return;
    }
    P.rss[P.n_cpu] = (double)lg_selfwatch_rss_bytes();
    /* getrusage has microsecond resolution; keep it at that. */
    P.cpu[P.n_cpu++] = (double)(int64_t)((cpu - P.last_cpu) * 1e6 + 0.5) / 1e6;
    P.last_cpu = cpu;
    lg_watch_sample();
}

void lg_progress_tick(void)
{
    uint64_t now = lg_now_ns();
    /* one sample per whole second of the level */
    if (P.n_cpu < P.cfg->duration_ns / LG_NS_PER_S) cpu_sample();
    if (!P.cfg->progress) return;
    uint64_t req = 0, err = 0;
    for (unsigned i = 0; i < P.n; i++) {
        req += atomic_load_explicit(&P.ws[i].progress_requests, memory_order_relaxed);
        err += atomic_load_explicit(&P.ws[i].progress_errors, memory_order_relaxed);
    }
    double elapsed = (double)(now - P.start_ns) / 1e9;
    double total = (double)P.cfg->duration_ns / 1e9;
    fprintf(stderr, "\r\033[K%s c%u  %5.1fs/%.1fs  %8llu req/s  %llu errors", P.cfg->tool,
            P.clients, elapsed < total ? elapsed : total, total,
            (unsigned long long)(req - P.last_requests), (unsigned long long)err);
    P.last_requests = req;
    P.shown = 1;
}

int lg_progress_collect(struct lg_level_result *res)
{
    /* The last whole second's tick may come after the deadline ended the
     * loop; a level shorter than a second gets one sample, all of its CPU. */
    uint64_t whole = P.cfg->duration_ns / LG_NS_PER_S;
    if (P.n_cpu < (whole ? whole : 1)) cpu_sample();
    double *v = malloc(P.n_cpu * sizeof(*v));
    if (!v) return -1;
    for (size_t i = 0; i < P.n_cpu; i++)
        v[i] = P.cpu[i];
    if (lg_result_add(res, "generator_cpu_s", "seconds", v, P.n_cpu, P.n_cpu) < 0) return -1;
    size_t n_rss = 0; /* 0 means /proc/self/statm was unreadable: no sample */
    double *r = malloc((P.n_cpu ? P.n_cpu : 1) * sizeof(*r));
    if (!r) return -1;
    for (size_t i = 0; i < P.n_cpu; i++)
        if (P.rss[i] > 0) r[n_rss++] = P.rss[i];
    if (lg_result_add(res, "generator_rss_bytes", "bytes", r, n_rss, n_rss) < 0) return -1;
    return lg_watch_collect(res);
}

void lg_progress_end(void)
{
    if (P.shown) fprintf(stderr, "\r\033[K");
    free(P.cpu);
    free(P.rss);
    P.cpu = P.rss = NULL;
    P.n_cpu = P.cap_cpu = 0;
    P.shown = 0;
    lg_watch_level_end();
}
