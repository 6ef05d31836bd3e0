/* How a QUIC connection ends: every way it fails given a class and a
 * sentence, its timers (loss, acknowledgement, idle) on the engine's
 * per-connection timer, and its close (a CONNECTION_CLOSE unless it already
 * ended without one). See quic.c. */
#include "loadgen/transport/quic_conn.h"
#include "loadgen/core/internal.h"

#include <errno.h>
#include <gnutls/gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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
void lg_quic_fail_icmp(struct lg_client *c, int err)
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

bool lg_quic_is_icmp_error(int err)
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
int lg_quic_peer_closed(struct lg_client *c, struct lg_quic *q)
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
void lg_quic_fail_lib(struct lg_client *c, struct lg_quic *q, int rv, const char *what)
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

/* --- timers and close ---------------------------------------------------- */

/* The engine's timer follows ngtcp2's next expiry (loss detection,
 * acknowledgement delay, pacing, idle). */
void lg_quic_arm_timer(struct lg_client *c, struct lg_quic *q)
{
    uint64_t at = ngtcp2_conn_get_expiry(q->conn);
    if (at == q->timer_at) return;
    q->timer_at = at;
    if (at == UINT64_MAX)
        lg_conn_timer_stop(c);
    else
        lg_conn_timer_at(c, at);
}

int lg_quic_on_timer(struct lg_client *c)
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
        lg_quic_fail_lib(c, q, rv, "timer");
        return -1;
    }
    if (lg_quic_write(c) < 0) return -1;
    return 0;
}

/* Before the socket closes: a CONNECTION_CLOSE unless the connection already
 * ended without one (idle, draining, the server gone), then the state. */
void lg_quic_close(struct lg_client *c)
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
        uint8_t pkt[TX_MTU]; /* one packet: the packet path's batch buffer is its own */
        ngtcp2_ssize n = ngtcp2_conn_write_connection_close(q->conn, NULL, NULL, pkt, sizeof(pkt),
                                                            &q->close_error, timestamp(q));
        if (n > 0) (void)send(c->fd, pkt, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    lg_quic_free(q);
    c->quic = NULL;
}

void lg_quic_free(struct lg_quic *q)
{
    if (!q) return;
    if (q->conn) ngtcp2_conn_del(q->conn);
    if (q->tls) gnutls_deinit(q->tls);
    lg_block_pool_destroy(&q->pool);
    free(q);
}
