/* Two runs in one process keep apart: each has its own run context (the
 * control thread's failure and signal state, the sampler's level, --watch's
 * trees, the clock reference's offset), so what one records, the other
 * never sees. Before the context these were process globals: the two
 * levels below would have shared one sampler (the second's start reset the
 * first's samples), and the second --watch would have sampled the first
 * run's process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "loadgen/core/clock.h"
#include "loadgen/engine.h"
#include "loadgen/output/results.h"
#include "loadgen/core/runctx.h"
#include "loadgen/core/start.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A process that waits to be killed: something for --watch to sample. */
static pid_t sleeper(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        pause();
        _exit(0);
    }
    return pid;
}

static void reap(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static void a_failure_stays_in_its_run(void **state)
{
    (void)state;
    struct lg_run_ctx a, b;
    lg_run_ctx_init(&a);
    lg_run_ctx_init(&b);
    lg_control_fail(&a, "the first run ran out of memory");
    assert_string_equal(lg_control_failure(&a), "the first run ran out of memory");
    assert_null(lg_control_failure(&b));
    lg_control_fail(&b, "the second run ran out of memory");
    assert_string_equal(lg_control_failure(&a), "the first run ran out of memory");
    assert_string_equal(lg_control_failure(&b), "the second run ran out of memory");
    assert_int_equal(lg_control_interrupted(&a), 0);
    assert_int_equal(lg_control_interrupted(&b), 0);
    lg_run_ctx_free(&a);
    lg_run_ctx_free(&b);
}

/* Each run reads the wall clock as its own --clock-ref does. */
static void each_run_has_its_clock_offset(void **state)
{
    (void)state;
    const int64_t ten_s = 10 * (int64_t)LG_NS_PER_S;
    struct lg_run_ctx a, b;
    lg_run_ctx_init(&a);
    lg_run_ctx_init(&b);
    lg_set_clock_offset(&a, ten_s);
    lg_set_clock_offset(&b, -ten_s);
    uint64_t before = lg_wall_ns();
    uint64_t ref_a = lg_ref_wall_ns(&a), ref_b = lg_ref_wall_ns(&b);
    uint64_t after = lg_wall_ns();
    assert_true(ref_a >= before - (uint64_t)ten_s && ref_a <= after - (uint64_t)ten_s);
    assert_true(ref_b >= before + (uint64_t)ten_s && ref_b <= after + (uint64_t)ten_s);
    lg_run_ctx_free(&a);
    lg_run_ctx_free(&b);
}

/* Both runs' control threads run at once, each with its own descriptors. */
static void both_control_threads_run_at_once(void **state)
{
    (void)state;
    struct lg_config cfg = {.tool = "test_runctx"};
    struct lg_run_ctx a, b;
    lg_run_ctx_init(&a);
    lg_run_ctx_init(&b);
    assert_int_equal(lg_control_start(&a, &cfg), 0);
    assert_int_equal(lg_control_start(&b, &cfg), 0);
    assert_true(a.control.running && b.control.running);
    assert_int_not_equal(a.control.wakefd, b.control.wakefd);
    assert_int_not_equal(a.control.sigfd, b.control.sigfd);
    lg_control_stop(&a);
    assert_false(a.control.running);
    assert_true(b.control.running);
    lg_control_stop(&b);
    lg_run_ctx_free(&a);
    lg_run_ctx_free(&b);
}

static size_t samples(const struct lg_level_result *r, const char *name)
{
    const struct lg_metric *m = lg_result_find(r, name);
    return m ? m->n : 0;
}

/* Two levels sampled at once, interleaved: a 2-second level of the first
 * run ticked twice, a 1-second level of the second run not at all; each
 * --watch samples the process it was given. */
static void each_run_samples_its_own_level(void **state)
{
    (void)state;
    pid_t first = sleeper(), second = sleeper();
    char arg[64];
    struct lg_config cfg_a = {.tool = "test_runctx", .duration_ns = 2 * LG_NS_PER_S};
    struct lg_config cfg_b = {.tool = "test_runctx", .duration_ns = 1 * LG_NS_PER_S};
    snprintf(arg, sizeof(arg), "first=%d", (int)first);
    lg_watch_option(&cfg_a, arg);
    snprintf(arg, sizeof(arg), "second=%d", (int)second);
    lg_watch_option(&cfg_b, arg);

    struct lg_run_ctx a, b;
    lg_run_ctx_init(&a);
    lg_run_ctx_init(&b);
    uint64_t now = lg_now_ns();
    lg_sampler_begin(&a, NULL, 0, 1, &cfg_a, now);
    lg_sampler_begin(&b, NULL, 0, 1, &cfg_b, now);
    lg_sampler_tick(&a);
    lg_sampler_tick(&a);
    struct lg_level_result res_a = {0}, res_b = {0};
    assert_int_equal(lg_sampler_collect(&b, &res_b), 0);
    assert_int_equal(lg_sampler_collect(&a, &res_a), 0);
    lg_sampler_end(&a);
    lg_sampler_end(&b);

    /* the second run's collect adds the one sample of its 1-second level */
    assert_int_equal(samples(&res_a, "generator_cpu_s"), 2);
    assert_int_equal(samples(&res_b, "generator_cpu_s"), 1);
    assert_int_equal(samples(&res_a, "watch.first.cpu_s"), 2);
    assert_int_equal(samples(&res_a, "watch.second.cpu_s"), 0);
    assert_int_equal(samples(&res_b, "watch.second.cpu_s"), 1);
    assert_int_equal(samples(&res_b, "watch.first.cpu_s"), 0);
    assert_null(lg_control_failure(&a));
    assert_null(lg_control_failure(&b));

    lg_result_free(&res_a, 0);
    lg_result_free(&res_b, 0);
    lg_run_ctx_free(&a);
    lg_run_ctx_free(&b);
    lg_watch_free_specs(&cfg_a);
    lg_watch_free_specs(&cfg_b);
    reap(first);
    reap(second);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_failure_stays_in_its_run),
        cmocka_unit_test(each_run_has_its_clock_offset),
        cmocka_unit_test(both_control_threads_run_at_once),
        cmocka_unit_test(each_run_samples_its_own_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
