/* A QUIC connection's packet path: packets out (ngtcp2 writes them from the
 * application's stream data, batched into UDP GSO sends, what the socket
 * does not take queued), packets in (read in batches with recvmmsg), the
 * transport table the engine calls, and the stream calls of the
 * application. See quic.c. */
#include "loadgen/transport/quic_conn.h"
#include "loadgen/core/internal.h"
#include "loadgen/transport/udp_batch.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

_Static_assert(sizeof(struct lg_quic_vec) == sizeof(ngtcp2_vec) &&
                   offsetof(struct lg_quic_vec, len) == offsetof(ngtcp2_vec, len),
               "lg_quic_vec has ngtcp2_vec's layout");

static _Thread_local uint8_t tx_buf[TX_PKTS * TX_MTU];

/* --- packets out ------------------------------------------------------- */

/* Sends a batch of packets (seg bytes each but the last), or queues what the
 * socket does not take. 0, or -1 after lg_conn_fail. */
static int send_packets(struct lg_client *c, struct lg_quic *q, const uint8_t *buf, size_t len,
                        size_t seg)
{
    if (!c->outq_len) {
        for (;;) {
            ssize_t n = lg_udp_send_batch(c->fd, buf, len, seg, &q->gso, q->cfg->batch);
            if (n >= 0) {
                buf += n;
                len -= (size_t)n;
                if (!len) return 0;
                break; /* the socket filled up */
            }
            int err = errno;
            if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) break;
            if (lg_quic_is_icmp_error(err)) {
                lg_quic_fail_icmp(c, err);
            } else {
                lg_conn_fail(c, LG_ERR_SEND, strerror(err));
                q->silent = true;
            }
            return -1;
        }
        c->w->store.counters[LG_C_SEND_BLOCKED]++;
    }
    struct queued h = {(uint32_t)len, (uint32_t)seg};
    if (lg_outq_append(c, &h, sizeof(h)) < 0 || lg_outq_append(c, buf, len) < 0) return -1;
    if (!in_setup(c)) return lg_conn_output_state(c, LG_IO_WANT_WRITE);
    return 0;
}

/* The application's next stream data, when it has started and the
 * connection's flow control lets anything through. */
static long pull(struct lg_client *c, struct lg_quic *q, int64_t *id, bool *fin, ngtcp2_vec *v,
                 size_t n)
{
    *id = -1;
    *fin = false;
    if (!q->app_started || !ngtcp2_conn_get_max_data_left(q->conn)) return 0;
    return q->cfg->app->pull(c, id, fin, (struct lg_quic_vec *)v, n);
}

int lg_quic_write(struct lg_client *c)
{
    struct lg_quic *q = quic_of(c);
    if (!q || q->silent) return 0;
    if (c->outq_len) return 0; /* the socket is full: on_writable comes back here */
    const struct lg_quic_app *app = q->cfg->app;
    uint64_t ts = timestamp(q);
    size_t mtu = ngtcp2_conn_get_path_max_tx_udp_payload_size(q->conn);
    size_t quantum = ngtcp2_conn_get_send_quantum(q->conn) / mtu;
    size_t max_pkts = quantum < 1 ? 1 : quantum > TX_PKTS ? TX_PKTS : quantum;
    size_t off = 0, seg = 0, pkts = 0;
    ngtcp2_vec vec[16];
    for (;;) {
        int64_t id;
        bool fin;
        long nv = pull(c, q, &id, &fin, vec, 16);
        if (nv < 0) return -1;
        uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE | (fin ? NGTCP2_WRITE_STREAM_FLAG_FIN : 0);
        ngtcp2_ssize taken = -1;
        ngtcp2_ssize n = ngtcp2_conn_writev_stream(q->conn, NULL, NULL, tx_buf + off, mtu, &taken,
                                                   flags, id, vec, (size_t)nv, ts);
        if (n < 0) {
            switch (n) {
            case NGTCP2_ERR_STREAM_DATA_BLOCKED:
                app->blocked(c, id);
                continue;
            case NGTCP2_ERR_STREAM_SHUT_WR:
                app->write_shut(c, id);
                continue;
            case NGTCP2_ERR_WRITE_MORE:
                if (app->wrote(c, id, (size_t)taken) < 0) return -1;
                continue;
            default:
                lg_quic_fail_lib(c, q, (int)n, "write");
                return -1;
            }
        }
        if (taken >= 0 && id >= 0 && app->wrote(c, id, (size_t)taken) < 0) return -1;
        if (n == 0) break; /* nothing more now, or the congestion window is full */
        /* one GSO send carries packets of one size, the last may be shorter */
        if (pkts && (size_t)n > seg) {
            if (send_packets(c, q, tx_buf, off, seg) < 0) return -1;
            memmove(tx_buf, tx_buf + off, (size_t)n);
            off = pkts = 0;
        }
        if (!pkts) seg = (size_t)n;
        off += (size_t)n;
        pkts++;
        bool short_pkt = (size_t)n < seg;
        if (short_pkt || pkts == max_pkts) {
            bool quantum_sent = pkts == max_pkts;
            if (send_packets(c, q, tx_buf, off, seg) < 0) return -1;
            off = pkts = 0;
            /* a send quantum went out: pacing decides when the next does */
            if (quantum_sent || c->outq_len) break;
        }
    }
    if (pkts && send_packets(c, q, tx_buf, off, seg) < 0) return -1;
    ngtcp2_conn_update_pkt_tx_time(q->conn, ts);
    lg_quic_arm_timer(c, q);
    return 0;
}

/* --- packets in ------------------------------------------------------------ */

/* Reads every datagram waiting (up to RX_BATCHES batches) into ngtcp2. */
enum input lg_quic_read_packets(struct lg_client *c, struct lg_quic *q)
{
    struct lg_worker *w = c->w;
    unsigned slots = (unsigned)(w->rbuf_len / RX_SLOT);
    size_t len[LG_UDP_BATCH_MAX];
    for (int b = 0; b < RX_BATCHES; b++) {
        int n = lg_udp_recv_batch(c->fd, w->rbuf, RX_SLOT, slots, len, q->cfg->batch);
        if (n < 0) {
            int err = errno;
            if (lg_quic_is_icmp_error(err))
                lg_quic_fail_icmp(c, err);
            else
                lg_conn_fail(c, LG_ERR_RESET, strerror(err));
            q->silent = true;
            return INPUT_FAILED;
        }
        if (n == 0) break;
        w->event_ns = 0; /* what these packets complete, they complete now */
        uint64_t ts = timestamp(q);
        for (int i = 0; i < n; i++) {
            if (!len[i]) continue; /* larger than we allow: cut short, dropped */
            q->heard = true;
            int rv = ngtcp2_conn_read_pkt(q->conn, &q->path, NULL, w->rbuf + (size_t)i * RX_SLOT,
                                          len[i], ts);
            if (rv == 0) continue;
            if (rv == NGTCP2_ERR_DRAINING)
                return lg_quic_peer_closed(c, q) ? INPUT_CLOSED : INPUT_FAILED;
            lg_quic_fail_lib(c, q, rv, "packet");
            return INPUT_FAILED;
        }
        if ((unsigned)n < slots) break; /* drained */
    }
    return INPUT_OK;
}

/* --- the transport ------------------------------------------------------ */

static int quic_open(struct lg_client *c)
{
    c->quic = NULL;
    if (lg_transport_udp.open(c) < 0) return -1;
    /* A server sends a large body faster than one loop may read it: a
     * receive queue of RX_QUEUE bytes (capped by net.core.rmem_max, and
     * memory only while full) instead of the default ~200 KiB. */
    int rcvbuf = RX_QUEUE;
    setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    return 0;
}

static ssize_t quic_read(struct lg_client *c, uint8_t *buf, size_t len)
{
    struct lg_quic *q = quic_of(c);
    switch (lg_quic_read_packets(c, q)) {
    case INPUT_FAILED:
        return LG_IO_ERROR;
    case INPUT_CLOSED:
        return LG_IO_EOF;
    default:
        return LG_IO_AGAIN; /* the stream data went to the application */
    }
}

static bool quic_more(const struct lg_client *c, size_t n, size_t len)
{
    return false; /* a read takes everything waiting, or leaves it for epoll */
}

static int quic_send(struct lg_client *c, const uint8_t *buf, size_t len)
{
    lg_conn_fail(c, LG_ERR_SEND, "a QUIC connection carries streams, not bytes");
    return LG_IO_ERROR;
}

/* The batches the socket did not take, in order. */
static int quic_flush(struct lg_client *c)
{
    struct lg_quic *q = quic_of(c);
    while (c->outq_off < c->outq_len) {
        struct queued h;
        memcpy(&h, c->outq + c->outq_off, sizeof(h));
        const uint8_t *p = c->outq + c->outq_off + sizeof(h);
        ssize_t n = lg_udp_send_batch(c->fd, p, h.len, h.seg, &q->gso, q->cfg->batch);
        if (n < 0) {
            int err = errno;
            if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) return LG_IO_WANT_WRITE;
            if (lg_quic_is_icmp_error(err))
                lg_quic_fail_icmp(c, err);
            else
                lg_conn_fail(c, LG_ERR_SEND, strerror(err));
            return LG_IO_ERROR;
        }
        if ((size_t)n < h.len) { /* the rest of this batch waits in place */
            h.len -= (uint32_t)n;
            c->outq_off += (size_t)n;
            memcpy(c->outq + c->outq_off, &h, sizeof(h));
            return LG_IO_WANT_WRITE;
        }
        c->outq_off += sizeof(h) + h.len;
    }
    c->outq_off = c->outq_len = 0;
    return LG_IO_DONE;
}

const struct lg_transport lg_transport_quic = {
    .name = "quic",
    .open = quic_open,
    .read = quic_read,
    .more = quic_more,
    .send = quic_send,
    .flush = quic_flush,
    .close = lg_quic_close,
    .dropped = lg_udp_dropped,
    .blocked_counter = "send_blocked",
    .on_timer = lg_quic_on_timer,
};

/* --- stream calls -------------------------------------------------------- */

int lg_quic_open_bidi(struct lg_client *c, int64_t *stream_id)
{
    int rv = ngtcp2_conn_open_bidi_stream(quic_of(c)->conn, stream_id, NULL);
    if (rv == NGTCP2_ERR_STREAM_ID_BLOCKED) return LG_QUIC_BLOCKED;
    if (rv != 0) {
        lg_conn_fail(c, LG_ERR_RESET, ngtcp2_strerror(rv));
        return -1;
    }
    return 0;
}

int lg_quic_open_uni(struct lg_client *c, int64_t *stream_id)
{
    int rv = ngtcp2_conn_open_uni_stream(quic_of(c)->conn, stream_id, NULL);
    if (rv == NGTCP2_ERR_STREAM_ID_BLOCKED) return LG_QUIC_BLOCKED;
    if (rv != 0) {
        lg_conn_fail(c, LG_ERR_RESET, ngtcp2_strerror(rv));
        return -1;
    }
    return 0;
}

uint64_t lg_quic_uni_streams_left(struct lg_client *c)
{
    return ngtcp2_conn_get_streams_uni_left(quic_of(c)->conn);
}

uint64_t lg_quic_bidi_streams_limit(struct lg_client *c)
{
    const ngtcp2_transport_params *p = ngtcp2_conn_get_remote_transport_params(quic_of(c)->conn);
    return p ? p->initial_max_streams_bidi : 0;
}

void lg_quic_consumed(struct lg_client *c, int64_t stream_id, size_t n)
{
    struct lg_quic *q = quic_of(c);
    ngtcp2_conn_extend_max_stream_offset(q->conn, stream_id, n);
    ngtcp2_conn_extend_max_offset(q->conn, n);
}

void lg_quic_more_peer_uni_streams(struct lg_client *c)
{
    ngtcp2_conn_extend_max_streams_uni(quic_of(c)->conn, 1);
}

static int stream_call(struct lg_client *c, int rv)
{
    /* a stream that is already gone needs no stopping */
    if (rv == 0 || rv == NGTCP2_ERR_STREAM_NOT_FOUND) return 0;
    lg_conn_fail(c, LG_ERR_RESET, ngtcp2_strerror(rv));
    return -1;
}

int lg_quic_shutdown_write(struct lg_client *c, int64_t stream_id, uint64_t code)
{
    return stream_call(c, ngtcp2_conn_shutdown_stream_write(quic_of(c)->conn, stream_id, code));
}

int lg_quic_shutdown_read(struct lg_client *c, int64_t stream_id, uint64_t code)
{
    return stream_call(c, ngtcp2_conn_shutdown_stream_read(quic_of(c)->conn, stream_id, code));
}

int lg_quic_shutdown(struct lg_client *c, int64_t stream_id, uint64_t code)
{
    return stream_call(c, ngtcp2_conn_shutdown_stream(quic_of(c)->conn, stream_id, code));
}

void lg_quic_set_app_error(struct lg_client *c, uint64_t code)
{
    struct lg_quic *q = quic_of(c);
    if (q) ngtcp2_connection_close_error_set_application_error(&q->close_error, code, NULL, 0);
}
