/* --meta FILE: a JSON descriptor of the run (tool and library versions, the
 * command line, target, wall-clock start, host, CPU count, and per level the
 * figures a reader needs to interpret the document). */
#ifndef LOADGEN_META_H
#define LOADGEN_META_H

#include <stddef.h>

struct lg_config;
struct lg_driver;
struct lg_level_result;
struct lg_meta_section;
struct lg_clock_ref;
struct lg_fitness;

void lg_meta_wallclock(char *buf, size_t len);
/* Writes the descriptor to fd (opened by the caller before the run, so an
 * unwritable path is a usage error, not a lost result), with the run's exit
 * status. */
int lg_meta_write(int fd, const struct lg_config *cfg, const struct lg_driver *drv,
                  const char *started_at, const struct lg_level_result *levels, size_t n_levels,
                  const struct lg_meta_section *extra, const struct lg_clock_ref *ref,
                  const struct lg_fitness *fitness, int exit_status);

#endif
