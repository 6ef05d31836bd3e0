/* --clock-ref: this host's wall clock against an NTP server, by SNTP (RFC
 * 4330), once before the run. Shards on hosts whose clocks disagree would
 * otherwise start their "common" levels apart, and nothing in their own
 * reports would show it. See clockref.h. */
#include "loadgen/core/clockref.h"
#include "loadgen/core/clock.h"
#include "loadgen/core/start.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NTP_EPOCH_OFFSET 2208988800ull /* seconds from 1900 to 1970 */
#define EXCHANGES 4

static void put_ntp_time(uint8_t *p, uint64_t wall_ns)
{
    uint64_t sec = wall_ns / LG_NS_PER_S + NTP_EPOCH_OFFSET;
    uint64_t frac = ((wall_ns % LG_NS_PER_S) << 32) / LG_NS_PER_S;
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(sec >> (24 - 8 * i));
        p[4 + i] = (uint8_t)(frac >> (24 - 8 * i));
    }
}

/* An NTP timestamp as seconds since 1970 (a double keeps microseconds). */
static double get_ntp_time(const uint8_t *p)
{
    uint32_t sec = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    uint32_t frac = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
    return (double)sec - (double)NTP_EPOCH_OFFSET + (double)frac / 4294967296.0;
}

/* One exchange: 1 with *offset and *rtt, 0 on no usable answer. */
static int exchange(int fd, double *offset, double *rtt, char *err, size_t errlen)
{
    uint8_t req[48] = {0}, rep[68];
    req[0] = 0 << 6 | 4 << 3 | 3; /* no leap warning, version 4, client */
    uint64_t t1 = lg_wall_ns();
    put_ntp_time(req + 40, t1); /* the server echoes it: a stray answer is told apart */
    if (send(fd, req, sizeof(req), 0) != (ssize_t)sizeof(req)) {
        snprintf(err, errlen, "cannot send: %s", strerror(errno));
        return 0;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    for (;;) {
        int ready = poll(&p, 1, 1000);
        if (ready == 0) {
            snprintf(err, errlen, "no answer within 1 s");
            return 0;
        }
        if (ready < 0 && errno != EINTR) return 0;
        ssize_t n = recv(fd, rep, sizeof(rep), 0);
        uint64_t t4 = lg_wall_ns();
        if (n < 0) {
            snprintf(err, errlen, "%s", strerror(errno));
            return 0;
        }
        if (n < 48 || memcmp(rep + 24, req + 40, 8) != 0) continue; /* not ours */
        unsigned leap = rep[0] >> 6, mode = rep[0] & 7, stratum = rep[1];
        if (mode != 4 || stratum == 0 || stratum > 15 || leap == 3) {
            snprintf(err, errlen, "the server is not synchronized itself (stratum %u)", stratum);
            return 0;
        }
        double a = (double)t1 / 1e9, d = (double)t4 / 1e9;
        double b = get_ntp_time(rep + 32), c = get_ntp_time(rep + 40);
        *offset = ((a - b) + (d - c)) / 2; /* local minus reference */
        *rtt = (d - a) - (c - b);
        return 1;
    }
}

int lg_clock_ref_measure(const struct sockaddr *addr, socklen_t len, struct lg_clock_ref *out,
                         char *err, size_t errlen)
{
    int fd = socket(addr->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, addr, len) < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    /* the exchange with the shortest round trip has the smallest error */
    int got = 0;
    for (int i = 0; i < EXCHANGES; i++) {
        double offset, rtt;
        if (!exchange(fd, &offset, &rtt, err, errlen)) continue;
        if (!got++ || rtt < out->rtt_s) {
            out->offset_s = offset;
            out->rtt_s = rtt;
        }
    }
    close(fd);
    return got ? 0 : -1;
}
