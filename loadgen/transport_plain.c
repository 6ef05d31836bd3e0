/* The plain transport: a TCP or Unix stream socket, or a connected UDP socket,
 * read and written directly. */
#include "loadgen/internal.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int plain_start(struct lg_client *c)
{
    return 0;
}

static enum lg_handshake plain_handshake(struct lg_client *c)
{
    return LG_HS_DONE;
}

static int io_error_class(int err)
{
    switch (err) {
    case ECONNRESET:
    case EPIPE:
        return LG_ERR_RESET;
    case ECONNREFUSED:
        return LG_ERR_CONNECT_REFUSED;
    case ETIMEDOUT:
        return LG_ERR_TIMEOUT;
    default:
        return LG_ERR_RESET;
    }
}

static ssize_t plain_read(struct lg_client *c, uint8_t *buf, size_t len)
{
    for (;;) {
        ssize_t n = recv(c->fd, buf, len, 0);
        if (n >= 0) return n;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return LG_IO_AGAIN;
        /* the raw errno goes to datagram drivers (ICMP errors), the class to streams */
        c->fail_class = c->w->drv->datagram ? errno : io_error_class(errno);
        if (!c->w->drv->datagram) lg_store_error(c->w, c->fail_class, strerror(errno));
        return LG_IO_ERROR;
    }
}

static ssize_t plain_write(struct lg_client *c, const uint8_t *buf, size_t len)
{
    for (;;) {
        ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
        if (n >= 0) return n;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return LG_IO_AGAIN;
        c->fail_class = c->w->drv->datagram ? LG_ERR_SEND : io_error_class(errno);
        lg_store_error(c->w, c->fail_class, strerror(errno));
        return LG_IO_ERROR;
    }
}

static bool plain_pending(const struct lg_client *c)
{
    return false;
}

static void plain_close(struct lg_client *c) {}

const struct lg_transport lg_transport_plain = {
    .name = "plain",
    .start = plain_start,
    .handshake = plain_handshake,
    .read = plain_read,
    .write = plain_write,
    .pending = plain_pending,
    .close = plain_close,
};
