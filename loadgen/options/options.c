/* Option values: parsers, the one way a usage error is reported, the
 * target's address, and the configuration's defaults. See options.h. */
#include "loadgen/options/options.h"
#include "loadgen/core/clock.h"
#include "loadgen/watching/watch.h"

#include <ctype.h>
#include <netdb.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The options are read on main's thread alone, before any other exists. */
static const char *usage_hint;

void lg_usage_hint(const char *hint)
{
    usage_hint = hint;
}

void lg_usage_error(const char *tool, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", tool);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (usage_hint) fprintf(stderr, "; %s", usage_hint);
    fprintf(stderr, " (see %s --help)\n", tool);
    exit(LG_EXIT_USAGE);
}

int lg_parse_duration(const char *s, uint64_t *ns)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"ns", 1},   {"us", 1e3},   {"ms", 1e6}, {"s", 1e9},
                 {"m", 60e9}, {"h", 3600e9}, {"", 1e9}};
    if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+') return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v <= 0) return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].unit) == 0) {
            double total = v * units[i].scale;
            if (total < 1 || total > 1e18) return -1;
            *ns = (uint64_t)llround(total);
            return 0;
        }
    }
    return -1;
}

int lg_parse_unsigned(const char *s, unsigned long long min, unsigned long long max,
                      unsigned long long *out)
{
    if (!s || !isdigit((unsigned char)*s)) return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max) return -1;
    *out = v;
    return 0;
}

int lg_parse_shard(const char *s, unsigned *index, unsigned *count)
{
    const char *slash = strchr(s, '/');
    char first[32];
    unsigned long long i, n;
    if (!slash || (size_t)(slash - s) >= sizeof(first)) return -1;
    memcpy(first, s, (size_t)(slash - s));
    first[slash - s] = '\0';
    if (lg_parse_unsigned(first, 0, 999999, &i) < 0 ||
        lg_parse_unsigned(slash + 1, 1, 1000000, &n) < 0 || i >= n)
        return -1;
    *index = (unsigned)i;
    *count = (unsigned)n;
    return 0;
}

int lg_parse_size(const char *s, size_t min, size_t *bytes)
{
    char num[32];
    size_t len = strlen(s), scale = 1;
    if (len && (s[len - 1] == 'k' || s[len - 1] == 'K')) scale = 1024;
    if (len && s[len - 1] == 'M') scale = 1048576;
    if (scale > 1) len--;
    unsigned long long v;
    if (len == 0 || len >= sizeof(num)) return -1;
    memcpy(num, s, len);
    num[len] = '\0';
    if (lg_parse_unsigned(num, 1, (1ull << 40) / scale, &v) < 0 || v * scale < min) return -1;
    *bytes = (size_t)(v * scale);
    return 0;
}

/* The count of a rate: a number with an optional k (1000) or M (1e6). */
static int parse_count(const char *s, size_t len, double *count, const char **why)
{
    char num[64];
    if (len == 0 || len >= sizeof(num) || !(isdigit((unsigned char)s[0]) || s[0] == '.')) return -1;
    memcpy(num, s, len);
    num[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(num, &end);
    if (errno || end == num || !isfinite(v)) return -1;
    double scale = 1;
    if (strcmp(end, "k") == 0) {
        scale = 1e3;
    } else if (strcmp(end, "M") == 0) {
        scale = 1e6;
    } else if (strcmp(end, "m") == 0) {
        *why = "is ambiguous: m is milli or mega; write M for millions per second, or /m "
               "for per minute (5/m)";
        return -1;
    } else if (strcmp(end, "K") == 0) {
        *why = "is ambiguous: K is 1000 or 1024; write k for thousands per second";
        return -1;
    } else if (*end) {
        return -1;
    }
    *count = v * scale;
    return 0;
}

int lg_parse_rate(const char *s, double *per_second, const char **why)
{
    static const char *const units[] = {"ns", "us", "ms", "s", "m", "h"};
    *why = "is not a rate (examples: 500, 5k, 1.5M, 500/s, 30k/1m)";
    const char *slash = strchr(s, '/');
    double count, period_s = 1;
    if (parse_count(s, slash ? (size_t)(slash - s) : strlen(s), &count, why) < 0) return -1;
    if (slash) {
        /* per a unit alone (/s, /m) or a duration (/1m, /100ms) */
        char one[8];
        const char *per = slash + 1;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
            if (strcmp(per, units[i]) == 0) {
                snprintf(one, sizeof(one), "1%s", units[i]);
                per = one;
            }
        uint64_t ns;
        if (lg_parse_duration(per, &ns) < 0) return -1;
        period_s = (double)ns / 1e9;
    }
    double rate = count / period_s;
    if (!(rate >= 1e-3 && rate <= 1e9)) {
        *why = "is not from 0.001 to 1000000000 requests per second";
        return -1;
    }
    *per_second = rate;
    return 0;
}

int lg_parse_double(const char *s, double min, double max, double *out)
{
    if (!s || !*s || isspace((unsigned char)*s)) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < min || v > max) return -1;
    *out = v;
    return 0;
}

int lg_parse_levels(const char *s, unsigned **levels, size_t *n)
{
    if (!s || !*s) return -1;
    size_t count = 1;
    for (const char *p = s; *p; p++)
        count += *p == ',';
    unsigned *v = calloc(count, sizeof(*v));
    if (!v) return LG_NO_MEMORY;
    char *copy = strdup(s);
    if (!copy) {
        free(v);
        return LG_NO_MEMORY;
    }
    size_t k = 0;
    int rc = 0;
    /* strtok_r would skip empty fields ("1,,4"); walk by hand so they fail */
    char *p = copy;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        unsigned long long x;
        if (lg_parse_unsigned(p, 1, 10000000, &x) < 0) {
            rc = -1;
            break;
        }
        for (size_t j = 0; j < k; j++)
            if (v[j] == x) rc = -1; /* c<N> keys would collide */
        if (rc) break;
        v[k++] = (unsigned)x;
        if (!comma) break;
        p = comma + 1;
    }
    free(copy);
    if (rc) {
        free(v);
        return -1;
    }
    *levels = v;
    *n = k;
    return 0;
}

int lg_parse_host_port(const char *s, char *host, size_t len, unsigned long long *port)
{
    const char *colon = strrchr(s, ':');
    size_t n = strlen(s);
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close) return -1;
        n = (size_t)(close - s - 1);
        s++;
        colon = close[1] == ':' ? close + 1 : NULL;
        if (close[1] && !colon) return -1;
    } else if (colon && strchr(s, ':') == colon) {
        n = (size_t)(colon - s);
    } else {
        colon = NULL; /* a bare IPv6 address */
    }
    unsigned long long p;
    if (n == 0 || n >= len) return -1;
    if (colon && lg_parse_unsigned(colon + 1, 1, 65535, &p) < 0) return -1;
    memcpy(host, s, n);
    host[n] = '\0';
    if (colon) *port = p;
    return 0;
}

bool lg_tls_options_given(const struct lg_tls_options *t)
{
    return t->cacert || t->sni || t->insecure || t->resume || t->max_handshakes;
}

void lg_resolve_target(const char *tool, const char *what, const char *host, unsigned port,
                       bool datagram, struct lg_target *t)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = datagram ? SOCK_DGRAM : SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    char ports[8];
    snprintf(ports, sizeof(ports), "%u", port);
    errno = 0;
    int rc = getaddrinfo(host, ports, &hints, &res);
    /* glibc's name services turn an allocation that failed into "Name or
     * service not known", leaving ENOMEM in errno */
    if (rc == EAI_MEMORY || (rc != 0 && errno == ENOMEM)) {
        char doing[300];
        snprintf(doing, sizeof(doing), "resolving %s '%s'", what, host);
        lg_out_of_memory(tool, doing);
    }
    if (rc != 0 || !res)
        lg_usage_error(tool, "%s: cannot resolve '%s': %s", what, host, gai_strerror(rc));
    memcpy(&t->addr, res->ai_addr, res->ai_addrlen);
    t->addrlen = res->ai_addrlen;
    freeaddrinfo(res);
}

void lg_config_defaults(struct lg_config *cfg, const char *tool, uint64_t default_timeout_ns)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->tool = tool;
    cfg->duration_ns = 10ull * 1000000000u;
    cfg->timeout_ns = default_timeout_ns;
    cfg->retry_delay_ns = 100ull * LG_NS_PER_MS;
    cfg->shard_count = 1;
    cfg->max_late_ns = LG_NS_PER_S;
    cfg->threads = 1;
    cfg->slots = 1;
    cfg->max_samples = 1000000;
    cfg->progress = isatty(STDERR_FILENO);
    cfg->seed = 1;
    cfg->max_timer_floor_ns = LG_NS_PER_MS;
}

/* -n: every client of every level makes a request, so N covers the largest
 * level; an open loop's levels last while its rate makes N due (--duration
 * may cut that short), a closed loop's until the last ends (or --duration). */
static void requests_per_level(struct lg_config *cfg)
{
    unsigned most = 0;
    for (size_t i = 0; i < cfg->n_levels; i++)
        if (cfg->levels[i] > most) most = cfg->levels[i];
    if (cfg->level_requests < most)
        lg_usage_error(cfg->tool,
                       "--requests: %llu is fewer than the %u clients of level c%u, each of which "
                       "makes a request; give -n %u or more",
                       (unsigned long long)cfg->level_requests, most, most, most);
    uint64_t span = LG_NO_DEADLINE_NS;
    if (cfg->rate > 0) {
        /* request k is due k/rate after the start (the schedule's own
         * arithmetic): those before this moment are the first N */
        double ns = (double)cfg->level_requests * (1e9 / cfg->rate);
        span = ns < (double)LG_NO_DEADLINE_NS ? (uint64_t)ns : LG_NO_DEADLINE_NS;
    }
    if (!cfg->duration_given || span < cfg->duration_ns) cfg->duration_ns = span;
    if (cfg->duration_ns == LG_NO_DEADLINE_NS && cfg->start_at_ns)
        lg_usage_error(cfg->tool, "--start-at needs --duration with -n in a closed loop: the "
                                  "levels' common starts are a duration apart");
}

void lg_config_finish(struct lg_config *cfg)
{
    if (!cfg->levels) {
        cfg->levels = malloc(sizeof(unsigned));
        if (!cfg->levels) lg_out_of_memory(cfg->tool, "reading the options");
        cfg->levels[0] = 10; /* wrk's default */
        cfg->n_levels = 1;
    }
    if (cfg->quiet && !cfg->summary) cfg->progress = false;
    if (cfg->level_requests) requests_per_level(cfg);
    /* every client must begin, and attempt a request, before the deadline */
    if (cfg->ramp_ns && cfg->ramp_ns >= cfg->duration_ns)
        lg_usage_error(cfg->tool,
                       "--ramp: %.3g s is not shorter than the level's %.3g s: its last clients "
                       "would begin after it ended; shorten --ramp or lengthen --duration",
                       (double)cfg->ramp_ns / 1e9, (double)cfg->duration_ns / 1e9);
    if (cfg->clock_ref) {
        char host[256];
        unsigned long long port = 123; /* NTP's */
        if (lg_parse_host_port(cfg->clock_ref, host, sizeof(host), &port) < 0)
            lg_usage_error(cfg->tool, "--clock-ref: '%s' is not HOST, HOST:PORT or [IPv6]:PORT",
                           cfg->clock_ref);
        struct lg_target t;
        memset(&t, 0, sizeof(t));
        lg_resolve_target(cfg->tool, "--clock-ref", host, (unsigned)port, true, &t);
        cfg->clock_ref_addr = t.addr;
        cfg->clock_ref_addrlen = t.addrlen;
    }
}

void lg_config_free(struct lg_config *cfg)
{
    free(cfg->levels);
    cfg->levels = NULL;
    free(cfg->sources);
    cfg->sources = NULL;
    cfg->n_sources = 0;
    lg_watch_free_specs(cfg);
}
