/* TLS (OpenSSL): the run's context (certificate verification against the
 * system store plus --cacert, SNI, ALPN, optional session resumption across a
 * client's reconnects), the handshake stage, whose failures are classified as
 * tls_verify (the certificate) or tls_handshake (everything else), and the
 * TLS transport the connection uses once the handshake is done. */
#include "loadgen/core/internal.h"
#include "loadgen/options/options.h"
#include "loadgen/transport/tlsmem.h"

#include <arpa/inet.h>

#include <errno.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>

/* Whether OpenSSL's error queue says an allocation failed (its own, or a
 * system call's ENOMEM, as when a file could not be opened); empties it. */
static bool tls_errors_say_no_memory(void)
{
    bool memory = false;
    for (unsigned long e; (e = ERR_get_error());)
        if (ERR_GET_REASON(e) == ERR_R_MALLOC_FAILURE ||
            (ERR_SYSTEM_ERROR(e) && ERR_GET_REASON(e) == ENOMEM))
            memory = true;
    return memory;
}

/* Whether a failed load of --cacert ran out of memory: an allocation OpenSSL
 * reports (as above), or the X509 layer's bare "PEM lib" with no reason from
 * the PEM reader beneath it, which is what OpenSSL 3.0's PEM_read_bio_ex
 * leaves when its own buffer could not be had (a file that is not PEM always
 * carries the reader's reason: no start line, bad base64, bad end line; or
 * the X509 layer's "no certificate or crl found"). Empties the queue. */
static bool cafile_load_says_no_memory(void)
{
    bool pem_reason = false, bare_pem_lib = false, memory = false;
    for (unsigned long e; (e = ERR_get_error());) {
        if (ERR_GET_REASON(e) == ERR_R_MALLOC_FAILURE ||
            (ERR_SYSTEM_ERROR(e) && ERR_GET_REASON(e) == ENOMEM))
            memory = true;
        else if (ERR_GET_LIB(e) == ERR_LIB_PEM)
            pem_reason = true;
        else if (ERR_GET_LIB(e) == ERR_LIB_X509 && ERR_GET_REASON(e) == ERR_R_PEM_LIB)
            bare_pem_lib = true;
    }
    return memory || (bare_pem_lib && !pem_reason);
}

/* A context that could not be made: memory, or `what` (in err). OpenSSL
 * says nothing at all when its own initialisation ran out of memory: no
 * reason is memory too. */
static int config_failed(SSL_CTX *ctx, char *err, size_t errlen, const char *what)
{
    bool memory = ERR_peek_error() == 0 || tls_errors_say_no_memory();
    ERR_clear_error();
    SSL_CTX_free(ctx);
    snprintf(err, errlen, "%s", memory ? lg_no_memory : what);
    return memory ? LG_NO_MEMORY : -1;
}

/* Why SSL_CTX_new failed. OpenSSL 3.0 reports a cipher fetch that ran out
 * of memory as "library has no ciphers", with no allocation failure in the
 * queue (SSL_CTX_new under tests/fixtures/failalloc.c, each of its 8,906
 * allocations failing in turn: 6 such of 2,969 tried). A library that has
 * none fetches none now either; one that ran out of memory mostly does.
 * Not always: a lock the first fetch could not allocate leaves the default
 * context fetching nothing for good (the whole torture's doh and mitm runs),
 * which is a configuration that loads no cipher seen from here. Neither is
 * the input's fault: that is status 4 and its reason, not a usage error. */
static int context_failed(char *err, size_t errlen)
{
    bool memory = ERR_peek_error() == 0 || tls_errors_say_no_memory();
    if (!memory) {
        EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, "AES-128-GCM", NULL);
        memory = cipher != NULL;
        EVP_CIPHER_free(cipher);
    }
    ERR_clear_error();
    snprintf(err, errlen, "%s",
             memory ? lg_no_memory
                    : "cannot create a TLS context: OpenSSL fetches no cipher (memory ran out "
                      "inside it, or its configuration loads no provider that has one); the run "
                      "could not be carried out");
    return memory ? LG_NO_MEMORY : LG_TLS_UNAVAILABLE;
}

int lg_tls_config_init(struct lg_tls_config *t, const char *cafile, bool insecure,
                       const unsigned char *alpn, size_t alpn_len, char *err, size_t errlen)
{
    lg_tlsmem_init(); /* before OpenSSL's first allocation */
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) return context_failed(err, errlen);
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1)
        return config_failed(ctx, err, errlen, "cannot require TLS 1.2 or later");
    /* Idle clients hold no TLS buffers: thousands of connections stay small
     * (the buffers freed after each record are kept for the next by tlsmem.c) */
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE |
                              SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* One recv takes every record the socket holds (not a header and a body
     * per record): with several streams a read event brings several. */
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    /* A peer that closes the TCP connection without close_notify has closed
     * it all the same: eof, as over cleartext (the driver's framing still catches a
     * cut response), not a reset. */
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    if (!insecure) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        /* it fails only when memory runs out (a missing store is no failure) */
        if (SSL_CTX_set_default_verify_paths(ctx) != 1)
            return config_failed(ctx, err, errlen, "cannot use the system's certificates");
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    }
    if (cafile && SSL_CTX_load_verify_locations(ctx, cafile, NULL) != 1) {
        bool memory = cafile_load_says_no_memory(); /* empties the queue */
        SSL_CTX_free(ctx);
        if (memory) {
            snprintf(err, errlen, "%s", lg_no_memory);
            return LG_NO_MEMORY;
        }
        snprintf(err, errlen, "--cacert %s: not a readable PEM certificate file", cafile);
        return -1;
    }
    if (alpn && alpn_len && SSL_CTX_set_alpn_protos(ctx, alpn, (unsigned)alpn_len) != 0)
        return config_failed(ctx, err, errlen, "cannot set the ALPN protocols");
    t->ctx = ctx;
    /* I/O calls do not clear the error queue first (see tls_read): start empty */
    ERR_clear_error();
    return 0;
}

int lg_tls_setup(struct lg_tls_config *t, const struct lg_tls_options *o, const char *host,
                 const unsigned char *alpn, size_t alpn_len, char *err, size_t errlen)
{
    int rc = lg_tls_config_init(t, o->cacert, o->insecure, alpn, alpn_len, err, errlen);
    if (rc < 0) return rc;
    lg_tls_name(t, o, host);
    t->resume = o->resume;
    t->max_handshakes = o->max_handshakes;
    return 0;
}

void lg_tls_name(struct lg_tls_config *t, const struct lg_tls_options *o, const char *host)
{
    unsigned char addr[sizeof(struct in6_addr)];
    bool ip = inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
    t->sni = o->sni ? o->sni : (ip ? NULL : host);
    t->verify_host = o->insecure ? NULL : (o->sni ? o->sni : host);
}

void lg_tls_config_free(struct lg_tls_config *t)
{
    SSL_CTX_free(t->ctx);
    t->ctx = NULL;
}

const char *lg_tls_version(void)
{
    return OpenSSL_version(OPENSSL_VERSION);
}

void lg_tls_session_free(void *session)
{
    SSL_SESSION_free(session);
}

/* A failure of the session: counted in `cls`, unless memory ran out, which
 * is no fault of the target and fails the run. */
static void tls_fail(struct lg_client *c, int cls, const char *what)
{
    char detail[256];
    unsigned long e = ERR_peek_last_error();
    if (e)
        snprintf(detail, sizeof(detail), "%s: %s", what, ERR_reason_error_string(e));
    else
        snprintf(detail, sizeof(detail), "%s", what);
    if (tls_errors_say_no_memory()) lg_fail_run(c, "out of memory in a TLS session");
    lg_conn_fail(c, cls, detail);
}

/* --- the handshake stage -------------------------------------------------- */

static enum lg_step tls_handshake_step(struct lg_client *c)
{
    SSL *ssl = c->tls;
    ERR_clear_error();
    int rc = SSL_do_handshake(ssl);
    if (rc == 1) {
        c->tls_resumed = SSL_session_reused(ssl) == 1;
        if (c->tls_resumed) c->w->store.counters[LG_C_TLS_RESUMED]++;
        /* passed through as bytes: the driver knows its protocols' names */
        const unsigned char *proto = NULL;
        unsigned len = 0;
        SSL_get0_alpn_selected(ssl, &proto, &len);
        c->alpn = len ? proto : NULL;
        c->alpn_len = len;
        return LG_STEP_DONE;
    }
    switch (SSL_get_error(ssl, rc)) {
    case SSL_ERROR_WANT_READ:
        return LG_STEP_WANT_READ;
    case SSL_ERROR_WANT_WRITE:
        return LG_STEP_WANT_WRITE;
    default:
        break;
    }
    long vr = SSL_get_verify_result(ssl);
    if (vr != X509_V_OK) {
        char detail[256];
        snprintf(detail, sizeof(detail), "certificate not trusted: %s",
                 X509_verify_cert_error_string(vr));
        ERR_clear_error();
        lg_conn_fail(c, LG_ERR_TLS_VERIFY, detail);
    } else if (ERR_peek_last_error() == 0 && (errno == ECONNRESET || rc == 0)) {
        ERR_clear_error();
        lg_conn_fail(c, LG_ERR_TLS_HANDSHAKE,
                     "the server closed the connection during the handshake");
    } else {
        tls_fail(c, LG_ERR_TLS_HANDSHAKE, "handshake failed");
    }
    return LG_STEP_FAILED;
}

static enum lg_step tls_handshake_start(struct lg_client *c)
{
    const struct lg_tls_config *t = c->tgt->tls;
    SSL *ssl = SSL_new(t->ctx);
    if (!ssl || SSL_set_fd(ssl, c->fd) != 1) {
        SSL_free(ssl);
        tls_fail(c, LG_ERR_TLS_HANDSHAKE, "cannot create a TLS session");
        return LG_STEP_FAILED;
    }
    /* Both fail only when memory runs out; going on would send no SNI or,
     * worse, verify no name: the connection fails instead. */
    if (t->sni && SSL_set_tlsext_host_name(ssl, t->sni) != 1) {
        SSL_free(ssl);
        lg_conn_fail(c, LG_ERR_TLS_HANDSHAKE, "cannot set the server name (SNI) of a TLS session");
        return LG_STEP_FAILED;
    }
    if (t->verify_host) {
        /* An IP literal is checked against the certificate's IP addresses. */
        X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
        if (X509_VERIFY_PARAM_set1_ip_asc(param, t->verify_host) != 1 &&
            SSL_set1_host(ssl, t->verify_host) != 1) {
            SSL_free(ssl);
            lg_conn_fail(c, LG_ERR_TLS_HANDSHAKE,
                         "cannot set the name the server's certificate must match");
            return LG_STEP_FAILED;
        }
    }
    if (t->resume && c->established > 0) { /* a connection of this client was set up before */
        /* counted so that a server that never resumes can be named (run.c) */
        struct lg_store *st = &c->w->store;
        st->tls_rehandshakes++;
        /* a session is the last origin's: another origin's server cannot
         * resume it (and should not be offered it) */
        if (c->tls_session && c->ready_tgt == c->tgt && SSL_SESSION_is_resumable(c->tls_session)) {
            st->tls_sessions_offered++;
            SSL_set_session(ssl, c->tls_session);
        }
    }
    SSL_set_connect_state(ssl);
    c->tls = ssl;
    return tls_handshake_step(c);
}

const struct lg_stage lg_stage_tls = {
    .name = "tls",
    .phase_series = LG_S_TLS_HANDSHAKE,
    .timeout_class = LG_ERR_TLS_HANDSHAKE,
    .timeout_detail = "the TLS handshake did not finish",
    .start = tls_handshake_start,
    .step = tls_handshake_step,
};

/* --- the transport ----------------------------------------------------- */

static int tls_open(struct lg_client *c)
{
    return lg_transport_stream.open(c);
}

static ssize_t tls_read(struct lg_client *c, uint8_t *buf, size_t len)
{
    SSL *ssl = c->tls;
    /* No ERR_clear_error() here: it costs hundreds of instructions per
     * call, and every path that leaves an error in the queue clears it. */
    int n = SSL_read(ssl, buf, (int)(len > 1u << 30 ? 1u << 30 : len));
    if (n > 0) return n;
    switch (SSL_get_error(ssl, n)) {
    case SSL_ERROR_WANT_READ:
        return LG_IO_AGAIN;
    case SSL_ERROR_WANT_WRITE:
        return LG_IO_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN:
        return LG_IO_EOF; /* close_notify, or a TCP close without it */
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_last_error() == 0 && n == 0) return LG_IO_EOF;
        ERR_clear_error();
        lg_conn_fail(c, LG_ERR_RESET, errno ? strerror(errno) : "TLS read failed");
        return LG_IO_ERROR;
    default:
        tls_fail(c, LG_ERR_RESET, "TLS error");
        return LG_IO_ERROR;
    }
}

static bool tls_more(const struct lg_client *c, size_t n, size_t len)
{
    /* records read ahead wait in OpenSSL's buffer, where epoll cannot see them */
    return n == len || SSL_has_pending(c->tls);
}

/* Writes from buf until it is all out or the session must wait; what is left
 * waits in the queue (OpenSSL accepts the retry from another address). */
static int tls_write_some(struct lg_client *c, const uint8_t *buf, size_t len, size_t *done)
{
    SSL *ssl = c->tls;
    *done = 0;
    while (*done < len) {
        size_t left = len - *done;
        int n = SSL_write(ssl, buf + *done, (int)(left > 1u << 30 ? 1u << 30 : left));
        if (n > 0) {
            *done += (size_t)n;
            continue;
        }
        switch (SSL_get_error(ssl, n)) {
        case SSL_ERROR_WANT_WRITE:
            return LG_IO_WANT_WRITE;
        case SSL_ERROR_WANT_READ:
            return LG_IO_WANT_READ;
        default:
            tls_fail(c, LG_ERR_SEND, "TLS write failed");
            return LG_IO_ERROR;
        }
    }
    return LG_IO_DONE;
}

static int tls_send(struct lg_client *c, const uint8_t *buf, size_t len)
{
    if (c->outq_len) return lg_outq_append(c, buf, len) < 0 ? LG_IO_ERROR : LG_IO_WANT_WRITE;
    size_t done;
    int rc = tls_write_some(c, buf, len, &done);
    if (rc == LG_IO_DONE || rc == LG_IO_ERROR) return rc;
    return lg_outq_append(c, buf + done, len - done) < 0 ? LG_IO_ERROR : rc;
}

static int tls_flush(struct lg_client *c)
{
    size_t done;
    int rc = tls_write_some(c, c->outq + c->outq_off, c->outq_len - c->outq_off, &done);
    c->outq_off += done;
    if (rc == LG_IO_DONE) c->outq_off = c->outq_len = 0;
    return rc;
}

static void tls_close(struct lg_client *c)
{
    SSL *ssl = c->tls;
    if (!ssl) return;
    if (c->tgt->tls->resume && SSL_is_init_finished(ssl)) {
        SSL_SESSION *s = SSL_get1_session(ssl);
        if (s) {
            if (c->tls_session) SSL_SESSION_free(c->tls_session);
            c->tls_session = s;
        }
        /* SSL_free marks the session of a connection that sent no
         * close_notify as not resumable (RFC 2246's rule against resuming
         * a connection that may have been cut; TLS 1.1 dropped it): then no
         * session would ever be offered. The handshake completed, so the
         * session is good; it is kept without the write of a close_notify. */
        SSL_set_shutdown(ssl, SSL_get_shutdown(ssl) | SSL_SENT_SHUTDOWN);
    }
    SSL_free(ssl);
    c->tls = NULL;
}

const struct lg_transport lg_transport_tls = {
    .name = "tls",
    .open = tls_open,
    .read = tls_read,
    .more = tls_more,
    .send = tls_send,
    .flush = tls_flush,
    .close = tls_close,
};
