/* DNS IDs of a connection. See ids.h.
 *
 * An ID is issued only when no query in flight holds its place (its low bits)
 * and it is not waiting for a late answer. A query in flight is therefore the
 * only holder of its place, and an answer finds it with one look-up; an ID
 * comes back into use only once the answer its earlier query could still get
 * has arrived, or the connection it was sent on is closed. */
#include "dnsload/ids.h"

#include <stdlib.h>
#include <string.h>

#define LATE_WORDS (65536 / 64)

int dns_ids_init(struct dns_ids *ids, unsigned slots, uint16_t first)
{
    memset(ids, 0, sizeof(*ids));
    unsigned places = 2;
    while (places < 2 * slots)
        places *= 2;
    if (places > 65536) return -1;
    ids->mask = (uint16_t)(places - 1);
    ids->next = first;
    ids->owner = calloc(places, sizeof(*ids->owner));
    ids->slot_id = calloc(slots, sizeof(*ids->slot_id));
    if (!ids->owner || !ids->slot_id) {
        dns_ids_free(ids);
        return -1;
    }
    return 0;
}

void dns_ids_free(struct dns_ids *ids)
{
    free(ids->owner);
    free(ids->slot_id);
    free(ids->late);
    memset(ids, 0, sizeof(*ids));
}

static int is_late(const struct dns_ids *ids, uint16_t id)
{
    return ids->late && (ids->late[id >> 6] >> (id & 63) & 1);
}

/* dns_ids_issue's search, from ids->next (the slot's previous place is
 * released already). */
int dns_ids_issue_search(struct dns_ids *ids, unsigned slot)
{
    uint16_t own = (uint16_t)(slot + 1);
    /* Fewer than half the places are held and at most a quarter of the IDs
     * (plus the slots) wait for late answers: a free ID comes within 65536
     * tries, and almost always at the first. */
    for (unsigned tries = 0; tries < 65536; tries++) {
        uint16_t id = ids->next++;
        uint16_t *place = &ids->owner[id & ids->mask];
        if (*place || is_late(ids, id)) continue;
        *place = own;
        ids->slot_id[slot] = id;
        return id;
    }
    return -1;
}

/* dns_ids_match for an ID no query in flight holds. */
enum dns_id_match dns_ids_match_late(struct dns_ids *ids, uint16_t id)
{
    if (is_late(ids, id)) {
        ids->late[id >> 6] &= ~((uint64_t)1 << (id & 63));
        ids->n_late--;
        return DNS_ID_LATE;
    }
    return DNS_ID_UNKNOWN;
}

int dns_ids_timed_out(struct dns_ids *ids, unsigned slot)
{
    uint16_t id = ids->slot_id[slot];
    uint16_t *place = &ids->owner[id & ids->mask];
    if (*place != slot + 1) return 0; /* answered or released already */
    *place = 0;
    if (!ids->late && !(ids->late = calloc(LATE_WORDS, sizeof(*ids->late)))) return -1;
    ids->late[id >> 6] |= (uint64_t)1 << (id & 63);
    ids->n_late++;
    return ids->n_late >= DNS_IDS_LATE_MAX ? -1 : 0;
}

void dns_ids_reset(struct dns_ids *ids)
{
    memset(ids->owner, 0, ((size_t)ids->mask + 1) * sizeof(*ids->owner));
    if (ids->late && ids->n_late) memset(ids->late, 0, LATE_WORDS * sizeof(*ids->late));
    ids->n_late = 0;
}
