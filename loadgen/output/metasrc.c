/* --meta's record of where the load came from (--source: as given, and the
 * addresses it made, blocks expanded) and when each client began (--ramp).
 * The ramp is written as its rule, not a list: client i of a level began
 * i x step_s after the level's actual_start, and a list would hold 100,000
 * numbers of a 100,000-client level that the rule gives exactly. */
#include "loadgen/output/metasrc.h"
#include "loadgen/core/ramp.h"
#include "loadgen/engine.h"
#include "loadgen/options/sources.h"
#include "loadgen/output/jsonout.h"
#include "loadgen/output/results.h"

#include <netinet/in.h>

void lg_meta_write_sources(struct lg_jsonout *o, const struct lg_config *cfg)
{
    lg_json_lit(o, ",\n  \"sources\": ");
    if (!cfg->n_sources) {
        lg_json_lit(o, "null");
        return;
    }
    lg_json_lit(o, "{\"given\": ");
    lg_json_str(o, cfg->sources_text ? cfg->sources_text : "");
    lg_json_lit(o, ", \"addresses\": [");
    for (size_t i = 0; i < cfg->n_sources; i++) {
        char text[INET6_ADDRSTRLEN];
        lg_source_text(&cfg->sources[i], text, sizeof(text));
        lg_json_lit(o, i ? ", " : "");
        lg_json_str(o, text);
    }
    lg_json_lit(o, "]}");
}

void lg_meta_write_ramp(struct lg_jsonout *o, const struct lg_config *cfg,
                        const struct lg_level_result *r)
{
    if (!cfg->ramp_ns) return;
    lg_json_lit(o, ", \"ramp\": {\"ramp_s\": ");
    lg_json_double(o, (double)cfg->ramp_ns / 1e9);
    /* client i (of the whole level, 0-based) began at actual_start +
     * i x step_s; the last at last_begin_s */
    lg_json_lit(o, ", \"step_s\": ");
    lg_json_double(o, r->clients ? (double)cfg->ramp_ns / 1e9 / r->clients : 0);
    lg_json_lit(o, ", \"last_begin_s\": ");
    lg_json_double(
        o,
        (double)lg_ramp_offset_ns(cfg->ramp_ns, r->clients ? r->clients - 1 : 0, r->clients) / 1e9);
    lg_json_lit(o, "}");
}
