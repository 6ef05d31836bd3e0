#!/usr/bin/env bash
# run: once
# (the normal build only since 2026-12-04: CI had outgrown its 40 minutes; the
# sanitizers still meet this code in the torture scenarios and the other files)
# Integration tests of dnsload --io-uring (UDP sends and receives through one
# io_uring per loop thread): the same answers and error classes as the plain
# UDP transport against knot, BIND (whose own count of queries must equal the
# attempts) and the fault fixture dnsfault.py (whose classes t_dnsload.sh
# checks over both transports); threads, levels and queries in flight, and
# more clients than the ring's queue holds; ICMP errors; fewer system calls per answer than the plain path's
# bound (counted with strace); an io_uring the process cannot set up (a shim
# in front of liburing: --io-uring stops); the default, plain sockets; the
# wake-up probe made to fail, and the self-watch that sees a loop asleep on
# completions; the ring's answers and p99 beside the plain transport's
# against knot and unbound; and the options it does not combine with.
# Needs knot, unbound, BIND 9 (bind9), kdig, strace, cc, taskset.
# Run: BUILD=/path/to/build bash tests/integration/t_dns_ioring.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$TESTDIR/servers.sh"
source "$TESTDIR/servers_dns.sh"
trap stop_servers EXIT

# its subject is speed: on the normal build only, where the figures are the
# generator's and not the sanitizer's (lib.sh's NORMAL_ONLY)
NORMAL_ONLY="t_the_ring_answers_near_the_plain_transport"

W=$TMPROOT/dns_ioring
mkdir -p "$W"
RUN_BOUND=${RUN_BOUND:-30}

check() { doc "$@" || fail "document checks failed: ${*:2}"; }

# ring OUT ARGS...: dnsload --io-uring, stdout in OUT.json, stderr in OUT.err.
ring() {
    local out=$1; shift
    run_tool "$W/$out.json" "$W/$out.err" "$DNSLOAD" --io-uring "$@"
}

t_knot_answers_every_query_and_the_descriptor_says_io_uring() {
    need_knot || { fail "knot did not start"; return; }
    printf 'www.example.test A\nwww.example.test AAAA\nexample.test MX\nnope.example.test A\n' \
        >"$W/knot.queries"
    ring k1 -s 127.0.0.1 -p "$KNOT_PORT" --queries "$W/knot.queries" -c 4 -d 1s -q \
        --meta "$W/k1.meta"
    assert_eq "$RC" 0 "exit status"
    [ "$RC" = 0 ] || cat "$W/k1.err" >&2
    check "$W/k1.json" --invariants 'v("c4.requests") > 100' 'v("c4.errors") == 0' \
        'v("c4.rcode.NOERROR") + v("c4.rcode.NXDOMAIN") == v("c4.requests")' \
        'v("c4.rcode.NXDOMAIN") > 0' 'v("c4.connections") == 4' 'v("c4.reconnects") == 0' \
        'n("c4.latency_cold_ms") == 4' 'n("c4.latency_warm_ms") == v("c4.requests") - 4' \
        'v("c4.late") == 0' 'v("c4.unexpected") == 0' 'v("c4.bytes_received") > 0'
    python3 - "$W/k1.meta" <<'PY' || fail "the descriptor does not say io_uring"
import json, sys
m = json.load(open(sys.argv[1]))
def find(d):
    if isinstance(d, dict):
        if "io_uring" in d:
            return d["io_uring"]
        for v in d.values():
            r = find(v)
            if r is not None:
                return r
    return None
assert find(m) is True, find(m)
PY
}

# BIND's statistics channel counts every query it received: it must equal
# the attempts, so no datagram went out twice or not at all.
t_bind_counts_every_attempt() {
    need_bind || { fail "BIND did not start"; return; }
    local before after
    before=$(bind_requests) || { fail "BIND statistics channel unreadable"; return; }
    ring b1 -s 127.0.0.1 -p "$BIND_PORT" --query 'www.example.test A' \
        --query 'nope.example.test AAAA' --outstanding 4 -c 3 -d 1s -q
    after=$(bind_requests) || { fail "BIND statistics channel unreadable"; return; }
    assert_eq "$RC" 0 "exit status"
    echo "BIND received $((after - before)) queries"
    check "$W/b1.json" --invariants 'v("c3.requests") > 50' 'v("c3.errors") == 0' \
        'v("c3.unexpected") == 0' "v('c3.attempts') == $((after - before))"
}

t_threads_levels_and_queries_in_flight() {
    need_knot || { fail "knot did not start"; return; }
    ring k2 -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' --query 'example.test MX' \
        --threads 2 --levels 2,6 --outstanding 16 -d 500ms -q
    assert_eq "$RC" 0 "exit status"
    check "$W/k2.json" --invariants 'levels() == [2, 6]' 'v("c2.connections") == 2' \
        'v("c6.connections") == 6' 'v("c2.requests") > 32' 'v("c6.requests") > 96' \
        'v("c2.errors") + v("c6.errors") == 0' 'v("c2.unexpected") + v("c6.unexpected") == 0' \
        'v("c2.late") + v("c6.late") == 0'
}

# 1,024 queries in flight on each of 2 clients: the send buffers (256 to a
# chunk, one chunk for these 2 clients at first) grow to what is in flight:
# no send fails, no socket is opened again, and every answer finds its
# query. With more than about 300 queries in flight knot drops some (their
# queries time out: 1,813 of 86,087 without --io-uring and 1,660 of 98,839
# with it in a 1-s run here), so a timeout is the one error allowed.
t_outstanding_1024_grows_the_send_buffers() {
    need_knot || { fail "knot did not start"; return; }
    ring k3 -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' --outstanding 1024 -c 2 \
        -d 1s --timeout 5s --max-error-rate 1 -q
    assert_eq "$RC" 0 "exit status"
    [ "$RC" = 0 ] || tail -n 5 "$W/k3.err" >&2
    check "$W/k3.json" --invariants 'v("c2.requests") > 4096' 'not has("c2.errors.send")' \
        'v("c2.errors") == (v("c2.errors.timeout") if has("c2.errors.timeout") else 0)' \
        'v("c2.unexpected") == 0' 'v("c2.late") == 0' 'v("c2.connections") == 2' \
        'v("c2.reconnects") == 0'
}

# The fault fixture's classes over the ring: t_dnsload.sh's fault tests, which
# scripts/test runs over each UDP transport (LG_DNS_UDP).

# An answer longer than the queries allow (their EDNS size, else 512 bytes)
# is the server's fault and the same error on both transports: the ring
# receives one byte more than an answer may have, the plain socket all of it,
# and the driver fails the query as malformed, naming the size; the socket
# stays. Through the ring it was errors.socket and a socket opened again
# (issue 39). With room for it (--edns=4096) it is an answer like any other.
t_a_datagram_larger_than_the_queries_allow_is_the_same_error_on_both() {
    need_dnsfault || { fail "dnsfault.py did not start"; return; }
    local t
    for t in --io-uring --no-io-uring; do
        run_tool "$W/big$t.json" "$W/big$t.err" "$DNSLOAD" "$t" -s 127.0.0.1 \
            -p "$DNSFAULT_PORT" --query 'big.example.test A' -c 2 -d 500ms --timeout 200ms
        assert_eq "$RC" 1 "$t: exit status"
        check "$W/big$t.json" --invariants 'v("c2.errors.malformed") == v("c2.attempts") > 0' \
            'v("c2.connections") == 2' 'v("c2.reconnects") == 0'
        assert_contains "$W/big$t.err" "a UDP answer over the 512 bytes its query allowed"
        run_tool "$W/big2$t.json" "$W/big2$t.err" "$DNSLOAD" "$t" -s 127.0.0.1 \
            -p "$DNSFAULT_PORT" --query 'big.example.test A' -c 2 -d 500ms --timeout 200ms \
            --edns=4096 -q
        assert_eq "$RC" 0 "$t: exit status with --edns=4096"
        check "$W/big2$t.json" --invariants 'v("c2.requests") > 0' 'v("c2.errors") == 0'
    done
}

t_icmp_port_unreachable_is_charged_and_the_socket_stays() {
    # nothing listens on this loopback port: the kernel answers with ICMP,
    # which the ring reports on a later send or receive
    ring icmp -s 127.0.0.1 -p 15399 --query 'www.example.test A' -c 2 -d 300ms -q
    assert_eq "$RC" 1 "exit status"
    check "$W/icmp.json" --invariants 'v("c2.errors.icmp") == v("c2.attempts") > 0' \
        'v("c2.connections") == 2' 'v("c2.reconnects") == 0'
}

# The point of the ring: the loop's system calls per answer, counted (not
# timed) under strace as t_dnsload.sh counts the plain path's, whose bound is
# 2.1 (a send and a receive each, and the epoll_wait they share). The ring's
# calls: epoll_wait, the eventfd's read and io_uring_enter, per turn of the
# loop, each turn carrying the answers that came since the last.
t_fewer_system_calls_per_answer_than_the_plain_path() {
    command -v strace >/dev/null || skip "strace missing (apt-get install strace)"
    need_knot || { fail "knot did not start"; return; }
    local st=$W/strace calls threads requests
    rm -rf "$st" && mkdir -p "$st"
    run_tool "$W/sc.json" "$W/sc.err" env ASAN_OPTIONS=detect_leaks=0 strace -f -ff -qq -s 0 \
        -o "$st/t" "$DNSLOAD" --io-uring -s 127.0.0.1 -p "$KNOT_PORT" \
        --query 'www.example.test A' -c 64 -d 5s --timeout 10s -q
    assert_eq "$RC" 0 "exit status"
    read -r calls threads < <(loop_system_calls "$st/t")
    requests=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["metrics"]["c64.requests"]["samples"][0])' "$W/sc.json")
    echo "system calls $calls in $threads loop threads for $requests answers"
    assert_ge "$threads" 1 "threads waiting in epoll_wait"
    assert_ge "$requests" 10000 "answers under strace"
    assert_le "$(awk -v c="$calls" -v r="$requests" 'BEGIN{printf "%.3f", c/r}')" 1.0 \
        "system calls per answered query"
}

# At a low rate nothing batches: each answer takes a turn of its own. The
# loop then enters the ring at most three times per answer (the send, the
# reply's completion, its receive posted again) and no more: a pump that
# entered with nothing queued and no completion waiting made it five.
# --max-error-rate 1: under strace on a busy machine (CI, 2026-12-03) some
# queries of the schedule went unsent; what this counts is per answer. Of the
# 1,000 scheduled at least 900 are answered: the bound was lowered to 500
# with no figure when the ring slept through its replies (issue 39); with a
# loop that wakes on time it holds again (here 1,000 of 1,000, twice).
t_at_a_low_rate_the_ring_is_entered_only_with_work() {
    command -v strace >/dev/null || skip "strace missing (apt-get install strace)"
    need_knot || { fail "knot did not start"; return; }
    local st=$W/strace_low enters requests
    rm -rf "$st" && mkdir -p "$st"
    run_tool "$W/low.json" "$W/low.err" env ASAN_OPTIONS=detect_leaks=0 strace -f -ff -qq -s 0 \
        -o "$st/t" "$DNSLOAD" --io-uring -s 127.0.0.1 -p "$KNOT_PORT" \
        --query 'www.example.test A' -c 1 -R 500 -d 2s --timeout 10s --max-error-rate 1 -q
    assert_eq "$RC" 0 "exit status"
    enters=$(cat "$st"/t.* | grep -c '^io_uring_enter(')
    requests=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["metrics"]["c1.requests"]["samples"][0])' "$W/low.json")
    echo "io_uring_enter $enters for $requests answers"
    assert_ge "$requests" 900 "answers under strace"
    assert_le "$(awk -v c="$enters" -v r="$requests" 'BEGIN{printf "%.3f", c/r}')" 3.2 \
        "io_uring_enter calls per answer at 500/s"
}

# The open loop's timer hands the sends it started to the kernel before it
# sets itself again: left to the end of the loop's turn, a query's send lag
# took the timer's system call and the turn's other work too (median 69 us
# against the plain transport's 57 at 5,000/s on one client). Counted, not
# timed: in the loop thread, each timer re-arm that follows a wake-up with
# no io_uring_enter before it is a send that waited. --max-error-rate 1: under
# strace on a busy machine (CI, 2026-12-03: 393 re-arms, 383 after the sends)
# queries went unsent, which is not what this judges.
t_the_open_loop_sends_before_its_timer_is_set_again() {
    command -v strace >/dev/null || skip "strace missing (apt-get install strace)"
    need_knot || { fail "knot did not start"; return; }
    local st=$W/strace_order counts
    rm -rf "$st" && mkdir -p "$st"
    run_tool "$W/order.json" "$W/order.err" env ASAN_OPTIONS=detect_leaks=0 strace -f -ff -qq \
        -s 0 -e trace=epoll_wait,io_uring_setup,io_uring_enter,timerfd_settime -o "$st/t" \
        "$DNSLOAD" --io-uring \
        -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 1 -R 500 -d 1s --timeout 10s \
        --max-error-rate 1 -q
    assert_eq "$RC" 0 "exit status"
    # "RE-ARMS AFTER-A-SEND", from the first io_uring_enter after the loop's
    # ring is set up (the timer's resolution, measured at start-up, re-arms a
    # timerfd too, after the wake-up probe's ring has entered the kernel)
    counts=$(awk 'FNR == 1 { ring = 0 } /^io_uring_setup\(/ { ring = n = s = 0 }
        /^epoll_wait\(/ { sent = 0 }
        /^io_uring_enter\(/ { sent = ring = 1 }
        /^timerfd_settime\(/ && ring { n++; if (sent) s++ } END { print n + 0, s + 0 }' "$st"/t.*)
    echo "timer re-arms, and those after the wake-up's sends: $counts"
    assert_ge "${counts% *}" 250 "timer re-arms (one a query; a late one may start two)"
    assert_ge "$(awk -v c="$counts" 'BEGIN{split(c, a, " "); printf "%.3f", a[2] / a[1]}')" 0.95 \
        "share of re-arms that come after the sends"
}

# The open loop: every scheduled query is started or counted unsent, and
# every started one has its send lag, which ends when the ring reports that
# the kernel took its datagram. Two loop threads: the sockets (and so the
# rings) are made on the main thread before the loops start, and each ring
# is enabled by the thread that submits to it. (Whether the generator kept up
# is t_openloop.sh's subject, at the real-time priority; here the accounting
# is, so an unsent query does not fail the run.)
t_open_loop_accounts_for_every_query_and_its_send_lag() {
    need_knot || { fail "knot did not start"; return; }
    ring ol -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 4 --threads 2 -R 2000 \
        -d 1s --levels 4,8 --max-error-rate 1 -q
    assert_eq "$RC" 0 "exit status"
    local c
    for c in c4 c8; do
        check "$W/ol.json" --invariants "v('$c.scheduled') == 2000" \
            "v('$c.attempts') + v('$c.unsent') == v('$c.scheduled')" "v('$c.attempts') > 1000" \
            "n('$c.send_lag_ms') == v('$c.attempts')" "min(s('$c.send_lag_ms')) >= 0" \
            "v('$c.requests') == v('$c.attempts')" "v('$c.unexpected') == 0"
    done
}

# More clients on a loop than its ring's queue holds, in an open loop on a
# thread of its own: the sockets are made ahead on the main thread, which
# once posted their receives, filled the queue, enabled the ring to hand it
# over and so became its only submitter; the loop's thread then failed every
# io_uring_enter (exit 4, "io_uring_enter failed: File exists"). The queue
# is 32,768 entries, for more clients than this machine's 20,000
# descriptors allow, so LOADGEN_TEST_RING_ENTRIES makes it 64 here, for 150
# clients a loop.
t_more_clients_than_the_queue_holds_in_the_open_loop() {
    need_knot || { fail "knot did not start"; return; }
    run_tool "$W/fullq.json" "$W/fullq.err" env LOADGEN_TEST_RING_ENTRIES=64 "$DNSLOAD" \
        --io-uring -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 300 --threads 2 \
        -R 2000 -d 1s --max-error-rate 1 -q
    assert_eq "$RC" 0 "exit status"
    [ "$RC" = 0 ] || cat "$W/fullq.err" >&2
    check "$W/fullq.json" --invariants 'v("c300.attempts") + v("c300.unsent") == v("c300.scheduled")' \
        'v("c300.attempts") >= 300' 'v("c300.requests") == v("c300.attempts")'
}

# ring_shim: builds $W/ringshim.so, a shim in front of liburing that makes
# io_uring_queue_init_params fail with errno RINGSHIM_ERRNO (a number) for a
# ring of more than RINGSHIM_ABOVE entries and passes the others on, and
# prints the LD_PRELOAD value that loads it (the sanitizer's runtime first on
# that build). Non-zero when it cannot be built.
ring_shim() {
    cat >"$W/ringshim.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
struct io_uring;
struct io_uring_params;
int io_uring_queue_init_params(unsigned entries, struct io_uring *ring, struct io_uring_params *p)
{
    int (*real)(unsigned, struct io_uring *, struct io_uring_params *) =
        (int (*)(unsigned, struct io_uring *, struct io_uring_params *))dlsym(RTLD_NEXT, "io_uring_queue_init_params");
    if (entries > strtoul(getenv("RINGSHIM_ABOVE"), NULL, 10)) return -atoi(getenv("RINGSHIM_ERRNO"));
    return real(entries, ring, p);
}
C
    cc -shared -fPIC -o "$W/ringshim.so" "$W/ringshim.c" -ldl || return 1
    if ldd "$DNSLOAD" | grep -q libasan; then
        echo "$(ldd "$DNSLOAD" | awk '/libasan/ { print $3 }'):$W/ringshim.so"
    else
        echo "$W/ringshim.so"
    fi
}

# An io_uring the process may not set up (a container's seccomp filter, or
# kernel.io_uring_disabled): one line naming it, the run stops with the
# status of a run that could not be carried out, no hang and no document.
t_an_io_uring_that_cannot_be_set_up_is_named() {
    command -v cc >/dev/null || skip "cc missing (apt-get install gcc)"
    need_knot || { fail "knot did not start"; return; }
    local preload start=$SECONDS
    preload=$(ring_shim) || { fail "cannot build the shim"; return; }
    # EPERM (1) for every ring
    run_tool "$W/no.json" "$W/no.err" env LD_PRELOAD="$preload" RINGSHIM_ABOVE=0 RINGSHIM_ERRNO=1 \
        "$DNSLOAD" --io-uring \
        -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 4 -d 2s
    cat "$W/no.err"
    assert_le $((SECONDS - start)) 10 "bounded"
    assert_eq "$RC" 4 "exit status (the run could not be carried out)"
    assert_eq "$(cat "$W/no.err")" "dnsload: --io-uring: cannot set up an io_uring: Operation not permitted" "one line naming it"
    assert_empty_file "$W/no.json" "nothing on stdout"
    # Without --io-uring the same process takes the plain transport, its
    # default: every answer, nothing on stderr, and --meta says which. An open loop
    # of 20 clients, 50 ms apart each: a closed loop keeps its event loop busy,
    # and on a loaded machine the self-watch then rightly says so on stderr.
    run_tool "$W/fb.json" "$W/fb.err" env LD_PRELOAD="$preload" RINGSHIM_ABOVE=0 RINGSHIM_ERRNO=1 \
        "$DNSLOAD" -q --meta "$W/fb.meta" \
        -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 20 -R 400 -d 500ms
    assert_eq "$RC" 0 "the default: exit status"
    assert_empty_file "$W/fb.err" "the default: stderr"
    check "$W/fb.json" --invariants 'v("c20.requests") > 100' 'v("c20.errors") == 0'
    assert_eq "$(ring_choice "$W/fb.meta")" "False|udp" "the default: --meta"
    assert_eq "$(ring_why "$W/fb.meta")" "the default" "the default: --meta's reason"
}

# ring_choice META: "io_uring|transport of each level" from a --meta document.
ring_choice() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(str(d["dns"]["io_uring"]) + "|" + ",".join(l["transport"] for l in d["levels"]))' "$1"
}

# ring_why META: the descriptor's dns.io_uring_why.
ring_why() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dns"]["io_uring_why"])' "$1"
}

# The default is the plain transport, whatever the clients (issue 39: the
# ring, the default since c085706 for levels of 2 clients a loop, made the
# server pay 5% more CPU per answer and so measured fewer answers from a
# server at its limit); --io-uring takes the ring for every level. --meta says
# which and why, each level its transport, and the loop entered a ring
# exactly when it says so (strace). Open loops at a low rate: what is judged
# is the choice, never the machine's speed (no self-watch note, no error
# rate).
t_the_default_is_the_plain_transport() {
    command -v strace >/dev/null || skip "strace missing (apt-get install strace)"
    need_knot || { fail "knot did not start"; return; }
    local args want why enters
    while IFS=';' read -r args want why; do
        # shellcheck disable=SC2086 # the case's words
        run_tool "$W/d.json" "$W/d.err" env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -s 0 \
            -e trace=io_uring_enter -o "$W/d.trace" "$DNSLOAD" -q --meta "$W/d.meta" \
            -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -d 300ms -R 100 \
            --max-error-rate 1 $args
        assert_eq "$RC" 0 "$args: exit status"
        assert_empty_file "$W/d.err" "$args: stderr"
        assert_eq "$(ring_choice "$W/d.meta")" "$want" "$args: --meta"
        assert_contains <(ring_why "$W/d.meta") "$why" "$args: --meta's reason"
        enters=$(grep -c '^[0-9]* *io_uring_enter(' "$W/d.trace" || true)
        if [[ $want == *udp-io_uring* ]]; then
            assert_ge "$enters" 1 "$args: io_uring_enter calls"
        else
            assert_eq "$enters" 0 "$args: io_uring_enter calls"
        fi
    done <<'CASES'
-c 2;False|udp;the default
-c 16 --threads 2;False|udp;the default
--levels 8,1;False|udp,udp;the default
-c 1 --io-uring;True|udp-io_uring;--io-uring (probe: a loop asleep beside the io_uring woke
--levels 1,8 --io-uring;True|udp-io_uring,udp-io_uring;--io-uring (probe:
-c 8 --no-io-uring;False|udp;--no-io-uring
CASES
}

# The wake-up probe, made to fail: LOADGEN_TEST_RING_SETUP=deaf sets the ring
# up with no eventfd, so no completion is ever signalled to a loop asleep
# beside it (what the deferred set-up did for 4-16 ms at a time on a quiet
# machine, issue 39). --io-uring then says the probe failed, with its figure,
# and runs on the ring as asked; the self-watch sees its loop asleep on
# completions and marks the level limited, on stderr and in --meta. The
# default is not touched by it: plain sockets, nothing on stderr.
t_a_ring_that_sleeps_through_completions_is_named() {
    need_knot || { fail "knot did not start"; return; }
    run_tool "$W/deaf.json" "$W/deaf.err" env LOADGEN_TEST_RING_SETUP=deaf "$DNSLOAD" \
        --io-uring --meta "$W/deaf.meta" -s 127.0.0.1 -p "$KNOT_PORT" \
        --query 'www.example.test A' -c 2 -d 1s --timeout 3s --max-error-rate 1
    assert_contains "$W/deaf.err" "--io-uring: probe: the io_uring signalled no completion within 50 ms"
    assert_contains "$W/deaf.err" "running on it as asked"
    assert_contains "$W/deaf.err" "of the level while completions it had handed the kernel waited for it"
    assert_contains <(ring_why "$W/deaf.meta") "--io-uring (probe: the io_uring signalled no completion"
    python3 - "$W/deaf.meta" <<'PY' || fail "--meta's self_watch does not mark the level"
import json, sys
lv = json.load(open(sys.argv[1]))["levels"][0]
sw = lv["self_watch"]
print("self_watch", sw)
assert lv["transport"] == "udp-io_uring", lv["transport"]
assert sw["limited"] is True and sw["asleep_on_work"] >= 0.5, sw
PY
    run_tool "$W/deaf2.json" "$W/deaf2.err" env LOADGEN_TEST_RING_SETUP=deaf "$DNSLOAD" \
        --meta "$W/deaf2.meta" -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' \
        -c 20 -R 400 -d 500ms -q
    assert_eq "$RC" 0 "the default: exit status"
    assert_empty_file "$W/deaf2.err" "the default: stderr"
    assert_eq "$(ring_choice "$W/deaf2.meta")" "False|udp" "the default: --meta"
}

# The self-watch's look at a ring that wakes on time finds no sleep on work:
# an open loop at a low rate (its loop mostly asleep) on the ring.
t_a_ring_that_wakes_on_time_is_not_flagged() {
    need_knot || { fail "knot did not start"; return; }
    ring awake -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 4 -R 200 -d 1s \
        --meta "$W/awake.meta"
    assert_eq "$RC" 0 "exit status"
    python3 - "$W/awake.meta" <<'PY' || fail "a ring that wakes on time was flagged"
import json, sys
sw = json.load(open(sys.argv[1]))["levels"][0]["self_watch"]
print("self_watch", sw)
assert sw["asleep_on_work"] is not None and sw["asleep_on_work"] < 0.05, sw
PY
}

# A ring the probe could make but a level cannot (its larger queue, memory):
# --io-uring asked for it, so the run stops (exit 4) with one line naming
# it, and no document. The shim fails every ring of more than the probe's 8
# entries with ENOMEM.
t_a_ring_a_level_cannot_have_stops_the_run() {
    command -v cc >/dev/null || skip "cc missing (apt-get install gcc)"
    need_knot || { fail "knot did not start"; return; }
    local preload
    preload=$(ring_shim) || { fail "cannot build the shim"; return; }
    # ENOMEM (12) for a ring of more than 8 entries
    run_tool "$W/bigring.json" "$W/bigring.err" env LD_PRELOAD="$preload" RINGSHIM_ABOVE=8 \
        RINGSHIM_ERRNO=12 "$DNSLOAD" --io-uring \
        -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 20 -R 400 -d 500ms -q
    cat "$W/bigring.err"
    assert_eq "$RC" 4 "exit status"
    assert_contains "$W/bigring.err" "cannot set up an io_uring: Cannot allocate memory"
    assert_empty_file "$W/bigring.json" "nothing on stdout"
}

# The ring against real servers, beside the plain transport: knot and
# unbound, -c 8 and -c 64, --io-uring beside --no-io-uring, five rounds
# interleaved, dnsload on CPU 0 and the server on CPU 1 (issue 39's set-up).
# Judged by the medians of the rounds' ratios: the ring's answers per second
# in the closed loop at least 0.85 of the plain transport's, and its warm p99
# within 1.5 times the plain one's and 0.05 ms at the same offered load (an
# open loop at 50,000/s). When the ring slept through replies it made 0.02
# to 0.10 of the plain rate here. 0.85, not issue 39's 0.95 for a default:
# the ring is not the default because against a server at its limit it
# measures fewer answers (its completions cost the server's send path; pinned
# unbound, medians of five: 0.875-0.992 in four runs; knot, which the plain
# dnsload cannot saturate, 1.07-2.5). The p99 is compared at one rate
# because the closed loops' rates differ: knot's two threads on one CPU
# answered the ring 400,000 a second at -c 64 against the plain transport's
# 170,000, and its own queue then gave p99s of 4.1 ms against 0.65.
t_the_ring_answers_near_the_plain_transport() {
    command -v taskset >/dev/null || skip "taskset missing (apt-get install util-linux)"
    need_knot || { fail "knot did not start"; return; }
    need_unbound || { fail "unbound did not start"; return; }
    local server port c r t pid mode
    for server in knot unbound; do
        port=$KNOT_PORT pid=$SRV/knot/knotd.pid
        [ "$server" = unbound ] && port=$UNBOUND_PORT pid=$SRV/unbound/unbound.pid
        taskset -a -p -c 1 "$(cat "$pid")" >/dev/null || { fail "cannot pin $server"; return; }
        for c in 8 64; do
            for r in 1 2 3 4 5; do
                for mode in closed open; do
                    for t in --io-uring --no-io-uring; do
                        # shellcheck disable=SC2046 # no word, or the words of the case
                        run_tool "$W/eq.$server.$c.$r.$mode$t.json" "$W/eq.err" taskset -c 0 \
                            "$DNSLOAD" "$t" -s 127.0.0.1 \
                            -p "$port" --query 'www.example.test A' -c "$c" -d 1s -q \
                            $([ "$mode" = closed ] || echo "-R 50000 --max-error-rate 1")
                        assert_eq "$RC" 0 "$server c$c round $r $mode $t: exit status"
                    done
                done
            done
            python3 - "$W" "$server" "$c" <<'PY' || fail "$server c$c: the ring measures worse than the plain transport"
import json, statistics, sys
w, server, c = sys.argv[1], sys.argv[2], sys.argv[3]
def load(r, mode, t):
    m = json.load(open(f"{w}/eq.{server}.{c}.{r}.{mode}{t}.json"))["metrics"]
    warm = sorted(m[f"c{c}.latency_warm_ms"]["samples"])
    return m[f"c{c}.requests"]["samples"][0], warm[min(len(warm) - 1, int(0.99 * len(warm)))]
rates, p99s = [], []
for r in (1, 2, 3, 4, 5):
    (dr, _), (pr, _) = load(r, "closed", "--io-uring"), load(r, "closed", "--no-io-uring")
    (_, dp), (_, pp) = load(r, "open", "--io-uring"), load(r, "open", "--no-io-uring")
    print(f"{server} c{c} round {r}: closed loop {dr} answers against {pr}; "
          f"at 50,000/s p99 {dp:.3f} ms against {pp:.3f}")
    rates.append(dr / pr)
    p99s.append(dp / (1.5 * pp + 0.05))
rate, p99 = statistics.median(rates), statistics.median(p99s)
print(f"{server} c{c}: median rate ratio {rate:.3f} (>= 0.85), p99 against 1.5x+0.05 ms {p99:.3f} (<= 1)")
assert rate >= 0.85 and p99 <= 1.0
PY
        done
        taskset -a -p -c "0-$(($(nproc) - 1))" "$(cat "$pid")" >/dev/null
    done
}

t_options_it_does_not_combine_with_are_usage_errors() {
    ring u1 -s 127.0.0.1 --query 'www.example.test A' --transport tcp -d 1s
    assert_eq "$RC" 2 "--transport tcp: exit status"
    assert_contains "$W/u1.err" "--io-uring is for --transport udp"
    assert_empty_file "$W/u1.json"
    ring u2 -s 127.0.0.1 --query 'www.example.test A' --transport doh -d 1s
    assert_eq "$RC" 2 "--transport doh: exit status"
    assert_contains "$W/u2.err" "--io-uring is for --transport udp"
    assert_empty_file "$W/u2.json"
}

run_tests
