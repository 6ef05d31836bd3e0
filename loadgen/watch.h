/* The process-tree sampler behind --watch: once a second of each level, a
 * watched process and all its descendants (found afresh in /proc each time)
 * give CPU, RSS, PSS, USS and open descriptors, for the tree and per command
 * name. Runs on worker 0's tick, never on the request path. */
#ifndef LOADGEN_WATCH_H
#define LOADGEN_WATCH_H

struct lg_config;
struct lg_level_result;

/* --watch NAME=PID or NAME=pidfile:PATH: checks the value and that the
 * process exists, and adds it to cfg. Exits with status 2 otherwise. */
void lg_watch_option(struct lg_config *cfg, const char *arg);
void lg_watch_free_specs(struct lg_config *cfg);

/* Level start: resolves pid files and takes the CPU baseline. */
void lg_watch_level_begin(const struct lg_config *cfg, unsigned clients);
/* One sample of every watched tree (the second that just ended). */
void lg_watch_sample(void);
/* Adds watch.<NAME>.<metric> and watch.<NAME>.<comm>.<metric> to the level. */
int lg_watch_collect(struct lg_level_result *res);
void lg_watch_level_end(void);

#endif
