/* The DNS IDs of one client's connection: sequential 16-bit IDs, found again
 * in O(1) through a table indexed by their low bits, and the ID of every query
 * that timed out kept out of use until its late answer arrives, so that a late
 * answer can never be taken for a newer query's, whatever --outstanding is. */
#ifndef DNSLOAD_IDS_H
#define DNSLOAD_IDS_H

#include <stdint.h>

/* Timed-out IDs a connection keeps waiting for before it asks to be renewed
 * (a new socket cannot hear the old one's late answers). A quarter of the ID
 * space: with at most half the IDs blocked by queries in flight, a free ID is
 * always within 65536 tries. */
#define DNS_IDS_LATE_MAX 16384u

struct dns_ids {
    uint16_t next;     /* the next ID to try */
    uint16_t mask;     /* places - 1: places is a power of two, at least 2 x slots */
    uint16_t *owner;   /* per place (ID & mask): slot + 1 of the query holding it, or 0 */
    uint16_t *slot_id; /* per slot: the ID of its latest query */
    uint64_t *late;    /* 65536 bits, set while a timed-out query's answer may come;
                        * allocated at the connection's first timeout */
    unsigned n_late;
};

/* Sizes the tables for `slots` queries in flight (1..32768); IDs start at
 * `first`. 0, or -1 when out of memory. */
int dns_ids_init(struct dns_ids *ids, unsigned slots, uint16_t first);
void dns_ids_free(struct dns_ids *ids);

/* A fresh ID for `slot` (whose previous query is over): the next one that no
 * query in flight holds and no timed-out query may still be answered with.
 * The ID, or -1 if none is free (cannot happen while the timed-out IDs stay
 * under DNS_IDS_LATE_MAX plus the slots). */
static inline int dns_ids_issue(struct dns_ids *ids, unsigned slot);

enum dns_id_match {
    DNS_ID_OUTSTANDING, /* the ID of a query in flight: *slot is its slot, the ID is released */
    DNS_ID_LATE,        /* the ID of a query that timed out: forgotten, a second copy is unknown */
    DNS_ID_UNKNOWN,     /* nothing sent on this connection waits for it */
};
/* What the ID of an incoming message refers to. */
static inline enum dns_id_match dns_ids_match(struct dns_ids *ids, uint16_t id, unsigned *slot);

/* The query of `slot` timed out: its ID waits for a late answer. 0, or -1
 * when DNS_IDS_LATE_MAX IDs wait (or the set could not be allocated): then
 * the connection must carry no new query and be renewed. */
int dns_ids_timed_out(struct dns_ids *ids, unsigned slot);

/* The connection closed: nothing sent on it can be answered any more. */
void dns_ids_reset(struct dns_ids *ids);

/* The two calls of every query are inline: the next ID is almost always free
 * and an answer almost always outstanding; the rest is in ids.c. */
int dns_ids_issue_search(struct dns_ids *ids, unsigned slot);
enum dns_id_match dns_ids_match_late(struct dns_ids *ids, uint16_t id);

static inline int dns_ids_issue(struct dns_ids *ids, unsigned slot)
{
    uint16_t own = (uint16_t)(slot + 1);
    uint16_t *prev = &ids->owner[ids->slot_id[slot] & ids->mask];
    if (*prev == own) *prev = 0; /* the slot's previous query is over */
    uint16_t id = ids->next;
    uint16_t *place = &ids->owner[id & ids->mask];
    if (*place || (ids->late && (ids->late[id >> 6] >> (id & 63) & 1)))
        return dns_ids_issue_search(ids, slot);
    ids->next = (uint16_t)(id + 1);
    *place = own;
    ids->slot_id[slot] = id;
    return id;
}

static inline enum dns_id_match dns_ids_match(struct dns_ids *ids, uint16_t id, unsigned *slot)
{
    uint16_t *place = &ids->owner[id & ids->mask];
    unsigned own = *place;
    if (own && ids->slot_id[own - 1] == id) {
        *slot = own - 1;
        *place = 0;
        return DNS_ID_OUTSTANDING;
    }
    return dns_ids_match_late(ids, id);
}

#endif
