/* runmeta.c — reading a --meta descriptor into struct stats_runmeta (see runmeta.h). */
#include "stats/runs/runmeta.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/read/json.h"

#define META_MAX_BYTES (16u << 20)

struct reading {
    char *error;
    size_t error_size;
    bool no_memory;
};

static int bad(struct reading *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct reading *r, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(r->error, r->error_size, fmt, args);
    va_end(args);
    return -1;
}

/* An allocation failed: memory, not the descriptor, is at fault. */
static int out_of_memory(struct reading *r)
{
    r->no_memory = true;
    return bad(r, "out of memory");
}

/* An optional string field: absent or null leaves *out NULL. */
static int get_string(struct reading *r, const struct stats_json *obj, const char *key,
                      const char *where, char **out)
{
    const struct stats_json *v = stats_json_get(obj, key);
    *out = NULL;
    if (v == NULL || v->type == STATS_JSON_NULL) return 0;
    if (v->type != STATS_JSON_STRING)
        return bad(r, "%s%s must be a string or null, not %s", where, key,
                   stats_json_type_name(v->type));
    *out = strdup(v->string);
    return *out ? 0 : out_of_memory(r);
}

/* An optional array of strings: absent or null leaves *out NULL. */
static int get_strings(struct reading *r, const struct stats_json *obj, const char *key,
                       char ***out, size_t *count)
{
    const struct stats_json *v = stats_json_get(obj, key);
    *out = NULL;
    *count = 0;
    if (v == NULL || v->type == STATS_JSON_NULL) return 0;
    if (v->type != STATS_JSON_ARRAY) return bad(r, "%s must be an array of strings or null", key);
    *out = calloc(v->count ? v->count : 1, sizeof **out);
    if (*out == NULL) return out_of_memory(r);
    for (size_t i = 0; i < v->count; i++) {
        if (v->items[i].type != STATS_JSON_STRING)
            return bad(r, "%s[%zu] must be a string", key, i);
        (*out)[i] = strdup(v->items[i].string);
        if ((*out)[i] == NULL) return out_of_memory(r);
        ++*count;
    }
    return 0;
}

static bool is_count(const struct stats_json *v)
{
    return v->type == STATS_JSON_NUMBER && v->number >= 0 && v->number <= 9007199254740992.0 &&
           floor(v->number) == v->number;
}

/* A required non-negative integer field. */
static int get_count(struct reading *r, const struct stats_json *obj, const char *key,
                     const char *where, unsigned long *out)
{
    const struct stats_json *v = stats_json_get(obj, key);
    if (v == NULL) return bad(r, "%s has no %s", where[0] ? where : "the descriptor", key);
    if (!is_count(v)) return bad(r, "%s%s must be a non-negative integer", where, key);
    *out = (unsigned long)v->number;
    return 0;
}

static int read_shard(struct reading *r, const struct stats_json *root, struct stats_runmeta *m)
{
    const struct stats_json *shard = stats_json_get(root, "shard");
    if (shard == NULL || shard->type == STATS_JSON_NULL) return 0;
    if (shard->type != STATS_JSON_OBJECT)
        return bad(r, "shard must be an object {\"index\": I, \"count\": N}");
    if (get_count(r, shard, "index", "shard.", &m->shard_index) != 0) return -1;
    if (get_count(r, shard, "count", "shard.", &m->shard_count) != 0) return -1;
    if (m->shard_count == 0) return bad(r, "shard.count must be at least 1");
    if (m->shard_index >= m->shard_count)
        return bad(r, "shard.index %lu is not below shard.count %lu", m->shard_index,
                   m->shard_count);
    m->has_shard = true;
    return 0;
}

static int read_clock(struct reading *r, const struct stats_json *root, struct stats_runmeta *m)
{
    const struct stats_json *clock = stats_json_get(root, "clock");
    if (clock == NULL || clock->type == STATS_JSON_NULL) return 0;
    if (clock->type != STATS_JSON_OBJECT) return bad(r, "clock must be an object");
    const struct stats_json *sync = stats_json_get(clock, "synchronized");
    if (sync == NULL || sync->type != STATS_JSON_BOOL)
        return bad(r, "clock.synchronized must be true or false");
    m->has_clock = true;
    m->clock_synchronized = sync->boolean;
    const struct stats_json *est = stats_json_get(clock, "est_error_us");
    if (est != NULL && est->type == STATS_JSON_NUMBER) {
        m->has_est_error = true;
        m->est_error_us = est->number;
    } else if (est != NULL && est->type != STATS_JSON_NULL) {
        return bad(r, "clock.est_error_us must be a number or null");
    }
    const struct stats_json *offset = stats_json_get(clock, "offset_s");
    if (offset != NULL && offset->type == STATS_JSON_NUMBER) {
        m->has_clock_offset = true;
        m->clock_offset_s = offset->number;
    } else if (offset != NULL && offset->type != STATS_JSON_NULL) {
        return bad(r, "clock.offset_s must be a number or null");
    }
    return 0;
}

static int read_sampled(struct reading *r, const struct stats_json *level, const char *where,
                        struct stats_runmeta_level *out)
{
    const struct stats_json *sampled = stats_json_get(level, "sampled");
    if (sampled != NULL && sampled->type != STATS_JSON_NULL) {
        if (sampled->type != STATS_JSON_ARRAY)
            return bad(r, "%ssampled must be an array of metric names", where);
        out->sampled = calloc(sampled->count ? sampled->count : 1, sizeof *out->sampled);
        if (out->sampled == NULL) return out_of_memory(r);
        for (size_t i = 0; i < sampled->count; i++) {
            if (sampled->items[i].type != STATS_JSON_STRING)
                return bad(r, "%ssampled[%zu] must be a string", where, i);
            out->sampled[i] = strdup(sampled->items[i].string);
            if (out->sampled[i] == NULL) return out_of_memory(r);
            out->n_sampled++;
        }
    }
    const struct stats_json *seen = stats_json_get(level, "seen");
    if (seen == NULL || seen->type == STATS_JSON_NULL) return 0;
    if (seen->type != STATS_JSON_OBJECT)
        return bad(r, "%sseen must be an object of metric: true sample count", where);
    out->seen = calloc(seen->count ? seen->count : 1, sizeof *out->seen);
    if (out->seen == NULL) return out_of_memory(r);
    for (size_t i = 0; i < seen->count; i++) {
        if (!is_count(&seen->items[i]))
            return bad(r, "%sseen.%.60s must be a non-negative integer", where, seen->keys[i]);
        out->seen[i].metric = strdup(seen->keys[i]);
        if (out->seen[i].metric == NULL) return out_of_memory(r);
        out->seen[i].seen = (uint64_t)seen->items[i].number;
        out->n_seen++;
    }
    return 0;
}

static int read_level(struct reading *r, const struct stats_json *level, size_t index,
                      struct stats_runmeta_level *out)
{
    char where[40];
    snprintf(where, sizeof where, "levels[%zu].", index);
    if (level->type != STATS_JSON_OBJECT) return bad(r, "levels[%zu] must be an object", index);
    if (get_count(r, level, "clients", where, &out->clients) != 0) return -1;
    if (out->clients == 0) return bad(r, "%sclients must be at least 1", where);
    const struct stats_json *v = stats_json_get(level, "shard_clients");
    if (v != NULL && v->type != STATS_JSON_NULL) {
        if (get_count(r, level, "shard_clients", where, &out->shard_clients) != 0) return -1;
        out->has_shard_clients = true;
    }
    if (get_string(r, level, "requested_start", where, &out->requested_start) != 0) return -1;
    v = stats_json_get(level, "interrupted");
    if (v != NULL && v->type == STATS_JSON_BOOL)
        out->interrupted = v->boolean;
    else if (v != NULL && v->type != STATS_JSON_NULL)
        return bad(r, "%sinterrupted must be true or false", where);
    v = stats_json_get(level, "self_watch");
    if (v != NULL && v->type == STATS_JSON_OBJECT) {
        const struct stats_json *limited = stats_json_get(v, "limited");
        if (limited == NULL || limited->type != STATS_JSON_BOOL)
            return bad(r, "%sself_watch.limited must be true or false", where);
        out->generator_limited = limited->boolean;
        out->has_self_watch = true;
    } else if (v != NULL && v->type != STATS_JSON_NULL) {
        return bad(r, "%sself_watch must be an object or null", where);
    }
    v = stats_json_get(level, "start_lag_s");
    if (v != NULL && v->type == STATS_JSON_NUMBER) {
        out->has_start_lag = true;
        out->start_lag_s = v->number;
    } else if (v != NULL && v->type != STATS_JSON_NULL) {
        return bad(r, "%sstart_lag_s must be a number or null", where);
    }
    return read_sampled(r, level, where, out);
}

static const char *const option_names[STATS_OPT__COUNT] = {
    "duration_s", "timeout_s", "rate", "slots_per_client", "conn_requests", "requests_per_level",
};

const char *stats_runmeta_option_name(enum stats_runmeta_option option)
{
    return option_names[option];
}

static int read_options(struct reading *r, const struct stats_json *root, struct stats_runmeta *m)
{
    const struct stats_json *options = stats_json_get(root, "options");
    if (options == NULL || options->type == STATS_JSON_NULL) return 0;
    if (options->type != STATS_JSON_OBJECT) return bad(r, "options must be an object");
    for (int i = 0; i < STATS_OPT__COUNT; i++) {
        const struct stats_json *v = stats_json_get(options, option_names[i]);
        if (v == NULL || v->type == STATS_JSON_NULL) continue;
        if (v->type != STATS_JSON_NUMBER)
            return bad(r, "options.%s must be a number or null", option_names[i]);
        m->has_option[i] = true;
        m->option[i] = v->number;
    }
    return 0;
}

static int read_levels(struct reading *r, const struct stats_json *root, struct stats_runmeta *m)
{
    const struct stats_json *levels = stats_json_get(root, "levels");
    if (levels == NULL) return 0;
    if (levels->type != STATS_JSON_ARRAY) return bad(r, "levels must be an array");
    m->levels = calloc(levels->count ? levels->count : 1, sizeof *m->levels);
    if (m->levels == NULL) return out_of_memory(r);
    for (size_t i = 0; i < levels->count; i++) {
        m->n_levels++; /* counted first, so a failure frees what it filled */
        if (read_level(r, &levels->items[i], i, &m->levels[i]) != 0) return -1;
        for (size_t j = 0; j < i; j++)
            if (m->levels[j].clients == m->levels[i].clients)
                return bad(r, "levels[%zu] and levels[%zu] both have %lu clients", j, i,
                           m->levels[i].clients);
    }
    return 0;
}

int stats_runmeta_parse(const char *text, size_t len, struct stats_runmeta *out, char *error,
                        size_t error_size)
{
    memset(out, 0, sizeof *out);
    struct reading r = {error, error_size, false};
    struct stats_json root;
    int parsed = stats_json_parse(text, len, &root, error, error_size);
    if (parsed != 0) return parsed;
    int rc = -1;
    if (root.type != STATS_JSON_OBJECT) {
        bad(&r, "a descriptor is a JSON object, not %s", stats_json_type_name(root.type));
        goto out;
    }
    if (get_string(&r, &root, "tool", "", &out->tool) != 0 ||
        get_string(&r, &root, "host", "", &out->host) != 0 ||
        get_string(&r, &root, "run_id", "", &out->run_id) != 0 ||
        get_string(&r, &root, "target", "", &out->target) != 0 ||
        get_string(&r, &root, "started_at", "", &out->started_at) != 0 ||
        get_strings(&r, &root, "argv", &out->argv, &out->argc) != 0 ||
        read_options(&r, &root, out) != 0 || read_shard(&r, &root, out) != 0 ||
        read_clock(&r, &root, out) != 0 || read_levels(&r, &root, out) != 0)
        goto out;
    rc = 0;
out:
    stats_json_free(&root);
    if (rc != 0) stats_runmeta_free(out);
    return rc != 0 && r.no_memory ? -2 : rc;
}

int stats_runmeta_read(const char *path, struct stats_runmeta *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int saved = errno; /* the caller tells a missing file from an unreadable one */
        snprintf(error, error_size, "cannot open: %s", strerror(saved));
        errno = saved;
        return -1;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    int saved = 0;
    for (;;) {
        if (len == cap) {
            if (cap == META_MAX_BYTES) {
                saved = EFBIG;
                break;
            }
            cap = cap ? cap * 4 : 64 * 1024;
            char *grown = realloc(text, cap);
            if (grown == NULL) {
                saved = ENOMEM;
                break;
            }
            text = grown;
        }
        ssize_t got = read(fd, text + len, cap - len);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) saved = errno;
        if (got <= 0) break;
        len += (size_t)got;
    }
    close(fd);
    if (saved != 0) {
        free(text);
        snprintf(error, error_size, "cannot read: %s",
                 saved == EFBIG ? "larger than 16 MiB, not a descriptor" : strerror(saved));
        errno = saved;
        return -1;
    }
    int rc = stats_runmeta_parse(text, len, out, error, error_size);
    free(text);
    if (rc == -2) {
        errno = ENOMEM; /* memory, not the descriptor, failed: as if unreadable */
        return -1;
    }
    return rc == 0 ? 0 : -2;
}

void stats_runmeta_free(struct stats_runmeta *meta)
{
    for (size_t i = 0; i < meta->n_levels; i++) {
        struct stats_runmeta_level *l = &meta->levels[i];
        for (size_t j = 0; j < l->n_sampled; j++)
            free(l->sampled[j]);
        for (size_t j = 0; j < l->n_seen; j++)
            free(l->seen[j].metric);
        free(l->sampled);
        free(l->seen);
        free(l->requested_start);
    }
    free(meta->levels);
    for (size_t i = 0; i < meta->argc; i++)
        free(meta->argv[i]);
    free(meta->argv);
    free(meta->started_at);
    free(meta->tool);
    free(meta->host);
    free(meta->run_id);
    free(meta->target);
    memset(meta, 0, sizeof *meta);
}

const struct stats_runmeta_level *stats_runmeta_level(const struct stats_runmeta *meta,
                                                      unsigned long clients)
{
    for (size_t i = 0; i < meta->n_levels; i++)
        if (meta->levels[i].clients == clients) return &meta->levels[i];
    return NULL;
}

enum stats_seen stats_runmeta_seen(const struct stats_runmeta_level *level, const char *metric,
                                   uint64_t *seen)
{
    for (size_t i = 0; i < level->n_seen; i++) {
        if (strcmp(level->seen[i].metric, metric) == 0) {
            *seen = level->seen[i].seen;
            return STATS_SEEN_KNOWN;
        }
    }
    for (size_t i = 0; i < level->n_sampled; i++)
        if (strcmp(level->sampled[i], metric) == 0) return STATS_SEEN_UNKNOWN;
    return STATS_SEEN_WHOLE;
}

char *stats_runmeta_path_for(const char *document)
{
    size_t len = strlen(document);
    size_t stem = len >= 5 && strcmp(document + len - 5, ".json") == 0 ? len - 5 : len;
    char *path = malloc(stem + sizeof ".meta.json");
    if (path == NULL) return NULL;
    memcpy(path, document, stem);
    memcpy(path + stem, ".meta.json", sizeof ".meta.json");
    return path;
}
