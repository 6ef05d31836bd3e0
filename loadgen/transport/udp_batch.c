/* Datagrams in batches. See udp_batch.h. */
#include "loadgen/transport/udp_batch.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

int lg_udp_recv_batch(int fd, uint8_t *buf, size_t slot_len, unsigned n, size_t *len, bool batch)
{
    if (n > LG_UDP_BATCH_MAX) n = LG_UDP_BATCH_MAX;
    if (!batch || n == 1) {
        for (;;) {
            ssize_t r = recv(fd, buf, slot_len, MSG_TRUNC);
            if (r >= 0) {
                len[0] = (size_t)r <= slot_len ? (size_t)r : 0;
                return 1;
            }
            if (errno == EINTR) continue;
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        }
    }
    struct mmsghdr msgs[LG_UDP_BATCH_MAX];
    struct iovec iov[LG_UDP_BATCH_MAX];
    memset(msgs, 0, n * sizeof(msgs[0]));
    for (unsigned i = 0; i < n; i++) {
        iov[i].iov_base = buf + (size_t)i * slot_len;
        iov[i].iov_len = slot_len;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    for (;;) {
        int got = recvmmsg(fd, msgs, n, 0, NULL);
        if (got >= 0) {
            for (int i = 0; i < got; i++)
                len[i] = msgs[i].msg_hdr.msg_flags & MSG_TRUNC ? 0 : msgs[i].msg_len;
            return got;
        }
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    }
}

/* One sendmsg carrying the whole buffer, cut by the kernel into seg-byte
 * datagrams. */
static ssize_t send_gso(int fd, const uint8_t *buf, size_t len, size_t seg)
{
    struct iovec iov = {(void *)buf, len};
    union {
        char buf[CMSG_SPACE(sizeof(uint16_t))];
        struct cmsghdr align;
    } ctl;
    /* the control buffer is CMSG_SPACE long, its data 2 bytes: the kernel
     * is handed the padding too, which must not be stack garbage */
    memset(&ctl, 0, sizeof(ctl));
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    msg.msg_control = ctl.buf;
    msg.msg_controllen = sizeof(ctl.buf);
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_UDP;
    cm->cmsg_type = UDP_SEGMENT;
    cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
    uint16_t s = (uint16_t)seg;
    memcpy(CMSG_DATA(cm), &s, sizeof(s));
    for (;;) {
        ssize_t r = sendmsg(fd, &msg, MSG_NOSIGNAL);
        if (r >= 0 || errno != EINTR) return r;
    }
}

/* sendmmsg, one datagram per message: what is left without GSO (or one
 * send per datagram when not batching). */
static ssize_t send_each(int fd, const uint8_t *buf, size_t len, size_t seg, bool batch)
{
    unsigned most = batch ? LG_UDP_BATCH_MAX : 1;
    struct mmsghdr msgs[LG_UDP_BATCH_MAX];
    struct iovec iov[LG_UDP_BATCH_MAX];
    size_t sent = 0;
    while (sent < len) {
        unsigned n = 0;
        size_t off = sent;
        memset(msgs, 0, sizeof(msgs));
        for (; n < most && off < len; n++) {
            size_t l = len - off < seg ? len - off : seg;
            iov[n].iov_base = (void *)(buf + off);
            iov[n].iov_len = l;
            msgs[n].msg_hdr.msg_iov = &iov[n];
            msgs[n].msg_hdr.msg_iovlen = 1;
            off += l;
        }
        int got;
        if (n == 1) {
            ssize_t r = send(fd, iov[0].iov_base, iov[0].iov_len, MSG_NOSIGNAL);
            got = r < 0 ? -1 : 1;
        } else {
            got = sendmmsg(fd, msgs, n, MSG_NOSIGNAL);
        }
        if (got < 0) {
            if (errno == EINTR) continue;
            return sent ? (ssize_t)sent : -1;
        }
        for (int i = 0; i < got; i++)
            sent += iov[i].iov_len;
        if ((unsigned)got < n) break; /* the socket filled up */
    }
    return (ssize_t)sent;
}

ssize_t lg_udp_send_batch(int fd, const uint8_t *buf, size_t len, size_t seg, bool *gso, bool batch)
{
    if (*gso && len > seg) {
        ssize_t r = send_gso(fd, buf, len, seg);
        if (r >= 0) return r;
        /* a kernel or device without GSO says so; anything else is the socket's */
        if (errno != EIO && errno != EINVAL && errno != ENOPROTOOPT && errno != EOPNOTSUPP)
            return -1;
        *gso = false;
    }
    return send_each(fd, buf, len, seg, batch);
}

bool lg_udp_gso_available(int family)
{
    int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    int seg = 1200;
    bool ok = setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)) == 0;
    close(fd);
    return ok;
}
