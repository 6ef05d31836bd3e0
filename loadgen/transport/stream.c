/* The stream transport (a TCP or Unix socket read and written directly) and
 * the connect stage every stream begins with. */
#include "loadgen/core/internal.h"
#include "loadgen/core/grow.h"
#include "loadgen/transport/sockio.h"
#include "loadgen/transport/source.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int io_error_class(int err)
{
    switch (err) {
    case ETIMEDOUT:
        return LG_ERR_TIMEOUT;
    default: /* ECONNRESET, EPIPE and the rest: the connection is gone */
        return LG_ERR_RESET;
    }
}

static int connect_error_class(int err)
{
    switch (err) {
    case ECONNREFUSED:
        return LG_ERR_CONNECT_REFUSED;
    case ETIMEDOUT:
        return LG_ERR_CONNECT_TIMEOUT;
    default:
        return LG_ERR_CONNECT;
    }
}

/* The errno's name is in the reason, as the one a user searches for; the
 * two limits it can be also say which. Only the first reason of the class
 * is kept, so this runs in full once per run or so. */
void lg_socket_failed(struct lg_client *c, int err)
{
    const char *name = strerrorname_np(err);
    const char *which = err == EMFILE   ? ": this process's descriptor limit (ulimit -n) is used up"
                        : err == ENFILE ? ": the system's table of open files is full"
                                        : "";
    char why[192];
    snprintf(why, sizeof(why), "socket(): %s (%s)%s", strerror(err), name ? name : "?", which);
    lg_conn_fail(c, LG_ERR_SOCKET, why);
}

static int stream_open(struct lg_client *c)
{
    const struct lg_target *t = c->tgt;
    int fd = socket(t->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        lg_socket_failed(c, errno);
        return -1;
    }
    if (t->addr.ss_family == AF_INET || t->addr.ss_family == AF_INET6) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    c->fd = fd;
    return lg_source_bind(c, fd, true);
}

ssize_t lg_stream_read(struct lg_client *c, uint8_t *buf, size_t len)
{
    for (;;) {
        ssize_t n = lg_recv(c->fd, buf, len, 0);
        if (n > 0) return n;
        if (n == 0) return LG_IO_EOF;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return LG_IO_AGAIN;
        lg_conn_fail(c, io_error_class(errno), strerror(errno));
        return LG_IO_ERROR;
    }
}

ssize_t lg_stream_write(struct lg_client *c, const uint8_t *buf, size_t len)
{
    for (;;) {
        ssize_t n = lg_send(c->fd, buf, len, MSG_NOSIGNAL);
        if (n >= 0) return n;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return LG_IO_AGAIN;
        lg_conn_fail(c, io_error_class(errno), strerror(errno));
        return LG_IO_ERROR;
    }
}

int lg_outq_append(struct lg_client *c, const void *data, size_t len)
{
    if (!lg_grow(&c->outq, &c->outq_cap, c->outq_len + len, 1, 4096)) {
        lg_fail_run(c, "out of memory queueing output");
        lg_conn_fail(c, LG_ERR_SEND, "out of memory queueing output");
        return -1;
    }
    memcpy(c->outq + c->outq_len, data, len);
    c->outq_len += len;
    return 0;
}

static int stream_flush(struct lg_client *c)
{
    while (c->outq_off < c->outq_len) {
        ssize_t n = lg_stream_write(c, c->outq + c->outq_off, c->outq_len - c->outq_off);
        if (n == LG_IO_AGAIN) return LG_IO_WANT_WRITE;
        if (n < 0) return LG_IO_ERROR;
        c->outq_off += (size_t)n;
    }
    c->outq_off = c->outq_len = 0;
    return LG_IO_DONE;
}

/* Writes directly while the socket takes it; queues the rest, in order. */
static int stream_send(struct lg_client *c, const uint8_t *buf, size_t len)
{
    if (c->outq_len == 0) {
        while (len) {
            ssize_t n = lg_stream_write(c, buf, len);
            if (n == LG_IO_AGAIN) break;
            if (n < 0) return LG_IO_ERROR;
            buf += n;
            len -= (size_t)n;
        }
        if (!len) return LG_IO_DONE;
    }
    return lg_outq_append(c, buf, len) < 0 ? LG_IO_ERROR : LG_IO_WANT_WRITE;
}

static bool stream_more(const struct lg_client *c, size_t n, size_t len)
{
    return n == len; /* a short read drained the socket */
}

static void stream_close(struct lg_client *c) {}

const struct lg_transport lg_transport_stream = {
    .name = "stream",
    .open = stream_open,
    .read = lg_stream_read,
    .more = stream_more,
    .send = stream_send,
    .flush = stream_flush,
    .close = stream_close,
};

/* --- the connect stage ---------------------------------------------------- */

static enum lg_step connect_start(struct lg_client *c)
{
    const struct lg_target *t = c->tgt;
    if (connect(c->fd, (const struct sockaddr *)&t->addr, t->addrlen) == 0) return LG_STEP_DONE;
    if (errno == EINPROGRESS) return LG_STEP_WANT_WRITE;
    int err = errno;
    lg_conn_fail(c, connect_error_class(err), strerror(err));
    return LG_STEP_FAILED;
}

static enum lg_step connect_step(struct lg_client *c)
{
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) err = errno;
    if (err == 0) return LG_STEP_DONE;
    if (err == EINPROGRESS || err == EALREADY) return LG_STEP_WANT_WRITE;
    lg_conn_fail(c, connect_error_class(err), strerror(err));
    return LG_STEP_FAILED;
}

const struct lg_stage lg_stage_connect = {
    .name = "connect",
    .phase_series = LG_S_CONNECT,
    .timeout_class = LG_ERR_CONNECT_TIMEOUT,
    .timeout_detail = "the connection was not established",
    .start = connect_start,
    .step = connect_step,
};
