/* libFuzzer target for the URL parser and the option value parsers: any
 * input ends in a value or a refusal, never a crash; what is accepted is
 * well-formed (a port in range, a target starting with "/", levels > 0). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "httpload/url.h"
#include "loadgen/options/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';

    struct http_url u;
    const char *why = NULL;
    if (http_url_parse(s, &u, &why) == 0) {
        if (u.port == 0 || u.port > 65535 || u.target[0] != '/' || u.host[0] == '\0') abort();
        char auth[300];
        http_url_authority(&u, true, auth, sizeof(auth));
        http_url_free(&u);
    } else if (!why) {
        abort();
    }

    uint64_t ns;
    if (lg_parse_duration(s, &ns) == 0 && ns == 0) abort();
    unsigned *levels = NULL;
    size_t n = 0;
    if (lg_parse_levels(s, &levels, &n) == 0) {
        for (size_t i = 0; i < n; i++)
            if (levels[i] == 0) abort();
        free(levels);
    }
    unsigned long long v;
    if (lg_parse_unsigned(s, 1, 1000, &v) == 0 && (v < 1 || v > 1000)) abort();
    double d;
    if (lg_parse_double(s, 0, 1, &d) == 0 && !(d >= 0 && d <= 1)) abort();
    free(s);
    return 0;
}
