/* docread.c — a streaming, strict reader of collector documents (see docread.h).
 * It reads 64 KiB at a time and knows the document's fixed shape, so it needs no
 * general JSON tree: each metric's samples go straight into one growing array.
 * This file reads that shape and the samples; docscan.c the bytes and strings. */
#include "stats/read/docread.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/read/docscan.h"
#include "stats/read/strictnum.h"

/* ---- samples ---- */

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_letter(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_number_valid(const char *s, size_t len)
{
    size_t i = 0;
    if (i < len && s[i] == '-') i++;
    if (i < len && s[i] == '0') {
        i++;
    } else if (i < len && s[i] >= '1' && s[i] <= '9') {
        while (i < len && is_digit(s[i]))
            i++;
    } else {
        return false;
    }
    if (i < len && s[i] == '.') {
        i++;
        if (i == len || !is_digit(s[i])) return false;
        while (i < len && is_digit(s[i]))
            i++;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        if (i == len || !is_digit(s[i])) return false;
        while (i < len && is_digit(s[i]))
            i++;
    }
    return i == len;
}

/* A bare word (NaN, Infinity, null, true ...) for an error message. */
static void read_word(struct reader *r, char *word, size_t size, size_t used)
{
    int c;
    while (used + 1 < size && (c = peek(r)) != END && is_letter(c)) {
        word[used++] = (char)c;
        advance(r);
    }
    word[used] = '\0';
}

static int reject_sample(struct reader *r, const char *key, size_t index, int c, char *prefix)
{
    const char *kind = NULL;
    char word[24];
    if (c == '"')
        kind = "a string";
    else if (c == '[')
        kind = "an array";
    else if (c == '{')
        kind = "an object";
    if (kind != NULL)
        return docscan_fail(r, DOCREAD_INVALID,
                            "metric \"%.100s\": samples[%zu] is %s; samples must be finite numbers",
                            key, index, kind);
    if (is_letter(c)) {
        size_t used = 0;
        if (prefix != NULL) word[used++] = *prefix;
        read_word(r, word, sizeof word, used);
        if (strcmp(word, "true") == 0 || strcmp(word, "false") == 0 || strcmp(word, "null") == 0)
            return docscan_fail(
                r, DOCREAD_INVALID,
                "metric \"%.100s\": samples[%zu] is %s; samples must be finite numbers", key, index,
                word);
        return docscan_fail(
            r, DOCREAD_INVALID,
            "metric \"%.100s\": samples[%zu] is %s, which is not a finite JSON number", key, index,
            word);
    }
    char found[32];
    return docscan_fail(r, DOCREAD_INVALID, "metric \"%.100s\": expected samples[%zu], found %s",
                        key, index, docscan_describe(c, found, sizeof found));
}

static int read_sample(struct reader *r, const char *key, size_t index, double *out)
{
    size_t len = 0;
    int c;
    while ((c = peek(r)) != END &&
           (is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) {
        if (len == NUMBER_MAX)
            return docscan_fail(r, DOCREAD_INVALID,
                                "metric \"%.100s\": samples[%zu] is longer than %d characters", key,
                                index, NUMBER_MAX);
        r->number[len++] = (char)c;
        advance(r);
    }
    r->number[len] = '\0';
    if (len == 1 && r->number[0] == '-' && is_letter(c))
        return reject_sample(r, key, index, c, "-"); /* -Infinity */
    if (!json_number_valid(r->number, len))
        return docscan_fail(r, DOCREAD_INVALID,
                            "metric \"%.100s\": samples[%zu] is not a valid JSON number: %.40s",
                            key, index, r->number);
    double value = strtod(r->number, NULL);
    /* strtod saturates to ±HUGE_VAL on overflow; an underflow to 0 is a fine sample. */
    if (!isfinite(value))
        return docscan_fail(r, DOCREAD_INVALID,
                            "metric \"%.100s\": samples[%zu] (%.40s) overflows a double", key,
                            index, r->number);
    if (fabs(value) >= 1e308 && strictnum_out_of_range(r->number, len))
        return docscan_fail(r, DOCREAD_INVALID,
                            "metric \"%.100s\": samples[%zu] (%.40s) is out of range for "
                            "serde_json, the harness's JSON reader, which reads it as infinity",
                            key, index, r->number);
    *out = value;
    return 0;
}

/* After a member of an array or object: 1 when a ',' says another follows
 * (*c is then its first byte), 0 at `close`, -1 at anything else (*c holds it,
 * for the caller's message). Both bytes are consumed, with the whitespace. */
static inline int next_member(struct reader *r, int close, int *c)
{
    *c = skip_whitespace(r);
    if (*c == ',') {
        advance(r);
        *c = skip_whitespace(r);
        return 1;
    }
    if (*c == close) {
        advance(r);
        return 0;
    }
    return -1;
}

static int read_samples(struct reader *r, const char *key, double **out, size_t *count)
{
    bool keep = !r->options->discard_samples;
    double *samples = NULL;
    size_t n = 0, cap = 0;
    advance(r); /* '[' */
    int c = skip_whitespace(r);
    if (c == ']') {
        docscan_fail(r, DOCREAD_INVALID,
                     "metric \"%.100s\": samples is empty; a metric needs at least one", key);
        goto failed;
    }
    for (;;) {
        double value = 0.0;
        if (c == '-' || is_digit(c)) {
            if (read_sample(r, key, n, &value) != 0) goto failed;
        } else {
            reject_sample(r, key, n, c, NULL);
            goto failed;
        }
        if (keep) {
            if (n == cap) {
                size_t grown = cap ? cap * 2 : 256;
                double *bigger = realloc(samples, grown * sizeof *bigger);
                if (bigger == NULL) {
                    docscan_fail(r, DOCREAD_NO_MEMORY,
                                 "out of memory: metric \"%.100s\" has %zu samples so far", key, n);
                    goto failed;
                }
                samples = bigger;
                cap = grown;
            }
            samples[n] = value;
        }
        n++;
        int more = next_member(r, ']', &c);
        if (more > 0) continue;
        if (more == 0) break;
        char found[32];
        docscan_fail(r, DOCREAD_INVALID,
                     "metric \"%.100s\": expected ',' or ']' after samples[%zu], found %s", key,
                     n - 1, docscan_describe(c, found, sizeof found));
        goto failed;
    }
    *out = samples;
    *count = n;
    return 0;
failed:
    free(samples);
    return -1;
}

/* ---- structure ---- */

static int deliver(struct reader *r, const char *key, enum stats_unit unit, double *samples,
                   size_t n)
{
    r->result->metrics++;
    r->result->samples += n;
    struct docread_metric metric = {.key = key,
                                    .unit = unit,
                                    .samples = samples,
                                    .n = n,
                                    .why = r->result->error, /* empty until something fails */
                                    .why_size = sizeof r->result->error};
    int stop = 0;
    if (r->options->on_metric != NULL) stop = r->options->on_metric(r->options->ctx, &metric);
    free(metric.samples); /* NULL when the callback took it */
    if (stop != 0) {
        r->status = DOCREAD_STOPPED;
        r->result->stopped_with = stop;
        return -1;
    }
    return 0;
}

/* A metric's members as they are read: each at most once, both needed. */
struct metric_fields {
    bool have_unit, have_samples;
    enum stats_unit unit;
    double *samples; /* owned */
    size_t n;
};

/* "unit": after its key, a unit's name. */
static int read_unit(struct reader *r, const char *key, struct metric_fields *m)
{
    char found[32];
    if (m->have_unit)
        return docscan_fail(r, DOCREAD_INVALID, "metric \"%.100s\" has unit twice", key);
    m->have_unit = true;
    if (docscan_expect_byte(r, ':', "after \"unit\"") != 0) return -1;
    int c = peek(r);
    if (c != '"')
        return docscan_fail(r, DOCREAD_INVALID,
                            "metric \"%.100s\": unit must be a string, found %s", key,
                            docscan_describe(c, found, sizeof found));
    if (docscan_read_string(r, "the unit") != 0) return -1;
    if (stats_unit_parse(r->text, r->text_len, &m->unit) != 0)
        return docscan_fail(r, DOCREAD_INVALID,
                            "metric \"%.100s\": unknown unit \"%.40s\" (one of: %s)", key, r->text,
                            stats_unit_list());
    return 0;
}

/* "samples": after its key, the array. */
static int read_samples_member(struct reader *r, const char *key, struct metric_fields *m)
{
    char found[32];
    if (m->have_samples)
        return docscan_fail(r, DOCREAD_INVALID, "metric \"%.100s\" has samples twice", key);
    m->have_samples = true;
    if (docscan_expect_byte(r, ':', "after \"samples\"") != 0) return -1;
    int c = peek(r);
    if (c != '[')
        return docscan_fail(r, DOCREAD_INVALID,
                            "metric \"%.100s\": samples must be an array of numbers, found %s", key,
                            docscan_describe(c, found, sizeof found));
    return read_samples(r, key, &m->samples, &m->n);
}

static int read_metric(struct reader *r, const char *key)
{
    char found[32];
    int c = peek(r);
    if (c != '{')
        return docscan_fail(r, DOCREAD_INVALID,
                            "metric \"%.100s\" must be an object with unit and samples, found %s",
                            key, docscan_describe(c, found, sizeof found));
    advance(r);
    c = skip_whitespace(r);
    if (c == '}')
        return docscan_fail(r, DOCREAD_INVALID,
                            "metric \"%.100s\" is empty; it needs unit and samples", key);

    struct metric_fields m = {.unit = STATS_UNIT_COUNT};
    int rc = 0, more = 1;
    while (rc == 0 && more > 0) {
        if (c != '"')
            rc = docscan_fail(r, DOCREAD_INVALID, "metric \"%.100s\": expected a key, found %s",
                              key, docscan_describe(c, found, sizeof found));
        else if (docscan_read_string(r, "a key") != 0)
            rc = -1;
        else if (docscan_text_is(r, "unit"))
            rc = read_unit(r, key, &m);
        else if (docscan_text_is(r, "samples"))
            rc = read_samples_member(r, key, &m);
        else
            rc = docscan_fail(
                r, DOCREAD_INVALID,
                "metric \"%.100s\": unknown key \"%.40s\"; a metric has exactly unit and samples",
                key, r->text);
        if (rc == 0 && (more = next_member(r, '}', &c)) < 0)
            rc =
                docscan_fail(r, DOCREAD_INVALID, "metric \"%.100s\": expected ',' or '}', found %s",
                             key, docscan_describe(c, found, sizeof found));
    }
    if (rc == 0 && (!m.have_unit || !m.have_samples))
        rc = docscan_fail(r, DOCREAD_INVALID, "metric \"%.100s\" has no %s", key,
                          m.have_unit ? "samples" : "unit");
    if (rc != 0) {
        free(m.samples);
        return -1;
    }
    return deliver(r, key, m.unit, m.samples, m.n);
}

static int read_metrics(struct reader *r)
{
    char found[32];
    int c = peek(r);
    if (c != '{')
        return docscan_fail(r, DOCREAD_INVALID, "metrics must be an object, found %s",
                            docscan_describe(c, found, sizeof found));
    advance(r);
    c = skip_whitespace(r);
    if (c == '}')
        return docscan_fail(r, DOCREAD_INVALID,
                            "metrics is empty; a document needs at least one metric");
    for (;;) {
        if (c != '"')
            return docscan_fail(r, DOCREAD_INVALID, "expected a metric key, found %s",
                                docscan_describe(c, found, sizeof found));
        if (docscan_read_string(r, "a metric key") != 0) return -1;
        bool inserted;
        long at = keyindex_intern(&r->metric_keys, r->text, r->text_len, &inserted);
        if (at < 0) return docscan_fail(r, DOCREAD_NO_MEMORY, "out of memory reading metric keys");
        if (!inserted)
            return docscan_fail(r, DOCREAD_INVALID, "metric \"%.100s\" appears twice", r->text);
        const char *key = r->metric_keys.keys[at];
        if (docscan_expect_byte(r, ':', "after a metric key") != 0) return -1;
        if (read_metric(r, key) != 0) return -1;
        int more = next_member(r, '}', &c);
        if (more > 0) continue;
        if (more == 0) return 0;
        return docscan_fail(r, DOCREAD_INVALID,
                            "expected ',' or '}' after metric \"%.100s\", found %s", key,
                            docscan_describe(c, found, sizeof found));
    }
}

/* The document's top level: {"metrics": {...}, "sidecar": "..."} and nothing after
 * it. (Named apart from the commands' read_document, which calls this reader:
 * the reader calls no command.) */
static int read_top_level(struct reader *r)
{
    char found[32];
    int c;
    /* A collector may print its own warnings before the document. */
    while ((c = peek(r)) != '{') {
        if (c == END)
            return docscan_fail(r, DOCREAD_INVALID, "no JSON document: the input has no '{'");
        advance(r);
    }
    advance(r);
    c = skip_whitespace(r);
    bool have_metrics = false, have_sidecar = false;
    if (c == '}')
        return docscan_fail(r, DOCREAD_INVALID, "the document is empty; it needs metrics");
    for (;;) {
        if (c != '"')
            return docscan_fail(r, DOCREAD_INVALID, "expected a top-level key, found %s",
                                docscan_describe(c, found, sizeof found));
        if (docscan_read_string(r, "a top-level key") != 0) return -1;
        if (docscan_text_is(r, "metrics")) {
            if (have_metrics) return docscan_fail(r, DOCREAD_INVALID, "metrics appears twice");
            have_metrics = true;
            if (docscan_expect_byte(r, ':', "after \"metrics\"") != 0) return -1;
            if (read_metrics(r) != 0) return -1;
        } else if (docscan_text_is(r, "sidecar")) {
            if (have_sidecar) return docscan_fail(r, DOCREAD_INVALID, "sidecar appears twice");
            have_sidecar = true;
            if (docscan_expect_byte(r, ':', "after \"sidecar\"") != 0) return -1;
            c = peek(r);
            if (c != '"')
                return docscan_fail(r, DOCREAD_INVALID, "sidecar must be a string, found %s",
                                    docscan_describe(c, found, sizeof found));
            if (docscan_read_string(r, "the sidecar") != 0) return -1;
            r->result->sidecar = strdup(r->text);
            if (r->result->sidecar == NULL)
                return docscan_fail(r, DOCREAD_NO_MEMORY, "out of memory reading the sidecar");
        } else {
            return docscan_fail(
                r, DOCREAD_INVALID,
                "unknown top-level key \"%.60s\"; a document has only metrics and an "
                "optional sidecar",
                r->text);
        }
        int more = next_member(r, '}', &c);
        if (more > 0) continue;
        if (more == 0) break;
        return docscan_fail(r, DOCREAD_INVALID, "expected ',' or '}' in the document, found %s",
                            docscan_describe(c, found, sizeof found));
    }
    if (!have_metrics) return docscan_fail(r, DOCREAD_INVALID, "the document has no metrics key");
    c = skip_whitespace(r);
    if (c == '{')
        return docscan_fail(
            r, DOCREAD_INVALID,
            "a second JSON document follows the first; a collector prints exactly one");
    if (c != END)
        return docscan_fail(r, DOCREAD_INVALID,
                            "unexpected %s after the document; only whitespace may follow",
                            docscan_describe(c, found, sizeof found));
    if (r->read_errno != 0) return docscan_fail(r, DOCREAD_IO, "read error");
    return 0;
}

static enum docread_status run(struct reader *r, const struct docread_options *options,
                               struct docread_result *result)
{
    static const struct docread_options no_options;
    r->options = options ? options : &no_options;
    r->result = result;
    r->line = r->column = 1;
    keyindex_init(&r->metric_keys);
    if (read_top_level(r) != 0 && r->status == DOCREAD_OK) r->status = DOCREAD_INVALID;
    keyindex_free(&r->metric_keys);
    free(r->text);
    if (r->status != DOCREAD_OK) {
        free(result->sidecar);
        result->sidecar = NULL;
    }
    return r->status;
}

enum docread_status docread_memory(const void *data, size_t len,
                                   const struct docread_options *options,
                                   struct docread_result *result)
{
    memset(result, 0, sizeof *result);
    struct reader r = {.fd = -1, .buf = data, .len = len, .at_end = true};
    return run(&r, options, result);
}

enum docread_status docread_fd(int fd, const struct docread_options *options,
                               struct docread_result *result)
{
    memset(result, 0, sizeof *result);
    struct reader r = {.fd = fd};
    r.chunk = malloc(READ_CHUNK);
    if (r.chunk == NULL) {
        snprintf(result->error, sizeof result->error, "out of memory for a read buffer");
        return DOCREAD_NO_MEMORY;
    }
    enum docread_status status = run(&r, options, result);
    free(r.chunk);
    return status;
}

enum docread_status docread_path(const char *path, const struct docread_options *options,
                                 struct docread_result *result)
{
    if (strcmp(path, "-") == 0) return docread_fd(STDIN_FILENO, options, result);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        memset(result, 0, sizeof *result);
        snprintf(result->error, sizeof result->error, "cannot open: %s", strerror(errno));
        return DOCREAD_IO;
    }
    enum docread_status status = docread_fd(fd, options, result);
    close(fd);
    return status;
}

const char *docread_input_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

enum docread_status docread_walk(const char *path, const struct docread_options *options,
                                 struct docread_result *result)
{
    enum docread_status status = docread_path(path, options, result);
    if (status == DOCREAD_OK) return status;
    if (status == DOCREAD_STOPPED)
        status = result->stopped_with == DOCREAD_NO_MEMORY ? DOCREAD_NO_MEMORY : DOCREAD_INVALID;
    if (result->error[0] != '\0') {
        char reason[sizeof result->error];
        memcpy(reason, result->error, sizeof reason);
        snprintf(result->error, sizeof result->error, "%.200s: %.300s", docread_input_name(path),
                 reason);
    }
    return status;
}

void docread_result_free(struct docread_result *result)
{
    free(result->sidecar);
    result->sidecar = NULL;
}
