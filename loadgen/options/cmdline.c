/* The command line both tools share: the tables of the shared options, the
 * --help text made from them and the tool's own table, and the one parse
 * loop (unknown options, missing values, --help, --version). */
#include "loadgen/options/options.h"
#include "loadgen/options/sources.h"
#include "loadgen/core/clock.h"
#include "loadgen/core/start.h"
#include "loadgen/watching/watch.h"
#include "stats/read/nearest.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct lg_option shared_options[] = {
    {"clients", 'c', required_argument, 'c', "Load", "-c, --clients N",
     "logical clients (one level, default 10); each owns one\nconnection (or UDP socket) for "
     "the whole level"},
    {"levels", 0, required_argument, LG_OPT_LEVELS, "Load", "    --levels N,N,...",
     "run several levels in turn, each with a fresh cohort"},
    {"duration", 'd', required_argument, 'd', "Load", "-d, --duration TIME",
     "per level: 500ms, 10s, 2m (default 10s; with -n: none,\nor a bound)"},
    {"requests", 'n', required_argument, 'n', "Load", "-n, --requests N",
     "per level, as hey and h2load: closed loop, the level\nends once N requests have ended; "
     "open loop, --rate\nmakes N due, the level lasting N/rate seconds"},
    {"threads", 't', required_argument, 't', "Load", "-t, --threads N",
     "event-loop threads (default 1)"},
    {"rate", 'R', required_argument, 'R', "Load", "-R, --rate R",
     "open loop: R requests per second in total (500, 5k, 1.5M,\n500/s, 30k/1m); latency is "
     "taken from each request's\nscheduled time"},
    {"timeout", 0, required_argument, LG_OPT_TIMEOUT, "Load", "    --timeout TIME",
     "per request, and the drain window after the deadline\n(default %s)"},
    {"retry-delay", 0, required_argument, LG_OPT_RETRY_DELAY, "Load", "    --retry-delay TIME",
     "closed loop: after a connection on which no request\nsucceeded failed, wait this long "
     "before the next attempt\n(default 100ms; 0: at once)"},
    {"conn-requests", 0, required_argument, LG_OPT_CONN_REQUESTS, "Load", "    --conn-requests N",
     "a client closes its connection (or UDP socket) after N\nrequests and opens a new one, "
     "whose first request is\ncold (1: a connection per request; default: no limit)"},
    {"source", 0, required_argument, LG_OPT_SOURCE, "Load", "    --source ADDR[,ADDR...]",
     "local addresses (or CIDR blocks: 127.0.0.0/29, fd00::/124)\nthat new connections and UDP "
     "sockets bind in turn, so\nthat one process opens more than one address's ports"},
    {"ramp", 0, required_argument, LG_OPT_RAMP, "Load", "    --ramp TIME",
     "a level's clients begin spread evenly over TIME instead\nof all at once (open loop: "
     "nothing is due for a client\nbefore it begins)"},
    {"fail-fast", 0, no_argument, LG_OPT_FAIL_FAST, "Load", "    --fail-fast",
     "end the run at the first level in whose first second\nno request succeeded and some "
     "failed (exit status 7)"},
    {"max-error-rate", 0, required_argument, LG_OPT_MAX_ERROR_RATE, "Load",
     "    --max-error-rate X",
     "errors/attempts allowed before exit status 1 (0..1, default 0;\nopen loop: unsent "
     "requests count as errors)"},
    {"max-samples", 0, required_argument, LG_OPT_MAX_SAMPLES, "Output", "    --max-samples N",
     "per metric per level; beyond it a uniform random subset\nis kept (default 1000000)"},
    {"output", 'o', required_argument, 'o', "Output", "-o, --output FILE",
     "write the document to FILE instead of stdout (under a\ntemporary name, renamed once "
     "complete)"},
    {"max-doc-bytes", 0, required_argument, LG_OPT_MAX_DOC_BYTES, "Output", "    --max-doc-bytes N",
     "keep the document within N bytes (k: 1024, M: 1048576):\nper-request samples are cut to "
     "uniform subsets, counts\nstay exact"},
    {"meta", 0, required_argument, LG_OPT_META, "Output", "    --meta FILE",
     "write a JSON descriptor of the run to FILE"},
    {"log", 0, required_argument, LG_OPT_LOG, "Output", "    --log FILE",
     "write one NDJSON record per request to FILE"},
    {"quiet", 'q', no_argument, 'q', "Output", "-q, --quiet", "no summary on stderr"},
    {"summary", 0, no_argument, LG_OPT_SUMMARY, "Output", "    --summary",
     "print the summary even with --quiet"},
    {"progress", 0, no_argument, LG_OPT_PROGRESS, "Output", "    --progress, --no-progress",
     "one-line progress on stderr (default: when a terminal)"},
    {"no-progress", 0, no_argument, LG_OPT_NO_PROGRESS, "Output", NULL, NULL},
    {"seed", 0, required_argument, LG_OPT_SEED, "Output", "    --seed N",
     "seed for sampling decisions (default 1)"},
    {"watch", 0, required_argument, LG_OPT_WATCH, "Output",
     "    --watch NAME=PID, --watch NAME=pidfile:PATH",
     "sample a process and its descendants each second: CPU,\nRSS, PSS, USS, open fds, as "
     "watch.NAME.* (repeatable)"},
    {"shard", 0, required_argument, LG_OPT_SHARD, "Across machines", "    --shard I/N",
     "run shard I (0-based) of N: the clients I, I+N, I+2N, ...\nof every level, and their share "
     "of --rate"},
    {"start-at", 0, required_argument, LG_OPT_START_AT, "Across machines", "    --start-at TIME",
     "start level k at TIME + k*(duration + timeout + 1s), TIME\nin RFC 3339 with a zone or "
     "@EPOCH[.FRACTION]"},
    {"max-late", 0, required_argument, LG_OPT_MAX_LATE, "Across machines", "    --max-late TIME",
     "a level whose start passed more than TIME ago is not run\n(exit status 5; default 1s)"},
    {"run-id", 0, required_argument, LG_OPT_RUN_ID, "Across machines", "    --run-id ID",
     "name the run in --meta, so a merge can check its shards"},
    {"clock-ref", 0, required_argument, LG_OPT_CLOCK_REF, "Across machines",
     "    --clock-ref HOST[:PORT]",
     "measure this clock against an NTP server before the run;\n--start-at's moments are then "
     "the server's"},
    {"preflight", 0, no_argument, LG_OPT_PREFLIGHT, "Machine", "    --preflight",
     "check that this machine can drive the load the options\nask for, one line per check on "
     "stderr, then exit\n(0 fit, 6 unfit); sends at most one probe"},
    {"require-fit", 0, no_argument, LG_OPT_REQUIRE_FIT, "Machine", "    --require-fit",
     "exit 6 before sending anything when a check is unfit\n(every run checks, and warns)"},
    {"verbose", 0, no_argument, LG_OPT_VERBOSE, "Machine", "    --verbose",
     "with --preflight: what each check found, what the\noptions need and what to do, beneath "
     "its line"},
    {"max-timer-floor", 0, required_argument, LG_OPT_MAX_TIMER_FLOOR, "Machine",
     "    --max-timer-floor TIME",
     "unfit when a sleeping loop wakes later than TIME at the\nmedian (default 1ms)"},
    {"help", 'h', no_argument, LG_OPT_HELP, "", "-h, --help", "this help"},
    {"version", 'V', no_argument, LG_OPT_VERSION, "", "-V, --version", "version"},
};
enum { N_SHARED = sizeof(shared_options) / sizeof(shared_options[0]) };

static const struct lg_option tls_options[] = {
    {"insecure", 'k', no_argument, 'k', NULL, "-k, --insecure",
     "do not verify the server certificate"},
    {"cacert", 0, required_argument, LG_OPT_CACERT, NULL, "    --cacert FILE",
     "trust the CA certificates in FILE (PEM) too"},
    {"sni", 0, required_argument, LG_OPT_SNI, NULL, "    --sni NAME",
     "server name to send and verify (default: the host,\nwhen it is a name)"},
    {"tls-resume", 0, no_argument, LG_OPT_TLS_RESUME, NULL, "    --tls-resume",
     "resume a client's TLS session when it reconnects"},
    {"max-handshakes", 0, required_argument, LG_OPT_MAX_HANDSHAKES, NULL, "    --max-handshakes N",
     "closed loop: at most N connections of a loop thread\nbeing set up at once; the other clients "
     "start\ntheir attempt as one ends (default: no limit)"},
};
enum { N_TLS = sizeof(tls_options) / sizeof(tls_options[0]) };

static const char exit_statuses[] =
    "Exit status: 0 success; 1 errors above --max-error-rate (the document is still\n"
    "printed); 2 bad usage or input; 3 a level was invalid; 4 the run failed;\n"
    "5 a level's common start had passed by more than --max-late; 6 the machine is\n"
    "unfit (--preflight, --require-fit); 7 --fail-fast ended the run (the document\n"
    "holds what was measured); 130 interrupted (the document holds what was\n"
    "measured).\n";

/* The options in --help order: the tool's, TLS, then the shared ones. */
static const struct lg_option *nth_option(const struct lg_cmdline *cl, size_t i, const char **group)
{
    if (i < cl->n_options) {
        *group = cl->options[i].group;
        return &cl->options[i];
    }
    i -= cl->n_options;
    if (cl->tls) {
        if (i < N_TLS) {
            *group = cl->tls_group;
            return &tls_options[i];
        }
        i -= N_TLS;
    }
    if (i < N_SHARED) {
        *group = shared_options[i].group;
        return &shared_options[i];
    }
    return NULL;
}

static void print_help(const struct lg_cmdline *cl)
{
    printf("Usage: %s %s\n%s\n", cl->tool, cl->synopsis, cl->about);
    const char *group = NULL, *last = NULL;
    const struct lg_option *o;
    for (size_t i = 0; (o = nth_option(cl, i, &group)); i++) {
        if (!o->display) continue;
        if (group && *group && (!last || strcmp(group, last) != 0)) printf("%s:\n", group);
        last = group;
        char help[512];
        if (o->id == LG_OPT_TIMEOUT)
            snprintf(help, sizeof(help), o->help, cl->timeout_default);
        else
            snprintf(help, sizeof(help), "%s", o->help);
        const char *line = help;
        if (strlen(o->display) > 24)
            printf("  %s\n%27s", o->display, "");
        else
            printf("  %-24s ", o->display);
        for (;;) {
            const char *nl = strchr(line, '\n');
            printf("%.*s\n", (int)(nl ? nl - line : (long)strlen(line)), line);
            if (!nl) break;
            line = nl + 1;
            printf("%27s", "");
        }
    }
    if (cl->epilog) printf("\n%s", cl->epilog);
    printf("\n%s", exit_statuses);
}

static int tls_option(const char *tool, struct lg_tls_options *t, int opt, const char *arg)
{
    unsigned long long u;
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
    case LG_OPT_MAX_HANDSHAKES:
        if (lg_parse_unsigned(arg, 1, 1000000, &u) < 0)
            lg_usage_error(tool, "--max-handshakes: '%s' is not a count from 1 to 1000000", arg);
        t->max_handshakes = (unsigned)u;
        return 1;
    default:
        return 0;
    }
}

/* The options of the load: clients, levels, duration, rate. 1 when opt
 * was one of them, 0 when not; exits on a bad value. */
static int load_option(struct lg_config *cfg, int opt, const char *arg)
{
    const char *tool = cfg->tool;
    unsigned long long u;
    switch (opt) {
    case 'c':
        if (lg_parse_unsigned(arg, 1, 10000000, &u) < 0)
            lg_usage_error(tool, "--clients: '%s' is not a client count from 1 to 10000000", arg);
        free(cfg->levels);
        cfg->levels = malloc(sizeof(unsigned));
        if (!cfg->levels) lg_out_of_memory(tool, "reading the options");
        cfg->levels[0] = (unsigned)u;
        cfg->n_levels = 1;
        return 1;
    case LG_OPT_LEVELS: {
        free(cfg->levels);
        cfg->levels = NULL;
        int rc = lg_parse_levels(arg, &cfg->levels, &cfg->n_levels);
        if (rc == LG_NO_MEMORY) lg_out_of_memory(tool, "reading --levels");
        if (rc < 0)
            lg_usage_error(tool,
                           "--levels: '%s' is not a list of distinct client counts (example: "
                           "1,16,64)",
                           arg);
        return 1;
    }
    case 'd':
        if (lg_parse_duration(arg, &cfg->duration_ns) < 0)
            lg_usage_error(tool, "--duration: '%s' is not a duration (examples: 500ms, 10s, 2m)",
                           arg);
        cfg->duration_given = true;
        return 1;
    case 'n':
        if (lg_parse_unsigned(arg, 1, 1000000000000ull, &u) < 0)
            lg_usage_error(tool, "--requests: '%s' is not a request count from 1 to 10^12", arg);
        cfg->level_requests = u;
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
    case LG_OPT_CONN_REQUESTS:
        if (lg_parse_unsigned(arg, 1, 1000000000, &u) < 0)
            lg_usage_error(
                tool, "--conn-requests: '%s' is not a request count from 1 to 1000000000", arg);
        cfg->conn_requests = u;
        return 1;
    case 't':
        if (lg_parse_unsigned(arg, 1, 256, &u) < 0)
            lg_usage_error(tool, "--threads: '%s' is not a thread count from 1 to 256", arg);
        cfg->threads = (unsigned)u;
        return 1;
    case 'R': {
        const char *why;
        if (lg_parse_rate(arg, &cfg->rate, &why) < 0)
            lg_usage_error(tool, "--rate: '%s' %s", arg, why);
        return 1;
    }
    case LG_OPT_FAIL_FAST:
        cfg->fail_fast = true;
        return 1;
    case LG_OPT_SOURCE:
        lg_source_option(cfg, arg);
        return 1;
    case LG_OPT_RAMP:
        if (lg_parse_duration(arg, &cfg->ramp_ns) < 0)
            lg_usage_error(tool, "--ramp: '%s' is not a duration (examples: 500ms, 10s)", arg);
        return 1;
    case LG_OPT_MAX_ERROR_RATE:
        if (lg_parse_double(arg, 0, 1, &cfg->max_error_rate) < 0)
            lg_usage_error(tool, "--max-error-rate: '%s' is not a ratio from 0 to 1 (0.01 = 1%%)",
                           arg);
        return 1;
    default:
        return 0;
    }
}

/* The options of what comes out: the document, --meta, --log, stderr. 1
 * when opt was one of them, 0 when not; exits on a bad value. */
static int output_option(struct lg_config *cfg, int opt, const char *arg)
{
    const char *tool = cfg->tool;
    unsigned long long u;
    switch (opt) {
    case LG_OPT_MAX_SAMPLES:
        if (lg_parse_unsigned(arg, 1, 1000000000, &u) < 0)
            lg_usage_error(tool, "--max-samples: '%s' is not a count from 1 to 1000000000", arg);
        cfg->max_samples = (size_t)u;
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
    case 'o':
        cfg->output_path = arg;
        return 1;
    case LG_OPT_MAX_DOC_BYTES:
        if (lg_parse_size(arg, 256, &cfg->max_doc_bytes) < 0)
            lg_usage_error(tool,
                           "--max-doc-bytes: '%s' is not a size of at least 256 bytes (examples: "
                           "60000, 64k, 1M)",
                           arg);
        return 1;
    default:
        return 0;
    }
}

/* The options of a run across machines. 1 when opt was one of them, 0 when
 * not; exits on a bad value. */
static int scale_option(struct lg_config *cfg, int opt, const char *arg)
{
    const char *tool = cfg->tool;
    switch (opt) {
    case LG_OPT_SHARD:
        if (lg_parse_shard(arg, &cfg->shard_index, &cfg->shard_count) < 0)
            lg_usage_error(tool, "--shard: '%s' is not I/N with 0 <= I < N (example: 0/4)", arg);
        return 1;
    case LG_OPT_START_AT:
        if (lg_parse_start_at(arg, &cfg->start_at_ns) < 0)
            lg_usage_error(tool,
                           "--start-at: '%s' is not a time in RFC 3339 with a zone "
                           "(2026-12-01T10:00:00Z) or @EPOCH[.FRACTION]",
                           arg);
        return 1;
    case LG_OPT_MAX_LATE:
        if (lg_parse_duration(arg, &cfg->max_late_ns) < 0)
            lg_usage_error(tool, "--max-late: '%s' is not a duration (examples: 500ms, 1s)", arg);
        return 1;
    case LG_OPT_CLOCK_REF:
        cfg->clock_ref = arg;
        return 1;
    case LG_OPT_RUN_ID:
        if (!*arg || strlen(arg) > 200)
            lg_usage_error(tool, "--run-id: give a name of 1 to 200 characters");
        cfg->run_id = arg;
        return 1;
    default:
        return 0;
    }
}

/* The options of the machine check (preflight.h). 1 when opt was one of
 * them, 0 when not; exits on a bad value. */
static int machine_option(struct lg_config *cfg, int opt, const char *arg)
{
    const char *tool = cfg->tool;
    switch (opt) {
    case LG_OPT_PREFLIGHT:
        cfg->preflight = true;
        return 1;
    case LG_OPT_REQUIRE_FIT:
        cfg->require_fit = true;
        return 1;
    case LG_OPT_VERBOSE:
        cfg->verbose = true;
        return 1;
    case LG_OPT_MAX_TIMER_FLOOR:
        if (lg_parse_duration(arg, &cfg->max_timer_floor_ns) < 0 || cfg->max_timer_floor_ns < 1000)
            lg_usage_error(tool,
                           "--max-timer-floor: '%s' is not a duration of at least 1us (examples: "
                           "200us, 1ms)",
                           arg);
        return 1;
    default:
        return 0;
    }
}

static int config_option(struct lg_config *cfg, int opt, const char *arg)
{
    return load_option(cfg, opt, arg) || output_option(cfg, opt, arg) ||
           scale_option(cfg, opt, arg) || machine_option(cfg, opt, arg);
}

/* The habit another tool's users have for the letter, or NULL. */
static const struct lg_habit *habit_of(const struct lg_cmdline *cl, int letter)
{
    for (size_t i = 0; i < cl->n_habits; i++)
        if (cl->habits[i].short_name == letter) return &cl->habits[i];
    return NULL;
}

/* "dnsperf's -Q (...) is -R/--rate here" */
static const char *habit_text(const struct lg_habit *h, char *buf, size_t len)
{
    snprintf(buf, len, "%s is %s here", h->there, h->here);
    return buf;
}

/* Whether the option getopt just returned, which takes a value, was written
 * with its letter (-d 5s, -d5s) rather than its name (--duration 5s). */
static bool value_given_short(char **argv)
{
    const char *element =
        optind >= 2 && optarg == argv[optind - 1] ? argv[optind - 2] : argv[optind - 1];
    return element[0] == '-' && element[1] != '-';
}

static bool all_digits(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return false;
    return true;
}

/* Option `letter`, which takes no value here, was written alone (-q) and a
 * number follows it: another tool's users give that letter a value. */
static void check_valueless_habit(const struct lg_cmdline *cl, int letter, int argc, char **argv)
{
    const struct lg_habit *h = habit_of(cl, letter);
    const char *alone = argv[optind - 1];
    if (!h || alone[0] != '-' || alone[1] != letter || alone[2] || optind >= argc ||
        !all_digits(argv[optind]))
        return;
    const char *name = NULL;
    const char *group;
    const struct lg_option *o;
    for (size_t i = 0; (o = nth_option(cl, i, &group)); i++)
        if (o->short_name == letter) name = o->name;
    char text[256];
    lg_usage_error(cl->tool, "-%c %s: -%c is --%s here and takes no value; %s", letter,
                   argv[optind], letter, name ? name : "?", habit_text(h, text, sizeof(text)));
}

/* An option getopt does not know: a letter another tool's users type, or a
 * name near one of ours (--clinets), is said so. */
__attribute__((noreturn)) static void unknown_option(const struct lg_cmdline *cl, const char *given)
{
    char text[256];
    const struct lg_habit *h = optopt && optopt < 256 ? habit_of(cl, optopt) : NULL;
    if (h)
        lg_usage_error(cl->tool, "unknown option -%c: %s", optopt,
                       habit_text(h, text, sizeof(text)));
    if (optopt && optopt < 256) lg_usage_error(cl->tool, "unknown option -%c", optopt);
    if (strncmp(given, "--", 2) == 0) {
        char name[STATS_NEAREST_MAX_LEN + 1];
        size_t len = strcspn(given + 2, "=");
        if (len < sizeof(name)) {
            memcpy(name, given + 2, len);
            name[len] = '\0';
            struct stats_nearest near;
            stats_nearest_init(&near, name);
            const char *group;
            const struct lg_option *o;
            for (size_t i = 0; (o = nth_option(cl, i, &group)); i++)
                stats_nearest_offer(&near, o->name);
            if (near.best)
                lg_usage_error(cl->tool, "unknown option %s: did you mean --%s?", given, near.best);
        }
    }
    lg_usage_error(cl->tool, "unknown option %s", given);
}

/* The option named `name` (len bytes), or NULL. */
static const struct lg_option *option_named(const struct lg_cmdline *cl, const char *name,
                                            size_t len)
{
    const char *group;
    const struct lg_option *o;
    for (size_t i = 0; (o = nth_option(cl, i, &group)); i++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) return o;
    return NULL;
}

/* vegeta's users write -rate 100 and -duration 10s: getopt would read
 * letters (-r, -d with "uration"). An option's name after one dash is said
 * to take two, before anything is read. Values of options are skipped. */
static void check_single_dash_names(const struct lg_cmdline *cl, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) return;
        if (a[0] != '-' || a[1] == '\0') continue; /* an operand */
        if (a[1] == '-') {                         /* --name VALUE: skip the value */
            const struct lg_option *o =
                strchr(a, '=') ? NULL : option_named(cl, a + 2, strlen(a + 2));
            if (o && o->has_arg == required_argument) i++;
            continue;
        }
        size_t len = strcspn(a + 1, "=");
        if (len > 1 && option_named(cl, a + 1, len))
            lg_usage_error(cl->tool, "%s: did you mean -%s? (an option's name takes two dashes)", a,
                           a);
        /* -cN, -c N: a letter that takes a value ends the cluster */
        for (const char *p = a + 1; *p; p++) {
            const char *group;
            const struct lg_option *o = NULL;
            for (size_t k = 0; (o = nth_option(cl, k, &group)); k++)
                if (o->short_name == *p) break;
            if (o && o->has_arg == required_argument) {
                if (!p[1]) i++;
                break;
            }
        }
    }
}

/* getopt's tables, made from ours, on the stack (about 4 KiB): a usage
 * error exits from inside the parse loop, and an allocation would then be a
 * leak, whose report (LeakSanitizer's) would add lines to the one-line
 * error. */
enum { MAX_OPTIONS = 128 };

int lg_cmdline_parse(const struct lg_cmdline *cl, int argc, char **argv, struct lg_config *cfg,
                     struct lg_tls_options *tls)
{
    size_t n = cl->n_options + (cl->tls ? N_TLS : 0) + N_SHARED;
    if (n > MAX_OPTIONS) lg_usage_error(cl->tool, "%zu options are more than the parser holds", n);
    struct option longopts[MAX_OPTIONS + 1];
    char shortopts[2 + 3 * MAX_OPTIONS];
    memset(longopts, 0, sizeof(longopts));
    size_t k = 0;
    shortopts[k++] = ':'; /* a missing value is reported as ':' */
    const char *group;
    const struct lg_option *o;
    for (size_t i = 0; (o = nth_option(cl, i, &group)); i++) {
        longopts[i] = (struct option){o->name, o->has_arg, NULL, o->id};
        if (o->short_name) {
            shortopts[k++] = (char)o->short_name;
            if (o->has_arg == required_argument) shortopts[k++] = ':';
            if (o->has_arg == optional_argument) shortopts[k++] = ':', shortopts[k++] = ':';
        }
    }
    shortopts[k] = '\0';
    check_single_dash_names(cl, argc, argv);
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == 'h' || opt == LG_OPT_HELP) {
            print_help(cl);
            exit(0);
        }
        if (opt == 'V' || opt == LG_OPT_VERSION) {
            cl->version();
            exit(0);
        }
        if (opt == ':') lg_usage_error(cl->tool, "%s needs a value", argv[optind - 1]);
        if (opt == '?') {
            const char *a = argv[optind - 1];
            /* getopt names a known long option given a value it does not take
             * by its id: say which option it was */
            if (optopt && strncmp(a, "--", 2) == 0)
                lg_usage_error(cl->tool, "option %.*s takes no value", (int)strcspn(a, "="), a);
            unknown_option(cl, a);
        }
        /* a value that does not fit ours, given to a letter another tool's
         * users know, says what that letter is here */
        char hint[256];
        const struct lg_habit *h = opt < 256 ? habit_of(cl, opt) : NULL;
        if (h && optarg && value_given_short(argv))
            lg_usage_hint(habit_text(h, hint, sizeof(hint)));
        if (h && !optarg) check_valueless_habit(cl, opt, argc, argv);
        bool taken =
            config_option(cfg, opt, optarg) || (cl->tls && tls_option(cl->tool, tls, opt, optarg));
        if (!taken) cl->handle(cl->ctx, opt, optarg);
        lg_usage_hint(NULL);
    }
    return optind;
}
