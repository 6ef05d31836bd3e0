/* Common level starts and shards. See start.h. */
#include "loadgen/core/start.h"
#include "loadgen/core/clock.h"
#include "loadgen/watching/control.h"
#include "loadgen/engine.h"
#include "loadgen/core/runctx.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

unsigned lg_shard_clients(unsigned clients, unsigned index, unsigned count)
{
    return clients > index ? (clients - index + count - 1) / count : 0;
}

double lg_shard_rate(double rate, unsigned clients, unsigned shard_clients)
{
    return clients ? rate * (double)shard_clients / (double)clients : rate;
}

uint64_t lg_shard_requests(uint64_t requests, unsigned clients, unsigned index, unsigned count,
                           unsigned first, unsigned n)
{
    uint64_t each = requests / clients;
    /* the clients below the remainder make one more: the shard's j < with_one */
    unsigned with_one = lg_shard_clients((unsigned)(requests % clients), index, count);
    unsigned end = first + n < with_one ? first + n : with_one;
    return (uint64_t)n * each + (end > first ? end - first : 0);
}

uint64_t lg_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * LG_NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t lg_level_start_at(const struct lg_config *cfg, unsigned k)
{
    if (!cfg->start_at_ns) return 0;
    return cfg->start_at_ns + (uint64_t)k * (cfg->duration_ns + cfg->timeout_ns + LG_LEVEL_GAP_NS);
}

void lg_set_clock_offset(struct lg_run_ctx *run, int64_t offset_ns)
{
    run->clock_offset_ns = offset_ns;
}

uint64_t lg_ref_wall_ns(struct lg_run_ctx *run)
{
    return (uint64_t)((int64_t)lg_wall_ns() - run->clock_offset_ns);
}

enum lg_wait_result lg_wait_until(struct lg_run_ctx *run, const struct lg_config *cfg, uint64_t at,
                                  uint64_t lead_ns, uint64_t *mono_ns, uint64_t *wall_ns)
{
    at = (uint64_t)((int64_t)at + run->clock_offset_ns); /* the reference's moment, by this clock */
    uint64_t now = lg_wall_ns();
    if (now > at + cfg->max_late_ns) return LG_WAIT_LATE;
    uint64_t wake = at > lead_ns ? at - lead_ns : 0;
    /* steps of at most 50 ms; the last one ends exactly at `wake` */
    while ((now = lg_wall_ns()) < wake) {
        if (lg_control_interrupted(run)) return LG_WAIT_INTERRUPTED;
        uint64_t until = wake - now > 50 * LG_NS_PER_MS ? now + 50 * LG_NS_PER_MS : wake;
        struct timespec ts = {(time_t)(until / LG_NS_PER_S), (long)(until % LG_NS_PER_S)};
        while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
    }
    uint64_t mono = lg_now_ns(), ref = lg_ref_wall_ns(run);
    now = lg_wall_ns();
    uint64_t ahead = at > now ? at - now : 0; /* the lead, as it turned out */
    *mono_ns = mono + ahead;
    *wall_ns = ref + ahead;
    return LG_WAIT_STARTED;
}

void lg_clock_state(struct lg_clock_state *s)
{
    struct timex tx;
    memset(&tx, 0, sizeof(tx));
    int state = adjtimex(&tx);
    s->synchronized = state != TIME_ERROR && !(tx.status & STA_UNSYNC);
    s->est_error_us = tx.esterror;
    s->max_error_us = tx.maxerror;
    /* for tests: a machine's clock cannot be unsynchronized on demand */
    const char *forced = getenv("LOADGEN_TEST_CLOCK");
    if (forced && strcmp(forced, "unsynchronized") == 0) s->synchronized = false;
    if (forced && strcmp(forced, "synchronized") == 0) s->synchronized = true;
}

void lg_format_wall(uint64_t wall_ns, char *buf, unsigned len)
{
    time_t sec = (time_t)(wall_ns / LG_NS_PER_S);
    struct tm tm;
    gmtime_r(&sec, &tm);
    size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, len - n, ".%09lluZ", (unsigned long long)(wall_ns % LG_NS_PER_S));
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil), so no time zone setting of the host is involved. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* Reads exactly n digits; -1 if they are not there. */
static long digits(const char **p, int n)
{
    long v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)**p)) return -1;
        v = v * 10 + (*(*p)++ - '0');
    }
    return v;
}

/* ".fraction" after seconds, as nanoseconds (at most nine digits kept). */
static uint64_t fraction_ns(const char **p)
{
    uint64_t ns = 0, scale = 100000000;
    if (**p != '.') return 0;
    (*p)++;
    while (isdigit((unsigned char)**p)) {
        ns += (uint64_t)(**p - '0') * scale;
        scale /= 10;
        (*p)++;
    }
    return ns;
}

int lg_parse_start_at(const char *s, uint64_t *wall_ns)
{
    const char *p = s;
    if (*p == '@') {
        p++;
        if (!isdigit((unsigned char)*p)) return -1;
        errno = 0;
        char *end;
        unsigned long long sec = strtoull(p, &end, 10);
        if (errno || sec > 4000000000ull) return -1;
        p = end;
        uint64_t frac = *p == '.' ? fraction_ns(&p) : 0;
        if (*p) return -1;
        *wall_ns = sec * LG_NS_PER_S + frac;
        return 0;
    }
    long y = digits(&p, 4), mo, d, h, mi, sec;
    if (y < 0 || *p++ != '-' || (mo = digits(&p, 2)) < 1 || mo > 12 || *p++ != '-' ||
        (d = digits(&p, 2)) < 1 || d > 31 || (*p != 'T' && *p != 't' && *p != ' '))
        return -1;
    p++;
    if ((h = digits(&p, 2)) < 0 || h > 23 || *p++ != ':' || (mi = digits(&p, 2)) < 0 || mi > 59 ||
        *p++ != ':' || (sec = digits(&p, 2)) < 0 || sec > 60)
        return -1;
    uint64_t frac = fraction_ns(&p);
    long offset = 0; /* seconds east of UTC */
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1;
        long oh = digits(&p, 2), om;
        if (oh < 0 || oh > 23 || *p++ != ':' || (om = digits(&p, 2)) < 0 || om > 59) return -1;
        offset = sign * (oh * 3600 + om * 60);
    } else {
        return -1; /* a zone is required: a bare local time means different things per host */
    }
    if (*p) return -1;
    int64_t t =
        days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec - offset;
    if (t < 0) return -1;
    *wall_ns = (uint64_t)t * LG_NS_PER_S + frac;
    return 0;
}
