/* httpload: command line, the requests built once (the URL's, or a
 * --targets file's), the origin resolved once, TLS and proxy set up, then the
 * engine runs the levels. */
#include "httpload/http.h"
#include "httpload/origins.h"
#include "httpload/readfile.h"
#include "httpload/request.h"
#include "httpload/targets.h"
#include "httpload/url.h"
#include "loadgen/options/names.h"
#include "loadgen/options/options.h"
#include "loadgen/transport/transport.h"
#ifdef HAVE_HTTP3
#include "httpload/http3.h"
#include "loadgen/transport/quic.h"
#endif

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
    OPT_TARGETS,
    OPT_TARGETS_PER_METRIC,
    OPT_RESOLVE,
    OPT_CONNECT_TO,
};

/* Only the shape is loadgen/options/cmdline.c's: these options are httpload's alone (the shared
 * ones are rows there, once), as dnsload's table holds dnsload's. */
static const struct lg_option options[] = {
    {"method", 'X', required_argument, 'X', "Request", "-X, --method NAME",
     "request method (default GET)"},
    {"header", 'H', required_argument, 'H', "Request", "-H, --header 'K: V'",
     "add a header (repeatable; replaces a default of that name)"},
    {"data", 0, required_argument, OPT_DATA, "Request", "    --data STR|@FILE",
     "request body, sent with Content-Length (with --targets:\nthe body of targets "
     "without one)"},
    {"targets", 0, required_argument, OPT_TARGETS, "Request", "    --targets FILE",
     "requests in vegeta's text format (METHOD URL, headers,\n@BODY) in place of the URL; "
     "each client sends them in\nturn from its own offset, switching its one connection\n"
     "as the origin changes (origin_switches)"},
    {"targets-per-metric", 0, no_argument, OPT_TARGETS_PER_METRIC, "Request",
     "    --targets-per-metric",
     "latency per target too: target.LINE.latency_cold_ms and\n.latency_warm_ms, LINE the "
     "target's line in FILE"},
    {"expect-status", 0, required_argument, OPT_EXPECT_STATUS, "Request",
     "    --expect-status LIST", "status codes that succeed: 200-299,304 (default 200-299)"},
    {"http", 0, required_argument, OPT_HTTP, "Protocol", "    --http 1.1|2|3|auto",
     "HTTP version; auto: ALPN on https, 1.1 on http (default);\n3: HTTP/3 over QUIC (https "
     "only; see --version)"},
    {"streams", 'm', required_argument, 'm', "Protocol", "-m, --streams N",
     "concurrent HTTP/2 or HTTP/3 streams per client (default 1)"},
    {"proxy", 'x', required_argument, 'x', "Connection", "-x, --proxy URL",
     "HTTP proxy (http://HOST:PORT): CONNECT for https targets,\nabsolute-form requests for "
     "http targets"},
    {"proxy-tunnel", 0, no_argument, OPT_PROXY_TUNNEL, "Connection", "    --proxy-tunnel",
     "tunnel http targets through CONNECT as well"},
    {"proxy-header", 0, required_argument, OPT_PROXY_HEADER, "Connection",
     "    --proxy-header 'K: V'", "add a header to CONNECT (repeatable)"},
    {"unix-socket", 0, required_argument, OPT_UNIX_SOCKET, "Connection", "    --unix-socket PATH",
     "connect to this Unix socket instead of the URL's host"},
    {"resolve", 0, required_argument, OPT_RESOLVE, "Connection", "    --resolve HOST:PORT:ADDR",
     "connect to ADDR for HOST:PORT, as curl: the name still\ngoes into SNI, Host and CONNECT "
     "('*' any name;\nIPv6 in brackets; repeatable)"},
    {"connect-to", 0, required_argument, OPT_CONNECT_TO, "Connection",
     "    --connect-to HOST:PORT:HOST2:PORT2",
     "connect to HOST2:PORT2 for HOST:PORT, as curl (an empty\nfield: any, or unchanged; "
     "repeatable)"},
};

/* hey's and oha's letters that mean something else here, or nothing: a user
 * who types them by habit is told which option it is here. (wrk's -c, -d,
 * -t, -H and h2load's -n, -c, -t, -m, -H mean what they mean there.) */
static const struct lg_habit hey_habits[] = {
    {'m', "hey's and oha's -m (the method)", "-X/--method"},
    {'z', "hey's and oha's -z (the duration)", "-d/--duration"},
    {'q', "hey's and oha's -q (a rate limit)", "-R/--rate (in total)"},
    {'d', "oha's -d (the body)", "--data"},
    {'D', "hey's -D (a body file)", "--data @FILE"},
    {'T', "hey's -T (the content type)", "-H 'Content-Type: T'"},
};

/* What the command line says, as the options come. */
struct args {
    struct request_spec spec;
    struct http_ctx ctx;
    const char *data_arg, *proxy, *unix_path, *expect, *targets_path;
    bool proxy_tunnel, targets_per_metric;
    struct lg_names names; /* --resolve, --connect-to */
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
        else if (strcmp(arg, "3") == 0)
#ifdef HAVE_HTTP3
            a->ctx.mode = HTTP_MODE_3;
#else
            lg_usage_error(tool,
                           "--http 3: this httpload was built without HTTP/3 (it needs ngtcp2 "
                           "0.12, nghttp3 0.8 and GnuTLS: configure --with-http3)");
#endif
        else if (strcmp(arg, "auto") == 0)
            a->ctx.mode = HTTP_MODE_AUTO;
        else
            lg_usage_error(tool, "--http: '%s' is not one of 1.1, 2, 3, auto", arg);
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
    case OPT_TARGETS:
        a->targets_path = arg;
        break;
    case OPT_TARGETS_PER_METRIC:
        a->targets_per_metric = true;
        break;
    case OPT_RESOLVE:
    case OPT_CONNECT_TO:
        lg_names_option(tool, &a->names, id == OPT_CONNECT_TO, arg);
        break;
    }
}

/* "ngtcp2 0.12.1, GnuTLS 3.7.9, nghttp3 0.8.0", or why there is no HTTP/3. */
static void http3_libraries(char *buf, size_t len)
{
#ifdef HAVE_HTTP3
    lg_quic_versions(buf, len);
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, ", nghttp3 %s", http3_version());
#else
    snprintf(buf, len, "not built in");
#endif
}

static void print_version(void)
{
    char h3[160];
    http3_libraries(h3, sizeof(h3));
    printf("%s %s (nghttp2 %s; HTTP/3: %s)\n", tool, PACKAGE_VERSION,
           nghttp2_version(0)->version_str, h3);
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

/* The requests of the run: the URL's, or one per target, with the target's
 * headers on top of -H's and its body, or else --data's. */
static int build_requests(struct http_ctx *ctx, const struct request_spec *spec,
                          const struct target_list *tl, const struct http_url *url,
                          bool absolute_form)
{
    size_t n = tl->n ? tl->n : 1;
    /* HTTP/1.1 alone: --http 1.1, or --http auto on http:// (no ALPN) */
    bool no_h2 = ctx->mode == HTTP_MODE_1 || (ctx->mode == HTTP_MODE_AUTO && !url->https);
    ctx->reqs = calloc(n, sizeof(*ctx->reqs));
    if (!ctx->reqs) return -1;
    ctx->n_reqs = n;
    if (tl->n == 0) {
        const struct request_parts p = {
            .method = spec->method ? spec->method : "GET",
            .url = url,
            .headers = spec->headers,
            .n_headers = spec->n_headers,
            .body = spec->body,
            .body_len = spec->body_len,
            .no_h2 = no_h2,
        };
        return request_build(&p, absolute_form, ctx->conn_limit, &ctx->reqs[0]);
    }
    for (size_t i = 0; i < n; i++) {
        const struct target *t = &tl->t[i];
        size_t n_headers;
        const char **headers =
            request_merge_headers(spec->headers, spec->n_headers, (const char *const *)t->headers,
                                  t->n_headers, &n_headers);
        if (!headers) return -1;
        const struct request_parts p = {
            .method = t->method,
            .url = &t->url,
            .headers = headers,
            .n_headers = n_headers,
            .body = t->body ? t->body : spec->body,
            .body_len = t->body ? t->body_len : spec->body_len,
            .line = t->line,
            .no_h2 = no_h2,
        };
        int rc = request_build(&p, absolute_form, ctx->conn_limit, &ctx->reqs[i]);
        free(headers);
        if (rc < 0) return -1;
    }
    return 0;
}

/* "target.LINE" for each request, the names of their metrics. */
static char **target_group_names(const struct http_ctx *ctx)
{
    char **names = calloc(ctx->n_reqs, sizeof(*names));
    if (!names) return NULL;
    for (size_t i = 0; i < ctx->n_reqs; i++) {
        char name[32];
        snprintf(name, sizeof(name), "target.%u", ctx->reqs[i].line);
        if (!(names[i] = strdup(name))) {
            while (i)
                free(names[--i]);
            free(names);
            return NULL;
        }
    }
    return names;
}

/* What main sets up for the run, and frees after it. */
struct setup {
    struct http_url url, proxy_url;
    struct target_list targets;
    const struct http_url *origin; /* the URL, or the first target's */
    /* the requests' distinct origins, each with where its sockets go (the
     * run's target is the first's), and the origin of each request */
    struct http_origins origins;
    size_t *origin_of;
    struct lg_tls_config tls; /* the run's context; each https origin names its own host */
#ifdef HAVE_HTTP3
    struct lg_quic_config quic;
#endif
    bool absolute_form; /* through a plain proxy: request lines carry the URL */
    char **group_names; /* --targets-per-metric: "target.LINE" per request */
    struct lg_driver driver;
};

static void check_args(const struct args *a, int first_arg, int argc, char **argv)
{
    if (a->targets_path) {
        if (first_arg < argc)
            lg_usage_error(tool, "unexpected argument '%s': --targets gives the URLs",
                           argv[first_arg]);
        if (a->spec.method)
            lg_usage_error(tool, "--method: with --targets, each target names its method");
    } else {
        if (a->targets_per_metric) lg_usage_error(tool, "--targets-per-metric needs --targets");
        if (first_arg >= argc) lg_usage_error(tool, "missing URL (or --targets FILE)");
        if (first_arg + 1 < argc)
            lg_usage_error(tool, "unexpected argument '%s' after the URL", argv[first_arg + 1]);
    }
    if (a->ctx.mode == HTTP_MODE_1 && a->ctx.streams > 1)
        lg_usage_error(tool, "--streams: HTTP/1.1 sends one request at a time per connection");
    if (a->proxy && a->unix_path)
        lg_usage_error(tool, "--proxy and --unix-socket cannot be combined");
    if (a->ctx.mode == HTTP_MODE_3 && a->proxy)
        lg_usage_error(tool, "--http 3 cannot go through --proxy: an HTTP proxy's CONNECT carries "
                             "TCP, and HTTP/3 runs over QUIC on UDP");
    if (a->ctx.mode == HTTP_MODE_3 && a->unix_path)
        lg_usage_error(tool, "--http 3 cannot use --unix-socket: QUIC runs over UDP");
    if (!a->proxy && a->proxy_tunnel) lg_usage_error(tool, "--proxy-tunnel needs --proxy");
}

/* The origin every request goes to: the URL's, or the first target's. */
static void load_origin(const struct args *a, struct setup *s, struct lg_config *cfg,
                        const char *url_arg)
{
    s->origin = &s->url;
    if (a->targets_path) {
        char err[512];
        int rc = targets_load(a->targets_path, &s->targets, err, sizeof(err));
        if (rc == LG_NO_MEMORY) lg_out_of_memory(tool, "reading --targets");
        if (rc < 0) lg_usage_error(tool, "--targets %s", err);
        s->origin = &s->targets.t[0].url;
        cfg->target_desc = s->targets.t[0].url_text;
    } else {
        const char *why;
        int rc = http_url_parse(url_arg, &s->url, &why);
        if (rc == LG_NO_MEMORY) lg_out_of_memory(tool, "reading the URL");
        if (rc < 0) lg_usage_error(tool, "URL '%s': %s", url_arg, why);
        cfg->target_desc = url_arg;
    }
    size_t n = s->targets.n ? s->targets.n : 1;
    const struct http_url **urls = malloc(n * sizeof(*urls));
    s->origin_of = malloc(n * sizeof(*s->origin_of));
    for (size_t i = 0; urls && i < n; i++)
        urls[i] = s->targets.n ? &s->targets.t[i].url : &s->url;
    if (!urls || !s->origin_of || http_origins_find(urls, n, &s->origins, s->origin_of) < 0)
        lg_out_of_memory(tool, "finding the targets' origins");
    free(urls);
}

/* --data STR or @FILE: the body (of the targets without one, with --targets). */
static void read_body(struct args *a)
{
    struct request_spec *spec = &a->spec;
    if (!a->data_arg) return;
    if (a->data_arg[0] == '@') {
        const char *why;
        spec->body = read_whole_file(a->data_arg + 1, &spec->body_len, &why);
        if (!spec->body && why == lg_no_memory) lg_out_of_memory(tool, "reading --data");
        if (!spec->body) lg_usage_error(tool, "--data: cannot read '%s': %s", a->data_arg + 1, why);
    } else {
        spec->body_len = strlen(a->data_arg);
        spec->body = (uint8_t *)strdup(a->data_arg);
        if (!spec->body) lg_out_of_memory(tool, "reading --data");
    }
    if (!spec->method && !a->targets_path) spec->method = "POST";
}

/* Where the sockets go: a Unix socket, the proxy (with CONNECT for https://
 * or --proxy-tunnel, else absolute-form request lines), or each origin's
 * address (--resolve's, --connect-to's, or the resolver's). */
static void route_sockets(struct args *a, struct setup *s)
{
    struct lg_target via;
    memset(&via, 0, sizeof(via));
    struct http_route route = {
        .tool = tool,
        .what = a->targets_path ? "--targets" : "URL",
        .names = &a->names,
        .spec = &a->spec,
        .datagram = a->ctx.mode == HTTP_MODE_3,
    };
    if (a->unix_path) {
        struct sockaddr_un *sun = (struct sockaddr_un *)&via.addr;
        if (strlen(a->unix_path) >= sizeof(sun->sun_path))
            lg_usage_error(tool, "--unix-socket: path '%s' is too long", a->unix_path);
        sun->sun_family = AF_UNIX;
        strcpy(sun->sun_path, a->unix_path);
        via.addrlen = sizeof(*sun);
        route.via = &via;
    } else if (a->proxy) {
        const char *why;
        int rc = http_url_parse(a->proxy, &s->proxy_url, &why);
        if (rc == LG_NO_MEMORY) lg_out_of_memory(tool, "reading --proxy");
        if (rc < 0) lg_usage_error(tool, "--proxy '%s': %s", a->proxy, why);
        if (s->proxy_url.https)
            lg_usage_error(tool, "--proxy '%s': only http:// proxies are supported", a->proxy);
        lg_resolve_target(tool, "--proxy", s->proxy_url.host, s->proxy_url.port, false, &via);
        route.via = &via;
        route.tunnel = s->origin->https || a->proxy_tunnel;
        s->absolute_form = !route.tunnel;
    }
    if (a->ctx.mode == HTTP_MODE_3 && s->origins.n > 1)
        lg_usage_error(tool, "--http 3 takes targets on one origin only (a QUIC connection's "
                             "TLS names one server)");
    http_origins_route(&s->origins, &route);
}

#ifdef HAVE_HTTP3
/* QUIC to an https:// origin: its own TLS 1.3 (GnuTLS), ALPN h3. */
static void setup_quic(struct setup *s, const struct lg_tls_options *tlsopt,
                       const struct lg_config *cfg)
{
    if (!s->origin->https)
        lg_usage_error(tool, "--http 3 needs an https:// URL (HTTP/3 is always encrypted)");
    if (tlsopt->resume)
        lg_usage_error(tool, "--tls-resume is not supported with --http 3 (every QUIC "
                             "connection makes a full handshake)");
    char err[256];
    int rc = lg_quic_setup(&s->quic, tlsopt, s->origin->host, "h3", &http3_quic_app,
                           cfg->timeout_ns, err, sizeof(err));
    if (rc == LG_NO_MEMORY) lg_out_of_memory(tool, "setting up TLS for QUIC");
    if (rc < 0) lg_usage_error(tool, "%s", err);
    s->origins.o[0].target.quic = &s->quic;
}
#endif

/* TLS to an https:// origin, offering the protocols --http allows. */
static void setup_tls(struct args *a, struct setup *s, const struct lg_tls_options *tlsopt,
                      const struct lg_config *cfg)
{
    struct http_ctx *ctx = &a->ctx;
    ctx->tls = s->origin->https;
#ifdef HAVE_HTTP3
    if (ctx->mode == HTTP_MODE_3) {
        setup_quic(s, tlsopt, cfg);
        return;
    }
#endif
    if (!s->origin->https) {
        if (lg_tls_options_given(tlsopt))
            fprintf(stderr, "%s: note: TLS options are ignored for an http:// URL\n", tool);
        return;
    }
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
    int rc = lg_tls_setup(&s->tls, tlsopt, s->origin->host, alpn, alpn_len, err, sizeof(err));
    if (rc == LG_NO_MEMORY) lg_out_of_memory(tool, "setting up TLS");
    if (rc == LG_TLS_UNAVAILABLE) lg_cannot_run(tool, err);
    if (rc < 0) lg_usage_error(tool, "%s", err);
    http_origins_tls(&s->origins, &s->tls, tlsopt);
}

/* The requests, built once, and the driver that sends them. */
static void prepare_requests(struct args *a, struct setup *s, struct lg_config *cfg)
{
    struct http_ctx *ctx = &a->ctx;
    ctx->conn_limit = cfg->conn_requests > 0;
    ctx->per_target = a->targets_per_metric;
    if (build_requests(ctx, &a->spec, &s->targets, s->origin, s->absolute_form) < 0)
        lg_out_of_memory(tool, "building the requests");
    ctx->walk = ctx->n_reqs > 1 || ctx->per_target;
    for (size_t i = 0; i < ctx->n_reqs; i++)
        ctx->reqs[i].target = &s->origins.o[s->origin_of[i]].target;
    cfg->slots = ctx->mode == HTTP_MODE_1 ? 1 : ctx->streams;
#ifdef HAVE_HTTP3
    for (size_t i = 0; ctx->mode == HTTP_MODE_3 && i < ctx->n_reqs; i++)
        if (http3_prepare(&ctx->reqs[i]) < 0)
            lg_out_of_memory(tool, "preparing the HTTP/3 requests");
#endif
    cfg->slots_option = "--streams";
    if (ctx->mode == HTTP_MODE_AUTO && ctx->streams > 1 && !s->origin->https)
        lg_usage_error(tool, "--streams needs HTTP/2: add --http 2 for h2c");

    /* --targets-per-metric: request group i + 1 is the target of reqs[i] */
    s->driver = http_driver;
    /* the engine asks for each request's origin only when they differ */
    if (s->origins.n > 1) s->driver.next_target = http_next_target;
    s->group_names = ctx->per_target ? target_group_names(ctx) : NULL;
    if (ctx->per_target && !s->group_names) lg_out_of_memory(tool, "naming the targets' metrics");
    s->driver.group_names = (const char *const *)s->group_names;
    s->driver.n_groups = s->group_names ? (unsigned)ctx->n_reqs : 0;
}

/* What a client costs in the generator's memory, for the preflight's
 * memory check: bench/memory's RSS per client (doc/performance.md's table,
 * measured 2026-12-01), by protocol; bench/h3's for HTTP/3. It has no
 * cleartext HTTP/2 figure: that one takes HTTP/2 over TLS's, an upper bound.
 * --http auto over TLS may end in either protocol: the larger. */
static void client_cost(const struct http_ctx *ctx, bool https, struct lg_config *cfg)
{
    if (ctx->mode == HTTP_MODE_3) {
        cfg->client_memory_bytes = 110.0 * 1024;
        cfg->client_memory_source = "bench/h3: HTTP/3";
    } else if (!https && ctx->mode != HTTP_MODE_2) {
        cfg->client_memory_bytes = 0.64 * 1024;
        cfg->client_memory_source = "bench/memory: HTTP/1.1";
    } else if (https && ctx->mode == HTTP_MODE_1) {
        cfg->client_memory_bytes = 45.4 * 1024;
        cfg->client_memory_source = "bench/memory: HTTP/1.1 over TLS";
    } else {
        cfg->client_memory_bytes = 58.3 * 1024;
        cfg->client_memory_source = https ? "bench/memory: HTTP/2 over TLS"
                                          : "bench/memory has no h2c figure: HTTP/2 over TLS's, "
                                            "an upper bound";
    }
}

static int run(struct args *a, struct setup *s, struct lg_config *cfg)
{
    const struct http_ctx *ctx = &a->ctx;
    client_cost(ctx, s->origin->https, cfg);
    char h3[160];
    http3_libraries(h3, sizeof(h3));
    const struct lg_meta_field fields[] = {
        {"nghttp2", LG_META_STR, nghttp2_version(0)->version_str, 0, false},
#ifdef HAVE_HTTP3
        {"http3", LG_META_BOOL, NULL, 0, true},
#else
        {"http3", LG_META_BOOL, NULL, 0, false},
#endif
        {"http3_libraries", LG_META_STR, h3, 0, false},
        {"mode", LG_META_STR,
         ctx->mode == HTTP_MODE_1   ? "1.1"
         : ctx->mode == HTTP_MODE_2 ? "2"
         : ctx->mode == HTTP_MODE_3 ? "3"
                                    : "auto",
         0, false},
        {"requests", LG_META_NUM, NULL, (double)ctx->n_reqs, false},
        {"targets_file", LG_META_STR, a->targets_path, 0, false},
    };
    const struct lg_meta_section extra = {"http", fields,
                                          sizeof(fields) / sizeof(fields[0]) - !a->targets_path};
    return lg_run(cfg, &s->driver, &s->origins.o[0].target, &a->ctx, &extra);
}

static void setup_free(struct args *a, struct setup *s)
{
    struct http_ctx *ctx = &a->ctx;
    bool quic = s->origins.n && s->origins.o[0].target.quic;
    if (s->origin && s->origin->https && !quic) lg_tls_config_free(&s->tls);
#ifdef HAVE_HTTP3
    if (quic) lg_quic_config_free(&s->quic);
#endif
    for (size_t i = 0; i < ctx->n_reqs; i++) {
#ifdef HAVE_HTTP3
        http3_prepared_free(&ctx->reqs[i]);
#endif
        request_free(&ctx->reqs[i]);
        if (s->group_names) free(s->group_names[i]);
    }
    free(ctx->reqs);
    free(s->group_names);
    targets_free(&s->targets);
    request_spec_free(&a->spec);
    http_origins_free(&s->origins);
    free(s->origin_of);
    lg_names_free(&a->names);
    http_url_free(&s->url);
    http_url_free(&s->proxy_url);
}

int main(int argc, char **argv)
{
    lg_signals_block();
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
        .synopsis = "[options] URL\n       httpload [options] --targets FILE",
        .about = "HTTP/1.1 and HTTP/2 load over TCP, TLS, Unix sockets and proxies, and HTTP/3\n"
                 "over QUIC; one JSON document of raw samples on stdout, a summary on stderr.\n",
        .options = options,
        .n_options = sizeof(options) / sizeof(options[0]),
        .tls = true,
        .tls_group = "TLS",
        .timeout_default = "10s",
        .version = print_version,
        .handle = take_option,
        .ctx = &a,
        .habits = hey_habits,
        .n_habits = sizeof(hey_habits) / sizeof(hey_habits[0]),
    };
    int first_arg = lg_cmdline_parse(&cl, argc, argv, &cfg, &tlsopt);
    check_args(&a, first_arg, argc, argv);
    lg_config_finish(&cfg);

    struct setup s;
    memset(&s, 0, sizeof(s));
    load_origin(&a, &s, &cfg, first_arg < argc ? argv[first_arg] : NULL);
    parse_status_list(&a.ctx, a.expect);
    read_body(&a);
    route_sockets(&a, &s);
    setup_tls(&a, &s, &tlsopt, &cfg);
    prepare_requests(&a, &s, &cfg);
    int status = run(&a, &s, &cfg);
    setup_free(&a, &s);
    lg_config_free(&cfg);
    return status;
}
