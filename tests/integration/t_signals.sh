#!/usr/bin/env bash
# SIGINT and SIGTERM at any moment of a run (while 50,000 clients are being
# set up, between levels, in the drain window, mid-level) stop it within one
# second, print the document of what was measured (with what was in flight
# counted as unfinished) and exit 130.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
trap stop_servers EXIT
need_nginx || exit 1

# The largest cohort the descriptor limit allows, up to 50,000 (a container
# may not let even root raise its hard limit).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
BIG=$(($(ulimit -n) - 500))
((BIG > 50000)) && BIG=50000

O=$TMPROOT/out.json
E=$TMPROOT/err.txt
BASE=http://127.0.0.1:$NGINX_HTTP_PORT

# signalled SIG AFTER CMD...: runs CMD, sends SIG after AFTER seconds, and sets
# RC and STOP_MS (milliseconds from the signal to the exit).
signalled() {
    local sig=$1 after=$2
    shift 2
    "$@" >"$O" 2>"$E" &
    local pid=$!
    sleep "$after"
    local t0
    t0=$(date +%s%N)
    kill -s "$sig" "$pid"
    # bounded: the run must end by itself well within this
    local i
    for ((i = 0; i < 100; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    RC=0
    wait "$pid" || RC=$?
    STOP_MS=$((($(date +%s%N) - t0) / 1000000))
    echo "signal $sig after ${after}s: exit $RC, stopped in $STOP_MS ms"
}

t_signal_mid_level_prints_what_was_measured() {
    signalled INT 1 "$HTTPLOAD" -c 8 -d 30s "$BASE/"
    assert_eq "$RC" 130 "exit status"
    assert_le "$STOP_MS" 1000 "stopped within a second"
    doc $O --invariants "v('c8.requests')>0"
    assert_contains $E "interrupted by signal 2"
}

t_sigterm_is_handled_like_sigint() {
    signalled TERM 1 "$DNSLOAD" -s 127.0.0.1 -p 1 --query 'www.example.test A' -c 4 -d 30s
    assert_eq "$RC" 130 "exit status"
    assert_le "$STOP_MS" 1000 "stopped within a second"
    doc $O --invariants "v('c4.attempts')>0"
    assert_contains $E "interrupted by signal 15"
}

# Tens of thousands of clients take a while to connect: the signal comes
# while they do.
t_signal_while_a_large_cohort_starts() {
    echo "cohort of $BIG clients"
    signalled INT 0.1 "$HTTPLOAD" -c "$BIG" -d 30s --timeout 2s --max-error-rate 1 "$BASE/"
    assert_eq "$RC" 130 "exit status"
    assert_le "$STOP_MS" 1000 "stopped within a second"
    doc $O "levels()==[$BIG]"
}

# The first level ends after 1 s; the second (a large cohort) is starting
# when the signal comes: the first is reported whole.
t_signal_between_levels() {
    signalled INT 1.1 "$HTTPLOAD" --levels 2,"$BIG" -d 1s --timeout 2s --max-error-rate 1 "$BASE/"
    assert_eq "$RC" 130 "exit status"
    assert_le "$STOP_MS" 1000 "stopped within a second"
    doc $O "v('c2.requests')>0" "v('c2.unfinished')==0"
}

# A request that never gets an answer keeps the drain window (10 s) open.
t_signal_in_the_drain_window() {
    need_httpfault || { fail "fixture did not start"; return; }
    signalled INT 1 "$HTTPLOAD" -c 2 -d 300ms --timeout 10s "http://127.0.0.1:$HTTPFAULT_PORT/stall"
    assert_eq "$RC" 130 "exit status"
    assert_le "$STOP_MS" 1000 "stopped within a second"
    doc $O --invariants "v('c2.unfinished')==2" "v('c2.attempts')==2"
}

run_tests
