/* A transport is a small table of functions (wrk's struct sock): the client
 * code never asks whether it holds a plain socket or a TLS session. */
#ifndef LOADGEN_TRANSPORT_H
#define LOADGEN_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lg_client;

/* Results of read and write besides a byte count. */
enum {
    LG_IO_AGAIN = -1, /* would block; for TLS, want_write may be set */
    LG_IO_ERROR = -2, /* the connection failed: c->fail_class says why */
};

enum lg_handshake {
    LG_HS_DONE,
    LG_HS_WANT_READ,
    LG_HS_WANT_WRITE,
    LG_HS_FAILED, /* c->fail_class says why */
};

struct lg_transport {
    const char *name;
    /* Starts the protocol on a connected socket (TLS: creates the session). */
    int (*start)(struct lg_client *c);
    enum lg_handshake (*handshake)(struct lg_client *c);
    ssize_t (*read)(struct lg_client *c, uint8_t *buf, size_t len); /* 0 = EOF */
    ssize_t (*write)(struct lg_client *c, const uint8_t *buf, size_t len);
    /* Bytes already decrypted and waiting inside the transport. */
    bool (*pending)(const struct lg_client *c);
    void (*close)(struct lg_client *c);
};

extern const struct lg_transport lg_transport_plain;
extern const struct lg_transport lg_transport_tls;

/* TLS settings of a run, shared read-only by every thread (tls.c). */
struct lg_tls_config {
    void *ctx;               /* SSL_CTX * */
    const char *sni;         /* server name, or NULL to send none */
    const char *verify_host; /* name the certificate must match, or NULL with --insecure */
    bool resume;             /* reuse a client's session across its reconnects */
};

/* Builds the SSL_CTX: system store plus cafile, verification unless insecure,
 * ALPN list in wire format (may be NULL). Returns -1 with a message in err. */
int lg_tls_config_init(struct lg_tls_config *t, const char *cafile, bool insecure,
                       const unsigned char *alpn, size_t alpn_len, char *err, size_t errlen);
void lg_tls_config_free(struct lg_tls_config *t);
struct lg_tls_options;
/* lg_tls_config_init from the shared options for a server called `host` (a
 * name or an IP literal): SNI is --sni, else the host when it is a name; the
 * certificate must match --sni, else the host, unless --insecure. */
int lg_tls_setup(struct lg_tls_config *t, const struct lg_tls_options *o, const char *host,
                 const unsigned char *alpn, size_t alpn_len, char *err, size_t errlen);
void lg_tls_session_free(void *session);
/* Library version for --meta. */
const char *lg_tls_version(void);

#endif
