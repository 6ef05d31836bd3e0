/* Generator self-diagnostics: loop lag from the 1 s tick, per-thread CPU and
 * run-queue wait over a level, the transport's receive-queue drops at level
 * end, and the saturation warning. See selfwatch.h. */
#include "loadgen/watching/selfwatch.h"
#include "loadgen/core/internal.h"
#include "loadgen/watching/procfs.h"
#include "loadgen/output/results.h"
#include "stats/math/stats.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A loop thread runnable (running or waiting for a CPU) for more of the level
 * than this was the bottleneck; so was one whose tick came this late. */
#define SATURATED_RATIO 0.9
#define LAG_P99_LIMIT_MS 100.0
#define LAG_MAX_LIMIT_MS 500.0
/* A loop asleep with work waiting for this much of the level was held up by
 * its own wake-up, not by the target (wakewatch.h). */
#define ASLEEP_ON_WORK_LIMIT 0.05

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * LG_NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Time this thread spent runnable but not running (needs schedstats). */
static int thread_wait_ns(uint64_t *wait)
{
    char text[128];
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0) return -1;
    text[n] = '\0';
    uint64_t run;
    return lg_procfs_parse_schedstat(text, (size_t)n, &run, wait);
}

void lg_selfwatch_worker_begin(struct lg_worker *w, uint64_t now)
{
    w->loop_start_ns = now;
    w->tick_due_ns = now + LG_NS_PER_S;
    w->cpu_start_ns = thread_cpu_ns();
    w->have_wait = thread_wait_ns(&w->wait_start_ns) == 0;
    w->n_lag = 0;
    w->rx_dropped = 0;
    w->have_rx_dropped = false;
    /* ticks run through the level and its drain window (a longer level, -n
     * alone, makes more room as it goes) */
    uint64_t seconds = (w->cfg->duration_ns + w->cfg->timeout_ns) / LG_NS_PER_S;
    size_t need = (seconds < LG_TIMELINE_FIRST_S ? (size_t)seconds : LG_TIMELINE_FIRST_S) + 2;
    if (need > w->cap_lag) {
        double *v = realloc(w->lag_ms, need * sizeof(*v));
        if (v) {
            w->lag_ms = v;
            w->cap_lag = need;
        }
    }
}

double lg_selfwatch_tick(struct lg_worker *w, uint64_t now)
{
    uint64_t lag = now > w->tick_due_ns ? now - w->tick_due_ns : 0;
    if (w->n_lag == w->cap_lag && w->cap_lag) { /* once an hour, off the request path */
        double *v = realloc(w->lag_ms, 2 * w->cap_lag * sizeof(*v));
        if (v) {
            w->lag_ms = v;
            w->cap_lag *= 2;
        }
    }
    if (w->n_lag < w->cap_lag) w->lag_ms[w->n_lag++] = (double)lag / 1e6;
    /* the next whole second after the level's start; a stall skips ticks */
    do
        w->tick_due_ns += LG_NS_PER_S;
    while (w->tick_due_ns <= now);
    return (double)(w->tick_due_ns - now) / 1e9;
}

void lg_selfwatch_worker_end(struct lg_worker *w)
{
    w->loop_wall_ns = lg_now_ns() - w->loop_start_ns;
    w->cpu_ns = thread_cpu_ns() - w->cpu_start_ns;
    uint64_t wait;
    if (w->have_wait && thread_wait_ns(&wait) == 0 && wait >= w->wait_start_ns)
        w->wait_ns = wait - w->wait_start_ns;
    else
        w->have_wait = false;
    if (w->tp->dropped) w->have_rx_dropped = w->tp->dropped(w, &w->rx_dropped);
}

int lg_selfwatch_collect(struct lg_level_result *res, struct lg_worker *ws, unsigned nw,
                         const struct lg_config *cfg, const struct lg_driver *drv)
{
    size_t n_lag = 0;
    for (unsigned i = 0; i < nw; i++)
        n_lag += ws[i].n_lag;
    double *lag = malloc((n_lag ? n_lag : 1) * sizeof(*lag));
    if (!lag) return -1;
    size_t k = 0;
    for (unsigned i = 0; i < nw; i++)
        for (size_t j = 0; j < ws[i].n_lag; j++)
            lag[k++] = ws[i].lag_ms[j];
    double lag_p99 = 0, lag_max = 0;
    if (n_lag) {
        /* loadstats' percentile (interpolated), so the warning and a summary
         * of the document's loop_lag_ms agree */
        double *scratch = malloc(n_lag * sizeof(*scratch));
        if (scratch) {
            memcpy(scratch, lag, n_lag * sizeof(*scratch));
            static const double qs[2] = {0.99, 1.0};
            double at[2];
            stats_percentiles(scratch, n_lag, qs, 2, at);
            lag_p99 = at[0];
            lag_max = at[1];
            free(scratch);
        }
    }
    if (lg_result_add(res, "loop_lag_ms", "milliseconds", lag, n_lag, n_lag) < 0) return -1;

    uint64_t drops = 0;
    bool any = false;
    for (unsigned i = 0; i < nw; i++) {
        drops += ws[i].rx_dropped;
        any |= ws[i].have_rx_dropped;
    }
    if (any && lg_result_add_count(res, "rx_dropped", drops) < 0) return -1;

    /* the most saturated loop thread */
    unsigned worst = 0;
    double worst_ratio = -1, worst_busy = 0, worst_wait = 0;
    for (unsigned i = 0; i < nw; i++) {
        const struct lg_worker *w = &ws[i];
        if (!w->loop_wall_ns) continue;
        double busy = (double)w->cpu_ns / (double)w->loop_wall_ns;
        double wait = w->have_wait ? (double)w->wait_ns / (double)w->loop_wall_ns : 0;
        if (busy + wait > worst_ratio) {
            worst_ratio = busy + wait;
            worst = i;
            worst_busy = busy;
            worst_wait = wait;
        }
    }
    /* the loop that slept longest on work waiting for it */
    double asleep = -1;
    unsigned asleep_thread = 0;
    for (unsigned i = 0; i < nw; i++) {
        const struct lg_worker *w = &ws[i];
        if (!w->loop_wall_ns || !w->n_clients || !w->tp->work_waiting) continue;
        double share = (double)w->asleep_on_work_ns / (double)w->loop_wall_ns;
        if (share > asleep) {
            asleep = share;
            asleep_thread = i;
        }
    }
    bool saturated = worst_ratio > SATURATED_RATIO;
    bool late = lag_p99 > LAG_P99_LIMIT_MS || lag_max > LAG_MAX_LIMIT_MS;
    bool sleepy = asleep > ASLEEP_ON_WORK_LIMIT;
    res->self_watch = (struct lg_self_watch){
        .measured = worst_ratio >= 0,
        .limited = saturated || late || sleepy,
        .thread = worst,
        .threads = nw,
        .on_cpu = worst_busy,
        .waiting = worst_ratio >= 0 && ws[worst].have_wait ? worst_wait : -1,
        .tick_lag_p99_ms = lag_p99,
        .tick_lag_max_ms = lag_max,
        .asleep_on_work = asleep,
        .asleep_thread = asleep_thread,
    };
    if (sleepy && !saturated && !late) {
        fprintf(stderr,
                "%s: level c%u: the generator limited this measurement: event-loop thread %u of "
                "%u slept %.0f%% of the level while completions it had handed the kernel waited "
                "for it, so the numbers describe %s's wake-ups as much as the target; "
                "--no-io-uring takes the plain sockets, which the kernel wakes directly\n",
                cfg->tool, res->clients, asleep_thread, nw, asleep * 100, cfg->tool);
        return 0;
    }
    if (saturated || late) {
        char why[256];
        if (saturated && worst_wait >= 0.005)
            snprintf(why, sizeof(why),
                     "event-loop thread %u of %u was runnable %.0f%% of the level (on a CPU "
                     "%.0f%%, waiting for one %.0f%%)",
                     worst, nw, worst_ratio * 100, worst_busy * 100, worst_wait * 100);
        else if (saturated)
            snprintf(why, sizeof(why), "event-loop thread %u of %u was busy %.0f%% of the level",
                     worst, nw, worst_busy * 100);
        else
            snprintf(why, sizeof(why), "event-loop ticks fired up to %.0f ms late (p99 %.0f ms)",
                     lag_max, lag_p99);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        char advice[200];
        if (saturated && worst_wait > worst_busy)
            snprintf(advice, sizeof(advice),
                     "other processes held the CPUs: give the generator CPUs of its own "
                     "(taskset), then spread the clients over more loops with --threads (now "
                     "%u, %ld CPUs online)",
                     nw, cpus);
        else
            snprintf(advice, sizeof(advice),
                     "spread the clients over more loops with --threads (now %u, %ld CPUs "
                     "online) or give the generator CPUs of its own",
                     nw, cpus);
        fprintf(stderr,
                "%s: level c%u: the generator limited this measurement: %s, so the numbers "
                "describe %s as much as the target; %s\n",
                cfg->tool, res->clients, why, cfg->tool, advice);
    }
    return 0;
}

void lg_selfwatch_free(struct lg_worker *w)
{
    free(w->lag_ms);
    w->lag_ms = NULL;
    w->n_lag = w->cap_lag = 0;
}

/* /proc/self/statm stays open from its first read on, and is read again from
 * its start each time: a generator that has run out of descriptors (EMFILE)
 * still samples its own memory. Opening it anew each second lost those
 * seconds' samples, so generator_rss_bytes no longer had one per second. */
static int statm_fd = -1;
static pthread_once_t statm_once = PTHREAD_ONCE_INIT;

/* closed at exit: a descriptor left open is what valgrind's --track-fds
 * (t_valgrind) reports, and a leak of ours to whoever reads it */
static void statm_close(void)
{
    if (statm_fd >= 0) close(statm_fd);
    statm_fd = -1;
}

static void statm_open(void)
{
    statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (statm_fd >= 0) atexit(statm_close);
}

uint64_t lg_selfwatch_rss_bytes(void)
{
    char text[256];
    pthread_once(&statm_once, statm_open);
    if (statm_fd < 0) return 0;
    ssize_t n = pread(statm_fd, text, sizeof(text) - 1, 0);
    if (n <= 0) return 0;
    text[n] = '\0';
    uint64_t pages;
    if (lg_procfs_parse_statm(text, (size_t)n, &pages) < 0) return 0;
    long page = sysconf(_SC_PAGESIZE);
    return pages * (uint64_t)(page > 0 ? page : 4096);
}
