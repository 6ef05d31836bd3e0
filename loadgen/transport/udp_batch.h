/* Datagrams in batches on a connected UDP socket: several received with one
 * recvmmsg, several sent with one sendmsg using UDP GSO (UDP_SEGMENT: the
 * kernel cuts one buffer into datagrams of a fixed size), or with sendmmsg
 * where the kernel has no GSO. The QUIC transport's packet I/O. */
#ifndef LOADGEN_UDP_BATCH_H
#define LOADGEN_UDP_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LG_UDP_BATCH_MAX 64 /* datagrams per call (the kernel's UDP GSO limit too) */

/* Receives up to n datagrams into consecutive slots of slot_len bytes of buf;
 * len[i] is each one's length, or 0 for one that did not fit its slot (cut
 * short: to be dropped). Returns how many (0: none waiting), or -1 with
 * errno. `batch` false: one recv per call (for measuring what batching buys). */
int lg_udp_recv_batch(int fd, uint8_t *buf, size_t slot_len, unsigned n, size_t *len, bool batch);

/* Sends buf as datagrams of seg bytes each, the last possibly shorter, in as
 * few system calls as the kernel allows (*gso: whether UDP_SEGMENT may be
 * used; cleared when the kernel refuses it; batch false: one datagram per
 * call). Returns the bytes sent (whole datagrams; fewer than len when the
 * socket filled up), or -1 with errno when nothing could be sent. */
ssize_t lg_udp_send_batch(int fd, const uint8_t *buf, size_t len, size_t seg, bool *gso,
                          bool batch);

/* Whether this kernel takes UDP_SEGMENT on a UDP socket of this family. */
bool lg_udp_gso_available(int family);

#endif
