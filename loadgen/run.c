/* lg_run: the levels in turn, each with a fresh cohort of clients spread over
 * the worker threads; after each level the workers' stores merge into named
 * metrics; at the end one document on stdout, a summary on stderr and the
 * exit status the contract defines. */
#include "loadgen/internal.h"
#include "loadgen/control.h"
#include "loadgen/meta.h"
#include "loadgen/reqlog.h"
#include "loadgen/results.h"
#include "loadgen/schedule.h"
#include "loadgen/selfwatch.h"
#include "loadgen/summary.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const char *const base_error_names[LG_ERR__BASE_COUNT] = {
    [LG_OK] = "ok",
    [LG_ERR_CONNECT_REFUSED] = "connect_refused",
    [LG_ERR_CONNECT_TIMEOUT] = "connect_timeout",
    [LG_ERR_CONNECT] = "connect",
    [LG_ERR_PROXY_REFUSED] = "proxy_refused",
    [LG_ERR_TLS_HANDSHAKE] = "tls_handshake",
    [LG_ERR_TLS_VERIFY] = "tls_verify",
    [LG_ERR_RESET] = "reset",
    [LG_ERR_EOF] = "eof",
    [LG_ERR_TIMEOUT] = "timeout",
    [LG_ERR_SEND] = "send",
    [LG_ERR_SOCKET] = "socket",
};

/* What each class means: the summary's line for a class whose errors came
 * with no reason of their own. */
static const char *const base_error_descriptions[LG_ERR__BASE_COUNT] = {
    [LG_OK] = "success",
    [LG_ERR_CONNECT_REFUSED] = "the server refused the connection (nothing listens on the port)",
    [LG_ERR_CONNECT_TIMEOUT] = "the connection was not established within --timeout",
    [LG_ERR_CONNECT] = "the connection could not be established",
    [LG_ERR_PROXY_REFUSED] = "the proxy did not open the tunnel (CONNECT not answered with 2xx)",
    [LG_ERR_TLS_HANDSHAKE] = "the TLS handshake failed or did not finish",
    [LG_ERR_TLS_VERIFY] = "the server's certificate could not be verified",
    [LG_ERR_RESET] = "the connection was reset or failed with requests in flight",
    [LG_ERR_EOF] = "the server closed the connection before the response was complete",
    [LG_ERR_TIMEOUT] = "no response within --timeout",
    [LG_ERR_SEND] = "the request could not be sent",
    [LG_ERR_SOCKET] = "no socket could be created (out of descriptors or memory)",
};

static const char *error_name(const struct lg_driver *d, unsigned cls)
{
    if (cls < LG_ERR__BASE_COUNT) return base_error_names[cls];
    return d->error_names[cls - LG_ERR__BASE_COUNT];
}

static void *worker_thread(void *arg)
{
    lg_worker_run_level(arg);
    return NULL;
}

/* Raise the soft descriptor limit to the hard one; refuse a level that
 * cannot fit before anything starts. */
static int check_fd_limit(const struct lg_config *cfg)
{
    unsigned most = 0;
    for (size_t i = 0; i < cfg->n_levels; i++)
        if (cfg->levels[i] > most) most = cfg->levels[i];
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    rlim_t need = (rlim_t)most + 16 + 4 * (rlim_t)cfg->threads;
    if (rl.rlim_cur != RLIM_INFINITY && need > rl.rlim_cur) {
        fprintf(stderr,
                "%s: %u clients need about %llu file descriptors but the limit is %llu "
                "(raise it with ulimit -n, or use fewer clients)\n",
                cfg->tool, most, (unsigned long long)need, (unsigned long long)rl.rlim_cur);
        return -1;
    }
    return 0;
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

static double *series_take(struct lg_series *s, size_t *n)
{
    double *v = s->v;
    *n = s->n;
    s->v = NULL;
    s->n = s->cap = 0;
    return v;
}

/* Merges the workers' stores into the level's named metrics. */
static int level_collect(struct lg_level_result *res, struct lg_worker *ws, unsigned nw,
                         const struct lg_config *cfg, const struct lg_driver *drv,
                         unsigned n_classes, struct lg_rng *rng, bool *sampled)
{
    static const char *const series_names[LG_S__COUNT] = {
        "latency_cold_ms",  "latency_warm_ms", "connect_ms",  "proxy_connect_ms",
        "tls_handshake_ms", "ttfb_ms",         "send_lag_ms",
    };
    struct lg_series **parts = calloc(nw, sizeof(*parts));
    if (!parts) return -1;
    for (int s = 0; s < LG_S__COUNT; s++) {
        struct lg_series merged;
        lg_series_init(&merged, cfg->max_samples);
        for (unsigned i = 0; i < nw; i++) {
            parts[i] = &ws[i].store.series[s];
            if (parts[i]->lost) {
                free(parts);
                return -1; /* out of memory: a sample could not be kept */
            }
        }
        if (lg_series_merge(&merged, parts, nw, rng) < 0) {
            free(parts);
            return -1;
        }
        if (lg_series_sampled(&merged)) *sampled = true;
        size_t n;
        uint64_t seen = merged.seen;
        double *v = series_take(&merged, &n);
        if (lg_result_add(res, series_names[s], "milliseconds", v, n, seen) < 0) {
            free(parts);
            return -1;
        }
    }
    free(parts);

    /* requests_per_second: whole seconds of the level; a level shorter than a
     * second gets one sample, its completions over its length. */
    size_t tl = ws[0].store.timeline_len;
    double *rps = calloc(tl ? tl : 1, sizeof(*rps));
    if (!rps) return -1;
    uint64_t whole = cfg->duration_ns / LG_NS_PER_S;
    for (size_t k = 0; k < tl; k++)
        for (unsigned i = 0; i < nw; i++)
            rps[k] += (double)ws[i].store.timeline[k];
    if (whole == 0 && tl == 1) rps[0] = rps[0] / ((double)cfg->duration_ns / 1e9);
    if (lg_result_add(res, "requests_per_second", "requests_per_second", rps, tl, tl) < 0)
        return -1;

    const char *const counter_names[LG_C__COUNT] = {
        "attempts",       "requests",
        "errors",         "unfinished",
        "connections",    "reconnects",
        "bytes_received", "scheduled",
        "unsent",         ws[0].tp->blocked_counter, /* NULL: the transport does not count them */
    };
    uint64_t totals[LG_C__COUNT] = {0};
    for (unsigned i = 0; i < nw; i++)
        for (int k = 0; k < LG_C__COUNT; k++)
            totals[k] += ws[i].store.counters[k];
    for (int k = 0; k < LG_C__COUNT; k++) {
        if ((k == LG_C_SCHEDULED || k == LG_C_UNSENT) && cfg->rate <= 0) continue;
        if (!counter_names[k]) continue;
        const char *unit = k == LG_C_BYTES_RECEIVED ? "bytes" : "count";
        double *v = malloc(sizeof(*v));
        if (!v) return -1;
        v[0] = (double)totals[k];
        if (lg_result_add(res, counter_names[k], unit, v, 1, 1) < 0) return -1;
        if (k == LG_C_ERRORS) {
            for (unsigned cls = 1; cls < n_classes; cls++) {
                uint64_t e = 0;
                for (unsigned i = 0; i < nw; i++)
                    e += ws[i].store.errors[cls];
                char name[96];
                snprintf(name, sizeof(name), "errors.%s", error_name(drv, cls));
                if (e && lg_result_add_count(res, name, e) < 0) return -1;
            }
        }
    }
    for (unsigned k = 0; k < drv->n_counters; k++) {
        uint64_t e = 0;
        for (unsigned i = 0; i < nw; i++)
            e += ws[i].store.extra[k];
        /* dotted counters (rcode.NXDOMAIN) appear when seen; plain ones always */
        if ((e || !strchr(drv->counter_names[k], '.')) &&
            lg_result_add_count(res, drv->counter_names[k], e) < 0)
            return -1;
    }
    for (unsigned i = 0; i < nw; i++) {
        const struct lg_store *st = &ws[i].store;
        if (st->peer_limited && (!res->peer_limited || st->peer_limit < res->peer_limit)) {
            res->peer_limited = true;
            res->peer_limit = st->peer_limit;
        }
    }
    res->attempts = totals[LG_C_ATTEMPTS];
    res->requests = totals[LG_C_REQUESTS];
    res->errors = totals[LG_C_ERRORS];
    res->unfinished = totals[LG_C_UNFINISHED];
    res->scheduled = totals[LG_C_SCHEDULED];
    res->unsent = totals[LG_C_UNSENT];
    res->error_detail = calloc(n_classes, sizeof(char *));
    if (!res->error_detail) return -1;
    for (unsigned cls = 1; cls < n_classes; cls++) {
        uint64_t seen = 0;
        for (unsigned i = 0; i < nw; i++) {
            seen += ws[i].store.errors[cls];
            if (!res->error_detail[cls] && ws[i].store.error_detail[cls])
                res->error_detail[cls] = strdup(ws[i].store.error_detail[cls]);
        }
        /* every class line of the summary says what happened */
        if (seen && !res->error_detail[cls]) {
            const char *what = cls < LG_ERR__BASE_COUNT ? base_error_descriptions[cls]
                               : drv->error_descriptions
                                   ? drv->error_descriptions[cls - LG_ERR__BASE_COUNT]
                                   : NULL;
            res->error_detail[cls] = strdup(what ? what : "no reason recorded");
        }
    }
    return 0;
}

static int run_level(const struct lg_config *cfg, const struct lg_driver *drv, struct lg_worker *ws,
                     unsigned nw, unsigned clients, struct lg_level_result *res, unsigned n_classes,
                     struct lg_rng *rng, bool *sampled)
{
    struct cohort co;
    int rc = -1;
    bool level_active = false;
    if (cohort_alloc(&co, clients, cfg->slots, drv->client_state_size) < 0) goto out;
    uint64_t whole = cfg->duration_ns / LG_NS_PER_S;
    size_t tl = whole ? (size_t)whole : 1;
    for (unsigned i = 0; i < nw; i++)
        if (lg_store_init(&ws[i].store, n_classes, drv->n_counters, cfg->max_samples, tl) < 0)
            goto out;

    uint64_t start = lg_now_ns();
    unsigned next = 0;
    for (unsigned i = 0; i < nw; i++) {
        struct lg_worker *w = &ws[i];
        unsigned share = clients / nw + (i < clients % nw ? 1 : 0);
        w->clients = co.clients + next;
        w->n_clients = share;
        w->level_clients = clients;
        w->level_start_ns = start;
        w->deadline_ns = start + cfg->duration_ns;
        w->draining = false;
        w->stopped = false;
        for (unsigned k = 0; k < share; k++) {
            unsigned id = next + k;
            lg_client_setup(w, &co.clients[id], id,
                            co.state_size ? co.states + (size_t)id * co.state_size : NULL,
                            co.slots + (size_t)id * cfg->slots,
                            co.free_slots + (size_t)id * cfg->slots);
        }
        next += share;
    }
    lg_control_level_begin(ws, nw, clients, start);
    level_active = true;
    for (unsigned i = 1; i < nw; i++) {
        ws[i].spawned = pthread_create(&ws[i].thread, NULL, worker_thread, &ws[i]) == 0;
        /* a loop run later on this thread would not run concurrently: the
         * level could not be what was asked for */
        if (!ws[i].spawned) lg_control_fail("cannot start an event-loop thread");
    }
    lg_worker_run_level(&ws[0]);
    for (unsigned i = 1; i < nw; i++)
        if (ws[i].spawned) pthread_join(ws[i].thread, NULL);
    uint64_t end = lg_now_ns();
    if (lg_control_failure()) { /* nothing of this level will be reported */
        rc = 0;
        goto out;
    }

    res->clients = clients;
    res->interrupted = lg_control_interrupted() != 0;
    res->seconds =
        (double)((end < start + cfg->duration_ns ? end : start + cfg->duration_ns) - start) / 1e9;
    for (unsigned id = 0; id < clients; id++)
        if (co.clients[id].attempts == 0) res->idle_clients++;
    if (level_collect(res, ws, nw, cfg, drv, n_classes, rng, sampled) < 0) goto out;
    level_active = false;
    if (lg_control_level_end(res) < 0) goto out;
    if (lg_selfwatch_collect(res, ws, nw, cfg, drv) < 0) goto out;
    rc = 0;
out:
    if (level_active) lg_control_level_end(NULL);
    for (unsigned i = 0; i < nw; i++)
        lg_store_free(&ws[i].store, n_classes);
    cohort_free(&co);
    return rc;
}

int lg_run(const struct lg_config *cfg, const struct lg_driver *drv, const struct lg_target *tgt,
           void *driver_ctx, const struct lg_meta_section *meta_extra)
{
    unsigned n_classes = LG_ERR__BASE_COUNT + drv->n_errors;
    if (check_fd_limit(cfg) < 0) return LG_EXIT_USAGE;

    struct lg_reqlog *log = NULL;
    if (cfg->log_path && !(log = lg_reqlog_open(cfg->log_path, drv, error_name))) {
        fprintf(stderr, "%s: --log %s: %s\n", cfg->tool, cfg->log_path, strerror(errno));
        return LG_EXIT_USAGE;
    }

    int meta_fd = -1;
    if (cfg->meta_path &&
        (meta_fd = open(cfg->meta_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        fprintf(stderr, "%s: --meta %s: %s\n", cfg->tool, cfg->meta_path, strerror(errno));
        if (log) lg_reqlog_close(log);
        return LG_EXIT_USAGE;
    }

    signal(SIGPIPE, SIG_IGN);
    if (lg_control_start(cfg) < 0) {
        fprintf(stderr, "%s: cannot start the control thread: %s\n", cfg->tool, strerror(errno));
        if (meta_fd >= 0) close(meta_fd);
        if (log) lg_reqlog_close(log);
        return LG_EXIT_FAILED;
    }

    char started_at[64];
    lg_meta_wallclock(started_at, sizeof(started_at));

    unsigned nw = cfg->threads ? cfg->threads : 1;
    struct lg_worker *ws = calloc(nw, sizeof(*ws));
    struct lg_level_result *results = calloc(cfg->n_levels, sizeof(*results));
    uint8_t *rbufs = malloc((size_t)nw * 65536);
    int status = LG_EXIT_FAILED;
    if (!ws || !results || !rbufs) {
        fprintf(stderr, "%s: out of memory\n", cfg->tool);
        goto out;
    }
    for (unsigned i = 0; i < nw; i++) {
        struct lg_worker *w = &ws[i];
        w->index = i;
        w->cfg = cfg;
        w->drv = drv;
        w->tgt = tgt;
        w->driver_ctx = driver_ctx;
        w->n_classes = n_classes;
        w->rbuf = rbufs + (size_t)i * 65536;
        w->rbuf_len = 65536;
        w->log = log;
        /* the one place that asks what kind of socket the driver wants */
        w->tp = drv->datagram ? &lg_transport_udp
                : tgt->tls    ? &lg_transport_tls
                              : &lg_transport_stream;
        if (!drv->datagram) w->stages[w->n_stages++] = &lg_stage_connect;
        if (tgt->tunnel_request) w->stages[w->n_stages++] = &lg_stage_tunnel;
        if (tgt->tls) w->stages[w->n_stages++] = &lg_stage_tls;
        lg_rng_seed(&w->rng, cfg->seed * 7919 + i + 1);
        w->loop = ev_loop_new(EVFLAG_AUTO);
        if (!w->loop) {
            fprintf(stderr, "%s: cannot create an event loop\n", cfg->tool);
            goto out;
        }
        lg_worker_init_async(w);
        w->sched.fd = -1;
        if (cfg->rate > 0 && lg_schedule_init(w) < 0) {
            fprintf(stderr, "%s: cannot create the open loop's timer: %s\n", cfg->tool,
                    strerror(errno));
            goto out;
        }
    }

    struct lg_rng rng;
    lg_rng_seed(&rng, cfg->seed + 17);
    size_t done = 0;
    bool sampled = false;
    for (size_t l = 0; l < cfg->n_levels && !lg_control_interrupted() && !lg_control_failure();
         l++) {
        if (run_level(cfg, drv, ws, nw, cfg->levels[l], &results[l], n_classes, &rng, &sampled) <
            0) {
            fprintf(stderr, "%s: out of memory while running level c%u\n", cfg->tool,
                    cfg->levels[l]);
            goto out;
        }
        done = l + 1;
        if (results[l].peer_limited)
            fprintf(stderr,
                    "%s: level c%u: the server allows %u concurrent streams per connection: "
                    "%s %u was capped to %u\n",
                    cfg->tool, cfg->levels[l], results[l].peer_limit,
                    cfg->slots_option ? cfg->slots_option : "requests in flight per client",
                    cfg->slots, results[l].peer_limit);
        if (log && lg_reqlog_flush(log) < 0)
            fprintf(stderr, "%s: --log %s: write failed\n", cfg->tool, cfg->log_path);
        if (!cfg->quiet || cfg->summary)
            lg_summary_level(stderr, &results[l], drv, n_classes, error_name, cfg);
    }
    if (lg_control_failure()) {
        fprintf(stderr, "%s: %s; the run could not be carried out, no document\n", cfg->tool,
                lg_control_failure());
        status = LG_EXIT_FAILED;
        goto out;
    }
    if (sampled)
        fprintf(stderr,
                "%s: some metrics exceeded --max-samples %zu: the document holds a uniform "
                "random subset of their samples; counts are exact\n",
                cfg->tool, cfg->max_samples);

    if (done == 0) {
        fprintf(stderr, "%s: interrupted before the first level finished; no document\n",
                cfg->tool);
        status = LG_EXIT_INTERRUPTED;
        goto out;
    }
    if (lg_results_write(STDOUT_FILENO, results, done) < 0) {
        fprintf(stderr, "%s: writing the document to stdout failed: %s\n", cfg->tool,
                strerror(errno));
        status = LG_EXIT_FAILED;
        goto out;
    }
    if (meta_fd >= 0) {
        int rc = lg_meta_write(meta_fd, cfg, drv, started_at, results, done, meta_extra);
        meta_fd = -1;
        if (rc < 0)
            fprintf(stderr, "%s: --meta %s: %s\n", cfg->tool, cfg->meta_path, strerror(errno));
    }

    status = LG_EXIT_OK;
    for (size_t l = 0; l < done; l++) {
        const struct lg_level_result *r = &results[l];
        if (r->interrupted) continue;
        if (r->idle_clients || r->attempts < r->clients) {
            fprintf(stderr,
                    "%s: level c%u is invalid: %u of %u clients made no attempt and the level "
                    "made %llu attempts for %u clients; lengthen --duration%s\n",
                    cfg->tool, r->clients, r->idle_clients, r->clients,
                    (unsigned long long)r->attempts, r->clients,
                    cfg->rate > 0 ? " or raise --rate" : "");
            status = LG_EXIT_INVALID;
        }
    }
    if (status == LG_EXIT_OK) {
        for (size_t l = 0; l < done; l++) {
            const struct lg_level_result *r = &results[l];
            /* in an open loop, a request that was due but never sent failed too */
            double bad = (double)(r->errors + r->unfinished + r->unsent);
            double tried = (double)(r->attempts + r->unsent);
            double rate = tried > 0 ? bad / tried : 0;
            if (bad > 0 && rate > cfg->max_error_rate) {
                if (cfg->rate > 0)
                    fprintf(stderr,
                            "%s: level c%u: %llu errors, %llu unfinished and %llu unsent of %llu "
                            "scheduled (%.4g%%) exceed --max-error-rate %g\n",
                            cfg->tool, r->clients, (unsigned long long)r->errors,
                            (unsigned long long)r->unfinished, (unsigned long long)r->unsent,
                            (unsigned long long)r->scheduled, rate * 100, cfg->max_error_rate);
                else
                    fprintf(stderr,
                            "%s: level c%u: %llu errors and %llu unfinished in %llu attempts "
                            "(%.4g%%) exceed --max-error-rate %g\n",
                            cfg->tool, r->clients, (unsigned long long)r->errors,
                            (unsigned long long)r->unfinished, (unsigned long long)r->attempts,
                            rate * 100, cfg->max_error_rate);
                status = LG_EXIT_ERRORS;
            }
        }
    }
    if (lg_control_interrupted()) {
        fprintf(stderr, "%s: interrupted by signal %d: the document holds what was measured\n",
                cfg->tool, lg_control_interrupted());
        status = LG_EXIT_INTERRUPTED;
    }
out:
    lg_control_stop();
    if (meta_fd >= 0) close(meta_fd);
    if (ws) {
        for (unsigned i = 0; i < nw; i++) {
            if (ws[i].loop) ev_loop_destroy(ws[i].loop);
            lg_schedule_free(&ws[i]);
            lg_selfwatch_free(&ws[i]);
        }
    }
    if (results)
        for (size_t l = 0; l < cfg->n_levels; l++)
            lg_result_free(&results[l], n_classes);
    if (log && lg_reqlog_close(log) < 0)
        fprintf(stderr, "%s: --log %s: write failed\n", cfg->tool, cfg->log_path);
    free(results);
    free(ws);
    free(rbufs);
    return status;
}
