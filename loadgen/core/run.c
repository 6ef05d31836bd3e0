/* lg_run: the workers made once, the levels in turn (level.c), then one
 * document on stdout, a summary on stderr and the exit status the contract
 * defines. */
#include "loadgen/core/internal.h"
#include "loadgen/core/clockref.h"
#include "loadgen/watching/control.h"
#include "loadgen/core/level.h"
#include "loadgen/output/docfit.h"
#include "loadgen/core/expiry.h"
#include "loadgen/core/evalloc.h"
#include "loadgen/output/meta.h"
#include "loadgen/output/outfile.h"
#include "loadgen/output/pipedoc.h"
#include "loadgen/preflight/preflight.h"
#include "loadgen/transport/quic.h"
#include "loadgen/transport/source.h"
#include "loadgen/output/reqlog.h"
#include "loadgen/output/results.h"
#include "loadgen/core/runctx.h"
#include "loadgen/core/schedule.h"
#include "loadgen/watching/selfwatch.h"
#include "loadgen/core/start.h"
#include "loadgen/output/summary.h"
#include "loadgen/output/termdoc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The run needs more descriptors than the soft limit allows: the soft one
 * is raised to the hard one (a process may, unprivileged). A run that fits
 * the soft limit leaves it as it was, for what this process starts. When
 * even the hard limit is short, one line says what to raise, before
 * anything starts. */
static int check_fd_limit(const struct lg_config *cfg)
{
    unsigned most = 0;
    for (size_t i = 0; i < cfg->n_levels; i++) {
        unsigned mine = lg_shard_clients(cfg->levels[i], cfg->shard_index, cfg->shard_count);
        if (mine > most) most = mine;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0;
    rlim_t need = (rlim_t)lg_descriptors_needed(most, cfg->threads ? cfg->threads : 1,
                                                (unsigned)cfg->n_watches);
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur != RLIM_INFINITY && need > rl.rlim_cur) {
        unsigned long long n = (unsigned long long)need;
        fprintf(stderr,
                "%s: %u clients need %llu file descriptors but the hard limit is %llu: raise it "
                "(as root: ulimit -Hn %llu, prlimit --nofile=%llu; LimitNOFILE=%llu in a systemd "
                "unit) or use fewer clients per process (--shard)\n",
                cfg->tool, most, n, (unsigned long long)rl.rlim_max, n, n, n);
        return -1;
    }
    return 0;
}

/* The workers: an event loop each, the transport and setup stages the
 * target needs, and the open loop's timer. -1 after a message. */
static int workers_init(struct lg_levels *lv, const struct lg_target *tgt, void *driver_ctx,
                        struct lg_reqlog *log, uint8_t *rbufs)
{
    const struct lg_config *cfg = lv->cfg;
    const struct lg_driver *drv = lv->drv;
    /* none holds a timer yet: workers_free closes only what was made, also
     * after a failure part of the way through */
    for (unsigned i = 0; i < lv->nw; i++)
        lv->ws[i].sched.fd = lv->ws[i].expiry.fd = -1;
    for (unsigned i = 0; i < lv->nw; i++) {
        struct lg_worker *w = &lv->ws[i];
        w->run = lv->run;
        w->index = i;
        w->cfg = cfg;
        w->drv = drv;
        w->tgt = tgt;
        w->driver_ctx = driver_ctx;
        w->n_classes = lv->n_classes;
        w->rbuf = rbufs + (size_t)i * 65536;
        w->rbuf_len = 65536;
        w->log = log;
        if (pthread_mutex_init(&w->ww_mu, NULL) != 0) {
            fprintf(stderr, "%s: cannot create a mutex for an event loop\n", cfg->tool);
            return -1;
        }
        w->ww_mu_made = true;
        /* the one place that asks what kind of socket the driver wants */
        if (tgt->quic) {
            /* QUIC's transport and handshake come with its configuration:
             * a tool that uses no QUIC links none of it */
            w->tp = tgt->quic->transport;
            w->stages[w->n_stages++] = tgt->quic->stage;
        } else {
            w->tp = drv->datagram && tgt->datagram_transport ? tgt->datagram_transport
                    : drv->datagram                          ? &lg_transport_udp
                    : tgt->tls                               ? &lg_transport_tls
                                                             : &lg_transport_stream;
            if (!drv->datagram) w->stages[w->n_stages++] = &lg_stage_connect;
            if (tgt->tunnel) w->stages[w->n_stages++] = tgt->tunnel;
            if (tgt->tls) w->stages[w->n_stages++] = &lg_stage_tls;
        }
        stats_rng_seed(&w->rng, cfg->seed * 7919 + i + 1);
        w->loop = ev_loop_new(EVFLAG_AUTO);
        if (!w->loop) {
            fprintf(stderr, "%s: cannot create an event loop\n", cfg->tool);
            return -1;
        }
        lg_worker_init_async(w);
        if (lg_expiry_init(w) < 0) {
            fprintf(stderr, "%s: cannot create the timer of the requests' timeouts: %s\n",
                    cfg->tool, strerror(errno));
            return -1;
        }
        if (cfg->rate > 0 && lg_schedule_init(w) < 0) {
            fprintf(stderr, "%s: cannot create the open loop's timer: %s\n", cfg->tool,
                    strerror(errno));
            return -1;
        }
    }
    return 0;
}

static void workers_free(struct lg_worker *ws, unsigned nw)
{
    for (unsigned i = 0; ws && i < nw; i++) {
        /* a level that ended early still gave its transport state back */
        if (ws[i].tp_state && ws[i].tp->worker_end) ws[i].tp->worker_end(&ws[i]);
        if (ws[i].loop) ev_loop_destroy(ws[i].loop);
        lg_schedule_free(&ws[i]);
        lg_expiry_free(&ws[i]);
        lg_selfwatch_free(&ws[i]);
        if (ws[i].ww_mu_made) pthread_mutex_destroy(&ws[i].ww_mu);
    }
}

/* --tls-resume was given, clients reconnected, and the server resumed no
 * session: say so, or the user takes every handshake for a resumed one. */
static void resume_note(const struct lg_config *cfg, const struct lg_level_result *r)
{
    if (!r->tls_resume || r->tls_rehandshakes == 0 || r->tls_resumed > 0) return;
    unsigned long long n = (unsigned long long)r->tls_rehandshakes;
    if (r->tls_sessions_offered == 0)
        fprintf(stderr,
                "%s: level c%u: --tls-resume: the server resumed no TLS session: it gave none "
                "to resume (no session ID or ticket), so all %llu handshake%s after a "
                "client's first %s full\n",
                cfg->tool, r->clients, n, n == 1 ? "" : "s", n == 1 ? "was" : "were");
    else
        fprintf(stderr,
                "%s: level c%u: --tls-resume: the server resumed none of the %llu TLS "
                "session%s offered, so all %llu handshake%s after a client's first %s full\n",
                cfg->tool, r->clients, (unsigned long long)r->tls_sessions_offered,
                r->tls_sessions_offered == 1 ? "" : "s", n, n == 1 ? "" : "s",
                n == 1 ? "was" : "were");
}

/* -n asked for more requests than --duration left room for: say so, or the
 * user takes the counts for the N asked for. An open loop's are those the
 * schedule made due, a closed loop's those started. */
static void requests_note(const struct lg_config *cfg, const struct lg_level_result *r)
{
    if (!cfg->level_requests || r->stopped) return; /* a signal or --fail-fast cut it */
    uint64_t asked = lg_shard_requests(cfg->level_requests, r->clients, cfg->shard_index,
                                       cfg->shard_count, 0, r->shard_clients);
    uint64_t made = cfg->rate > 0 ? r->scheduled : r->attempts;
    if (made >= asked) return;
    fprintf(stderr,
            "%s: level c%u: --duration ended it after %llu of the %llu requests -n asked for%s; "
            "lengthen --duration, or leave it out\n",
            cfg->tool, r->clients, (unsigned long long)made, (unsigned long long)asked,
            cfg->rate > 0 ? " (made due by --rate)" : "");
}

/* What stderr says after a level, besides the summary. */
static void level_notes(const struct lg_config *cfg, const struct lg_level_result *r)
{
    requests_note(cfg, r);
    if (r->peer_limited)
        fprintf(stderr,
                "%s: level c%u: the server allows %u concurrent stream%s per connection: %s %u "
                "was capped to %u\n",
                cfg->tool, r->clients, r->peer_limit, r->peer_limit == 1 ? "" : "s",
                cfg->slots_option ? cfg->slots_option : "requests in flight per client", cfg->slots,
                r->peer_limit);
    resume_note(cfg, r);
}

/* An interrupted level's errors against --max-error-rate, said on stderr
 * when they exceed it (the run exits 130 all the same). Its unfinished
 * requests are those the interrupt cut off: they neither failed nor
 * succeeded, so they are not the target's errors and are left out of the
 * rate's both terms; the line says how many there were. */
static void interrupted_error_rate(const struct lg_config *cfg, const struct lg_level_result *r)
{
    double bad = (double)(r->errors + r->unsent);
    double tried = (double)(r->attempts - r->unfinished + r->unsent);
    double rate = tried > 0 ? bad / tried : 0;
    if (bad == 0 || rate <= cfg->max_error_rate) return;
    if (cfg->rate > 0)
        fprintf(stderr,
                "%s: level c%u: %llu errors and %llu unsent of the %llu scheduled requests "
                "not cut off by the interrupt (%.4g%%) exceed --max-error-rate %g",
                cfg->tool, r->clients, (unsigned long long)r->errors, (unsigned long long)r->unsent,
                (unsigned long long)(r->scheduled - r->unfinished), rate * 100,
                cfg->max_error_rate);
    else
        fprintf(stderr,
                "%s: level c%u: %llu errors in the %llu attempts not cut off by the interrupt "
                "(%.4g%%) exceed --max-error-rate %g",
                cfg->tool, r->clients, (unsigned long long)r->errors,
                (unsigned long long)(r->attempts - r->unfinished), rate * 100, cfg->max_error_rate);
    if (r->unfinished)
        fprintf(stderr, " (%llu more were in flight when it came)",
                (unsigned long long)r->unfinished);
    fputc('\n', stderr);
}

/* The exit status of levels that ran, with the reason on stderr. */
static int run_status(const struct lg_config *cfg, const struct lg_level_result *results,
                      size_t done)
{
    int status = LG_EXIT_OK;
    for (size_t l = 0; l < done; l++) {
        const struct lg_level_result *r = &results[l];
        if (r->interrupted || r->failed_fast) continue; /* cut short, or exit 7 says it */
        if (r->idle_clients || r->attempts < r->shard_clients) {
            fprintf(stderr,
                    "%s: level c%u is invalid: %u of %u clients made no attempt and the level "
                    "made %llu attempts for %u clients; lengthen --duration%s\n",
                    cfg->tool, r->clients, r->idle_clients, r->shard_clients,
                    (unsigned long long)r->attempts, r->shard_clients,
                    cfg->rate > 0 ? " or raise --rate" : "");
            status = LG_EXIT_INVALID;
        }
    }
    for (size_t l = 0; l < done && status == LG_EXIT_OK; l++) {
        const struct lg_level_result *r = &results[l];
        if (r->interrupted) {
            interrupted_error_rate(cfg, r);
            continue;
        }
        if (r->failed_fast) continue; /* the run's exit status 7 says it */
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
    return status;
}

/* Runs the levels in turn into results; returns how many ran, and sets
 * *status when one could not (late, or out of memory). */
static size_t run_levels(struct lg_levels *lv, struct lg_level_result *results,
                         struct lg_reqlog *log, int *status)
{
    const struct lg_config *cfg = lv->cfg;
    size_t done = 0;
    bool log_failure_said = false;
    for (size_t l = 0; l < cfg->n_levels && !lg_control_interrupted(lv->run) &&
                       !lg_control_failure(lv->run) && !lg_control_failed_fast(lv->run);
         l++) {
        enum lg_level_outcome out = lg_level_run(lv, (unsigned)l, &results[l]);
        if (out == LG_LEVEL_NO_MEMORY) {
            fprintf(stderr, "%s: out of memory while running level c%u\n", cfg->tool,
                    cfg->levels[l]);
            *status = LG_EXIT_FAILED;
            break;
        }
        if (out == LG_LEVEL_LATE) {
            char at[64];
            lg_format_wall(lg_level_start_at(cfg, (unsigned)l), at, sizeof(at));
            fprintf(stderr,
                    "%s: level c%u was to start at %s and more than --max-late has passed: "
                    "not run, so it cannot shift against the other shards\n",
                    cfg->tool, cfg->levels[l], at);
            *status = LG_EXIT_LATE;
            break;
        }
        if (out == LG_LEVEL_NOT_RUN) break;
        done = l + 1;
        level_notes(cfg, &results[l]);
        /* said when it happens (a long run goes on for a while); how many
         * records were lost is said at the end */
        struct lg_reqlog_loss loss;
        if (log && lg_reqlog_flush(log) < 0 && !log_failure_said &&
            lg_reqlog_loss(log, &loss) < 0) {
            fprintf(stderr, "%s: --log %s: %s: no more records are written\n", cfg->tool,
                    cfg->log_path, strerror(loss.err));
            log_failure_said = true;
        }
        if (!cfg->quiet || cfg->summary)
            lg_summary_level(stderr, &results[l], lv->drv, lv->n_classes, lg_error_name, cfg);
    }
    return done;
}

/* Where the run's results go: the document (stdout, or -o through a
 * temporary file), --meta likewise, and --log. */
struct outputs {
    struct lg_reqlog *log;
    struct lg_outfile doc, meta;
    uint64_t handoff_ns; /* how long a child may take to write stdout's rest */
    bool log_checked, log_lost;
    bool term_withheld; /* stdout is a terminal: no document (termdoc.h) */
};

/* Opens them before anything runs, so an unwritable path is a usage error,
 * not a lost result; memory (or a thread) that could not be had is status
 * 4. Returns the status to exit with, or LG_EXIT_OK. */
static int outputs_open(struct lg_run_ctx *run, const struct lg_config *cfg,
                        const struct lg_driver *drv, struct outputs *o)
{
    memset(o, 0, sizeof(*o));
    o->doc.fd = o->meta.fd = -1;
    if (lg_pipedoc_bound(cfg->tool, &o->handoff_ns) < 0) return LG_EXIT_USAGE;
    const char *what = "--log", *path = cfg->log_path;
    if (cfg->log_path && !(o->log = lg_reqlog_open(run, cfg->log_path, drv, lg_error_name)))
        goto fail;
    what = "--output";
    path = cfg->output_path;
    if (cfg->output_path && lg_outfile_open(&o->doc, cfg->output_path) < 0) goto fail;
    what = "--meta";
    path = cfg->meta_path;
    if (cfg->meta_path && lg_outfile_open(&o->meta, cfg->meta_path) < 0) goto fail;
    /* said before the run, not after it: whoever started a minute's run on
     * a terminal can stop it and keep the document with -o */
    if (!cfg->output_path) o->term_withheld = lg_termdoc_withheld(cfg->tool);
    return LG_EXIT_OK;
fail:;
    int err = errno;
    fprintf(stderr, "%s: %s %s: %s\n", cfg->tool, what, path, strerror(err));
    lg_outfile_abandon(&o->doc);
    if (o->log) lg_reqlog_close(o->log);
    /* EAGAIN: --log's writer thread could not be started */
    return err == ENOMEM || err == EAGAIN ? LG_EXIT_FAILED : LG_EXIT_USAGE;
}

/* Whether --log lost records (a write failed: a full disk): said on stderr
 * once, with how many of how many, once the last record is written. The
 * run's exit status is then 4: an output it was asked for is not whole. */
static bool outputs_log_lost(const struct lg_config *cfg, struct outputs *o)
{
    if (!o->log || o->log_checked) return o->log_lost;
    o->log_checked = true;
    lg_reqlog_flush(o->log);
    struct lg_reqlog_loss loss;
    if (lg_reqlog_loss(o->log, &loss) == 0) return false;
    o->log_lost = true;
    /* no write failed: a record's buffer could not be had, which failed
     * the run with its own line (lg_control_fail); one reason, not two */
    if (loss.err == 0) return true;
    fprintf(stderr,
            "%s: --log %s: %s: %llu of %llu records lost; the file holds the first %llu, each "
            "whole\n",
            cfg->tool, cfg->log_path, strerror(loss.err), (unsigned long long)loss.lost,
            (unsigned long long)(loss.lost + loss.kept), (unsigned long long)loss.kept);
    return true;
}

/* Writes the document (cut to --max-doc-bytes first), or on a terminal
 * nothing (termdoc.h); the exit status when that fails. */
static int outputs_write(const struct lg_config *cfg, struct outputs *o,
                         struct lg_level_result *results, size_t done)
{
    if (o->doc.fd < 0 && o->term_withheld) return LG_EXIT_OK;
    if (cfg->max_doc_bytes) {
        struct stats_rng rng;
        stats_rng_seed(&rng, cfg->seed + 31);
        size_t need;
        if (lg_results_fit(results, done, cfg->max_doc_bytes, &rng, stderr, cfg->tool, &need) < 0) {
            fprintf(stderr,
                    "%s: --max-doc-bytes %zu: the smallest document of this run takes %zu "
                    "bytes (its counts, per-second series and one sample of each latency); no "
                    "document\n",
                    cfg->tool, cfg->max_doc_bytes, need);
            return LG_EXIT_FAILED;
        }
    }
    int rc = o->doc.fd >= 0 ? lg_results_write(o->doc.fd, results, done, NULL)
                            : lg_pipedoc_write(results, done, cfg->tool, o->handoff_ns);
    if (rc == LG_PIPEDOC_INCOMPLETE) return LG_EXIT_FAILED; /* it said so */
    if (rc < 0 || (o->doc.fd >= 0 && lg_outfile_commit(&o->doc) < 0)) {
        fprintf(stderr, "%s: writing the document to %s failed: %s\n", cfg->tool,
                cfg->output_path ? cfg->output_path : "stdout", strerror(errno));
        return LG_EXIT_FAILED;
    }
    return LG_EXIT_OK;
}

/* Writes --meta, once the run's exit status is known (it records it); -1
 * (said on stderr) when it could not be written whole: there is then no file. */
static int outputs_write_meta(const struct lg_config *cfg, const struct lg_driver *drv,
                              struct outputs *o, const struct lg_level_result *results, size_t done,
                              const char *started_at, const struct lg_meta_section *meta_extra,
                              const struct lg_clock_ref *ref, const struct lg_fitness *fitness,
                              int status)
{
    if (o->meta.fd >= 0 && (lg_meta_write(o->meta.fd, cfg, drv, started_at, results, done,
                                          meta_extra, ref, fitness, status) < 0 ||
                            lg_outfile_commit(&o->meta) < 0)) {
        fprintf(stderr, "%s: --meta %s: %s\n", cfg->tool, cfg->meta_path, strerror(errno));
        return -1;
    }
    return 0;
}

static void outputs_close(const struct lg_config *cfg, struct outputs *o)
{
    lg_outfile_abandon(&o->doc); /* when nothing was committed */
    lg_outfile_abandon(&o->meta);
    if (!o->log) return;
    bool lost = outputs_log_lost(cfg, o); /* a run that failed before says it here */
    if (lg_reqlog_close(o->log) < 0 && !lost)
        fprintf(stderr, "%s: --log %s: %s\n", cfg->tool, cfg->log_path, strerror(errno));
}

/* lg_run with its run context. */
static int run_in(struct lg_run_ctx *run, const struct lg_config *cfg, const struct lg_driver *drv,
                  const struct lg_target *tgt, void *driver_ctx,
                  const struct lg_meta_section *meta_extra)
{
    struct lg_levels lv = {
        .run = run, .cfg = cfg, .drv = drv, .n_classes = LG_ERR__BASE_COUNT + drv->n_errors};
    struct outputs out;
    if (check_fd_limit(cfg) < 0) return LG_EXIT_USAGE;
    if (lg_preflight_before_run(&lv.run->fitness, cfg, drv, tgt) < 0) return LG_EXIT_UNFIT;
    int opened = outputs_open(run, cfg, drv, &out);
    if (opened != LG_EXIT_OK) return opened;
    signal(SIGPIPE, SIG_IGN);
    lg_evalloc_install(run, cfg->tool);
    if (lg_control_start(lv.run, cfg) < 0) {
        fprintf(stderr, "%s: cannot start the control thread: %s\n", cfg->tool, strerror(errno));
        outputs_close(cfg, &out);
        return LG_EXIT_FAILED;
    }
    char started_at[64];
    lg_meta_wallclock(started_at, sizeof(started_at));
    struct lg_clock_ref ref;
    if (cfg->clock_ref) {
        char why[128];
        if (lg_clock_ref_measure((const struct sockaddr *)&cfg->clock_ref_addr,
                                 cfg->clock_ref_addrlen, &ref, why, sizeof(why)) < 0) {
            fprintf(stderr, "%s: --clock-ref %s: %s\n", cfg->tool, cfg->clock_ref, why);
            lg_control_stop(lv.run);
            outputs_close(cfg, &out);
            return LG_EXIT_USAGE;
        }
        lg_set_clock_offset(lv.run, (int64_t)(ref.offset_s * 1e9));
    }

    lv.nw = cfg->threads ? cfg->threads : 1;
    lv.ws = calloc(lv.nw, sizeof(*lv.ws));
    stats_rng_seed(&lv.rng, cfg->seed + 17);
    struct lg_level_result *results = calloc(cfg->n_levels, sizeof(*results));
    uint8_t *rbufs = malloc((size_t)lv.nw * 65536);
    int status = LG_EXIT_FAILED;
    if (!lv.ws || !results || !rbufs) {
        fprintf(stderr, "%s: out of memory\n", cfg->tool);
        goto out;
    }
    if (workers_init(&lv, tgt, driver_ctx, out.log, rbufs) < 0) goto out;

    status = LG_EXIT_OK;
    size_t done = run_levels(&lv, results, out.log, &status);
    if (status == LG_EXIT_FAILED) goto out; /* said why; no document, even of earlier levels */
    if (lg_control_failure(lv.run)) {
        fprintf(stderr, "%s: %s; the run could not be carried out, no document\n", cfg->tool,
                lg_control_failure(lv.run));
        status = LG_EXIT_FAILED;
        goto out;
    }
    if (lv.sampled)
        fprintf(stderr,
                "%s: some metrics exceeded --max-samples %zu: the document holds a uniform "
                "random subset of their samples; counts are exact\n",
                cfg->tool, cfg->max_samples);
    if (done == 0) {
        if (status == LG_EXIT_OK) {
            fprintf(stderr, "%s: interrupted before the first level finished; no document\n",
                    cfg->tool);
            status = LG_EXIT_INTERRUPTED;
        }
        goto out;
    }
    outputs_log_lost(cfg, &out); /* said before the document's own failure, if any */
    int written = outputs_write(cfg, &out, results, done);
    if (written != LG_EXIT_OK) {
        status = written;
        goto out;
    }
    if (status == LG_EXIT_OK) status = run_status(cfg, results, done);
    if (lg_control_failed_fast(lv.run)) {
        /* the note above it said why */
        fprintf(stderr,
                "%s: --fail-fast ended the run at level c%u%s; the document holds what was "
                "measured\n",
                cfg->tool, results[done - 1].clients,
                done < cfg->n_levels ? ", and the levels after it were not run" : "");
        status = LG_EXIT_FAIL_FAST;
    }
    if (lg_control_interrupted(lv.run)) {
        fprintf(stderr, "%s: interrupted by signal %d: the document holds what was measured\n",
                cfg->tool, lg_control_interrupted(lv.run));
        status = LG_EXIT_INTERRUPTED;
    }
    /* an output asked for and not whole fails the run, whatever else it did */
    if (out.log_lost) status = LG_EXIT_FAILED;
    if (outputs_write_meta(cfg, drv, &out, results, done, started_at, meta_extra,
                           cfg->clock_ref ? &ref : NULL, &lv.run->fitness, status) < 0)
        status = LG_EXIT_FAILED;
out:
    lg_control_stop(lv.run);
    workers_free(lv.ws, lv.nw);
    if (results)
        for (size_t l = 0; l < cfg->n_levels; l++)
            lg_result_free(&results[l], lv.n_classes);
    outputs_close(cfg, &out);
    free(results);
    free(lv.ws);
    free(rbufs);
    return status;
}

int lg_run(const struct lg_config *cfg, const struct lg_driver *drv, const struct lg_target *tgt,
           void *driver_ctx, const struct lg_meta_section *meta_extra)
{
    if (lg_sources_fit_target(cfg, tgt) < 0) return LG_EXIT_USAGE;
    if (cfg->preflight) return lg_preflight_main(cfg, drv, tgt);
    struct lg_run_ctx run;
    lg_run_ctx_init(&run);
    int status = run_in(&run, cfg, drv, tgt, driver_ctx, meta_extra);
    lg_evalloc_forget(&run); /* its loops are gone; the context goes next */
    lg_run_ctx_free(&run);
    return status;
}
