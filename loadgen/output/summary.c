/* Per-level summary on stderr. See summary.h. */
#include "loadgen/output/summary.h"
#include "loadgen/engine.h"
#include "loadgen/core/internal.h"
#include "loadgen/output/results.h"
#include "loadgen/core/start.h"
#include "stats/nsrank.h"

#include <string.h>

static void latency_row(FILE *out, const struct lg_level_result *r, const char *name)
{
    const struct lg_metric *m = lg_result_find(r, name);
    /* every row is one of the engine's series, in nanoseconds */
    if (!m || m->n == 0 || !m->ns) return;
    static const double qs[] = {0, 0.5, 0.9, 0.99, 0.999, 1};
    double p[6];
    /* counted, not copied and selected: the summary must not cost more than
     * the run */
    if (stats_percentiles_ns(m->ns, m->n, qs, 6, p) < 0) return;
    fprintf(out, "  %-18s %9zu %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n", name, m->n, p[0], p[1], p[2],
            p[3], p[4], p[5]);
}

static double count_of(const struct lg_level_result *r, const char *name)
{
    const struct lg_metric *m = lg_result_find(r, name);
    return m && m->n ? lg_metric_value(m, 0) : 0;
}

void lg_summary_level(FILE *out, const struct lg_level_result *r, const struct lg_driver *drv,
                      unsigned n_classes, lg_error_namer name, const struct lg_config *cfg)
{
    double secs = r->seconds > 0 ? r->seconds : 1e-9;
    char shard[64] = "";
    if (cfg->shard_count > 1)
        snprintf(shard, sizeof(shard), " (shard %u/%u: %u clients)", cfg->shard_index,
                 cfg->shard_count, r->shard_clients);
    /* an interrupted level's unfinished requests are what the signal cut off */
    fprintf(out, "%s: level c%u%s: %llu requests in %.2fs (%.1f/s), %llu errors, %llu unfinished%s",
            cfg->tool, r->clients, shard, (unsigned long long)r->requests, r->seconds,
            (double)r->requests / secs, (unsigned long long)r->errors,
            (unsigned long long)r->unfinished,
            !r->unfinished                 ? ""
            : r->interrupted               ? " (cut off by the interrupt)"
            : r->failed_fast && r->stopped ? " (cut off by --fail-fast)"
                                           : "");
    if (cfg->rate > 0) /* a shard is asked for its clients' share of the rate */
        fprintf(out, "; rate %.1f/s of %.1f/s requested", (double)r->attempts / secs,
                lg_shard_rate(cfg->rate, r->clients, r->shard_clients));
    fprintf(out, "\n  connections %.0f established of %.0f attempted, reconnects %.0f, ",
            count_of(r, "connections"), count_of(r, "connect_attempts"), count_of(r, "reconnects"));
    if (lg_result_find(r, "tls_resumed"))
        fprintf(out, "TLS sessions resumed %.0f, ", count_of(r, "tls_resumed"));
    fprintf(out, "%.0f bytes received%s\n", count_of(r, "bytes_received"),
            r->interrupted                 ? " (interrupted)"
            : r->failed_fast && r->stopped ? " (cut short by --fail-fast)"
                                           : "");
    if (r->unsent)
        fprintf(out,
                "  %llu of %llu scheduled requests were never sent: the target or the "
                "connections could not keep up with the rate; more clients (-c) or a lower rate\n",
                (unsigned long long)r->unsent, (unsigned long long)r->scheduled);
    fprintf(out, "  %-18s %9s %9s %9s %9s %9s %9s %9s\n", "ms", "n", "min", "p50", "p90", "p99",
            "p99.9", "max");
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
}
