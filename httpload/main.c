/* httpload: command line, the request built once, the target resolved once,
 * TLS and proxy set up, then the engine runs the levels. */
#include "httpload/http.h"
#include "httpload/request.h"
#include "httpload/url.h"
#include "loadgen/options.h"
#include "loadgen/transport.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

static const char *tool = "httpload";

enum {
    OPT_HTTP = LG_OPT_TOOL_BASE,
    OPT_STREAMS,
    OPT_DATA,
    OPT_EXPECT_STATUS,
    OPT_PROXY_TUNNEL,
    OPT_PROXY_HEADER,
    OPT_UNIX_SOCKET,
};

static void usage(void)
{
    printf("Usage: %s [options] URL\n"
           "HTTP/1.1 and HTTP/2 load over TCP, TLS, Unix sockets and proxies; one JSON document\n"
           "of raw samples on stdout, a summary on stderr.\n\n"
           "Request:\n"
           "  -X, --method NAME        request method (default GET)\n"
           "  -H, --header 'K: V'      add a header (repeatable; replaces a default of that name)\n"
           "      --data STR|@FILE     request body, sent with Content-Length\n"
           "      --expect-status LIST status codes that succeed: 200-299,304 (default 200-299)\n"
           "Protocol:\n"
           "      --http 1.1|2|auto    HTTP version; auto: ALPN on https, 1.1 on http (default)\n"
           "  -m, --streams N          concurrent HTTP/2 streams per client (default 1)\n"
           "  -k, --insecure           do not verify the server certificate\n"
           "      --cacert FILE        trust the CA certificates in FILE (PEM) too\n"
           "      --sni NAME           server name to send and verify (default: the URL host)\n"
           "      --tls-resume         resume a client's TLS session when it reconnects\n"
           "  -x, --proxy URL          HTTP proxy (http://HOST:PORT): CONNECT for https targets,\n"
           "                           absolute-form requests for http targets\n"
           "      --proxy-tunnel       tunnel http targets through CONNECT as well\n"
           "      --proxy-header 'K: V' add a header to CONNECT (repeatable)\n"
           "      --unix-socket PATH   connect to this Unix socket instead of the URL's host\n"
           "%s"
           "  -h, --help               this help\n"
           "  -V, --version            version\n\n"
           "Exit status: 0 success; 1 errors above --max-error-rate (the document is still\n"
           "printed); 2 bad usage or input; 3 a level was invalid; 4 the run failed;\n"
           "130 interrupted (the document holds what was measured).\n",
           tool, lg_common_help);
}

/* "K: V" with a token name and no line breaks. */
static void check_header(const char *opt, const char *h)
{
    const char *colon = strchr(h, ':');
    if (!colon || colon == h)
        lg_usage_error(tool, "%s: '%s' is not a header (expected 'Name: value')", opt, h);
    for (const char *p = h; p < colon; p++)
        if (!isgraph((unsigned char)*p) || strchr("\"(),/:;<=>?@[\\]{}", *p))
            lg_usage_error(tool, "%s: '%s' has an invalid header name", opt, h);
    if (strpbrk(h, "\r\n")) lg_usage_error(tool, "%s: '%s' contains a line break", opt, h);
}

static void parse_status_list(struct http_ctx *ctx, const char *s)
{
    memset(ctx->status_ok, 0, sizeof(ctx->status_ok));
    const char *p = s;
    bool any = false;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 100 || a > 999) goto bad;
        b = a;
        if (*end == '-') {
            const char *q = end + 1;
            b = strtol(q, &end, 10);
            if (end == q || b < a || b > 999) goto bad;
        }
        for (long k = a; k <= b; k++)
            ctx->status_ok[k] = 1;
        any = true;
        if (*end == ',')
            end++;
        else if (*end)
            goto bad;
        p = end;
    }
    if (any) return;
bad:
    lg_usage_error(tool,
                   "--expect-status: '%s' is not a list of status codes and ranges "
                   "(example: 200-299,304)",
                   s);
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0) break;
        if (n == cap) {
            uint8_t *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    struct lg_config cfg;
    lg_config_defaults(&cfg, tool, 10ull * 1000000000u);
    cfg.argc = argc;
    cfg.argv = argv;
    struct request_spec spec;
    request_spec_init(&spec);
    struct lg_tls_options tlsopt = {0};
    const char *data_arg = NULL, *proxy = NULL, *unix_path = NULL, *expect = "200-299";
    bool proxy_tunnel = false;
    struct http_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.mode = HTTP_MODE_AUTO;
    ctx.streams = 1;

    static const struct option longopts[] = {
        LG_COMMON_LONGOPTS,
        {"method", required_argument, NULL, 'X'},
        {"header", required_argument, NULL, 'H'},
        {"data", required_argument, NULL, OPT_DATA},
        {"expect-status", required_argument, NULL, OPT_EXPECT_STATUS},
        {"http", required_argument, NULL, OPT_HTTP},
        {"streams", required_argument, NULL, 'm'},
        LG_TLS_LONGOPTS,
        {"proxy", required_argument, NULL, 'x'},
        {"proxy-tunnel", no_argument, NULL, OPT_PROXY_TUNNEL},
        {"proxy-header", required_argument, NULL, OPT_PROXY_HEADER},
        {"unix-socket", required_argument, NULL, OPT_UNIX_SOCKET},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, ":" LG_COMMON_SHORTOPTS "X:H:m:kx:hV", longopts, NULL)) !=
           -1) {
        if (lg_config_option(&cfg, opt, optarg)) continue;
        if (lg_tls_option(&tlsopt, opt, optarg)) continue;
        switch (opt) {
        case 'X':
            if (!*optarg || strpbrk(optarg, " \t\r\n:/"))
                lg_usage_error(tool, "--method: '%s' is not a method name", optarg);
            spec.method = optarg;
            break;
        case 'H':
            check_header("--header", optarg);
            request_spec_add_header(&spec, optarg);
            break;
        case OPT_DATA:
            data_arg = optarg;
            break;
        case OPT_EXPECT_STATUS:
            expect = optarg;
            break;
        case OPT_HTTP:
            if (strcmp(optarg, "1.1") == 0 || strcmp(optarg, "1") == 0)
                ctx.mode = HTTP_MODE_1;
            else if (strcmp(optarg, "2") == 0)
                ctx.mode = HTTP_MODE_2;
            else if (strcmp(optarg, "auto") == 0)
                ctx.mode = HTTP_MODE_AUTO;
            else
                lg_usage_error(tool, "--http: '%s' is not one of 1.1, 2, auto", optarg);
            break;
        case 'm': {
            unsigned long long v;
            if (lg_parse_unsigned(optarg, 1, 1000, &v) < 0)
                lg_usage_error(tool, "--streams: '%s' is not a stream count from 1 to 1000",
                               optarg);
            ctx.streams = (unsigned)v;
            break;
        }
        case 'x':
            proxy = optarg;
            break;
        case OPT_PROXY_TUNNEL:
            proxy_tunnel = true;
            break;
        case OPT_PROXY_HEADER:
            check_header("--proxy-header", optarg);
            request_spec_add_proxy_header(&spec, optarg);
            break;
        case OPT_UNIX_SOCKET:
            unix_path = optarg;
            break;
        case 'h':
            usage();
            return 0;
        case 'V':
            printf("%s %s (nghttp2 %s)\n", tool, PACKAGE_VERSION, nghttp2_version(0)->version_str);
            return 0;
        case ':':
            lg_usage_error(tool, "%s needs a value", argv[optind - 1]);
        default:
            if (optopt && optopt < 256) lg_usage_error(tool, "unknown option -%c", optopt);
            lg_usage_error(tool, "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind >= argc) lg_usage_error(tool, "missing URL");
    if (optind + 1 < argc)
        lg_usage_error(tool, "unexpected argument '%s' after the URL", argv[optind + 1]);
    lg_config_finish(&cfg);

    struct http_url url;
    const char *why;
    if (http_url_parse(argv[optind], &url, &why) < 0)
        lg_usage_error(tool, "URL '%s': %s", argv[optind], why);
    cfg.target_desc = argv[optind];
    parse_status_list(&ctx, expect);

    if (data_arg) {
        if (data_arg[0] == '@') {
            spec.body = read_file(data_arg + 1, &spec.body_len);
            if (!spec.body)
                lg_usage_error(tool, "--data: cannot read '%s': %s", data_arg + 1, strerror(errno));
        } else {
            spec.body_len = strlen(data_arg);
            spec.body = (uint8_t *)strdup(data_arg);
        }
        if (!spec.method) spec.method = "POST";
    }
    if (ctx.mode == HTTP_MODE_1 && ctx.streams > 1)
        lg_usage_error(tool, "--streams: HTTP/1.1 sends one request at a time per connection");

    /* where the sockets go */
    struct lg_target target;
    memset(&target, 0, sizeof(target));
    struct http_url purl;
    memset(&purl, 0, sizeof(purl));
    bool absolute_form = false;
    if (proxy && unix_path) lg_usage_error(tool, "--proxy and --unix-socket cannot be combined");
    if (unix_path) {
        struct sockaddr_un *sun = (struct sockaddr_un *)&target.addr;
        if (strlen(unix_path) >= sizeof(sun->sun_path))
            lg_usage_error(tool, "--unix-socket: path '%s' is too long", unix_path);
        sun->sun_family = AF_UNIX;
        strcpy(sun->sun_path, unix_path);
        target.addrlen = sizeof(*sun);
    } else if (proxy) {
        if (http_url_parse(proxy, &purl, &why) < 0)
            lg_usage_error(tool, "--proxy '%s': %s", proxy, why);
        if (purl.https)
            lg_usage_error(tool, "--proxy '%s': only http:// proxies are supported", proxy);
        lg_resolve_target(tool, "--proxy", purl.host, purl.port, false, &target);
        if (url.https || proxy_tunnel) {
            char auth[300];
            http_url_authority(&url, true, auth, sizeof(auth));
            if (request_build_connect(&spec, auth, &target) < 0)
                lg_usage_error(tool, "out of memory");
        } else {
            absolute_form = true;
        }
    } else {
        lg_resolve_target(tool, "URL", url.host, url.port, false, &target);
    }
    if (!proxy && proxy_tunnel) lg_usage_error(tool, "--proxy-tunnel needs --proxy");

    struct lg_tls_config tls;
    memset(&tls, 0, sizeof(tls));
    ctx.tls = url.https;
    if (url.https) {
        static const unsigned char alpn_auto[] = "\x02h2\x08http/1.1";
        static const unsigned char alpn_h1[] = "\x08http/1.1";
        static const unsigned char alpn_h2[] = "\x02h2";
        const unsigned char *alpn = ctx.mode == HTTP_MODE_AUTO ? alpn_auto
                                    : ctx.mode == HTTP_MODE_1  ? alpn_h1
                                                               : alpn_h2;
        size_t alpn_len = ctx.mode == HTTP_MODE_AUTO ? sizeof(alpn_auto) - 1
                          : ctx.mode == HTTP_MODE_1  ? sizeof(alpn_h1) - 1
                                                     : sizeof(alpn_h2) - 1;
        char err[256];
        if (lg_tls_setup(&tls, &tlsopt, url.host, alpn, alpn_len, err, sizeof(err)) < 0)
            lg_usage_error(tool, "%s", err);
        target.tls = &tls;
    } else if (lg_tls_options_given(&tlsopt)) {
        fprintf(stderr, "%s: note: TLS options are ignored for an http:// URL\n", tool);
    }

    if (request_build(&spec, &url, absolute_form, &ctx) < 0) lg_usage_error(tool, "out of memory");
    cfg.slots = ctx.mode == HTTP_MODE_1 ? 1 : ctx.streams;
    cfg.slots_option = "--streams";
    if (ctx.mode == HTTP_MODE_AUTO && ctx.streams > 1 && !url.https)
        lg_usage_error(tool, "--streams needs HTTP/2: add --http 2 for h2c");

    char extra[256];
    snprintf(extra, sizeof(extra), "\"http\": {\"nghttp2\": \"%s\", \"mode\": \"%s\"}",
             nghttp2_version(0)->version_str,
             ctx.mode == HTTP_MODE_1   ? "1.1"
             : ctx.mode == HTTP_MODE_2 ? "2"
                                       : "auto");
    int status = lg_run(&cfg, &http_driver, &target, &ctx, extra);

    if (url.https) lg_tls_config_free(&tls);
    request_ctx_free(&ctx);
    request_spec_free(&spec);
    free((void *)target.tunnel_request);
    http_url_free(&url);
    http_url_free(&purl);
    lg_config_free(&cfg);
    return status;
}
