/* The control thread. See control.h. It sleeps in ppoll on a signalfd (the
 * signals) and an eventfd (a level began or ended, the run failed, or it is
 * over), with the next whole second of the level as its timeout. */
#include "loadgen/watching/control.h"
#include "loadgen/core/internal.h"
#include "loadgen/watching/firstsec.h"
#include "loadgen/watching/sampler.h"
#include "loadgen/watching/wakewatch.h"
#include "loadgen/core/runctx.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/signalfd.h>
#include <unistd.h>

void lg_control_init(struct lg_control *ctl)
{
    memset(ctl, 0, sizeof(*ctl));
    ctl->sigfd = -1;
    atomic_init(&ctl->wakefd, -1);
    pthread_mutex_init(&ctl->mu, NULL);
}

void lg_control_destroy(struct lg_control *ctl)
{
    pthread_mutex_destroy(&ctl->mu);
}

static void wake(struct lg_control *ctl)
{
    uint64_t one = 1;
    int fd = atomic_load(&ctl->wakefd);
    if (fd < 0) return; /* no control thread: nothing runs that must stop */
    ssize_t rc = write(fd, &one, sizeof(one));
    (void)rc; /* an eventfd counter cannot overflow here */
}

void lg_control_wake(struct lg_run_ctx *run)
{
    wake(&run->control);
}

bool lg_control_failed_fast(struct lg_run_ctx *run)
{
    return atomic_load(&run->control.failed_fast);
}

static void stop_workers(struct lg_control *ctl)
{
    pthread_mutex_lock(&ctl->mu);
    for (unsigned i = 0; ctl->level_active && i < ctl->n; i++)
        ev_async_send(ctl->ws[i].loop, &ctl->ws[i].wakeup);
    pthread_mutex_unlock(&ctl->mu);
}

static void on_signal(struct lg_control *ctl, int sig)
{
    atomic_store(&ctl->interrupted_by, sig);
    stop_workers(ctl);
}

/* Takes no lock and allocates nothing, so any thread may call it whatever it
 * holds (the sampling code calls it with the control mutex held): the first
 * reason is kept, and the control thread, woken, stops the workers. */
void lg_control_fail(struct lg_run_ctx *run, const char *why)
{
    struct lg_control *ctl = &run->control;
    int expected = 0;
    if (atomic_compare_exchange_strong(&ctl->failed, &expected, 1)) {
        size_t n = 0;
        for (; why[n] && n < sizeof(ctl->failure) - 1; n++)
            ctl->failure[n] = why[n];
        ctl->failure[n] = 0;
        atomic_store(&ctl->failed, 2); /* the message is complete */
    }
    wake(ctl);
}

const char *lg_control_failure(struct lg_run_ctx *run)
{
    return atomic_load(&run->control.failed) == 2 ? run->control.failure : NULL;
}

static void *control_main(void *arg)
{
    struct lg_run_ctx *run = arg;
    struct lg_control *ctl = &run->control;
    /* Sampling (--watch's trees, the generator's own CPU and memory) yields
     * the CPU to the request loops whenever both want it. Not SCHED_IDLE: this
     * thread also takes the signals, which must stop a run within a second
     * however busy the loops keep the CPUs. */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
    for (;;) {
        pthread_mutex_lock(&ctl->mu);
        if (ctl->quit) {
            pthread_mutex_unlock(&ctl->mu);
            return NULL;
        }
        uint64_t now = lg_now_ns();
        if (ctl->level_active && now >= ctl->next_tick_ns) {
            lg_sampler_tick(run);
            do
                ctl->next_tick_ns += LG_NS_PER_S;
            while (ctl->next_tick_ns <= now);
        }
        /* --fail-fast: the workers stop, as for a signal, once the lock is let go */
        bool fail_fast = ctl->level_active && lg_firstsec_check(run);
        if (fail_fast) atomic_store(&ctl->failed_fast, true);
        if (ctl->level_active && ctl->wake_watch && now >= ctl->next_wake_look_ns) {
            lg_wakewatch_sample(ctl->ws, ctl->n, now);
            do
                ctl->next_wake_look_ns += LG_WAKEWATCH_PERIOD_NS;
            while (ctl->next_wake_look_ns <= now);
        }
        struct timespec ts, *timeout = NULL;
        if (ctl->level_active) {
            uint64_t next = ctl->next_tick_ns;
            if (ctl->wake_watch && ctl->next_wake_look_ns < next) next = ctl->next_wake_look_ns;
            uint64_t wait = next > now ? next - now : 0;
            ts.tv_sec = (time_t)(wait / LG_NS_PER_S);
            ts.tv_nsec = (long)(wait % LG_NS_PER_S);
            timeout = &ts;
        }
        pthread_mutex_unlock(&ctl->mu);
        if (fail_fast) stop_workers(ctl);

        struct pollfd fds[2] = {{.fd = ctl->sigfd, .events = POLLIN},
                                {.fd = ctl->wakefd, .events = POLLIN}};
        if (ppoll(fds, 2, timeout, NULL) < 0 && errno != EINTR) continue;
        if (fds[0].revents & POLLIN) {
            struct signalfd_siginfo si;
            if (read(ctl->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
                on_signal(ctl, (int)si.ssi_signo);
        }
        if (fds[1].revents & POLLIN) {
            uint64_t v;
            ssize_t rc = read(ctl->wakefd, &v, sizeof(v));
            (void)rc; /* only clears the counter */
        }
        if (atomic_load(&ctl->failed) && !ctl->failure_handled) {
            ctl->failure_handled = true;
            stop_workers(ctl);
        }
    }
}

static void run_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
}

void lg_signals_block(void)
{
    sigset_t set;
    run_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int lg_control_start(struct lg_run_ctx *run, const struct lg_config *cfg)
{
    (void)cfg;
    struct lg_control *ctl = &run->control;
    sigset_t set;
    run_signals(&set);
    /* main() blocked them before any thread existed (lg_signals_block), so
     * every thread (the --log writer, the workers) inherits the mask; for a
     * caller that did not (a unit test), this covers the threads started from
     * here on (the workers), not a --log writer already running */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    atomic_store(&ctl->interrupted_by, 0);
    ctl->quit = false;
    ctl->failure_handled = false;
    atomic_store(&ctl->failed_fast, false);
    ctl->sigfd = signalfd(-1, &set, SFD_CLOEXEC);
    int wakefd = eventfd(0, EFD_CLOEXEC);
    atomic_store(&ctl->wakefd, wakefd);
    if (ctl->sigfd < 0 || wakefd < 0) goto fail;
    int err = pthread_create(&ctl->thread, NULL, control_main, run);
    if (err) {
        errno = err;
        goto fail;
    }
    ctl->running = true;
    return 0;
fail:
    if (ctl->sigfd >= 0) close(ctl->sigfd);
    int fd = atomic_exchange(&ctl->wakefd, -1);
    if (fd >= 0) close(fd);
    ctl->sigfd = -1;
    return -1;
}

void lg_control_stop(struct lg_run_ctx *run)
{
    struct lg_control *ctl = &run->control;
    if (!ctl->running) return;
    pthread_mutex_lock(&ctl->mu);
    ctl->quit = true;
    pthread_mutex_unlock(&ctl->mu);
    wake(ctl);
    pthread_join(ctl->thread, NULL);
    ctl->running = false;
    close(ctl->sigfd);
    close(atomic_exchange(&ctl->wakefd, -1));
    ctl->sigfd = -1;
}

int lg_control_interrupted(struct lg_run_ctx *run)
{
    return atomic_load(&run->control.interrupted_by);
}

void lg_control_level_begin(struct lg_run_ctx *run, struct lg_worker *ws, unsigned n,
                            unsigned clients, uint64_t start_ns)
{
    struct lg_control *ctl = &run->control;
    pthread_mutex_lock(&ctl->mu);
    lg_sampler_begin(run, ws, n, clients, ws[0].cfg, start_ns);
    ctl->ws = ws;
    ctl->n = n;
    ctl->next_tick_ns = start_ns + LG_NS_PER_S;
    ctl->wake_watch = lg_wakewatch_begin(ws, n);
    ctl->next_wake_look_ns = start_ns + LG_WAKEWATCH_PERIOD_NS;
    ctl->first_sec_checked = false;
    ctl->level_active = true;
    pthread_mutex_unlock(&ctl->mu);
    wake(ctl);
    /* a signal that came before the workers were known still stops them */
    if (lg_control_interrupted(run) || atomic_load(&ctl->failed))
        for (unsigned i = 0; i < n; i++)
            ev_async_send(ws[i].loop, &ws[i].wakeup);
}

int lg_control_level_end(struct lg_run_ctx *run, struct lg_level_result *res)
{
    struct lg_control *ctl = &run->control;
    pthread_mutex_lock(&ctl->mu);
    /* a level shorter than a second is judged on the whole of it */
    if (res && ctl->level_active && lg_firstsec_check(run)) atomic_store(&ctl->failed_fast, true);
    ctl->level_active = false;
    int rc = res ? lg_sampler_collect(run, res) : 0;
    lg_sampler_end(run);
    pthread_mutex_unlock(&ctl->mu);
    wake(ctl);
    return rc;
}
