/* runmeta.h — what loadstats needs from a generator's --meta descriptor: run
 * and shard identity (with the host, start and command line that tell one
 * run from another), what decides the numbers (tool, target, the options that
 * shape the load), clock quality, and per level (in the order run) its client
 * counts, requested start and start lag, whether it was interrupted, whether
 * its generator limited it (self_watch), and the true sample count of each
 * metric that --max-samples cut. Fields it does not know are ignored; a known
 * field of the wrong type is an error. */
#ifndef LOADGEN_STATS_RUNMETA_H
#define LOADGEN_STATS_RUNMETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stats_runmeta_seen {
    char *metric; /* e.g. "latency_warm_ms" */
    uint64_t seen;
};

struct stats_runmeta_level {
    unsigned long clients; /* the level's total clients: its document keys are c<clients>. */
    bool has_shard_clients;
    unsigned long shard_clients;
    bool has_start_lag;
    double start_lag_s;
    char *requested_start;  /* the common start (--start-at), NULL when absent or null */
    bool interrupted;       /* cut short by a signal: its counts are partial */
    bool generator_limited; /* self_watch.limited: the generator was the bottleneck */
    bool has_self_watch;    /* the descriptor had a self_watch object */
    char **sampled;         /* metrics cut by --max-samples */
    size_t n_sampled;
    struct stats_runmeta_seen *seen;
    size_t n_seen;
};

/* The options that shape the load (the descriptor's "options"): a field is
 * compared only when present. */
enum stats_runmeta_option {
    STATS_OPT_DURATION,       /* duration_s */
    STATS_OPT_TIMEOUT,        /* timeout_s */
    STATS_OPT_RATE,           /* rate */
    STATS_OPT_SLOTS,          /* slots_per_client */
    STATS_OPT_CONN_REQUESTS,  /* conn_requests */
    STATS_OPT_LEVEL_REQUESTS, /* requests_per_level (-n; null without it) */
    STATS_OPT__COUNT,
};

/* The descriptor's name of an option: "duration_s". */
const char *stats_runmeta_option_name(enum stats_runmeta_option option);

struct stats_runmeta {
    char *tool, *host, *run_id; /* NULL when absent or null */
    char *target;               /* the URL or server, NULL when absent */
    char *started_at;           /* the run's wall-clock start, NULL when absent or null */
    char **argv;                /* its command line, NULL when absent or null */
    size_t argc;
    bool has_option[STATS_OPT__COUNT];
    double option[STATS_OPT__COUNT];
    bool has_shard;
    unsigned long shard_index, shard_count;
    bool has_clock, clock_synchronized, has_est_error;
    double est_error_us;
    bool has_clock_offset;              /* measured against --clock-ref */
    double clock_offset_s;              /* the shard's clock minus the reference's */
    struct stats_runmeta_level *levels; /* in the order they ran */
    size_t n_levels;
};

/* Parses a descriptor from memory. Returns 0, or -1 with a one-line reason,
 * or -2 when memory ran out. */
int stats_runmeta_parse(const char *text, size_t len, struct stats_runmeta *out, char *error,
                        size_t error_size);

/* Reads and parses the file at `path` (at most 16 MiB). Returns 0; -1 when the
 * file cannot be read (errno kept, reason in `error`; ENOMEM when memory ran
 * out, reading or parsing); -2 when it is invalid. */
int stats_runmeta_read(const char *path, struct stats_runmeta *out, char *error, size_t error_size);

void stats_runmeta_free(struct stats_runmeta *meta);

const struct stats_runmeta_level *stats_runmeta_level(const struct stats_runmeta *meta,
                                                      unsigned long clients);

enum stats_seen {
    STATS_SEEN_WHOLE,   /* not cut: the document holds every sample */
    STATS_SEEN_KNOWN,   /* cut, and *seen is the true count */
    STATS_SEEN_UNKNOWN, /* listed as sampled but without a true count (an older generator) */
};

/* How many samples `metric` of `level` stood for before --max-samples. */
enum stats_seen stats_runmeta_seen(const struct stats_runmeta_level *level, const char *metric,
                                   uint64_t *seen);

/* The descriptor of a document: A.json -> A.meta.json, anything else -> NAME.meta.json.
 * Returns a malloc'd path or NULL. */
char *stats_runmeta_path_for(const char *document);

#endif
