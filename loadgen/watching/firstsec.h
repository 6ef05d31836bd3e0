/* The first second of a level: each event loop publishes what its clients
 * completed and failed in it; once all have, the control thread says on
 * stderr when nothing succeeded and something failed, so a target that
 * refuses every connection is named then and not at the end of a long
 * level, and with --fail-fast it ends the level and the run (exit 7). */
#ifndef LOADGEN_FIRSTSEC_H
#define LOADGEN_FIRSTSEC_H

#include <stdbool.h>

struct lg_worker;
struct lg_run_ctx;

/* The loop's part, once per level: at its first whole second, or at its
 * end when the level ended sooner (whole: false). Loop thread; it wakes the
 * control thread. */
void lg_firstsec_publish(struct lg_worker *w, bool whole);

/* Control thread, with the control mutex held and the level's workers
 * known: once every loop has published, judges the level's first second
 * (once per level). Returns true when --fail-fast is to end the run. */
bool lg_firstsec_check(struct lg_run_ctx *run);

#endif
