/* docread.h — the streaming reader of collector documents. It enforces every
 * rule of the collector protocol and hands over one metric at a time, so memory
 * follows the largest metric, not the document (and nothing at all for `check`). */
#ifndef LOADGEN_STATS_DOCREAD_H
#define LOADGEN_STATS_DOCREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/read/units.h"

enum docread_status {
    DOCREAD_OK = 0,
    DOCREAD_INVALID = 1,   /* the input breaks a protocol rule; error says which */
    DOCREAD_IO = 2,        /* cannot open or read the input */
    DOCREAD_STOPPED = 3,   /* the metric callback asked to stop (result->stopped_with) */
    DOCREAD_NO_MEMORY = 4, /* an allocation failed; error says where */
};

struct docread_metric {
    const char *key; /* NUL-terminated; valid only during the callback */
    enum stats_unit unit;
    /* malloc'd samples in document order (NULL when discard_samples is set);
     * the callback takes ownership by setting this to NULL. */
    double *samples;
    size_t n;
    /* Where a callback that stops the read may say why, in a sentence
     * without the input's name (result->error; empty when it says nothing). */
    char *why;
    size_t why_size;
};

/* Called once per metric, after its object closed. Non-zero stops the read,
 * and is kept in result->stopped_with: DOCREAD_NO_MEMORY when memory ran out,
 * anything else when the callback refuses the input. */
typedef int (*docread_metric_fn)(void *ctx, struct docread_metric *metric);

struct docread_options {
    docread_metric_fn on_metric; /* may be NULL */
    void *ctx;
    bool discard_samples; /* validate and count samples without storing them */
};

struct docread_result {
    size_t metrics;
    size_t samples;
    char *sidecar;    /* the optional sidecar string (malloc'd), or NULL */
    int stopped_with; /* what the callback returned to stop the read */
    char error[512];  /* one line naming the rule broken and where */
};

/* Reads the document at `path` ("-" is stdin). */
enum docread_status docread_path(const char *path, const struct docread_options *options,
                                 struct docread_result *result);
enum docread_status docread_fd(int fd, const struct docread_options *options,
                               struct docread_result *result);
enum docread_status docread_memory(const void *data, size_t len,
                                   const struct docread_options *options,
                                   struct docread_result *result);

/* The one walk over a document named on a command line: reads `path` as
 * docread_path does and, on failure, leaves in result->error one line that
 * names the input ("NAME: the rule broken", "NAME: cannot open: ..."). A
 * callback that stops the read fails it as DOCREAD_NO_MEMORY when it returned
 * DOCREAD_NO_MEMORY, else as DOCREAD_INVALID, with the reason it left in
 * metric->why, or with an empty result->error when it left none (it said why
 * itself). Never DOCREAD_STOPPED. */
enum docread_status docread_walk(const char *path, const struct docread_options *options,
                                 struct docread_result *result);

/* How an input is named in messages: "-" is "<stdin>". */
const char *docread_input_name(const char *path);

/* Frees what a read left in `result` (the sidecar). */
void docread_result_free(struct docread_result *result);

#endif
