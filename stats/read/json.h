/* json.h — a small, strict JSON reader that builds a tree, for the generators'
 * --meta descriptors (a few kilobytes of nested fields). Collector documents,
 * which can hold millions of samples, go through the streaming docread.c instead. */
#ifndef LOADGEN_STATS_JSON_H
#define LOADGEN_STATS_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum stats_json_type {
    STATS_JSON_NULL,
    STATS_JSON_BOOL,
    STATS_JSON_NUMBER,
    STATS_JSON_STRING,
    STATS_JSON_ARRAY,
    STATS_JSON_OBJECT,
};

struct stats_json {
    enum stats_json_type type;
    bool boolean;
    double number;
    char *string;             /* NUL-terminated UTF-8 (\u0000 is refused) */
    struct stats_json *items; /* array elements or object values */
    char **keys;              /* object keys, parallel to items */
    size_t count;
};

/* Parses exactly one JSON value (RFC 8259; duplicate object keys and nesting
 * deeper than 64 are refused). Returns 0, or -1 with a one-line reason naming
 * the line and column in `error`, or -2 when memory ran out. On failure *out
 * holds nothing to free. */
int stats_json_parse(const char *text, size_t len, struct stats_json *out, char *error,
                     size_t error_size);

void stats_json_free(struct stats_json *value);

/* The member `key` of an object, or NULL (also when `object` is not one). */
const struct stats_json *stats_json_get(const struct stats_json *object, const char *key);

/* "null", "true or false", "a number", ... for error messages. */
const char *stats_json_type_name(enum stats_json_type type);

#endif
