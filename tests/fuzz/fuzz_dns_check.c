/* fuzz_dns_check.c — libFuzzer target for dnsload's response checker: any
 * bytes must end in a verdict without a crash, an out-of-bounds read or
 * undefined behaviour, and the verdict must be consistent with the packet.
 * The input is checked twice: against a fixed question, and against the
 * question the input itself carries, so the fuzzer reaches the record walk. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dnsload/check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fixed_question[] = "\3www\7example\3com\0\0\1\0\1";

static void check_one(const uint8_t *data, size_t size, const uint8_t *q, size_t qlen)
{
    struct dns_reply r, again;
    enum dns_verdict v = dns_check_reply(data, size, q, qlen, &r);
    if (v != DNS_ANSWER && v != DNS_MALFORMED && v != DNS_QR_CLEAR && v != DNS_WRONG_QUESTION)
        abort();
    if (v != DNS_MALFORMED && size < DNS_HEADER_LEN) abort();
    if (size >= 2 && r.id != (uint16_t)(data[0] << 8 | data[1])) abort();
    if (r.rcode > DNS_RCODE_MAX) abort();
    if (v == DNS_ANSWER && !(data[2] & 0x80)) abort();
    /* a success always echoes the question */
    if (v == DNS_ANSWER && !r.has_question && (r.rcode == 0 || r.rcode == 3)) abort();
    /* pure: the same bytes give the same verdict */
    if (dns_check_reply(data, size, q, qlen, &again) != v || memcmp(&r, &again, sizeof(r)) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_one(data, size, fixed_question, sizeof(fixed_question) - 1);
    /* the packet's own question, uncompressed, as a sender would have it */
    if (size > DNS_HEADER_LEN) {
        size_t end = DNS_HEADER_LEN;
        while (end < size && end - DNS_HEADER_LEN < 255 && data[end] != 0)
            end++;
        if (end < size && end + 5 <= size) {
            size_t qlen = end + 5 - DNS_HEADER_LEN;
            /* a copy, so a read past the question is caught by the sanitizer */
            uint8_t *q = malloc(qlen);
            if (!q) return 0;
            memcpy(q, data + DNS_HEADER_LEN, qlen);
            check_one(data, size, q, qlen);
            free(q);
        }
    }
    return 0;
}
