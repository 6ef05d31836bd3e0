/* The document when stdout is a terminal: not written there. Thousands of
 * lines of raw samples would scroll the summary away and are no use to read;
 * one line on stderr says how to keep them (-o FILE or a redirect). A pipe
 * or a file gets the document as always. */
#ifndef LOADGEN_TERMDOC_H
#define LOADGEN_TERMDOC_H

#include <stdbool.h>

/* True, after the line on stderr, when stdout is a terminal: the caller
 * writes no document and keeps the run's exit status. Asked once, before
 * the run, so the line comes while the run can still be stopped. */
bool lg_termdoc_withheld(const char *tool);

#endif
