/* reportmeta.c — the report's reading of a --meta descriptor (see reportmeta.h). */
#include "stats/report/reportmeta.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/write/htmlout.h"
#include "stats/read/json.h"

#define META_MAX_BYTES (16u << 20)

const char *report_exit_meaning(int status)
{
    switch (status) {
    case 0:
        return "";
    case 1:
        return "errors (or, in an open loop, unsent requests) exceeded --max-error-rate; the "
               "counts are in the document";
    case 2:
        return "bad usage or input";
    case 3:
        return "a level was invalid: a client made no attempt, or the level made fewer attempts "
               "than it has clients";
    case 4:
        return "the run could not be carried out";
    case 5:
        return "a level's common start (--start-at) had passed by more than --max-late: only the "
               "levels before it were run";
    case 6:
        return "the machine was unfit for the options";
    case 7:
        return "--fail-fast ended the run: no request succeeded and some failed in a level's "
               "first second; the document holds what was measured, that level last";
    case 130:
        return "interrupted by SIGINT or SIGTERM: the document holds what was measured, what was "
               "in flight as unfinished";
    default:
        return "an exit status the generators do not document";
    }
}

/* A growing string. */
struct text {
    char *s;
    size_t len, cap;
    bool failed;
};

static void text_add(struct text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->failed) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->len + n + 1) * 2;
        char *grown = realloc(t->s, cap);
        if (grown == NULL) {
            t->failed = true;
            return;
        }
        t->s = grown;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* A JSON value as a person reads it: strings as they are, bytes in binary
 * units, lists joined, objects as "name value" pairs. */
static void describe(struct text *t, const char *name, const struct stats_json *v, int depth)
{
    char buf[HTML_NUMBER_MAX];
    switch (v->type) {
    case STATS_JSON_NULL:
        text_add(t, "unknown");
        break;
    case STATS_JSON_BOOL:
        text_add(t, v->boolean ? "yes" : "no");
        break;
    case STATS_JSON_NUMBER:
        if (name && ends_with(name, "_bytes"))
            text_add(t, html_bytes(v->number, buf));
        else if (floor(v->number) == v->number && fabs(v->number) < 1e15)
            text_add(t, html_count(v->number, buf));
        else {
            snprintf(buf, sizeof buf, "%.6g", v->number);
            text_add(t, buf);
        }
        break;
    case STATS_JSON_STRING:
        text_add(t, v->string);
        break;
    case STATS_JSON_ARRAY:
        for (size_t i = 0; i < v->count; i++) {
            if (i) text_add(t, ", ");
            if (depth < 4) describe(t, name, &v->items[i], depth + 1);
        }
        break;
    case STATS_JSON_OBJECT:
        for (size_t i = 0; i < v->count; i++) {
            if (i) text_add(t, ", ");
            text_add(t, v->keys[i]);
            text_add(t, " ");
            if (depth < 4) describe(t, v->keys[i], &v->items[i], depth + 1);
        }
        break;
    }
}

static char *describe_dup(const char *name, const struct stats_json *v)
{
    struct text t = {0};
    text_add(&t, "");
    describe(&t, name, v, 0);
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    return t.s;
}

static int take_string(const struct stats_json *root, const char *key, char **out)
{
    const struct stats_json *v = stats_json_get(root, key);
    *out = NULL;
    if (v == NULL || v->type != STATS_JSON_STRING) return 0;
    *out = strdup(v->string);
    return *out ? 0 : -1;
}

static double take_number(const struct stats_json *obj, const char *key)
{
    const struct stats_json *v = stats_json_get(obj, key);
    return v && v->type == STATS_JSON_NUMBER ? v->number : NAN;
}

/* Every member of an object as a described pair. */
static int take_pairs(const struct stats_json *obj, struct report_pair **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (obj == NULL || obj->type != STATS_JSON_OBJECT || obj->count == 0) return 0;
    *out = calloc(obj->count, sizeof **out);
    if (*out == NULL) return -1;
    for (size_t i = 0; i < obj->count; i++) {
        (*out)[i].name = strdup(obj->keys[i]);
        (*out)[i].value = describe_dup(obj->keys[i], &obj->items[i]);
        (*n)++;
        if ((*out)[i].name == NULL || (*out)[i].value == NULL) return -1;
    }
    return 0;
}

static int take_command_line(const struct stats_json *root, struct report_meta *m)
{
    const struct stats_json *argv = stats_json_get(root, "argv");
    if (argv == NULL || argv->type != STATS_JSON_ARRAY) return 0;
    struct text t = {0};
    text_add(&t, "");
    for (size_t i = 0; i < argv->count; i++) {
        if (argv->items[i].type != STATS_JSON_STRING) continue;
        const char *word = argv->items[i].string;
        bool quote = word[0] == '\0' || strpbrk(word, " \t'\"$&|;<>()*?`\\") != NULL;
        if (i) text_add(&t, " ");
        if (!quote) {
            text_add(&t, word);
            continue;
        }
        text_add(&t, "'"); /* as a shell would need it */
        for (const char *c = word; *c; c++)
            text_add(&t, *c == '\'' ? "'\\''" : (char[2]){*c, '\0'});
        text_add(&t, "'");
    }
    if (t.failed) {
        free(t.s);
        return -1;
    }
    m->command_line = t.s;
    return 0;
}

static int take_levels(const struct stats_json *root, struct report_meta *m)
{
    const struct stats_json *levels = stats_json_get(root, "levels");
    if (levels == NULL || levels->type != STATS_JSON_ARRAY || levels->count == 0) return 0;
    m->levels = calloc(levels->count, sizeof *m->levels);
    if (m->levels == NULL) return -1;
    for (size_t i = 0; i < levels->count; i++) {
        const struct stats_json *l = &levels->items[i];
        double clients = take_number(l, "clients");
        if (!(clients >= 1)) continue;
        struct report_meta_level *out = &m->levels[m->n_levels++];
        out->clients = (unsigned long)clients;
        out->seconds = take_number(l, "seconds");
        out->requested_rate = take_number(l, "requested_rate");
        out->achieved_rate = take_number(l, "achieved_rate");
        const struct stats_json *stop = stats_json_get(l, "interrupted");
        out->interrupted = stop && stop->type == STATS_JSON_BOOL && stop->boolean;
        const struct stats_json *watch = stats_json_get(l, "self_watch");
        const struct stats_json *limited =
            watch && watch->type == STATS_JSON_OBJECT ? stats_json_get(watch, "limited") : NULL;
        out->generator_limited = limited && limited->type == STATS_JSON_BOOL && limited->boolean;
        bool watched = watch && watch->type == STATS_JSON_OBJECT;
        out->on_cpu = watched ? take_number(watch, "on_cpu") : NAN;
        out->waiting_for_cpu = watched ? take_number(watch, "waiting_for_cpu") : NAN;
        out->tick_lag_p99_ms = watched ? take_number(watch, "tick_lag_p99_ms") : NAN;
        if (take_pairs(stats_json_get(l, "error_reasons"), &out->error_reasons,
                       &out->n_error_reasons) != 0)
            return -1;
    }
    return 0;
}

static int take_inputs(const struct stats_json *root, struct report_meta *m)
{
    const struct stats_json *inputs = stats_json_get(root, "inputs");
    if (inputs == NULL || inputs->type != STATS_JSON_ARRAY || inputs->count == 0) return 0;
    m->inputs = calloc(inputs->count, sizeof *m->inputs);
    if (m->inputs == NULL) return -1;
    for (size_t i = 0; i < inputs->count; i++)
        if (inputs->items[i].type == STATS_JSON_STRING) {
            m->inputs[m->n_inputs] = strdup(inputs->items[i].string);
            if (m->inputs[m->n_inputs++] == NULL) return -1;
        }
    return 0;
}

static int take_all(const struct stats_json *root, struct report_meta *m)
{
    if (take_string(root, "tool", &m->tool) || take_string(root, "version", &m->version) ||
        take_string(root, "target", &m->target) ||
        take_string(root, "started_at", &m->started_at) ||
        take_string(root, "run_id", &m->run_id) || take_command_line(root, m) ||
        take_inputs(root, m) || take_levels(root, m))
        return -1;
    const struct stats_json *shard = stats_json_get(root, "shard");
    double index = take_number(shard, "index"), count = take_number(shard, "count");
    if (index >= 0 && count >= 1 && index < count) {
        m->has_shard = true;
        m->shard_index = (unsigned long)index;
        m->shard_count = (unsigned long)count;
    }
    double status = take_number(root, "exit_status");
    if (status >= 0 && status <= 255 && floor(status) == status) {
        m->has_exit_status = true;
        m->exit_status = (int)status;
    }
    const struct stats_json *options = stats_json_get(root, "options");
    m->rate = take_number(options, "rate");
    if (take_pairs(options, &m->options, &m->n_options) != 0) return -1;
    stats_machine_take(root, &m->machine_identity);
    return take_pairs(stats_json_get(root, "machine"), &m->machine, &m->n_machine);
}

static int set_problem(struct report_meta *m, const char *fmt, const char *detail)
{
    char line[600];
    snprintf(line, sizeof line, fmt, m->path, detail);
    m->problem = strdup(line);
    return m->problem ? 0 : -1;
}

/* The whole file, NUL-terminated; NULL with errno set. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    char *text = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len + 1 >= cap) {
            if (cap >= META_MAX_BYTES) {
                errno = EFBIG;
                break;
            }
            cap = cap ? cap * 4 : 64 * 1024;
            char *grown = realloc(text, cap);
            if (grown == NULL) break;
            text = grown;
        }
        size_t got = fread(text + *len, 1, cap - *len - 1, f);
        *len += got;
        if (got == 0) {
            if (ferror(f)) break;
            text[*len] = '\0';
            fclose(f);
            return text;
        }
    }
    int saved = errno;
    fclose(f);
    free(text);
    errno = saved;
    return NULL;
}

int report_meta_read(const char *path, bool optional, struct report_meta *meta)
{
    memset(meta, 0, sizeof *meta);
    meta->rate = NAN;
    meta->path = strdup(path);
    if (meta->path == NULL) return -1;
    size_t len;
    char *text = slurp(path, &len);
    if (text == NULL) {
        if (errno == ENOENT && optional) return 0;
        if (errno == ENOMEM) return -1;
        return set_problem(meta, "%s: cannot read: %s",
                           errno == EFBIG ? "larger than 16 MiB, not a descriptor"
                                          : strerror(errno));
    }
    struct stats_json root;
    char error[300];
    int rc = 0;
    int parsed = stats_json_parse(text, len, &root, error, sizeof error);
    if (parsed == -2) {
        rc = -1; /* out of memory, not a bad descriptor */
    } else if (parsed != 0) {
        rc = set_problem(meta, "%s: not a descriptor: %s", error);
    } else {
        if (root.type != STATS_JSON_OBJECT)
            rc = set_problem(meta, "%s: not a descriptor: %s", "not a JSON object");
        else if (take_all(&root, meta) != 0)
            rc = -1;
        else
            meta->loaded = true;
        stats_json_free(&root);
    }
    free(text);
    return rc;
}

static void free_pairs(struct report_pair *pairs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(pairs[i].name);
        free(pairs[i].value);
    }
    free(pairs);
}

void report_meta_free(struct report_meta *meta)
{
    free(meta->path);
    free(meta->problem);
    free(meta->tool);
    free(meta->version);
    free(meta->target);
    free(meta->started_at);
    free(meta->command_line);
    free(meta->run_id);
    for (size_t i = 0; i < meta->n_inputs; i++)
        free(meta->inputs[i]);
    free(meta->inputs);
    free_pairs(meta->options, meta->n_options);
    free_pairs(meta->machine, meta->n_machine);
    for (size_t i = 0; i < meta->n_levels; i++)
        free_pairs(meta->levels[i].error_reasons, meta->levels[i].n_error_reasons);
    free(meta->levels);
    memset(meta, 0, sizeof *meta);
}

const struct report_meta_level *report_meta_level(const struct report_meta *meta,
                                                  unsigned long clients)
{
    for (size_t i = 0; i < meta->n_levels; i++)
        if (meta->levels[i].clients == clients) return &meta->levels[i];
    return NULL;
}
