/* The wake watch (wakewatch.h). A loop's sleep sequence is odd while it
 * sleeps; a sample that finds the same odd sequence and work waiting as the
 * one before adds the time between them, so only a sleep on work that lasted
 * a whole period counts, never the moment a wake-up takes. */
#include "loadgen/watching/wakewatch.h"
#include "loadgen/core/internal.h"

/* Only the loop's thread writes the sequence: a plain store, no locked
 * read-modify-write, twice a turn of the loop. */
static void mark(struct lg_worker *w)
{
    uint32_t seq = atomic_load_explicit(&w->sleep_seq, memory_order_relaxed);
    atomic_store_explicit(&w->sleep_seq, seq + 1, memory_order_release);
}

static void on_sleep_prepare(struct ev_loop *loop, ev_prepare *p, int revents)
{
    mark(p->data);
}

static void on_sleep_check(struct ev_loop *loop, ev_check *c, int revents)
{
    mark(c->data);
}

void lg_wakewatch_loop_start(struct lg_worker *w)
{
    atomic_store(&w->sleep_seq, 0);
    /* a transport that cannot say work waits is never looked at: its loop
     * marks nothing (httpload, plain sockets) */
    if (!w->tp->work_waiting) return;
    ev_prepare_init(&w->sleep_prepare, on_sleep_prepare);
    ev_check_init(&w->sleep_check, on_sleep_check);
    w->sleep_prepare.data = w->sleep_check.data = w;
    /* the last prepare to run and the first check: closest to the sleep */
    ev_set_priority(&w->sleep_prepare, EV_MINPRI);
    ev_set_priority(&w->sleep_check, EV_MAXPRI);
    ev_prepare_start(w->loop, &w->sleep_prepare);
    ev_check_start(w->loop, &w->sleep_check);
    /* neither keeps the loop running */
    ev_unref(w->loop);
    ev_unref(w->loop);
}

void lg_wakewatch_loop_stop(struct lg_worker *w)
{
    if (!ev_is_active(&w->sleep_prepare)) return;
    ev_ref(w->loop);
    ev_ref(w->loop);
    ev_prepare_stop(w->loop, &w->sleep_prepare);
    ev_check_stop(w->loop, &w->sleep_check);
    /* even: awake, whatever the last turn left */
    uint32_t seq = atomic_load(&w->sleep_seq);
    if (seq & 1) atomic_store(&w->sleep_seq, seq + 1);
}

bool lg_wakewatch_begin(struct lg_worker *ws, unsigned n)
{
    bool any = false;
    for (unsigned i = 0; i < n; i++) {
        ws[i].asleep_on_work_ns = 0;
        ws[i].ww_seq = 0;
        ws[i].ww_waiting = false;
        any |= ws[i].tp->work_waiting != NULL;
    }
    return any;
}

void lg_wakewatch_sample(struct lg_worker *ws, unsigned n, uint64_t now)
{
    for (unsigned i = 0; i < n; i++) {
        struct lg_worker *w = &ws[i];
        uint32_t seq = atomic_load_explicit(&w->sleep_seq, memory_order_acquire);
        bool waiting = false;
        if ((seq & 1) && w->tp->work_waiting) {
            lg_wakewatch_lock(w);
            waiting = w->tp_state && w->tp->work_waiting(w);
            lg_wakewatch_unlock(w);
        }
        if (waiting && w->ww_waiting && seq == w->ww_seq) w->asleep_on_work_ns += now - w->ww_at_ns;
        w->ww_seq = seq;
        w->ww_waiting = waiting;
        w->ww_at_ns = now;
    }
}

void lg_wakewatch_lock(struct lg_worker *w)
{
    pthread_mutex_lock(&w->ww_mu);
}

void lg_wakewatch_unlock(struct lg_worker *w)
{
    pthread_mutex_unlock(&w->ww_mu);
}
