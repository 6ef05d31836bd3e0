/* --targets FILE: a list of requests in vegeta's text format, read and
 * checked once at start. A target is a block of lines: `METHOD URL`, then
 * optional `Name: value` headers, then an optional body, `@FILE` (a path as
 * vegeta takes it: relative to the current directory) or `@<<TAG`, the
 * lines up to one that is exactly TAG. A request line or a blank line ends a
 * block; lines starting with `#` are comments. Targets may be on any
 * origins (hosts and ports) of the first one's scheme: a client switches its
 * one connection as its walk crosses origins, and every connection is set
 * up alike (TLS or not). */
#ifndef HTTPLOAD_TARGETS_H
#define HTTPLOAD_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#include "httpload/url.h"

struct target {
    unsigned line; /* of its request line: names it in messages and metrics */
    char *method;
    char *url_text; /* as written */
    struct http_url url;
    char **headers; /* "Name: value", trimmed, in file order */
    size_t n_headers;
    char *body_path;    /* @FILE, or NULL; read by targets_load */
    unsigned body_line; /* the line of the @ */
    uint8_t *body;      /* the body, or NULL for none */
    size_t body_len;
};

struct target_list {
    struct target *t;
    size_t n, cap;
};

/* Parses the text of a targets file called `file` (for messages); @FILE
 * bodies are named, not read. 0, or -1 with "FILE:LINE: reason" in err;
 * LG_NO_MEMORY when memory ran out. */
int targets_parse(const char *text, size_t len, const char *file, struct target_list *out,
                  char *err, size_t errlen);
/* Reads and parses the file, then reads every @FILE body. 0, or -1 with the
 * reason (naming FILE, and the line where one is at fault) in err;
 * LG_NO_MEMORY when memory ran out. */
int targets_load(const char *path, struct target_list *out, char *err, size_t errlen);
void targets_free(struct target_list *l);

#endif
