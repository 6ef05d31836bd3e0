/* Preflight checks of the process's limits: descriptors and memory. See
 * fitchecks.h. */
#include "loadgen/engine.h"
#include "loadgen/preflight/fitchecks.h"
#include "loadgen/output/bytesize.h"

#include <stdio.h>

static void limit_text(uint64_t v, char *buf, size_t len)
{
    if (v == UINT64_MAX)
        snprintf(buf, len, "unlimited");
    else
        snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* One descriptor per client (a reconnect closes the old one first), four
 * per event loop (epoll, its wake-up eventfd, the open loop's timerfd, one
 * spare), one per --watch tree being read, and 16 for stdio, the control
 * thread's signalfd and eventfd, --output, --meta, --log and /proc reads. */
uint64_t lg_descriptors_needed(unsigned clients, unsigned threads, unsigned watches)
{
    return (uint64_t)clients + 4ull * threads + watches + 16;
}

void lg_fit_descriptors(const struct lg_needs *n, const struct lg_machine *m, struct lg_check *c)
{
    uint64_t need = lg_descriptors_needed(n->clients, n->threads, n->watches);
    char soft[32], hard[32];
    limit_text(m->fd_soft, soft, sizeof(soft));
    limit_text(m->fd_hard, hard, sizeof(hard));
    c->name = "descriptors";
    snprintf(c->found, sizeof(c->found), "RLIMIT_NOFILE soft %s, hard %s", soft, hard);
    snprintf(c->needed, sizeof(c->needed),
             "%llu: one per client (%u), 4 per event loop (%u), one per --watch (%u), 16 more",
             (unsigned long long)need, n->clients, n->threads, n->watches);
    if (m->fd_hard < need) {
        c->verdict = LG_FIT_UNFIT;
        /* the figure is the one needed: the fix names what to raise to it,
         * the shell's limit or a systemd unit's, within a terminal's line */
        snprintf(c->brief, sizeof(c->brief),
                 "hard limit %s; needs %llu; fix: ulimit -Hn (LimitNOFILE), or --shard", hard,
                 (unsigned long long)need);
        snprintf(c->todo, sizeof(c->todo),
                 "raise the hard limit to %llu or more (as root: ulimit -n %llu; LimitNOFILE= "
                 "in a systemd unit; nofile in /etc/security/limits.conf), or use fewer clients "
                 "per generator (--shard)",
                 (unsigned long long)need, (unsigned long long)need);
    } else if (m->fd_soft < need) {
        c->verdict = LG_FIT_OK;
        snprintf(c->brief, sizeof(c->brief), "soft limit %s, hard %s (raised at start); needs %llu",
                 soft, hard, (unsigned long long)need);
        snprintf(c->todo, sizeof(c->todo),
                 "nothing: the soft limit is raised to the hard one at start");
    } else {
        c->verdict = LG_FIT_OK;
        snprintf(c->brief, sizeof(c->brief), "limit %s; needs %llu", soft,
                 (unsigned long long)need);
        snprintf(c->todo, sizeof(c->todo), "nothing");
    }
}

/* Clients times what one costs in the generator's memory (bench/memory's
 * figure for the protocol; the kernel's socket buffers come on top and are
 * not counted), against what this process can still take. More than half
 * is a warning: samples, the document and the rest of the host need room. */
void lg_fit_memory(const struct lg_needs *n, const struct lg_machine *m, struct lg_check *c)
{
    const struct lg_config *cfg = n->cfg;
    double need = (double)n->clients * cfg->client_memory_bytes;
    uint64_t left = lg_machine_memory_left(m);
    char need_s[32], left_s[32], total_s[32], per_s[32];
    lg_format_bytes(need, need_s, sizeof(need_s));
    lg_format_bytes((double)left, left_s, sizeof(left_s));
    lg_format_bytes((double)m->mem_total, total_s, sizeof(total_s));
    /* per client as bench/memory gives it: KiB with its two or one decimals */
    double per_kib = cfg->client_memory_bytes / 1024;
    snprintf(per_s, sizeof(per_s), per_kib < 10 ? "%.2f KiB" : "%.1f KiB", per_kib);
    c->name = "memory";
    if (m->cgroup_limit) {
        char lim_s[32], use_s[32];
        lg_format_bytes((double)m->cgroup_limit, lim_s, sizeof(lim_s));
        lg_format_bytes((double)m->cgroup_usage, use_s, sizeof(use_s));
        snprintf(c->found, sizeof(c->found),
                 "%s available (of %s; memory cgroup limit %s, %s in use)", left_s, total_s, lim_s,
                 use_s);
    } else {
        snprintf(c->found, sizeof(c->found), "%s available (of %s)", left_s, total_s);
    }
    snprintf(c->needed, sizeof(c->needed), "%s: %u clients x %s (%s)", need_s, n->clients, per_s,
             cfg->client_memory_source ? cfg->client_memory_source : "no figure for this protocol");
    const char *where = m->cgroup_limit ? " in its cgroup" : "";
    if (m->mem_total == 0) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->found, sizeof(c->found), "unknown (/proc/meminfo unreadable)");
        snprintf(c->todo, sizeof(c->todo), "check the memory by hand");
        snprintf(c->brief, sizeof(c->brief),
                 "/proc/meminfo unreadable; needs %s; fix: check it by hand", need_s);
    } else if (need > (double)left) {
        c->verdict = LG_FIT_UNFIT;
        snprintf(c->todo, sizeof(c->todo),
                 "use fewer clients per generator (--shard across machines), or free memory");
        snprintf(c->brief, sizeof(c->brief),
                 "%s available%s; needs %s; fix: fewer clients (--shard)", left_s, where, need_s);
    } else if (need > (double)left / 2) {
        c->verdict = LG_FIT_WARN;
        snprintf(c->todo, sizeof(c->todo),
                 "little room is left for samples and the kernel's socket buffers: use fewer "
                 "clients per generator (--shard)");
        snprintf(c->brief, sizeof(c->brief),
                 "%s available%s; needs %s; fix: fewer clients (--shard)", left_s, where, need_s);
    } else {
        c->verdict = LG_FIT_OK;
        snprintf(c->todo, sizeof(c->todo), "nothing");
        snprintf(c->brief, sizeof(c->brief), "%s available%s; needs %s", left_s, where, need_s);
    }
}
