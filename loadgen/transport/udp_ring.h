/* What the io_uring datagram transport (udp_ring.c) shares with its wake-up
 * probe (udp_ring_probe.c): how a ring of the transport's kind is made. */
#ifndef LOADGEN_UDP_RING_H
#define LOADGEN_UDP_RING_H

#include <liburing.h>

/* A ring set up as the transport's, with an eventfd registered (*efd), made
 * disabled for the thread that will submit to enable: 0, or the negative
 * errno with nothing left open. */
int lg_udp_ring_init(struct io_uring *ring, unsigned entries, unsigned cq, int *efd);
/* Enables a ring lg_udp_ring_init made, for the calling thread: 0 or -errno. */
int lg_udp_ring_enable(struct io_uring *ring);

#endif
