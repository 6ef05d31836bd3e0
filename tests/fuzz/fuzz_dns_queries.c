/* libFuzzer target for dnsload's query input: each line of the input goes
 * through the query-file line parser, and every accepted line is encoded with
 * c-ares as dnsload would at start. Any input ends in queries or a reason,
 * never a crash; an accepted query's packet carries one question. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dnsload/queries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct dns_query_list list;
    memset(&list, 0, sizeof(list));
    struct dns_encode_opts opts = {
        .rd = true, .edns_size = size % 2 ? 1232 : 0, .dnssec = size % 3 == 0};
    char err[256];
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        const char *name;
        uint16_t type;
        int rc = dns_parse_query_line(line, &name, &type, err, sizeof(err));
        if (rc < 0 && err[0] == '\0') abort(); /* a refusal always says why */
        if (rc == 1 && dns_queries_add(&list, name, type, &opts, err, sizeof(err)) == 0) {
            const uint8_t *pkt = dns_query_packet(&list, list.n - 1);
            if (((pkt[4] << 8) | pkt[5]) != 1) abort(); /* QDCOUNT */
        }
    }
    if (list.n && dns_queries_build_get(&list, "/dns-query") != 0) abort();
    dns_queries_free(&list);
    free(text);
    return 0;
}
