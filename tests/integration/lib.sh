# Shared helpers for integration tests: each test file defines functions named
# t_<behaviour> and ends with `run_tests`; every function is one test, and ends
# as ok, FAIL or skip (it could not run here; `skip REASON` says why).
# Every command of a test either succeeds or fails the test: run_tests runs
# each test with an ERR trap (inherited by functions, subshells and command
# substitutions, and with pipefail), so a checker that exits non-zero fails the
# test even when what follows succeeds. A command whose failure is expected says
# so on its line: it is the condition of an if, a `cmd || fail "..."`, a
# `cmd && fail "..."`, a negated `! cmd`, or run through run_tool or
# exit_status, which put its status in RC for the test to check.
# Environment: BUILD (the build directory holding the binaries), TMPROOT (a
# scratch directory the runner owns), and the ports exported by scripts/servers.
# A line `# run: once` near the top of a t_*.sh file tells scripts/test to run
# that file in the normal suite only, not again on the sanitizer build.
set -u
: "${BUILD:?BUILD must point at the build directory}"
HTTPLOAD=${HTTPLOAD:-$BUILD/httpload/httpload}
DNSLOAD=${DNSLOAD:-$BUILD/dnsload/dnsload}
# LG_DNS_UDP=ring or plain: dnsload takes that UDP transport for the whole run
# (--io-uring or --no-io-uring added unless the command names a transport or
# gives one of them itself), so a file that judges UDP runs once per transport
# (scripts/test runs a file marked `# udp: both transports` with each).
if [ -n "${LG_DNS_UDP:-}" ]; then
    case $LG_DNS_UDP in
    ring) _udp_flag=--io-uring ;;
    plain) _udp_flag=--no-io-uring ;;
    *) echo "lib.sh: LG_DNS_UDP is ring or plain, not '$LG_DNS_UDP'" >&2; exit 2 ;;
    esac
    mkdir -p "$TMPROOT"
    cat >"$TMPROOT/dnsload-$LG_DNS_UDP" <<WRAP
#!/usr/bin/env bash
# dnsload with $_udp_flag, unless the command chooses (lib.sh, LG_DNS_UDP)
prev=
for a in "\$@"; do
    case "\$prev|\$a" in
    *\|--io-uring | *\|--no-io-uring | *\|--help | *\|--version | *\|--transport=* | --transport\|*)
        exec "$DNSLOAD" "\$@" ;;
    esac
    prev=\$a
done
exec "$DNSLOAD" $_udp_flag "\$@"
WRAP
    chmod +x "$TMPROOT/dnsload-$LG_DNS_UDP"
    DNSLOAD=$TMPROOT/dnsload-$LG_DNS_UDP
    echo "(dnsload over UDP: $LG_DNS_UDP)"
fi
LOADSTATS=${LOADSTATS:-$BUILD/stats/loadstats}
TESTDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TMPROOT=${TMPROOT:-$(mktemp -d)}

_fail_msgs=()
# fail MESSAGE: record a failed assertion (the runner collects these lines from
# the test's log and from its failure file, which a `$(... 2>&1)` cannot
# swallow); the test keeps going so one run shows every broken expectation.
fail() {
    echo "ASSERTION: $*" >&2
    [ -z "${_LG_FAILURES:-}" ] || echo "ASSERTION: $*" >>"$_LG_FAILURES"
}

# _command_failed: the ERR trap of a test: a command that failed where no line
# said a failure was expected fails the test, named with its place.
_command_failed() {
    local rc=$?
    fail "command failed (exit status $rc) at ${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]} in ${FUNCNAME[1]:-?}: $BASH_COMMAND"
}

# exit_status CMD...: run CMD where a failure is expected, and set RC to its
# exit status for the test to check (`exit_status cmp -s a b; assert_eq "$RC" 1`).
exit_status() {
    RC=0
    "$@" || RC=$?
}
assert_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: expected '$2', got '$1'"; }
assert_ne() { [ "$1" != "$2" ] || fail "${3:-values equal}: both '$1'"; }
assert_ge() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a>=b)}' || fail "${3:-too small}: $1 < $2"; }
assert_le() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a<=b)}' || fail "${3:-too large}: $1 > $2"; }
# assert_contains FILE TEXT [WHAT]: FILE has TEXT; if not, the failure quotes
# the file's first lines, so a CI log says what was there instead.
assert_contains() {
    grep -q -- "$2" "$1" || fail "${3:-missing text}: '$2' not in $1: $(head -n 5 "$1" 2>&1 | cut -c 1-300 | tr '\n' '|')"
}
# assert_empty_file FILE [WHAT]: FILE is empty; if not, the failure quotes its
# first lines, so a CI log says what was written and not only how much.
assert_empty_file() {
    [ ! -s "$1" ] || fail "${2:-file not empty}: $1 has $(wc -c <"$1") bytes: $(head -n 5 "$1" | cut -c 1-300)"
}

# assert_errors_described ERR: the summary in ERR has an errors.<class> line,
# and every such line says what happened after its count.
assert_errors_described() {
    grep -qE '^  errors\.[a-z_]+ +[0-9]+' "$1" || fail "no errors.<class> line in $1"
    if grep -qE '^  errors\.[a-z_]+ +[0-9]+ *$' "$1"; then
        fail "error class lines without a description in $1: $(grep -E '^  errors\.[a-z_]+ +[0-9]+ *$' "$1")"
    fi
}

# skip REASON: this test cannot run here (a missing tool, say). Called from the
# test function itself (not inside $(...)): it ends the test's subshell, and
# run_tests reports "skip FILE TEST: REASON", counted apart from ok and FAIL.
# An assertion that failed before the skip still fails the test.
skip() {
    echo "SKIP: $*"
    exit 77
}

# skip_file REASON: no test of this file can run here; call it before run_tests.
skip_file() {
    echo "skip $(basename "$0") (every test): $*"
    exit 0
}

# count_lines REGEX FILE: how many lines of FILE match the extended regular
# expression (0 is an answer, not a failure as grep -c's exit status has it; a
# file that cannot be read is one).
count_lines() { LG_RE=$1 awk '$0 ~ ENVIRON["LG_RE"] { n++ } END { print n + 0 }' "$2"; }

# stop_background PID... : stops servers or fixtures the test started with &
# (SIGTERM), each of which must still have been running and must end by the
# signal (status 143) or cleanly: one that had died on its own, or failed on
# the way out, fails the test.
stop_background() {
    local pid rc
    for pid in "$@"; do
        rc=0
        if ! kill "$pid" 2>/dev/null; then
            wait "$pid" 2>/dev/null || rc=$?
            fail "background process $pid had ended before it was stopped (exit status $rc)"
            continue
        fi
        wait "$pid" 2>/dev/null || rc=$?
        [ "$rc" -eq 0 ] || [ "$rc" -eq 143 ] || fail "background process $pid ended with status $rc when stopped"
    done
}

# run_tool OUT ERR CMD...: run with a hard wall-clock bound; sets RC.
run_tool() {
    local out=$1 err=$2; shift 2
    RC=0
    timeout -k 5 "${RUN_BOUND:-120}" "$@" >"$out" 2>"$err" || RC=$?
}

# loop_system_calls PREFIX: the system calls of the request loop of a run traced
# with `strace -f -ff -o PREFIX` (one file PREFIX.TID per thread), as "CALLS
# THREADS". The loop threads are those that wait in epoll_wait, and every call
# they make counts, whatever its name; threads that never wait there (signals,
# sampling) are left out. The first loop runs on the main thread, so start-up
# and the document's writes count too: a fixed few hundred calls that a run of
# several seconds makes small per request.
loop_system_calls() {
    awk '/^[a-z_][a-z0-9_]*\(/ { calls[FILENAME]++ }
        /^epoll_wait\(/ { loop[FILENAME] = 1 }
        END { for (f in loop) { n += calls[f]; t++ } print n + 0, t + 0 }' "$1".*
}

# doc FILE EXPR...: evaluate expressions over a collector document with the
# checker in doccheck.py (it also validates the document against the contract).
doc() { python3 "$TESTDIR/doccheck.py" "$@" || fail "document check failed: $*"; }

# summary DOC ERR TOOL [--udp] [--watch NAME]...: the per-level summary in ERR
# says what the document DOC holds, figure by figure (summarycheck.py).
summary() { python3 "$TESTDIR/summarycheck.py" "$@" || fail "summary check failed: $*"; }

# set_machine_setting PATH VALUE: write VALUE to a machine setting (a file such
# as /proc/sys/fs/pipe-max-size) for the rest of the test. Its old value is
# recorded first, in a file run_tests reads after the test's subshell has
# ended, however it ended (an assertion, an exit, a skip, a signal), and
# writes back; not a trap of the test's own, which would run where the test
# function's locals no longer exist. Fails (status 1) when PATH cannot be
# read or written, leaving it as it was.
set_machine_setting() {
    local path=$1 value=$2 old
    old=$(cat "$path") || return 1
    printf '%s\t%s\n' "$path" "$old" >>"${_LG_RESTORE:?set_machine_setting runs inside a test}"
    echo "$value" >"$path" 2>/dev/null || return 1
}

# _restore_machine_settings FILE: write back what set_machine_setting recorded,
# the last change first; one line per setting that could not be restored.
_restore_machine_settings() {
    local path old
    [ -s "$1" ] || return 0
    while IFS=$'\t' read -r path old; do
        echo "$old" >"$path" 2>/dev/null || echo "could not restore $path to '$old'"
    done < <(tac "$1")
}

run_tests() {
    local passed=0 failed=0 skipped=0 name rc reason
    # shellcheck disable=SC2086 # the list's words, whatever spaces or lines part them
    local normal_only=" $(printf '%s ' ${NORMAL_ONLY:-})"
    for name in $(declare -F | awk '{print $3}' | grep '^t_'); do
        [ -n "${ONLY:-}" ] && [[ $name != *"$ONLY"* ]] && continue
        # the second UDP transport's pass (LG_DNS_UDP=plain) repeats only the
        # tests a file names in UDP_TESTS, if it names any: the others (TCP,
        # DoT, DoH, usage) ran in the first pass and would run the same again
        if [ "${LG_DNS_UDP:-}" = plain ] && [ -n "${UDP_TESTS:-}" ] &&
            [[ " $(printf '%s ' ${UDP_TESTS}) " != *" $name "* ]]; then
            continue
        fi
        # NORMAL_ONLY (set by the file, saying why): tests whose subject is
        # time run on the normal build only, where their figures are the
        # generator's and not the sanitizer's (scripts/test sets SUITE)
        if [ "${SUITE:-normal}" != normal ] && [[ $normal_only == *" $name "* ]]; then
            echo "    ($name runs on the normal build only)"
            continue
        fi
        _fail_msgs=()
        local start=$SECONDS
        rc=0
        _LG_FAILURES=$TMPROOT/$name.failures
        _LG_RESTORE=$TMPROOT/$name.restore
        : >"$_LG_FAILURES"
        : >"$_LG_RESTORE"
        # not `( ... ) || rc=$?`: inside a subshell on the left of || bash
        # ignores the ERR trap and set -e
        (
            set -u -E -o pipefail
            trap _command_failed ERR
            "$name"
        ) >"$TMPROOT/$name.log" 2>&1
        rc=$?
        mapfile -t unrestored < <(_restore_machine_settings "$_LG_RESTORE")
        ((${#unrestored[@]})) && _fail_msgs+=("${unrestored[@]}")
        # bash's own complaint under set -u (an EXIT trap naming a function's
        # local, say) does not change the test's status, so it is read here
        mapfile -t unbound < <(grep -E ': unbound variable$' "$TMPROOT/$name.log")
        ((${#unbound[@]})) && _fail_msgs+=("${unbound[@]/#/the shell said: }")
        # a skip is exit 77 from skip(), with its reason in the log
        reason=
        [ "$rc" -eq 77 ] && reason=$(sed -n 's/^SKIP: //p' "$TMPROOT/$name.log" | head -n 1)
        if [ "$rc" -ne 0 ] && [ -z "$reason" ]; then
            _fail_msgs+=("test function exited $rc")
        fi
        # assertions made inside the subshell are reported through the log
        # (a Python checker's ASSERTION lines) and the failure file (fail and
        # the ERR trap), each once
        mapfile -t extra < <(cat "$TMPROOT/$name.log" "$_LG_FAILURES" | sed -n 's/^ASSERTION: //p' | awk '!seen[$0]++')
        ((${#extra[@]})) && _fail_msgs+=("${extra[@]}")
        unset _LG_FAILURES _LG_RESTORE
        if ((${#_fail_msgs[@]})); then
            failed=$((failed + 1))
            echo "FAIL $(basename "$0") $name ($((SECONDS - start))s)"
            printf '    %s\n' "${_fail_msgs[@]}"
            sed 's/^/    | /' "$TMPROOT/$name.log" | tail -n 20
        elif [ -n "$reason" ]; then
            skipped=$((skipped + 1))
            echo "skip $(basename "$0") $name: $reason"
        else
            passed=$((passed + 1))
            echo "ok   $(basename "$0") $name ($((SECONDS - start))s)"
        fi
    done
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
}
