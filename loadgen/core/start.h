/* When levels start, and which clients a shard runs. With --start-at, level
 * k of every shard starts at the same wall-clock moment,
 *     start-at + k * (duration + timeout + LG_LEVEL_GAP_NS),
 * so that separate processes on separate hosts measure the same seconds; a
 * shard I of N runs the clients whose global id is I + N*j. */
#ifndef LOADGEN_START_H
#define LOADGEN_START_H

#include <stdbool.h>
#include <stdint.h>

struct lg_config;
struct lg_run_ctx;

/* Between the end of one level's drain window and the next level's start:
 * room to collect the level and set up the next cohort. */
#define LG_LEVEL_GAP_NS 1000000000ull

/* The number of clients of a level of `clients` that shard `index` of
 * `count` runs: those with a global id below `clients`. */
unsigned lg_shard_clients(unsigned clients, unsigned index, unsigned count);
/* The part of an open loop's rate `rate` (requests per second in total) that
 * a shard running `shard_clients` of a level's `clients` is asked for:
 * request n goes to client n mod clients, so a shard gets its clients' share. */
double lg_shard_rate(double rate, unsigned clients, unsigned shard_clients);
/* -n's requests of a level of `clients` that the shard's clients j from
 * `first` to first + n - 1 make between them: request k goes to client k
 * mod clients, as the open loop's schedule deals them, so the shares of all
 * shards and all their event loops add up to `requests`. */
uint64_t lg_shard_requests(uint64_t requests, unsigned clients, unsigned index, unsigned count,
                           unsigned first, unsigned n);
/* The global id of the shard's j-th client. */
static inline unsigned lg_shard_client_id(unsigned j, unsigned index, unsigned count)
{
    return index + count * j;
}

/* Wall-clock nanoseconds since the epoch (CLOCK_REALTIME). */
uint64_t lg_wall_ns(void);
/* The common start of level k, in wall-clock nanoseconds; 0 without --start-at. */
uint64_t lg_level_start_at(const struct lg_config *cfg, unsigned k);

enum lg_wait_result { LG_WAIT_STARTED, LG_WAIT_LATE, LG_WAIT_INTERRUPTED };
/* Sleeps until `lead_ns` before wall-clock `at` (in short steps, so a signal
 * is not kept waiting), then reads the clocks: *mono_ns and *wall_ns are the
 * moment `at` (or now, when it has passed), the level's start. LG_WAIT_LATE
 * (without waiting) when `at` passed more than --max-late ago. */
enum lg_wait_result lg_wait_until(struct lg_run_ctx *run, const struct lg_config *cfg, uint64_t at,
                                  uint64_t lead_ns, uint64_t *mono_ns, uint64_t *wall_ns);
/* This clock minus the reference's (--clock-ref), in ns, as measured; 0
 * without a reference. lg_wait_until waits for the reference's moment and
 * reports the reference's time. */
void lg_set_clock_offset(struct lg_run_ctx *run, int64_t offset_ns);
/* The wall clock now, as the reference would read it. */
uint64_t lg_ref_wall_ns(struct lg_run_ctx *run);

/* The host clock as the kernel reports it (adjtimex); for tests,
 * LOADGEN_TEST_CLOCK=unsynchronized or =synchronized says otherwise. */
struct lg_clock_state {
    bool synchronized;
    long est_error_us, max_error_us;
};
void lg_clock_state(struct lg_clock_state *s);

/* Formats wall-clock ns as RFC 3339 UTC with nanoseconds. */
void lg_format_wall(uint64_t wall_ns, char *buf, unsigned len);
/* Parses --start-at: RFC 3339 with a zone ("2026-12-01T10:00:00Z",
 * "...:00.25+01:00") or @EPOCH[.FRACTION]; -1 when it is neither. */
int lg_parse_start_at(const char *s, uint64_t *wall_ns);

#endif
