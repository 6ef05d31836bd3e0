#!/usr/bin/env bash
# run: once
# (the normal build only: what it judges is how soon a run stops, within one
# second; an interrupted run's document is also written under the sanitizers in
# t_attribution's and t_harness' signal tests)
# SIGINT and SIGTERM at any moment of a run (while 50,000 clients are being
# set up, between levels, in the drain window, mid-level) stop it within one
# second, print the document of what was measured (with what was in flight
# counted as unfinished) and exit 130.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
source "$(dirname "$0")/servers_dns.sh"
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
    # (an interrupted cohort has clients that never started)
    doc $O --idle-clients-ok "levels()==[$BIG]"
}

# The first level ends after 1 s; the second (a large cohort) is starting
# when the signal comes: the first is reported whole.
t_signal_between_levels() {
    signalled INT 1.1 "$HTTPLOAD" --levels 2,"$BIG" -d 1s --timeout 2s --max-error-rate 1 "$BASE/"
    assert_eq "$RC" 130 "exit status"
    assert_le "$STOP_MS" 1000 "stopped within a second"
    doc $O --idle-clients-ok "v('c2.requests')>0" "v('c2.unfinished')==0" "min(s('c2.client_attempts'))>0"
}

# A request that never gets an answer keeps the drain window (10 s) open.
t_signal_in_the_drain_window() {
    need_httpfault || { fail "fixture did not start"; return; }
    signalled INT 1 "$HTTPLOAD" -c 2 -d 300ms --timeout 10s "http://127.0.0.1:$HTTPFAULT_PORT/stall"
    assert_eq "$RC" 130 "exit status"
    assert_le "$STOP_MS" 1000 "stopped within a second"
    doc $O --invariants "v('c2.unfinished')==2" "v('c2.attempts')==2"
}

# The level a signal cuts short ran less than planned: its per-second series
# end with the last whole second it ran (ran_s says how long), so their
# median is the rate it ran at, not 0 from the seconds it never ran. The first
# level (2 s) is whole; the signal comes 1.3 s into the second.
t_interrupted_level_series_end_where_it_stopped() {
    signalled INT 3.3 "$HTTPLOAD" --levels 2,4 -d 2s --meta "$TMPROOT/cut.meta.json" "$BASE/"
    assert_eq "$RC" 130 "exit status"
    doc $O --invariants "levels()==[2,4]" "s('c2.ran_s')==[2]" "n('c2.requests_per_second')==2" \
        "0<v('c4.ran_s')<2" "n('c4.requests_per_second')==int(v('c4.ran_s'))>=1" \
        "n('c4.generator_cpu_s')<=max(1,int(v('c4.ran_s')))"
    interrupted_rate_is_the_rate_it_ran_at "$O" 4
    cut_off_is_not_an_error "$O" 4
    python3 - "$TMPROOT/cut.meta.json" "$O" <<'PY' || fail "--meta's levels: how long each ran"
import json, sys
meta, m = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["metrics"]
for level in meta["levels"]:
    c = "c%d." % level["clients"]
    if level["seconds"] != m[c + "ran_s"]["samples"][0] or level["interrupted"] != (c == "c4."):
        sys.exit("level %s: seconds %s, interrupted %s; the document's ran_s %s"
                 % (c, level["seconds"], level["interrupted"], m[c + "ran_s"]["samples"]))
PY
}

# The same for dnsload's open loop, planned for a minute and stopped after 2.5 s.
t_interrupted_open_loop_series_end_where_it_stopped() {
    need_knot || { fail "knot did not start"; return; }
    signalled INT 2.5 "$DNSLOAD" -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' \
        -c 4 -R 2000 -d 1m
    assert_eq "$RC" 130 "exit status"
    doc $O --invariants "0<v('c4.ran_s')<3" "n('c4.requests_per_second')==int(v('c4.ran_s'))>=1" \
        "v('c4.scheduled')<=2000*v('c4.ran_s')+4"
    interrupted_rate_is_the_rate_it_ran_at "$O" 4
    cut_off_is_not_an_error "$O" 4
}

# Requests an interrupt cuts off are not the target's errors: a level whose
# every response is a 404 breaches --max-error-rate by its errors alone, and
# the rate is of the requests that ended before the signal.
t_interrupted_error_rate_leaves_out_what_was_cut_off() {
    signalled INT 1 "$HTTPLOAD" -c 2 -d 1m "$BASE/missing"
    assert_eq "$RC" 130 "exit status"
    doc $O --invariants "v('c2.errors')>0" "v('c2.requests')==0"
    local ended
    ended=$(python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["metrics"]
print(m["c2.attempts"]["samples"][0] - m["c2.unfinished"]["samples"][0])' "$O")
    assert_contains $E "errors in the $ended attempts not cut off by the interrupt (100%) exceed --max-error-rate 0"
    cut_off_is_not_an_error "$O" 2
}

# cut_off_is_not_an_error DOC CLIENTS: stderr counts the level's unfinished
# requests as what the interrupt cut off, and never as errors against
# --max-error-rate ("N unfinished in", "N unfinished and"), nor says a level
# with nothing else against it exceeds it.
cut_off_is_not_an_error() {
    python3 - "$1" "$E" "c$2." <<'PY' || fail "the requests the interrupt cut off, on stderr"
import json, re, sys
m, err, c = json.load(open(sys.argv[1]))["metrics"], open(sys.argv[2]).read(), sys.argv[3]
cut = m[c + "unfinished"]["samples"][0]
level = c.rstrip(".")
print("%s unfinished; stderr:\n%s" % (cut, err))
if cut and "%d unfinished (cut off by the interrupt)" % cut not in err:
    sys.exit("the summary does not say the %d unfinished requests were cut off by the interrupt" % cut)
for line in err.splitlines():
    if "level %s:" % level in line and "--max-error-rate" in line and re.search(r"\d+ unfinished", line):
        sys.exit("requests cut off by the interrupt counted against --max-error-rate: " + line)
# (an open loop's requests due but still waiting for a slot when the signal
# came are unsent, as at the deadline: they may breach it)
unsent = m.get(c + "unsent", {"samples": [0]})["samples"][0]
if m[c + "errors"]["samples"][0] == 0 and unsent == 0 and "exceed --max-error-rate" in err:
    sys.exit("a level without errors or unsent requests said to exceed --max-error-rate")
PY
}

# interrupted_rate_is_the_rate_it_ran_at DOC CLIENTS: loadstats summary's
# median of the level's requests_per_second is at least half its highest
# second and half its requests over the time it ran (a series padded with the
# seconds it never ran has a median of 0).
interrupted_rate_is_the_rate_it_ran_at() {
    "$LOADSTATS" summary --json "$1" >"$TMPROOT/cut.summary.json" || fail "loadstats summary $1"
    python3 - "$1" "$TMPROOT/cut.summary.json" "c$2." <<'PY' || fail "the level's rate in loadstats summary"
import json, sys
m, summary, c = json.load(open(sys.argv[1]))["metrics"], json.load(open(sys.argv[2])), sys.argv[3]
rps = summary[c + "requests_per_second"]
ran = m.get(c + "ran_s", {"samples": [float("nan")]})["samples"][0]
ran_at = m[c + "requests"]["samples"][0] / ran
print("median %s requests/s over %d seconds (highest %s); %s/s over the %s s it ran"
      % (rps["median"], rps["n"], rps["max"], ran_at, ran))
if not rps["median"] >= rps["max"] / 2:
    sys.exit("median %s requests/s of seconds whose highest is %s" % (rps["median"], rps["max"]))
if not rps["median"] >= ran_at / 2:
    sys.exit("median %s requests/s for a level that ran at %s/s" % (rps["median"], ran_at))
PY
}

# The same moments with the options that start threads or change the loops:
# --log starts its writer thread (it used to start before the signals were
# blocked, so SIGTERM killed the run with exit 143 and no document), --watch
# samples on the control thread, -t 2 runs two loops, and dnsload keeps four
# queries in flight per client. Each: SIGINT and SIGTERM mid-level, SIGINT
# while a cohort connects, between levels and in the drain window.
t_signals_with_threads_and_options_at_every_moment() {
    need_httpfault || { fail "fixture did not start"; return; }
    local L=$TMPROOT/sig.log opts sig name
    local -a sets=("--log $L" "--watch nginx=pidfile:$SRV/nginx/nginx.pid" "-t 2")
    for opts in "${sets[@]}"; do
        name=${opts%% *}
        for sig in INT TERM; do
            # shellcheck disable=SC2086 # opts is a list of words
            signalled $sig 0.5 "$HTTPLOAD" -c 8 -d 30s $opts "$BASE/"
            assert_eq "$RC" 130 "$name, SIG$sig mid-level: exit status"
            assert_le "$STOP_MS" 1000 "$name, SIG$sig mid-level: stopped within a second"
            doc $O --invariants "v('c8.requests')>0"
        done
        # shellcheck disable=SC2086
        signalled INT 0.1 "$HTTPLOAD" -c 2000 -d 30s --timeout 2s --max-error-rate 1 $opts "$BASE/"
        assert_eq "$RC" 130 "$name, while a cohort connects: exit status"
        assert_le "$STOP_MS" 1000 "$name, while a cohort connects: stopped within a second"
        doc $O --idle-clients-ok "levels()==[2000]"
        # shellcheck disable=SC2086
        signalled TERM 1.1 "$HTTPLOAD" --levels 2,2000 -d 1s --timeout 2s --max-error-rate 1 $opts "$BASE/"
        assert_eq "$RC" 130 "$name, between levels: exit status"
        assert_le "$STOP_MS" 1000 "$name, between levels: stopped within a second"
        doc $O --idle-clients-ok "v('c2.requests')>0" "v('c2.unfinished')==0" \
            "min(s('c2.client_attempts'))>0"
        # shellcheck disable=SC2086
        signalled INT 1 "$HTTPLOAD" -c 2 -d 300ms --timeout 10s $opts \
            "http://127.0.0.1:$HTTPFAULT_PORT/stall"
        assert_eq "$RC" 130 "$name, in the drain window: exit status"
        assert_le "$STOP_MS" 1000 "$name, in the drain window: stopped within a second"
        doc $O --invariants "v('c2.unfinished')==2"
    done
    need_knot || { fail "knot did not start"; return; }
    for sig in INT TERM; do
        signalled $sig 0.5 "$DNSLOAD" -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' \
            -c 4 --outstanding 4 -d 30s --log "$L"
        assert_eq "$RC" 130 "dnsload --outstanding 4 --log, SIG$sig: exit status"
        assert_le "$STOP_MS" 1000 "dnsload --outstanding 4 --log, SIG$sig: stopped within a second"
        doc $O --invariants "v('c4.requests')>0"
    done
}

run_tests
