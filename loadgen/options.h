/* Command-line options shared by httpload and dnsload (levels, duration,
 * threads, timeout, rate, sampling, output), the value parsers behind them,
 * and the one way a usage error is reported: one line, exit status 2. */
#ifndef LOADGEN_OPTIONS_H
#define LOADGEN_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loadgen/engine.h"

/* Value parsers: 0 on success, -1 (nothing written) when the text is not valid. */
int lg_parse_duration(const char *s, uint64_t *ns); /* 500ms, 10s, 2m, 1h, 250us; bare = s */
int lg_parse_levels(const char *s, unsigned **levels, size_t *n); /* 1,16,64 */
int lg_parse_unsigned(const char *s, unsigned long long min, unsigned long long max,
                      unsigned long long *out);
int lg_parse_double(const char *s, double min, double max, double *out);

/* Prints "<tool>: <message>" and a hint to stderr, exits with status 2. */
__attribute__((noreturn, format(printf, 2, 3))) void lg_usage_error(const char *tool,
                                                                    const char *fmt, ...);

/* Long option ids of the common options (short forms in LG_COMMON_SHORTOPTS). */
enum {
    LG_OPT_LEVELS = 1000,
    LG_OPT_TIMEOUT,
    LG_OPT_MAX_SAMPLES,
    LG_OPT_MAX_ERROR_RATE,
    LG_OPT_SUMMARY,
    LG_OPT_META,
    LG_OPT_LOG,
    LG_OPT_SEED,
    LG_OPT_PROGRESS,
    LG_OPT_NO_PROGRESS,
    LG_OPT_WATCH,
    LG_OPT_CACERT,
    LG_OPT_SNI,
    LG_OPT_TLS_RESUME,
    LG_OPT_RETRY_DELAY,
    LG_OPT_TOOL_BASE = 1100, /* tools number their own long options from here */
};
#define LG_COMMON_SHORTOPTS "c:d:t:R:q"
#define LG_COMMON_LONGOPTS                                                                         \
    {"clients", required_argument, NULL, 'c'}, {"levels", required_argument, NULL, LG_OPT_LEVELS}, \
        {"duration", required_argument, NULL, 'd'}, {"threads", required_argument, NULL, 't'},     \
        {"timeout", required_argument, NULL, LG_OPT_TIMEOUT},                                      \
        {"retry-delay", required_argument, NULL, LG_OPT_RETRY_DELAY},                              \
        {"rate", required_argument, NULL, 'R'},                                                    \
        {"max-samples", required_argument, NULL, LG_OPT_MAX_SAMPLES},                              \
        {"max-error-rate", required_argument, NULL, LG_OPT_MAX_ERROR_RATE},                        \
        {"quiet", no_argument, NULL, 'q'}, {"summary", no_argument, NULL, LG_OPT_SUMMARY},         \
        {"meta", required_argument, NULL, LG_OPT_META},                                            \
        {"log", required_argument, NULL, LG_OPT_LOG},                                              \
        {"seed", required_argument, NULL, LG_OPT_SEED},                                            \
        {"progress", no_argument, NULL, LG_OPT_PROGRESS},                                          \
        {"watch", required_argument, NULL, LG_OPT_WATCH},                                          \
    {                                                                                              \
        "no-progress", no_argument, NULL, LG_OPT_NO_PROGRESS                                       \
    }

/* TLS options both tools share (short form -k). */
struct lg_tls_options {
    const char *cacert; /* --cacert FILE */
    const char *sni;    /* --sni NAME */
    bool insecure;      /* -k, --insecure */
    bool resume;        /* --tls-resume */
};
#define LG_TLS_LONGOPTS                                                                            \
    {"insecure", no_argument, NULL, 'k'}, {"cacert", required_argument, NULL, LG_OPT_CACERT},      \
        {"sni", required_argument, NULL, LG_OPT_SNI},                                              \
    {                                                                                              \
        "tls-resume", no_argument, NULL, LG_OPT_TLS_RESUME                                         \
    }
/* Handles one TLS option; returns 1 if it was one, 0 if not. */
int lg_tls_option(struct lg_tls_options *t, int opt, const char *arg);
bool lg_tls_options_given(const struct lg_tls_options *t);

/* Resolves host:port once, at start, into the target's address (the first
 * the resolver gives); a name that does not resolve is a usage error naming
 * the option `what`. */
void lg_resolve_target(const char *tool, const char *what, const char *host, unsigned port,
                       bool datagram, struct lg_target *t);

/* The help text of the common options. */
extern const char lg_common_help[];

void lg_config_defaults(struct lg_config *cfg, const char *tool, uint64_t default_timeout_ns);
/* Handles one common option; returns 1 if it was one, 0 if not. Exits on a bad value. */
int lg_config_option(struct lg_config *cfg, int opt, const char *arg);
/* Completes the configuration after parsing (default levels, checks across options). */
void lg_config_finish(struct lg_config *cfg);
void lg_config_free(struct lg_config *cfg);

#endif
