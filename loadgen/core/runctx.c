/* The run context. See runctx.h. */
#include "loadgen/core/runctx.h"

#include <string.h>

void lg_run_ctx_init(struct lg_run_ctx *run)
{
    memset(run, 0, sizeof(*run));
    lg_control_init(&run->control);
    run->watch.run = run;
}

void lg_run_ctx_free(struct lg_run_ctx *run)
{
    lg_watch_free(&run->watch);
    lg_control_destroy(&run->control);
}
