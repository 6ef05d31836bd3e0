/* Whole-file reads. See readfile.h. */
#include "httpload/readfile.h"
#include "loadgen/core/nomem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t *read_whole_file(const char *path, size_t *len, const char **why)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *why = lg_errno_why(errno); /* fopen allocates too */
        return NULL;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap + 1);
    *why = lg_no_memory;
    while (buf) {
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0) break;
        if (n == cap) {
            if (n > READFILE_LIMIT) {
                *why = "larger than 256 MiB";
                free(buf);
                buf = NULL;
                break;
            }
            /* one byte past the limit tells a file of exactly the limit apart */
            size_t grown = cap * 2 > READFILE_LIMIT + 1 ? READFILE_LIMIT + 1 : cap * 2;
            uint8_t *b = realloc(buf, grown + 1);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap = grown;
        }
    }
    if (buf && ferror(f)) {
        *why = lg_errno_why(errno);
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    *len = n;
    return buf;
}
