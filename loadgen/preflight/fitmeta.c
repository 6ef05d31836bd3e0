/* The "machine" and "preflight" members of --meta: what the machine is, and
 * what the checks of this run found. See preflight.h. Two descriptors whose
 * machines differ (CPU model, cores, kernel) hold numbers that must not be
 * compared; loadstats compare and merge read these members to say so. */
#include "loadgen/output/jsonout.h"
#include "loadgen/preflight/preflight.h"

#include <stdint.h>

static void write_limit(struct lg_jsonout *o, uint64_t v)
{
    if (v == UINT64_MAX)
        lg_json_lit(o, "null"); /* unlimited */
    else
        lg_json_u64(o, v);
}

static void write_tristate(struct lg_jsonout *o, int v)
{
    lg_json_lit(o, v < 0 ? "null" : v ? "true" : "false");
}

static void write_machine(struct lg_jsonout *o, const struct lg_fitness *f)
{
    const struct lg_machine *m = &f->machine;
    char cpus[256];
    lg_machine_format_cpulist(&m->allowed, cpus, sizeof(cpus));
    lg_json_lit(o, ",\n  \"machine\": {\"hostname\": ");
    lg_json_str(o, m->hostname);
    lg_json_lit(o, ", \"kernel\": ");
    lg_json_str(o, m->kernel);
    lg_json_lit(o, ", \"cpu_model\": ");
    lg_json_str(o, m->cpu_model);
    lg_json_lit(o, ", \"physical_cores\": ");
    lg_json_u64(o, m->physical_cores);
    lg_json_lit(o, ", \"logical_cpus\": ");
    lg_json_u64(o, m->logical_cpus);
    lg_json_lit(o, ", \"smt\": ");
    write_tristate(o, m->smt);
    lg_json_lit(o, ", \"cpus_allowed\": ");
    lg_json_str(o, cpus);
    lg_json_lit(o, ", \"governor\": ");
    if (m->governor[0])
        lg_json_str(o, m->governor);
    else
        lg_json_lit(o, "null");
    lg_json_lit(o, ", \"boost\": ");
    write_tristate(o, m->boost);
    lg_json_lit(o, ",\n    \"memory_bytes\": ");
    lg_json_u64(o, m->mem_total);
    lg_json_lit(o, ", \"memory_available_bytes\": ");
    lg_json_u64(o, lg_machine_memory_left(m));
    lg_json_lit(o, ", \"fd_limit\": {\"soft\": ");
    write_limit(o, m->fd_soft);
    lg_json_lit(o, ", \"hard\": ");
    write_limit(o, m->fd_hard);
    lg_json_lit(o, "}, \"port_range\": [");
    lg_json_u64(o, m->port_lo);
    lg_json_lit(o, ", ");
    lg_json_u64(o, m->port_hi);
    lg_json_lit(o, "], \"tcp_tw_reuse\": ");
    lg_json_i64(o, m->tw_reuse);
    lg_json_lit(o, ",\n    \"timer_floor\": {\"p50_ms\": ");
    lg_json_double(o, (double)f->timer.p50_ns / 1e6);
    lg_json_lit(o, ", \"p99_ms\": ");
    lg_json_double(o, (double)f->timer.p99_ns / 1e6);
    lg_json_lit(o, ", \"wakes\": ");
    lg_json_u64(o, f->timer.wakes);
    lg_json_lit(o, "}}");
}

static void write_preflight(struct lg_jsonout *o, const struct lg_fitness *f)
{
    lg_json_lit(o, ",\n  \"preflight\": {\"fit\": ");
    lg_json_lit(o, f->n_unfit ? "false" : "true");
    lg_json_lit(o, ", \"took_ms\": ");
    lg_json_double(o, f->took_s * 1e3);
    if (f->churn_probed) {
        lg_json_lit(o, ", \"churn_probe\": {\"datagram\": ");
        lg_json_lit(o, f->churn.datagram ? "true" : "false");
        if (f->churn.ok) {
            lg_json_lit(o, ", \"connections\": ");
            lg_json_u64(o, f->churn.conns);
            lg_json_lit(o, ", \"cpu_us\": ");
            lg_json_double(o, f->churn.cpu_us);
            lg_json_lit(o, ", \"per_loop_per_s\": ");
            lg_json_double(o, f->churn.conns_per_s);
        } else {
            lg_json_lit(o, ", \"error\": ");
            lg_json_str(o, f->churn.error);
            lg_json_lit(o, ", \"per_loop_per_s\": ");
            lg_json_u64(o, LG_CHURN_FALLBACK_PER_S);
        }
        lg_json_lit(o, "}");
    }
    lg_json_lit(o, ", \"checks\": [");
    for (size_t i = 0; i < f->n_checks; i++) {
        const struct lg_check *c = &f->checks[i];
        lg_json_lit(o, i ? ",\n    " : "\n    ");
        lg_json_lit(o, "{\"check\": ");
        lg_json_str(o, c->name);
        lg_json_lit(o, ", \"result\": ");
        lg_json_str(o, lg_verdict_name(c->verdict));
        lg_json_lit(o, ", \"found\": ");
        lg_json_str(o, c->found);
        lg_json_lit(o, ", \"needed\": ");
        lg_json_str(o, c->needed);
        lg_json_lit(o, ", \"todo\": ");
        lg_json_str(o, c->todo);
        lg_json_lit(o, "}");
    }
    lg_json_lit(o, "]}");
}

void lg_preflight_write_meta(struct lg_jsonout *o, const struct lg_fitness *f)
{
    if (!f) return;
    write_machine(o, f);
    write_preflight(o, f);
}
