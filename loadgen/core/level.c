/* One level of a run. See level.h. */
#include "loadgen/core/level.h"
#include "loadgen/watching/control.h"
#include "loadgen/core/internal.h"
#include "loadgen/output/results.h"
#include "loadgen/watching/selfwatch.h"
#include "loadgen/core/start.h"
#include "stats/read/metrickind.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long before the open loop's first moment its workers are started: a
 * worker took about 0.1 ms to begin waiting on its timer (a trace of the
 * loop at 20,000/s under chrt, on a loaded 2-core machine); the rest is room
 * for a thread that starts late. */
#define OPEN_LOOP_LEAD_NS (2 * LG_NS_PER_MS)

static void *worker_thread(void *arg)
{
    lg_worker_run_level(arg);
    return NULL;
}

struct cohort {
    struct lg_client *clients;
    struct lg_req *slots;
    uint32_t *free_slots;
    uint8_t *states;
    size_t state_size;
};

static int cohort_alloc(struct cohort *co, unsigned n, unsigned slots, size_t state_size)
{
    memset(co, 0, sizeof(*co));
    if (n == 0) n = 1; /* a shard may have no client at a level: nothing to hold */
    co->state_size = (state_size + 15) & ~(size_t)15;
    co->clients = calloc(n, sizeof(*co->clients));
    co->slots = calloc((size_t)n * slots, sizeof(*co->slots));
    co->free_slots = calloc((size_t)n * slots, sizeof(*co->free_slots));
    co->states = co->state_size ? calloc(n, co->state_size) : NULL;
    return co->clients && co->slots && co->free_slots && (co->states || !co->state_size) ? 0 : -1;
}

static void cohort_free(struct cohort *co)
{
    free(co->clients);
    free(co->slots);
    free(co->free_slots);
    free(co->states);
}

static uint64_t *series_take(struct lg_series *s, size_t *n)
{
    uint64_t *v = s->v;
    *n = s->n;
    s->v = NULL;
    s->n = s->cap = 0;
    return v;
}

/* Merges one series of every worker (parts) into the level's metric `name`
 * (milliseconds). */
static int merge_series(struct lg_levels *lv, struct lg_series **parts, struct lg_level_result *res,
                        const char *name)
{
    struct lg_series merged;
    lg_series_init(&merged, lv->cfg->max_samples);
    for (unsigned i = 0; i < lv->nw; i++)
        if (parts[i]->lost) return -1; /* out of memory: a sample could not be kept */
    if (lg_series_merge(&merged, parts, lv->nw, &lv->rng) < 0) {
        lg_series_free(&merged);
        return -1;
    }
    if (lg_series_sampled(&merged)) lv->sampled = true;
    size_t n;
    uint64_t seen = merged.seen;
    uint64_t *v = series_take(&merged, &n);
    return lg_result_add_series(res, name, v, n, seen);
}

/* The latencies of the driver's request groups: <group>.latency_cold_ms and
 * <group>.latency_warm_ms. */
static int collect_groups(struct lg_levels *lv, struct lg_series **parts,
                          struct lg_level_result *res)
{
    const struct lg_driver *drv = lv->drv;
    static const char *const kinds[2] = {"latency_cold_ms", "latency_warm_ms"};
    for (unsigned g = 0; g < drv->n_groups; g++) {
        for (unsigned k = 0; k < 2; k++) {
            for (unsigned i = 0; i < lv->nw; i++)
                parts[i] = &lv->ws[i].store.groups[2 * g + k];
            size_t len = strlen(drv->group_names[g]) + strlen(kinds[k]) + 2;
            char *name = malloc(len);
            if (!name) return -1;
            snprintf(name, len, "%s.%s", drv->group_names[g], kinds[k]);
            int rc = merge_series(lv, parts, res, name);
            free(name);
            if (rc < 0) return -1;
        }
    }
    return 0;
}

/* The sample series of every worker (latencies, phases, send lag, and the
 * driver's request groups), merged. */
static int collect_series(struct lg_levels *lv, struct lg_level_result *res)
{
    static const char *const series_names[LG_S__COUNT] = {
        "latency_cold_ms",  "latency_warm_ms", "connect_ms",  "proxy_connect_ms",
        "tls_handshake_ms", "ttfb_ms",         "send_lag_ms", "quic_handshake_ms",
    };
    struct lg_series **parts = calloc(lv->nw, sizeof(*parts));
    if (!parts) return -1;
    int rc = 0;
    for (int s = 0; s < LG_S__COUNT && rc == 0; s++) {
        for (unsigned i = 0; i < lv->nw; i++)
            parts[i] = &lv->ws[i].store.series[s];
        rc = merge_series(lv, parts, res, series_names[s]);
    }
    if (rc == 0) rc = collect_groups(lv, parts, res);
    free(parts);
    return rc;
}

/* requests_per_second and errors_per_second: the whole seconds the level ran
 * (ran_ns: to its deadline, or to the interrupt that stopped it). The seconds
 * after an interrupt are not the level's, and the part of a second before it
 * would read as a drop in the rate: neither is a sample. A level that ran less
 * than a second gets one sample, its count over the time it ran; one that
 * never ran (stopped before its start), none. */
static int collect_timeline(struct lg_levels *lv, struct lg_level_result *res, const char *name,
                            bool errors, uint64_t ran_ns)
{
    const struct lg_worker *ws = lv->ws;
    uint64_t whole = ran_ns / LG_NS_PER_S;
    size_t n = whole ? (size_t)whole : ran_ns > 0;
    double *per_second = calloc(n ? n : 1, sizeof(*per_second));
    if (!per_second) return -1;
    /* a loop that -n ended early kept no room for the seconds after it */
    for (size_t k = 0; k < n; k++)
        for (unsigned i = 0; i < lv->nw; i++)
            if (k < ws[i].store.timeline_len)
                per_second[k] +=
                    (double)(errors ? ws[i].store.error_timeline[k] : ws[i].store.timeline[k]);
    if (whole == 0 && n == 1) per_second[0] = per_second[0] / ((double)ran_ns / 1e9);
    return lg_result_add(res, name, "requests_per_second", per_second, n, n);
}

/* ran_s, how long the level ran, then its per-second series over that time. */
static int collect_rate(struct lg_levels *lv, struct lg_level_result *res, uint64_t ran_ns)
{
    double *ran = malloc(sizeof(*ran));
    if (!ran) return -1;
    *ran = (double)ran_ns / 1e9;
    if (lg_result_add(res, "ran_s", stats_metric_unit_name("ran_s"), ran, 1, 1) < 0) return -1;
    if (collect_timeline(lv, res, "requests_per_second", false, ran_ns) < 0) return -1;
    return collect_timeline(lv, res, "errors_per_second", true, ran_ns);
}

/* The error count of each class beyond the engine's first (errors.<class>). */
static int collect_error_classes(struct lg_levels *lv, struct lg_level_result *res)
{
    for (unsigned cls = 1; cls < lv->n_classes; cls++) {
        uint64_t e = 0;
        for (unsigned i = 0; i < lv->nw; i++)
            e += lv->ws[i].store.errors[cls];
        char name[96];
        snprintf(name, sizeof(name), "errors.%s", lg_error_name(lv->drv, cls));
        if (e && lg_result_add_count(res, name, e) < 0) return -1;
    }
    return 0;
}

/* The engine's counters (into totals too) and the driver's. */
static int collect_counters(struct lg_levels *lv, struct lg_level_result *res,
                            uint64_t totals[LG_C__COUNT])
{
    const struct lg_worker *ws = lv->ws;
    const struct lg_driver *drv = lv->drv;
    const char *const counter_names[LG_C__COUNT] = {
        "attempts",
        "requests",
        "errors",
        "unfinished",
        "connect_attempts",
        "connections",
        "reconnects",
        drv->next_target ? "origin_switches" : NULL, /* requests on several origins only */
        "bytes_received",
        "scheduled",
        "unsent",
        ws[0].tp->blocked_counter,             /* NULL: the transport does not count them */
        ws[0].tgt->tls ? "tls_resumed" : NULL, /* TLS targets only */
    };
    for (unsigned i = 0; i < lv->nw; i++)
        for (int k = 0; k < LG_C__COUNT; k++)
            totals[k] += ws[i].store.counters[k];
    for (int k = 0; k < LG_C__COUNT; k++) {
        if ((k == LG_C_SCHEDULED || k == LG_C_UNSENT) && lv->cfg->rate <= 0) continue;
        if (!counter_names[k]) continue;
        /* its unit from the one table of metric kinds (stats/read/metrickinds.def);
         * a counter the table lacks falls to its catch-all count row, which
         * the tests' checker refuses for a generator's document */
        const char *unit = stats_metric_unit_name(counter_names[k]);
        if (!unit) unit = "count";
        double *v = malloc(sizeof(*v));
        if (!v) return -1;
        v[0] = (double)totals[k];
        if (lg_result_add(res, counter_names[k], unit, v, 1, 1) < 0) return -1;
        if (k == LG_C_ERRORS && collect_error_classes(lv, res) < 0) return -1;
    }
    for (unsigned k = 0; k < drv->n_counters; k++) {
        uint64_t e = 0;
        for (unsigned i = 0; i < lv->nw; i++)
            e += ws[i].store.extra[k];
        /* dotted counters (rcode.NXDOMAIN) appear when seen; plain ones always */
        if ((e || !strchr(drv->counter_names[k], '.')) &&
            lg_result_add_count(res, drv->counter_names[k], e) < 0)
            return -1;
    }
    return 0;
}

/* The first detail of each error class seen (or its description), so every
 * class line of the summary says what happened. */
static int collect_error_details(struct lg_levels *lv, struct lg_level_result *res)
{
    res->error_detail = calloc(lv->n_classes, sizeof(char *));
    if (!res->error_detail) return -1;
    for (unsigned cls = 1; cls < lv->n_classes; cls++) {
        uint64_t seen = 0;
        for (unsigned i = 0; i < lv->nw; i++) {
            const struct lg_store *st = &lv->ws[i].store;
            seen += st->errors[cls];
            if (!res->error_detail[cls] && st->error_detail[cls])
                res->error_detail[cls] = strdup(st->error_detail[cls]);
        }
        if (seen && !res->error_detail[cls])
            res->error_detail[cls] = strdup(lg_error_description(lv->drv, cls));
    }
    return 0;
}

/* Merges the workers' stores into the level's named metrics. */
static int level_collect(struct lg_levels *lv, struct lg_level_result *res, uint64_t ran_ns)
{
    uint64_t totals[LG_C__COUNT] = {0};
    if (collect_series(lv, res) < 0 || collect_rate(lv, res, ran_ns) < 0 ||
        collect_counters(lv, res, totals) < 0)
        return -1;
    for (unsigned i = 0; i < lv->nw; i++) {
        const struct lg_store *st = &lv->ws[i].store;
        if (st->peer_limited && (!res->peer_limited || st->peer_limit < res->peer_limit)) {
            res->peer_limited = true;
            res->peer_limit = st->peer_limit;
        }
        res->tls_rehandshakes += st->tls_rehandshakes;
        res->tls_sessions_offered += st->tls_sessions_offered;
        for (unsigned k = 0; k < LG_MAX_PROTOCOLS; k++)
            res->protocols[k] += st->protocols[k];
    }
    res->protocol_names = lv->drv->protocol_names;
    res->n_protocols =
        lv->drv->n_protocols < LG_MAX_PROTOCOLS ? lv->drv->n_protocols : LG_MAX_PROTOCOLS;
    res->tls_resume = lv->ws[0].tgt->tls && lv->ws[0].tgt->tls->resume;
    res->tls_resumed = totals[LG_C_TLS_RESUMED];
    res->attempts = totals[LG_C_ATTEMPTS];
    res->requests = totals[LG_C_REQUESTS];
    res->errors = totals[LG_C_ERRORS];
    res->unfinished = totals[LG_C_UNFINISHED];
    res->scheduled = totals[LG_C_SCHEDULED];
    res->unsent = totals[LG_C_UNSENT];
    return collect_error_details(lv, res);
}

/* client_attempts: each client's attempts, one sample per client, so that a
 * reader can see every client made progress (and how evenly) without --log. */
static int collect_client_attempts(struct lg_level_result *res, const struct cohort *co,
                                   unsigned mine)
{
    if (mine == 0) return 0;
    double *v = malloc((size_t)mine * sizeof(*v));
    if (!v) return -1;
    for (unsigned j = 0; j < mine; j++)
        v[j] = (double)co->clients[j].attempts;
    return lg_result_add(res, "client_attempts", "count", v, mine, mine);
}

/* Spreads the shard's clients of the level over the workers, in order of
 * their global ids (the open loop's schedule walks them in that order). */
static void cohort_place(struct lg_levels *lv, struct cohort *co, unsigned clients, unsigned mine)
{
    const struct lg_config *cfg = lv->cfg;
    unsigned next = 0;
    for (unsigned i = 0; i < lv->nw; i++) {
        struct lg_worker *w = &lv->ws[i];
        unsigned share = mine / lv->nw + (i < mine % lv->nw ? 1 : 0);
        w->clients = co->clients + next;
        w->n_clients = share;
        w->level_clients = clients;
        w->draining = false;
        w->stopped = false;
        w->quota_reached = false;
        w->unstarted = share;
        w->first_sec_sent = false;
        atomic_store(&w->first_sec_ready, false);
        /* -n's share of these clients; the open loop's schedule deals its
         * requests by itself */
        w->quota = cfg->level_requests && cfg->rate <= 0
                       ? lg_shard_requests(cfg->level_requests, clients, cfg->shard_index,
                                           cfg->shard_count, next, share)
                       : 0;
        for (unsigned k = 0; k < share; k++) {
            unsigned j = next + k;
            lg_client_setup(
                w, &co->clients[j], lg_shard_client_id(j, cfg->shard_index, cfg->shard_count),
                co->state_size ? co->states + (size_t)j * co->state_size : NULL,
                co->slots + (size_t)j * cfg->slots, co->free_slots + (size_t)j * cfg->slots);
        }
        next += share;
    }
}

/* The state every client's driver keeps: calloc leaves a large block
 * unmapped until it is first written, and a fault on a cold request's path
 * would be paid after its moment. */
static void cohort_touch(struct cohort *co, unsigned n)
{
    if (co->states) memset(co->states, 0, (size_t)(n ? n : 1) * co->state_size);
}

/* The open loop gets ready before its first moment: room for the samples its
 * schedule will give each worker (so none allocates or faults a page in while
 * it keeps time), and every client's socket. */
static int open_loop_prepare(struct lg_levels *lv, unsigned clients)
{
    const struct lg_config *cfg = lv->cfg;
    double scheduled = ceil(cfg->rate * ((double)cfg->duration_ns / 1e9));
    for (unsigned i = 0; i < lv->nw; i++) {
        struct lg_worker *w = &lv->ws[i];
        if (w->n_clients == 0) continue;
        double share = scheduled * w->n_clients / clients + w->n_clients;
        size_t requests = share < (double)cfg->max_samples ? (size_t)share : cfg->max_samples;
        if (lg_store_prepare(&w->store, requests, w->n_clients) < 0) return -1;
        for (unsigned k = 0; k < w->n_clients; k++)
            lg_client_prepare(&w->clients[k]);
    }
    return 0;
}

/* A level prepared but never run: the clients' sockets close. */
static void cohort_abandon(struct lg_levels *lv)
{
    for (unsigned i = 0; i < lv->nw; i++) {
        struct lg_worker *w = &lv->ws[i];
        for (unsigned k = 0; k < w->n_clients; k++)
            lg_client_teardown(&w->clients[k]);
        /* what the transport set up for these clients is theirs alone */
        if (w->tp_state && w->tp->worker_end) w->tp->worker_end(w);
    }
}

/* How long the level ran: to its deadline, or to the moment the last loop
 * stopped when an interrupt stopped them before it (what a loop completed
 * until then is the level's; a loop stopped in the drain ran to the
 * deadline). An open loop stopped within its lead ends before its start: 0. */
static uint64_t level_ran(const struct lg_levels *lv, uint64_t start, uint64_t deadline)
{
    uint64_t until = 0;
    for (unsigned i = 0; i < lv->nw; i++)
        if (lv->ws[i].loop_end_ns > until) until = lv->ws[i].loop_end_ns;
    if (until > deadline) until = deadline;
    return until > start ? until - start : 0;
}

/* Runs the workers from `start` until they have all ended. */
static void workers_run(struct lg_levels *lv, unsigned clients, uint64_t start)
{
    struct lg_worker *ws = lv->ws;
    lg_control_level_begin(lv->run, ws, lv->nw, clients, start);
    for (unsigned i = 1; i < lv->nw; i++) {
        ws[i].spawned = pthread_create(&ws[i].thread, NULL, worker_thread, &ws[i]) == 0;
        /* a loop run later on this thread would not run concurrently: the
         * level could not be what was asked for */
        if (!ws[i].spawned) lg_control_fail(lv->run, "cannot start an event-loop thread");
    }
    lg_worker_run_level(&ws[0]);
    for (unsigned i = 1; i < lv->nw; i++)
        if (ws[i].spawned) pthread_join(ws[i].thread, NULL);
}

enum lg_level_outcome lg_level_run(struct lg_levels *lv, unsigned k, struct lg_level_result *res)
{
    const struct lg_config *cfg = lv->cfg;
    unsigned clients = cfg->levels[k];
    unsigned mine = lg_shard_clients(clients, cfg->shard_index, cfg->shard_count);
    struct cohort co;
    enum lg_level_outcome out = LG_LEVEL_NO_MEMORY;
    bool level_active = false, placed = false;
    /* everything that takes time happens before the start */
    if (cohort_alloc(&co, mine, cfg->slots, lv->drv->client_state_size) < 0) goto out;
    uint64_t whole = cfg->duration_ns / LG_NS_PER_S;
    size_t tl = whole ? (whole < LG_TIMELINE_FIRST_S ? (size_t)whole : LG_TIMELINE_FIRST_S) : 1;
    for (unsigned i = 0; i < lv->nw; i++)
        if (lg_store_init(&lv->ws[i].store, lv->n_classes, lv->drv->n_counters, cfg->max_samples,
                          tl) < 0 ||
            lg_store_init_groups(&lv->ws[i].store, lv->drv->n_groups, cfg->max_samples) < 0)
            goto out;

    cohort_place(lv, &co, clients, mine);
    cohort_touch(&co, mine);
    placed = true;
    if (cfg->rate > 0 && open_loop_prepare(lv, clients) < 0) goto out;

    /* the open loop's first moment comes a little after the workers are
     * told to start, so that each is waiting on its timer for it */
    uint64_t lead = cfg->rate > 0 ? OPEN_LOOP_LEAD_NS : 0;
    uint64_t at = lg_level_start_at(cfg, k), start, wall;
    if (at) {
        enum lg_wait_result wr = lg_wait_until(lv->run, cfg, at, lead, &start, &wall);
        out = wr == LG_WAIT_LATE ? LG_LEVEL_LATE : LG_LEVEL_NOT_RUN;
        if (wr != LG_WAIT_STARTED) goto out;
    } else {
        start = lg_now_ns() + lead;
        wall = lg_ref_wall_ns(lv->run) + lead;
    }
    for (unsigned i = 0; i < lv->nw; i++) {
        lv->ws[i].level_start_ns = start;
        lv->ws[i].deadline_ns = start + cfg->duration_ns;
        lv->ws[i].loop_end_ns = 0;
    }
    level_active = true;
    placed = false; /* the workers tear their clients down */
    workers_run(lv, clients, start);
    uint64_t ran_ns = level_ran(lv, start, start + cfg->duration_ns);
    out = LG_LEVEL_NOT_RUN;
    if (lg_control_failure(lv->run)) goto out; /* nothing of this level will be reported */

    out = LG_LEVEL_NO_MEMORY;
    res->clients = clients;
    res->shard_clients = mine;
    res->requested_start_ns = at;
    res->actual_start_ns = wall;
    res->interrupted = lg_control_interrupted(lv->run) != 0;
    for (unsigned i = 0; i < lv->nw; i++)
        res->stopped |= lv->ws[i].stopped;
    res->transport = lv->ws[0].tp->name;
    res->seconds = (double)ran_ns / 1e9;
    for (unsigned j = 0; j < mine; j++)
        if (co.clients[j].attempts == 0) res->idle_clients++;
    if (level_collect(lv, res, ran_ns) < 0 || collect_client_attempts(res, &co, mine) < 0) goto out;
    level_active = false;
    if (lg_control_level_end(lv->run, res) < 0) goto out;
    /* judged by the control thread during the level, or just now */
    res->failed_fast = lg_control_failed_fast(lv->run);
    /* the level's last samples (sampling, --watch) may have failed the run */
    out = LG_LEVEL_NOT_RUN;
    if (lg_control_failure(lv->run)) goto out;
    out = LG_LEVEL_NO_MEMORY;
    if (lg_selfwatch_collect(res, lv->ws, lv->nw, cfg, lv->drv) < 0) goto out;
    out = LG_LEVEL_DONE;
out:
    if (level_active) lg_control_level_end(lv->run, NULL);
    if (placed) cohort_abandon(lv);
    for (unsigned i = 0; i < lv->nw; i++)
        lg_store_free(&lv->ws[i].store, lv->n_classes);
    cohort_free(&co);
    return out;
}
