/* The distinct origins of a run's requests, found with one hash table pass
 * (a list of 100,000 names must load in well under a second). See
 * origins.h. */
#include "httpload/origins.h"
#include "httpload/request.h"
#include "loadgen/options/names.h"
#include "loadgen/options/options.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* FNV-1a over the lower-cased host, the port and the scheme. */
static uint64_t origin_hash(const struct http_url *u)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = u->host; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
        h = (h ^ c) * 1099511628211ull;
    }
    h = (h ^ u->port) * 1099511628211ull;
    h = (h ^ (u->https ? 1u : 0u)) * 1099511628211ull;
    /* FNV's low bits follow the inputs' low bits only: names that differ in
     * a few digits would crowd into a few slots. Mixed (MurmurHash3's
     * finalizer), every bit of the hash counts in the slot. */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

static bool same_origin(const struct http_url *a, const struct http_url *b)
{
    return a->https == b->https && a->port == b->port && strcasecmp(a->host, b->host) == 0;
}

int http_origins_find(const struct http_url *const *urls, size_t n, struct http_origins *out,
                      size_t *of)
{
    memset(out, 0, sizeof(*out));
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    /* slots hold an origin's index + 1 (0: empty); the origins' first URLs
     * are kept apart until their number is known */
    size_t *slots = calloc(cap, sizeof(*slots));
    const struct http_url **firsts = malloc((n ? n : 1) * sizeof(*firsts));
    if (!slots || !firsts) {
        free(slots);
        free(firsts);
        return -1;
    }
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)origin_hash(urls[i]) & (cap - 1);
        while (slots[k] && !same_origin(firsts[slots[k] - 1], urls[i]))
            k = (k + 1) & (cap - 1);
        if (!slots[k]) {
            firsts[count] = urls[i];
            slots[k] = ++count;
        }
        of[i] = slots[k] - 1;
    }
    free(slots);
    out->o = calloc(count ? count : 1, sizeof(*out->o));
    if (!out->o) {
        free(firsts);
        return -1;
    }
    for (size_t i = 0; i < count; i++)
        out->o[i].url = firsts[i];
    out->n = count;
    free(firsts);
    return 0;
}

void http_origins_route(struct http_origins *os, const struct http_route *r)
{
    for (size_t i = 0; i < os->n; i++) {
        struct http_origin *o = &os->o[i];
        if (!r->via) {
            lg_names_resolve(r->tool, r->what, r->names, o->url->host, o->url->port, r->datagram,
                             &o->target);
            continue;
        }
        o->target = *r->via;
        if (!r->tunnel) continue;
        char auth[300];
        http_url_authority(o->url, true, auth, sizeof(auth));
        if (request_build_connect(r->spec, auth, &o->target) < 0)
            lg_out_of_memory(r->tool, "building the CONNECT requests");
    }
}

void http_origins_tls(struct http_origins *os, const struct lg_tls_config *base,
                      const struct lg_tls_options *opt)
{
    for (size_t i = 0; i < os->n; i++) {
        struct http_origin *o = &os->o[i];
        o->tls = *base;
        lg_tls_name(&o->tls, opt, o->url->host);
        o->target.tls = &o->tls;
    }
}

void http_origins_free(struct http_origins *os)
{
    for (size_t i = 0; i < os->n; i++)
        free((void *)os->o[i].target.tunnel_request);
    free(os->o);
    memset(os, 0, sizeof(*os));
}
