/* The datagram transport: one connected UDP socket per client for the whole
 * level. A message goes out whole or waits whole: when the socket's send
 * buffer is full the datagram is queued, sent when the socket is writable,
 * and counted in send_blocked (pressure inside the generator, not the
 * server's fault). The kernel reports an ICMP error about an earlier
 * datagram on a later send or receive: the engine charges it to the query it
 * belongs to (lg_conn_peer_error) and the socket stays. */
#include "loadgen/core/internal.h"
#include "loadgen/watching/procfs.h"
#include "loadgen/transport/sockio.h"
#include "loadgen/transport/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* A queued datagram: this header, then its bytes. */
struct queued {
    uint32_t len;
    uint32_t slot; /* the request it carries, and that request's start number */
    uint32_t seq;
};

bool lg_udp_is_peer_error(int err)
{
    return err == ECONNREFUSED || err == EHOSTUNREACH || err == ENETUNREACH || err == EHOSTDOWN ||
           err == ENETDOWN;
}

int lg_udp_open(struct lg_client *c)
{
    const struct lg_target *t = c->tgt;
    int fd = socket(t->addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        lg_socket_failed(c, errno);
        return -1;
    }
    c->fd = fd;
    if (lg_source_bind(c, fd, false) < 0) return -1;
    if (connect(fd, (const struct sockaddr *)&t->addr, t->addrlen) < 0) {
        int err = errno;
        lg_conn_fail(c, err == ECONNREFUSED ? LG_ERR_CONNECT_REFUSED : LG_ERR_CONNECT,
                     strerror(err));
        return -1;
    }
    return 0;
}

static ssize_t udp_read(struct lg_client *c, uint8_t *buf, size_t len)
{
    for (;;) {
        ssize_t n = lg_recv(c->fd, buf, len, 0);
        if (n >= 0) return n; /* an empty datagram is a message too */
        int err = errno;
        if (err == EINTR) continue;
        if (err == EAGAIN || err == EWOULDBLOCK) return LG_IO_AGAIN;
        if (lg_udp_is_peer_error(err)) {
            lg_conn_peer_error(c, err);
            continue;
        }
        lg_conn_fail(c, LG_ERR_SOCKET, strerror(err));
        return LG_IO_ERROR;
    }
}

static bool udp_more(const struct lg_client *c, size_t n, size_t len)
{
    return false; /* one datagram per event: a further one is reported again */
}

/* One send(): 1 sent, 0 the socket is full (or keeps reporting errors), -1
 * failed. A pending ICMP error is reported by the send that follows it and
 * the datagram was not sent: the error is charged (on the send path the
 * engine only records the end, and settles it from the loop) and the send
 * tried again, a few times at most: errors that
 * keep coming (a flood of them) leave the datagram queued for the next
 * writable event, after the loop's other work. */
static int send_one(struct lg_client *c, const uint8_t *buf, size_t len)
{
    for (int tries = 0; tries < 4;) {
        ssize_t n = lg_send(c->fd, buf, len, MSG_NOSIGNAL);
        if (n == (ssize_t)len) return 1;
        int err = n < 0 ? errno : EMSGSIZE;
        if (err == EINTR) continue;
        if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) return 0;
        if (lg_udp_is_peer_error(err)) {
            lg_conn_peer_error(c, err);
            tries++;
            continue;
        }
        lg_conn_fail(c, LG_ERR_SEND, strerror(err));
        return -1;
    }
    return 0;
}

static int queue(struct lg_client *c, const uint8_t *buf, size_t len)
{
    struct lg_req *r = c->sending;
    struct queued q = {(uint32_t)len, r ? r->slot : UINT32_MAX, r ? r->seq : 0};
    if (lg_outq_append(c, &q, sizeof(q)) < 0 || lg_outq_append(c, buf, len) < 0) return LG_IO_ERROR;
    if (r) r->flags |= LG_REQ_QUEUED;
    c->w->store.counters[LG_C_SEND_BLOCKED]++;
    return LG_IO_WANT_WRITE;
}

static int udp_send(struct lg_client *c, const uint8_t *buf, size_t len)
{
    if (c->outq_len) return queue(c, buf, len); /* keep the order */
    int rc = send_one(c, buf, len);
    if (rc > 0) return LG_IO_DONE;
    if (rc < 0) return LG_IO_ERROR;
    return queue(c, buf, len);
}

static int udp_flush(struct lg_client *c)
{
    while (c->outq_off < c->outq_len) {
        struct queued q;
        memcpy(&q, c->outq + c->outq_off, sizeof(q));
        const uint8_t *msg = c->outq + c->outq_off + sizeof(q);
        struct lg_req *r = q.slot < c->w->cfg->slots ? &c->slots[q.slot] : NULL;
        /* a query that timed out while it waited is not sent any more */
        bool live = !r || ((r->flags & LG_REQ_QUEUED) && r->seq == q.seq);
        if (live) {
            int rc = send_one(c, msg, q.len);
            if (rc == 0) return LG_IO_WANT_WRITE;
            if (rc < 0) return LG_IO_ERROR;
            if (r) lg_req_departed(c, r);
        }
        c->outq_off += sizeof(q) + q.len;
    }
    c->outq_off = c->outq_len = 0;
    return LG_IO_DONE;
}

static void udp_close(struct lg_client *c) {}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Receive-queue drops of this worker's sockets: their inodes (fstat of a
 * socket gives the inode /proc/net/udp lists) against the drops column. */
bool lg_udp_dropped(struct lg_worker *w, uint64_t *count)
{
    uint64_t *inodes = malloc((w->n_clients ? w->n_clients : 1) * sizeof(*inodes));
    if (!inodes) return false;
    size_t n = 0;
    for (unsigned i = 0; i < w->n_clients; i++) {
        struct stat sb;
        if (w->clients[i].fd >= 0 && fstat(w->clients[i].fd, &sb) == 0 && S_ISSOCK(sb.st_mode))
            inodes[n++] = (uint64_t)sb.st_ino;
    }
    qsort(inodes, n, sizeof(*inodes), cmp_u64);
    char *buf = NULL;
    size_t cap = 0;
    bool any = false;
    uint64_t drops = 0;
    static const char *const tables[] = {"/proc/net/udp", "/proc/net/udp6"};
    for (int t = 0; t < 2; t++) {
        long len = lg_procfs_read(AT_FDCWD, tables[t], &buf, &cap);
        if (len < 0) continue;
        any = true;
        drops += lg_procfs_udp_drops(buf, (size_t)len, inodes, n);
    }
    free(buf);
    free(inodes);
    *count = drops;
    return any;
}

const struct lg_transport lg_transport_udp = {
    .name = "udp",
    .open = lg_udp_open,
    .read = udp_read,
    .more = udp_more,
    .send = udp_send,
    .flush = udp_flush,
    .close = udp_close,
    .dropped = lg_udp_dropped,
    .blocked_counter = "send_blocked",
};
