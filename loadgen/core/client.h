/* client.h — what the three files of a client call of each other: client.c
 * (its lifecycle and events), client_conn.c (its connection) and
 * client_slots.c (its requests). Internal to them; the rest of the engine
 * calls a client through internal.h. */
#ifndef LOADGEN_CORE_CLIENT_H
#define LOADGEN_CORE_CLIENT_H

#include "loadgen/core/internal.h"

/* client.c: which of the socket's events the client waits for. */
void lg_client_watch(struct lg_client *c, bool read, bool write);
/* client.c: reads what the ready connection has, until the socket is drained. */
void lg_client_read_ready(struct lg_client *c);

/* client_conn.c */
bool lg_client_wait_turn(struct lg_client *c);
void lg_conn_open(struct lg_client *c, uint64_t origin);
/* Sets c->tgt to where the driver's next request goes (drv->next_target). */
void lg_client_choose_target(struct lg_client *c);
void lg_conn_setup_continue(struct lg_client *c, enum lg_step st);
void lg_conn_close(struct lg_client *c);
void lg_conn_closed_midlevel(struct lg_client *c);
void lg_conn_abort(struct lg_client *c);

/* client_slots.c */
int lg_client_submit(struct lg_client *c, struct lg_req *r);
int lg_client_tp_flush(struct lg_client *c);
void lg_client_on_restart(struct ev_loop *loop, ev_timer *t, int revents);

/* A connection neither closed nor failed on the send path. */
static inline bool lg_conn_usable(const struct lg_client *c)
{
    return c->state == LG_CONN_READY && !c->abort_pending;
}

#endif
