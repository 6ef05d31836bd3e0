/* The response checker (see check.h). The usual reply echoes the question
 * byte for byte: then header and question cost a few comparisons, and of the
 * records only what follows the question is walked, bounds-checked, an
 * owner name that points at the question taken as the valid name it is.
 * Anything else takes the general way: every name read in full, compression
 * pointers followed a bounded number of times. */
#include "dnsload/check.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
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

/* a == b over n >= 4 bytes, 8 at a time and the last 8 (or, below 8, the
 * first and last 4) in overlapping loads: n is a question's length, a few
 * dozen bytes, where a call to memcmp would cost more than the comparison. */
static bool same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n < 8) {
        uint32_t x, y, u, v;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        memcpy(&u, a + n - 4, 4);
        memcpy(&v, b + n - 4, 4);
        return ((x ^ y) | (u ^ v)) == 0;
    }
    uint64_t x, y, diff;
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    diff = x ^ y;
    for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    return diff == 0;
}

/* A reply's question that is the query's own, byte for byte at offset 12:
 * a name the tool built (check.h), so valid; its label starts are the names
 * a compression pointer may reuse without reading them again. */
struct echo {
    const uint8_t *name; /* the question's name, uncompressed */
    size_t len;          /* its length, the root label included */
};

/* The length of the name at a label start of the echoed question that
 * `at` (a packet offset) is, or -1 when it is none. */
static int echo_suffix(const struct echo *e, size_t at)
{
    if (!e || at < DNS_HEADER_LEN || at >= DNS_HEADER_LEN + e->len) return -1;
    size_t want = at - DNS_HEADER_LEN;
    for (size_t i = 0; i < e->len; i += (size_t)e->name[i] + 1)
        if (i == want) return (int)(e->len - i);
    return -1;
}

/* Reads the name at *off and moves *off past it as it appears there. Writes
 * its uncompressed wire form to `out` (when not NULL, DNS_NAME_MAX bytes)
 * and its length to *out_len. A pointer to a label start of the echoed
 * question (echo, may be NULL) ends the walk: the rest is known. -1 when the
 * name runs off the packet, is longer than 255 bytes, loops, points into the
 * header or uses a reserved label type. */
static int read_name(const uint8_t *pkt, size_t len, size_t *off, uint8_t *out, size_t *out_len,
                     const struct echo *echo)
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
            /* no name starts in the header; refused, a name never reads the
             * ID, and a kept verdict may stand for a reply with another */
            if (p < DNS_HEADER_LEN) return -1;
            int rest = out ? -1 : echo_suffix(echo, p);
            if (rest >= 0) return n + (size_t)rest > DNS_NAME_MAX ? -1 : 0;
            continue;
        }
        if (label & 0xC0) return -1; /* 0x40 and 0x80: extended label types, obsolete */
        if (p + 1 + label > len || n + 1 + label > DNS_NAME_MAX) return -1;
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
 * an OPT record in the additional section (from `additional` on). -1 when a
 * record does not fit. */
static int walk_records(const uint8_t *pkt, size_t len, size_t *off, unsigned count,
                        unsigned additional, const struct echo *echo, struct dns_reply *out)
{
    for (unsigned i = 0; i < count; i++) {
        size_t o = *off;
        /* the usual owner: a pointer to the question's name (offset 12) */
        if (echo && o + 2 <= len && pkt[o] == 0xC0 && pkt[o + 1] == DNS_HEADER_LEN)
            o += 2;
        else if (read_name(pkt, len, &o, NULL, NULL, echo) < 0)
            return -1;
        if (o + 10 > len) return -1;
        const uint8_t *rr = pkt + o;
        size_t end = o + 10 + get16(rr + 8);
        if (end > len) return -1;
        if (i >= additional && get16(rr) == DNS_TYPE_OPT)
            out->rcode = (uint16_t)(out->rcode | rr[4] << 4); /* TTL's high byte */
        *off = end;
    }
    return 0;
}

/* The question section the general way: any case, any compression. */
static enum dns_verdict other_question(const uint8_t *pkt, size_t len, size_t *off,
                                       const uint8_t *question, size_t question_len)
{
    uint8_t name[DNS_NAME_MAX];
    size_t name_len;
    if (read_name(pkt, len, off, name, &name_len, NULL) < 0 || *off + 4 > len) return DNS_MALFORMED;
    if (question_len < 4 || name_len != question_len - 4 || !same_name(name, question, name_len) ||
        memcmp(pkt + *off, question + name_len, 4) != 0)
        return DNS_WRONG_QUESTION;
    *off += 4;
    return DNS_ANSWER;
}

/* --- the kept verdict ------------------------------------------------------
 * Under load a server gives the same reply to the same question again and
 * again, the ID aside. The verdict on a reply that echoed its question is a
 * function of its bytes past the ID (no name may start in the header): each
 * loop thread keeps the last such reply in the slot of the question's index
 * in the query list (so up to KEPT_SLOTS questions in turn never push each
 * other out), and a reply that equals it
 * from byte 2 on, and so echoes the same question, takes its result after
 * one comparison. Only a whole check's DNS_ANSWER is kept; the ID is read
 * from the reply at hand. */
#define KEPT_SLOTS 16
#define KEPT_MAX 512 /* a longer reply is checked every time */

struct kept_reply {
    uint32_t len; /* 0: nothing kept */
    uint32_t question_len;
    struct dns_reply out;
    uint8_t pkt[KEPT_MAX];
};

static _Thread_local struct {
    struct kept_reply slot[KEPT_SLOTS];
    uint64_t hits;
} kept;

void dns_check_forget(void)
{
    for (size_t i = 0; i < KEPT_SLOTS; i++)
        kept.slot[i].len = 0;
}

uint64_t dns_check_kept_hits(void)
{
    return kept.hits;
}

static bool kept_take(const struct kept_reply *k, const uint8_t *pkt, size_t len,
                      const uint8_t *question, size_t question_len, struct dns_reply *out)
{
    /* a kept reply echoed its question (5 bytes or more) after the header:
     * a reply equal to it past the ID echoes `question` exactly when that
     * equals the echo */
    if (k->len == 0 || k->len != len || k->question_len != question_len ||
        memcmp(pkt + 2, k->pkt + 2, len - 2) != 0 ||
        !same_bytes(pkt + DNS_HEADER_LEN, question, question_len))
        return false;
    *out = k->out;
    out->id = get16(pkt);
    kept.hits++;
    return true;
}

static void kept_keep(struct kept_reply *k, const uint8_t *pkt, size_t len, size_t question_len,
                      const struct dns_reply *out)
{
    if (len > KEPT_MAX) return;
    memcpy(k->pkt, pkt, len);
    k->len = (uint32_t)len;
    k->question_len = (uint32_t)question_len;
    k->out = *out;
}

enum dns_verdict dns_check_reply(const uint8_t *pkt, size_t len, const uint8_t *question,
                                 size_t question_len, size_t query, struct dns_reply *out)
{
    struct kept_reply *k = &kept.slot[query % KEPT_SLOTS];
    if (kept_take(k, pkt, len, question, question_len, out)) return DNS_ANSWER;
    out->id = len >= 2 ? get16(pkt) : 0;
    out->rcode = 0;
    out->tc = false;
    out->has_question = false;
    if (len < DNS_HEADER_LEN) return DNS_MALFORMED;
    uint8_t flags_hi = pkt[2], flags_lo = pkt[3];
    out->rcode = flags_lo & 0x0F;
    out->tc = (flags_hi & 0x02) != 0;
    if (!(flags_hi & 0x80)) return DNS_QR_CLEAR;
    unsigned qdcount = get16(pkt + 4), ancount = get16(pkt + 6), nscount = get16(pkt + 8),
             arcount = get16(pkt + 10);
    size_t off = DNS_HEADER_LEN;
    struct echo echo, *known = NULL;
    if (qdcount > 0) {
        if (qdcount != 1) return DNS_WRONG_QUESTION;
        /* The usual answer echoes the question byte for byte: one
         * comparison, and its name needs no reading. */
        if (question_len >= 5 && question_len - 4 <= DNS_NAME_MAX &&
            question_len <= len - DNS_HEADER_LEN &&
            same_bytes(pkt + DNS_HEADER_LEN, question, question_len)) {
            echo.name = question;
            echo.len = question_len - 4;
            known = &echo;
            off += question_len;
        } else {
            enum dns_verdict v = other_question(pkt, len, &off, question, question_len);
            if (v != DNS_ANSWER) return v;
        }
        out->has_question = true;
    }
    /* With TC the rest may be cut anywhere: only header and question count. */
    if (!out->tc && walk_records(pkt, len, &off, ancount + nscount + arcount, ancount + nscount,
                                 known, out) < 0)
        return DNS_MALFORMED;
    /* Error answers may leave the question out (FORMERR, REFUSED, BADVERS);
     * a success never may. */
    if (!out->has_question && (out->rcode == 0 || out->rcode == 3)) return DNS_WRONG_QUESTION;
    if (known) kept_keep(k, pkt, len, question_len, out);
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
