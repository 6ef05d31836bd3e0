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
    OPT_DATA,
    OPT_EXPECT_STATUS,
    OPT_PROXY_TUNNEL,
    OPT_PROXY_HEADER,
    OPT_UNIX_SOCKET,
};

static const struct lg_option options[] = {
    {"method", 'X', required_argument, 'X', "Request", "-X, --method NAME",
     "request method (default GET)"},
    {"header", 'H', required_argument, 'H', "Request", "-H, --header 'K: V'",
     "add a header (repeatable; replaces a default of that name)"},
    {"data", 0, required_argument, OPT_DATA, "Request", "    --data STR|@FILE",
     "request body, sent with Content-Length"},
    {"expect-status", 0, required_argument, OPT_EXPECT_STATUS, "Request",
     "    --expect-status LIST", "status codes that succeed: 200-299,304 (default 200-299)"},
    {"http", 0, required_argument, OPT_HTTP, "Protocol", "    --http 1.1|2|auto",
     "HTTP version; auto: ALPN on https, 1.1 on http (default)"},
    {"streams", 'm', required_argument, 'm', "Protocol", "-m, --streams N",
     "concurrent HTTP/2 streams per client (default 1)"},
    {"proxy", 'x', required_argument, 'x', "Connection", "-x, --proxy URL",
     "HTTP proxy (http://HOST:PORT): CONNECT for https targets,\nabsolute-form requests for "
     "http targets"},
    {"proxy-tunnel", 0, no_argument, OPT_PROXY_TUNNEL, "Connection", "    --proxy-tunnel",
     "tunnel http targets through CONNECT as well"},
    {"proxy-header", 0, required_argument, OPT_PROXY_HEADER, "Connection",
     "    --proxy-header 'K: V'", "add a header to CONNECT (repeatable)"},
    {"unix-socket", 0, required_argument, OPT_UNIX_SOCKET, "Connection", "    --unix-socket PATH",
     "connect to this Unix socket instead of the URL's host"},
};

/* What the command line says, as the options come. */
struct args {
    struct request_spec spec;
    struct http_ctx ctx;
    const char *data_arg, *proxy, *unix_path, *expect;
    bool proxy_tunnel;
};

static void check_header(const char *opt, const char *h);

static void take_option(void *p, int id, const char *arg)
{
    struct args *a = p;
    switch (id) {
    case 'X':
        if (!*arg || strpbrk(arg, " \t\r\n:/"))
            lg_usage_error(tool, "--method: '%s' is not a method name", arg);
        a->spec.method = arg;
        break;
    case 'H':
        check_header("--header", arg);
        request_spec_add_header(&a->spec, arg);
        break;
    case OPT_DATA:
        a->data_arg = arg;
        break;
    case OPT_EXPECT_STATUS:
        a->expect = arg;
        break;
    case OPT_HTTP:
        if (strcmp(arg, "1.1") == 0 || strcmp(arg, "1") == 0)
            a->ctx.mode = HTTP_MODE_1;
        else if (strcmp(arg, "2") == 0)
            a->ctx.mode = HTTP_MODE_2;
        else if (strcmp(arg, "auto") == 0)
            a->ctx.mode = HTTP_MODE_AUTO;
        else
            lg_usage_error(tool, "--http: '%s' is not one of 1.1, 2, auto", arg);
        break;
    case 'm': {
        unsigned long long v;
        if (lg_parse_unsigned(arg, 1, 1000, &v) < 0)
            lg_usage_error(tool, "--streams: '%s' is not a stream count from 1 to 1000", arg);
        a->ctx.streams = (unsigned)v;
        break;
    }
    case 'x':
        a->proxy = arg;
        break;
    case OPT_PROXY_TUNNEL:
        a->proxy_tunnel = true;
        break;
    case OPT_PROXY_HEADER:
        check_header("--proxy-header", arg);
        request_spec_add_proxy_header(&a->spec, arg);
        break;
    case OPT_UNIX_SOCKET:
        a->unix_path = arg;
        break;
    }
}

static void print_version(void)
{
    printf("%s %s (nghttp2 %s)\n", tool, PACKAGE_VERSION, nghttp2_version(0)->version_str);
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
    struct args a;
    memset(&a, 0, sizeof(a));
    request_spec_init(&a.spec);
    a.ctx.mode = HTTP_MODE_AUTO;
    a.ctx.streams = 1;
    a.expect = "200-299";
    struct lg_tls_options tlsopt = {0};
    const struct lg_cmdline cl = {
        .tool = tool,
        .synopsis = "[options] URL",
        .about = "HTTP/1.1 and HTTP/2 load over TCP, TLS, Unix sockets and proxies; one JSON "
                 "document\nof raw samples on stdout, a summary on stderr.\n",
        .options = options,
        .n_options = sizeof(options) / sizeof(options[0]),
        .tls = true,
        .tls_group = "TLS",
        .timeout_default = "10s",
        .version = print_version,
        .handle = take_option,
        .ctx = &a,
    };
    int first = lg_cmdline_parse(&cl, argc, argv, &cfg, &tlsopt);
    struct request_spec *spec = &a.spec;
    struct http_ctx *ctx = &a.ctx;

    if (first >= argc) lg_usage_error(tool, "missing URL");
    if (first + 1 < argc)
        lg_usage_error(tool, "unexpected argument '%s' after the URL", argv[first + 1]);
    lg_config_finish(&cfg);

    struct http_url url;
    const char *why;
    if (http_url_parse(argv[first], &url, &why) < 0)
        lg_usage_error(tool, "URL '%s': %s", argv[first], why);
    cfg.target_desc = argv[first];
    parse_status_list(ctx, a.expect);

    if (a.data_arg) {
        if (a.data_arg[0] == '@') {
            spec->body = read_file(a.data_arg + 1, &spec->body_len);
            if (!spec->body)
                lg_usage_error(tool, "--data: cannot read '%s': %s", a.data_arg + 1,
                               strerror(errno));
        } else {
            spec->body_len = strlen(a.data_arg);
            spec->body = (uint8_t *)strdup(a.data_arg);
        }
        if (!spec->method) spec->method = "POST";
    }
    if (ctx->mode == HTTP_MODE_1 && ctx->streams > 1)
        lg_usage_error(tool, "--streams: HTTP/1.1 sends one request at a time per connection");

    /* where the sockets go */
    struct lg_target target;
    memset(&target, 0, sizeof(target));
    struct http_url purl;
    memset(&purl, 0, sizeof(purl));
    bool absolute_form = false;
    if (a.proxy && a.unix_path)
        lg_usage_error(tool, "--proxy and --unix-socket cannot be combined");
    if (a.unix_path) {
        struct sockaddr_un *sun = (struct sockaddr_un *)&target.addr;
        if (strlen(a.unix_path) >= sizeof(sun->sun_path))
            lg_usage_error(tool, "--unix-socket: path '%s' is too long", a.unix_path);
        sun->sun_family = AF_UNIX;
        strcpy(sun->sun_path, a.unix_path);
        target.addrlen = sizeof(*sun);
    } else if (a.proxy) {
        if (http_url_parse(a.proxy, &purl, &why) < 0)
            lg_usage_error(tool, "--proxy '%s': %s", a.proxy, why);
        if (purl.https)
            lg_usage_error(tool, "--proxy '%s': only http:// proxies are supported", a.proxy);
        lg_resolve_target(tool, "--proxy", purl.host, purl.port, false, &target);
        if (url.https || a.proxy_tunnel) {
            char auth[300];
            http_url_authority(&url, true, auth, sizeof(auth));
            if (request_build_connect(spec, auth, &target) < 0)
                lg_usage_error(tool, "out of memory");
        } else {
            absolute_form = true;
        }
    } else {
        lg_resolve_target(tool, "URL", url.host, url.port, false, &target);
    }
    if (!a.proxy && a.proxy_tunnel) lg_usage_error(tool, "--proxy-tunnel needs --proxy");

    struct lg_tls_config tls;
    memset(&tls, 0, sizeof(tls));
    ctx->tls = url.https;
    if (url.https) {
        static const unsigned char alpn_auto[] = "\x02h2\x08http/1.1";
        static const unsigned char alpn_h1[] = "\x08http/1.1";
        static const unsigned char alpn_h2[] = "\x02h2";
        const unsigned char *alpn = ctx->mode == HTTP_MODE_AUTO ? alpn_auto
                                    : ctx->mode == HTTP_MODE_1  ? alpn_h1
                                                                : alpn_h2;
        size_t alpn_len = ctx->mode == HTTP_MODE_AUTO ? sizeof(alpn_auto) - 1
                          : ctx->mode == HTTP_MODE_1  ? sizeof(alpn_h1) - 1
                                                      : sizeof(alpn_h2) - 1;
        char err[256];
        if (lg_tls_setup(&tls, &tlsopt, url.host, alpn, alpn_len, err, sizeof(err)) < 0)
            lg_usage_error(tool, "%s", err);
        target.tls = &tls;
    } else if (lg_tls_options_given(&tlsopt)) {
        fprintf(stderr, "%s: note: TLS options are ignored for an http:// URL\n", tool);
    }

    if (request_build(spec, &url, absolute_form, ctx) < 0) lg_usage_error(tool, "out of memory");
    cfg.slots = ctx->mode == HTTP_MODE_1 ? 1 : ctx->streams;
    cfg.slots_option = "--streams";
    if (ctx->mode == HTTP_MODE_AUTO && ctx->streams > 1 && !url.https)
        lg_usage_error(tool, "--streams needs HTTP/2: add --http 2 for h2c");

    const struct lg_meta_field fields[] = {
        {"nghttp2", LG_META_STR, nghttp2_version(0)->version_str, 0, false},
        {"mode", LG_META_STR,
         ctx->mode == HTTP_MODE_1   ? "1.1"
         : ctx->mode == HTTP_MODE_2 ? "2"
                                    : "auto",
         0, false},
    };
    const struct lg_meta_section extra = {"http", fields, sizeof(fields) / sizeof(fields[0])};
    int status = lg_run(&cfg, &http_driver, &target, ctx, &extra);

    if (url.https) lg_tls_config_free(&tls);
    request_ctx_free(ctx);
    request_spec_free(spec);
    free((void *)target.tunnel_request);
    http_url_free(&url);
    http_url_free(&purl);
    lg_config_free(&cfg);
    return status;
}
