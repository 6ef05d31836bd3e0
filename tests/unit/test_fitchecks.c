/* The preflight's checks on machines described by hand: each verdict (ok,
 * warn, unfit) and the figures its line names, without touching the host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loadgen/engine.h"
#include "loadgen/preflight/fitchecks.h"

static unsigned one_level[] = {4};

/* A roomy machine: 2 CPUs, 16 GiB, the default port range, no conntrack. */
static void roomy(struct lg_machine *m)
{
    memset(m, 0, sizeof(*m));
    m->logical_cpus = m->physical_cores = 2;
    m->smt = 0;
    CPU_ZERO(&m->allowed);
    CPU_SET(0, &m->allowed);
    CPU_SET(1, &m->allowed);
    m->n_allowed = 2;
    m->sibling_a = m->sibling_b = -1;
    m->boost = -1;
    m->mem_total = m->mem_available = 16ull << 30;
    m->fd_soft = 1024;
    m->fd_hard = 65536;
    m->port_lo = 32768;
    m->port_hi = 60999;
    m->tw_reuse = 2;
    m->tcp_timestamps = 1;
    m->loadavg1 = 0.1;
    m->rmem_default = 212992;
}

static void config(struct lg_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->tool = "test";
    cfg->levels = one_level;
    cfg->n_levels = 1;
    cfg->duration_ns = 10ull * 1000000000u;
    cfg->timeout_ns = 2ull * 1000000000u;
    cfg->threads = 1;
    cfg->slots = 1;
    cfg->shard_count = 1;
    cfg->max_timer_floor_ns = 1000000;
    cfg->client_memory_bytes = 45.4 * 1024;
    cfg->client_memory_source = "bench/memory: test";
}

static void needs(struct lg_needs *n, const struct lg_config *cfg, unsigned clients)
{
    memset(n, 0, sizeof(*n));
    n->cfg = cfg;
    n->clients = clients;
    n->threads = cfg->threads;
    n->slots = cfg->slots;
    n->churn_s = 12;
    n->rate_basis = "test";
}

static void descriptors_below_the_hard_limit_are_unfit(void **state)
{
    struct lg_machine m;
    struct lg_config cfg;
    struct lg_needs n;
    struct lg_check c;
    roomy(&m);
    config(&cfg);
    m.fd_soft = m.fd_hard = 256;
    needs(&n, &cfg, 1000);
    lg_fit_descriptors(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_UNFIT);
    assert_non_null(strstr(c.found, "hard 256"));
    assert_non_null(strstr(c.needed, "1020:")); /* 1000 + 4 + 0 + 16 */
    assert_non_null(strstr(c.todo, "ulimit -n 1020"));
    /* within the hard limit: the soft one is raised at start */
    m.fd_hard = 4096;
    lg_fit_descriptors(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
    assert_non_null(strstr(c.todo, "raised"));
}

static void ports_run_out_under_churn(void **state)
{
    struct lg_machine m;
    struct lg_config cfg;
    struct lg_needs n;
    struct lg_check c;
    roomy(&m);
    config(&cfg);
    m.port_lo = 40000;
    m.port_hi = 40009;
    needs(&n, &cfg, 4);
    lg_fit_ports(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK); /* 4 connections in 10 ports */
    assert_non_null(strstr(c.found, "40000-40009"));
    /* a connection per request, at least 0.4/s (4 clients, 10 s timeouts),
     * each port held 60 s (no loopback: tcp_tw_reuse 2 does not apply) */
    cfg.conn_requests = 1;
    n.conn_rate_min = 0.4;
    n.conn_rate_max = -1;
    lg_fit_ports(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN); /* 4 + 0.4 x 12 s (the levels' time): 8.8 */
    n.churn_s = 30;
    lg_fit_ports(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_UNFIT);
    assert_int_equal(lg_fit_time_wait_s(&n, &m), 60);
    assert_non_null(strstr(c.found, "ip_local_port_range 40000-40009: 10 ports"));
    assert_non_null(strstr(c.needed, "16 or more")); /* 4 + 0.4 x 30 s */
    /* toward loopback the default tcp_tw_reuse frees a port after 1 s */
    n.loopback = true;
    assert_int_equal(lg_fit_time_wait_s(&n, &m), 1);
    m.port_hi = 60999;
    lg_fit_ports(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN); /* no upper bound on a closed loop's churn */
    n.conn_rate_max = 1000;
    lg_fit_ports(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
    /* UDP sockets hold no TIME_WAIT */
    n.datagram = true;
    n.loopback = false;
    m.port_hi = 40009;
    n.conn_rate_max = -1;
    lg_fit_ports(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
    /* a Unix socket needs no ports */
    n.unix_socket = true;
    n.clients = 100000;
    lg_fit_ports(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
}

/* --source: each source address brings the whole port range again */
static void ports_are_counted_per_source_address(void **state)
{
    struct lg_machine m;
    struct lg_config cfg;
    struct lg_needs n;
    struct lg_check c;
    roomy(&m); /* 32768-60999: 28232 ports */
    config(&cfg);
    needs(&n, &cfg, 100000);
    lg_fit_ports(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_UNFIT);
    assert_non_null(strstr(c.todo, "--source"));
    struct lg_source four[4];
    memset(four, 0, sizeof(four));
    cfg.sources = four;
    cfg.n_sources = 4; /* 112928 ports */
    lg_fit_ports(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
    assert_non_null(strstr(c.brief, "112928 ports (4 sources)"));
    assert_non_null(strstr(c.found, "from each of 4 source addresses"));
    cfg.n_sources = 3; /* 84696: still short */
    lg_fit_ports(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_UNFIT);
}

static void conntrack_table_too_small(void **state)
{
    struct lg_machine m;
    struct lg_config cfg;
    struct lg_needs n;
    struct lg_check c;
    roomy(&m);
    config(&cfg);
    needs(&n, &cfg, 300000);
    lg_fit_conntrack(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK); /* not loaded */
    assert_non_null(strstr(c.found, "not loaded"));
    m.conntrack = true;
    m.conntrack_max = 262144;
    m.conntrack_count = 100;
    m.conntrack_tw_s = 120;
    lg_fit_conntrack(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_UNFIT);
    assert_non_null(strstr(c.found, "nf_conntrack_max 262144"));
    assert_non_null(strstr(c.needed, "300000"));
    n.clients = 1000;
    lg_fit_conntrack(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
}

static void memory_for_the_clients(void **state)
{
    struct lg_machine m;
    struct lg_config cfg;
    struct lg_needs n;
    struct lg_check c;
    roomy(&m);
    config(&cfg);
    needs(&n, &cfg, 1000000); /* 1e6 x 45.4 KiB = 43.3 GiB */
    lg_fit_memory(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_UNFIT);
    assert_non_null(strstr(c.needed, "1000000 clients x 45.4 KiB (bench/memory: test)"));
    n.clients = 200000; /* 8.7 GiB of 16: more than half */
    lg_fit_memory(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    /* a cgroup limit leaves less than the machine has */
    m.cgroup_limit = 4ull << 30;
    m.cgroup_usage = 1ull << 30;
    assert_int_equal(lg_machine_memory_left(&m), 3ull << 30);
    lg_fit_memory(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_UNFIT);
    assert_non_null(strstr(c.found, "cgroup limit 4.0 GiB"));
    n.clients = 1000;
    lg_fit_memory(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
}

static void more_loops_than_cpus(void **state)
{
    struct lg_machine m;
    struct lg_config cfg;
    struct lg_needs n;
    struct lg_check c;
    roomy(&m);
    config(&cfg);
    needs(&n, &cfg, 4);
    n.threads = 4;
    lg_fit_cpus(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    assert_non_null(strstr(c.todo, "--threads 2"));
    /* two loops on the two SMT siblings of one core */
    n.threads = 2;
    m.allowed_siblings = 2;
    m.sibling_a = 0;
    m.sibling_b = 1;
    lg_fit_cpus(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    assert_non_null(strstr(c.todo, "SMT siblings 0 and 1"));
    n.threads = 1;
    lg_fit_cpus(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
}

static void governor_and_boost(void **state)
{
    struct lg_machine m;
    struct lg_check c;
    roomy(&m);
    lg_fit_frequency(&m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
    assert_non_null(strstr(c.found, "no cpufreq"));
    strcpy(m.governor, "powersave");
    lg_fit_frequency(&m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    strcpy(m.governor, "performance");
    m.boost = 1;
    lg_fit_frequency(&m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    m.boost = 0;
    lg_fit_frequency(&m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
}

static void timer_floor_against_its_bound(void **state)
{
    struct lg_config cfg;
    struct lg_needs n;
    struct lg_check c;
    config(&cfg);
    needs(&n, &cfg, 4);
    struct lg_timer_floor tf = {
        .wakes = 128, .p50_ns = 55000, .p99_ns = 400000, .took_ns = 9000000};
    lg_fit_timer(&n, &tf, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
    assert_non_null(strstr(c.found, "0.055 ms late at the median, 0.400 ms at p99"));
    tf.p99_ns = 3000000;
    lg_fit_timer(&n, &tf, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    cfg.max_timer_floor_ns = 20000; /* --max-timer-floor 20us */
    lg_fit_timer(&n, &tf, &c);
    assert_int_equal(c.verdict, LG_FIT_UNFIT);
    assert_non_null(strstr(c.needed, "0.020 ms (--max-timer-floor)"));
    /* three wakes, the first 14 ms late: the burst was preempted, no verdict */
    tf.wakes = 3;
    lg_fit_timer(&n, &tf, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    assert_non_null(strstr(c.todo, "cut short after 3 wakes"));
}

static void strays_are_named(void **state)
{
    struct lg_machine m;
    struct lg_config cfg;
    struct lg_needs n;
    struct lg_check c;
    roomy(&m);
    config(&cfg);
    needs(&n, &cfg, 4);
    struct lg_strays s = {.window_s = 0.5,
                          .n_cpus = 2,
                          .busy_cpus = 1.0,
                          .busiest_cpu = 0,
                          .busiest_share = 0.98,
                          .n_top = 2};
    s.top[0] = (struct lg_stray){.pid = 11, .comm = "spin_a", .cpus = 0.49};
    s.top[1] = (struct lg_stray){.pid = 12, .comm = "spin_b", .cpus = 0.48};
    lg_fit_strays(&n, &m, &s, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    assert_non_null(strstr(c.found, "CPU 0 98% busy"));
    assert_non_null(strstr(c.found, "spin_a (pid 11) 0.49 CPU, spin_b (pid 12) 0.48 CPU"));
    s.busiest_share = 0.05;
    s.n_top = 0;
    lg_fit_strays(&n, &m, &s, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
    m.loadavg1 = 5; /* a queue longer than the CPUs */
    lg_fit_strays(&n, &m, &s, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
}

static void receive_buffer_against_outstanding(void **state)
{
    struct lg_machine m;
    struct lg_config cfg;
    struct lg_needs n;
    struct lg_check c;
    roomy(&m);
    config(&cfg);
    cfg.slots_option = "--outstanding";
    cfg.answer_bytes = 512;
    cfg.slots = 1;
    needs(&n, &cfg, 4);
    n.datagram = true;
    lg_fit_receive_buffer(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_OK);
    /* 1024 answers of 64 KiB hold in no default buffer */
    cfg.slots = 1024;
    cfg.answer_bytes = 65535;
    lg_fit_receive_buffer(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    /* a run does not measure: 212992 / 65507, the largest UDP payload */
    assert_non_null(strstr(c.found, "holds at most 3 answers of 65507 bytes"));
    assert_non_null(strstr(c.needed, "1024 answers arriving at once (--outstanding 1024)"));
    assert_non_null(strstr(c.todo, "net.core.rmem_default="));
    /* --preflight measures the kernel's size of one over loopback */
    n.full = true;
    lg_fit_receive_buffer(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    assert_non_null(strstr(c.found, "measured over loopback"));
}

/* A check's line, as either tool prints it, is shorter than a terminal is
 * wide and whole (not cut with "..."); the verdict's words are there. */
static void fits(const struct lg_check *c)
{
    static const char *const tools[] = {"httpload", "dnsload"};
    for (int t = 0; t < 2; t++) {
        char line[LG_CHECK_LINE_MAX + 64];
        lg_check_line(tools[t], c, line, sizeof(line));
        if (strlen(line) >= LG_CHECK_LINE_MAX || strstr(line, "..."))
            fail_msg("%zu characters: %s", strlen(line), line);
        assert_non_null(strstr(line, "; needs "));
        if ((c->verdict == LG_FIT_OK) != (strstr(line, "; fix: ") == NULL))
            fail_msg("a fix where none is due, or none where one is: %s", line);
    }
}

/* Every check's line at the largest figures the options and the kernel
 * allow, in each of its verdicts. */
static void every_line_fits_a_terminal(void **state)
{
    (void)state;
    struct lg_machine m;
    struct lg_config cfg;
    struct lg_needs n;
    struct lg_check c;
    roomy(&m);
    config(&cfg);
    needs(&n, &cfg, 10000000);
    n.threads = 4096;
    n.watches = 64;
    /* descriptors: unfit, ok raised, ok, unlimited */
    m.fd_soft = m.fd_hard = 1048575;
    lg_fit_descriptors(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_UNFIT);
    fits(&c);
    m.fd_soft = 1024;
    m.fd_hard = UINT64_MAX;
    lg_fit_descriptors(&n, &m, &c);
    fits(&c);
    m.fd_soft = 1073741816;
    m.fd_hard = 1073741824;
    lg_fit_descriptors(&n, &m, &c);
    fits(&c);
    /* ports and conntrack: unfit, warn and ok, churn or none, UDP, Unix */
    m.port_lo = 1024;
    m.port_hi = 65535;
    m.tw_reuse = 0;
    m.conntrack = true;
    m.conntrack_max = 4294967295u;
    m.conntrack_count = 4294967000u;
    m.conntrack_tw_s = 120;
    m.conntrack_udp_s = 120;
    cfg.conn_requests = 1;
    n.churn_s = 3600;
    const double rates[][2] = {{1e6, -1}, {1e6, 2e6}, {0.001, 1e9}, {1, 2}};
    for (int dgram = 0; dgram < 2; dgram++)
        for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
            n.datagram = dgram;
            n.conn_rate_min = rates[i][0];
            n.conn_rate_max = rates[i][1];
            for (unsigned clients = 1; clients <= 10000000; clients *= 100) {
                n.clients = clients;
                lg_fit_ports(&n, &m, &c);
                fits(&c);
                lg_fit_conntrack(&n, &m, &c);
                fits(&c);
            }
        }
    m.conntrack = false;
    lg_fit_conntrack(&n, &m, &c);
    fits(&c);
    m.port_hi = 0;
    lg_fit_ports(&n, &m, &c);
    fits(&c);
    n.unix_socket = true;
    lg_fit_ports(&n, &m, &c);
    fits(&c);
    lg_fit_conntrack(&n, &m, &c);
    fits(&c);
    n.unix_socket = false;
    /* memory: unfit (in a cgroup), warn, ok, unreadable */
    n.clients = 10000000;
    cfg.client_memory_bytes = 1023.9 * 1024 * 1024;
    m.mem_total = m.mem_available = 1023ull << 40;
    m.cgroup_limit = 1000ull << 40;
    m.cgroup_usage = 1;
    lg_fit_memory(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_UNFIT);
    fits(&c);
    n.clients = 600;
    lg_fit_memory(&n, &m, &c);
    fits(&c);
    n.clients = 1;
    lg_fit_memory(&n, &m, &c);
    fits(&c);
    m.mem_total = 0;
    lg_fit_memory(&n, &m, &c);
    fits(&c);
    /* cpus: more loops than CPUs, SMT siblings, enough */
    n.threads = 4096;
    m.n_allowed = 4095;
    lg_fit_cpus(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    fits(&c);
    m.n_allowed = 4096;
    m.allowed_siblings = 4096;
    m.sibling_a = 4094;
    m.sibling_b = 4095;
    lg_fit_cpus(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    fits(&c);
    n.threads = 1;
    lg_fit_cpus(&n, &m, &c);
    fits(&c);
    /* frequency: a 15-character governor, mixed, boost */
    strcpy(m.governor, "conservative123");
    m.governors_differ = true;
    m.boost = -1;
    lg_fit_frequency(&m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    fits(&c);
    m.governors_differ = false;
    lg_fit_frequency(&m, &c);
    fits(&c);
    strcpy(m.governor, "performance");
    m.boost = 1;
    lg_fit_frequency(&m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    fits(&c);
    m.boost = 0;
    lg_fit_frequency(&m, &c);
    fits(&c);
    m.governor[0] = 0;
    lg_fit_frequency(&m, &c);
    fits(&c);
    /* timer: late beyond a large bound, p99 only, cut short, no timerfd */
    cfg.max_timer_floor_ns = 1000000000ull; /* --max-timer-floor 1s */
    struct lg_timer_floor tf = {
        .wakes = 128, .p50_ns = 9999000000ull, .p99_ns = 9999000000ull, .took_ns = 1};
    lg_fit_timer(&n, &tf, &c);
    assert_int_equal(c.verdict, LG_FIT_UNFIT);
    fits(&c);
    tf.p50_ns = 1000;
    lg_fit_timer(&n, &tf, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    fits(&c);
    tf.p99_ns = 2000;
    lg_fit_timer(&n, &tf, &c);
    fits(&c);
    tf.wakes = 3;
    lg_fit_timer(&n, &tf, &c);
    fits(&c);
    tf.wakes = 0;
    lg_fit_timer(&n, &tf, &c);
    fits(&c);
    cfg.max_timer_floor_ns = 3600000000000ull; /* 1h: the longest bound in the line */
    tf.wakes = 128;
    tf.p99_ns = 9999000000ull;
    lg_fit_timer(&n, &tf, &c);
    fits(&c);
    /* clock: unsynchronized for --start-at, for shards, with --clock-ref */
    setenv("LOADGEN_TEST_CLOCK", "unsynchronized", 1);
    cfg.start_at_ns = 1;
    lg_fit_clock(&n, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    fits(&c);
    cfg.start_at_ns = 0;
    cfg.shard_count = 1000;
    lg_fit_clock(&n, &c);
    fits(&c);
    cfg.clock_ref = "a-rather-long-name-of-an-ntp-server.example.org:123";
    lg_fit_clock(&n, &c);
    fits(&c);
    setenv("LOADGEN_TEST_CLOCK", "synchronized", 1);
    lg_fit_clock(&n, &c);
    fits(&c);
    unsetenv("LOADGEN_TEST_CLOCK");
    /* receive buffer: 65535 answers in flight of the largest size */
    cfg.slots_option = "--outstanding";
    cfg.slots = 65535;
    cfg.answer_bytes = 65535;
    m.rmem_default = 2147483647;
    n.datagram = true;
    lg_fit_receive_buffer(&n, &m, &c);
    fits(&c);
    m.rmem_default = 212992;
    lg_fit_receive_buffer(&n, &m, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    fits(&c);
    cfg.answer_bytes = 1;
    m.rmem_default = 65534;
    lg_fit_receive_buffer(&n, &m, &c);
    fits(&c);
    /* strays: a named process on the highest CPU, a load alone, unknown */
    m.logical_cpus = 4096;
    m.loadavg1 = 99999.99;
    struct lg_strays st = {.window_s = 0.5,
                           .n_cpus = 4096,
                           .busy_cpus = 4096,
                           .busiest_cpu = 4095,
                           .busiest_share = 1.0,
                           .n_top = 3};
    for (int i = 0; i < 3; i++)
        st.top[i] = (struct lg_stray){.pid = 4194304, .comm = "abcdefghijklmno", .cpus = 64};
    lg_fit_strays(&n, &m, &st, &c);
    assert_int_equal(c.verdict, LG_FIT_WARN);
    fits(&c);
    st.n_top = 0;
    lg_fit_strays(&n, &m, &st, &c);
    fits(&c);
    st.busiest_cpu = -1;
    lg_fit_strays(&n, &m, &st, &c);
    fits(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descriptors_below_the_hard_limit_are_unfit),
        cmocka_unit_test(ports_run_out_under_churn),
        cmocka_unit_test(ports_are_counted_per_source_address),
        cmocka_unit_test(conntrack_table_too_small),
        cmocka_unit_test(memory_for_the_clients),
        cmocka_unit_test(more_loops_than_cpus),
        cmocka_unit_test(governor_and_boost),
        cmocka_unit_test(timer_floor_against_its_bound),
        cmocka_unit_test(strays_are_named),
        cmocka_unit_test(receive_buffer_against_outstanding),
        cmocka_unit_test(every_line_fits_a_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
