/* bench/output.c: CPU time of lg_results_write on a collector document of
 * SAMPLES (default 10,000,000) samples, shaped like httpload's: half in
 * latency_warm_ms and half in ttfb_ms, each a nanosecond interval divided by
 * 1e6 as the engine makes them (0.05 to ~50 ms, up to six decimals), plus the
 * one-sample counts. Only the write is timed (getrusage around it), not the
 * making of the samples.
 *
 * usage: output [SAMPLES [FILE]]   (FILE default /dev/null)
 * prints one line: "samples bytes user_s sys_s wall_s"
 * Built and run by bench/output; links loadgen/libloadgen.a. */
#define _POSIX_C_SOURCE 200809L
#include "loadgen/output/results.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double tv(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static uint64_t next(uint64_t *s) /* xorshift64* */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* Per-request series are kept in nanoseconds, as the engine keeps them. */
static uint64_t *latencies(size_t n, uint64_t seed)
{
    uint64_t *v = malloc(n * sizeof(*v));
    if (!v) return NULL;
    for (size_t i = 0; i < n; i++) {
        /* 50 us plus a long tail: a sum of two uniform draws, one of them rare and large */
        uint64_t r = next(&seed);
        uint64_t ns = 50000 + r % 900000 + ((r >> 40) % 64 == 0 ? (r >> 20) % 50000000 : 0);
        v[i] = ns;
    }
    return v;
}

int main(int argc, char **argv)
{
    size_t samples = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    const char *path = argc > 2 ? argv[2] : "/dev/null";
    size_t half = samples / 2;
    struct lg_level_result r = {.clients = 64};
    uint64_t *warm = latencies(samples - half, 1), *ttfb = latencies(half, 2);
    if (!warm || !ttfb ||
        lg_result_add_series(&r, "latency_warm_ms", warm, samples - half, samples - half) < 0 ||
        lg_result_add_series(&r, "ttfb_ms", ttfb, half, half) < 0 ||
        lg_result_add_count(&r, "requests", samples - half) < 0 ||
        lg_result_add_count(&r, "errors", 0) < 0) {
        fprintf(stderr, "output: out of memory\n");
        return 4;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(path);
        return 2;
    }
    struct rusage a, b;
    struct timespec t0, t1;
    getrusage(RUSAGE_SELF, &a);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = lg_results_write(fd, &r, 1, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    getrusage(RUSAGE_SELF, &b);
    if (rc < 0) {
        fprintf(stderr, "output: writing %s failed\n", path);
        return 4;
    }
    struct stat st;
    off_t bytes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : -1;
    close(fd);
    printf("%zu %lld %.6f %.6f %.6f\n", samples, (long long)bytes, tv(b.ru_utime) - tv(a.ru_utime),
           tv(b.ru_stime) - tv(a.ru_stime),
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    lg_result_free(&r, 0);
    return 0;
}
