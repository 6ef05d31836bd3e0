/* Common options and value parsers. See options.h. */
#include "loadgen/options.h"
#include "loadgen/clock.h"
#include "loadgen/watch.h"

#include <ctype.h>
#include <netdb.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void lg_usage_error(const char *tool, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", tool);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
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
    if (!v) return -1;
    char *copy = strdup(s);
    if (!copy) {
        free(v);
        return -1;
    }
    size_t k = 0;
    char *save = NULL;
    int rc = 0;
    /* strtok_r would skip empty fields ("1,,4"); walk by hand so they fail */
    char *p = copy;
    (void)save;
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

int lg_tls_option(struct lg_tls_options *t, int opt, const char *arg)
{
    switch (opt) {
    case 'k':
        t->insecure = true;
        return 1;
    case LG_OPT_CACERT:
        t->cacert = arg;
        return 1;
    case LG_OPT_SNI:
        t->sni = arg;
        return 1;
    case LG_OPT_TLS_RESUME:
        t->resume = true;
        return 1;
    default:
        return 0;
    }
}

bool lg_tls_options_given(const struct lg_tls_options *t)
{
    return t->cacert || t->sni || t->insecure || t->resume;
}

void lg_resolve_target(const char *tool, const char *what, const char *host, unsigned port,
                       bool datagram, struct lg_target *t)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = datagram ? SOCK_DGRAM : SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    char ports[8];
    snprintf(ports, sizeof(ports), "%u", port);
    int rc = getaddrinfo(host, ports, &hints, &res);
    if (rc != 0 || !res)
        lg_usage_error(tool, "%s: cannot resolve '%s': %s", what, host, gai_strerror(rc));
    memcpy(&t->addr, res->ai_addr, res->ai_addrlen);
    t->addrlen = res->ai_addrlen;
    freeaddrinfo(res);
}

const char lg_common_help[] =
    "Load:\n"
    "  -c, --clients N          logical clients (one level, default 10); each owns one\n"
    "                           connection (or UDP socket) for the whole level\n"
    "      --levels N,N,...     run several levels in turn, each with a fresh cohort\n"
    "  -d, --duration TIME      per level: 500ms, 10s, 2m (default 10s)\n"
    "  -t, --threads N          event-loop threads (default 1)\n"
    "  -R, --rate R             open loop: R requests per second in total; latency is\n"
    "                           taken from each request's scheduled time\n"
    "      --timeout TIME       per request, and the drain window after the deadline\n"
    "      --retry-delay TIME   closed loop: after a connection on which no request\n"
    "                           succeeded failed, wait this long before the next attempt\n"
    "                           (default 100ms; 0: at once)\n"
    "      --max-error-rate X   errors/attempts allowed before exit status 1 (0..1, default 0;\n"
    "                           open loop: unsent requests count as errors)\n"
    "Output:\n"
    "      --max-samples N      per metric per level; beyond it a uniform random subset\n"
    "                           is kept (default 1000000)\n"
    "      --meta FILE          write a JSON descriptor of the run to FILE\n"
    "      --log FILE           write one NDJSON record per request to FILE\n"
    "  -q, --quiet              no summary on stderr\n"
    "      --summary            print the summary even with --quiet\n"
    "      --progress, --no-progress\n"
    "                           one-line progress on stderr (default: when a terminal)\n"
    "      --seed N             seed for sampling decisions (default 1)\n"
    "      --watch NAME=PID, --watch NAME=pidfile:PATH\n"
    "                           sample a process and its descendants each second: CPU,\n"
    "                           RSS, PSS, USS, open fds, as watch.NAME.* (repeatable)\n";

void lg_config_defaults(struct lg_config *cfg, const char *tool, uint64_t default_timeout_ns)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->tool = tool;
    cfg->duration_ns = 10ull * 1000000000u;
    cfg->timeout_ns = default_timeout_ns;
    cfg->retry_delay_ns = 100ull * LG_NS_PER_MS;
    cfg->threads = 1;
    cfg->slots = 1;
    cfg->max_samples = 1000000;
    cfg->progress = isatty(STDERR_FILENO);
    cfg->seed = 1;
}

int lg_config_option(struct lg_config *cfg, int opt, const char *arg)
{
    const char *tool = cfg->tool;
    unsigned long long u;
    switch (opt) {
    case 'c':
        if (lg_parse_unsigned(arg, 1, 10000000, &u) < 0)
            lg_usage_error(tool, "--clients: '%s' is not a client count from 1 to 10000000", arg);
        free(cfg->levels);
        cfg->levels = malloc(sizeof(unsigned));
        if (!cfg->levels) lg_usage_error(tool, "out of memory");
        cfg->levels[0] = (unsigned)u;
        cfg->n_levels = 1;
        return 1;
    case LG_OPT_LEVELS:
        free(cfg->levels);
        cfg->levels = NULL;
        if (lg_parse_levels(arg, &cfg->levels, &cfg->n_levels) < 0)
            lg_usage_error(tool,
                           "--levels: '%s' is not a list of distinct client counts (example: "
                           "1,16,64)",
                           arg);
        return 1;
    case 'd':
        if (lg_parse_duration(arg, &cfg->duration_ns) < 0)
            lg_usage_error(tool, "--duration: '%s' is not a duration (examples: 500ms, 10s, 2m)",
                           arg);
        return 1;
    case LG_OPT_TIMEOUT:
        if (lg_parse_duration(arg, &cfg->timeout_ns) < 0)
            lg_usage_error(tool, "--timeout: '%s' is not a duration (examples: 500ms, 2s)", arg);
        return 1;
    case LG_OPT_RETRY_DELAY:
        if (strcmp(arg, "0") == 0)
            cfg->retry_delay_ns = 0;
        else if (lg_parse_duration(arg, &cfg->retry_delay_ns) < 0)
            lg_usage_error(tool, "--retry-delay: '%s' is not a duration (examples: 0, 100ms, 1s)",
                           arg);
        return 1;
    case 't':
        if (lg_parse_unsigned(arg, 1, 256, &u) < 0)
            lg_usage_error(tool, "--threads: '%s' is not a thread count from 1 to 256", arg);
        cfg->threads = (unsigned)u;
        return 1;
    case 'R':
        if (lg_parse_double(arg, 1e-3, 1e9, &cfg->rate) < 0)
            lg_usage_error(tool, "--rate: '%s' is not a positive number of requests per second",
                           arg);
        return 1;
    case LG_OPT_MAX_SAMPLES:
        if (lg_parse_unsigned(arg, 1, 1000000000, &u) < 0)
            lg_usage_error(tool, "--max-samples: '%s' is not a count from 1 to 1000000000", arg);
        cfg->max_samples = (size_t)u;
        return 1;
    case LG_OPT_MAX_ERROR_RATE:
        if (lg_parse_double(arg, 0, 1, &cfg->max_error_rate) < 0)
            lg_usage_error(tool, "--max-error-rate: '%s' is not a ratio from 0 to 1 (0.01 = 1%%)",
                           arg);
        return 1;
    case 'q':
        cfg->quiet = true;
        return 1;
    case LG_OPT_SUMMARY:
        cfg->summary = true;
        return 1;
    case LG_OPT_META:
        cfg->meta_path = arg;
        return 1;
    case LG_OPT_LOG:
        cfg->log_path = arg;
        return 1;
    case LG_OPT_SEED:
        if (lg_parse_unsigned(arg, 0, UINT64_MAX, &u) < 0)
            lg_usage_error(tool, "--seed: '%s' is not a non-negative integer", arg);
        cfg->seed = u;
        return 1;
    case LG_OPT_PROGRESS:
        cfg->progress = true;
        return 1;
    case LG_OPT_NO_PROGRESS:
        cfg->progress = false;
        return 1;
    case LG_OPT_WATCH:
        lg_watch_option(cfg, arg);
        return 1;
    default:
        return 0;
    }
}

void lg_config_finish(struct lg_config *cfg)
{
    if (!cfg->levels) {
        cfg->levels = malloc(sizeof(unsigned));
        if (!cfg->levels) lg_usage_error(cfg->tool, "out of memory");
        cfg->levels[0] = 10; /* wrk's default */
        cfg->n_levels = 1;
    }
    if (cfg->quiet && !cfg->summary) cfg->progress = false;
}

void lg_config_free(struct lg_config *cfg)
{
    free(cfg->levels);
    cfg->levels = NULL;
    lg_watch_free_specs(cfg);
}
