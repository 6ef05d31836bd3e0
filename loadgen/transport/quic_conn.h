/* quic_conn.h — one QUIC connection as the three files of the QUIC transport
 * share it: quic.c (set-up and TLS), quic_packets.c (the packet path) and
 * quic_close.c (timers, failures and close). Internal to them. */
#ifndef LOADGEN_QUIC_CONN_H
#define LOADGEN_QUIC_CONN_H

#include "loadgen/transport/quic.h"
#include "loadgen/core/blockpool.h"
#include "loadgen/core/internal.h"

#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* Receive slots: the worker's 64 KiB read buffer holds 32 datagrams of up
 * to 2048 bytes, and our transport parameters tell the server not to send
 * larger ones. */
#define RX_SLOT 2048
#define RX_BATCHES 4 /* batches per read event before other clients get their turn */
#define RX_QUEUE (1 << 20)
/* Packets we send are at most this large (ngtcp2's default, and the most
 * its path MTU discovery tries), and up to TX_PKTS go out in one call. */
#define TX_MTU 1452
#define TX_PKTS 44 /* 44 * 1452 fits one UDP GSO send (64 KiB) */
#define STREAM_WINDOW (16u << 20)
#define CONN_WINDOW ((1u << 30) - 1)
#define PEER_UNI_STREAMS 8 /* the server's control and QPACK streams, and room for more */

/* A batch of packets waiting for the socket (in the engine's output queue):
 * this header, then the packets, each seg bytes but the last. */
struct queued {
    uint32_t len;
    uint32_t seg;
};

struct lg_quic {
    ngtcp2_crypto_conn_ref ref; /* GnuTLS's session pointer leads here */
    ngtcp2_conn *conn;
    gnutls_session_t tls;
    struct lg_client *c;
    const struct lg_quic_config *cfg;
    struct sockaddr_storage local, remote;
    ngtcp2_path path;
    /* what our CONNECTION_CLOSE says when the connection ends */
    ngtcp2_connection_close_error close_error;
    uint64_t timer_at;   /* when the engine's timer is set for; UINT64_MAX: not set */
    uint64_t last_ts;    /* timestamps given to ngtcp2 never go backwards */
    uint32_t offered[8]; /* versions a version negotiation packet offered */
    unsigned n_offered;
    bool handshake_done;  /* the client finished its side of the handshake */
    bool app_started;     /* the application opened its streams */
    bool heard;           /* a packet came from the server */
    bool stateless_reset; /* the server said it has no state for this connection */
    bool silent;          /* the connection ended without a word to send (idle, draining) */
    bool gso;             /* UDP_SEGMENT may be used on this socket */
    /* ngtcp2 allocates per packet and per stream: from a pool of the
     * connection's own, recycled by size (ngtcp2 keeps the table's address) */
    struct lg_block_pool pool;
    ngtcp2_mem mem;
};

static inline struct lg_quic *quic_of(struct lg_client *c)
{
    return c->quic;
}

static inline uint64_t timestamp(struct lg_quic *q)
{
    uint64_t now = lg_event_now(q->c->w);
    if (now < q->last_ts) now = q->last_ts;
    q->last_ts = now;
    return now;
}

static inline bool in_setup(const struct lg_client *c)
{
    return c->state == LG_CONN_SETUP;
}

enum input { INPUT_OK, INPUT_FAILED, INPUT_CLOSED };

/* quic_packets.c: reads every datagram waiting (up to RX_BATCHES batches) into ngtcp2. */
enum input lg_quic_read_packets(struct lg_client *c, struct lg_quic *q);

/* quic_close.c: the failures, each with a class and a sentence */
void lg_quic_fail_icmp(struct lg_client *c, int err);
bool lg_quic_is_icmp_error(int err);
int lg_quic_peer_closed(struct lg_client *c, struct lg_quic *q);
void lg_quic_fail_lib(struct lg_client *c, struct lg_quic *q, int rv, const char *what);
/* quic_close.c: the timer, the close and the connection's memory */
void lg_quic_arm_timer(struct lg_client *c, struct lg_quic *q);
int lg_quic_on_timer(struct lg_client *c);
void lg_quic_close(struct lg_client *c);
void lg_quic_free(struct lg_quic *q);

#endif
