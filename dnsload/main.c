/* dnsload: command line, the queries encoded once, the server resolved once,
 * TLS set up for DoT and DoH, then the engine runs the levels with the
 * transport's driver. */
#include "dnsload/dns.h"
#include "dnsload/queries.h"
#include "loadgen/h2session.h"
#include "loadgen/options.h"
#include "loadgen/transport.h"

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
};

static void usage(void)
{
    printf("Usage: %s [options] --server HOST\n"
           "DNS load over UDP, TCP, DoT and DoH: every logical client owns one UDP socket or\n"
           "one connection for the whole level; one JSON document of raw samples on stdout,\n"
           "a summary on stderr.\n\n"
           "Server:\n"
           "  -s, --server HOST        IPv4 or IPv6 address, or a name resolved once at start\n"
           "  -p, --port N             port (default 53; 853 for dot; 443 for doh)\n"
           "      --transport T        udp (default), tcp, dot (DNS over TLS), doh (DNS over\n"
           "                           HTTPS, HTTP/2)\n"
           "      --outstanding N      queries in flight per client (default 1: closed loop,\n"
           "                           one at a time; 1..%u); pipelined on tcp and dot,\n"
           "                           concurrent streams on doh\n"
           "Queries (sent in order, each client starting at its own offset):\n"
           "      --queries FILE       dnsperf's format: 'name TYPE' per line; blank lines and\n"
           "                           lines starting with # or ; are skipped (repeatable)\n"
           "      --query 'name TYPE'  one query (repeatable); TYPE is a mnemonic (A, AAAA,\n"
           "                           MX, HTTPS, ...) or TYPEnnn\n"
           "      --edns[=SIZE]        add an EDNS OPT record advertising SIZE (512..65535,\n"
           "                           default 1232)\n"
           "      --dnssec             set the DO bit (implies --edns)\n"
           "      --no-rd              clear the RD (recursion desired) bit\n"
           "      --ok-rcodes LIST     rcodes that succeed, by name or number\n"
           "                           (default NOERROR,NXDOMAIN)\n"
           "TLS (dot, doh):\n"
           "  -k, --insecure           do not verify the server certificate\n"
           "      --cacert FILE        trust the CA certificates in FILE (PEM) too\n"
           "      --sni NAME           server name to send and verify (default: HOST when it\n"
           "                           is a name); also the DoH :authority\n"
           "      --tls-resume         resume a client's TLS session when it reconnects\n"
           "DoH:\n"
           "      --doh-path PATH      request path (default /dns-query)\n"
           "      --doh-method M       post (default: application/dns-message body) or get\n"
           "                           (?dns=base64url, DNS ID 0)\n"
           "%s"
           "  -h, --help               this help\n"
           "  -V, --version            version\n\n"
           "Answers: one counts when it comes from the server, carries an outstanding ID,\n"
           "has QR set and echoes the question. Error classes: servfail, refused, formerr,\n"
           "notimp, rcode_other, mismatch, malformed, icmp, timeout, send (and for doh:\n"
           "http_status, protocol, stream_reset). Counted apart, not errors: truncated (TC\n"
           "set; the answer still counts by its rcode), late (the answer to a query that\n"
           "had timed out), unexpected (an ID with nothing outstanding, a duplicate).\n\n"
           "Exit status: 0 success; 1 errors above --max-error-rate (the document is still\n"
           "printed); 2 bad usage or input; 3 a level was invalid; 4 the run failed;\n"
           "130 interrupted (the document holds what was measured).\n",
           tool, DNS_MAX_OUTSTANDING, lg_common_help);
}

static void parse_ok_rcodes(struct dns_ctx *ctx, const char *list)
{
    memset(ctx->ok_rcode, 0, sizeof(ctx->ok_rcode));
    char *copy = strdup(list);
    if (!copy) lg_usage_error(tool, "out of memory");
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

int main(int argc, char **argv)
{
    struct lg_config cfg;
    lg_config_defaults(&cfg, tool, 2ull * 1000000000u);
    cfg.argc = argc;
    cfg.argv = argv;
    /* Static: the ok-rcode table is 4 KiB, and the context lives for the run. */
    static struct dns_ctx ctx;
    ctx.transport = DNS_UDP;
    ctx.doh_path = "/dns-query";
    struct lg_tls_options tlsopt = {0};
    const char *server = NULL, *ok_rcodes = "NOERROR,NXDOMAIN";
    unsigned long long port = 0, outstanding = 1;
    bool doh_method_given = false;
    struct dns_encode_opts enc = {.rd = true};
    /* --queries and --query in command-line order, encoded once options are known */
    struct source {
        bool file;
        const char *arg;
    } *sources = calloc((size_t)argc, sizeof(*sources));
    size_t n_sources = 0;
    if (!sources) lg_usage_error(tool, "out of memory");

    static const struct option longopts[] = {
        LG_COMMON_LONGOPTS,
        {"server", required_argument, NULL, 's'},
        {"port", required_argument, NULL, 'p'},
        {"transport", required_argument, NULL, OPT_TRANSPORT},
        {"outstanding", required_argument, NULL, OPT_OUTSTANDING},
        {"queries", required_argument, NULL, OPT_QUERIES},
        {"query", required_argument, NULL, OPT_QUERY},
        {"edns", optional_argument, NULL, OPT_EDNS},
        {"dnssec", no_argument, NULL, OPT_DNSSEC},
        {"no-rd", no_argument, NULL, OPT_NO_RD},
        {"ok-rcodes", required_argument, NULL, OPT_OK_RCODES},
        LG_TLS_LONGOPTS,
        {"doh-path", required_argument, NULL, OPT_DOH_PATH},
        {"doh-method", required_argument, NULL, OPT_DOH_METHOD},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, ":" LG_COMMON_SHORTOPTS "s:p:khV", longopts, NULL)) !=
           -1) {
        if (lg_config_option(&cfg, opt, optarg)) continue;
        if (lg_tls_option(&tlsopt, opt, optarg)) continue;
        switch (opt) {
        case 's':
            server = optarg;
            break;
        case 'p':
            if (lg_parse_unsigned(optarg, 1, 65535, &port) < 0)
                lg_usage_error(tool, "--port: '%s' is not a port from 1 to 65535", optarg);
            break;
        case OPT_TRANSPORT:
            if (strcasecmp(optarg, "udp") == 0)
                ctx.transport = DNS_UDP;
            else if (strcasecmp(optarg, "tcp") == 0)
                ctx.transport = DNS_TCP;
            else if (strcasecmp(optarg, "dot") == 0 || strcasecmp(optarg, "tls") == 0)
                ctx.transport = DNS_DOT;
            else if (strcasecmp(optarg, "doh") == 0 || strcasecmp(optarg, "https") == 0)
                ctx.transport = DNS_DOH;
            else
                lg_usage_error(tool, "--transport: '%s' is not one of udp, tcp, dot, doh", optarg);
            break;
        case OPT_OUTSTANDING:
            if (lg_parse_unsigned(optarg, 1, DNS_MAX_OUTSTANDING, &outstanding) < 0)
                lg_usage_error(tool, "--outstanding: '%s' is not a count from 1 to %u", optarg,
                               DNS_MAX_OUTSTANDING);
            break;
        case OPT_QUERIES:
        case OPT_QUERY:
            sources[n_sources].file = opt == OPT_QUERIES;
            sources[n_sources++].arg = optarg;
            break;
        case OPT_EDNS:
            enc.edns_size = DNS_EDNS_DEFAULT;
            if (optarg) {
                unsigned long long size;
                if (lg_parse_unsigned(optarg, 512, 65535, &size) < 0)
                    lg_usage_error(tool, "--edns: '%s' is not a UDP payload size from 512 to 65535",
                                   optarg);
                enc.edns_size = (unsigned)size;
            }
            break;
        case OPT_DNSSEC:
            enc.dnssec = true;
            break;
        case OPT_NO_RD:
            enc.rd = false;
            break;
        case OPT_OK_RCODES:
            ok_rcodes = optarg;
            break;
        case OPT_DOH_PATH:
            if (optarg[0] != '/' || strpbrk(optarg, " \t\r\n#"))
                lg_usage_error(tool, "--doh-path: '%s' is not a path (example: /dns-query)",
                               optarg);
            ctx.doh_path = optarg;
            break;
        case OPT_DOH_METHOD:
            if (strcasecmp(optarg, "get") == 0)
                ctx.doh_get = true;
            else if (strcasecmp(optarg, "post") == 0)
                ctx.doh_get = false;
            else
                lg_usage_error(tool, "--doh-method: '%s' is not get or post", optarg);
            doh_method_given = true;
            break;
        case 'h':
            usage();
            free(sources);
            lg_config_free(&cfg);
            return 0;
        case 'V':
            printf("%s %s (c-ares %s, nghttp2 %s)\n", tool, PACKAGE_VERSION, ares_version(NULL),
                   lg_h2_version());
            free(sources);
            lg_config_free(&cfg);
            return 0;
        case ':':
            lg_usage_error(tool, "%s needs a value", argv[optind - 1]);
        default:
            if (optopt && optopt < 256) lg_usage_error(tool, "unknown option -%c", optopt);
            lg_usage_error(tool, "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        lg_usage_error(tool, "unexpected argument '%s' (the server is given with --server)",
                       argv[optind]);
    if (!server) lg_usage_error(tool, "missing --server HOST");
    if (!n_sources) lg_usage_error(tool, "no queries: give --queries FILE or --query 'name TYPE'");
    lg_config_finish(&cfg);
    if (enc.dnssec && !enc.edns_size) enc.edns_size = DNS_EDNS_DEFAULT;
    parse_ok_rcodes(&ctx, ok_rcodes);
    bool tls = ctx.transport == DNS_DOT || ctx.transport == DNS_DOH;
    if (!tls && lg_tls_options_given(&tlsopt))
        fprintf(stderr, "%s: note: TLS options are ignored for --transport %s\n", tool,
                ctx.transport == DNS_UDP ? "udp" : "tcp");
    if (ctx.transport != DNS_DOH && doh_method_given)
        fprintf(stderr, "%s: note: --doh-method is ignored without --transport doh\n", tool);

    if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
        lg_usage_error(tool, "cannot initialise c-ares");
    char err[512];
    for (size_t i = 0; i < n_sources; i++) {
        int rc = sources[i].file
                     ? dns_queries_load(&ctx.queries, sources[i].arg, &enc, err, sizeof(err))
                     : dns_queries_add_text(&ctx.queries, sources[i].arg, &enc, err, sizeof(err));
        if (rc < 0) lg_usage_error(tool, "%s%s", sources[i].file ? "--queries " : "--query: ", err);
    }
    free(sources);
    if (ctx.queries.n == 0) lg_usage_error(tool, "--queries: the files hold no queries");
    if (ctx.transport == DNS_DOH && ctx.doh_get &&
        dns_queries_build_get(&ctx.queries, ctx.doh_path) < 0)
        lg_usage_error(tool, "out of memory");

    cfg.slots = (unsigned)outstanding;
    cfg.slots_option = "--outstanding";

    char hostbuf[256];
    const char *host = bare_host(server, hostbuf, sizeof(hostbuf));
    if (!port) port = ctx.transport == DNS_DOT ? 853 : ctx.transport == DNS_DOH ? 443 : 53;
    struct lg_target target;
    memset(&target, 0, sizeof(target));
    lg_resolve_target(tool, "--server", host, (unsigned)port, ctx.transport == DNS_UDP, &target);

    struct lg_tls_config tlscfg;
    memset(&tlscfg, 0, sizeof(tlscfg));
    char authority[300];
    if (tls) {
        static const unsigned char alpn_dot[] = "\x03"
                                                "dot";
        static const unsigned char alpn_h2[] = "\x02"
                                               "h2";
        bool doh = ctx.transport == DNS_DOH;
        if (lg_tls_setup(&tlscfg, &tlsopt, host, doh ? alpn_h2 : alpn_dot,
                         doh ? sizeof(alpn_h2) - 1 : sizeof(alpn_dot) - 1, err, sizeof(err)) < 0)
            lg_usage_error(tool, "%s", err);
        target.tls = &tlscfg;
        const char *name = tlsopt.sni ? tlsopt.sni : host;
        bool v6 = strchr(name, ':') != NULL;
        if (port == 443)
            snprintf(authority, sizeof(authority), v6 ? "[%s]" : "%s", name);
        else
            snprintf(authority, sizeof(authority), v6 ? "[%s]:%llu" : "%s:%llu", name, port);
        ctx.authority = authority;
    }
    static const char *const transport_names[] = {"udp", "tcp", "dot", "doh"};
    char desc[400];
    snprintf(desc, sizeof(desc), "%s://%s%s%s:%llu", transport_names[ctx.transport],
             strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", port);
    cfg.target_desc = desc;

    const struct lg_driver *drv = ctx.transport == DNS_UDP   ? &dns_udp_driver
                                  : ctx.transport == DNS_DOH ? &dns_doh_driver
                                                             : &dns_tcp_driver;
    char extra[400];
    snprintf(extra, sizeof(extra),
             "\"dns\": {\"transport\": \"%s\", \"queries\": %zu, \"outstanding\": %llu, "
             "\"edns\": %u, \"dnssec\": %s, \"rd\": %s, \"doh_method\": \"%s\", "
             "\"c-ares\": \"%s\", \"nghttp2\": \"%s\"}",
             transport_names[ctx.transport], ctx.queries.n, outstanding, enc.edns_size,
             enc.dnssec ? "true" : "false", enc.rd ? "true" : "false", ctx.doh_get ? "get" : "post",
             ares_version(NULL), lg_h2_version());
    int status = lg_run(&cfg, drv, &target, &ctx, extra);

    if (tls) lg_tls_config_free(&tlscfg);
    dns_queries_free(&ctx.queries);
    ares_library_cleanup();
    lg_config_free(&cfg);
    return status;
}
