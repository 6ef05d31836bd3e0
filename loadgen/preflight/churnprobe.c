/* The loopback churn probe. See churnprobe.h. */
#include "loadgen/preflight/churnprobe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* batches of this many; the cheapest one is kept: a batch that another
 * process interrupted costs more, never less, than the machine can do */
#define BATCH 32

static double thread_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int listener(int type, struct sockaddr_storage *addr, socklen_t *len)
{
    struct sockaddr_in v4 = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct sockaddr_in6 v6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    const struct sockaddr *tries[] = {(struct sockaddr *)&v4, (struct sockaddr *)&v6};
    const socklen_t sizes[] = {sizeof(v4), sizeof(v6)};
    int err = 0;
    for (int i = 0; i < 2; i++) {
        int fd = socket(tries[i]->sa_family, type | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            err = errno;
            continue;
        }
        /* a reply that never comes ends the probe in a second, not never */
        struct timeval bound = {.tv_sec = 1};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof(bound));
        *len = sizeof(*addr);
        if (bind(fd, tries[i], sizes[i]) == 0 && (type == SOCK_DGRAM || listen(fd, BATCH) == 0) &&
            getsockname(fd, (struct sockaddr *)addr, len) == 0)
            return fd;
        err = errno;
        close(fd);
    }
    errno = err;
    return -1;
}

/* One connection: connect, a request-sized write answered by a
 * response-sized one, both ends closed, the client's with a reset. */
static int one_connection(int lfd, const struct sockaddr_storage *addr, socklen_t len)
{
    static const char request[100], answer[250];
    char buf[256];
    int c = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0) return -1;
    int s = -1, rc = -1;
    if (connect(c, (const struct sockaddr *)addr, len) < 0) goto out;
    if ((s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) goto out;
    if (write(c, request, sizeof(request)) != (ssize_t)sizeof(request) ||
        read(s, buf, sizeof(buf)) <= 0 ||
        write(s, answer, sizeof(answer)) != (ssize_t)sizeof(answer) ||
        read(c, buf, sizeof(buf)) <= 0)
        goto out;
    struct linger reset = {.l_onoff = 1, .l_linger = 0};
    setsockopt(c, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
    rc = 0;
out:;
    int err = errno;
    if (s >= 0) close(s);
    close(c);
    errno = err;
    return rc;
}

/* One UDP socket: connected, a query-sized datagram answered by the
 * listener, closed (no state is left behind it). */
static int one_socket(int lfd, const struct sockaddr_storage *addr, socklen_t len)
{
    static const char query[40], answer[120];
    char buf[256];
    struct sockaddr_storage from;
    socklen_t from_len = sizeof(from);
    int c = socket(addr->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (c < 0) return -1;
    int rc = -1;
    if (connect(c, (const struct sockaddr *)addr, len) == 0 &&
        send(c, query, sizeof(query), 0) == (ssize_t)sizeof(query) &&
        recvfrom(lfd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &from_len) > 0 &&
        sendto(lfd, answer, sizeof(answer), 0, (struct sockaddr *)&from, from_len) ==
            (ssize_t)sizeof(answer) &&
        recv(c, buf, sizeof(buf), 0) > 0)
        rc = 0;
    int err = errno;
    close(c);
    errno = err;
    return rc;
}

void lg_churn_probe_run(struct lg_churn_probe *out, bool datagram)
{
    memset(out, 0, sizeof(*out));
    out->datagram = datagram;
    struct sockaddr_storage addr;
    socklen_t len;
    int lfd = listener(datagram ? SOCK_DGRAM : SOCK_STREAM, &addr, &len);
    if (lfd < 0) {
        snprintf(out->error, sizeof(out->error), "%s", strerror(errno));
        return;
    }
    double best = -1;
    for (unsigned done = 0; done < LG_CHURN_PROBE_CONNS; done += BATCH) {
        double t0 = thread_cpu_s();
        for (unsigned i = 0; i < BATCH; i++) {
            if ((datagram ? one_socket(lfd, &addr, len) : one_connection(lfd, &addr, len)) < 0) {
                snprintf(out->error, sizeof(out->error), "%s", strerror(errno));
                close(lfd);
                return;
            }
        }
        double per = (thread_cpu_s() - t0) / BATCH;
        if (best < 0 || per < best) best = per;
        out->conns = done + BATCH;
    }
    close(lfd);
    /* a clock too coarse to see a batch is no measurement */
    if (best <= 0) {
        snprintf(out->error, sizeof(out->error), "the thread's CPU clock did not move");
        return;
    }
    out->ok = true;
    out->cpu_us = best * 1e6;
    out->conns_per_s = 1.0 / best;
}
