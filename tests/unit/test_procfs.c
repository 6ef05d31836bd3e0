/* The /proc parsers behind --watch and the generator's self-diagnostics, on
 * fixture text as the kernel writes it: stat lines whose command names hold
 * spaces and parentheses, smaps_rollup, statm, schedstat, net/udp, pid files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "loadgen/watching/procfs.h"

static int parse_stat(const char *text, struct lg_proc_stat *st)
{
    return lg_procfs_parse_stat(text, strlen(text), st);
}

static void stat_line_of_a_plain_process(void **state)
{
    const char *line = "22838 (nginx) S 22837 22837 22837 0 -1 4194624 1234 0 5 0 "
                       "57 31 2 3 20 0 1 0 151274 11190272 3100 18446744073709551615 1 1 0 0 0 "
                       "0 0 1073745920 402745863 0 0 0 17 1 0 0 0 0 0\n";
    struct lg_proc_stat st;
    assert_int_equal(parse_stat(line, &st), 0);
    assert_int_equal(st.pid, 22838);
    assert_int_equal(st.ppid, 22837);
    assert_string_equal(st.comm, "nginx");
    assert_int_equal(st.state, 'S');
    assert_int_equal(st.utime, 57);
    assert_int_equal(st.stime, 31);
    assert_int_equal(st.cutime, 2);
    assert_int_equal(st.cstime, 3);
    assert_int_equal(st.starttime, 151274);
    assert_int_equal(st.rss_pages, 3100);
    assert_int_equal(st.processor, 1); /* field 39: the CPU it last ran on */
}

static void stat_comm_with_spaces_and_parentheses(void **state)
{
    /* prctl(PR_SET_NAME) allows anything: the name ends at the last ')' */
    const char *line = "4242 (a) b (c)) R 1 4242 4242 0 -1 0 0 0 0 0 7 8 0 0 -2 -5 3 0 999 "
                       "0 12 0\n";
    struct lg_proc_stat st;
    assert_int_equal(parse_stat(line, &st), 0);
    assert_string_equal(st.comm, "a) b (c)");
    assert_int_equal(st.state, 'R');
    assert_int_equal(st.ppid, 1);
    assert_int_equal(st.utime, 7);
    assert_int_equal(st.stime, 8);
    assert_int_equal(st.starttime, 999);
    assert_int_equal(st.rss_pages, 12);
    assert_int_equal(st.processor, -1); /* the line stops before field 39 */

    const char *spaces = "77 (Web Content) S 10 77 77 0 -1 0 0 0 0 0 100 50 0 0 20 0 30 0 "
                         "5000 0 20000 0\n";
    assert_int_equal(parse_stat(spaces, &st), 0);
    assert_string_equal(st.comm, "Web Content");
    assert_int_equal(st.ppid, 10);
    assert_int_equal(st.utime + st.stime, 150);
}

static void stat_comm_is_cut_to_the_kernel_length(void **state)
{
    const char *line = "5 (a-name-longer-than-fifteen) S 2 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 "
                       "9 0 0 0\n";
    struct lg_proc_stat st;
    assert_int_equal(parse_stat(line, &st), 0);
    assert_int_equal(strlen(st.comm), LG_COMM_MAX - 1);
}

static void zombie_and_bad_stat_lines(void **state)
{
    struct lg_proc_stat st;
    const char *zombie = "900 (sh) Z 899 899 899 0 -1 4227084 0 0 0 0 3 1 0 0 20 0 1 0 "
                         "777 0 0 0\n";
    assert_int_equal(parse_stat(zombie, &st), 0);
    assert_int_equal(st.state, 'Z');
    assert_int_equal(st.rss_pages, 0);
    const char *bad[] = {"",
                         "notapid (x) S 1",
                         "12 x) S 1 2 3",
                         "12 (x S 1 2 3",
                         "12 (x) S 1 2 3\n", /* cut short */
                         "12 (x) S -1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22\n",
                         "0 (x) S 1 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 9 0 0 0\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(parse_stat(bad[i], &st), -1);
}

static const char rollup[] =
    "55d0c5a5e000-7ffd2b3f3000 ---p 00000000 00:00 0                          [rollup]\n"
    "Rss:                8532 kB\n"
    "Pss:                5012 kB\n"
    "Pss_Dirty:          4016 kB\n"
    "Pss_Anon:           3900 kB\n"
    "Pss_File:           1100 kB\n"
    "Pss_Shmem:            12 kB\n"
    "Shared_Clean:       4096 kB\n"
    "Shared_Dirty:        512 kB\n"
    "Private_Clean:       124 kB\n"
    "Private_Dirty:      3800 kB\n"
    "Referenced:         8532 kB\n"
    "Anonymous:          3900 kB\n"
    "LazyFree:              0 kB\n"
    "AnonHugePages:         0 kB\n"
    "ShmemPmdMapped:        0 kB\n"
    "FilePmdMapped:         0 kB\n"
    "Shared_Hugetlb:        0 kB\n"
    "Private_Hugetlb:       0 kB\n"
    "Swap:                  0 kB\n"
    "SwapPss:               0 kB\n"
    "Locked:                0 kB\n";

static void smaps_rollup_sums(void **state)
{
    struct lg_proc_rollup r;
    assert_int_equal(lg_procfs_parse_rollup(rollup, strlen(rollup), &r), 0);
    assert_int_equal(r.rss, 8532ull * 1024);
    assert_int_equal(r.pss, 5012ull * 1024); /* not Pss_Dirty, Pss_Anon, ... */
    assert_int_equal(r.uss, (124ull + 3800) * 1024);
    assert_true(r.uss <= r.pss && r.pss <= r.rss);
}

static void smaps_rollup_missing_fields(void **state)
{
    struct lg_proc_rollup r;
    /* an exiting process: the header and nothing else; or an empty read */
    const char *header = "00000000-00000000 ---p 00000000 00:00 0 [rollup]\n";
    assert_int_equal(lg_procfs_parse_rollup(header, strlen(header), &r), -1);
    assert_int_equal(lg_procfs_parse_rollup("", 0, &r), -1);
    const char *no_private = "Rss: 10 kB\nPss: 5 kB\nPss_Dirty: 1 kB\n";
    assert_int_equal(lg_procfs_parse_rollup(no_private, strlen(no_private), &r), -1);
    /* a cut buffer stops at its length */
    assert_int_equal(lg_procfs_parse_rollup(rollup, 60, &r), -1);
}

static void statm_schedstat_and_pid_files(void **state)
{
    uint64_t pages = 0, run = 0, wait = 0;
    const char *statm = "2893 1412 1087 283 0 305 0\n";
    assert_int_equal(lg_procfs_parse_statm(statm, strlen(statm), &pages), 0);
    assert_int_equal(pages, 1412);
    assert_int_equal(lg_procfs_parse_statm("12\n", 3, &pages), -1);

    const char *sched = "2415462122 104960328 525\n";
    assert_int_equal(lg_procfs_parse_schedstat(sched, strlen(sched), &run, &wait), 0);
    assert_int_equal(run, 2415462122ull);
    assert_int_equal(wait, 104960328ull);
    assert_int_equal(lg_procfs_parse_schedstat("x", 1, &run, &wait), -1);

    int pid = 0;
    assert_int_equal(lg_procfs_parse_pid("22837\n", 6, &pid), 0);
    assert_int_equal(pid, 22837);
    assert_int_equal(lg_procfs_parse_pid("  41 \n", 6, &pid), 0);
    assert_int_equal(pid, 41);
    const char *bad[] = {"", "\n", "0\n", "-5\n", "12 13\n", "12x\n", "99999999999\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(lg_procfs_parse_pid(bad[i], strlen(bad[i]), &pid), -1);
}

static void udp_drops_of_our_sockets(void **state)
{
    const char udp[] =
        "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
        "timeout inode ref pointer drops\n"
        "  123: 0100007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000   101   "
        "     0 22394 2 0000000000000000 0\n"
        " 1024: 0100007F:A1B2 0100007F:0035 01 00000000:00034000 00:00000000 00000000     0   "
        "     0 50001 2 0000000000000000 17\n"
        " 1025: 0100007F:A1B3 0100007F:0035 01 00000000:00000000 00:00000000 00000000     0   "
        "     0 50002 2 0000000000000000 4\n"
        " 1026: 0100007F:A1B4 0100007F:0035 01 00000000:00000000 00:00000000 00000000     0   "
        "     0 60000 2 0000000000000000 1000\n";
    const uint64_t ours[] = {50001, 50002, 50003};
    assert_int_equal(lg_procfs_udp_drops(udp, strlen(udp), ours, 3), 21);
    assert_int_equal(lg_procfs_udp_drops(udp, strlen(udp), ours, 0), 0);
    const char udp6[] = "  sl  local_address                         remote_address                "
                        "        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode "
                        "ref pointer drops\n"
                        "  50: 00000000000000000000000001000000:C350 "
                        "00000000000000000000000001000000:0035 01 00000000:00000000 00:00000000 "
                        "00000000     0        0 50003 2 0000000000000000 5\n";
    assert_int_equal(lg_procfs_udp_drops(udp6, strlen(udp6), ours, 3), 5);
}

static void command_names_as_key_components(void **state)
{
    char key[LG_COMM_MAX];
    lg_procfs_key_component("nginx", key);
    assert_string_equal(key, "nginx");
    lg_procfs_key_component("python3.11", key);
    assert_string_equal(key, "python3_11");
    lg_procfs_key_component("Web Content", key);
    assert_string_equal(key, "Web_Content");
    lg_procfs_key_component("kworker/0:1-ev", key);
    assert_string_equal(key, "kworker_0_1-ev");
    lg_procfs_key_component("", key);
    assert_string_equal(key, "_");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stat_line_of_a_plain_process),
        cmocka_unit_test(stat_comm_with_spaces_and_parentheses),
        cmocka_unit_test(stat_comm_is_cut_to_the_kernel_length),
        cmocka_unit_test(zombie_and_bad_stat_lines),
        cmocka_unit_test(smaps_rollup_sums),
        cmocka_unit_test(smaps_rollup_missing_fields),
        cmocka_unit_test(statm_schedstat_and_pid_files),
        cmocka_unit_test(udp_drops_of_our_sockets),
        cmocka_unit_test(command_names_as_key_components),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
