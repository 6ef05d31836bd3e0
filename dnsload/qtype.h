/* DNS query types by mnemonic (A, AAAA, HTTPS, ...) or RFC 3597 form
 * (TYPE65), both ways, from one table (dnsperf's qtype.c). */
#ifndef DNSLOAD_QTYPE_H
#define DNSLOAD_QTYPE_H

#include <stddef.h>
#include <stdint.h>

/* Parses a type, case-insensitively: a mnemonic or TYPEnnn (0..65535).
 * Returns 0, or -1 when the text names no type. */
int dns_qtype_parse(const char *s, uint16_t *type);
/* The mnemonic of a type, or TYPEnnn written into buf (at least 12 bytes). */
const char *dns_qtype_name(uint16_t type, char *buf, size_t buflen);

#endif
