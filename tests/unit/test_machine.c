/* The machine description's parsers, on text as the kernel writes it: CPU
 * lists, /proc/meminfo, /proc/cpuinfo of x86 and ARM, reserved port lists,
 * /proc/self/cgroup of cgroup v1 and v2; and /proc/stat's CPU lines and the
 * timer burst's quantiles; the churn probe on this host's loopback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include <sys/resource.h>

#include "loadgen/preflight/churnprobe.h"
#include "loadgen/preflight/machine.h"
#include "loadgen/preflight/strays.h"
#include "loadgen/preflight/timerfloor.h"

static void cpu_lists_both_ways(void **state)
{
    cpu_set_t set;
    assert_int_equal(lg_machine_parse_cpulist("0-3,8,10-11\n", &set), 0);
    assert_int_equal(CPU_COUNT(&set), 7);
    assert_true(CPU_ISSET(3, &set) && CPU_ISSET(8, &set) && CPU_ISSET(11, &set));
    assert_false(CPU_ISSET(4, &set) || CPU_ISSET(9, &set));
    char buf[64];
    lg_machine_format_cpulist(&set, buf, sizeof(buf));
    assert_string_equal(buf, "0-3,8,10-11");
    assert_int_equal(lg_machine_parse_cpulist("5", &set), 0);
    lg_machine_format_cpulist(&set, buf, sizeof(buf));
    assert_string_equal(buf, "5");
    const char *bad[] = {"a", "3-1", "1,,2", "0-", "1 2", "99999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(lg_machine_parse_cpulist(bad[i], &set), -1);
    /* a list longer than the buffer ends in "..." and stays within it */
    CPU_ZERO(&set);
    for (int c = 0; c < 64; c += 2)
        CPU_SET(c, &set);
    char small[16];
    lg_machine_format_cpulist(&set, small, sizeof(small));
    assert_true(strlen(small) < sizeof(small));
    assert_non_null(strstr(small, "..."));
}

static void meminfo_total_and_available(void **state)
{
    const char *text = "MemTotal:       24683548 kB\nMemFree:        23858632 kB\n"
                       "MemAvailable:   24239532 kB\nBuffers:           12 kB\n";
    uint64_t total = UINT64_MAX, avail = UINT64_MAX; /* set by the parse; LTO cannot see it */
    assert_int_equal(lg_machine_parse_meminfo(text, &total, &avail), 0);
    assert_int_equal(total, 24683548ull * 1024);
    assert_int_equal(avail, 24239532ull * 1024);
    /* kernels before 3.14 have no MemAvailable: unknown, not zero */
    assert_int_equal(lg_machine_parse_meminfo("MemTotal: 1 kB\nMemFree: 1 kB\n", &total, &avail),
                     -1);
}

static void cpu_model_of_x86_and_arm(void **state)
{
    char model[128];
    const char *x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\n"
                      "model\t\t: 2\nmodel name\t: AMD EPYC 9B45  \nstepping\t: 1\n";
    assert_int_equal(lg_machine_parse_cpu_model(x86, model, sizeof(model)), 0);
    assert_string_equal(model, "AMD EPYC 9B45");
    const char *arm = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n\n"
                      "Hardware\t: BCM2835\n";
    assert_int_equal(lg_machine_parse_cpu_model(arm, model, sizeof(model)), 0);
    assert_string_equal(model, "BCM2835");
    assert_int_equal(lg_machine_parse_cpu_model("processor\t: 0\n", model, sizeof(model)), -1);
}

static void reserved_ports_inside_the_range(void **state)
{
    assert_int_equal(lg_machine_reserved_in_range("", 32768, 60999), 0);
    assert_int_equal(lg_machine_reserved_in_range("\n", 32768, 60999), 0);
    assert_int_equal(lg_machine_reserved_in_range("8080,40000-40009,60999\n", 32768, 60999), 11);
    assert_int_equal(lg_machine_reserved_in_range("32000-32777", 32768, 60999), 10);
}

static void memory_cgroup_v1_and_v2(void **state)
{
    char path[256];
    bool v1;
    const char *hybrid = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/52b6\n"
                         "1:cpu,cpuacct:/\n0::/\n";
    assert_int_equal(lg_machine_parse_cgroup(hybrid, path, sizeof(path), &v1), 0);
    assert_true(v1);
    assert_string_equal(path, "/process_api/52b6");
    assert_int_equal(
        lg_machine_parse_cgroup("0::/user.slice/session-3.scope\n", path, sizeof(path), &v1), 0);
    assert_false(v1);
    assert_string_equal(path, "/user.slice/session-3.scope");
    assert_int_equal(lg_machine_parse_cgroup("4:memory,hugetlb:/a\n", path, sizeof(path), &v1), 0);
    assert_true(v1);
    assert_string_equal(path, "/a");
    assert_int_equal(lg_machine_parse_cgroup("8:pids:/\n", path, sizeof(path), &v1), -1);
}

static void proc_stat_cpu_lines(void **state)
{
    int cpu;
    uint64_t busy, total;
    const char *line = "cpu1 100 5 50 800 20 3 2 10 0 0";
    assert_int_equal(lg_strays_parse_cpu_line(line, strlen(line), &cpu, &busy, &total), 0);
    assert_int_equal(cpu, 1);
    assert_int_equal(total, 990);
    assert_int_equal(busy, 990 - 800 - 20); /* steal counts as busy */
    const char *all = "cpu  100 5 50 800 20 3 2 10 0 0";
    assert_int_equal(lg_strays_parse_cpu_line(all, strlen(all), &cpu, &busy, &total), -1);
    assert_int_equal(lg_strays_parse_cpu_line("intr 5", 6, &cpu, &busy, &total), -1);
    assert_int_equal(lg_strays_parse_cpu_line("cpu3 1 2", 8, &cpu, &busy, &total), -1);
}

static void timer_quantiles_by_nearest_rank(void **state)
{
    uint64_t v[100];
    for (unsigned i = 0; i < 100; i++)
        v[i] = i + 1;
    assert_int_equal(lg_timer_quantile(v, 100, 0.5), 50);
    assert_int_equal(lg_timer_quantile(v, 100, 0.99), 99);
    assert_int_equal(lg_timer_quantile(v, 7, 0.99), 7);
    assert_int_equal(lg_timer_quantile(v, 1, 0.5), 1);
    assert_int_equal(lg_timer_quantile(v, 0, 0.5), 0);
}

static void the_timer_burst_gives_ordered_quantiles(void **state)
{
    struct lg_timer_floor tf;
    assert_int_equal(lg_timer_floor_measure(&tf), 0);
    assert_true(tf.wakes > 0 && tf.wakes <= LG_TIMER_WAKES);
    assert_true(tf.p50_ns <= tf.p99_ns && tf.p99_ns <= tf.max_ns);
    assert_true(tf.took_ns > 0);
}

/* Both kinds measure all their connections or sockets, and the rate is
 * the inverse of the CPU per connection. */
static void the_churn_probe_measures_tcp_and_udp(void **state)
{
    (void)state;
    for (int datagram = 0; datagram < 2; datagram++) {
        struct lg_churn_probe p;
        lg_churn_probe_run(&p, datagram);
        assert_true(p.ok);
        assert_int_equal(p.datagram, datagram);
        assert_int_equal(p.conns, LG_CHURN_PROBE_CONNS);
        assert_true(p.cpu_us > 0);
        assert_true(p.conns_per_s * p.cpu_us > 0.999e6 && p.conns_per_s * p.cpu_us < 1.001e6);
    }
}

/* No descriptor to spare: not measured, and says why (the run uses the
 * reference figure). */
static void the_churn_probe_says_why_it_could_not_run(void **state)
{
    (void)state;
    struct rlimit old, none;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    none = old;
    none.rlim_cur = 3; /* stdin, stdout, stderr */
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &none), 0);
    struct lg_churn_probe p;
    lg_churn_probe_run(&p, false);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    assert_false(p.ok);
    assert_string_equal(p.error, strerror(EMFILE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_lists_both_ways),
        cmocka_unit_test(meminfo_total_and_available),
        cmocka_unit_test(cpu_model_of_x86_and_arm),
        cmocka_unit_test(reserved_ports_inside_the_range),
        cmocka_unit_test(memory_cgroup_v1_and_v2),
        cmocka_unit_test(proc_stat_cpu_lines),
        cmocka_unit_test(timer_quantiles_by_nearest_rank),
        cmocka_unit_test(the_timer_burst_gives_ordered_quantiles),
        cmocka_unit_test(the_churn_probe_measures_tcp_and_udp),
        cmocka_unit_test(the_churn_probe_says_why_it_could_not_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
