/* bench/floor: a stream connection (non-blocking TCP, then TLS with the
 * settings of loadgen/transport/tls.c), set up step by step from the epoll loop, and
 * read and written with one call each. */
#define _GNU_SOURCE
#include "floor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

SSL_CTX *floor_tls_ctx(const struct floor_args *a, const unsigned char *alpn, size_t alpn_len)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) return NULL;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE |
                              SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_default_verify_paths(ctx);
    if (a->cafile && SSL_CTX_load_verify_locations(ctx, a->cafile, NULL) != 1) {
        fprintf(stderr, "floor: --cacert %s: not a PEM certificate file\n", a->cafile);
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (alpn && SSL_CTX_set_alpn_protos(ctx, alpn, (unsigned)alpn_len) != 0) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

int floor_sock_open(struct floor *f, struct floor_sock *s, void *conn)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)f->a->port)};
    if (inet_pton(AF_INET, f->a->host, &sa.sin_addr) != 1) {
        fprintf(stderr, "floor: %s is not an IPv4 address\n", f->a->host);
        return -1;
    }
    s->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->fd < 0) {
        perror("floor: socket");
        return -1;
    }
    int one = 1;
    setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(s->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
        perror("floor: connect");
        return -1;
    }
    s->events = EPOLLOUT;
    return floor_watch(f, s->fd, conn, s->events, true);
}

static int want(struct floor *f, struct floor_sock *s, void *conn, uint32_t events)
{
    if (s->events == events) return 0;
    s->events = events;
    return floor_watch(f, s->fd, conn, events, false);
}

int floor_sock_setup(struct floor *f, struct floor_sock *s, void *conn)
{
    if (!s->connected) {
        int err = 0;
        socklen_t len = sizeof(err);
        getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err) {
            floor_error(f, strerror(err));
            return -1;
        }
        s->connected = true;
        if (f->tls) {
            s->ssl = SSL_new(f->tls);
            if (!s->ssl || SSL_set_fd(s->ssl, s->fd) != 1 ||
                X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s->ssl), f->a->host) != 1) {
                floor_error(f, "cannot make a TLS session");
                return -1;
            }
            SSL_set_connect_state(s->ssl);
        }
    }
    if (s->ssl) {
        int rc = SSL_do_handshake(s->ssl);
        if (rc != 1) {
            int e = SSL_get_error(s->ssl, rc);
            if (e == SSL_ERROR_WANT_READ) return want(f, s, conn, EPOLLIN) < 0 ? -1 : 0;
            if (e == SSL_ERROR_WANT_WRITE) return want(f, s, conn, EPOLLOUT) < 0 ? -1 : 0;
            floor_error(f, "TLS handshake failed");
            ERR_clear_error();
            return -1;
        }
    }
    s->ready = true;
    f->connected++;
    return want(f, s, conn, EPOLLIN) < 0 ? -1 : 1;
}

ssize_t floor_sock_read(struct floor_sock *s, uint8_t *buf, size_t len)
{
    if (s->ssl) {
        int n = SSL_read(s->ssl, buf, (int)len);
        if (n > 0) return n;
        int e = SSL_get_error(s->ssl, n);
        if (e == SSL_ERROR_WANT_READ) return -1;
        if (e == SSL_ERROR_ZERO_RETURN) return 0;
        ERR_clear_error();
        return -2;
    }
    ssize_t n = recv(s->fd, buf, len, 0);
    if (n >= 0) return n;
    return errno == EAGAIN ? -1 : -2;
}

bool floor_sock_more(const struct floor_sock *s, size_t n, size_t len)
{
    return n == len || (s->ssl && SSL_has_pending(s->ssl));
}

int floor_sock_write(struct floor_sock *s, const void *buf, size_t len)
{
    if (s->ssl) return SSL_write(s->ssl, buf, (int)len) == (int)len ? 0 : -1;
    return send(s->fd, buf, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

void floor_sock_close(struct floor_sock *s)
{
    SSL_free(s->ssl);
    s->ssl = NULL;
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    s->ready = false;
}

int floor_sock_connect_now(struct floor *f)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)f->a->port)};
    if (inet_pton(AF_INET, f->a->host, &sa.sin_addr) != 1) {
        fprintf(stderr, "floor: %s is not an IPv4 address\n", f->a->host);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        perror("floor: socket");
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        perror("floor: connect");
        close(fd);
        return -1;
    }
    return fd;
}
