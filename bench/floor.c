/* bench/floor: the options, the epoll loop every floor client runs in, and
 * the one line it prints. See floor.h; bench/floor runs it side by side.
 * usage: floor h1|dns|h2 -c N [-m M] -d SECONDS [--tls --cacert FILE]
 *              [--idle] [--ramp R] [--uring] HOST PORT [PATH]
 * Prints "floor: N requests in S s (R/s), C connections, E errors" on stderr;
 * exit status 1 when anything failed, 2 on a usage error. */
#define _GNU_SOURCE
#include "floor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

uint64_t floor_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void floor_error(struct floor *f, const char *what)
{
    /* the first few only: a server that fails every request would flood */
    if (f->errors++ < 5) fprintf(stderr, "floor: %s\n", what);
}

int floor_watch(struct floor *f, int fd, void *conn, uint32_t events, bool add)
{
    struct epoll_event ev = {.events = events, .data.ptr = conn};
    return epoll_ctl(f->ep, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
}

int floor_run(struct floor *f, const struct floor_proto *p)
{
    const struct floor_args *a = f->a;
    struct epoll_event evs[256];
    f->start_ns = floor_now_ns();
    f->deadline_ns = f->start_ns + (uint64_t)(a->seconds * 1e9);
    uint64_t next_tick = f->start_ns + 1000000000u;
    unsigned opened = 0;
    for (;;) {
        uint64_t now = floor_now_ns();
        if (now >= f->deadline_ns) break;
        /* connections due by now: all at once, or R per second */
        while (opened < a->clients &&
               (a->ramp <= 0 || now >= f->start_ns + (uint64_t)(opened * 1e9 / a->ramp)))
            if (p->open(f, opened++) < 0) return -1;
        if (now >= next_tick) {
            if (p->tick) p->tick(f, now);
            next_tick += 1000000000u;
        }
        uint64_t wake = f->deadline_ns < next_tick ? f->deadline_ns : next_tick;
        if (opened < a->clients) {
            uint64_t due = f->start_ns + (uint64_t)(opened * 1e9 / a->ramp);
            if (due < wake) wake = due;
        }
        int timeout = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
        int n = epoll_wait(f->ep, evs, 256, timeout);
        if (n < 0 && errno != EINTR) {
            perror("floor: epoll_wait");
            return -1;
        }
        for (int i = 0; i < n; i++)
            p->event(f, evs[i].data.ptr, evs[i].events);
    }
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: floor h1|dns|h2 -c N [-m M] -d SECONDS [--tls --cacert FILE] [--idle] "
                    "[--ramp R] [--uring] HOST PORT [PATH]\n");
    exit(2);
}

static double number(const char *opt, const char *v)
{
    char *end;
    double x = v ? strtod(v, &end) : 0;
    if (!v || *end || x <= 0) {
        fprintf(stderr, "floor: %s needs a positive number\n", opt);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    struct floor_args a = {.clients = 1, .streams = 1, .seconds = 1, .path = "/"};
    const char *pos[4];
    int npos = 0;
    if (argc < 2) usage();
    a.mode = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-c"))
            a.clients = (unsigned)number(o, argv[++i < argc ? i : 0]);
        else if (!strcmp(o, "-m"))
            a.streams = (unsigned)number(o, argv[++i < argc ? i : 0]);
        else if (!strcmp(o, "-d"))
            a.seconds = number(o, argv[++i < argc ? i : 0]);
        else if (!strcmp(o, "--ramp"))
            a.ramp = number(o, argv[++i < argc ? i : 0]);
        else if (!strcmp(o, "--cacert") && i + 1 < argc)
            a.cafile = argv[++i];
        else if (!strcmp(o, "--tls"))
            a.tls = true;
        else if (!strcmp(o, "--idle"))
            a.idle = true;
        else if (!strcmp(o, "--uring"))
            a.uring = true;
        else if (o[0] == '-' || npos == 3)
            usage();
        else
            pos[npos++] = o;
    }
    if (npos < 2) usage();
    a.host = pos[0];
    a.port = (unsigned)number("PORT", pos[1]);
    if (npos == 3) a.path = pos[2];
    const struct floor_proto *p = !strcmp(a.mode, "h1")    ? &floor_h1
                                  : !strcmp(a.mode, "dns") ? &floor_dns
                                  : !strcmp(a.mode, "h2")  ? &floor_h2
                                                           : NULL;
    if (!p) usage();
    if (a.uring && (!p->ring_open || a.tls || a.idle || a.ramp > 0)) {
        fprintf(stderr, "floor: --uring is for h1 and dns, without --tls, --idle or --ramp\n");
        return 2;
    }

    static struct floor f;
    f.a = &a;
    f.ep = epoll_create1(EPOLL_CLOEXEC);
    if (f.ep < 0) {
        perror("floor: epoll_create1");
        return 1;
    }
    if (a.tls && !(f.tls = floor_tls_ctx(&a, p->alpn, p->alpn_len))) return 1;
    if (a.uring) {
        if (floor_ring_init(&f) < 0 || floor_ring_run(&f, p) < 0) return 1;
    } else if (floor_run(&f, p) < 0)
        return 1;
    double secs = (double)(floor_now_ns() - f.start_ns) / 1e9;
    fprintf(stderr, "floor: %llu requests in %.3f s (%.1f/s), %llu connections, %llu errors\n",
            (unsigned long long)f.requests, secs, (double)f.requests / secs,
            (unsigned long long)f.connected, (unsigned long long)f.errors);
    /* the process exits: the kernel closes the sockets and frees the rest */
    return f.errors ? 1 : 0;
}
