/* QUIC over ngtcp2 0.12 with GnuTLS: the run's configuration, and a
 * connection's set-up: its TLS session, ngtcp2's connection with the
 * callbacks that hand stream data to the application, and the handshake
 * stage. quic_packets.c moves a connection's packets, quic_close.c ends it
 * (timers, failures, close); these three files are the only ones that call
 * ngtcp2. See quic.h. */
#include "loadgen/transport/quic_conn.h"
#include "loadgen/core/nomem.h"
#include "loadgen/core/internal.h"
#include "loadgen/options/options.h"
#include "loadgen/transport/udp_batch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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
    enum input in = lg_quic_read_packets(c, q);
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
    const struct lg_target *t = c->tgt;
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
