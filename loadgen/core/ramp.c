/* --ramp: when each client of a level begins, and the closed loop's timer
 * that begins them at their moments. The open loop needs no timer: its
 * schedule leaves out a client's requests due before its moment
 * (schedule.c). See ramp.h. */
#include "loadgen/core/ramp.h"
#include "loadgen/core/internal.h"

uint64_t lg_ramp_offset_ns(uint64_t ramp_ns, unsigned id, unsigned clients)
{
    if (clients == 0) return 0;
    /* ramp * id / clients exactly, without the product: an hour's ramp
     * (3.6e12 ns) times ten million clients overflows 64 bits, and not
     * every target has a 128-bit integer (ramp = q * clients + r, r * id
     * stays below 1e14) */
    uint64_t q = ramp_ns / clients, r = ramp_ns % clients;
    return q * id + r * id / clients;
}

uint64_t lg_ramp_begin_ns(const struct lg_worker *w, const struct lg_client *c)
{
    return w->level_start_ns + lg_ramp_offset_ns(w->cfg->ramp_ns, c->id, w->level_clients);
}

/* Begins every client whose moment has passed (a worker's clients are in
 * the order of their ids, so of their moments), then sleeps until the
 * next one's. */
static void begin_due(struct lg_worker *w)
{
    if (w->draining || w->stopped) return; /* no request starts any more */
    uint64_t now = lg_now_ns();
    unsigned from = w->ramp_next, to = from;
    while (to < w->n_clients && lg_ramp_begin_ns(w, &w->clients[to]) <= now)
        to++;
    w->ramp_next = lg_worker_begin_clients(w, from, to);
    if (w->ramp_next < to) return; /* interrupted, or the run failed */
    if (w->ramp_next >= w->n_clients || w->draining || w->stopped) return;
    uint64_t next = lg_ramp_begin_ns(w, &w->clients[w->ramp_next]);
    now = lg_now_ns();
    ev_timer_set(&w->ramp_timer, next > now ? (double)(next - now) / 1e9 : 0., 0.);
    ev_timer_start(w->loop, &w->ramp_timer);
}

static void on_ramp_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct lg_worker *w = t->data;
    w->event_ns = 0;
    begin_due(w);
    lg_worker_maybe_finish(w);
}

void lg_ramp_start(struct lg_worker *w)
{
    ev_init(&w->ramp_timer, on_ramp_timer);
    w->ramp_timer.data = w;
    w->ramp_next = 0;
    begin_due(w);
}

void lg_ramp_stop(struct lg_worker *w)
{
    ev_timer_stop(w->loop, &w->ramp_timer);
}
