/* The control thread. See control.h. It sleeps in ppoll on a signalfd (the
 * signals) and an eventfd (a level began or ended, or the run is over), with
 * the next whole second of the level as its timeout. */
#include "loadgen/control.h"
#include "loadgen/internal.h"
#include "loadgen/progress.h"

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

static struct {
    pthread_t thread;
    bool running;
    int sigfd, wakefd;
    pthread_mutex_t mu; /* guards what follows and every progress/watch call */
    bool level_active, quit;
    uint64_t next_tick_ns;
    struct lg_worker *ws;
    unsigned n;
} C = {.sigfd = -1, .wakefd = -1, .mu = PTHREAD_MUTEX_INITIALIZER};

static _Atomic int interrupted_by;
static _Atomic int failed;
static char failure[256];

static void wake(void)
{
    uint64_t one = 1;
    ssize_t rc = write(C.wakefd, &one, sizeof(one));
    (void)rc; /* an eventfd counter cannot overflow here */
}

static void stop_workers(void)
{
    pthread_mutex_lock(&C.mu);
    for (unsigned i = 0; C.level_active && i < C.n; i++)
        ev_async_send(C.ws[i].loop, &C.ws[i].wakeup);
    pthread_mutex_unlock(&C.mu);
}

static void on_signal(int sig)
{
    atomic_store(&interrupted_by, sig);
    stop_workers();
}

void lg_control_fail(const char *why)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&failed, &expected, 1)) {
        snprintf(failure, sizeof(failure), "%s", why);
        atomic_store(&failed, 2); /* the message is complete */
    }
    stop_workers();
}

const char *lg_control_failure(void)
{
    return atomic_load(&failed) == 2 ? failure : NULL;
}

static void *control_main(void *arg)
{
    /* Sampling (--watch's trees, the generator's own CPU and memory) yields
     * the CPU to the request loops whenever both want it. Not SCHED_IDLE: this
     * thread also takes the signals, which must stop a run within a second
     * however busy the loops keep the CPUs. */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
    for (;;) {
        pthread_mutex_lock(&C.mu);
        if (C.quit) {
            pthread_mutex_unlock(&C.mu);
            return NULL;
        }
        uint64_t now = lg_now_ns();
        if (C.level_active && now >= C.next_tick_ns) {
            lg_progress_tick();
            do
                C.next_tick_ns += LG_NS_PER_S;
            while (C.next_tick_ns <= now);
        }
        struct timespec ts, *timeout = NULL;
        if (C.level_active) {
            uint64_t wait = C.next_tick_ns - now;
            ts.tv_sec = (time_t)(wait / LG_NS_PER_S);
            ts.tv_nsec = (long)(wait % LG_NS_PER_S);
            timeout = &ts;
        }
        pthread_mutex_unlock(&C.mu);

        struct pollfd fds[2] = {{.fd = C.sigfd, .events = POLLIN},
                                {.fd = C.wakefd, .events = POLLIN}};
        if (ppoll(fds, 2, timeout, NULL) < 0 && errno != EINTR) continue;
        if (fds[0].revents & POLLIN) {
            struct signalfd_siginfo si;
            if (read(C.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) on_signal((int)si.ssi_signo);
        }
        if (fds[1].revents & POLLIN) {
            uint64_t v;
            ssize_t rc = read(C.wakefd, &v, sizeof(v));
            (void)rc; /* only clears the counter */
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

int lg_control_start(const struct lg_config *cfg)
{
    (void)cfg;
    sigset_t set;
    run_signals(&set);
    /* main() blocked them before any thread existed (lg_signals_block), so
     * every thread (the --log writer, the workers) inherits the mask; this
     * only covers a caller that did not */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    atomic_store(&interrupted_by, 0);
    C.quit = false;
    C.sigfd = signalfd(-1, &set, SFD_CLOEXEC);
    C.wakefd = eventfd(0, EFD_CLOEXEC);
    if (C.sigfd < 0 || C.wakefd < 0) goto fail;
    int err = pthread_create(&C.thread, NULL, control_main, NULL);
    if (err) {
        errno = err;
        goto fail;
    }
    C.running = true;
    return 0;
fail:
    if (C.sigfd >= 0) close(C.sigfd);
    if (C.wakefd >= 0) close(C.wakefd);
    C.sigfd = C.wakefd = -1;
    return -1;
}

void lg_control_stop(void)
{
    if (!C.running) return;
    pthread_mutex_lock(&C.mu);
    C.quit = true;
    pthread_mutex_unlock(&C.mu);
    wake();
    pthread_join(C.thread, NULL);
    C.running = false;
    close(C.sigfd);
    close(C.wakefd);
    C.sigfd = C.wakefd = -1;
}

int lg_control_interrupted(void)
{
    return atomic_load(&interrupted_by);
}

void lg_control_level_begin(struct lg_worker *ws, unsigned n, unsigned clients, uint64_t start_ns)
{
    pthread_mutex_lock(&C.mu);
    lg_progress_begin(ws, n, clients, ws[0].cfg, start_ns);
    C.ws = ws;
    C.n = n;
    C.next_tick_ns = start_ns + LG_NS_PER_S;
    C.level_active = true;
    pthread_mutex_unlock(&C.mu);
    wake();
    /* a signal that came before the workers were known still stops them */
    if (lg_control_interrupted() || atomic_load(&failed))
        for (unsigned i = 0; i < n; i++)
            ev_async_send(ws[i].loop, &ws[i].wakeup);
}

int lg_control_level_end(struct lg_level_result *res)
{
    pthread_mutex_lock(&C.mu);
    C.level_active = false;
    int rc = res ? lg_progress_collect(res) : 0;
    lg_progress_end();
    pthread_mutex_unlock(&C.mu);
    wake();
    return rc;
}
