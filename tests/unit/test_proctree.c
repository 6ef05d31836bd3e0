/* The process trees --watch samples: the walk through each task's children
 * files finds the same tree as the pass over every process, including a
 * child forked by a thread other than the main one (listed only in that
 * thread's children file). */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "loadgen/watching/control.h"
#include "loadgen/watching/proctree.h"

/* proctree.c reports running out of memory to the control thread */
static const char *failure;
void lg_control_fail(struct lg_run_ctx *run, const char *why)
{
    (void)run;
    failure = why;
}

static void *fork_from_thread(void *arg)
{
    (void)arg;
    if (fork() == 0) pause();
    return NULL;
}

/* A process with two children: one forked by its main thread, one by a
 * second thread. Runs until killed. */
static pid_t start_tree(void)
{
    pid_t root = fork();
    if (root != 0) return root;
    if (fork() == 0) pause();
    pthread_t t;
    pthread_create(&t, NULL, fork_from_thread, NULL);
    pthread_join(t, NULL);
    pause();
    _exit(0);
}

/* The pids of the tree under root, sorted, from a scan by either method. */
static size_t tree_pids(struct lg_proctree *pt, pid_t root, int *out, size_t max)
{
    int roots[1] = {root};
    lg_proctree_scan(pt, roots, 1);
    long r = lg_proctree_find(pt, root);
    if (r < 0) return 0;
    size_t n = lg_proctree_walk(pt, (size_t)r);
    if (n > max) n = max;
    for (size_t i = 0; i < n; i++)
        out[i] = pt->rows[pt->queue[i]].pid;
    for (size_t i = 1; i < n; i++) /* insertion sort: a handful */
        for (size_t k = i; k > 0 && out[k - 1] > out[k]; k--) {
            int x = out[k];
            out[k] = out[k - 1];
            out[k - 1] = x;
        }
    return n;
}

static void children_walk_equals_the_host_scan(void **state)
{
    (void)state;
    struct lg_proctree pt = {0};
    assert_int_equal(lg_proctree_open(&pt), 0);
    /* without children files (a kernel without CONFIG_PROC_CHILDREN) both
     * scans are the host scan, which must still find the tree */
    if (!pt.by_children) print_message("no children files here: the host scan serves both\n");
    pid_t root = start_tree();
    assert_true(root > 0);
    int by_children[8], by_host[8];
    size_t nc = 0, nh = 0;
    /* the children appear once forked: wait for both, up to 5 s */
    for (int i = 0; i < 500 && nh < 3; i++) {
        pt.whole_host = true;
        nh = tree_pids(&pt, root, by_host, 8);
        if (nh < 3) nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    pt.whole_host = false;
    nc = tree_pids(&pt, root, by_children, 8);
    pt.whole_host = true;
    nh = tree_pids(&pt, root, by_host, 8);
    for (size_t i = 0; i < nh; i++)
        if (by_host[i] != root) kill(by_host[i], SIGKILL);
    kill(root, SIGKILL);
    waitpid(root, NULL, 0);
    assert_int_equal(nh, 3);
    assert_int_equal(nc, nh);
    assert_memory_equal(by_children, by_host, nh * sizeof(int));
    /* the children walk read the tree alone, not the host */
    assert_null(failure);
    lg_proctree_close(&pt);
}

static void a_missing_root_gives_no_tree(void **state)
{
    (void)state;
    struct lg_proctree pt = {0};
    assert_int_equal(lg_proctree_open(&pt), 0);
    pid_t gone = fork();
    if (gone == 0) _exit(0);
    waitpid(gone, NULL, 0);
    int roots[1] = {gone};
    lg_proctree_scan(&pt, roots, 1);
    assert_int_equal(lg_proctree_find(&pt, gone), -1);
    assert_int_equal(pt.n_rows, 0);
    lg_proctree_close(&pt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(children_walk_equals_the_host_scan),
        cmocka_unit_test(a_missing_root_gives_no_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
