/* dnsload: command line, the queries encoded once, the server resolved once,
 * TLS set up for DoT and DoH, then the engine runs the levels with the
 * transport's driver. */
#include "dnsload/dns.h"
#include "dnsload/queries.h"
#include "proto/h2session.h"
#include "loadgen/options/names.h"
#include "loadgen/options/options.h"
#include "loadgen/transport/transport.h"

#include <ares.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *tool = "dnsload";

enum {
    OPT_SERVER = LG_OPT_TOOL_BASE,
    OPT_TRANSPORT,
    OPT_OUTSTANDING,
    OPT_QUERIES,
    OPT_QUERY,
    OPT_EDNS,
    OPT_DNSSEC,
    OPT_NO_RD,
    OPT_OK_RCODES,
    OPT_DOH_PATH,
    OPT_DOH_METHOD,
    OPT_IO_URING,
    OPT_NO_IO_URING,
    OPT_RESOLVE,
    OPT_CONNECT_TO,
};

/* the --help section of the query options */
#define QUERIES "Queries (sent in order, each client starting at its own offset)"

/* Only the shape is loadgen/options/cmdline.c's: these options are dnsload's alone (the shared
 * ones are rows there, once), as httpload's table holds httpload's. */
static const struct lg_option options[] = {
    {"server", 's', required_argument, 's', "Server", "-s, --server HOST",
     "IPv4 or IPv6 address, or a name resolved once at start"},
    {"port", 'p', required_argument, 'p', "Server", "-p, --port N",
     "port (default 53; 853 for dot; 443 for doh)"},
    {"transport", 0, required_argument, OPT_TRANSPORT, "Server", "    --transport T",
     "udp (default), tcp, dot (DNS over TLS), doh (DNS over\nHTTPS, HTTP/2)"},
    {"outstanding", 0, required_argument, OPT_OUTSTANDING, "Server", "    --outstanding N",
     "queries in flight per client (default 1: closed loop,\none at a time; 1..1024); "
     "pipelined on tcp and dot,\nconcurrent streams on doh"},
    {"io-uring", 0, no_argument, OPT_IO_URING, "Server", "    --io-uring",
     "udp: every send and receive through one io_uring per\nloop thread, what a turn of the "
     "loop queued going in\ntogether: fewer system calls for dnsload, but the\nserver "
     "pays about 5% more CPU per answer (not the\ndefault); a probe says if the ring "
     "wakes late here"},
    {"no-io-uring", 0, no_argument, OPT_NO_IO_URING, "Server", "    --no-io-uring",
     "udp: a system call per send and per receive (the\ndefault)"},
    {"resolve", 0, required_argument, OPT_RESOLVE, "Server", "    --resolve HOST:PORT:ADDR",
     "connect to ADDR for the server HOST:PORT, as curl: the\nname still goes into SNI and "
     "DoH's :authority ('*' any\nname; IPv6 in brackets; repeatable)"},
    {"connect-to", 0, required_argument, OPT_CONNECT_TO, "Server",
     "    --connect-to HOST:PORT:HOST2:PORT2",
     "connect to HOST2:PORT2 for the server HOST:PORT, as curl\n(an empty field: any, or "
     "unchanged; repeatable)"},
    {"queries", 0, required_argument, OPT_QUERIES, QUERIES, "    --queries FILE",
     "dnsperf's format: 'name TYPE' per line; blank lines and\nlines starting with # or ; "
     "are skipped (repeatable)"},
    {"query", 0, required_argument, OPT_QUERY, QUERIES, "    --query 'name TYPE'",
     "one query (repeatable); TYPE is a mnemonic (A, AAAA,\nMX, HTTPS, ...) or TYPEnnn"},
    {"edns", 0, optional_argument, OPT_EDNS, QUERIES, "    --edns[=SIZE]",
     "add an EDNS OPT record advertising SIZE (512..65535,\ndefault 1232)"},
    {"dnssec", 0, no_argument, OPT_DNSSEC, QUERIES, "    --dnssec",
     "set the DO bit (implies --edns)"},
    {"no-rd", 0, no_argument, OPT_NO_RD, QUERIES, "    --no-rd",
     "clear the RD (recursion desired) bit"},
    {"ok-rcodes", 0, required_argument, OPT_OK_RCODES, QUERIES, "    --ok-rcodes LIST",
     "rcodes that succeed, by name or number\n(default NOERROR,NXDOMAIN)"},
    {"doh-path", 0, required_argument, OPT_DOH_PATH, "DoH", "    --doh-path PATH",
     "request path (default /dns-query)"},
    {"doh-method", 0, required_argument, OPT_DOH_METHOD, "DoH", "    --doh-method M",
     "post (default: application/dns-message body) or get\n(?dns=base64url, DNS ID 0)"},
};

static const char epilog[] =
    "Answers: one counts when it comes from the server, carries an outstanding ID,\n"
    "has QR set and echoes the question. Error classes: servfail, refused, formerr,\n"
    "notimp, rcode_other, mismatch, malformed, icmp, timeout, send (and for doh:\n"
    "http_status, protocol, stream_reset). Counted apart, not errors: truncated (TC\n"
    "set; the answer still counts by its rcode), late (the answer to a query that\n"
    "had timed out), unexpected (an ID with nothing outstanding, a duplicate).\n";

/* dnsperf's letters that mean something else here, or nothing: a user who
 * types them by habit is told which option it is here. (-c, -s and -p mean
 * what they mean there.) */
static const struct lg_habit dnsperf_habits[] = {
    {'d', "dnsperf's -d (the query file)", "--queries FILE"},
    {'q', "dnsperf's -q (the most queries in flight)", "--outstanding N (per client)"},
    {'Q', "dnsperf's -Q (the most queries per second)", "-R/--rate"},
    {'l', "dnsperf's -l (the run's time limit)", "-d/--duration (per level)"},
    {'T', "dnsperf's -T (threads)", "-t/--threads"},
};

/* What the command line says, as the options come. */
struct args {
    struct dns_ctx *ctx;
    const char *server, *ok_rcodes;
    unsigned long long port, outstanding;
    bool doh_method_given;
    enum { RING_AUTO, RING_ON, RING_OFF } io_uring;
    struct dns_encode_opts enc;
    /* --queries and --query in command-line order, encoded once options are known */
    struct source {
        bool file;
        const char *arg;
    } * sources;
    size_t n_sources;
    struct lg_names names; /* --resolve, --connect-to */
};

static void take_option(void *p, int id, const char *arg)
{
    struct args *a = p;
    struct dns_ctx *ctx = a->ctx;
    switch (id) {
    case 's':
        a->server = arg;
        break;
    case 'p':
        if (lg_parse_unsigned(arg, 1, 65535, &a->port) < 0)
            lg_usage_error(tool, "--port: '%s' is not a port from 1 to 65535", arg);
        break;
    case OPT_TRANSPORT:
        if (strcasecmp(arg, "udp") == 0)
            ctx->transport = DNS_UDP;
        else if (strcasecmp(arg, "tcp") == 0)
            ctx->transport = DNS_TCP;
        else if (strcasecmp(arg, "dot") == 0 || strcasecmp(arg, "tls") == 0)
            ctx->transport = DNS_DOT;
        else if (strcasecmp(arg, "doh") == 0 || strcasecmp(arg, "https") == 0)
            ctx->transport = DNS_DOH;
        else
            lg_usage_error(tool, "--transport: '%s' is not one of udp, tcp, dot, doh", arg);
        break;
    case OPT_OUTSTANDING:
        if (lg_parse_unsigned(arg, 1, DNS_MAX_OUTSTANDING, &a->outstanding) < 0)
            lg_usage_error(tool, "--outstanding: '%s' is not a count from 1 to %u", arg,
                           DNS_MAX_OUTSTANDING);
        break;
    case OPT_QUERIES:
    case OPT_QUERY:
        a->sources[a->n_sources].file = id == OPT_QUERIES;
        a->sources[a->n_sources++].arg = arg;
        break;
    case OPT_EDNS:
        a->enc.edns_size = DNS_EDNS_DEFAULT;
        if (arg) {
            unsigned long long size;
            if (lg_parse_unsigned(arg, 512, 65535, &size) < 0)
                lg_usage_error(tool, "--edns: '%s' is not a UDP payload size from 512 to 65535",
                               arg);
            a->enc.edns_size = (unsigned)size;
        }
        break;
    case OPT_DNSSEC:
        a->enc.dnssec = true;
        break;
    case OPT_NO_RD:
        a->enc.rd = false;
        break;
    case OPT_OK_RCODES:
        a->ok_rcodes = arg;
        break;
    case OPT_DOH_PATH:
        if (arg[0] != '/' || strpbrk(arg, " \t\r\n#"))
            lg_usage_error(tool, "--doh-path: '%s' is not a path (example: /dns-query)", arg);
        ctx->doh_path = arg;
        break;
    case OPT_DOH_METHOD:
        if (strcasecmp(arg, "get") == 0)
            ctx->doh_get = true;
        else if (strcasecmp(arg, "post") == 0)
            ctx->doh_get = false;
        else
            lg_usage_error(tool, "--doh-method: '%s' is not get or post", arg);
        a->doh_method_given = true;
        break;
    case OPT_IO_URING:
        a->io_uring = RING_ON;
        break;
    case OPT_NO_IO_URING:
        a->io_uring = RING_OFF;
        break;
    case OPT_RESOLVE:
    case OPT_CONNECT_TO:
        lg_names_option(tool, &a->names, id == OPT_CONNECT_TO, arg);
        break;
    }
}

static void print_version(void)
{
    printf("%s %s (c-ares %s, nghttp2 %s)\n", tool, PACKAGE_VERSION, ares_version(NULL),
           lg_h2_version());
}

static void parse_ok_rcodes(struct dns_ctx *ctx, const char *list)
{
    memset(ctx->ok_rcode, 0, sizeof(ctx->ok_rcode));
    char *copy = strdup(list);
    if (!copy) lg_out_of_memory(tool, "reading --ok-rcodes");
    bool any = false;
    char *save = NULL;
    for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        int rcode = dns_rcode_parse(p);
        if (rcode < 0) {
            /* copy the word out before freeing what it points into */
            char word[64];
            snprintf(word, sizeof(word), "%s", p);
            free(copy);
            lg_usage_error(tool,
                           "--ok-rcodes: '%s' is not an rcode (a name like NXDOMAIN or a "
                           "number 0..4095)",
                           word);
        }
        ctx->ok_rcode[rcode] = true;
        any = true;
    }
    free(copy);
    if (!any)
        lg_usage_error(tool, "--ok-rcodes: '%s' names no rcode (example: NOERROR,NXDOMAIN)", list);
}

/* HOST may be written [v6]; returns the bare host in buf. */
static const char *bare_host(const char *host, char *buf, size_t len)
{
    size_t n = strlen(host);
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < len) {
        memcpy(buf, host + 1, n - 2);
        buf[n - 2] = '\0';
        return buf;
    }
    return host;
}

/* Encodes the queries of --queries and --query, in command-line order. */
static void load_queries(struct dns_ctx *ctx, struct args *a)
{
    int init = ares_library_init(ARES_LIB_INIT_ALL);
    if (init == ARES_ENOMEM) lg_out_of_memory(tool, "initialising c-ares");
    if (init != ARES_SUCCESS) lg_usage_error(tool, "cannot initialise c-ares");
    char err[512];
    for (size_t i = 0; i < a->n_sources; i++) {
        int rc =
            a->sources[i].file
                ? dns_queries_load(&ctx->queries, a->sources[i].arg, &a->enc, err, sizeof(err))
                : dns_queries_add_text(&ctx->queries, a->sources[i].arg, &a->enc, err, sizeof(err));
        if (rc == LG_NO_MEMORY) lg_out_of_memory(tool, "encoding the queries");
        if (rc < 0)
            lg_usage_error(tool, "%s%s", a->sources[i].file ? "--queries " : "--query: ", err);
    }
    free(a->sources);
    a->sources = NULL;
    if (ctx->queries.n == 0) lg_usage_error(tool, "--queries: the files hold no queries");
    if (ctx->transport == DNS_DOH && ctx->doh_get &&
        dns_queries_build_get(&ctx->queries, ctx->doh_path) < 0)
        lg_out_of_memory(tool, "encoding the DoH GET targets");
}

/* TLS for DoT and DoH (ALPN dot or h2), and DoH's :authority in `authority`
 * (len bytes): --sni's name, else the host, with the port unless 443. */
static void setup_tls(struct dns_ctx *ctx, const struct lg_tls_options *tlsopt, const char *host,
                      unsigned long long port, struct lg_tls_config *tlscfg, char *authority,
                      size_t len)
{
    static const unsigned char alpn_dot[] = "\x03"
                                            "dot";
    static const unsigned char alpn_h2[] = "\x02"
                                           "h2";
    bool doh = ctx->transport == DNS_DOH;
    char err[512];
    int rc = lg_tls_setup(tlscfg, tlsopt, host, doh ? alpn_h2 : alpn_dot,
                          doh ? sizeof(alpn_h2) - 1 : sizeof(alpn_dot) - 1, err, sizeof(err));
    if (rc == LG_NO_MEMORY) lg_out_of_memory(tool, "setting up TLS");
    if (rc == LG_TLS_UNAVAILABLE) lg_cannot_run(tool, err);
    if (rc < 0) lg_usage_error(tool, "%s", err);
    const char *name = tlsopt->sni ? tlsopt->sni : host;
    bool v6 = strchr(name, ':') != NULL;
    if (port == 443)
        snprintf(authority, len, v6 ? "[%s]" : "%s", name);
    else
        snprintf(authority, len, v6 ? "[%s]:%llu" : "%s:%llu", name, port);
    ctx->authority = authority;
}

/* Checks across options once they are all read. */
static void check_args(struct dns_ctx *ctx, struct args *a, const struct lg_tls_options *tlsopt,
                       int first, int argc, char **argv)
{
    if (first < argc)
        lg_usage_error(tool, "unexpected argument '%s' (the server is given with --server)",
                       argv[first]);
    if (!a->server) lg_usage_error(tool, "missing --server HOST");
    /* dnsperf takes the port apart (-p), as this tool does */
    char host[256];
    unsigned long long port = 0;
    if (lg_parse_host_port(a->server, host, sizeof(host), &port) == 0 && port)
        lg_usage_error(tool, "--server: '%s' holds a port: give --server %s --port %llu", a->server,
                       host, port);
    if (!a->n_sources)
        lg_usage_error(tool, "no queries: give --queries FILE or --query 'name TYPE'");
    if (a->enc.dnssec && !a->enc.edns_size) a->enc.edns_size = DNS_EDNS_DEFAULT;
    parse_ok_rcodes(ctx, a->ok_rcodes);
    bool tls = ctx->transport == DNS_DOT || ctx->transport == DNS_DOH;
    if (!tls && lg_tls_options_given(tlsopt))
        fprintf(stderr, "%s: note: TLS options are ignored for --transport %s\n", tool,
                ctx->transport == DNS_UDP ? "udp" : "tcp");
    if (ctx->transport != DNS_DOH && a->doh_method_given)
        fprintf(stderr, "%s: note: --doh-method is ignored without --transport doh\n", tool);
    if (a->io_uring == RING_ON && ctx->transport != DNS_UDP)
        lg_usage_error(tool, "--io-uring is for --transport udp");
}

static const char *const transport_names[] = {"udp", "tcp", "dot", "doh"};

/* What the preflight needs to know of the transport: what a client costs in
 * memory (bench/memory measured HTTP clients only, doc/performance.md's
 * table, 2026-12-01: each transport takes the figure of the client that
 * holds the same connection, one socket without TLS, TLS, or HTTP/2 over
 * TLS), the largest answer a UDP client's socket may have to hold per query
 * (the EDNS size it advertises, else 512 bytes), and the query --preflight
 * sends as its one probe over UDP. */
static void client_cost(const struct dns_ctx *ctx, const struct dns_encode_opts *enc,
                        struct lg_config *cfg)
{
    switch (ctx->transport) {
    case DNS_UDP:
    case DNS_TCP:
        cfg->client_memory_bytes = 0.64 * 1024;
        cfg->client_memory_source = "not measured for DNS: bench/memory's HTTP/1.1 client, one "
                                    "socket without TLS";
        break;
    case DNS_DOT:
        cfg->client_memory_bytes = 45.4 * 1024;
        cfg->client_memory_source = "not measured for DNS: bench/memory's HTTP/1.1 over TLS";
        break;
    case DNS_DOH:
        cfg->client_memory_bytes = 58.3 * 1024;
        cfg->client_memory_source = "bench/memory: HTTP/2 over TLS";
        break;
    }
    cfg->answer_bytes = enc->edns_size ? enc->edns_size : 512;
    if (ctx->transport == DNS_UDP && ctx->queries.n) {
        cfg->probe_datagram = dns_query_packet(&ctx->queries, 0);
        cfg->probe_datagram_len = ctx->queries.q[0].len;
    }
}

/* Whether UDP goes through an io_uring, and why, for --meta. Only when asked
 * (--io-uring): the ring saves the generator system calls, but a reply's
 * completion costs the server's send path 0.4-1.0 us more than a plain
 * socket's wake-up (unbound 9.3-9.8 us of its CPU per answer against
 * 8.8-9.1, knot 10.2-11.1 against 9.8-10.1, bench/dns-server-cost), so
 * against a server at its limit the ring measured 2-9% fewer answers: a
 * default must not move the target's numbers (issue 39). --io-uring runs the
 * probe (lg_udp_ring_probe) and says when a loop asleep beside the ring
 * wakes late here, then runs on it as asked. */
static bool choose_io_uring(const struct args *a, const struct dns_ctx *ctx, char *why,
                            size_t why_len)
{
    if (ctx->transport != DNS_UDP) {
        snprintf(why, why_len, "not udp");
        return false;
    }
    if (a->io_uring != RING_ON) {
        snprintf(why, why_len, a->io_uring == RING_OFF ? "--no-io-uring" : "the default");
        return false;
    }
    char probe[200];
    int rc = lg_udp_ring_probe(probe, sizeof(probe));
    if (rc < 0) { /* asked for, and not to be had: the run cannot be carried out */
        fprintf(stderr, "%s: --io-uring: %s\n", tool, probe);
        exit(4);
    }
    if (rc > 0) fprintf(stderr, "%s: --io-uring: %s; running on it as asked\n", tool, probe);
    snprintf(why, why_len, "--io-uring (%s)", probe);
    return true;
}

int main(int argc, char **argv)
{
    lg_signals_block();
    struct lg_config cfg;
    lg_config_defaults(&cfg, tool, 2ull * 1000000000u);
    cfg.argc = argc;
    cfg.argv = argv;
    /* Static: the ok-rcode table is 4 KiB, and the context lives for the run. */
    static struct dns_ctx ctx;
    ctx.transport = DNS_UDP;
    ctx.doh_path = "/dns-query";
    struct lg_tls_options tlsopt = {0};
    struct args a = {.ctx = &ctx, .ok_rcodes = "NOERROR,NXDOMAIN", .outstanding = 1};
    a.enc.rd = true;
    a.sources = calloc((size_t)argc, sizeof(*a.sources));
    if (!a.sources) lg_out_of_memory(tool, "reading the options");
    const struct lg_cmdline cl = {
        .tool = tool,
        .synopsis = "[options] --server HOST",
        .about = "DNS load over UDP, TCP, DoT and DoH: every logical client owns one UDP socket "
                 "or\none connection for the whole level; one JSON document of raw samples on "
                 "stdout,\na summary on stderr.\n",
        .options = options,
        .n_options = sizeof(options) / sizeof(options[0]),
        .tls = true,
        .tls_group = "TLS (dot, doh)",
        .epilog = epilog,
        .timeout_default = "2s",
        .version = print_version,
        .handle = take_option,
        .ctx = &a,
        .habits = dnsperf_habits,
        .n_habits = sizeof(dnsperf_habits) / sizeof(dnsperf_habits[0]),
    };
    int first = lg_cmdline_parse(&cl, argc, argv, &cfg, &tlsopt);
    check_args(&ctx, &a, &tlsopt, first, argc, argv);
    lg_config_finish(&cfg);
    load_queries(&ctx, &a);
    cfg.slots = (unsigned)a.outstanding;
    cfg.slots_option = "--outstanding";

    char hostbuf[256];
    const char *host = bare_host(a.server, hostbuf, sizeof(hostbuf));
    unsigned long long port = a.port;
    if (!port) port = ctx.transport == DNS_DOT ? 853 : ctx.transport == DNS_DOH ? 443 : 53;
    struct lg_target target;
    memset(&target, 0, sizeof(target));
    lg_names_resolve(tool, "--server", &a.names, host, (unsigned)port, ctx.transport == DNS_UDP,
                     &target);
    struct lg_tls_config tlscfg;
    memset(&tlscfg, 0, sizeof(tlscfg));
    char authority[300];
    bool tls = ctx.transport == DNS_DOT || ctx.transport == DNS_DOH;
    if (tls) {
        setup_tls(&ctx, &tlsopt, host, port, &tlscfg, authority, sizeof(authority));
        target.tls = &tlscfg;
    }
    char ring_why[320];
    bool ring = choose_io_uring(&a, &ctx, ring_why, sizeof(ring_why));
    if (ring) target.datagram_transport = &lg_transport_udp_ring;
    char desc[400];
    snprintf(desc, sizeof(desc), "%s://%s%s%s:%llu", transport_names[ctx.transport],
             strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", port);
    cfg.target_desc = desc;
    if (ctx.transport == DNS_DOH && doh_prepare(&ctx) < 0)
        lg_out_of_memory(tool, "preparing the DoH requests");

    client_cost(&ctx, &a.enc, &cfg);
    ctx.udp_answer_max = cfg.answer_bytes;
    const struct lg_driver *drv = ctx.transport == DNS_UDP   ? &dns_udp_driver
                                  : ctx.transport == DNS_DOH ? &dns_doh_driver
                                                             : &dns_tcp_driver;
    const struct lg_meta_field fields[] = {
        {"transport", LG_META_STR, transport_names[ctx.transport], 0, false},
        {"queries", LG_META_NUM, NULL, (double)ctx.queries.n, false},
        {"outstanding", LG_META_NUM, NULL, (double)a.outstanding, false},
        {"edns", LG_META_NUM, NULL, a.enc.edns_size, false},
        {"dnssec", LG_META_BOOL, NULL, 0, a.enc.dnssec},
        {"rd", LG_META_BOOL, NULL, 0, a.enc.rd},
        {"doh_method", LG_META_STR, ctx.doh_get ? "get" : "post", 0, false},
        {"io_uring", LG_META_BOOL, NULL, 0, ring},
        {"io_uring_why", LG_META_STR, ring_why, 0, false},
        {"c-ares", LG_META_STR, ares_version(NULL), 0, false},
        {"nghttp2", LG_META_STR, lg_h2_version(), 0, false},
    };
    const struct lg_meta_section extra = {"dns", fields, sizeof(fields) / sizeof(fields[0])};
    int status = lg_run(&cfg, drv, &target, &ctx, &extra);

    if (tls) lg_tls_config_free(&tlscfg);
    doh_free(&ctx);
    dns_queries_free(&ctx.queries);
    ares_library_cleanup();
    lg_names_free(&a.names);
    lg_config_free(&cfg);
    return status;
}
