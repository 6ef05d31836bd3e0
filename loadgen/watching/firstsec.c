/* The first second of a level. See firstsec.h. */
#include "loadgen/watching/firstsec.h"
#include "loadgen/core/internal.h"
#include "loadgen/core/runctx.h"
#include "loadgen/watching/control.h"

#include <stdio.h>

void lg_firstsec_publish(struct lg_worker *w, bool whole)
{
    if (w->first_sec_sent) return;
    w->first_sec_sent = true;
    const struct lg_store *st = &w->store;
    struct lg_first_second *fs = &w->first_sec;
    fs->requests = st->counters[LG_C_REQUESTS];
    fs->errors = st->counters[LG_C_ERRORS];
    fs->whole = whole;
    fs->cls = 0;
    fs->cls_errors = 0;
    for (unsigned cls = 1; cls < w->n_classes; cls++)
        if (st->errors[cls] > fs->cls_errors) {
            fs->cls = (int)cls;
            fs->cls_errors = st->errors[cls];
        }
    /* the reason's text lives until the level's store is freed, after the
     * control thread has let go of the level; the pointer is read now */
    fs->detail = fs->cls ? st->error_detail[fs->cls] : NULL;
    atomic_store_explicit(&w->first_sec_ready, true, memory_order_release);
    lg_control_wake(w->run);
}

/* "errors.connect_refused (Connection refused)", with the class's hint. */
static void class_text(const struct lg_worker *w, const struct lg_first_second *fs, char *buf,
                       size_t len)
{
    const char *detail = fs->detail ? fs->detail : lg_error_description(w->drv, (unsigned)fs->cls);
    const char *hint = lg_error_hint(w->drv, (unsigned)fs->cls);
    snprintf(buf, len, "errors.%s (%s%s%s)", lg_error_name(w->drv, (unsigned)fs->cls), detail,
             hint ? "; " : "", hint ? hint : "");
}

bool lg_firstsec_check(struct lg_run_ctx *run)
{
    struct lg_control *ctl = &run->control;
    if (ctl->first_sec_checked || !ctl->ws || lg_control_interrupted(run) ||
        lg_control_failure(run))
        return false;
    uint64_t requests = 0, errors = 0;
    const struct lg_first_second *most = NULL;
    const struct lg_worker *most_w = NULL;
    bool whole = true;
    for (unsigned i = 0; i < ctl->n; i++) {
        const struct lg_worker *w = &ctl->ws[i];
        if (!atomic_load_explicit(&w->first_sec_ready, memory_order_acquire)) return false;
        requests += w->first_sec.requests;
        errors += w->first_sec.errors;
        whole &= w->first_sec.whole;
        if (w->first_sec.cls && (!most || w->first_sec.cls_errors > most->cls_errors)) {
            most = &w->first_sec;
            most_w = w;
        }
    }
    ctl->first_sec_checked = true;
    if (requests > 0 || errors == 0 || !most) return false;
    const struct lg_config *cfg = ctl->ws[0].cfg;
    char cls[400];
    class_text(most_w, most, cls, sizeof(cls));
    /* a progress line on the terminal is cleared first: this one stays; a
     * level shorter than a second has ended by now, and does not go on */
    fprintf(stderr, "%s%s: level c%u: no request succeeded in %s: %llu failed, most of them %s%s\n",
            run->sampler.shown ? "\r\033[K" : "", cfg->tool, ctl->ws[0].level_clients,
            whole ? "its first second" : "the time it ran", (unsigned long long)errors, cls,
            cfg->fail_fast ? "; --fail-fast ends the run here"
            : whole        ? "; the level goes on (--fail-fast would end the run here)"
                           : " (--fail-fast would have ended the run here)");
    return cfg->fail_fast;
}
