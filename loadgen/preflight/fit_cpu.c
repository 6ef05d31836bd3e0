/* Preflight checks of the CPUs: how many the loops get, their frequency
 * policy, how late they wake, the clock that starts a sharded run, and
 * other processes on them. See fitchecks.h. */
#include "loadgen/engine.h"
#include "loadgen/preflight/fitchecks.h"
#include "loadgen/core/start.h"

#include <stdio.h>
#include <string.h>

void lg_fit_cpus(const struct lg_needs *n, const struct lg_machine *m, struct lg_check *c)
{
    char allowed[128];
    lg_machine_format_cpulist(&m->allowed, allowed, sizeof(allowed));
    c->name = "cpus";
    snprintf(c->found, sizeof(c->found),
             "%u logical CPUs, %u physical cores, SMT %s; this process may run on %u: %s",
             m->logical_cpus, m->physical_cores,
             m->smt < 0 ? "unknown"
             : m->smt   ? "on"
                        : "off",
             m->n_allowed, allowed);
    snprintf(c->needed, sizeof(c->needed), "%u event loop%s (--threads), a CPU each", n->threads,
             n->threads == 1 ? "" : "s");
    /* 2-way SMT: a pair of allowed siblings is one core */
    unsigned cores = m->n_allowed - m->allowed_siblings / 2;
    c->verdict = LG_FIT_OK;
    snprintf(c->todo, sizeof(c->todo), "nothing");
    if (m->n_allowed && n->threads > m->n_allowed) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "the loops take turns on %u CPUs and each waits for the others: use --threads %u "
                 "or fewer, or allow more CPUs (taskset)",
                 m->n_allowed, m->n_allowed);
    } else if (n->threads > 1 && m->allowed_siblings && n->threads > cores) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "loops may share a core (SMT siblings %d and %d run at about half speed each): "
                 "give each loop a core of its own (taskset -c with one CPU per core)",
                 m->sibling_a, m->sibling_b);
    }
    int used = snprintf(c->brief, sizeof(c->brief), "%u CPUs allowed; needs %u (a CPU per loop)",
                        m->n_allowed, n->threads);
    if (c->verdict != LG_FIT_OK && used > 0 && (size_t)used < sizeof(c->brief)) {
        if (m->n_allowed && n->threads > m->n_allowed)
            snprintf(c->brief + used, sizeof(c->brief) - (size_t)used,
                     "; fix: --threads %u, or allow more CPUs", m->n_allowed);
        else
            snprintf(c->brief + used, sizeof(c->brief) - (size_t)used,
                     "; fix: a core per loop (taskset -c)");
    }
}

void lg_fit_frequency(const struct lg_machine *m, struct lg_check *c)
{
    const char *boost = m->boost < 0 ? "unknown" : m->boost ? "on" : "off";
    c->name = "frequency";
    if (m->governor[0])
        snprintf(c->found, sizeof(c->found), "scaling governor %s%s, boost %s", m->governor,
                 m->governors_differ ? " (not on every allowed CPU)" : "", boost);
    else
        snprintf(c->found, sizeof(c->found),
                 "no cpufreq (a virtual machine, or a fixed frequency), boost %s", boost);
    snprintf(c->needed, sizeof(c->needed),
             "a steady clock speed, so the generator's CPU cost is the same from run to run");
    c->verdict = LG_FIT_OK;
    snprintf(c->todo, sizeof(c->todo), "nothing");
    if (m->governor[0])
        snprintf(c->brief, sizeof(c->brief), "governor %s, boost %s; needs a fixed speed",
                 m->governors_differ ? "differs by CPU" : m->governor, boost);
    else
        snprintf(c->brief, sizeof(c->brief), "no cpufreq, boost %s; needs a fixed speed", boost);
    if (m->governor[0] && (strcmp(m->governor, "performance") != 0 || m->governors_differ)) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "the speed follows the load, and generator_cpu_s with it: cpupower "
                 "frequency-set -g performance");
        snprintf(c->brief, sizeof(c->brief),
                 "governor %s; needs a fixed speed; fix: governor performance",
                 m->governors_differ ? "differs by CPU" : m->governor);
    } else if (m->boost == 1) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "boost makes the speed depend on temperature and on how many cores are busy: "
                 "echo 0 > /sys/devices/system/cpu/cpufreq/boost (intel_pstate: echo 1 > "
                 "/sys/devices/system/cpu/intel_pstate/no_turbo)");
        snprintf(c->brief, sizeof(c->brief), "boost on; needs a fixed speed; fix: turn boost off");
    }
}

/* Milliseconds for a short line: three decimals below 10, one below 1000. */
static const char *ms_text(double ms, char *buf, size_t len)
{
    snprintf(buf, len, ms < 10 ? "%.3f" : ms < 1000 ? "%.1f" : "%.0f", ms);
    return buf;
}

void lg_fit_timer(const struct lg_needs *n, const struct lg_timer_floor *tf, struct lg_check *c)
{
    double bound = (double)n->cfg->max_timer_floor_ns / 1e6;
    c->name = "timer";
    snprintf(c->needed, sizeof(c->needed), "a median at most %.3f ms (--max-timer-floor)", bound);
    char bound_s[32], p50_s[32], p99_s[32];
    ms_text(bound, bound_s, sizeof(bound_s));
    if (tf->wakes == 0) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->found, sizeof(c->found), "no timerfd: the burst could not run");
        snprintf(c->todo, sizeof(c->todo), "the open loop (--rate) needs timerfd");
        snprintf(c->brief, sizeof(c->brief),
                 "no timerfd; needs p50 <= %s ms; fix: a kernel with timerfd (--rate)", bound_s);
        return;
    }
    double p50 = (double)tf->p50_ns / 1e6, p99 = (double)tf->p99_ns / 1e6;
    snprintf(c->found, sizeof(c->found),
             "a sleeping loop wakes %.3f ms late at the median, %.3f ms at p99 (%u wakes in "
             "%.1f ms): the resolution of every latency of this run",
             p50, p99, tf->wakes, (double)tf->took_ns / 1e6);
    c->verdict = LG_FIT_OK;
    snprintf(c->todo, sizeof(c->todo), "nothing");
    if (tf->wakes < LG_TIMER_WAKES_TO_JUDGE) {
        /* a preemption ate the burst: its few figures say the CPU was taken
         * away, not how late this machine wakes */
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "the burst was cut short after %u wakes (fewer than %u to judge by): this CPU "
                 "was busy elsewhere; look for contention (strays) and check again",
                 tf->wakes, LG_TIMER_WAKES_TO_JUDGE);
    } else if (tf->p50_ns > n->cfg->max_timer_floor_ns) {
        c->verdict = LG_FIT_UNFIT;
        snprintf(c->todo, sizeof(c->todo),
                 "look for contention on these CPUs (strays), a hypervisor's steal time or deep "
                 "power-saving states; or accept a coarser floor with --max-timer-floor");
    } else if (tf->p99_ns > n->cfg->max_timer_floor_ns) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "one wake in a hundred comes later than %.3f ms: latencies' tails carry that "
                 "much of the generator; look for contention on these CPUs (strays)",
                 bound);
    }
    ms_text(p50, p50_s, sizeof(p50_s));
    ms_text(p99, p99_s, sizeof(p99_s));
    if (tf->wakes < LG_TIMER_WAKES_TO_JUDGE)
        snprintf(c->brief, sizeof(c->brief),
                 "burst cut short after %u wakes; needs %u wakes; fix: check again, quieter CPUs",
                 tf->wakes, LG_TIMER_WAKES_TO_JUDGE);
    else
        snprintf(c->brief, sizeof(c->brief), "wakes %s ms late (p99 %s ms); needs p50 <= %s ms%s",
                 p50_s, p99_s, bound_s,
                 c->verdict == LG_FIT_OK ? "" : "; fix: quieter CPUs (strays)");
}

void lg_fit_clock(const struct lg_needs *n, struct lg_check *c)
{
    const struct lg_config *cfg = n->cfg;
    struct lg_clock_state clk;
    lg_clock_state(&clk);
    c->name = "clock";
    if (clk.synchronized)
        snprintf(c->found, sizeof(c->found),
                 "synchronized (adjtimex), estimated error %ld us, at most %ld us",
                 clk.est_error_us, clk.max_error_us);
    else
        snprintf(c->found, sizeof(c->found),
                 "not synchronized (adjtimex: no NTP or PTP daemon disciplines it)");
    if (cfg->clock_ref)
        snprintf(c->needed, sizeof(c->needed),
                 "none of its own: --clock-ref %s measures it before the run", cfg->clock_ref);
    else if (cfg->start_at_ns)
        snprintf(c->needed, sizeof(c->needed),
                 "a synchronized clock: every shard starts its levels at --start-at by its own "
                 "clock");
    else
        snprintf(c->needed, sizeof(c->needed),
                 "a synchronized clock, so the shards' start times in --meta compare");
    c->verdict = LG_FIT_OK;
    snprintf(c->todo, sizeof(c->todo), "nothing");
    if (!clk.synchronized && !cfg->clock_ref) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "run chrony or ntpd (or ptp4l), or give every shard --clock-ref SERVER");
    }
    char state[64];
    if (clk.synchronized)
        snprintf(state, sizeof(state), "synchronized (error up to %.1f ms)",
                 (double)clk.max_error_us / 1e3);
    else
        snprintf(state, sizeof(state), "not synchronized");
    snprintf(c->brief, sizeof(c->brief), "%s; %s%s", state,
             cfg->clock_ref     ? "needs none (--clock-ref measures it)"
             : cfg->start_at_ns ? "needs sync for --start-at"
                                : "needs sync for the shards",
             c->verdict == LG_FIT_OK ? "" : "; fix: chrony, ntpd or --clock-ref");
}

void lg_fit_strays(const struct lg_needs *n, const struct lg_machine *m, const struct lg_strays *s,
                   struct lg_check *c)
{
    char allowed[128];
    lg_machine_format_cpulist(&m->allowed, allowed, sizeof(allowed));
    c->name = "strays";
    snprintf(c->needed, sizeof(c->needed),
             "the CPUs this process may use (%s) free for its %u loop%s", allowed, n->threads,
             n->threads == 1 ? "" : "s");
    if (s->busiest_cpu < 0) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->found, sizeof(c->found), "unknown (/proc/stat unreadable)");
        snprintf(c->todo, sizeof(c->todo), "check the machine's load by hand");
        snprintf(c->brief, sizeof(c->brief),
                 "/proc/stat unreadable; needs its CPUs free; fix: check the load by hand");
        return;
    }
    size_t used = (size_t)snprintf(c->found, sizeof(c->found),
                                   "CPU %d %.0f%% busy with other work over %.1f s (%u CPUs: "
                                   "%.2f CPUs' worth); ",
                                   s->busiest_cpu, s->busiest_share * 100, s->window_s, s->n_cpus,
                                   s->busy_cpus);
    if (s->n_top == 0 && used < sizeof(c->found))
        used +=
            (size_t)snprintf(c->found + used, sizeof(c->found) - used, "no process above 5%%; ");
    for (unsigned i = 0; i < s->n_top && used < sizeof(c->found); i++)
        used += (size_t)snprintf(c->found + used, sizeof(c->found) - used,
                                 "%s%s (pid %d) %.2f CPU%s", i ? ", " : "busiest: ", s->top[i].comm,
                                 s->top[i].pid, s->top[i].cpus, i + 1 == s->n_top ? "; " : "");
    if (used < sizeof(c->found))
        snprintf(c->found + used, sizeof(c->found) - used, "load average %.2f on %u CPUs",
                 m->loadavg1, m->logical_cpus);
    c->verdict = LG_FIT_OK;
    snprintf(c->todo, sizeof(c->todo), "nothing");
    if (s->busiest_share > 0.2 || (m->logical_cpus && m->loadavg1 > m->logical_cpus)) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "the loops will wait for these CPUs and the numbers describe the generator: "
                 "stop what runs there, or give the generator CPUs of its own (taskset -c, "
                 "cpusets) away from the target");
    }
    int head = s->n_top ? snprintf(c->brief, sizeof(c->brief), "CPU %d %.0f%% busy (%s)",
                                   s->busiest_cpu, s->busiest_share * 100, s->top[0].comm)
                        : snprintf(c->brief, sizeof(c->brief), "CPU %d %.0f%% busy, load %.2f",
                                   s->busiest_cpu, s->busiest_share * 100, m->loadavg1);
    if (head > 0 && (size_t)head < sizeof(c->brief))
        snprintf(c->brief + head, sizeof(c->brief) - (size_t)head, "; needs them free%s",
                 c->verdict == LG_FIT_OK ? "" : "; fix: CPUs of its own (taskset)");
}
