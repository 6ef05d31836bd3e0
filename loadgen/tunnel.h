/* The proxy tunnel stage of a connection: send CONNECT, read the proxy's
 * reply, and refuse anything but 2xx as a proxy_refused error. */
#ifndef LOADGEN_TUNNEL_H
#define LOADGEN_TUNNEL_H

struct lg_client;

int lg_tunnel_send(struct lg_client *c);
/* 1: the tunnel is open; 0: more of the reply is needed; -1: failed. */
int lg_tunnel_on_readable(struct lg_client *c);

#endif
