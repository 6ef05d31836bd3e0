/* --source: the local addresses a run's connections and UDP sockets come
 * from, as ADDR[,ADDR...] where each may be a CIDR block (A.B.C.D/N,
 * IPv6/N): the parser, the check that this machine has each address, and
 * the option's handler. The bind at connect time is transport/source.h. */
#ifndef LOADGEN_OPTIONS_SOURCES_H
#define LOADGEN_OPTIONS_SOURCES_H

#include <stddef.h>

#include "loadgen/options/options.h"

/* The most addresses --source may give, blocks expanded: 1024 addresses of
 * some 28,000 ephemeral ports each hold far more connections than one
 * process has descriptors (fs.nr_open is 1,048,576 at most by default). */
#define LG_SOURCES_MAX 1024

/* Parses the list into a new array (*out, the caller's to free; *n its
 * length). A block's network address (and an IPv4 block's broadcast one)
 * is no host's and is left out, in a /30 or wider (IPv6: /126 or wider). 0; -1 with `why` saying
 * what is wrong; LG_NO_MEMORY. */
int lg_parse_sources(const char *s, struct lg_source **out, size_t *n, char *why, size_t len);
/* 0 when the machine can bind every address; -1 with the index of the
 * first it cannot and the errno (EADDRNOTAVAIL: not this machine's). */
int lg_sources_check_local(const struct lg_source *s, size_t n, size_t *bad, int *err);
/* The address as text, without a port. */
void lg_source_text(const struct lg_source *s, char *buf, size_t len);
/* --source's handler: parses and checks into cfg, or a usage error naming
 * the address. */
void lg_source_option(struct lg_config *cfg, const char *arg);

#endif
