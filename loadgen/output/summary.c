/* Per-level summary on stderr. See summary.h. */
#include "loadgen/output/summary.h"
#include "loadgen/engine.h"
#include "loadgen/core/internal.h"
#include "loadgen/output/bytesize.h"
#include "loadgen/output/results.h"
#include "loadgen/core/start.h"
#include "stats/math/cpuwork.h"
#include "stats/math/nsrank.h"
#include "stats/math/stats.h"

#include <math.h>
#include <string.h>

static void latency_row(FILE *out, const struct lg_level_result *r, const char *name)
{
    const struct lg_metric *m = lg_result_find(r, name);
    /* every row is one of the engine's series, in nanoseconds */
    if (!m || m->n == 0 || !m->ns) return;
    static const double qs[] = {0, 0.5, 0.9, 0.99, 0.999, 1};
    double p[6], mean, stdev;
    /* counted, not copied and selected: the summary must not cost more than
     * the run */
    if (stats_percentiles_ns(m->ns, m->n, qs, 6, p) < 0) return;
    stats_moments_ns(m->ns, m->n, &mean, &stdev);
    fprintf(out, "  %-18s %9zu %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n", name, m->n, mean,
            stdev, p[0], p[1], p[2], p[3], p[4], p[5]);
}

static double count_of(const struct lg_level_result *r, const char *name)
{
    const struct lg_metric *m = lg_result_find(r, name);
    return m && m->n ? lg_metric_value(m, 0) : 0;
}

/* The protocols the level's connections spoke: " (all h2)", or
 * " (h1 3, h2 61)" when they differ (a proxy that answers some connections
 * itself, ALPN that chose differently); nothing when the driver names none. */
static void protocols(FILE *out, const struct lg_level_result *r)
{
    unsigned spoken = 0, last = 0;
    for (unsigned k = 0; k < r->n_protocols; k++)
        if (r->protocols[k]) {
            spoken++;
            last = k;
        }
    if (spoken == 1) fprintf(out, " (all %s)", r->protocol_names[last]);
    if (spoken < 2) return;
    const char *sep = " (";
    for (unsigned k = 0; k < r->n_protocols; k++) {
        if (!r->protocols[k]) continue;
        fprintf(out, "%s%s %llu", sep, r->protocol_names[k], (unsigned long long)r->protocols[k]);
        sep = ", ";
    }
    fputc(')', out);
}

/* How the level's bytes moved: connections, or a datagram driver's sockets
 * (UDP has no connection to establish: a socket is opened, or reopened). */
static void transport_line(FILE *out, const struct lg_level_result *r, const struct lg_driver *drv)
{
    char received[32];
    lg_format_bytes(count_of(r, "bytes_received"), received, sizeof(received));
    if (drv->datagram)
        fprintf(out, "  sockets %.0f opened of %.0f attempted, reopened %.0f, ",
                count_of(r, "connections"), count_of(r, "connect_attempts"),
                count_of(r, "reconnects"));
    else {
        fprintf(out, "  connections %.0f established of %.0f attempted", count_of(r, "connections"),
                count_of(r, "connect_attempts"));
        protocols(out, r);
        fprintf(out, ", reconnects %.0f, ", count_of(r, "reconnects"));
        if (lg_result_find(r, "origin_switches"))
            fprintf(out, "origin switches %.0f, ", count_of(r, "origin_switches"));
    }
    if (lg_result_find(r, "tls_resumed"))
        fprintf(out, "TLS sessions resumed %.0f, ", count_of(r, "tls_resumed"));
    fprintf(out, "%s received%s\n", received,
            r->interrupted                 ? " (interrupted)"
            : r->failed_fast && r->stopped ? " (cut short by --fail-fast)"
                                           : "");
}

static double largest(const struct lg_metric *m)
{
    double most = 0;
    for (size_t i = 0; m && i < m->n; i++)
        if (lg_metric_value(m, i) > most) most = lg_metric_value(m, i);
    return most;
}

/* One line per --watch tree: its CPU (the mean of its per-second CPU
 * seconds, as top shows it), its memory at its peak, and the requests the
 * level completed per CPU second the tree consumed (loadstats summary's
 * figure, from the same two series). */
static void watch_lines(FILE *out, const struct lg_level_result *r, const struct lg_config *cfg)
{
    const struct lg_metric *rps = lg_result_find(r, "requests_per_second");
    for (size_t i = 0; i < cfg->n_watches; i++) {
        const char *name = cfg->watches[i].name;
        char key[160], rss[32], pss[32];
        snprintf(key, sizeof(key), "watch.%s.cpu_s", name);
        const struct lg_metric *cpu = lg_result_find(r, key);
        if (!cpu || cpu->n == 0 || !cpu->v) continue; /* the tree was gone all along */
        double cores = stats_mean(cpu->v, cpu->n);
        fprintf(out, "  watch %s: %.0f%% CPU", name, cores * 100);
        snprintf(key, sizeof(key), "watch.%s.rss_bytes", name);
        const struct lg_metric *m = lg_result_find(r, key);
        if (m && m->n) {
            lg_format_bytes(largest(m), rss, sizeof(rss));
            fprintf(out, ", peak RSS %s", rss);
        }
        snprintf(key, sizeof(key), "watch.%s.pss_bytes", name);
        m = lg_result_find(r, key);
        if (m && m->n) {
            lg_format_bytes(largest(m), pss, sizeof(pss));
            fprintf(out, ", peak PSS %s", pss);
        }
        double per_cpu = rps && rps->n && rps->v
                             ? stats_requests_per_cpu_second(stats_mean(rps->v, rps->n), cores)
                             : NAN;
        if (isfinite(per_cpu)) fprintf(out, "; %.0f requests per CPU second", per_cpu);
        fputc('\n', out);
    }
}

void lg_summary_level(FILE *out, const struct lg_level_result *r, const struct lg_driver *drv,
                      unsigned n_classes, lg_error_namer name, const struct lg_config *cfg)
{
    double secs = r->seconds > 0 ? r->seconds : 1e-9;
    char shard[64] = "", rate[32];
    if (cfg->shard_count > 1)
        snprintf(shard, sizeof(shard), " (shard %u/%u: %u clients)", cfg->shard_index,
                 cfg->shard_count, r->shard_clients);
    lg_format_bytes(count_of(r, "bytes_received") / secs, rate, sizeof(rate));
    /* what a wrk user looks for first: requests per second, then the bytes';
     * an interrupted level's unfinished requests are what the signal cut off */
    fprintf(out,
            "%s: level c%u%s: %.1f requests/s, %s/s received; %llu requests in %.2fs, %llu "
            "errors, %llu unfinished%s",
            cfg->tool, r->clients, shard, (double)r->requests / secs, rate,
            (unsigned long long)r->requests, r->seconds, (unsigned long long)r->errors,
            (unsigned long long)r->unfinished,
            !r->unfinished                 ? ""
            : r->interrupted               ? " (cut off by the interrupt)"
            : r->failed_fast && r->stopped ? " (cut off by --fail-fast)"
                                           : "");
    if (cfg->rate > 0) /* a shard is asked for its clients' share of the rate */
        fprintf(out, "; rate %.1f/s of %.1f/s requested", (double)r->attempts / secs,
                lg_shard_rate(cfg->rate, r->clients, r->shard_clients));
    fputc('\n', out);
    transport_line(out, r, drv);
    if (r->unsent)
        fprintf(out,
                "  %llu of %llu scheduled requests were never sent: the target or the "
                "connections could not keep up with the rate; more clients (-c) or a lower rate\n",
                (unsigned long long)r->unsent, (unsigned long long)r->scheduled);
    fprintf(out, "  %-18s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "ms", "n", "mean", "stdev", "min",
            "p50", "p90", "p99", "p99.9", "max");
    static const char *const rows[] = {"latency_cold_ms",  "latency_warm_ms",  "connect_ms",
                                       "proxy_connect_ms", "tls_handshake_ms", "quic_handshake_ms",
                                       "ttfb_ms",          "send_lag_ms"};
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        latency_row(out, r, rows[i]);
    for (unsigned cls = 1; cls < n_classes; cls++) {
        char key[96];
        snprintf(key, sizeof(key), "errors.%s", name(drv, cls));
        double n = count_of(r, key);
        if (n <= 0) continue;
        const char *hint = lg_error_hint(drv, cls);
        fprintf(out, "  errors.%-14s %9.0f  %s%s%s%s\n", name(drv, cls), n,
                r->error_detail && r->error_detail[cls] ? r->error_detail[cls] : "",
                hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
    }
    for (unsigned k = 0; k < drv->n_counters; k++) {
        double n = count_of(r, drv->counter_names[k]);
        if (n > 0) fprintf(out, "  %-21s %9.0f\n", drv->counter_names[k], n);
    }
    watch_lines(out, r, cfg);
}
