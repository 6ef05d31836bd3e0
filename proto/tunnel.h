/* The proxy tunnel stage of a connection: send CONNECT, read the proxy's
 * reply up to its blank line, and refuse anything but 2xx as proxy_refused.
 * What the stage keeps per client while it runs. */
#ifndef PROTO_TUNNEL_H
#define PROTO_TUNNEL_H

#include <stdint.h>

struct lg_stage;

struct lg_tunnel_state {
    uint32_t sent; /* bytes of the CONNECT request written */
    uint32_t got;  /* bytes of the proxy's reply read */
    uint8_t match; /* how much of "\r\n\r\n" the reply ends with */
    char head[16]; /* start of the reply: "HTTP/1.1 200" */
};

/* The stage itself: a tool that tunnels puts it in its target (lg_target's
 * tunnel, with the request bytes in tunnel_request). */
extern const struct lg_stage lg_stage_tunnel;

#endif
