/* The probe. See probe.h. Blocking on purpose: it runs once, before any loop
 * exists, bounded by the timeout. */
#include "loadgen/preflight/probe.h"
#include "loadgen/core/clock.h"
#include "loadgen/engine.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

void lg_probe_format_addr(const struct lg_target *tgt, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";
    const struct sockaddr *sa = (const struct sockaddr *)&tgt->addr;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
        snprintf(buf, len, "%s:%u", host, ntohs(in->sin_port));
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
        snprintf(buf, len, "[%s]:%u", host, ntohs(in6->sin6_port));
    } else if (sa->sa_family == AF_UNIX) {
        snprintf(buf, len, "%s", ((const struct sockaddr_un *)sa)->sun_path);
    } else {
        snprintf(buf, len, "(address family %d)", sa->sa_family);
    }
}

/* Waits for `events` on fd until `deadline`; the poll's revents, 0 on timeout,
 * and -1 (with *stopped set) when stop_fd became readable first. */
static int wait_for(int fd, short events, uint64_t deadline, int stop_fd, bool *stopped)
{
    for (;;) {
        uint64_t now = lg_now_ns();
        if (now >= deadline) return 0;
        struct pollfd p[2] = {{.fd = fd, .events = events}, {.fd = stop_fd, .events = POLLIN}};
        int rc = poll(p, stop_fd >= 0 ? 2 : 1, (int)((deadline - now) / LG_NS_PER_MS) + 1);
        if (rc > 0 && p[1].revents) {
            *stopped = true;
            return -1;
        }
        if (rc > 0) return p[0].revents;
        if (rc < 0 && errno != EINTR) return POLLERR;
    }
}

static void probe_stream(int fd, const struct lg_target *tgt, const char *addr, uint64_t timeout_ns,
                         int stop_fd, struct lg_probe *out)
{
    uint64_t start = lg_now_ns();
    int err = 0;
    if (connect(fd, (const struct sockaddr *)&tgt->addr, tgt->addrlen) < 0) {
        err = errno;
        if (err == EINPROGRESS) {
            err = ETIMEDOUT;
            int ev = wait_for(fd, POLLOUT, start + timeout_ns, stop_fd, &out->stopped);
            if (ev < 0) return;
            if (ev) {
                socklen_t l = sizeof(err);
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0) err = errno;
            }
        }
    }
    out->seconds = (double)(lg_now_ns() - start) / 1e9;
    out->ok = err == 0;
    if (out->ok)
        snprintf(out->what, sizeof(out->what), "one connection to %.150s, set up in %.3f ms", addr,
                 out->seconds * 1e3);
    else
        snprintf(out->what, sizeof(out->what), "one connection to %.150s failed after %.3f ms: %s",
                 addr, out->seconds * 1e3, strerror(err));
    if (!out->ok) snprintf(out->error, sizeof(out->error), "%s", strerror(err));
}

static void probe_datagram(int fd, const struct lg_target *tgt, const char *addr, const void *msg,
                           size_t len, uint64_t timeout_ns, int stop_fd, struct lg_probe *out)
{
    uint64_t start = lg_now_ns();
    int err = 0;
    uint8_t answer[65536];
    ssize_t got = -1;
    int ev;
    if (connect(fd, (const struct sockaddr *)&tgt->addr, tgt->addrlen) < 0 ||
        send(fd, msg, len, 0) != (ssize_t)len) {
        err = errno;
    } else if ((ev = wait_for(fd, POLLIN, start + timeout_ns, stop_fd, &out->stopped)) < 0) {
        return;
    } else if (!(ev & (POLLIN | POLLERR))) {
        err = ETIMEDOUT;
    } else if ((got = recv(fd, answer, sizeof(answer), 0)) < 0) {
        err = errno; /* an ICMP error: refused, unreachable */
    }
    out->seconds = (double)(lg_now_ns() - start) / 1e9;
    out->ok = err == 0;
    if (out->ok) {
        out->answer_bytes = (size_t)got;
        snprintf(out->what, sizeof(out->what),
                 "one %zu-byte datagram to %.150s, answered in %.3f ms (%zu bytes)", len, addr,
                 out->seconds * 1e3, out->answer_bytes);
    } else {
        snprintf(out->what, sizeof(out->what), "one %zu-byte datagram to %.150s: %s after %.3f ms",
                 len, addr, err == ETIMEDOUT ? "no answer" : strerror(err), out->seconds * 1e3);
        snprintf(out->error, sizeof(out->error), "%s",
                 err == ETIMEDOUT ? "no answer" : strerror(err));
    }
}

void lg_probe_target(const struct lg_target *tgt, bool datagram, const void *msg, size_t len,
                     uint64_t timeout_ns, int stop_fd, struct lg_probe *out)
{
    memset(out, 0, sizeof(*out));
    char addr[160];
    lg_probe_format_addr(tgt, addr, sizeof(addr));
    if (datagram && !msg) {
        snprintf(out->what, sizeof(out->what), "nothing sent to %.150s (no datagram to send)",
                 addr);
        return;
    }
    const struct sockaddr *sa = (const struct sockaddr *)&tgt->addr;
    int fd = socket(sa->sa_family,
                    (datagram ? SOCK_DGRAM : SOCK_STREAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    out->ran = true;
    if (fd < 0) {
        int err = errno;
        snprintf(out->what, sizeof(out->what), "no socket for %.150s: %s", addr, strerror(err));
        snprintf(out->error, sizeof(out->error), "no socket: %s", strerror(err));
        return;
    }
    out->datagram = datagram;
    if (datagram)
        probe_datagram(fd, tgt, addr, msg, len, timeout_ns, stop_fd, out);
    else
        probe_stream(fd, tgt, addr, timeout_ns, stop_fd, out);
    close(fd);
}
