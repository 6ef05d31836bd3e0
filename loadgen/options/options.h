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
#include "loadgen/core/nomem.h"

/* Value parsers: 0 on success, -1 (nothing written) when the text is not
 * valid, LG_NO_MEMORY when an allocation failed. */
int lg_parse_duration(const char *s, uint64_t *ns); /* 500ms, 10s, 2m, 1h, 250us; bare = s */
int lg_parse_levels(const char *s, unsigned **levels, size_t *n); /* 1,16,64 */
int lg_parse_unsigned(const char *s, unsigned long long min, unsigned long long max,
                      unsigned long long *out);
int lg_parse_double(const char *s, double min, double max, double *out);
int lg_parse_shard(const char *s, unsigned *index, unsigned *count); /* I/N, 0 <= I < N */
int lg_parse_size(const char *s, size_t min, size_t *bytes);         /* 60000, 64k, 1M */
/* Requests per second, from 0.001 to 1e9: 500, 5k, 1.5M (k 1000, M 1e6),
 * each optionally per a time (500/s, 30k/1m, 50/100ms: vegeta's form). On
 * -1, *why says what is wrong with it, to follow the quoted text. */
int lg_parse_rate(const char *s, double *per_second, const char **why);
/* HOST, HOST:PORT, [IPv6] or [IPv6]:PORT (a bare IPv6 address has no port):
 * the host into host (len bytes), and the port, when one is given, into
 * *port (left as it is otherwise). */
int lg_parse_host_port(const char *s, char *host, size_t len, unsigned long long *port);

/* Prints "<tool>: <message>" and a hint to stderr, exits with status 2. */
__attribute__((noreturn, format(printf, 2, 3))) void lg_usage_error(const char *tool,
                                                                    const char *fmt, ...);
/* Until set again (NULL: none), a usage error adds "; <hint>" to its line:
 * what the option being read means to a user of another tool. */
void lg_usage_hint(const char *hint);

/* Ids of the shared long options without a short form. */
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
    LG_OPT_HELP,
    LG_OPT_VERSION,
    LG_OPT_SHARD,
    LG_OPT_START_AT,
    LG_OPT_MAX_LATE,
    LG_OPT_RUN_ID,
    LG_OPT_MAX_DOC_BYTES,
    LG_OPT_CLOCK_REF,
    LG_OPT_CONN_REQUESTS,
    LG_OPT_PREFLIGHT,
    LG_OPT_REQUIRE_FIT,
    LG_OPT_VERBOSE,
    LG_OPT_MAX_TIMER_FLOOR,
    LG_OPT_MAX_HANDSHAKES,
    LG_OPT_FAIL_FAST,
    LG_OPT_SOURCE,
    LG_OPT_RAMP,
    LG_OPT_TOOL_BASE = 1100, /* tools number their own long options from here */
};

/* One command-line option. `display` is its left column in --help, NULL when
 * the line before documents it too; `help` may hold several lines. A help
 * section starts where `group` changes. */
struct lg_option {
    const char *name;
    int short_name; /* 0: none */
    int has_arg;    /* no_argument, required_argument or optional_argument */
    int id;         /* the short name, or an id from LG_OPT_TOOL_BASE on */
    const char *group;
    const char *display;
    const char *help;
};

/* An option another tool's users type by habit whose letter means something
 * else here, or nothing: what it is there and what to give here. Said when
 * the letter is unknown here, when its value does not fit ours, or when ours
 * takes no value and a number follows it (dnsperf's -q 100). */
struct lg_habit {
    int short_name;    /* 'Q' */
    const char *there; /* "dnsperf's -Q (the most queries per second)" */
    const char *here;  /* "-R/--rate" */
};

/* A tool's command line: its own options and what --help says around them. */
struct lg_cmdline {
    const char *tool;
    const char *synopsis; /* after the tool's name: "[options] URL" */
    const char *about;    /* what the tool does, a few lines */
    const struct lg_option *options;
    size_t n_options;
    bool tls;                    /* the shared TLS options apply */
    const char *tls_group;       /* their help section's heading */
    const char *epilog;          /* after the options, before the exit statuses */
    const char *timeout_default; /* for the --timeout line: "10s" */
    void (*version)(void);
    /* Takes one of the tool's options (arg is NULL without a value); a bad
     * value is reported with lg_usage_error. */
    void (*handle)(void *ctx, int id, const char *arg);
    void *ctx;
    const struct lg_habit *habits; /* other tools' letters its users may type */
    size_t n_habits;
};

/* TLS options both tools share (short form -k). */
struct lg_tls_options {
    const char *cacert;      /* --cacert FILE */
    const char *sni;         /* --sni NAME */
    bool insecure;           /* -k, --insecure */
    bool resume;             /* --tls-resume */
    unsigned max_handshakes; /* --max-handshakes: per loop thread, 0: no limit */
};
bool lg_tls_options_given(const struct lg_tls_options *t);

/* Resolves host:port once, at start, into the target's address (the first
 * the resolver gives); a name that does not resolve is a usage error naming
 * the option `what`. */
void lg_resolve_target(const char *tool, const char *what, const char *host, unsigned port,
                       bool datagram, struct lg_target *t);

void lg_config_defaults(struct lg_config *cfg, const char *tool, uint64_t default_timeout_ns);
/* Parses the command line: the shared options into cfg and tls, the tool's
 * own through cl->handle, in the order given; --help and --version print and
 * exit 0; an unknown option or a missing value is a usage error. Returns the
 * index of the first operand. */
int lg_cmdline_parse(const struct lg_cmdline *cl, int argc, char **argv, struct lg_config *cfg,
                     struct lg_tls_options *tls);
/* Completes the configuration after parsing (default levels, checks across options). */
void lg_config_finish(struct lg_config *cfg);
void lg_config_free(struct lg_config *cfg);

#endif
