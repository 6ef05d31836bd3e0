/* The response checker: its result is a function of the bytes of a reply and
 * of the question that was asked alone. It decides whether the reply is a
 * well-formed answer to that question and reads its rcode and TC bit; it never
 * touches a socket or a counter, only a per-thread table of the results it
 * keeps (tests/fuzz/fuzz_dns_check.c feeds it anything). */
#ifndef DNSLOAD_CHECK_H
#define DNSLOAD_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DNS_HEADER_LEN 12
#define DNS_RCODE_MAX 4095 /* 4 header bits and 8 extended bits from OPT */

enum dns_verdict {
    DNS_ANSWER,         /* a well-formed answer to the question: look at rcode and tc */
    DNS_MALFORMED,      /* shorter than a header, or a section does not parse */
    DNS_QR_CLEAR,       /* a query, not a response */
    DNS_WRONG_QUESTION, /* another name, type or class, or no question where one is due */
};

struct dns_reply {
    uint16_t id;
    uint16_t rcode; /* with the extended bits of an OPT record when there is one */
    bool tc;
    bool has_question; /* false for an error answer that carries no question */
};

/* Checks `pkt` against `question`: the question section as it was sent (the
 * name in uncompressed wire form, then type and class). It must be well
 * formed (dnsload's are c-ares' work): a reply that repeats it byte for byte
 * has its name taken as valid without reading it again. The name compares
 * case-insensitively; type and class exactly. Every name in the records must
 * be valid (bounds, at most 255 bytes, no pointer loop, no pointer into the
 * 12-byte header, where no name can start). A reply with no
 * question is accepted only with an rcode other than NOERROR and NXDOMAIN
 * (servers answer FORMERR and REFUSED like that). With TC set the sections
 * after the question may be cut short and are not parsed. `out` is filled as
 * far as the packet allows (id whenever len >= 2). */
enum dns_verdict dns_check_reply(const uint8_t *pkt, size_t len, const uint8_t *question,
                                 size_t question_len, size_t query, struct dns_reply *out);

/* `query` is the question's index in the query list: a reply equal past its
 * ID to the last one this thread checked for that index, and for the same
 * question, takes that check's result (check.c's kept verdict; up to 16
 * questions in turn keep theirs); the result is the same either way. Tests
 * and fuzzers forget what was kept, so that the next reply is checked in
 * full. */
void dns_check_forget(void);
/* How many replies took a kept result on this thread (tests). */
uint64_t dns_check_kept_hits(void);

/* The name of an rcode (NOERROR, BADVERS, ...) or NULL when it has none. */
const char *dns_rcode_name(unsigned rcode);
/* An rcode by name (case-insensitive) or number 0..4095; -1 when neither. */
int dns_rcode_parse(const char *s);

#endif
