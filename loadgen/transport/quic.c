/* QUIC over ngtcp2 0.12 with GnuTLS: the handshake stage, the transport
 * that moves a ready connection's packets, and the stream calls the
 * application protocol over it uses. The only file that calls ngtcp2. Packets are
 * read in batches (recvmmsg) and written in batches (UDP GSO), the
 * connection's timers (loss, acknowledgement, idle) run on the engine's
 * per-connection timer, and every way a connection fails is given a class
 * and a sentence. See quic.h. */
#include "loadgen/transport/quic.h"
#include "loadgen/core/nomem.h"
#include "loadgen/core/blockpool.h"
#include "loadgen/core/internal.h"
#include "loadgen/options/options.h"
#include "loadgen/transport/udp_batch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

_Static_assert(sizeof(struct lg_quic_vec) == sizeof(ngtcp2_vec) &&
                   offsetof(struct lg_quic_vec, len) == offsetof(ngtcp2_vec, len),
               "lg_quic_vec has ngtcp2_vec's layout");

/* Receive slots: the worker's 64 KiB read buffer holds 32 datagrams of up
 * to 2048 bytes, and our transport parameters tell the server not to send
 * larger ones. */
#define RX_SLOT 2048
#define RX_BATCHES 4 /* batches per read event before other clients get their turn */
#define RX_QUEUE (1 << 20)
/* Packets we send are at most this large (ngtcp2's default, and the most
 * its path MTU discovery tries), and up to TX_PKTS go out in one call. */
#define TX_MTU 1452
#define TX_PKTS 44 /* 44 * 1452 fits one UDP GSO send (64 KiB) */
#define STREAM_WINDOW (16u << 20)
#define CONN_WINDOW ((1u << 30) - 1)
#define PEER_UNI_STREAMS 8 /* the server's control and QPACK streams, and room for more */

/* A batch of packets waiting for the socket (in the engine's output queue):
 * this header, then the packets, each seg bytes but the last. */
struct queued {
    uint32_t len;
    uint32_t seg;
};

struct lg_quic {
    ngtcp2_crypto_conn_ref ref; /* GnuTLS's session pointer leads here */
    ngtcp2_conn *conn;
    gnutls_session_t tls;
    struct lg_client *c;
    const struct lg_quic_config *cfg;
    struct sockaddr_storage local, remote;
    ngtcp2_path path;
    /* what our CONNECTION_CLOSE says when the connection ends */
    ngtcp2_connection_close_error close_error;
    uint64_t timer_at;   /* when the engine's timer is set for; UINT64_MAX: not set */
    uint64_t last_ts;    /* timestamps given to ngtcp2 never go backwards */
    uint32_t offered[8]; /* versions a version negotiation packet offered */
    unsigned n_offered;
    bool handshake_done;  /* the client finished its side of the handshake */
    bool app_started;     /* the application opened its streams */
    bool heard;           /* a packet came from the server */
    bool stateless_reset; /* the server said it has no state for this connection */
    bool silent;          /* the connection ended without a word to send (idle, draining) */
    bool gso;             /* UDP_SEGMENT may be used on this socket */
    /* ngtcp2 allocates per packet and per stream: from a pool of the
     * connection's own, recycled by size (ngtcp2 keeps the table's address) */
    struct lg_block_pool pool;
    ngtcp2_mem mem;
};

static _Thread_local uint8_t tx_buf[TX_PKTS * TX_MTU];

static struct lg_quic *quic_of(struct lg_client *c)
{
    return c->quic;
}

static uint64_t timestamp(struct lg_quic *q)
{
    uint64_t now = lg_event_now(q->c->w);
    if (now < q->last_ts) now = q->last_ts;
    q->last_ts = now;
    return now;
}

static bool in_setup(const struct lg_client *c)
{
    return c->state == LG_CONN_SETUP;
}

/* --- run configuration --------------------------------------------------- */

void lg_quic_versions(char *buf, size_t len)
{
    snprintf(buf, len, "ngtcp2 %s, GnuTLS %s", ngtcp2_version(0)->version_str,
             gnutls_check_version(NULL));
}

/* TLS 1.3 only, with the ciphers QUIC defines; no middlebox compatibility
 * mode (QUIC forbids it). */
static const char tls_priority[] = "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:"
                                   "+AES-256-GCM:+CHACHA20-POLY1305:%DISABLE_TLS13_COMPAT_MODE";

static bool is_ip_literal(const char *host)
{
    unsigned char a[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, host, a) == 1 || inet_pton(AF_INET6, host, a) == 1;
}

/* lg_quic_setup's failure: LG_NO_MEMORY when GnuTLS ran out of memory
 * (rv), else -1 with `what` and GnuTLS's reason in err. Frees what q holds. */
static int quic_setup_failed(struct lg_quic_config *q, int rv, char *err, size_t errlen,
                             const char *what)
{
    lg_quic_config_free(q);
    if (rv == GNUTLS_E_MEMORY_ERROR) {
        snprintf(err, errlen, "%s", lg_no_memory);
        return LG_NO_MEMORY;
    }
    snprintf(err, errlen, "%s: %s", what, gnutls_strerror(rv));
    return -1;
}

int lg_quic_setup(struct lg_quic_config *q, const struct lg_tls_options *o, const char *host,
                  const char *alpn, const struct lg_quic_app *app, uint64_t request_timeout_ns,
                  char *err, size_t errlen)
{
    extern const struct lg_transport lg_transport_quic;
    extern const struct lg_stage lg_stage_quic;
    memset(q, 0, sizeof(*q));
    q->transport = &lg_transport_quic;
    q->stage = &lg_stage_quic;
    q->app = app;
    q->alpn_len = strlen(alpn);
    memcpy(q->alpn, alpn, q->alpn_len);
    /* the connection stays open between requests (keep-alive PINGs at half
     * the idle timeout); a request in flight is bounded by --timeout, so the
     * idle timeout only ends a connection the server stopped answering */
    q->idle_timeout_ns =
        request_timeout_ns * 2 > 30ull * LG_NS_PER_S ? request_timeout_ns * 2 : 30ull * LG_NS_PER_S;
    gnutls_certificate_credentials_t creds;
    int rv = gnutls_certificate_allocate_credentials(&creds);
    if (rv < 0) return quic_setup_failed(q, rv, err, errlen, "cannot set up TLS for QUIC");
    q->creds = creds;
    /* a store that cannot be read holds none; memory that ran out is no store */
    if (!o->insecure && gnutls_certificate_set_x509_system_trust(creds) == GNUTLS_E_MEMORY_ERROR)
        return quic_setup_failed(q, GNUTLS_E_MEMORY_ERROR, err, errlen, "");
    if (o->cacert) {
        rv = gnutls_certificate_set_x509_trust_file(creds, o->cacert, GNUTLS_X509_FMT_PEM);
        if (rv == GNUTLS_E_MEMORY_ERROR) return quic_setup_failed(q, rv, err, errlen, "");
        if (rv <= 0) {
            snprintf(err, errlen, "--cacert %s: not a readable PEM certificate file%s%s", o->cacert,
                     rv < 0 ? ": " : "", rv < 0 ? gnutls_strerror(rv) : "");
            lg_quic_config_free(q);
            return -1;
        }
    }
    gnutls_priority_t prio;
    rv = gnutls_priority_init(&prio, tls_priority, NULL);
    /* the string is ours and fixed: GnuTLS 3.7's parser answers an allocation
     * of its own that failed with GNUTLS_E_INVALID_REQUEST (scripts/torture) */
    if (rv == GNUTLS_E_INVALID_REQUEST) rv = GNUTLS_E_MEMORY_ERROR;
    if (rv < 0) return quic_setup_failed(q, rv, err, errlen, "cannot set up TLS 1.3 for QUIC");
    q->priority = prio;
    /* batched packet I/O where the kernel has it; LOADGEN_QUIC_NO_BATCH=1
     * turns it off, to measure what it buys (bench/h3) */
    const char *no_batch = getenv("LOADGEN_QUIC_NO_BATCH");
    q->batch = !(no_batch && strcmp(no_batch, "1") == 0);
    q->gso = q->batch && lg_udp_gso_available(AF_INET);
    const char *sni = o->sni ? o->sni : (is_ip_literal(host) ? NULL : host);
    const char *verify = o->insecure ? NULL : (o->sni ? o->sni : host);
    if ((sni && !(q->sni = strdup(sni))) || (verify && !(q->verify_host = strdup(verify))))
        return quic_setup_failed(q, GNUTLS_E_MEMORY_ERROR, err, errlen, "");
    return 0;
}

void lg_quic_config_free(struct lg_quic_config *q)
{
    if (q->creds) gnutls_certificate_free_credentials(q->creds);
    if (q->priority) gnutls_priority_deinit(q->priority);
    free(q->sni);
    free(q->verify_host);
    q->creds = q->priority = NULL;
    q->sni = q->verify_host = NULL;
}

/* --- failures: a class and a sentence each ------------------------------- */

/* A TLS alert carried as a QUIC transport error (RFC 9001 4.8). */
static bool is_crypto_error(const ngtcp2_connection_close_error *e)
{
    return e->type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT &&
           e->error_code >= NGTCP2_CRYPTO_ERROR && e->error_code <= NGTCP2_CRYPTO_ERROR + 0xff;
}

/* "application error H3_NO_ERROR (0x100)", "PROTOCOL_VIOLATION (0xa)", "TLS
 * alert "Certificate is required" (CRYPTO_ERROR 0x174)": the words of a
 * CONNECTION_CLOSE. */
static void describe_close(const struct lg_quic *q, const ngtcp2_connection_close_error *e,
                           char *buf, size_t len)
{
    static const char *const transport_names[] = {
        "NO_ERROR",
        "INTERNAL_ERROR",
        "CONNECTION_REFUSED",
        "FLOW_CONTROL_ERROR",
        "STREAM_LIMIT_ERROR",
        "STREAM_STATE_ERROR",
        "FINAL_SIZE_ERROR",
        "FRAME_ENCODING_ERROR",
        "TRANSPORT_PARAMETER_ERROR",
        "CONNECTION_ID_LIMIT_ERROR",
        "PROTOCOL_VIOLATION",
        "INVALID_TOKEN",
        "APPLICATION_ERROR",
        "CRYPTO_BUFFER_EXCEEDED",
        "KEY_UPDATE_ERROR",
        "AEAD_LIMIT_REACHED",
        "NO_VIABLE_PATH",
    };
    int reason_len = e->reasonlen > 80 ? 80 : (int)e->reasonlen;
    const char *reason = e->reason ? (const char *)e->reason : "";
    char what[96];
    if (e->type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION) {
        const char *name = q->cfg->app->error_name(e->error_code);
        snprintf(what, sizeof(what), "application error %s (0x%llx)", name ? name : "unknown",
                 (unsigned long long)e->error_code);
    } else if (is_crypto_error(e)) {
        const char *alert =
            gnutls_alert_get_name((gnutls_alert_description_t)(e->error_code & 0xff));
        snprintf(what, sizeof(what), "TLS alert \"%s\" (CRYPTO_ERROR 0x%llx)",
                 alert ? alert : "unknown", (unsigned long long)e->error_code);
    } else {
        size_t n = sizeof(transport_names) / sizeof(transport_names[0]);
        snprintf(what, sizeof(what), "%s (0x%llx)",
                 e->error_code < n ? transport_names[e->error_code] : "unknown transport error",
                 (unsigned long long)e->error_code);
    }
    snprintf(buf, len, "%s%s%.*s%s", what, reason_len ? " \"" : "", reason_len, reason,
             reason_len ? "\"" : "");
}

/* An ICMP error on the socket: nothing listens on the server's UDP port, or
 * it cannot be reached. During the handshake, as a refused connect; later,
 * the server has gone. */
static void fail_icmp(struct lg_client *c, int err)
{
    struct lg_quic *q = quic_of(c);
    char detail[160];
    if (q) q->silent = true;
    if (in_setup(c)) {
        snprintf(detail, sizeof(detail),
                 "%s (ICMP%s): nothing answers QUIC on the server's UDP port", strerror(err),
                 err == ECONNREFUSED ? " port unreachable" : "");
        lg_conn_fail(c, err == ECONNREFUSED ? LG_ERR_CONNECT_REFUSED : LG_ERR_CONNECT, detail);
    } else {
        snprintf(detail, sizeof(detail),
                 "%s (ICMP%s): the server's UDP port stopped answering (the server is gone)",
                 strerror(err), err == ECONNREFUSED ? " port unreachable" : "");
        lg_conn_fail(c, LG_ERR_RESET, detail);
    }
}

static bool is_icmp_error(int err)
{
    return err == ECONNREFUSED || err == EHOSTUNREACH || err == ENETUNREACH || err == EHOSTDOWN ||
           err == ENETDOWN;
}

/* The TLS part of a failed handshake: a certificate that failed
 * verification, or anything else GnuTLS refused (ngtcp2's GnuTLS glue keeps
 * no error code, only the alert GnuTLS chose to send). */
static void fail_crypto(struct lg_client *c, struct lg_quic *q)
{
    uint8_t alert = ngtcp2_conn_get_tls_alert(q->conn);
    const char *alert_name =
        alert ? gnutls_alert_get_name((gnutls_alert_description_t)alert) : NULL;
    unsigned status = gnutls_session_get_verify_cert_status(q->tls);
    char detail[320];
    if (status != 0 && status != (unsigned)-1) {
        gnutls_datum_t out = {0};
        if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &out, 0) == 0) {
            size_t n = out.size;
            while (n && (out.data[n - 1] == ' ' || out.data[n - 1] == '\0'))
                n--;
            snprintf(detail, sizeof(detail), "certificate not trusted: %.*s", (int)n,
                     (char *)out.data);
            gnutls_free(out.data);
        } else {
            snprintf(detail, sizeof(detail), "certificate not trusted (status 0x%x)", status);
        }
        lg_conn_fail(c, LG_ERR_TLS_VERIFY, detail);
    } else {
        snprintf(detail, sizeof(detail), "QUIC handshake failed: TLS alert \"%s\"",
                 alert_name ? alert_name : "none (a TLS error)");
        lg_conn_fail(c, LG_ERR_TLS_HANDSHAKE, detail);
    }
    ngtcp2_connection_close_error_set_transport_error_tls_alert(&q->close_error, alert, NULL, 0);
}

/* The server closed the connection (CONNECTION_CLOSE, or a stateless reset).
 * Returns 1 when nothing was lost (a clean close with no request in flight:
 * the next request reconnects), else 0 after lg_conn_fail. */
static int peer_closed(struct lg_client *c, struct lg_quic *q)
{
    char detail[320], words[200];
    q->silent = true; /* draining: nothing more may be sent */
    if (q->stateless_reset) {
        lg_conn_fail(c, in_setup(c) ? LG_ERR_TLS_HANDSHAKE : LG_ERR_RESET,
                     "the server reset the QUIC connection (stateless reset: it has no state "
                     "for it, restarted or lost it)");
        return 0;
    }
    ngtcp2_connection_close_error e;
    ngtcp2_conn_get_connection_close_error(q->conn, &e);
    describe_close(q, &e, words, sizeof(words));
    bool no_error =
        (e.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT && e.error_code == 0) ||
        (e.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION &&
         e.error_code == q->cfg->app->no_error);
    if (in_setup(c) || is_crypto_error(&e)) {
        /* a TLS alert after our side of the handshake is done (a client
         * certificate refused: TLS 1.3's client finishes first) is the
         * handshake failing all the same */
        snprintf(detail, sizeof(detail), "the server closed the connection%s: %s",
                 in_setup(c) ? " during the QUIC handshake" : ", refusing the TLS handshake",
                 words);
        bool refused = e.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT &&
                       e.error_code == 0x2; /* CONNECTION_REFUSED: the server takes no more */
        lg_conn_fail(c, refused ? LG_ERR_CONNECT_REFUSED : LG_ERR_TLS_HANDSHAKE, detail);
        return 0;
    }
    if (no_error && c->inflight == 0) return 1;
    snprintf(detail, sizeof(detail), "the server closed the QUIC connection with %s%s", words,
             no_error ? " and requests in flight" : "");
    lg_conn_fail(c, no_error ? LG_ERR_EOF : LG_ERR_RESET, detail);
    return 0;
}

/* ngtcp2 refused a packet or a call: the connection is over. */
static void fail_lib(struct lg_client *c, struct lg_quic *q, int rv, const char *what)
{
    char detail[200];
    if (rv == NGTCP2_ERR_CALLBACK_FAILURE && c->fail_class) {
        /* the application has said why; close with its error code if it gave one */
        return;
    }
    if (rv == NGTCP2_ERR_RECV_VERSION_NEGOTIATION) {
        int n = snprintf(detail, sizeof(detail),
                         "the server does not speak QUIC version 1 (version negotiation offers");
        for (unsigned i = 0; i < q->n_offered && n > 0 && (size_t)n < sizeof(detail); i++)
            n += snprintf(detail + n, sizeof(detail) - (size_t)n, " 0x%08x", q->offered[i]);
        if (n > 0 && (size_t)n < sizeof(detail))
            snprintf(detail + n, sizeof(detail) - (size_t)n, ")");
        q->silent = true;
        lg_conn_fail(c, LG_ERR_CONNECT, detail);
        return;
    }
    if (rv == NGTCP2_ERR_CRYPTO) {
        fail_crypto(c, q);
        return;
    }
    snprintf(detail, sizeof(detail), "QUIC %s failed: %s", what, ngtcp2_strerror(rv));
    lg_conn_fail(c, in_setup(c) ? LG_ERR_TLS_HANDSHAKE : LG_ERR_RESET, detail);
    ngtcp2_connection_close_error_set_transport_error_liberr(&q->close_error, rv, NULL, 0);
}

/* --- ngtcp2's callbacks ---------------------------------------------------- */

static ngtcp2_conn *conn_of_ref(ngtcp2_crypto_conn_ref *ref)
{
    return ((struct lg_quic *)ref->user_data)->conn;
}

static int cb_handshake_completed(ngtcp2_conn *conn, void *user_data)
{
    struct lg_quic *q = user_data;
    q->handshake_done = true;
    return 0;
}

static int cb_recv_version_negotiation(ngtcp2_conn *conn, const ngtcp2_pkt_hd *hd,
                                       const uint32_t *sv, size_t nsv, void *user_data)
{
    struct lg_quic *q = user_data;
    q->n_offered = 0;
    for (size_t i = 0; i < nsv && q->n_offered < sizeof(q->offered) / sizeof(q->offered[0]); i++)
        q->offered[q->n_offered++] = sv[i];
    return 0;
}

/* The application starts when the keys for its data exist, before any of
 * its data can be read (the server may send its control stream with its
 * handshake flight). */
static int cb_recv_rx_key(ngtcp2_conn *conn, ngtcp2_crypto_level level, void *user_data)
{
    struct lg_quic *q = user_data;
    if (level != NGTCP2_CRYPTO_LEVEL_APPLICATION || q->app_started) return 0;
    q->app_started = true;
    return q->cfg->app->start(q->c) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int cb_recv_stream_data(ngtcp2_conn *conn, uint32_t flags, int64_t stream_id,
                               uint64_t offset, const uint8_t *data, size_t datalen,
                               void *user_data, void *stream_user_data)
{
    struct lg_quic *q = user_data;
    q->c->w->store.counters[LG_C_BYTES_RECEIVED] += datalen;
    return q->cfg->app->recv(q->c, stream_id, data, datalen, flags & NGTCP2_STREAM_DATA_FLAG_FIN) <
                   0
               ? NGTCP2_ERR_CALLBACK_FAILURE
               : 0;
}

static int cb_acked_stream_data_offset(ngtcp2_conn *conn, int64_t stream_id, uint64_t offset,
                                       uint64_t datalen, void *user_data, void *stream_user_data)
{
    struct lg_quic *q = user_data;
    return q->cfg->app->acked(q->c, stream_id, datalen) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int cb_stream_close(ngtcp2_conn *conn, uint32_t flags, int64_t stream_id,
                           uint64_t app_error_code, void *user_data, void *stream_user_data)
{
    struct lg_quic *q = user_data;
    bool set = flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET;
    return q->cfg->app->stream_close(q->c, stream_id, app_error_code, set) < 0
               ? NGTCP2_ERR_CALLBACK_FAILURE
               : 0;
}

static int cb_stream_reset(ngtcp2_conn *conn, int64_t stream_id, uint64_t final_size,
                           uint64_t app_error_code, void *user_data, void *stream_user_data)
{
    struct lg_quic *q = user_data;
    return q->cfg->app->stream_reset(q->c, stream_id, app_error_code) < 0
               ? NGTCP2_ERR_CALLBACK_FAILURE
               : 0;
}

static int cb_stream_stop_sending(ngtcp2_conn *conn, int64_t stream_id, uint64_t app_error_code,
                                  void *user_data, void *stream_user_data)
{
    struct lg_quic *q = user_data;
    return q->cfg->app->stop_sending(q->c, stream_id, app_error_code) < 0
               ? NGTCP2_ERR_CALLBACK_FAILURE
               : 0;
}

static int cb_extend_max_stream_data(ngtcp2_conn *conn, int64_t stream_id, uint64_t max_data,
                                     void *user_data, void *stream_user_data)
{
    struct lg_quic *q = user_data;
    return q->cfg->app->unblock(q->c, stream_id) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int cb_extend_max_local_streams_bidi(ngtcp2_conn *conn, uint64_t max_streams,
                                            void *user_data)
{
    struct lg_quic *q = user_data;
    if (!q->app_started) return 0; /* the transport parameters, before the handshake ends */
    return q->cfg->app->streams_available(q->c) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int cb_recv_stateless_reset(ngtcp2_conn *conn, const ngtcp2_pkt_stateless_reset *sr,
                                   void *user_data)
{
    struct lg_quic *q = user_data;
    q->stateless_reset = true;
    return 0;
}

static void cb_rand(uint8_t *dest, size_t destlen, const ngtcp2_rand_ctx *rand_ctx)
{
    (void)gnutls_rnd(GNUTLS_RND_NONCE, dest, destlen);
}

static int cb_get_new_connection_id(ngtcp2_conn *conn, ngtcp2_cid *cid, uint8_t *token,
                                    size_t cidlen, void *user_data)
{
    if (gnutls_rnd(GNUTLS_RND_NONCE, cid->data, cidlen) != 0 ||
        gnutls_rnd(GNUTLS_RND_NONCE, token, NGTCP2_STATELESS_RESET_TOKENLEN) != 0)
        return NGTCP2_ERR_CALLBACK_FAILURE;
    cid->datalen = cidlen;
    return 0;
}

static const ngtcp2_callbacks callbacks = {
    .client_initial = ngtcp2_crypto_client_initial_cb,
    .recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb,
    .handshake_completed = cb_handshake_completed,
    .recv_version_negotiation = cb_recv_version_negotiation,
    .encrypt = ngtcp2_crypto_encrypt_cb,
    .decrypt = ngtcp2_crypto_decrypt_cb,
    .hp_mask = ngtcp2_crypto_hp_mask_cb,
    .recv_stream_data = cb_recv_stream_data,
    .acked_stream_data_offset = cb_acked_stream_data_offset,
    .stream_close = cb_stream_close,
    .recv_stateless_reset = cb_recv_stateless_reset,
    .recv_retry = ngtcp2_crypto_recv_retry_cb,
    .extend_max_local_streams_bidi = cb_extend_max_local_streams_bidi,
    .rand = cb_rand,
    .get_new_connection_id = cb_get_new_connection_id,
    .update_key = ngtcp2_crypto_update_key_cb,
    .stream_reset = cb_stream_reset,
    .extend_max_stream_data = cb_extend_max_stream_data,
    .delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb,
    .delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb,
    .get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb,
    .stream_stop_sending = cb_stream_stop_sending,
    .version_negotiation = ngtcp2_crypto_version_negotiation_cb,
    .recv_rx_key = cb_recv_rx_key,
};

/* --- a connection ------------------------------------------------------- */

static void quic_free(struct lg_quic *q)
{
    if (!q) return;
    if (q->conn) ngtcp2_conn_del(q->conn);
    if (q->tls) gnutls_deinit(q->tls);
    lg_block_pool_destroy(&q->pool);
    free(q);
}

/* The TLS session of one connection: QUIC's hooks, TLS 1.3, the run's trust,
 * the one ALPN protocol (mandatory: a server that picks none fails the
 * handshake), SNI and the name the certificate must carry. */
static int tls_session_new(struct lg_client *c, struct lg_quic *q)
{
    const struct lg_quic_config *cfg = q->cfg;
    int rv = gnutls_init(&q->tls, GNUTLS_CLIENT);
    if (rv == 0 && ngtcp2_crypto_gnutls_configure_client_session(q->tls) != 0)
        rv = GNUTLS_E_INTERNAL_ERROR;
    if (rv == 0) rv = gnutls_priority_set(q->tls, cfg->priority);
    if (rv == 0) rv = gnutls_credentials_set(q->tls, GNUTLS_CRD_CERTIFICATE, cfg->creds);
    gnutls_datum_t alpn = {(unsigned char *)cfg->alpn, (unsigned)cfg->alpn_len};
    if (rv == 0) rv = gnutls_alpn_set_protocols(q->tls, &alpn, 1, GNUTLS_ALPN_MANDATORY);
    if (rv == 0 && cfg->sni)
        rv = gnutls_server_name_set(q->tls, GNUTLS_NAME_DNS, cfg->sni, strlen(cfg->sni));
    if (rv == 0 && cfg->verify_host) gnutls_session_set_verify_cert(q->tls, cfg->verify_host, 0);
    if (rv != 0) {
        char detail[160];
        snprintf(detail, sizeof(detail), "cannot create a TLS session for QUIC: %s",
                 gnutls_strerror(rv));
        if (rv == GNUTLS_E_MEMORY_ERROR) lg_fail_run(c, "out of memory for a QUIC connection");
        lg_conn_fail(c, LG_ERR_TLS_HANDSHAKE, detail);
        return -1;
    }
    gnutls_session_set_ptr(q->tls, &q->ref);
    return 0;
}

static int conn_new(struct lg_client *c, struct lg_quic *q)
{
    const struct lg_quic_config *cfg = q->cfg;
    ngtcp2_cid dcid, scid;
    dcid.datalen = 16;
    scid.datalen = 8;
    if (gnutls_rnd(GNUTLS_RND_NONCE, dcid.data, dcid.datalen) != 0 ||
        gnutls_rnd(GNUTLS_RND_NONCE, scid.data, scid.datalen) != 0) {
        lg_conn_fail(c, LG_ERR_TLS_HANDSHAKE, "no random bytes for QUIC connection IDs");
        return -1;
    }
    ngtcp2_settings settings;
    ngtcp2_settings_default(&settings);
    settings.initial_ts = timestamp(q);
    settings.max_tx_udp_payload_size = TX_MTU;
    settings.handshake_timeout = UINT64_MAX; /* --timeout bounds the handshake */
    ngtcp2_transport_params params;
    ngtcp2_transport_params_default(&params);
    params.initial_max_streams_bidi = 0; /* the server opens none */
    params.initial_max_streams_uni = PEER_UNI_STREAMS;
    params.initial_max_stream_data_bidi_local = STREAM_WINDOW;
    params.initial_max_stream_data_uni = STREAM_WINDOW;
    params.initial_max_data = CONN_WINDOW;
    params.max_idle_timeout = cfg->idle_timeout_ns;
    params.max_udp_payload_size = RX_SLOT;
    q->mem = (ngtcp2_mem){&q->pool, lg_block_pool_malloc, lg_block_pool_free, lg_block_pool_calloc,
                          lg_block_pool_realloc};
    /* ngtcp2 (0.12) leaves its out-parameter pointing at the connection it
     * freed when an allocation fails inside: only a success is kept */
    ngtcp2_conn *conn = NULL;
    int rv = ngtcp2_conn_client_new(&conn, &dcid, &scid, &q->path, NGTCP2_PROTO_VER_V1, &callbacks,
                                    &settings, &params, &q->mem, q);
    if (rv == 0) q->conn = conn;
    if (rv != 0) {
        if (rv == NGTCP2_ERR_NOMEM) lg_fail_run(c, "out of memory for a QUIC connection");
        lg_conn_fail(c, LG_ERR_TLS_HANDSHAKE, ngtcp2_strerror(rv));
        return -1;
    }
    ngtcp2_conn_set_tls_native_handle(q->conn, q->tls);
    return 0;
}

/* The engine's timer follows ngtcp2's next expiry (loss detection,
 * acknowledgement delay, pacing, idle). */
static void arm_timer(struct lg_client *c, struct lg_quic *q)
{
    uint64_t at = ngtcp2_conn_get_expiry(q->conn);
    if (at == q->timer_at) return;
    q->timer_at = at;
    if (at == UINT64_MAX)
        lg_conn_timer_stop(c);
    else
        lg_conn_timer_at(c, at);
}

/* --- packets out ------------------------------------------------------- */

/* Sends a batch of packets (seg bytes each but the last), or queues what the
 * socket does not take. 0, or -1 after lg_conn_fail. */
static int send_packets(struct lg_client *c, struct lg_quic *q, const uint8_t *buf, size_t len,
                        size_t seg)
{
    if (!c->outq_len) {
        for (;;) {
            ssize_t n = lg_udp_send_batch(c->fd, buf, len, seg, &q->gso, q->cfg->batch);
            if (n >= 0) {
                buf += n;
                len -= (size_t)n;
                if (!len) return 0;
                break; /* the socket filled up */
            }
            int err = errno;
            if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) break;
            if (is_icmp_error(err)) {
                fail_icmp(c, err);
            } else {
                lg_conn_fail(c, LG_ERR_SEND, strerror(err));
                q->silent = true;
            }
            return -1;
        }
        c->w->store.counters[LG_C_SEND_BLOCKED]++;
    }
    struct queued h = {(uint32_t)len, (uint32_t)seg};
    if (lg_outq_append(c, &h, sizeof(h)) < 0 || lg_outq_append(c, buf, len) < 0) return -1;
    if (!in_setup(c)) return lg_conn_output_state(c, LG_IO_WANT_WRITE);
    return 0;
}

/* The application's next stream data, when it has started and the
 * connection's flow control lets anything through. */
static long pull(struct lg_client *c, struct lg_quic *q, int64_t *id, bool *fin, ngtcp2_vec *v,
                 size_t n)
{
    *id = -1;
    *fin = false;
    if (!q->app_started || !ngtcp2_conn_get_max_data_left(q->conn)) return 0;
    return q->cfg->app->pull(c, id, fin, (struct lg_quic_vec *)v, n);
}

int lg_quic_write(struct lg_client *c)
{
    struct lg_quic *q = quic_of(c);
    if (!q || q->silent) return 0;
    if (c->outq_len) return 0; /* the socket is full: on_writable comes back here */
    const struct lg_quic_app *app = q->cfg->app;
    uint64_t ts = timestamp(q);
    size_t mtu = ngtcp2_conn_get_path_max_tx_udp_payload_size(q->conn);
    size_t quantum = ngtcp2_conn_get_send_quantum(q->conn) / mtu;
    size_t max_pkts = quantum < 1 ? 1 : quantum > TX_PKTS ? TX_PKTS : quantum;
    size_t off = 0, seg = 0, pkts = 0;
    ngtcp2_vec vec[16];
    for (;;) {
        int64_t id;
        bool fin;
        long nv = pull(c, q, &id, &fin, vec, 16);
        if (nv < 0) return -1;
        uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE | (fin ? NGTCP2_WRITE_STREAM_FLAG_FIN : 0);
        ngtcp2_ssize taken = -1;
        ngtcp2_ssize n = ngtcp2_conn_writev_stream(q->conn, NULL, NULL, tx_buf + off, mtu, &taken,
                                                   flags, id, vec, (size_t)nv, ts);
        if (n < 0) {
            switch (n) {
            case NGTCP2_ERR_STREAM_DATA_BLOCKED:
                app->blocked(c, id);
                continue;
            case NGTCP2_ERR_STREAM_SHUT_WR:
                app->write_shut(c, id);
                continue;
            case NGTCP2_ERR_WRITE_MORE:
                if (app->wrote(c, id, (size_t)taken) < 0) return -1;
                continue;
            default:
                fail_lib(c, q, (int)n, "write");
                return -1;
            }
        }
        if (taken >= 0 && id >= 0 && app->wrote(c, id, (size_t)taken) < 0) return -1;
        if (n == 0) break; /* nothing more now, or the congestion window is full */
        /* one GSO send carries packets of one size, the last may be shorter */
        if (pkts && (size_t)n > seg) {
            if (send_packets(c, q, tx_buf, off, seg) < 0) return -1;
            memmove(tx_buf, tx_buf + off, (size_t)n);
            off = pkts = 0;
        }
        if (!pkts) seg = (size_t)n;
        off += (size_t)n;
        pkts++;
        bool short_pkt = (size_t)n < seg;
        if (short_pkt || pkts == max_pkts) {
            bool quantum_sent = pkts == max_pkts;
            if (send_packets(c, q, tx_buf, off, seg) < 0) return -1;
            off = pkts = 0;
            /* a send quantum went out: pacing decides when the next does */
            if (quantum_sent || c->outq_len) break;
        }
    }
    if (pkts && send_packets(c, q, tx_buf, off, seg) < 0) return -1;
    ngtcp2_conn_update_pkt_tx_time(q->conn, ts);
    arm_timer(c, q);
    return 0;
}

/* --- packets in ------------------------------------------------------------ */

enum input { INPUT_OK, INPUT_FAILED, INPUT_CLOSED };

/* Reads every datagram waiting (up to RX_BATCHES batches) into ngtcp2. */
static enum input read_packets(struct lg_client *c, struct lg_quic *q)
{
    struct lg_worker *w = c->w;
    unsigned slots = (unsigned)(w->rbuf_len / RX_SLOT);
    size_t len[LG_UDP_BATCH_MAX];
    for (int b = 0; b < RX_BATCHES; b++) {
        int n = lg_udp_recv_batch(c->fd, w->rbuf, RX_SLOT, slots, len, q->cfg->batch);
        if (n < 0) {
            int err = errno;
            if (is_icmp_error(err))
                fail_icmp(c, err);
            else
                lg_conn_fail(c, LG_ERR_RESET, strerror(err));
            q->silent = true;
            return INPUT_FAILED;
        }
        if (n == 0) break;
        w->event_ns = 0; /* what these packets complete, they complete now */
        uint64_t ts = timestamp(q);
        for (int i = 0; i < n; i++) {
            if (!len[i]) continue; /* larger than we allow: cut short, dropped */
            q->heard = true;
            int rv = ngtcp2_conn_read_pkt(q->conn, &q->path, NULL, w->rbuf + (size_t)i * RX_SLOT,
                                          len[i], ts);
            if (rv == 0) continue;
            if (rv == NGTCP2_ERR_DRAINING) return peer_closed(c, q) ? INPUT_CLOSED : INPUT_FAILED;
            fail_lib(c, q, rv, "packet");
            return INPUT_FAILED;
        }
        if ((unsigned)n < slots) break; /* drained */
    }
    return INPUT_OK;
}

/* --- the handshake stage ------------------------------------------------ */

/* Once the handshake is done: keep-alive PINGs at half the idle timeout the
 * two sides agreed on, so an idle connection stays open; the server's
 * stream limit caps the requests in flight. */
static void handshake_finished(struct lg_client *c, struct lg_quic *q)
{
    const ngtcp2_transport_params *p = ngtcp2_conn_get_remote_transport_params(q->conn);
    uint64_t idle = q->cfg->idle_timeout_ns;
    if (p && p->max_idle_timeout && p->max_idle_timeout < idle) idle = p->max_idle_timeout;
    ngtcp2_conn_set_keep_alive_timeout(q->conn, idle / 2);
    size_t n;
    const uint8_t *alpn = NULL;
    gnutls_datum_t sel;
    if (gnutls_alpn_get_selected_protocol(q->tls, &sel) == 0) {
        alpn = sel.data;
        n = sel.size;
    } else {
        n = 0;
    }
    c->alpn = alpn;
    c->alpn_len = n;
}

static enum lg_step quic_step(struct lg_client *c)
{
    struct lg_quic *q = quic_of(c);
    if (c->outq_len) {
        int rc = c->tp->flush(c);
        if (rc == LG_IO_ERROR) return LG_STEP_FAILED;
        if (rc != LG_IO_DONE) return LG_STEP_WANT_WRITE;
    }
    enum input in = read_packets(c, q);
    if (in != INPUT_OK) return LG_STEP_FAILED; /* a close during the handshake is a failure */
    if (lg_quic_write(c) < 0) return LG_STEP_FAILED;
    if (c->outq_len) return LG_STEP_WANT_WRITE;
    if (!q->handshake_done) return LG_STEP_WANT_READ;
    handshake_finished(c, q);
    return LG_STEP_DONE;
}

static enum lg_step quic_start(struct lg_client *c)
{
    struct lg_quic *q = calloc(1, sizeof(*q));
    if (!q) {
        lg_fail_run(c, "out of memory for a QUIC connection");
        lg_conn_fail(c, LG_ERR_TLS_HANDSHAKE, "out of memory for a QUIC connection");
        return LG_STEP_FAILED;
    }
    c->quic = q;
    q->c = c;
    q->cfg = c->w->tgt->quic;
    q->ref.get_conn = conn_of_ref;
    q->ref.user_data = q;
    q->timer_at = UINT64_MAX;
    q->gso = q->cfg->gso;
    ngtcp2_connection_close_error_default(&q->close_error);
    socklen_t ll = sizeof(q->local);
    if (getsockname(c->fd, (struct sockaddr *)&q->local, &ll) < 0) {
        lg_conn_fail(c, LG_ERR_SOCKET, strerror(errno));
        return LG_STEP_FAILED;
    }
    const struct lg_target *t = c->w->tgt;
    memcpy(&q->remote, &t->addr, t->addrlen);
    q->path.local.addr = (struct sockaddr *)&q->local;
    q->path.local.addrlen = ll;
    q->path.remote.addr = (struct sockaddr *)&q->remote;
    q->path.remote.addrlen = t->addrlen;
    if (tls_session_new(c, q) < 0 || conn_new(c, q) < 0) return LG_STEP_FAILED;
    if (lg_quic_write(c) < 0) return LG_STEP_FAILED;
    return c->outq_len ? LG_STEP_WANT_WRITE : LG_STEP_WANT_READ;
}

/* A handshake that timed out: nothing ever came back (the server's port
 * drops everything, or nothing answers and no ICMP says so), or it began
 * and did not finish. */
static int quic_timeout_class(const struct lg_client *c, const char **detail)
{
    const struct lg_quic *q = c->quic;
    if (!q || !q->heard) {
        *detail = "no QUIC packet from the server (its UDP port drops them, or nothing answers)";
        return LG_ERR_CONNECT_TIMEOUT;
    }
    *detail = "the QUIC handshake did not finish";
    return LG_ERR_TLS_HANDSHAKE;
}

const struct lg_stage lg_stage_quic = {
    .name = "quic",
    .phase_series = LG_S_QUIC_HANDSHAKE,
    .timeout_class = LG_ERR_TLS_HANDSHAKE,
    .timeout_detail = "the QUIC handshake did not finish",
    .start = quic_start,
    .step = quic_step,
    .timeout_class_of = quic_timeout_class,
};

/* --- the transport ------------------------------------------------------ */

static int quic_open(struct lg_client *c)
{
    c->quic = NULL;
    if (lg_transport_udp.open(c) < 0) return -1;
    /* A server sends a large body faster than one loop may read it: a
     * receive queue of RX_QUEUE bytes (capped by net.core.rmem_max, and
     * memory only while full) instead of the default ~200 KiB. */
    int rcvbuf = RX_QUEUE;
    setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    return 0;
}

static ssize_t quic_read(struct lg_client *c, uint8_t *buf, size_t len)
{
    struct lg_quic *q = quic_of(c);
    switch (read_packets(c, q)) {
    case INPUT_FAILED:
        return LG_IO_ERROR;
    case INPUT_CLOSED:
        return LG_IO_EOF;
    default:
        return LG_IO_AGAIN; /* the stream data went to the application */
    }
}

static bool quic_more(const struct lg_client *c, size_t n, size_t len)
{
    return false; /* a read takes everything waiting, or leaves it for epoll */
}

static int quic_send(struct lg_client *c, const uint8_t *buf, size_t len)
{
    lg_conn_fail(c, LG_ERR_SEND, "a QUIC connection carries streams, not bytes");
    return LG_IO_ERROR;
}

/* The batches the socket did not take, in order. */
static int quic_flush(struct lg_client *c)
{
    struct lg_quic *q = quic_of(c);
    while (c->outq_off < c->outq_len) {
        struct queued h;
        memcpy(&h, c->outq + c->outq_off, sizeof(h));
        const uint8_t *p = c->outq + c->outq_off + sizeof(h);
        ssize_t n = lg_udp_send_batch(c->fd, p, h.len, h.seg, &q->gso, q->cfg->batch);
        if (n < 0) {
            int err = errno;
            if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) return LG_IO_WANT_WRITE;
            if (is_icmp_error(err))
                fail_icmp(c, err);
            else
                lg_conn_fail(c, LG_ERR_SEND, strerror(err));
            return LG_IO_ERROR;
        }
        if ((size_t)n < h.len) { /* the rest of this batch waits in place */
            h.len -= (uint32_t)n;
            c->outq_off += (size_t)n;
            memcpy(c->outq + c->outq_off, &h, sizeof(h));
            return LG_IO_WANT_WRITE;
        }
        c->outq_off += sizeof(h) + h.len;
    }
    c->outq_off = c->outq_len = 0;
    return LG_IO_DONE;
}

static int quic_on_timer(struct lg_client *c)
{
    struct lg_quic *q = quic_of(c);
    if (!q || q->silent) return 0;
    q->timer_at = UINT64_MAX; /* it fired: whatever comes next is armed anew */
    int rv = ngtcp2_conn_handle_expiry(q->conn, timestamp(q));
    if (rv == NGTCP2_ERR_IDLE_CLOSE) {
        q->silent = true; /* an idle close says nothing to the server */
        if (!in_setup(c) && c->inflight == 0) {
            lg_conn_close_when_idle(c); /* the next request reconnects */
            return 0;
        }
        char detail[128];
        snprintf(detail, sizeof(detail), "QUIC idle timeout: nothing from the server for %.0f ms",
                 (double)q->cfg->idle_timeout_ns / 1e6);
        lg_conn_fail(c, in_setup(c) ? LG_ERR_CONNECT_TIMEOUT : LG_ERR_TIMEOUT, detail);
        return -1;
    }
    if (rv != 0) {
        fail_lib(c, q, rv, "timer");
        return -1;
    }
    if (lg_quic_write(c) < 0) return -1;
    return 0;
}

/* Before the socket closes: a CONNECTION_CLOSE unless the connection already
 * ended without one (idle, draining, the server gone), then the state. */
static void quic_close(struct lg_client *c)
{
    struct lg_quic *q = quic_of(c);
    if (!q) return;
    if (q->conn && !q->silent && !ngtcp2_conn_is_in_closing_period(q->conn) &&
        !ngtcp2_conn_is_in_draining_period(q->conn)) {
        if (q->close_error.error_code == 0 &&
            q->close_error.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT &&
            q->app_started)
            ngtcp2_connection_close_error_set_application_error(&q->close_error,
                                                                q->cfg->app->no_error, NULL, 0);
        ngtcp2_ssize n = ngtcp2_conn_write_connection_close(q->conn, NULL, NULL, tx_buf, TX_MTU,
                                                            &q->close_error, timestamp(q));
        if (n > 0) (void)send(c->fd, tx_buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    quic_free(q);
    c->quic = NULL;
}

const struct lg_transport lg_transport_quic = {
    .name = "quic",
    .open = quic_open,
    .read = quic_read,
    .more = quic_more,
    .send = quic_send,
    .flush = quic_flush,
    .close = quic_close,
    .dropped = lg_udp_dropped,
    .blocked_counter = "send_blocked",
    .on_timer = quic_on_timer,
};

/* --- stream calls -------------------------------------------------------- */

int lg_quic_open_bidi(struct lg_client *c, int64_t *stream_id)
{
    int rv = ngtcp2_conn_open_bidi_stream(quic_of(c)->conn, stream_id, NULL);
    if (rv == NGTCP2_ERR_STREAM_ID_BLOCKED) return LG_QUIC_BLOCKED;
    if (rv != 0) {
        lg_conn_fail(c, LG_ERR_RESET, ngtcp2_strerror(rv));
        return -1;
    }
    return 0;
}

int lg_quic_open_uni(struct lg_client *c, int64_t *stream_id)
{
    int rv = ngtcp2_conn_open_uni_stream(quic_of(c)->conn, stream_id, NULL);
    if (rv == NGTCP2_ERR_STREAM_ID_BLOCKED) return LG_QUIC_BLOCKED;
    if (rv != 0) {
        lg_conn_fail(c, LG_ERR_RESET, ngtcp2_strerror(rv));
        return -1;
    }
    return 0;
}

uint64_t lg_quic_uni_streams_left(struct lg_client *c)
{
    return ngtcp2_conn_get_streams_uni_left(quic_of(c)->conn);
}

uint64_t lg_quic_bidi_streams_limit(struct lg_client *c)
{
    const ngtcp2_transport_params *p = ngtcp2_conn_get_remote_transport_params(quic_of(c)->conn);
    return p ? p->initial_max_streams_bidi : 0;
}

void lg_quic_consumed(struct lg_client *c, int64_t stream_id, size_t n)
{
    struct lg_quic *q = quic_of(c);
    ngtcp2_conn_extend_max_stream_offset(q->conn, stream_id, n);
    ngtcp2_conn_extend_max_offset(q->conn, n);
}

void lg_quic_more_peer_uni_streams(struct lg_client *c)
{
    ngtcp2_conn_extend_max_streams_uni(quic_of(c)->conn, 1);
}

static int stream_call(struct lg_client *c, int rv)
{
    /* a stream that is already gone needs no stopping */
    if (rv == 0 || rv == NGTCP2_ERR_STREAM_NOT_FOUND) return 0;
    lg_conn_fail(c, LG_ERR_RESET, ngtcp2_strerror(rv));
    return -1;
}

int lg_quic_shutdown_write(struct lg_client *c, int64_t stream_id, uint64_t code)
{
    return stream_call(c, ngtcp2_conn_shutdown_stream_write(quic_of(c)->conn, stream_id, code));
}

int lg_quic_shutdown_read(struct lg_client *c, int64_t stream_id, uint64_t code)
{
    return stream_call(c, ngtcp2_conn_shutdown_stream_read(quic_of(c)->conn, stream_id, code));
}

int lg_quic_shutdown(struct lg_client *c, int64_t stream_id, uint64_t code)
{
    return stream_call(c, ngtcp2_conn_shutdown_stream(quic_of(c)->conn, stream_id, code));
}

void lg_quic_set_app_error(struct lg_client *c, uint64_t code)
{
    struct lg_quic *q = quic_of(c);
    if (q) ngtcp2_connection_close_error_set_application_error(&q->close_error, code, NULL, 0);
}
