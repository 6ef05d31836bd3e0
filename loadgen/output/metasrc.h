/* The parts of --meta that say where the load came from and when each
 * client began: --source's addresses and --ramp's moments. */
#ifndef LOADGEN_METASRC_H
#define LOADGEN_METASRC_H

struct lg_jsonout;
struct lg_config;
struct lg_level_result;

/* ",\n  \"sources\": {...}" or, without --source, ",\n  \"sources\": null". */
void lg_meta_write_sources(struct lg_jsonout *o, const struct lg_config *cfg);
/* Within a level's object: ", \"ramp\": {...}" when --ramp was given. */
void lg_meta_write_ramp(struct lg_jsonout *o, const struct lg_config *cfg,
                        const struct lg_level_result *r);

#endif
