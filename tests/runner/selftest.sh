#!/usr/bin/env bash
# Self-test of the test runner (scripts/test, .ci/run, scripts/fuzz and the
# run_tests of tests/integration/lib.sh): in a scratch copy of the tree it
# plants failures the runner must not pass (among them integration tests whose
# checker fails midway), runs that copy's scripts/test in its fast mode, and
# checks the exit status and that every planted failure is named.
# Prints ok/FAIL lines like an integration test file; scripts/test runs it once.
# usage: bash tests/runner/selftest.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${LOADGEN_IN_SELFTEST:-}" ]; then
    echo "selftest.sh: already inside a runner self-test; not recursing" >&2
    exit 2
fi

scratch=$(mktemp -d /tmp/loadgen-selftest.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
copy=$scratch/tree

# the tree as it is now (tracked and new files, not what .gitignore drops);
# without git, everything but build directories and results
mkdir -p "$copy"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$top" && git ls-files -z -c -o --exclude-standard | xargs -0 cp -P --parents -t "$copy" 2>/dev/null)
else
    (cd "$top" && tar -c --exclude='./build*' --exclude=./results --exclude=./configure . | tar -x -C "$copy")
fi

# --- the plants ----------------------------------------------------------------
# (a) a unit test that dies in its second case: cmocka prints no summary
cat >"$copy/tests/unit/test_planted_abort.c" <<'C'
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

static void passes(void **state) { assert_true(1); }

static void aborts(void **state)
{
    signal(SIGABRT, SIG_DFL); /* past cmocka's own handler */
    abort();
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(passes), cmocka_unit_test(aborts)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
C
# (b) a unit test that does not compile
cat >"$copy/tests/unit/test_planted_nocompile.c" <<'C'
int main(void) { return planted_undeclared_identifier; }
C
# (c) a fuzz target that does not compile
cat >"$copy/tests/fuzz/fuzz_planted.c" <<'C'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return planted_undeclared_identifier; }
C
# (d) a unit test that skips itself (automake's exit status 77)
cat >"$copy/tests/unit/test_planted_skip.c" <<'C'
int main(void) { return 77; }
C
cat >>"$copy/tests/Makemodule.am" <<'AM'

# planted by tests/runner/selftest.sh
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_planted_abort tests/unit/test_planted_nocompile \
	tests/unit/test_planted_skip
TESTS += tests/unit/test_planted_abort tests/unit/test_planted_nocompile \
	tests/unit/test_planted_skip
tests_unit_test_planted_abort_SOURCES = tests/unit/test_planted_abort.c
tests_unit_test_planted_abort_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_planted_abort_LDADD = $(CMOCKA_LIBS)
tests_unit_test_planted_nocompile_SOURCES = tests/unit/test_planted_nocompile.c
tests_unit_test_planted_skip_SOURCES = tests/unit/test_planted_skip.c
endif
if ENABLE_FUZZING
noinst_PROGRAMS += tests/fuzz/fuzz_planted
tests_fuzz_fuzz_planted_SOURCES = tests/fuzz/fuzz_planted.c
tests_fuzz_fuzz_planted_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
endif
AM
# (e) integration tests in which one command fails and what follows succeeds;
# the real files need servers and minutes, so in the copy only these run
# (through the copy's scripts/test and lib.sh). One test says on each line
# where it expects a failure: it must pass.
rm -f "$copy"/tests/integration/t_*.sh
cat >"$copy/tests/integration/t_planted_runner.sh" <<'SH'
source "$(dirname "$0")/lib.sh"
t_checker_that_exits_non_zero_midway() {
    python3 -c 'print("checking"); raise SystemExit(3)'
    assert_eq 1 1 "what follows succeeds"
}
helper_that_fails() {
    python3 -c 'raise SystemExit(2)'
    echo "the helper goes on"
}
t_checker_that_fails_inside_a_helper() {
    helper_that_fails
    assert_eq 1 1
}
t_checker_that_fails_inside_a_command_substitution() {
    assert_eq "$(python3 -c 'raise SystemExit(5)')" "" "its output, empty"
}
t_checker_that_fails_at_the_head_of_a_pipeline() {
    python3 -c 'raise SystemExit(6)' | cat >/dev/null
    assert_eq 1 1
}
t_assertion_sent_to_dev_null() {
    fail "planted" 2>/dev/null
}
t_fixture_that_died_before_it_was_stopped() {
    (exit 3) &
    local p=$!
    sleep 0.3
    stop_background "$p"
}
t_expected_failures_said_on_their_line() {
    exit_status python3 -c 'raise SystemExit(7)'
    assert_eq "$RC" 7 "exit_status"
    run_tool /dev/null /dev/null false
    assert_eq "$RC" 1 "run_tool"
    python3 -c 'raise SystemExit(1)' && fail "a failure read as success"
    python3 -c 'raise SystemExit(0)' || fail "a success read as failure"
    if grep -q planted /dev/null; then fail "matched"; fi
    ! grep -q planted /dev/null
    assert_eq "$(count_lines planted /dev/null)" 0 "count_lines"
    sleep 30 &
    stop_background $!
}
run_tests
SH
# what an older build of (b) left behind: a passing log and a binary
mkdir -p "$copy/build/tests/unit"
printf '[==========] Running 7 test(s).\n[  PASSED  ] 7 test(s).\n' >"$copy/build/tests/unit/test_planted_nocompile.log"
printf ':test-result: PASS\n' >"$copy/build/tests/unit/test_planted_nocompile.trs"
printf 'PASS: tests/unit/test_planted_nocompile\n' >"$copy/build/test-suite.log"
printf '#!/bin/sh\necho "[  PASSED  ] 7 test(s)."\n' >"$copy/build/tests/unit/test_planted_nocompile"
chmod +x "$copy/build/tests/unit/test_planted_nocompile"
touch -d '2000-01-01' "$copy/build/tests/unit/test_planted_nocompile"*

# --- checks ----------------------------------------------------------------------
status=0
check() { # name command...
    local name=$1
    shift
    if "$@"; then
        echo "ok   selftest.sh $name"
    else
        echo "FAIL selftest.sh $name"
        status=1
    fi
}
named() { grep -E "^$2: " "$1" | grep -qF "$3"; } # output failed|skipped text
not_reported_passed() { ! grep -qE "^(PASS|ok ).*$2" "$1"; }
# final_line OUTPUT FAILED SKIPPED: "N passed, FAILED failed, SKIPPED skipped"
final_line() { tail -n 1 "$1" | grep -qE "^[0-9]+ passed, $2 failed, $3 skipped$"; }
show() { # output rc: the nested run's output, when a check failed
    echo "    the nested scripts/test exited $2; its output:"
    sed 's/^/    | /' "$1" | tail -n 60
}

# nested OUTPUT VAR=VALUE...: the copy's scripts/test in fast mode (the planted
# integration tests only, no sanitizer suite, and no self-test inside); sets RC.
nested() {
    local out=$1
    shift
    RC=0
    (cd "$copy" && env -u LOADGEN_CI -u ONLY -u SKIP_FUZZ -u SKIP_INTEGRATION LOADGEN_IN_SELFTEST=1 \
        SKIP_SANITIZERS=1 SKIP_SELFTEST=1 FUZZ_SECONDS=1 KEEP_RESULTS="$scratch/kept" \
        NORMAL_CONFIGURE="--disable-lto CFLAGS=-O0" \
        LG_PORT_BASE="${LG_PORT_BASE:-18000}" "$@" timeout -k 10 400 scripts/test) >"$out" 2>&1 || RC=$?
}

# 1. the plants fail the run and are each named; the skip is counted apart
before=$status
nested "$scratch/fast.out"
check fast_mode_exits_non_zero [ "$RC" -ne 0 ]
check names_the_unit_test_that_aborts named "$scratch/fast.out" failed test_planted_abort
check names_the_unit_test_that_does_not_compile named "$scratch/fast.out" failed test_planted_nocompile
check names_the_fuzz_target_that_does_not_build named "$scratch/fast.out" failed fuzz_planted
check names_the_skipped_unit_test named "$scratch/fast.out" skipped test_planted_skip
check ignores_the_log_and_binary_of_an_older_build \
    not_reported_passed "$scratch/fast.out" test_planted_nocompile
check healthy_tests_still_run bash -c 'grep -qE "^PASS: tests/unit/test_url( |$)" "$1" &&
    grep -q "^ok   fuzz_url" "$1"' _ "$scratch/fast.out"
for t in checker_that_exits_non_zero_midway checker_that_fails_inside_a_helper \
    checker_that_fails_inside_a_command_substitution checker_that_fails_at_the_head_of_a_pipeline \
    assertion_sent_to_dev_null fixture_that_died_before_it_was_stopped; do
    check "names_the_integration_test_$t" named "$scratch/fast.out" failed "t_planted_runner.sh t_$t"
done
# the kept results hold the file's own lines, ok ones too
check passes_failures_expected_on_their_line grep -q '^ok   t_planted_runner.sh t_expected_failures_said_on_their_line' \
    "$scratch/kept/results/normal-t_planted_runner.sh.log"
check final_line_counts_9_failed_1_skipped final_line "$scratch/fast.out" 9 1
[ "$status" -eq "$before" ] || show "$scratch/fast.out" "$RC"

# 2. CI mode (the same copy, its build reused; no fuzzing): a skip also fails
before=$status
nested "$scratch/ci.out" LOADGEN_CI=1 SKIP_FUZZ=1
check ci_mode_exits_non_zero [ "$RC" -ne 0 ]
check ci_mode_names_the_skip_as_a_failure named "$scratch/ci.out" failed "test_planted_skip"
check ci_mode_final_line_counts_the_skip_as_failed final_line "$scratch/ci.out" 9 1
[ "$status" -eq "$before" ] || show "$scratch/ci.out" "$RC"

# 3. CI mode refuses a knob that shortens the run
RC=0
(cd "$copy" && env LOADGEN_CI=1 SKIP_SANITIZERS=1 scripts/test) >"$scratch/refuse.out" 2>&1 || RC=$?
check ci_mode_refuses_skip_knobs bash -c '[ "$1" -eq 2 ] && grep -q SKIP_SANITIZERS "$2"' _ "$RC" "$scratch/refuse.out"

# 4. .ci/run drops the knobs it inherits and sets CI mode (scripts/test
# replaced by one that prints its environment)
printf '#!/bin/sh\nenv\n' >"$copy/scripts/test"
env SKIP_SANITIZERS=1 SKIP_ANYTHING=1 ONLY=x FUZZ_SECONDS=1 FILE_BOUND=1 NORMAL_CONFIGURE=x LOADGEN_IN_SELFTEST=1 \
    bash "$copy/.ci/run" >"$scratch/ci-env.out" 2>&1
check ci_run_sets_ci_mode grep -qx 'LOADGEN_CI=1' "$scratch/ci-env.out"
check ci_run_drops_inherited_knobs bash -c '! grep -E "^(SKIP_|ONLY=|FUZZ_SECONDS=|FILE_BOUND=|NORMAL_CONFIGURE=|LOADGEN_IN_SELFTEST=)" "$1"' \
    _ "$scratch/ci-env.out"

# 5. lib.sh: a test that calls skip is a skip with its reason, never ok; an
# assertion that failed first still fails it; exit 77 without skip is a failure
cat >"$scratch/t_planted_lib.sh" <<SH
source "$copy/tests/integration/lib.sh"
t_a_passes() { assert_eq 1 1; }
t_b_fails() { assert_eq 1 2 "planted"; }
t_c_skips() { command -v planted-missing-tool >/dev/null || skip "planted reason"; fail "went on"; }
t_d_fails_then_skips() { fail "planted"; skip "too late"; }
t_e_exits_77_without_a_reason() { exit 77; }
t_f_trap_names_a_local() { local old=1; trap 'echo "\$old" >/dev/null' EXIT; assert_eq 1 1; }
t_g_changes_a_setting_and_exits() { set_machine_setting "$scratch/setting-g" changed; exit 3; }
t_h_changes_a_setting_and_passes() { set_machine_setting "$scratch/setting-h" changed; assert_eq 1 1; }
run_tests
SH
RC=0
mkdir -p "$scratch/libtmp"
echo original >"$scratch/setting-g"
echo original >"$scratch/setting-h"
BUILD=$copy/build TMPROOT=$scratch/libtmp bash "$scratch/t_planted_lib.sh" >"$scratch/lib.out" 2>&1 || RC=$?
lib_lines() {
    grep -q '^ok   t_planted_lib.sh t_a_passes' "$1" &&
        grep -q '^FAIL t_planted_lib.sh t_b_fails' "$1" &&
        grep -q '^skip t_planted_lib.sh t_c_skips: planted reason$' "$1" &&
        grep -q '^FAIL t_planted_lib.sh t_d_fails_then_skips' "$1" &&
        grep -q '^FAIL t_planted_lib.sh t_e_exits_77_without_a_reason' "$1" &&
        grep -q '^FAIL t_planted_lib.sh t_f_trap_names_a_local' "$1" &&
        grep -q '^FAIL t_planted_lib.sh t_g_changes_a_setting_and_exits' "$1" &&
        grep -q '^ok   t_planted_lib.sh t_h_changes_a_setting_and_passes' "$1" &&
        tail -n 1 "$1" | grep -qx '2 passed, 5 failed, 1 skipped'
}
check lib_skip_is_reported_apart_from_ok_and_fail lib_lines "$scratch/lib.out"
# a trap that names a function's local fails its test (bash only complains);
# a machine setting is restored however the test that changed it ended
check lib_names_the_unbound_variable grep -q 'the shell said: .*old: unbound variable' "$scratch/lib.out"
check lib_restores_a_setting_after_an_exit grep -qx original "$scratch/setting-g"
check lib_restores_a_setting_after_a_pass grep -qx original "$scratch/setting-h"
check lib_run_tests_exits_non_zero_on_failure [ "$RC" -ne 0 ]

# 6. the torture's verdict judges a document with doccheck's own checks: a
# run that exits 0 with a client that never attempted did not survive
mkdir -p "$scratch/torture-run"
cat >"$scratch/torture-run/out" <<'JSON'
{"metrics":{"c2.attempts":{"unit":"count","samples":[10]},"c2.requests":{"unit":"count","samples":[10]},
"c2.errors":{"unit":"count","samples":[0]},"c2.unfinished":{"unit":"count","samples":[0]},
"c2.client_attempts":{"unit":"count","samples":[10,0]},
"c2.latency_cold_ms":{"unit":"milliseconds","samples":[1,1]},
"c2.latency_warm_ms":{"unit":"milliseconds","samples":[1,1,1,1,1,1,1,1]}}}
JSON
echo 0 >"$scratch/torture-run/rc"
: >"$scratch/torture-run/err"
echo "planted idle client" >"$scratch/torture-run/what"
touch "$scratch/torture-run/fired"
python3 "$top/tests/torture/verdict.py" engine "$scratch/torture-run" >"$scratch/verdict.out" 2>&1
check torture_verdict_finds_a_client_without_attempts \
    grep -q 'planted idle client: .*1 of 2 clients made no attempt' "$scratch/verdict.out"
python3 "$top/tests/integration/doccheck.py" "$scratch/torture-run/out" 2>"$scratch/doccheck.out"
check doccheck_finds_the_same grep -q '1 of 2 clients made no attempt' "$scratch/doccheck.out"
# GNU MP's own abort on a failed allocation (under GnuTLS) is a library's
# defect, left out and named; an abort that does not say so is a failure
for r in gmp own; do
    mkdir -p "$scratch/abort-$r"
    echo 134 >"$scratch/abort-$r/rc"
    : >"$scratch/abort-$r/out"
    echo "planted $r abort" >"$scratch/abort-$r/what"
    touch "$scratch/abort-$r/fired"
done
echo "GNU MP: Cannot allocate memory (size=32)" >"$scratch/abort-gmp/err"
echo "httpload: assertion failed" >"$scratch/abort-own/err"
python3 "$top/tests/torture/verdict.py" engine "$scratch/abort-gmp" "$scratch/abort-own" >"$scratch/abort.out" 2>&1
check torture_verdict_names_gmp_s_abort_as_a_library_s \
    grep -q 'library defect: planted gmp abort: GNU MP aborted' "$scratch/abort.out"
check torture_verdict_fails_an_abort_of_its_own grep -q 'not survived: planted own abort' "$scratch/abort.out"
check torture_verdict_counts_neither_as_survived grep -qx '1 1 0 0 1' "$scratch/abort.out"
# OpenSSL's double free of its own store loader at exit is the library's;
# a double free in a stack of ours is a failure
for r in openssl ours; do
    mkdir -p "$scratch/free-$r"
    echo 1 >"$scratch/free-$r/rc"
    : >"$scratch/free-$r/out"
    echo "planted $r double free" >"$scratch/free-$r/what"
    touch "$scratch/free-$r/fired"
    {
        echo "==1==ERROR: AddressSanitizer: attempting double-free on 0x606000007400 in thread T0:"
        echo "    #0 0x7f0f in __interceptor_free asan_malloc_linux.cpp:52"
        if [ $r = openssl ]; then
            echo "    #1 0x7f0f in OSSL_STORE_LOADER_free (/lib/x86_64-linux-gnu/libcrypto.so.3+0x2b2334)"
        else
            echo "    #1 0x55eb in lg_tls_config_free loadgen/transport/tls.c:140"
        fi
        echo "    #2 0x7f0f in OPENSSL_cleanup (/lib/x86_64-linux-gnu/libcrypto.so.3+0x2324f7)"
        echo ""
        echo "SUMMARY: AddressSanitizer: double-free"
    } >"$scratch/free-$r/err"
done
python3 "$top/tests/torture/verdict.py" engine "$scratch/free-openssl" "$scratch/free-ours" >"$scratch/free.out" 2>&1
check torture_verdict_names_openssl_s_double_free_as_a_library_s \
    grep -q 'library defect: planted openssl double free: OpenSSL freed' "$scratch/free.out"
check torture_verdict_fails_a_double_free_of_ours grep -q 'not survived: planted ours double free' "$scratch/free.out"
# status 4 with a whole document on stdout survives only when stderr's last
# line names --meta or --log (written after it); a document stderr says was
# not written, or a status 4 that names neither, does not
for r in meta log plain cut; do
    mkdir -p "$scratch/side-$r"
    echo 4 >"$scratch/side-$r/rc"
    cat >"$scratch/side-$r/out" <<'JSON'
{"metrics":{"c2.attempts":{"unit":"count","samples":[10]},"c2.requests":{"unit":"count","samples":[10]},
"c2.errors":{"unit":"count","samples":[0]},"c2.unfinished":{"unit":"count","samples":[0]},
"c2.ran_s":{"unit":"seconds","samples":[1]},
"c2.requests_per_second":{"unit":"count","samples":[10]},"c2.errors_per_second":{"unit":"count","samples":[0]},
"c2.client_attempts":{"unit":"count","samples":[5,5]},
"c2.latency_cold_ms":{"unit":"milliseconds","samples":[1,1]},
"c2.latency_warm_ms":{"unit":"milliseconds","samples":[1,1,1,1,1,1,1,1]}}}
JSON
    echo "planted $r status 4" >"$scratch/side-$r/what"
    touch "$scratch/side-$r/fired"
done
echo "httpload: --meta /tmp/x/meta: Cannot allocate memory" >"$scratch/side-meta/err"
echo "httpload: --log /tmp/x/log: No space left on device: 3 of 10 records lost; the file holds the first 7, each whole" >"$scratch/side-log/err"
echo "httpload: cannot allocate the level's results" >"$scratch/side-plain/err"
head -c 60 "$scratch/side-cut/out" >"$scratch/side-cut/out.part" && mv "$scratch/side-cut/out.part" "$scratch/side-cut/out"
cp "$scratch/side-meta/err" "$scratch/side-cut/err"
python3 "$top/tests/torture/verdict.py" engine "$scratch"/side-{meta,log,plain,cut} >"$scratch/side.out" 2>&1
check torture_verdict_passes_a_whole_document_beside_a_failed_meta_or_log \
    sh -c '! grep -q "planted \(meta\|log\) status 4" "$1"' _ "$scratch/side.out"
check torture_verdict_fails_a_document_with_status_4_naming_no_side_output \
    grep -q 'not survived: planted plain status 4: .*names no --meta or --log' "$scratch/side.out"
check torture_verdict_fails_a_document_cut_short_beside_a_failed_meta \
    grep -q 'not survived: planted cut status 4: .*cut short' "$scratch/side.out"
# a leak after an allocation failed inside OpenSSL's exit cleanup (the
# injection's stack in fired) is the library's; the same leak after one of
# ours failed is not
for r in cleanup ours; do
    mkdir -p "$scratch/exit-$r"
    echo 1 >"$scratch/exit-$r/rc"
    : >"$scratch/exit-$r/out"
    echo "planted $r exit leak" >"$scratch/exit-$r/what"
    {
        echo "/lib/x86_64-linux-gnu/libcrypto.so.3(CRYPTO_zalloc+0x9)[0x7f1bf72333e9]"
        if [ $r = cleanup ]; then
            echo "/lib/x86_64-linux-gnu/libcrypto.so.3(OPENSSL_cleanup+0xc9)[0x7f1bf72324e9]"
        else
            echo "build-asan/dnsload/dnsload(lg_tls_config_init+0x20)[0x559c9435ecf1]"
        fi
    } >"$scratch/exit-$r/fired"
    {
        echo "================================================================="
        echo "==1==ERROR: LeakSanitizer: detected memory leaks"
        echo ""
        echo "Direct leak of 48 byte(s) in 1 object(s) allocated from:"
        echo "    #0 0x7f0f in __interceptor_malloc asan_malloc_linux.cpp:69"
        echo "    #1 0x7f0f in CRYPTO_zalloc (/lib/x86_64-linux-gnu/libcrypto.so.3+0x2333e8)"
        echo ""
        echo "SUMMARY: AddressSanitizer: 48 byte(s) leaked in 1 allocation(s)."
    } >"$scratch/exit-$r/err"
done
python3 "$top/tests/torture/verdict.py" engine "$scratch/exit-cleanup" "$scratch/exit-ours" >"$scratch/exit.out" 2>&1
check torture_verdict_names_openssl_s_exit_cleanup_leak_as_a_library_s \
    grep -q "library defect: planted cleanup exit leak: OpenSSL's exit cleanup leaked" "$scratch/exit.out"
check torture_verdict_reruns_a_leak_after_a_failure_of_ours grep -q "rerun: $scratch/exit-ours" "$scratch/exit.out"
exit $status
