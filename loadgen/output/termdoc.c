/* The document withheld from a terminal. See termdoc.h. */
#include "loadgen/output/termdoc.h"

#include <stdio.h>
#include <unistd.h>

bool lg_termdoc_withheld(const char *tool)
{
    if (!isatty(STDOUT_FILENO)) return false;
    fprintf(stderr,
            "%s: stdout is a terminal, so the JSON document is not printed; keep it with -o FILE "
            "or > FILE\n",
            tool);
    return true;
}
