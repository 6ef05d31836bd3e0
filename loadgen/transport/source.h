/* The bind of a new socket to the next --source address, in turn per event
 * loop, before the socket connects: the kernel then picks the port per
 * source address, so each address brings its own range of ports. */
#ifndef LOADGEN_TRANSPORT_SOURCE_H
#define LOADGEN_TRANSPORT_SOURCE_H

#include <stdbool.h>

struct lg_client;
struct lg_config;
struct lg_target;

/* Binds fd, c's new socket, to its worker's next source address (nothing
 * without --source). A stream socket asks for IP_BIND_ADDRESS_NO_PORT
 * first: its port is chosen at connect, per source and destination, not
 * at bind among every port of the address. 0, or -1 with c's failure set. */
int lg_source_bind(struct lg_client *c, int fd, bool stream);
/* Whether the sources suit the target (its family; a Unix socket takes
 * none): 0, or -1 after a one-line usage message on stderr. */
int lg_sources_fit_target(const struct lg_config *cfg, const struct lg_target *tgt);

#endif
