/* machines.h — were two documents measured on the same machine? Each
 * generator's --meta descriptor carries a "machine" member; documents whose
 * machines differ in CPU model, physical cores, logical CPUs or kernel hold
 * numbers that must not be compared or pooled as if from one machine.
 * loadstats compare and merge warn about them. */
#ifndef LOADGEN_STATS_MACHINES_H
#define LOADGEN_STATS_MACHINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct stats_machine {
    bool known; /* the descriptor has a machine member */
    char cpu_model[128], kernel[128], hostname[256];
    double physical_cores, logical_cpus; /* -1 when absent */
};

/* Reads the machine member of a descriptor's text. Returns 0 (known false
 * when there is none), or -1 when the text is not JSON. */
int stats_machine_parse(const char *text, size_t len, struct stats_machine *out);

/* The same, of a descriptor already parsed. */
struct stats_json;
void stats_machine_take(const struct stats_json *descriptor, struct stats_machine *out);

/* How b differs from a ("CPU model 'X' against 'Y', kernel ..."), or an
 * empty string when they are the same machine as far as numbers go. */
void stats_machine_difference(const struct stats_machine *a, const struct stats_machine *b,
                              char *buf, size_t len);

/* For each document after the first whose descriptor (A.json -> A.meta.json)
 * shows another machine than the first document's, one line on err:
 * "loadstats COMMAND: warning: ...". Documents without a readable
 * descriptor or machine member ("-" too) are passed over. Returns the
 * number of lines. */
size_t stats_machines_warn(FILE *err, const char *command, const char *const *documents, size_t n);

/* The same search, each difference handed to `each` (the document's index,
 * the first document's, and what differs); returns how many. */
size_t stats_machines_differ(const char *const *documents, size_t n,
                             void (*each)(void *ctx, size_t document, size_t first,
                                          const char *difference),
                             void *ctx);

/* The warning's sentence for one difference: the document, the first
 * document, what differs. */
#define STATS_MACHINES_PHRASE                                                                      \
    "%s and %s were measured on different machines (%s): their numbers do not compare"

#endif
