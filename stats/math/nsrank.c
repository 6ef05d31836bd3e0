/* Percentiles of nanosecond samples by counting. See nsrank.h.
 *
 * A selection over doubles costs some fifty instructions a sample for the
 * summary's six percentiles (a copy, a conversion, partitions); counting costs
 * three passes of a few: the range, the count into NBUCKETS buckets of equal
 * width, and a gather of the few buckets the ranks fall in. A bucket that
 * still holds many samples is searched the same way, narrower each time;
 * buckets one nanosecond wide need no search at all. */
#include "stats/math/nsrank.h"
#include "stats/math/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NBUCKETS 4096
#define SMALL 32 /* at most this many samples are sorted outright */

static void sort_small(uint64_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

/* The order statistics of ranks ks[0..nk) (ascending, each below n) of
 * v[0..n) into out[0..nk). */
static int select_ranks(const uint64_t *v, size_t n, const size_t *ks, size_t nk, uint64_t *out)
{
    if (n <= SMALL) {
        uint64_t a[SMALL];
        memcpy(a, v, n * sizeof(*a));
        sort_small(a, n);
        for (size_t i = 0; i < nk; i++)
            out[i] = a[ks[i]];
        return 0;
    }
    uint64_t lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
    }
    unsigned shift = 0;
    while (((hi - lo) >> shift) >= NBUCKETS)
        shift++;
    size_t nb = (size_t)((hi - lo) >> shift) + 1;
    size_t *count = calloc(nb, sizeof(*count));
    bool *want = calloc(nb, sizeof(*want));
    /* per rank: its bucket, its rank within it, where its bucket's segment
     * of the gathered samples begins */
    size_t *kb = malloc(3 * nk * sizeof(*kb));
    int rc = -1;
    if (!count || !want || !kb) goto out;
    for (size_t i = 0; i < n; i++)
        count[(v[i] - lo) >> shift]++;

    size_t *kr = kb + nk, *kstart = kb + 2 * nk, below = 0, b = 0;
    for (size_t i = 0; i < nk; i++) {
        while (below + count[b] <= ks[i])
            below += count[b++];
        kb[i] = b;
        kr[i] = ks[i] - below;
        want[b] = true;
    }
    if (shift == 0) { /* a bucket is one value */
        for (size_t i = 0; i < nk; i++)
            out[i] = lo + kb[i];
        rc = 0;
        goto out;
    }

    /* the wanted buckets gathered, each a segment of g; count[b] becomes
     * where its next sample goes */
    size_t total = 0;
    for (size_t i = 0; i < nk; i++) {
        if (i && kb[i] == kb[i - 1]) {
            kstart[i] = kstart[i - 1];
            continue;
        }
        kstart[i] = total;
        size_t c = count[kb[i]];
        count[kb[i]] = total;
        total += c;
    }
    uint64_t *g = malloc(total * sizeof(*g));
    if (!g) goto out;
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)((v[i] - lo) >> shift);
        if (want[k]) g[count[k]++] = v[i];
    }
    /* each segment searched for the ranks that fall in it; the cursor
     * stopped at the segment's end */
    rc = 0;
    for (size_t i = 0; i < nk && rc == 0;) {
        size_t j = i;
        while (j < nk && kb[j] == kb[i])
            j++;
        rc = select_ranks(g + kstart[i], count[kb[i]] - kstart[i], kr + i, j - i, out + i);
        i = j;
    }
    free(g);
out:
    free(count);
    free(want);
    free(kb);
    return rc;
}

static int by_rank(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The sample of rank k, in ms as the document shows it, from the ranks
 * ks[0..nk) found with their values at[]. */
static double ms_of_rank(size_t k, const size_t *ks, const uint64_t *at, size_t nk)
{
    size_t i = 0;
    while (i + 1 < nk && ks[i] != k)
        i++;
    return (double)at[i] / 1e6;
}

int stats_percentiles_ns(const uint64_t *ns, size_t n, const double *qs, size_t nq, double *out)
{
    if (n == 0) {
        for (size_t i = 0; i < nq; i++)
            out[i] = 0.0;
        return 0;
    }
    /* the ranks each percentile needs, as stats_percentiles takes them: an
     * extreme, or the rank's floor and the one above it */
    size_t *ks = malloc(2 * (nq ? nq : 1) * sizeof(*ks));
    uint64_t *at = malloc(2 * (nq ? nq : 1) * sizeof(*at));
    int rc = -1;
    if (!ks || !at) goto out;
    size_t nk = 0;
    for (size_t i = 0; i < nq; i++) {
        if (qs[i] <= 0 || qs[i] >= 1) {
            ks[nk++] = qs[i] <= 0 ? 0 : n - 1;
            continue;
        }
        size_t lower = (size_t)floor(qs[i] * (double)(n - 1));
        if (lower >= n) lower = n - 1;
        ks[nk++] = lower;
        if (lower + 1 < n) ks[nk++] = lower + 1;
    }
    /* ascending and distinct, for one search */
    qsort(ks, nk, sizeof(*ks), by_rank);
    size_t nd = 0;
    for (size_t i = 0; i < nk; i++)
        if (nd == 0 || ks[nd - 1] != ks[i]) ks[nd++] = ks[i];
    rc = nd ? select_ranks(ns, n, ks, nd, at) : 0;
    for (size_t i = 0; i < nq && rc == 0; i++) {
        if (qs[i] <= 0 || qs[i] >= 1) {
            out[i] = ms_of_rank(qs[i] <= 0 ? 0 : n - 1, ks, at, nd);
            continue;
        }
        double rank = qs[i] * (double)(n - 1);
        size_t lower = (size_t)floor(rank);
        if (lower >= n) lower = n - 1;
        double lo = ms_of_rank(lower, ks, at, nd), weight = rank - (double)lower;
        if (lower + 1 >= n || weight == 0) {
            out[i] = lo;
            continue;
        }
        double hi = ms_of_rank(lower + 1, ks, at, nd);
        out[i] = lo + (hi - lo) * weight;
    }
out:
    free(ks);
    free(at);
    return rc;
}

void stats_moments_ns(const uint64_t *ns, size_t n, double *mean_ms, double *stddev_ms)
{
    /* the steps of stats_moments, over each sample as the document shows it */
    struct stats_running_mean sum = {0};
    for (size_t i = 0; i < n; i++)
        stats_running_mean_add(&sum, (double)ns[i] / 1e6);
    *mean_ms = stats_running_mean_value(&sum);
    *stddev_ms = 0.0;
    if (n == 0) return;
    /* a millisecond of at most 2^64 ns squares far below a double's range */
    double squares = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)ns[i] / 1e6 - *mean_ms;
        squares += d * d;
    }
    *stddev_ms = sqrt(squares / (double)n);
}
