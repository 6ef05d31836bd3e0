/* fuzz_dns_check.c — libFuzzer target for dnsload's response checker: any
 * bytes must end in a verdict without a crash, an out-of-bounds read or
 * undefined behaviour, and the verdict must be the one a reference checker
 * gives: the rules of check.h written plainly, every name read in full, no
 * shortcut (the checker under test takes a question it sees echoed as valid
 * and stops at pointers into it). The input is checked against a fixed
 * question and against the question the input itself carries, when that
 * one is well formed (check.h asks it of the caller), so the fuzzer reaches
 * the record walk with echoed questions. Each check is repeated, with the ID
 * changed and with a byte changed, so that a kept result (check.c) is compared
 * with the reference too. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dnsload/check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fixed_question[] = "\3www\7example\3com\0\0\1\0\1";

static uint16_t ref16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* The name at *off, in full: its uncompressed form to out (255 bytes, or
 * NULL), *off past it as it appears there. -1 for what check.h calls
 * invalid. */
static int ref_name(const uint8_t *pkt, size_t len, size_t *off, uint8_t *out, size_t *out_len)
{
    size_t p = *off, n = 0;
    unsigned jumps = 0;
    bool jumped = false;
    for (;;) {
        if (p >= len) return -1;
        uint8_t label = pkt[p];
        if (label >= 0xC0) {
            if (p + 1 >= len || ++jumps > 64) return -1;
            if (!jumped) *off = p + 2;
            jumped = true;
            p = (size_t)(label & 0x3F) << 8 | pkt[p + 1];
            if (p < 12) return -1; /* into the header */
            continue;
        }
        if (label >= 0x40) return -1;
        if (p + 1 + label > len || n + 1 + label > 255) return -1;
        if (out) memcpy(out + n, pkt + p, (size_t)label + 1);
        n += (size_t)label + 1;
        p += (size_t)label + 1;
        if (label == 0) break;
    }
    if (!jumped) *off = p;
    if (out_len) *out_len = n;
    return 0;
}

static uint8_t lower(uint8_t c)
{
    return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

static enum dns_verdict ref_check(const uint8_t *pkt, size_t len, const uint8_t *q, size_t qlen,
                                  struct dns_reply *r)
{
    memset(r, 0, sizeof(*r));
    if (len >= 2) r->id = ref16(pkt);
    if (len < 12) return DNS_MALFORMED;
    r->rcode = pkt[3] & 0x0F;
    r->tc = (pkt[2] & 0x02) != 0;
    if (!(pkt[2] & 0x80)) return DNS_QR_CLEAR;
    unsigned qd = ref16(pkt + 4), records = ref16(pkt + 6) + ref16(pkt + 8),
             additional = ref16(pkt + 10);
    size_t off = 12;
    if (qd > 1) return DNS_WRONG_QUESTION;
    if (qd == 1) {
        uint8_t name[255];
        size_t n;
        if (ref_name(pkt, len, &off, name, &n) < 0 || off + 4 > len) return DNS_MALFORMED;
        if (qlen < 4 || n != qlen - 4) return DNS_WRONG_QUESTION;
        for (size_t i = 0; i < n; i++)
            if (lower(name[i]) != lower(q[i])) return DNS_WRONG_QUESTION;
        if (memcmp(pkt + off, q + n, 4) != 0) return DNS_WRONG_QUESTION;
        off += 4;
        r->has_question = true;
    }
    if (!r->tc) {
        for (unsigned i = 0; i < records + additional; i++) {
            if (ref_name(pkt, len, &off, NULL, NULL) < 0 || off + 10 > len) return DNS_MALFORMED;
            size_t end = off + 10 + ref16(pkt + off + 8);
            if (end > len) return DNS_MALFORMED;
            if (i >= records && ref16(pkt + off) == 41)
                r->rcode = (uint16_t)(r->rcode | pkt[off + 4] << 4);
            off = end;
        }
    }
    if (!r->has_question && (r->rcode == 0 || r->rcode == 3)) return DNS_WRONG_QUESTION;
    return DNS_ANSWER;
}

/* The checker against the reference on pkt[0..size) as it stands. */
static void agrees(const uint8_t *pkt, size_t size, const uint8_t *q, size_t qlen, size_t key,
                   enum dns_verdict *verdict, struct dns_reply *result)
{
    struct dns_reply r, want;
    memset(&r, 0x5A, sizeof(r)); /* what was there before must not show through */
    enum dns_verdict v = dns_check_reply(pkt, size, q, qlen, key, &r);
    if (v != DNS_ANSWER && v != DNS_MALFORMED && v != DNS_QR_CLEAR && v != DNS_WRONG_QUESTION)
        abort();
    if (ref_check(pkt, size, q, qlen, &want) != v) abort();
    if (r.id != want.id || r.rcode != want.rcode || r.tc != want.tc ||
        r.has_question != want.has_question)
        abort();
    if (r.rcode > DNS_RCODE_MAX) abort();
    if (verdict) *verdict = v;
    if (result) *result = r;
}

/* The input checked as it is, again (the second time may take the kept
 * result: it must be the first one's, whole), with its ID changed (a kept
 * result takes the new one) and with one byte past the ID changed (no kept
 * result may stand for it). */
static void check_one(const uint8_t *data, size_t size, const uint8_t *q, size_t qlen, size_t key)
{
    /* the packet in a buffer of its exact size: a read past it is caught */
    uint8_t *pkt = malloc(size ? size : 1);
    if (!pkt) abort();
    memcpy(pkt, data, size);
    enum dns_verdict v, v2;
    struct dns_reply r, again;
    agrees(pkt, size, q, qlen, key, &v, &r);
    agrees(pkt, size, q, qlen, key, &v2, &again);
    if (v2 != v || memcmp(&r, &again, sizeof(r)) != 0) abort();
    if (size >= 2) {
        pkt[0] ^= 0xA5;
        agrees(pkt, size, q, qlen, key, NULL, NULL);
        pkt[0] ^= 0xA5;
    }
    if (size > 2) {
        size_t at = 2 + data[size - 1] % (size - 2);
        pkt[at] ^= (uint8_t)(1u << (data[0] & 7));
        agrees(pkt, size, q, qlen, key, NULL, NULL);
    }
    free(pkt);
}

/* The question the packet carries at offset 12, if it is one a sender could
 * have sent (labels below 64 bytes, a name of at most 255, uncompressed):
 * its length, or 0. */
static size_t own_question(const uint8_t *data, size_t size)
{
    size_t p = 12;
    while (p < size && data[p] != 0) {
        if (data[p] >= 64) return 0;
        p += (size_t)data[p] + 1;
    }
    if (p >= size || p + 1 - 12 > 255 || p + 5 > size) return 0;
    return p + 5 - 12;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the first check of an input is a whole one; what it keeps serves the
     * checks after it, among them the capitals' below, a question that differs
     * from the kept one in the same slot (the key 3) */
    dns_check_forget();
    check_one(data, size, fixed_question, sizeof(fixed_question) - 1, 0);
    size_t qlen = own_question(data, size);
    if (qlen) {
        /* a copy, so a read past the question is caught by the sanitizer */
        uint8_t *q = malloc(qlen);
        if (!q) return 0;
        memcpy(q, data + 12, qlen);
        check_one(data, size, q, qlen, 3);
        /* the same name in capitals: the general way */
        for (size_t i = 0; i + 4 < qlen; i++)
            if (q[i] >= 'a' && q[i] <= 'z') q[i] = (uint8_t)(q[i] - 32);
        check_one(data, size, q, qlen, 3);
        free(q);
    }
    return 0;
}
