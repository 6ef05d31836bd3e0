/* test_dns_ids.c — the DNS IDs of a connection (dnsload/ids.c): an answer
 * finds its query; a late answer is late once and then unknown; a timed-out
 * query's ID is never issued again while its answer may come, even after the
 * 16-bit IDs have wrapped many times at --outstanding 1024; no two queries in
 * flight share a place; too many timed-out IDs ask for a new connection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dnsload/ids.h"

static int issue(struct dns_ids *ids, unsigned slot)
{
    int id = dns_ids_issue(ids, slot);
    assert_true(id >= 0 && id <= 0xffff);
    return id;
}

static void answer_finds_its_slot_once(void **state)
{
    (void)state;
    struct dns_ids ids;
    assert_int_equal(dns_ids_init(&ids, 4, 100), 0);
    int a = issue(&ids, 0), b = issue(&ids, 3);
    assert_int_equal(a, 100);
    assert_int_equal(b, 101);
    unsigned slot = 99;
    assert_int_equal(dns_ids_match(&ids, (uint16_t)b, &slot), DNS_ID_OUTSTANDING);
    assert_int_equal(slot, 3);
    /* a second copy of the same answer is nobody's */
    assert_int_equal(dns_ids_match(&ids, (uint16_t)b, &slot), DNS_ID_UNKNOWN);
    assert_int_equal(dns_ids_match(&ids, (uint16_t)a, &slot), DNS_ID_OUTSTANDING);
    assert_int_equal(slot, 0);
    /* an ID never sent */
    assert_int_equal(dns_ids_match(&ids, 7, &slot), DNS_ID_UNKNOWN);
    dns_ids_free(&ids);
}

static void late_answer_is_late_once(void **state)
{
    (void)state;
    struct dns_ids ids;
    assert_int_equal(dns_ids_init(&ids, 2, 0), 0);
    int a = issue(&ids, 0);
    assert_int_equal(dns_ids_timed_out(&ids, 0), 0);
    int b = issue(&ids, 0); /* the slot goes on with a new query */
    assert_int_not_equal(a, b);
    unsigned slot = ~0u; /* set by each match; GCC (with LTO) cannot see that through the asserts */
    assert_int_equal(dns_ids_match(&ids, (uint16_t)a, &slot), DNS_ID_LATE);
    assert_int_equal(dns_ids_match(&ids, (uint16_t)a, &slot), DNS_ID_UNKNOWN);
    assert_int_equal(dns_ids_match(&ids, (uint16_t)b, &slot), DNS_ID_OUTSTANDING);
    assert_int_equal(slot, 0);
    assert_int_equal(ids.n_late, 0);
    dns_ids_free(&ids);
}

/* --outstanding 1024, every slot cycling through answered queries, one query
 * timed out at the start: over 200,000 queries (three wraps of the 16-bit
 * IDs) its ID is never issued again, so its late answer, whenever it comes,
 * is late and never matched to a newer query. The old scheme (slot bits and
 * six generation bits) reissued it after 64 queries on its slot. */
static void timed_out_id_is_not_reissued_across_wraps(void **state)
{
    (void)state;
    enum { SLOTS = 1024 };
    struct dns_ids ids;
    assert_int_equal(dns_ids_init(&ids, SLOTS, 0xfff0), 0);
    int held[SLOTS];
    for (unsigned s = 0; s < SLOTS; s++)
        held[s] = issue(&ids, s);
    int stale = held[5];
    assert_int_equal(dns_ids_timed_out(&ids, 5), 0);
    held[5] = issue(&ids, 5);
    unsigned slot = ~0u; /* set by each match; GCC (with LTO) cannot see that through the asserts */
    for (unsigned n = 0; n < 200000; n++) {
        unsigned s = (n * 7919u) % SLOTS;
        assert_int_equal(dns_ids_match(&ids, (uint16_t)held[s], &slot), DNS_ID_OUTSTANDING);
        assert_int_equal(slot, s);
        held[s] = issue(&ids, s);
        assert_int_not_equal(held[s], stale);
    }
    assert_int_equal(dns_ids_match(&ids, (uint16_t)stale, &slot), DNS_ID_LATE);
    dns_ids_free(&ids);
}

/* IDs whose low bits equal those of a query in flight are skipped: each
 * place has one holder, so a look-up never finds the wrong query. */
static void queries_in_flight_never_share_a_place(void **state)
{
    (void)state;
    enum { SLOTS = 3 };
    struct dns_ids ids;
    assert_int_equal(dns_ids_init(&ids, SLOTS, 0), 0);
    assert_int_equal(ids.mask, 7); /* places: a power of two, at least 2 x slots */
    int slow = issue(&ids, 0);     /* stays in flight throughout */
    unsigned slot = ~0u; /* set by each match; GCC (with LTO) cannot see that through the asserts */
    for (unsigned n = 0; n < 1000; n++) {
        int id = issue(&ids, 1 + n % 2);
        assert_int_not_equal(id & ids.mask, slow & ids.mask);
        assert_int_equal(dns_ids_match(&ids, (uint16_t)id, &slot), DNS_ID_OUTSTANDING);
        assert_int_equal(slot, 1 + n % 2);
    }
    assert_int_equal(dns_ids_match(&ids, (uint16_t)slow, &slot), DNS_ID_OUTSTANDING);
    assert_int_equal(slot, 0);
    dns_ids_free(&ids);
}

/* A slot's new query releases the place of its previous one even when that
 * query ended without a word to the IDs (an ICMP error, a failed send): its
 * answer is then unknown, not matched to the new query. */
static void new_query_replaces_an_unanswered_one(void **state)
{
    (void)state;
    struct dns_ids ids;
    assert_int_equal(dns_ids_init(&ids, 1, 10), 0);
    int first = issue(&ids, 0);
    int second = issue(&ids, 0);
    unsigned slot = ~0u; /* set by each match; GCC (with LTO) cannot see that through the asserts */
    assert_int_equal(dns_ids_match(&ids, (uint16_t)first, &slot), DNS_ID_UNKNOWN);
    assert_int_equal(dns_ids_match(&ids, (uint16_t)second, &slot), DNS_ID_OUTSTANDING);
    dns_ids_free(&ids);
}

static void answered_query_does_not_turn_late(void **state)
{
    (void)state;
    struct dns_ids ids;
    assert_int_equal(dns_ids_init(&ids, 1, 0), 0);
    int id = issue(&ids, 0);
    unsigned slot = ~0u; /* set by each match; GCC (with LTO) cannot see that through the asserts */
    assert_int_equal(dns_ids_match(&ids, (uint16_t)id, &slot), DNS_ID_OUTSTANDING);
    assert_int_equal(dns_ids_timed_out(&ids, 0), 0); /* too late to time out */
    assert_int_equal(ids.n_late, 0);
    assert_int_equal(dns_ids_match(&ids, (uint16_t)id, &slot), DNS_ID_UNKNOWN);
    dns_ids_free(&ids);
}

/* A closed connection's late answers cannot arrive: its IDs are free again. */
static void reset_forgets_late_ids(void **state)
{
    (void)state;
    struct dns_ids ids;
    assert_int_equal(dns_ids_init(&ids, 2, 0), 0);
    int a = issue(&ids, 0);
    issue(&ids, 1);
    assert_int_equal(dns_ids_timed_out(&ids, 0), 0);
    dns_ids_reset(&ids);
    unsigned slot = ~0u; /* set by each match; GCC (with LTO) cannot see that through the asserts */
    assert_int_equal(ids.n_late, 0);
    assert_int_equal(dns_ids_match(&ids, (uint16_t)a, &slot), DNS_ID_UNKNOWN);
    assert_int_equal(dns_ids_match(&ids, 1, &slot), DNS_ID_UNKNOWN);
    dns_ids_free(&ids);
}

/* Every query times out: at DNS_IDS_LATE_MAX waiting IDs the connection
 * asks to be renewed; until then IDs keep coming, none of them waiting. */
static void too_many_late_ids_ask_for_a_new_connection(void **state)
{
    (void)state;
    enum { SLOTS = 1024 };
    struct dns_ids ids;
    assert_int_equal(dns_ids_init(&ids, SLOTS, 0), 0);
    for (unsigned s = 0; s < SLOTS; s++)
        issue(&ids, s);
    unsigned timeouts = 0;
    int rc = 0;
    while (rc == 0) {
        unsigned s = timeouts % SLOTS;
        rc = dns_ids_timed_out(&ids, s);
        timeouts++;
        if (rc == 0) {
            int id = issue(&ids, s);
            assert_false(ids.late[id >> 6] >> (id & 63) & 1);
        }
    }
    assert_int_equal(timeouts, DNS_IDS_LATE_MAX);
    /* the queries still in flight may time out too while the connection
     * drains; an ID is still found for each if it were asked */
    for (unsigned s = 0; s < SLOTS; s++)
        dns_ids_timed_out(&ids, s);
    for (unsigned s = 0; s < SLOTS; s++)
        issue(&ids, s);
    dns_ids_free(&ids);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(answer_finds_its_slot_once),
        cmocka_unit_test(late_answer_is_late_once),
        cmocka_unit_test(timed_out_id_is_not_reissued_across_wraps),
        cmocka_unit_test(queries_in_flight_never_share_a_place),
        cmocka_unit_test(new_query_replaces_an_unanswered_one),
        cmocka_unit_test(answered_query_does_not_turn_late),
        cmocka_unit_test(reset_forgets_late_ids),
        cmocka_unit_test(too_many_late_ids_ask_for_a_new_connection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
