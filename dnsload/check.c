/* The response checker (see check.h): header, question, then every resource
 * record walked with bounds checks, compression pointers followed a bounded
 * number of times, the OPT record read for the extended rcode. */
#include "dnsload/check.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DNS_NAME_MAX 255
#define DNS_TYPE_OPT 41
#define DNS_MAX_POINTERS 64 /* more jumps than a 255-byte name can need: a loop */

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* Names already checked: the label starts of the question's name. A
 * compression pointer to one of them (as almost every answer's owner name
 * is) needs no second walk. */
struct known_names {
    uint16_t start[16];
    unsigned n;
};

static bool known(const struct known_names *k, size_t at)
{
    for (unsigned i = 0; k && i < k->n; i++)
        if (k->start[i] == at) return true;
    return false;
}

/* Reads the name at *off. Writes its uncompressed wire form to `out` (when
 * not NULL, DNS_NAME_MAX bytes) and its length to *out_len; moves *off past
 * the name as it appears at that place; records label starts in `learn`.
 * -1 when the name runs off the packet, is too long, loops or uses a
 * reserved label type. */
static int read_name(const uint8_t *pkt, size_t len, size_t *off, uint8_t *out, size_t *out_len,
                     const struct known_names *valid, struct known_names *learn)
{
    size_t p = *off, n = 0;
    unsigned jumps = 0;
    bool jumped = false;
    for (;;) {
        if (p >= len) return -1;
        uint8_t label = pkt[p];
        if ((label & 0xC0) == 0xC0) {
            if (p + 1 >= len || ++jumps > DNS_MAX_POINTERS) return -1;
            if (!jumped) *off = p + 2;
            jumped = true;
            p = (size_t)(label & 0x3F) << 8 | pkt[p + 1];
            if (!out && known(valid, p)) return 0;
            continue;
        }
        if (label & 0xC0) return -1; /* 0x40 and 0x80: extended label types, obsolete */
        if (p + 1 + label > len || n + 1 + label > DNS_NAME_MAX) return -1;
        if (learn && !jumped && learn->n < 16) learn->start[learn->n++] = (uint16_t)p;
        if (out) memcpy(out + n, pkt + p, (size_t)label + 1);
        n += (size_t)label + 1;
        p += (size_t)label + 1;
        if (label == 0) break;
    }
    if (!jumped) *off = p;
    if (out_len) *out_len = n;
    return 0;
}

/* Wire names compare label by label; lengths are bytes below 64 and can
 * never equal a letter, so a byte-wise ASCII case fold is exact. */
static bool same_name(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = (uint8_t)(x + 32);
        if (y >= 'A' && y <= 'Z') y = (uint8_t)(y + 32);
        if (x != y) return false;
    }
    return true;
}

/* Walks `count` resource records from *off; notes the extended rcode bits of
 * an OPT record. -1 when a record does not fit. */
static int walk_records(const uint8_t *pkt, size_t len, size_t *off, unsigned count,
                        bool additional, const struct known_names *valid, struct dns_reply *out)
{
    for (unsigned i = 0; i < count; i++) {
        if (read_name(pkt, len, off, NULL, NULL, valid, NULL) < 0) return -1;
        if (*off + 10 > len) return -1;
        const uint8_t *rr = pkt + *off;
        uint16_t type = get16(rr), rdlen = get16(rr + 8);
        if (*off + 10 + rdlen > len) return -1;
        if (additional && type == DNS_TYPE_OPT)
            out->rcode = (uint16_t)(out->rcode | rr[4] << 4); /* TTL's high byte */
        *off += 10 + (size_t)rdlen;
    }
    return 0;
}

enum dns_verdict dns_check_reply(const uint8_t *pkt, size_t len, const uint8_t *question,
                                 size_t question_len, struct dns_reply *out)
{
    memset(out, 0, sizeof(*out));
    if (len >= 2) out->id = get16(pkt);
    if (len < DNS_HEADER_LEN) return DNS_MALFORMED;
    uint8_t flags_hi = pkt[2], flags_lo = pkt[3];
    out->rcode = flags_lo & 0x0F;
    out->tc = (flags_hi & 0x02) != 0;
    if (!(flags_hi & 0x80)) return DNS_QR_CLEAR;
    unsigned qdcount = get16(pkt + 4), ancount = get16(pkt + 6), nscount = get16(pkt + 8),
             arcount = get16(pkt + 10);
    size_t off = DNS_HEADER_LEN;
    struct known_names names = {.n = 0};
    if (qdcount > 0) {
        if (qdcount != 1) return DNS_WRONG_QUESTION;
        /* The usual answer echoes the question byte for byte, uncompressed:
         * one comparison, then the name's labels are learnt for the records. */
        if (question_len >= 5 && off + question_len <= len &&
            memcmp(pkt + off, question, question_len) == 0) {
            size_t end = off;
            if (read_name(pkt, len, &end, NULL, NULL, NULL, &names) < 0 ||
                end != off + question_len - 4)
                return DNS_MALFORMED;
            off += question_len;
        } else {
            uint8_t name[DNS_NAME_MAX];
            size_t name_len;
            if (read_name(pkt, len, &off, name, &name_len, NULL, &names) < 0 || off + 4 > len)
                return DNS_MALFORMED;
            if (question_len < 4 || name_len != question_len - 4 ||
                !same_name(name, question, name_len) ||
                memcmp(pkt + off, question + name_len, 4) != 0)
                return DNS_WRONG_QUESTION;
            off += 4;
        }
        out->has_question = true;
    }
    /* With TC the rest may be cut anywhere: only header and question count. */
    if (!out->tc && (walk_records(pkt, len, &off, ancount + nscount, false, &names, out) < 0 ||
                     walk_records(pkt, len, &off, arcount, true, &names, out) < 0))
        return DNS_MALFORMED;
    /* Error answers may leave the question out (FORMERR, REFUSED, BADVERS);
     * a success never may. */
    if (!out->has_question && (out->rcode == 0 || out->rcode == 3)) return DNS_WRONG_QUESTION;
    return DNS_ANSWER;
}

/* RFC 6895 section 2.3; 12..15 are unassigned. */
static const char *const rcode_names[] = {
    "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN",  "NOTIMP",  "REFUSED", "YXDOMAIN", "YXRRSET",
    "NXRRSET", "NOTAUTH", "NOTZONE",  "DSOTYPENI", NULL,      NULL,      NULL,       NULL,
    "BADVERS", "BADKEY",  "BADTIME",  "BADMODE",   "BADNAME", "BADALG",  "BADTRUNC", "BADCOOKIE",
};

const char *dns_rcode_name(unsigned rcode)
{
    return rcode < sizeof(rcode_names) / sizeof(rcode_names[0]) ? rcode_names[rcode] : NULL;
}

int dns_rcode_parse(const char *s)
{
    for (unsigned i = 0; i < sizeof(rcode_names) / sizeof(rcode_names[0]); i++)
        if (rcode_names[i] && strcasecmp(s, rcode_names[i]) == 0) return (int)i;
    if (!isdigit((unsigned char)*s)) return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > DNS_RCODE_MAX) return -1;
    return (int)v;
}
