/* bench/timerprobe: the wake-up floor an open loop can reach on this machine.
 * It follows the same schedule as `httpload -R RATE` (request n due at
 * start + n/RATE) with nothing but an epoll loop and one timerfd armed at
 * each due time (absolute CLOCK_MONOTONIC), and prints how late each wake-up
 * came, one number in milliseconds per line, then "cpu_s <seconds>" for the
 * CPU the process used.
 * With HOST PORT CLIENTS it is the floor of a send lag instead: CLIENTS
 * keep-alive HTTP/1.1 connections opened before the start, request n written
 * on connection n mod CLIENTS at its moment, and each number is from the
 * moment to the write's return (what httpload's send lag counts for a warm
 * request: the kernel's acceptance of the bytes included); the responses
 * are read and thrown away.
 * usage: timerprobe RATE SECONDS [HOST PORT CLIENTS] */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 6) {
        fprintf(stderr, "usage: timerprobe RATE SECONDS [HOST PORT CLIENTS]\n");
        return 2;
    }
    double rate = atof(argv[1]), secs = atof(argv[2]);
    if (rate <= 0 || secs <= 0) {
        fprintf(stderr, "timerprobe: RATE and SECONDS must be positive\n");
        return 2;
    }
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN};
    if (tfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) < 0) {
        perror("timerprobe");
        return 1;
    }
    int nconns = argc == 6 ? atoi(argv[5]) : 0;
    int *conns = nconns > 0 ? calloc((size_t)nconns, sizeof(int)) : NULL;
    char req[256];
    int reqlen = 0;
    if (argc == 6) {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[4]))};
        if (nconns <= 0 || !conns || inet_pton(AF_INET, argv[3], &sa.sin_addr) != 1) {
            fprintf(stderr, "timerprobe: HOST must be an IPv4 address and CLIENTS positive\n");
            return 2;
        }
        reqlen =
            snprintf(req, sizeof(req), "GET / HTTP/1.1\r\nHost: %s:%s\r\n\r\n", argv[3], argv[4]);
        for (int i = 0; i < nconns; i++) {
            int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                perror("timerprobe: connect");
                return 1;
            }
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            struct epoll_event cev = {.events = EPOLLIN, .data.u32 = (uint32_t)i + 1};
            if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev) < 0) {
                perror("timerprobe: epoll_ctl");
                return 1;
            }
            conns[i] = fd;
        }
    }
    uint64_t start = now_ns() + 10000000u, end = start + (uint64_t)(secs * 1e9);
    unsigned long unsent = 0;
    for (uint64_t n = 0;; n++) {
        uint64_t due = start + (uint64_t)((double)n * 1e9 / rate);
        if (due >= end) break;
        struct itimerspec its;
        memset(&its, 0, sizeof(its));
        its.it_value.tv_sec = (time_t)(due / 1000000000u);
        its.it_value.tv_nsec = (long)(due % 1000000000u);
        timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
        uint64_t t = now_ns();
        while (t < due) {
            struct epoll_event evs[64];
            int k = epoll_wait(ep, evs, 64, -1);
            for (int i = 0; i < k; i++) {
                if (!evs[i].data.u32) continue;
                char buf[16384]; /* a response: read and thrown away */
                while (recv(conns[evs[i].data.u32 - 1], buf, sizeof(buf), MSG_DONTWAIT) > 0) {
                }
            }
            t = now_ns();
        }
        if (nconns) {
            if (send(conns[n % (uint64_t)nconns], req, (size_t)reqlen,
                     MSG_NOSIGNAL | MSG_DONTWAIT) != reqlen)
                unsent++;
            t = now_ns();
        }
        printf("%.6f\n", (double)(t - due) / 1e6);
    }
    if (unsent) fprintf(stderr, "timerprobe: %lu requests not written whole\n", unsent);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("cpu_s %.6f\n", (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
    for (int i = 0; i < nconns; i++)
        close(conns[i]);
    free(conns);
    return unsent ? 1 : 0;
}
