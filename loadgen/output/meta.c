/* The --meta descriptor. See meta.h. */
#include "loadgen/output/meta.h"
#include "loadgen/core/clockref.h"
#include "loadgen/engine.h"
#include "loadgen/core/internal.h"
#include "loadgen/output/jsonout.h"
#include "loadgen/output/metasrc.h"
#include "loadgen/preflight/preflight.h"
#include "loadgen/output/results.h"
#include "loadgen/core/start.h"
#include "loadgen/transport/transport.h"

#include <ev.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void lg_meta_wallclock(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

/* A wall-clock time as an RFC 3339 string, or null when there is none. */
static void write_wall(struct lg_jsonout *o, uint64_t wall_ns)
{
    if (!wall_ns) {
        lg_json_lit(o, "null");
        return;
    }
    char buf[64];
    lg_format_wall(wall_ns, buf, sizeof(buf));
    lg_json_str(o, buf);
}

/* The host clock as the kernel sees it, and against --clock-ref's server. */
static void write_clock(struct lg_jsonout *o, const struct lg_config *cfg,
                        const struct lg_clock_ref *ref)
{
    struct lg_clock_state clk;
    lg_clock_state(&clk);
    lg_json_lit(o, "{\"synchronized\": ");
    lg_json_lit(o, clk.synchronized ? "true" : "false");
    lg_json_lit(o, ", \"est_error_us\": ");
    lg_json_i64(o, clk.est_error_us);
    lg_json_lit(o, ", \"max_error_us\": ");
    lg_json_i64(o, clk.max_error_us);
    if (ref) {
        /* this host's clock against --clock-ref's NTP server */
        lg_json_lit(o, ", \"ref\": ");
        lg_json_str(o, cfg->clock_ref);
        lg_json_lit(o, ", \"offset_s\": ");
        lg_json_double(o, ref->offset_s);
        lg_json_lit(o, ", \"rtt_s\": ");
        lg_json_double(o, ref->rtt_s);
    }
    lg_json_lit(o, "}");
}

/* Each error class that occurred: the first reason recorded for it, or what
 * the class means (the summary's line), so a report can say what happened. */
static void write_error_reasons(struct lg_jsonout *o, const struct lg_driver *drv,
                                const struct lg_level_result *r)
{
    lg_json_lit(o, ", \"error_reasons\": {");
    bool first = true;
    unsigned n_classes = LG_ERR__BASE_COUNT + drv->n_errors;
    for (unsigned cls = 1; r->error_detail && cls < n_classes; cls++) {
        if (!r->error_detail[cls]) continue;
        lg_json_lit(o, first ? "" : ", ");
        lg_json_str(o, lg_error_name(drv, cls));
        lg_json_lit(o, ": ");
        lg_json_str(o, r->error_detail[cls]);
        first = false;
    }
    lg_json_lit(o, "}");
}

/* The connections established per protocol the driver names (httpload:
 * h1, h2, h3), those that spoke none left out: how --http auto's ALPN, or a
 * proxy in between, decided. Nothing for a driver that names none. */
static void write_protocols(struct lg_jsonout *o, const struct lg_level_result *r)
{
    if (r->n_protocols == 0) return;
    lg_json_lit(o, ", \"protocols\": {");
    bool first = true;
    for (unsigned k = 0; k < r->n_protocols; k++) {
        if (!r->protocols[k]) continue;
        lg_json_lit(o, first ? "" : ", ");
        lg_json_str(o, r->protocol_names[k]);
        lg_json_lit(o, ": ");
        lg_json_u64(o, r->protocols[k]);
        first = false;
    }
    lg_json_lit(o, "}");
}

/* What stderr's "the generator limited this measurement" is made of, so that
 * a harness reading --meta sees it: null when no loop ran the level. */
static void write_self_watch(struct lg_jsonout *o, const struct lg_self_watch *sw)
{
    lg_json_lit(o, ", \"self_watch\": ");
    if (!sw->measured) {
        lg_json_lit(o, "null");
        return;
    }
    lg_json_lit(o, "{\"limited\": ");
    lg_json_lit(o, sw->limited ? "true" : "false");
    lg_json_lit(o, ", \"busiest_loop\": ");
    lg_json_u64(o, sw->thread);
    lg_json_lit(o, ", \"loops\": ");
    lg_json_u64(o, sw->threads);
    /* shares to 0.01%, lateness to the microsecond: the rest is noise */
    lg_json_lit(o, ", \"on_cpu\": ");
    lg_json_double(o, round(sw->on_cpu * 1e4) / 1e4);
    lg_json_lit(o, ", \"waiting_for_cpu\": ");
    if (sw->waiting < 0)
        lg_json_lit(o, "null");
    else
        lg_json_double(o, round(sw->waiting * 1e4) / 1e4);
    lg_json_lit(o, ", \"tick_lag_p99_ms\": ");
    lg_json_double(o, round(sw->tick_lag_p99_ms * 1e3) / 1e3);
    lg_json_lit(o, ", \"tick_lag_max_ms\": ");
    lg_json_double(o, round(sw->tick_lag_max_ms * 1e3) / 1e3);
    /* a loop asleep while work it handed the kernel waited (wakewatch.h);
     * null: its transport cannot tell */
    lg_json_lit(o, ", \"asleep_on_work\": ");
    if (sw->asleep_on_work < 0)
        lg_json_lit(o, "null");
    else
        lg_json_double(o, round(sw->asleep_on_work * 1e4) / 1e4);
    lg_json_lit(o, "}");
}

/* Per level: its clients and share, when it started, its rate, what was cut. */
static void write_levels(struct lg_jsonout *o, const struct lg_config *cfg,
                         const struct lg_driver *drv, const struct lg_level_result *levels,
                         size_t n_levels)
{
    for (size_t l = 0; l < n_levels; l++) {
        const struct lg_level_result *r = &levels[l];
        lg_json_lit(o, l ? ",\n    " : "\n    ");
        lg_json_lit(o, "{\"clients\": ");
        lg_json_u64(o, r->clients);
        lg_json_lit(o, ", \"shard_clients\": ");
        lg_json_u64(o, r->shard_clients);
        lg_json_lit(o, ", \"requested_start\": ");
        write_wall(o, r->requested_start_ns);
        lg_json_lit(o, ", \"actual_start\": ");
        write_wall(o, r->actual_start_ns);
        lg_json_lit(o, ", \"start_lag_s\": ");
        if (r->requested_start_ns)
            lg_json_double(o, ((double)r->actual_start_ns - (double)r->requested_start_ns) / 1e9);
        else
            lg_json_lit(o, "null");
        lg_json_lit(o, ", \"seconds\": ");
        lg_json_double(o, r->seconds);
        if (cfg->rate > 0) {
            /* this process's part of the schedule, so that achieved_rate (its
             * attempts per second) reads against what it was asked for; a
             * shard also states the whole run's rate */
            lg_json_lit(o, ", \"requested_rate\": ");
            lg_json_double(o, lg_shard_rate(cfg->rate, r->clients, r->shard_clients));
            if (cfg->shard_count > 1) {
                lg_json_lit(o, ", \"run_requested_rate\": ");
                lg_json_double(o, cfg->rate);
            }
            lg_json_lit(o, ", \"achieved_rate\": ");
            lg_json_double(o, r->seconds > 0 ? (double)r->attempts / r->seconds : 0);
        }
        /* cut short before its deadline, by a signal or by --fail-fast: what
         * a merge of shards must know either way */
        lg_json_lit(o, ", \"interrupted\": ");
        lg_json_lit(o, r->interrupted || (r->failed_fast && r->stopped) ? "true" : "false");
        lg_json_lit(o, ", \"fail_fast\": ");
        lg_json_lit(o, r->failed_fast ? "true" : "false");
        if (r->transport) {
            lg_json_lit(o, ", \"transport\": ");
            lg_json_str(o, r->transport);
        }
        lg_meta_write_ramp(o, cfg, r);
        write_protocols(o, r);
        write_self_watch(o, &r->self_watch);
        if (r->peer_limited) {
            /* the server's SETTINGS_MAX_CONCURRENT_STREAMS capped the slots */
            lg_json_lit(o, ", \"server_max_streams\": ");
            lg_json_u64(o, r->peer_limit);
        }
        write_error_reasons(o, drv, r);
        lg_json_lit(o, ", \"sampled\": [");
        bool first = true;
        for (size_t i = 0; i < r->n; i++) {
            if (r->m[i].seen > r->m[i].n) {
                lg_json_lit(o, first ? "" : ", ");
                lg_json_str(o, r->m[i].name);
                first = false;
            }
        }
        /* the true count of each sampled metric, so a merge can weigh it */
        lg_json_lit(o, "], \"seen\": {");
        first = true;
        for (size_t i = 0; i < r->n; i++) {
            if (r->m[i].seen > r->m[i].n) {
                lg_json_lit(o, first ? "" : ", ");
                lg_json_str(o, r->m[i].name);
                lg_json_lit(o, ": ");
                lg_json_u64(o, r->m[i].seen);
                first = false;
            }
        }
        lg_json_lit(o, "}}");
    }
}

/* The tool's own section. */
static void write_extra(struct lg_jsonout *o, const struct lg_meta_section *extra)
{
    if (extra) {
        lg_json_lit(o, ",\n  ");
        lg_json_str(o, extra->name);
        lg_json_lit(o, ": {");
        for (size_t i = 0; i < extra->n_fields; i++) {
            const struct lg_meta_field *f = &extra->fields[i];
            lg_json_lit(o, i ? ", " : "");
            lg_json_str(o, f->key);
            lg_json_lit(o, ": ");
            if (f->type == LG_META_STR)
                lg_json_str(o, f->str);
            else if (f->type == LG_META_NUM)
                lg_json_double(o, f->num);
            else
                lg_json_lit(o, f->flag ? "true" : "false");
        }
        lg_json_lit(o, "}");
    }
}

int lg_meta_write(int fd, const struct lg_config *cfg, const struct lg_driver *drv,
                  const char *started_at, const struct lg_level_result *levels, size_t n_levels,
                  const struct lg_meta_section *extra, const struct lg_clock_ref *ref,
                  const struct lg_fitness *fitness, int exit_status)
{
    struct lg_jsonout o;
    if (lg_jsonout_open(&o, fd, 65536) < 0) return -1;
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    char libev[32];
    snprintf(libev, sizeof(libev), "%d.%d", ev_version_major(), ev_version_minor());

    lg_json_lit(&o, "{\n  \"tool\": ");
    lg_json_str(&o, cfg->tool);
    lg_json_lit(&o, ",\n  \"version\": ");
    lg_json_str(&o, PACKAGE_VERSION);
    lg_json_lit(&o, ",\n  \"driver\": ");
    lg_json_str(&o, drv->name);
    lg_json_lit(&o, ",\n  \"libraries\": {\"libev\": ");
    lg_json_str(&o, libev);
    lg_json_lit(&o, ", \"openssl\": ");
    lg_json_str(&o, lg_tls_version());
    lg_json_lit(&o, "},\n  \"argv\": [");
    for (int i = 0; i < cfg->argc; i++) {
        if (i) lg_json_lit(&o, ", ");
        lg_json_str(&o, cfg->argv[i]);
    }
    lg_json_lit(&o, "],\n  \"exit_status\": ");
    lg_json_i64(&o, exit_status);
    lg_json_lit(&o, ",\n  \"target\": ");
    lg_json_str(&o, cfg->target_desc ? cfg->target_desc : "");
    lg_json_lit(&o, ",\n  \"started_at\": ");
    lg_json_str(&o, started_at);
    lg_json_lit(&o, ",\n  \"host\": ");
    lg_json_str(&o, host);
    lg_json_lit(&o, ",\n  \"run_id\": ");
    if (cfg->run_id)
        lg_json_str(&o, cfg->run_id);
    else
        lg_json_lit(&o, "null");
    lg_json_lit(&o, ",\n  \"shard\": {\"index\": ");
    lg_json_u64(&o, cfg->shard_index);
    lg_json_lit(&o, ", \"count\": ");
    lg_json_u64(&o, cfg->shard_count);
    lg_json_lit(&o, "},\n  \"clock\": ");
    write_clock(&o, cfg, ref);
    lg_json_lit(&o, ",\n  \"start_at\": ");
    write_wall(&o, cfg->start_at_ns);
    lg_json_lit(&o, ",\n  \"cpus\": ");
    lg_json_i64(&o, sysconf(_SC_NPROCESSORS_ONLN));
    lg_json_lit(&o, ",\n  \"options\": {\"threads\": ");
    lg_json_u64(&o, cfg->threads);
    lg_json_lit(&o, ", \"duration_s\": ");
    if (cfg->duration_ns == LG_NO_DEADLINE_NS) /* -n alone ends the levels */
        lg_json_lit(&o, "null");
    else
        lg_json_double(&o, (double)cfg->duration_ns / 1e9);
    lg_json_lit(&o, ", \"requests_per_level\": ");
    if (cfg->level_requests)
        lg_json_u64(&o, cfg->level_requests);
    else
        lg_json_lit(&o, "null");
    lg_json_lit(&o, ", \"timeout_s\": ");
    lg_json_double(&o, (double)cfg->timeout_ns / 1e9);
    lg_json_lit(&o, ", \"rate\": ");
    lg_json_double(&o, cfg->rate);
    lg_json_lit(&o, ", \"slots_per_client\": ");
    lg_json_u64(&o, cfg->slots);
    lg_json_lit(&o, ", \"max_samples\": ");
    lg_json_u64(&o, cfg->max_samples);
    lg_json_lit(&o, ", \"max_error_rate\": ");
    lg_json_double(&o, cfg->max_error_rate);
    lg_json_lit(&o, ", \"conn_requests\": ");
    lg_json_u64(&o, cfg->conn_requests);
    lg_json_lit(&o, ", \"ramp_s\": ");
    lg_json_double(&o, (double)cfg->ramp_ns / 1e9);
    lg_json_lit(&o, "}");
    lg_meta_write_sources(&o, cfg);
    lg_json_lit(&o, ",\n  \"levels\": [");
    write_levels(&o, cfg, drv, levels, n_levels);
    lg_json_lit(&o, "\n  ]");
    write_extra(&o, extra);
    lg_preflight_write_meta(&o, fitness);
    lg_json_lit(&o, "\n}\n");
    return lg_jsonout_close(&o);
}
