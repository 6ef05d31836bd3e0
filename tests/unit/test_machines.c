/* Whether two descriptors show the same machine: what stats_machine_parse
 * reads of a descriptor, what counts as a different machine (CPU model,
 * cores, kernel; not the host's name), and the warning lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "stats/runs/machines.h"

static const char desc_a[] =
    "{\"tool\": \"httpload\", \"machine\": {\"hostname\": \"gen1\", \"kernel\": \"6.18.44\", "
    "\"cpu_model\": \"AMD EPYC\", \"physical_cores\": 2, \"logical_cpus\": 2, \"smt\": false}}";
static const char desc_b[] =
    "{\"tool\": \"httpload\", \"machine\": {\"hostname\": \"gen2\", \"kernel\": \"6.1.0\", "
    "\"cpu_model\": \"Intel Xeon\", \"physical_cores\": 8, \"logical_cpus\": 16}}";

static void reads_the_machine_member(void **state)
{
    struct stats_machine m;
    assert_int_equal(stats_machine_parse(desc_a, strlen(desc_a), &m), 0);
    assert_true(m.known);
    assert_string_equal(m.cpu_model, "AMD EPYC");
    assert_string_equal(m.kernel, "6.18.44");
    assert_true(m.physical_cores == 2 && m.logical_cpus == 2);
    /* an older generator's descriptor: no machine, nothing to compare */
    assert_int_equal(stats_machine_parse("{\"tool\": \"x\"}", 13, &m), 0);
    assert_false(m.known);
    assert_int_equal(stats_machine_parse("{nope", 5, &m), -1);
}

static void what_makes_another_machine(void **state)
{
    struct stats_machine a, b;
    char diff[512];
    stats_machine_parse(desc_a, strlen(desc_a), &a);
    stats_machine_parse(desc_b, strlen(desc_b), &b);
    stats_machine_difference(&a, &b, diff, sizeof(diff));
    assert_string_equal(diff, "CPU model 'Intel Xeon' against 'AMD EPYC', 8 physical cores "
                              "against 2, 16 logical CPUs against 2, kernel 6.1.0 against 6.18.44");
    /* another host of the same kind is the same machine as far as numbers go */
    b = a;
    strcpy(b.hostname, "gen3");
    stats_machine_difference(&a, &b, diff, sizeof(diff));
    assert_string_equal(diff, "");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void one_warning_per_other_machine(void **state)
{
    char dir[] = "/tmp/test_machines.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char a[256], am[256], b[256], bm[256], c[256];
    snprintf(a, sizeof(a), "%s/a.json", dir);
    snprintf(am, sizeof(am), "%s/a.meta.json", dir);
    snprintf(b, sizeof(b), "%s/b.json", dir);
    snprintf(bm, sizeof(bm), "%s/b.meta.json", dir);
    snprintf(c, sizeof(c), "%s/c.json", dir); /* no descriptor */
    write_file(am, desc_a);
    write_file(bm, desc_b);
    char *out = NULL;
    size_t out_len = 0;
    FILE *err = open_memstream(&out, &out_len);
    const char *docs[] = {a, c, b, a};
    assert_int_equal(stats_machines_warn(err, "compare", docs, 4), 1);
    fclose(err);
    assert_non_null(strstr(out, "loadstats compare: warning: "));
    assert_non_null(strstr(out, "b.json and "));
    assert_non_null(strstr(out, "CPU model 'Intel Xeon' against 'AMD EPYC'"));
    assert_int_equal(strchr(out, '\n') - out + 1, (long)strlen(out)); /* one line */
    free(out);
    const char *same[] = {a, a, "-"};
    err = open_memstream(&out, &out_len);
    assert_int_equal(stats_machines_warn(err, "merge", same, 3), 0);
    fclose(err);
    free(out);
    unlink(am);
    unlink(bm);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_the_machine_member),
        cmocka_unit_test(what_makes_another_machine),
        cmocka_unit_test(one_warning_per_other_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
