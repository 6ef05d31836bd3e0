/* libev's allocator: memory running out inside an event loop fails the run
 * (lg_control_fail: exit status 4, no document) instead of libev's abort. */
#ifndef LOADGEN_EVALLOC_H
#define LOADGEN_EVALLOC_H

/* Installs it, before the first loop is made; `tool` names the program in
 * the one message printed if even the reserve runs out. */
void lg_evalloc_install(const char *tool);

#endif
