/* test_dns_check.c — dnsload's response checker on crafted packets: each
 * verdict (answer, malformed, QR clear, wrong question), the rcode with its
 * extended bits, TC, compression pointers into the echoed question and
 * elsewhere, the kept verdict on a repeated reply, and the rcode names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dnsload/check.h"

/* The question dnsload would have sent: www.example.com A IN. */
static const uint8_t question[] = "\3www\7example\3com\0\0\1\0\1";
#define QLEN (sizeof(question) - 1)

struct pkt {
    uint8_t b[600];
    size_t n;
};

static void put(struct pkt *p, const void *d, size_t n)
{
    memcpy(p->b + p->n, d, n);
    p->n += n;
}

static void put16(struct pkt *p, unsigned v)
{
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    put(p, b, 2);
}

/* A header; flags in host order (0x8180: QR, RD, RA, NOERROR). */
static void header(struct pkt *p, unsigned id, unsigned flags, unsigned qd, unsigned an,
                   unsigned ns, unsigned ar)
{
    p->n = 0;
    put16(p, id);
    put16(p, flags);
    put16(p, qd);
    put16(p, an);
    put16(p, ns);
    put16(p, ar);
}

/* A record for the question's name by compression pointer: A 192.0.2.1. */
static void a_record(struct pkt *p)
{
    static const uint8_t rr[] = {0xC0, 0x0C, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1};
    put(p, rr, sizeof(rr));
}

/* Each crafted packet is checked in full: nothing kept from the one before. */
static enum dns_verdict check(const struct pkt *p, struct dns_reply *r)
{
    dns_check_forget();
    return dns_check_reply(p->b, p->n, question, QLEN, 0, r);
}

static void test_answer_with_record(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 0x1234, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    a_record(&p);
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    assert_int_equal(r.id, 0x1234);
    assert_int_equal(r.rcode, 0);
    assert_false(r.tc);
    assert_true(r.has_question);
}

static void test_name_compares_case_insensitively(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8180, 1, 0, 0, 0);
    put(&p, "\3WwW\7EXAMPLE\3cOm\0\0\1\0\1", QLEN);
    assert_int_equal(check(&p, &r), DNS_ANSWER);
}

static void test_nxdomain_is_an_answer(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8183, 1, 0, 0, 0);
    put(&p, question, QLEN);
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    assert_int_equal(r.rcode, 3);
}

static void test_shorter_than_header_is_malformed(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 0xBEEF, 0x8180, 1, 0, 0, 0);
    p.n = 6;
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
    assert_int_equal(r.id, 0xBEEF);
    p.n = 1;
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
    assert_int_equal(r.id, 0);
    assert_int_equal(dns_check_reply(NULL, 0, question, QLEN, 0, &r), DNS_MALFORMED);
}

static void test_qr_clear_is_not_a_response(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x0100, 1, 0, 0, 0);
    put(&p, question, QLEN);
    assert_int_equal(check(&p, &r), DNS_QR_CLEAR);
}

static void test_other_name_type_or_class_is_wrong_question(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8180, 1, 0, 0, 0);
    put(&p, "\3www\7example\3org\0\0\1\0\1", QLEN);
    assert_int_equal(check(&p, &r), DNS_WRONG_QUESTION);
    header(&p, 1, 0x8180, 1, 0, 0, 0);
    put(&p, "\3www\7example\3com\0\0\x1c\0\1", QLEN); /* AAAA */
    assert_int_equal(check(&p, &r), DNS_WRONG_QUESTION);
    header(&p, 1, 0x8180, 1, 0, 0, 0);
    put(&p, "\3www\7example\3com\0\0\1\0\3", QLEN); /* class CH */
    assert_int_equal(check(&p, &r), DNS_WRONG_QUESTION);
    header(&p, 1, 0x8180, 1, 0, 0, 0);
    put(&p, "\4xwww\7example\3com\0\0\1\0\1", QLEN + 1); /* longer name */
    assert_int_equal(check(&p, &r), DNS_WRONG_QUESTION);
    header(&p, 1, 0x8180, 2, 0, 0, 0);
    put(&p, question, QLEN);
    put(&p, question, QLEN);
    assert_int_equal(check(&p, &r), DNS_WRONG_QUESTION);
}

static void test_error_answer_may_omit_the_question(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8185, 0, 0, 0, 0); /* REFUSED, no question */
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    assert_int_equal(r.rcode, 5);
    assert_false(r.has_question);
    header(&p, 1, 0x8181, 0, 0, 0, 0); /* FORMERR */
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    header(&p, 1, 0x8180, 0, 0, 0, 0); /* NOERROR without the question: no */
    assert_int_equal(check(&p, &r), DNS_WRONG_QUESTION);
    header(&p, 1, 0x8183, 0, 0, 0, 0); /* NXDOMAIN neither */
    assert_int_equal(check(&p, &r), DNS_WRONG_QUESTION);
}

static void test_truncated_answer_skips_the_records(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8380, 1, 5, 0, 0); /* TC, five answers announced, none there */
    put(&p, question, QLEN);
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    assert_true(r.tc);
    header(&p, 1, 0x8180, 1, 5, 0, 0); /* without TC that is malformed */
    put(&p, question, QLEN);
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
}

static void test_records_that_do_not_fit_are_malformed(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    a_record(&p);
    p.n -= 1; /* rdata one byte short */
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
    p.n -= 6; /* not even the fixed part */
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
    /* the question itself cut in its type */
    header(&p, 1, 0x8180, 1, 0, 0, 0);
    put(&p, question, QLEN - 3);
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
}

static void test_bad_compression_is_malformed(void **state)
{
    struct pkt p;
    struct dns_reply r;
    /* a record whose owner points at itself */
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    size_t here = p.n;
    put16(&p, 0xC000 | (unsigned)here);
    put(&p, "\0\1\0\1\0\0\0\0\0\0", 10);
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
    /* a pointer past the end */
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    put16(&p, 0xC000 | 0x3FF);
    put(&p, "\0\1\0\1\0\0\0\0\0\0", 10);
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
    /* the reserved label type 0x40 */
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    put(&p, "\x41", 1);
    put(&p, "\0\1\0\1\0\0\0\0\0\0", 10);
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
}

static void test_name_longer_than_255_is_malformed(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8180, 1, 0, 0, 0);
    for (int i = 0; i < 5; i++) {
        uint8_t label[64];
        label[0] = 63;
        memset(label + 1, 'a', 63);
        put(&p, label, sizeof(label));
    }
    put(&p, "\0\0\1\0\1", 5);
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
}

static void test_opt_record_extends_the_rcode(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8180, 1, 0, 0, 1);
    put(&p, question, QLEN);
    /* OPT: root, type 41, size 1232, extended rcode 1 (BADVERS = 16), version 0 */
    put(&p, "\0\0\x29\x04\xd0\x01\0\0\0\0\0", 11);
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    assert_int_equal(r.rcode, 16);
    assert_string_equal(dns_rcode_name(r.rcode), "BADVERS");
    /* BADVERS may come without the question: still an (error) answer */
    header(&p, 1, 0x8180, 0, 0, 0, 1);
    put(&p, "\0\0\x29\x04\xd0\x01\0\0\0\0\0", 11);
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    assert_int_equal(r.rcode, 16);
}

/* A name whose labels take `bytes` bytes (length bytes included), then a
 * pointer to `to`. */
static void long_name_then_pointer(struct pkt *p, size_t bytes, unsigned to)
{
    while (bytes > 0) {
        uint8_t label[64];
        size_t n = bytes > 64 ? 63 : bytes - 1;
        label[0] = (uint8_t)n;
        memset(label + 1, 'a', n);
        put(p, label, n + 1);
        bytes -= n + 1;
    }
    put16(p, 0xC000 | to);
}

static const uint8_t rr_a_fixed[] = {0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1};

/* Pointers into the question the reply echoes: to its start, to a later
 * label start, after labels of the record's own; and a pointer that lands
 * inside a label, which is no name. */
static void test_pointers_into_the_echoed_question(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8180, 1, 2, 0, 0);
    put(&p, question, QLEN);
    put16(&p, 0xC000 | 16); /* "example.com" */
    put(&p, rr_a_fixed, sizeof(rr_a_fixed));
    put(&p, "\3foo", 4);
    put16(&p, 0xC000 | 24); /* foo + "com" */
    put(&p, rr_a_fixed, sizeof(rr_a_fixed));
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    put16(&p, 0xC000 | 29); /* the root label at the question's end */
    put(&p, rr_a_fixed, sizeof(rr_a_fixed));
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    put16(&p, 0xC000 | 13); /* "ww\7...": 'w' is a reserved label type */
    put(&p, rr_a_fixed, sizeof(rr_a_fixed));
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    put16(&p, 0xC000 | 30); /* the question's type: no name */
    put(&p, rr_a_fixed, sizeof(rr_a_fixed));
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
}

/* The 255-byte limit holds for a name that ends in a pointer to the echoed
 * question: 238 bytes of labels and www.example.com (17) fit, 239 do not. */
static void test_name_through_a_pointer_longer_than_255_is_malformed(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    long_name_then_pointer(&p, 238, 12);
    put(&p, rr_a_fixed, sizeof(rr_a_fixed));
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    long_name_then_pointer(&p, 239, 12);
    put(&p, rr_a_fixed, sizeof(rr_a_fixed));
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
    /* the same through a pointer to a later label start: 250 + "com" (5) */
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    long_name_then_pointer(&p, 250, 24);
    put(&p, rr_a_fixed, sizeof(rr_a_fixed));
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    long_name_then_pointer(&p, 251, 24);
    put(&p, rr_a_fixed, sizeof(rr_a_fixed));
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
}

/* An MX answer with the exchange's address in the additional section,
 * whose owner points into the answer's data (and on into the question). */
static void test_pointer_into_record_data(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8180, 1, 1, 0, 1);
    put(&p, question, QLEN);
    put16(&p, 0xC00C);
    put(&p, "\0\x0f\0\1\0\0\0\x3c\0\x09\0\x0a", 12); /* MX, rdlen 9, preference 10 */
    size_t exchange = p.n;
    put(&p, "\4mail", 5);
    put16(&p, 0xC000 | 16); /* mail.example.com */
    put16(&p, 0xC000 | (unsigned)exchange);
    put(&p, rr_a_fixed, sizeof(rr_a_fixed));
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    /* the same pointer one byte off lands on 'm' */
    p.b[p.n - sizeof(rr_a_fixed) - 1] = (uint8_t)(exchange + 1);
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
}

/* A question echoed in other letters goes the general way; its records
 * still check. */
static void test_records_after_a_question_in_other_letters(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, "\3WWW\7example\3COM\0\0\1\0\1", QLEN);
    a_record(&p);
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    p.n -= 1;
    assert_int_equal(check(&p, &r), DNS_MALFORMED);
}

/* Only an OPT record in the additional section extends the rcode. */
static void test_opt_outside_the_additional_section_is_a_record(void **state)
{
    struct pkt p;
    struct dns_reply r;
    header(&p, 1, 0x8180, 1, 1, 0, 0);
    put(&p, question, QLEN);
    put(&p, "\0\0\x29\x04\xd0\x01\0\0\0\0\0", 11);
    assert_int_equal(check(&p, &r), DNS_ANSWER);
    assert_int_equal(r.rcode, 0);
}

/* A question of every length from 5 bytes (the root name) to 64, echoed:
 * an answer; with any one byte changed (a letter to another letter, a type
 * or class byte): the wrong question. */
static void test_echo_of_every_question_length(void **state)
{
    for (size_t name_len = 1; name_len <= 60; name_len++) {
        uint8_t q[64];
        size_t i = 0;
        while (i + 1 < name_len) { /* labels of up to 9 letters */
            size_t l = name_len - 1 - i - 1 < 9 ? name_len - 1 - i - 1 : 9;
            if (l == 0) l = 1;
            q[i] = (uint8_t)l;
            memset(q + i + 1, 'k', l);
            i += l + 1;
        }
        if (i + 1 != name_len) continue; /* no such split: the next length */
        q[i] = 0;
        memcpy(q + name_len, "\0\1\0\1", 4);
        size_t qlen = name_len + 4;
        struct pkt p;
        struct dns_reply r;
        header(&p, 1, 0x8180, 1, 0, 0, 0);
        put(&p, q, qlen);
        assert_int_equal(dns_check_reply(p.b, p.n, q, qlen, 0, &r), DNS_ANSWER);
        for (size_t at = 0; at < qlen; at++) {
            uint8_t was = p.b[DNS_HEADER_LEN + at];
            if (was == 'k')
                p.b[DNS_HEADER_LEN + at] = 'j';
            else if (at >= name_len)
                p.b[DNS_HEADER_LEN + at] ^= 0x40;
            else
                continue; /* a length byte: another name shape */
            assert_int_equal(dns_check_reply(p.b, p.n, q, qlen, 0, &r), DNS_WRONG_QUESTION);
            p.b[DNS_HEADER_LEN + at] = was;
        }
    }
}

static void test_rcode_names(void **state)
{
    assert_string_equal(dns_rcode_name(0), "NOERROR");
    assert_string_equal(dns_rcode_name(2), "SERVFAIL");
    assert_string_equal(dns_rcode_name(5), "REFUSED");
    assert_string_equal(dns_rcode_name(23), "BADCOOKIE");
    assert_null(dns_rcode_name(12));
    assert_null(dns_rcode_name(4000));
    assert_int_equal(dns_rcode_parse("nxdomain"), 3);
    assert_int_equal(dns_rcode_parse("SERVFAIL"), 2);
    assert_int_equal(dns_rcode_parse("16"), 16);
    assert_int_equal(dns_rcode_parse("4095"), 4095);
    assert_int_equal(dns_rcode_parse("4096"), -1);
    assert_int_equal(dns_rcode_parse("NOPE"), -1);
    assert_int_equal(dns_rcode_parse(""), -1);
}

/* A name never starts in the header: a pointer there is malformed, even one
 * that would read the ID 0x0000 as the root name. */
static void test_pointer_into_the_header_is_malformed(void **state)
{
    struct pkt p;
    struct dns_reply r;
    for (unsigned to = 0; to < 12; to++) {
        header(&p, 0x0000, 0x8180, 1, 1, 0, 0);
        put(&p, question, QLEN);
        uint8_t rr[] = {0xC0, (uint8_t)to, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1};
        put(&p, rr, sizeof(rr));
        assert_int_equal(check(&p, &r), DNS_MALFORMED);
    }
}

/* The same reply again, the ID aside, takes the kept result; anything that
 * differs past the ID, or another question, is checked in full. */
static void test_a_repeated_reply_takes_the_kept_verdict(void **state)
{
    struct pkt p, q;
    struct dns_reply r;
    dns_check_forget();
    header(&p, 0x1111, 0x8183, 1, 1, 0, 0); /* NXDOMAIN, with a record */
    put(&p, question, QLEN);
    a_record(&p);
    uint64_t hits = dns_check_kept_hits();
    assert_int_equal(dns_check_reply(p.b, p.n, question, QLEN, 0, &r), DNS_ANSWER);
    assert_int_equal(dns_check_kept_hits(), hits);
    /* again with another ID: kept, and the ID is the new one */
    p.b[0] = 0x22;
    p.b[1] = 0x33;
    memset(&r, 0xFF, sizeof(r));
    assert_int_equal(dns_check_reply(p.b, p.n, question, QLEN, 0, &r), DNS_ANSWER);
    assert_int_equal(dns_check_kept_hits(), hits + 1);
    assert_int_equal(r.id, 0x2233);
    assert_int_equal(r.rcode, 3);
    assert_false(r.tc);
    assert_true(r.has_question);
    /* one byte shorter: the record no longer fits */
    assert_int_equal(dns_check_reply(p.b, p.n - 1, question, QLEN, 0, &r), DNS_MALFORMED);
    /* the record's name another label start of the question: in full */
    q = p;
    q.b[DNS_HEADER_LEN + QLEN + 1] = DNS_HEADER_LEN + 4; /* example.com */
    assert_int_equal(dns_check_reply(q.b, q.n, question, QLEN, 0, &r), DNS_ANSWER);
    assert_int_equal(dns_check_kept_hits(), hits + 1);
    /* the record's name pointing into the header */
    q.b[DNS_HEADER_LEN + QLEN + 1] = 0x00;
    assert_int_equal(dns_check_reply(q.b, q.n, question, QLEN, 0, &r), DNS_MALFORMED);
    /* the kept reply for another question at the same address: the name in
     * capitals is the same name, another type is the wrong question */
    uint8_t other[sizeof(question)];
    memcpy(other, question, sizeof(question));
    assert_int_equal(dns_check_reply(p.b, p.n, question, QLEN, 0, &r), DNS_ANSWER);
    uint64_t before = dns_check_kept_hits();
    other[QLEN - 3] = 28; /* AAAA */
    assert_int_equal(dns_check_reply(p.b, p.n, other, QLEN, 0, &r), DNS_WRONG_QUESTION);
    memcpy(other, question, sizeof(question));
    other[1] = 'W';
    assert_int_equal(dns_check_reply(p.b, p.n, other, QLEN, 0, &r), DNS_ANSWER);
    assert_int_equal(dns_check_kept_hits(), before);
    /* the last byte counts too: a record of no data, kept, then one whose
     * length (the packet's last byte) says a byte more than there is */
    static const uint8_t empty_rr[] = {0xC0, 0x0C, 0, 1, 0, 1, 0, 0, 0, 60, 0, 0};
    header(&q, 9, 0x8180, 1, 1, 0, 0);
    put(&q, question, QLEN);
    put(&q, empty_rr, sizeof(empty_rr));
    assert_int_equal(dns_check_reply(q.b, q.n, question, QLEN, 0, &r), DNS_ANSWER);
    q.b[q.n - 1] = 1;
    assert_int_equal(dns_check_reply(q.b, q.n, question, QLEN, 0, &r), DNS_MALFORMED);
    /* a verdict other than an answer is never kept */
    header(&q, 7, 0x0100, 1, 0, 0, 0);
    put(&q, question, QLEN);
    before = dns_check_kept_hits();
    assert_int_equal(dns_check_reply(q.b, q.n, question, QLEN, 0, &r), DNS_QR_CLEAR);
    assert_int_equal(dns_check_reply(q.b, q.n, question, QLEN, 0, &r), DNS_QR_CLEAR);
    assert_int_equal(dns_check_kept_hits(), before);
}

/* Questions in turn, each by its index: each keeps its own reply. Two
 * questions sharing a key push each other out, and are still checked right. */
static void test_questions_in_turn_keep_their_own_verdicts(void **state)
{
    static const uint8_t aaaa[] = "\3www\7example\3com\0\0\x1c\0\1";
    struct pkt a, b;
    struct dns_reply r;
    dns_check_forget();
    header(&a, 1, 0x8180, 1, 1, 0, 0);
    put(&a, question, QLEN);
    a_record(&a);
    header(&b, 2, 0x8183, 1, 0, 0, 0);
    put(&b, aaaa, QLEN);
    uint64_t hits = dns_check_kept_hits();
    for (int round = 0; round < 3; round++) {
        assert_int_equal(dns_check_reply(a.b, a.n, question, QLEN, 0, &r), DNS_ANSWER);
        assert_int_equal(r.rcode, 0);
        assert_int_equal(dns_check_reply(b.b, b.n, aaaa, QLEN, 1, &r), DNS_ANSWER);
        assert_int_equal(r.rcode, 3);
    }
    assert_int_equal(dns_check_kept_hits(), hits + 4); /* all but the first of each */
    hits = dns_check_kept_hits();
    for (int round = 0; round < 3; round++) {
        assert_int_equal(dns_check_reply(a.b, a.n, question, QLEN, 5, &r), DNS_ANSWER);
        assert_int_equal(r.rcode, 0);
        assert_int_equal(dns_check_reply(b.b, b.n, aaaa, QLEN, 5, &r), DNS_ANSWER);
        assert_int_equal(r.rcode, 3);
        /* the kept reply to the AAAA question is no answer to the A question */
        assert_int_equal(dns_check_reply(b.b, b.n, question, QLEN, 5, &r), DNS_WRONG_QUESTION);
    }
    assert_int_equal(dns_check_kept_hits(), hits);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answer_with_record),
        cmocka_unit_test(test_name_compares_case_insensitively),
        cmocka_unit_test(test_nxdomain_is_an_answer),
        cmocka_unit_test(test_shorter_than_header_is_malformed),
        cmocka_unit_test(test_qr_clear_is_not_a_response),
        cmocka_unit_test(test_other_name_type_or_class_is_wrong_question),
        cmocka_unit_test(test_error_answer_may_omit_the_question),
        cmocka_unit_test(test_truncated_answer_skips_the_records),
        cmocka_unit_test(test_records_that_do_not_fit_are_malformed),
        cmocka_unit_test(test_bad_compression_is_malformed),
        cmocka_unit_test(test_name_longer_than_255_is_malformed),
        cmocka_unit_test(test_opt_record_extends_the_rcode),
        cmocka_unit_test(test_pointers_into_the_echoed_question),
        cmocka_unit_test(test_name_through_a_pointer_longer_than_255_is_malformed),
        cmocka_unit_test(test_pointer_into_record_data),
        cmocka_unit_test(test_pointer_into_the_header_is_malformed),
        cmocka_unit_test(test_a_repeated_reply_takes_the_kept_verdict),
        cmocka_unit_test(test_questions_in_turn_keep_their_own_verdicts),
        cmocka_unit_test(test_records_after_a_question_in_other_letters),
        cmocka_unit_test(test_opt_outside_the_additional_section_is_a_record),
        cmocka_unit_test(test_echo_of_every_question_length),
        cmocka_unit_test(test_rcode_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
