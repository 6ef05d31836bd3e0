/* The preflight: what the options need, the checks in order, their lines on
 * stderr, and the result kept for --meta (in the run context). See preflight.h. */
#include "loadgen/preflight/preflight.h"
#include "loadgen/core/clock.h"
#include "loadgen/engine.h"
#include "loadgen/preflight/fitchecks.h"
#include "loadgen/core/start.h"

#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* The strays' window: long enough for /proc/stat's 10 ms ticks to say
 * something, short enough to wait for. */
#define STRAYS_WINDOW_NS 500000000u

const char *lg_verdict_name(enum lg_verdict v)
{
    return v == LG_FIT_OK ? "ok" : v == LG_FIT_WARN ? "warn" : "unfit";
}

static bool is_loopback(const struct lg_target *tgt)
{
    if (tgt->addr.ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&tgt->addr;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (tgt->addr.ss_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)&tgt->addr)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(a)) return true;
        return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
    }
    return false;
}

/* The most new connections one event loop opens in a second: what the churn
 * probe measured on this machine (churnprobe.h), or when it could not run
 * the figure measured on the project's machine, said as such. */
static double loop_conns_per_s(struct lg_needs *n, const struct lg_churn_probe *churn)
{
    if (churn && churn->ok) {
        snprintf(n->rate_basis_text, sizeof(n->rate_basis_text),
                 "closed loop: each request ends within --timeout; a loop opens at most %.0f/s "
                 "(probed: %.1f us of CPU a loopback connection)",
                 churn->conns_per_s, churn->cpu_us);
        n->rate_basis = n->rate_basis_text;
        return churn->conns_per_s;
    }
    if (churn)
        snprintf(n->rate_basis_text, sizeof(n->rate_basis_text),
                 "closed loop: each request ends within --timeout; a loop opens at most %d/s "
                 "(churn probe failed: %.40s; the reference figure)",
                 LG_CHURN_FALLBACK_PER_S, churn->error);
    else /* a Unix socket: no ports to run out of, nothing probed */
        snprintf(n->rate_basis_text, sizeof(n->rate_basis_text),
                 "closed loop: each request ends within --timeout; a loop opens at most %d/s "
                 "(not probed; the reference figure)",
                 LG_CHURN_FALLBACK_PER_S);
    n->rate_basis = n->rate_basis_text;
    return LG_CHURN_FALLBACK_PER_S;
}

/* The new connections (or sockets) per second --conn-requests makes. Open
 * loop: this process's share of --rate over --conn-requests, exactly. Closed
 * loop: every request ends within --timeout (answered or timed out), so a
 * client opens one at least every ceil(conn-requests / slots) timeouts and a
 * retry delay; and none is faster than the probe's round trip, when there
 * was one, nor than its loops can open them (loop_conns_per_s each): on
 * loopback the round trip alone would allow millions a second, and 64
 * clients were warned of ports and conntrack entries no loop can use up. */
static void churn_rates(struct lg_needs *n, unsigned level_clients,
                        const struct lg_churn_probe *churn)
{
    const struct lg_config *cfg = n->cfg;
    if (!cfg->conn_requests) return;
    double rounds = ceil((double)cfg->conn_requests / (cfg->slots ? cfg->slots : 1));
    if (cfg->rate > 0) {
        double share = level_clients ? cfg->rate * n->clients / level_clients : 0;
        n->conn_rate_min = n->conn_rate_max = share / (double)cfg->conn_requests;
        n->rate_basis = "--rate over --conn-requests";
        return;
    }
    double slowest = rounds * (double)cfg->timeout_ns / 1e9 + (double)cfg->retry_delay_ns / 1e9;
    n->conn_rate_min = slowest > 0 ? n->clients / slowest : 0;
    n->conn_rate_max = (double)n->threads * loop_conns_per_s(n, churn);
    const struct lg_probe *p = n->probe;
    if (p && p->ok && p->seconds > 0) {
        /* a connection: its connect and at least one round trip per request */
        double fastest = (n->datagram ? rounds : 1 + rounds) * p->seconds;
        if (n->clients / fastest < n->conn_rate_max) {
            n->conn_rate_max = n->clients / fastest;
            n->rate_basis = "closed loop: each request within --timeout, none faster than the "
                            "probe";
        }
    }
    if (n->conn_rate_max < n->conn_rate_min) n->conn_rate_max = n->conn_rate_min;
}

static void needs_of(const struct lg_config *cfg, const struct lg_driver *drv,
                     const struct lg_target *tgt, const struct lg_probe *probe, struct lg_needs *n,
                     struct lg_fitness *f)
{
    memset(n, 0, sizeof(*n));
    n->cfg = cfg;
    n->probe = probe;
    n->full = probe != NULL; /* only --preflight probes */
    unsigned level_clients = 0;
    for (size_t i = 0; i < cfg->n_levels; i++) {
        unsigned mine = lg_shard_clients(cfg->levels[i], cfg->shard_index, cfg->shard_count);
        if (mine > n->clients) {
            n->clients = mine;
            level_clients = cfg->levels[i];
        }
    }
    n->threads = cfg->threads ? cfg->threads : 1;
    n->watches = (unsigned)cfg->n_watches;
    n->slots = cfg->slots;
    n->datagram = drv->datagram;
    n->unix_socket = tgt->addr.ss_family == AF_UNIX;
    n->loopback = is_loopback(tgt);
    n->churn_s = (double)cfg->n_levels * (double)cfg->duration_ns / 1e9;
    /* the probe costs a few milliseconds: only where its figure is used */
    if (cfg->conn_requests && !(cfg->rate > 0) && !n->unix_socket) {
        lg_churn_probe_run(&f->churn, n->datagram);
        f->churn_probed = true;
    }
    churn_rates(n, level_clients, f->churn_probed ? &f->churn : NULL);
}

static struct lg_check *next_check(struct lg_fitness *f)
{
    struct lg_check *c = &f->checks[f->n_checks++];
    memset(c, 0, sizeof(*c));
    return c;
}

/* The cheap checks, every run: a few files and the timer burst. */
static void cheap_checks(struct lg_fitness *f, const struct lg_needs *n)
{
    const struct lg_config *cfg = n->cfg;
    const struct lg_machine *m = &f->machine;
    lg_fit_descriptors(n, m, next_check(f));
    lg_fit_ports(n, m, next_check(f));
    lg_fit_conntrack(n, m, next_check(f));
    lg_fit_memory(n, m, next_check(f));
    lg_fit_cpus(n, m, next_check(f));
    lg_fit_frequency(m, next_check(f));
    lg_fit_timer(n, &f->timer, next_check(f));
    if (cfg->start_at_ns || cfg->shard_count > 1) lg_fit_clock(n, next_check(f));
    if (n->datagram) lg_fit_receive_buffer(n, m, next_check(f));
}

static void probe_check(const struct lg_probe *p, struct lg_check *c)
{
    c->name = "probe";
    snprintf(c->found, sizeof(c->found), "%s", p->what);
    snprintf(c->needed, sizeof(c->needed), "a target that answers (--preflight's one probe)");
    c->verdict = !p->ran || p->ok ? LG_FIT_OK : LG_FIT_WARN;
    snprintf(c->todo, sizeof(c->todo), "%s",
             c->verdict == LG_FIT_OK
                 ? "nothing"
                 : "check the address, the port and that the server runs: the run's requests "
                   "would fail the same way");
    if (!p->ran)
        snprintf(c->brief, sizeof(c->brief), "nothing to send; needs an answer");
    else if (p->ok)
        snprintf(c->brief, sizeof(c->brief), "%s in %.3f ms; needs an answer",
                 p->datagram ? "answered" : "connected", p->seconds * 1e3);
    else
        snprintf(c->brief, sizeof(c->brief), "%.40s; needs an answer; fix: check the target",
                 p->error);
}

static void tally(struct lg_fitness *f)
{
    f->n_unfit = f->n_warn = 0;
    for (size_t i = 0; i < f->n_checks; i++) {
        f->n_unfit += f->checks[i].verdict == LG_FIT_UNFIT;
        f->n_warn += f->checks[i].verdict == LG_FIT_WARN;
    }
}

/* Reads the machine and runs the cheap checks into `result`; n: what the
 * options need. */
static void check_machine(struct lg_fitness *result, const struct lg_config *cfg,
                          const struct lg_driver *drv, const struct lg_target *tgt,
                          const struct lg_probe *probe, struct lg_needs *n)
{
    memset(result, 0, sizeof(*result));
    uint64_t start = lg_now_ns();
    lg_machine_read(&result->machine);
    lg_timer_floor_measure(&result->timer);
    needs_of(cfg, drv, tgt, probe, n, result);
    cheap_checks(result, n);
    result->took_s = (double)(lg_now_ns() - start) / 1e9;
}

static int interrupted(const struct lg_config *cfg, int stop_fd)
{
    if (stop_fd >= 0) close(stop_fd);
    fprintf(stderr, "%s: preflight: interrupted\n", cfg->tool);
    return LG_EXIT_INTERRUPTED;
}

int lg_preflight_main(const struct lg_config *cfg, const struct lg_driver *drv,
                      const struct lg_target *tgt)
{
    /* main() blocked SIGINT and SIGTERM, and no control thread takes them
     * here: the probe's and the strays' waits also wait on this descriptor,
     * so that a signal ends the preflight at once, as interrupted (-1 if it
     * cannot be made: the pending signal is still seen after the checks) */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    int stop_fd = signalfd(-1, &stop, SFD_CLOEXEC);
    struct lg_probe probe;
    uint64_t probe_timeout = cfg->timeout_ns < 2 * LG_NS_PER_S ? cfg->timeout_ns : 2 * LG_NS_PER_S;
    lg_probe_target(tgt, drv->datagram, cfg->probe_datagram, cfg->probe_datagram_len, probe_timeout,
                    stop_fd, &probe);
    if (probe.stopped) return interrupted(cfg, stop_fd);
    struct lg_needs n;
    struct lg_fitness result;
    check_machine(&result, cfg, drv, tgt, &probe, &n);
    result.full = true;
    struct lg_strays strays;
    int measured = lg_strays_measure(&result.machine.allowed, STRAYS_WINDOW_NS, stop_fd, &strays);
    if (measured == 1) return interrupted(cfg, stop_fd);
    if (measured < 0) strays.busiest_cpu = -1;
    lg_fit_strays(&n, &result.machine, &strays, next_check(&result));
    probe_check(&probe, next_check(&result));
    tally(&result);
    for (size_t i = 0; i < result.n_checks; i++)
        lg_check_print(cfg->tool, &result.checks[i], cfg->verbose);
    sigset_t pending;
    if (sigpending(&pending) == 0 &&
        (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1))
        return interrupted(cfg, stop_fd);
    if (stop_fd >= 0) close(stop_fd);
    fprintf(stderr,
            "%s: preflight: %s (%u unfit, %u warn); the checks every run makes took %.1f ms\n",
            cfg->tool, result.n_unfit ? "unfit" : "fit", result.n_unfit, result.n_warn,
            result.took_s * 1e3);
    return result.n_unfit ? LG_EXIT_UNFIT : LG_EXIT_OK;
}

int lg_preflight_before_run(struct lg_fitness *result, const struct lg_config *cfg,
                            const struct lg_driver *drv, const struct lg_target *tgt)
{
    struct lg_needs n;
    check_machine(result, cfg, drv, tgt, NULL, &n);
    tally(result);
    /* an unfit check, and an unsynchronized clock when --start-at or the
     * shards start levels by it (its check runs only then): the run goes
     * on, but the user should know before it does */
    for (size_t i = 0; i < result->n_checks; i++) {
        const struct lg_check *c = &result->checks[i];
        if (c->verdict == LG_FIT_UNFIT || (c->verdict == LG_FIT_WARN && !strcmp(c->name, "clock")))
            lg_check_print(cfg->tool, c, cfg->verbose);
    }
    if (result->n_unfit && cfg->require_fit) {
        fprintf(stderr,
                "%s: --require-fit: this machine is unfit for these options; nothing sent\n",
                cfg->tool);
        return -1;
    }
    return 0;
}
