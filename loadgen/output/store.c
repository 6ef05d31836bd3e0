/* A thread's store of samples and counts for one level. See internal.h. */
#include "loadgen/core/internal.h"

#include <stdlib.h>
#include <string.h>

int lg_store_init(struct lg_store *s, unsigned n_classes, unsigned n_extra, size_t max_samples,
                  size_t timeline_len)
{
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < LG_S__COUNT; i++)
        lg_series_init(&s->series[i], max_samples);
    s->errors = calloc(n_classes, sizeof(*s->errors));
    s->error_detail = calloc(n_classes, sizeof(*s->error_detail));
    s->extra = calloc(n_extra ? n_extra : 1, sizeof(*s->extra));
    s->timeline = calloc(timeline_len ? timeline_len : 1, sizeof(*s->timeline));
    s->error_timeline = calloc(timeline_len ? timeline_len : 1, sizeof(*s->error_timeline));
    s->timeline_len = timeline_len;
    if (!s->errors || !s->error_detail || !s->extra || !s->timeline || !s->error_timeline)
        return -1;
    return 0;
}

int lg_store_grow_timeline(struct lg_store *s, size_t seconds)
{
    size_t len = s->timeline_len ? s->timeline_len : 1;
    while (len < seconds)
        len *= 2;
    if (len == s->timeline_len) return 0;
    uint64_t *done = realloc(s->timeline, len * sizeof(*done));
    if (!done) return -1;
    s->timeline = done;
    uint64_t *failed = realloc(s->error_timeline, len * sizeof(*failed));
    if (!failed) return -1; /* the first is merely longer than it need be */
    s->error_timeline = failed;
    size_t old = s->timeline_len;
    memset(s->timeline + old, 0, (len - old) * sizeof(*done));
    memset(s->error_timeline + old, 0, (len - old) * sizeof(*failed));
    s->timeline_len = len;
    return 0;
}

int lg_store_init_groups(struct lg_store *s, unsigned n_groups, size_t max_samples)
{
    if (n_groups == 0) return 0;
    s->groups = calloc(2 * (size_t)n_groups, sizeof(*s->groups));
    if (!s->groups) return -1;
    s->n_groups = n_groups;
    for (size_t i = 0; i < 2 * (size_t)n_groups; i++)
        lg_series_init(&s->groups[i], max_samples);
    return 0;
}

int lg_store_prepare(struct lg_store *s, size_t requests, size_t connections)
{
    static const int per_request[] = {LG_S_LATENCY_WARM, LG_S_TTFB, LG_S_SEND_LAG};
    static const int per_connection[] = {LG_S_LATENCY_COLD, LG_S_CONNECT, LG_S_PROXY_CONNECT,
                                         LG_S_TLS_HANDSHAKE};
    for (size_t i = 0; i < sizeof(per_request) / sizeof(per_request[0]); i++)
        if (lg_series_prepare(&s->series[per_request[i]], requests) < 0) return -1;
    for (size_t i = 0; i < sizeof(per_connection) / sizeof(per_connection[0]); i++)
        if (lg_series_prepare(&s->series[per_connection[i]], connections) < 0) return -1;
    return 0;
}

void lg_store_free(struct lg_store *s, unsigned n_classes)
{
    for (int i = 0; i < LG_S__COUNT; i++)
        lg_series_free(&s->series[i]);
    for (size_t i = 0; i < 2 * (size_t)s->n_groups; i++)
        lg_series_free(&s->groups[i]);
    free(s->groups);
    if (s->error_detail)
        for (unsigned i = 0; i < n_classes; i++)
            free(s->error_detail[i]);
    free(s->error_detail);
    free(s->errors);
    free(s->extra);
    free(s->timeline);
    free(s->error_timeline);
    memset(s, 0, sizeof(*s));
}

/* Keeps the first reason given for a class: the summary names it. */
void lg_store_error(struct lg_worker *w, int cls, const char *detail)
{
    if (cls <= 0 || (unsigned)cls >= w->n_classes || !detail) return;
    if (!w->store.error_detail[cls]) w->store.error_detail[cls] = strdup(detail);
}
