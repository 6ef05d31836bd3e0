/* Memory running out before a run starts. See nomem.h. */
#include "loadgen/core/nomem.h"
#include "loadgen/engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char lg_no_memory[] = "out of memory";

const char *lg_errno_why(int err)
{
    return err == ENOMEM ? lg_no_memory : strerror(err);
}

void lg_out_of_memory(const char *tool, const char *doing)
{
    fprintf(stderr, "%s: out of memory %s\n", tool, doing);
    exit(LG_EXIT_FAILED);
}

void lg_cannot_run(const char *tool, const char *why)
{
    fprintf(stderr, "%s: %s\n", tool, why);
    exit(LG_EXIT_FAILED);
}
