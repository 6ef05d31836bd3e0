/* The one probe --preflight sends to the target: a connection (connect
 * only, no request), or for a datagram driver one datagram the driver gives
 * and the first answer to it. Reported with its time, never more than one. */
#ifndef LOADGEN_PROBE_H
#define LOADGEN_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lg_target;

struct lg_probe {
    bool ran;            /* false: nothing was sent (a datagram driver gave no datagram) */
    bool ok;             /* connected, or answered */
    bool stopped;        /* stop_fd became readable first: nothing to report */
    double seconds;      /* the connect, or the datagram's round trip */
    size_t answer_bytes; /* datagram: the answer's size */
    bool datagram;       /* one datagram and its answer, not a connection */
    char what[320];      /* what happened, for the report */
    char error[64];      /* why it failed, in a few words ("Connection refused") */
};

/* Connects to (or sends `msg` to, when datagram) tgt's address, waiting up
 * to timeout_ns, or until stop_fd (-1: none) is readable; fills out in every
 * case. */
void lg_probe_target(const struct lg_target *tgt, bool datagram, const void *msg, size_t len,
                     uint64_t timeout_ns, int stop_fd, struct lg_probe *out);

/* The address as "127.0.0.1:8080", "[::1]:53" or a Unix socket's path. */
void lg_probe_format_addr(const struct lg_target *tgt, char *buf, size_t len);

#endif
