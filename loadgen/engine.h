/* The engine's public face: what a tool configures, and the table of functions
 * a protocol driver plugs in. The engine knows connections, requests and the
 * slots a client keeps requests in, never what the bytes mean: it owns event
 * loops, threads, levels, sockets, timers and samples; a driver only turns
 * bytes into requests and responses, and never sees levels or threads. */
#ifndef LOADGEN_ENGINE_H
#define LOADGEN_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct lg_client;
struct lg_tls_config;
struct lg_quic_config;
struct lg_level_result;
struct lg_stage;

#define LG_MAX_PROTOCOLS 4

/* Error classes every driver shares; a driver's own classes follow these. */
enum lg_error {
    LG_OK = 0,
    LG_ERR_CONNECT_REFUSED,
    LG_ERR_CONNECT_TIMEOUT,
    LG_ERR_CONNECT, /* any other connect failure (unreachable, no ports) */
    LG_ERR_PROXY_REFUSED,
    LG_ERR_PROXY_TIMEOUT, /* the proxy did not open the tunnel within --timeout */
    LG_ERR_TLS_HANDSHAKE,
    LG_ERR_TLS_VERIFY,
    LG_ERR_RESET,
    LG_ERR_EOF,
    LG_ERR_TIMEOUT,
    LG_ERR_SEND,
    LG_ERR_SOCKET, /* socket() itself failed: out of descriptors or memory */
    LG_ERR__BASE_COUNT,
};

/* What a driver gives the engine. Callbacks return 0 to go on or -1 after
 * calling lg_conn_fail() to close the connection with an error class. */
struct lg_driver {
    const char *name;
    size_t client_state_size;       /* per-client driver state, zeroed at level start */
    const char *const *error_names; /* driver error classes, numbered from LG_ERR__BASE_COUNT */
    /* What each of those classes means, for the summary when no reason was
     * recorded (one sentence each, same order as error_names) */
    const char *const *error_descriptions;
    /* Optional: what the user can do about each class, said after its
     * reason ("--expect-status to accept it"), NULL for none */
    const char *const *error_hints;
    unsigned n_errors;
    const char *const *counter_names; /* extra exact counts of the driver's own */
    unsigned n_counters;
    /* Request groups (a tool's targets): a request the driver puts in group
     * g (lg_req_group, 1..n_groups) also gives its latency sample to
     * <group_names[g-1]>.latency_cold_ms or .latency_warm_ms. */
    const char *const *group_names;
    unsigned n_groups;
    bool datagram; /* one connected UDP socket per client (the UDP transport) */
    /* The application protocols a connection may speak ("h1", "h2"), at most
     * LG_MAX_PROTOCOLS: the driver says which one each connection speaks
     * (lg_conn_protocol), and the summary and --meta count connections per
     * protocol, so that a negotiation (ALPN, a proxy in between) shows. */
    const char *const *protocol_names;
    unsigned n_protocols;

    /* The connection is usable (after connect, tunnel and TLS). */
    int (*on_ready)(struct lg_client *c);
    /* Start request `slot` on the ready connection. */
    int (*submit)(struct lg_client *c, unsigned slot);
    /* Bytes arrived (len > 0), or the peer closed the stream (len == 0). For a
     * datagram driver, one call per datagram. */
    int (*on_read)(struct lg_client *c, const uint8_t *data, size_t len);
    /* Queued output was written out; a driver with more to send sends it now. */
    int (*on_writable)(struct lg_client *c);
    /* Optional: the engine has started what it could for now (the end of an
     * event); a driver that gathers output (the frames of several requests
     * multiplexed on one connection) writes it, in one write where it fits. */
    int (*flush)(struct lg_client *c);
    /* Request `slot` passed its timeout. Return 0 if the connection stays
     * usable (a datagram protocol, or a multiplexed one that can cancel the
     * one request), -1 to close it. */
    int (*on_timeout)(struct lg_client *c, unsigned slot);
    /* The connection is gone (closed by either side): forget its state. */
    void (*on_close)(struct lg_client *c);
    /* An ICMP error on a UDP socket, about an earlier datagram: `slot` is
     * the oldest request whose datagram left, or -1 when none is in flight
     * (the error is about one that already ended). Returns the class to end
     * that request with, or 0 to leave it. */
    int (*on_socket_error)(struct lg_client *c, int err, int slot);
    /* Level end: free anything the client state owns. Optional. */
    void (*client_free)(struct lg_client *c);
    /* Optional, for requests on several origins (httpload --targets): the
     * target the client's next request goes to (the run's when NULL). Asked
     * before each request starts, so it must not move the driver's walk:
     * when it differs from the connection's, the client closes that one as
     * soon as nothing is in flight on it and opens one there (counted in
     * origin_switches, not reconnects): a client never has two open. */
    const struct lg_target *(*next_target)(struct lg_client *c);
};

/* Where and how clients connect. */
struct lg_target {
    struct sockaddr_storage addr; /* the server, or the proxy when tunnelling */
    socklen_t addrlen;
    /* A tunnel through the proxy at addr: the setup stage that opens it
     * (proto/tunnel.h), after connect and before TLS, and the request bytes
     * it sends first; NULL for none. */
    const struct lg_stage *tunnel;
    const char *tunnel_request;
    size_t tunnel_request_len;
    struct lg_tls_config *tls; /* NULL for cleartext */
    /* QUIC (its own TLS, a UDP socket per client, streams for the driver's
     * application protocol), or NULL */
    const struct lg_quic_config *quic;
    /* A datagram driver's sockets move their bytes through this transport
     * instead of lg_transport_udp (dnsload --io-uring), or NULL */
    const struct lg_transport *datagram_transport;
};

/* --watch NAME=PID or NAME=pidfile:PATH: a process tree sampled each second. */
struct lg_watch_spec {
    char *name;          /* the NAME in c<N>.watch.<NAME>.<metric>; owns the option's copy */
    const char *pidfile; /* PATH, re-read at each level start, or NULL */
    int pid;             /* root of the tree, as resolved when the options were read */
};

struct lg_config {
    const char *tool; /* program name for messages */
    unsigned *levels; /* client count per level */
    size_t n_levels;
    uint64_t duration_ns; /* per level; LG_NO_DEADLINE_NS: none (-n alone, closed loop) */
    bool duration_given;  /* --duration was given (with -n, it bounds the level) */
    /* -n: a closed loop's level ends once this many requests have ended; an
     * open loop's schedule makes this many due (0: --duration alone) */
    uint64_t level_requests;
    uint64_t timeout_ns;     /* per request, and the drain window after the deadline */
    uint64_t retry_delay_ns; /* closed loop: pause after a connection on which nothing succeeded */
    /* --conn-requests: a connection carries at most this many requests, then
     * closes once idle and the next request opens a new one (0: no limit) */
    uint64_t conn_requests;
    unsigned threads;
    double rate;           /* requests per second across all clients; 0 = closed loop */
    unsigned slots;        /* requests in flight per client (streams, outstanding) */
    size_t max_samples;    /* per metric per level */
    double max_error_rate; /* errors / attempts allowed before exit status 1 */
    /* --fail-fast: a level in whose first second nothing succeeded and
     * something failed ends the run (exit status 7) */
    bool fail_fast;
    bool quiet, summary;     /* stderr summary: suppressed / forced */
    bool progress;           /* one-line progress on stderr (default: when a terminal) */
    const char *meta_path;   /* --meta FILE */
    const char *output_path; /* -o FILE: the document there instead of stdout */
    size_t max_doc_bytes;    /* --max-doc-bytes: 0, or the most the document may take */
    const char *log_path;    /* --log FILE: one NDJSON record per request */
    uint64_t seed;
    /* the option that sets slots, named in messages ("--streams") */
    const char *slots_option;
    const char *target_desc; /* for messages and --meta */
    int argc;                /* the command line, for --meta */
    char **argv;
    /* scale-out: this process is shard shard_index of shard_count (--shard);
     * levels start at common wall-clock moments from start_at_ns (--start-at,
     * 0: at once), and one reached later than max_late_ns is not run */
    unsigned shard_index, shard_count;
    uint64_t start_at_ns, max_late_ns;
    const char *run_id; /* --run-id, for --meta */
    /* --clock-ref HOST[:PORT]: an NTP server this host's clock is measured
     * against before the run; starts are then the reference's moments */
    const char *clock_ref;
    struct sockaddr_storage clock_ref_addr;
    socklen_t clock_ref_addrlen;
    /* --watch, in the order given */
    struct lg_watch_spec *watches;
    size_t n_watches;
    /* Is the machine fit (preflight.h)? --preflight checks and exits;
     * --require-fit refuses to run on an unfit machine; a timer floor (median
     * wake-up lateness) above max_timer_floor_ns is unfit. */
    bool preflight, require_fit;
    bool verbose; /* --verbose: each preflight line's details beneath it */
    uint64_t max_timer_floor_ns;
    /* What the tool tells the checks about its protocol: the memory a client
     * costs, as bench/memory measured it (and which figure that is), the
     * largest answer a datagram driver may receive per request, and the
     * datagram --preflight sends as its one probe (NULL: none). */
    double client_memory_bytes;
    const char *client_memory_source;
    size_t answer_bytes;
    const void *probe_datagram;
    size_t probe_datagram_len;
    /* --source: the local addresses new connections and UDP sockets bind,
     * in turn (n_sources 0: the kernel's choice); sources_text is the
     * option as given, for messages and --meta. Owned by the configuration
     * (lg_config_free). */
    struct lg_source *sources;
    size_t n_sources;
    const char *sources_text;
    /* --ramp: a level's clients begin spread evenly over this time (0: all
     * at its start) */
    uint64_t ramp_ns;
};

/* One --source address: a port of 0, bound before connect. */
struct lg_source {
    struct sockaddr_storage addr;
    socklen_t addrlen;
};

/* The duration of a level that only -n ends: about 31 years, so that its
 * deadline is never reached and start + duration cannot overflow. */
#define LG_NO_DEADLINE_NS UINT64_C(1000000000000000000)

/* Exit statuses. */
enum {
    LG_EXIT_OK = 0,
    LG_EXIT_ERRORS = 1,
    LG_EXIT_USAGE = 2,
    LG_EXIT_INVALID = 3,
    LG_EXIT_FAILED = 4,    /* the run could not be carried out (e.g. out of memory) */
    LG_EXIT_LATE = 5,      /* a level's common start (--start-at) passed by more than --max-late */
    LG_EXIT_UNFIT = 6,     /* the machine is unfit for the options (--preflight, --require-fit) */
    LG_EXIT_FAIL_FAST = 7, /* --fail-fast: nothing succeeded in a level's first second */
    LG_EXIT_INTERRUPTED = 130, /* SIGINT or SIGTERM */
};

/* What a tool adds to --meta: an object `name` of strings, numbers and
 * booleans (written with the same escaping as the rest of the file). */
enum lg_meta_type { LG_META_STR, LG_META_NUM, LG_META_BOOL };
struct lg_meta_field {
    const char *key;
    enum lg_meta_type type;
    const char *str;
    double num;
    bool flag;
};
struct lg_meta_section {
    const char *name;
    const struct lg_meta_field *fields;
    size_t n_fields;
};

/* Blocks SIGINT and SIGTERM: the first call of a tool's main(), before any
 * thread exists, so that every thread inherits the mask and the run's
 * control thread alone takes them, whatever options start threads early. */
void lg_signals_block(void);

/* Runs every level, writes the document to stdout and the summary to stderr.
 * Returns the exit status. `meta` is the tool's part of --meta, or NULL. */
int lg_run(const struct lg_config *cfg, const struct lg_driver *drv, const struct lg_target *tgt,
           void *driver_ctx, const struct lg_meta_section *meta);

/* --- The driver's side of a client ------------------------------------- */

/* The driver's per-client state and the context given to lg_run. */
void *lg_client_state(struct lg_client *c);
void *lg_client_ctx(struct lg_client *c);
unsigned lg_client_id(const struct lg_client *c); /* 0..clients-1 within the level */
unsigned lg_client_slots(const struct lg_client *c);
/* The ALPN protocol the handshake agreed on, as the bytes the server sent
 * (len set; valid while the connection lasts), or NULL when none was. */
const uint8_t *lg_client_alpn(const struct lg_client *c, size_t *len);
/* Whether the agreed ALPN protocol is exactly `proto`. */
bool lg_client_alpn_is(const struct lg_client *c, const char *proto);
/* The connection speaks the driver's protocol_names[protocol]: counted once
 * per established connection (call it from on_ready). */
void lg_conn_protocol(struct lg_client *c, unsigned protocol);

/* Writes to the connection: directly when the socket takes it, otherwise the
 * rest is queued and sent when writable. Returns 0, or -1 if the connection
 * failed (already recorded; return -1 from the callback). */
int lg_conn_write(struct lg_client *c, const void *data, size_t len);
/* True while queued output waits for the socket. */
bool lg_conn_write_blocked(const struct lg_client *c);
/* How many requests this connection carries at once (1 for a protocol of one
 * request at a time; a multiplexed one: the server's limit). Defaults to the
 * slots per client. */
void lg_conn_set_capacity(struct lg_client *c, unsigned n);
/* The server says how many requests it takes at once on this connection
 * (a multiplexed protocol's announced limit): sets the capacity to at most n,
 * and when n is below the slots per client the level reports the cap (stderr
 * and --meta) instead of running at the server's limit without a word. */
void lg_conn_peer_limit(struct lg_client *c, unsigned n);
/* Close the connection once nothing is in flight (the server said it will
 * take no more, or the driver ran out of request ids); the next request
 * reconnects and is cold. */
void lg_conn_close_when_idle(struct lg_client *c);
/* True once the connection closes when idle (--conn-requests reached, the
 * server said it takes no more, the driver ran out of request ids): a
 * request submitted now is the connection's last, and a driver may tell the
 * server so with it. */
bool lg_conn_closing_when_idle(const struct lg_client *c);
/* Records why the connection is failing; every request in flight on it gets
 * this class. Return -1 from the callback afterwards. */
void lg_conn_fail(struct lg_client *c, int error_class, const char *detail);

/* The first byte of the response to `slot` arrived (for ttfb_ms). */
void lg_req_first_byte(struct lg_client *c, unsigned slot);
/* Request `slot` finished: error 0 for success or a class. The engine
 * samples, counts and, in a closed loop, starts the next request. */
void lg_req_done(struct lg_client *c, unsigned slot, int error_class);
/* Remembers a reason for an error class (shown in the summary once per class). */
void lg_note_error(struct lg_client *c, int error_class, const char *detail);
/* Whether `slot` is in flight. */
bool lg_req_active(const struct lg_client *c, unsigned slot);
/* The run cannot be carried out (memory ran out): every worker stops and
 * the tool exits with status 4 and this message, without a document. */
void lg_fail_run(struct lg_client *c, const char *why);
/* Puts request `slot`, being submitted, in the driver's request group
 * `group` (1..n_groups); a request is in no group otherwise. */
void lg_req_group(struct lg_client *c, unsigned slot, unsigned group);
/* Adds to one of the driver's extra counters. */
void lg_count(struct lg_client *c, unsigned counter, uint64_t n);

#endif
