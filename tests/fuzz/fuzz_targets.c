/* libFuzzer target for the --targets parser: any text ends in a list of
 * well-formed targets on one origin or in a one-line refusal naming the
 * file, never a crash, a leak or a read past the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httpload/targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the parser is given exactly the bytes: no terminator to lean on */
    char *text = malloc(size ? size : 1);
    if (!text) return 0;
    memcpy(text, data, size);
    struct target_list l;
    char err[256];
    err[0] = '\0';
    if (targets_parse(text, size, "f", &l, err, sizeof(err)) == 0) {
        if (l.n == 0) abort();
        unsigned last = 0;
        for (size_t i = 0; i < l.n; i++) {
            const struct target *t = &l.t[i];
            if (t->line <= last || !t->method || !t->method[0] || t->url.target[0] != '/') abort();
            last = t->line;
            /* targets may span origins (--targets across origins), never schemes */
            if (t->url.https != l.t[0].url.https) abort();
            for (size_t k = 0; k < t->n_headers; k++)
                if (!strchr(t->headers[k], ':') || strpbrk(t->headers[k], "\r\n")) abort();
            if (t->body_path && (!t->body_path[0] || t->body)) abort();
        }
        targets_free(&l);
    } else if (strncmp(err, "f:", 2) != 0 || strchr(err, '\n') || l.n != 0) {
        abort();
    }
    free(text);
    return 0;
}
