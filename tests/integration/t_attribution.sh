#!/usr/bin/env bash
# udp: both transports
# Every error charged where it belongs: ICMP errors on UDP sockets end the
# query they are about, a UDP socket that is full makes a datagram wait
# rather than fail (a slow link in network namespaces fills it), a TLS peer
# that closes without close_notify is eof, and memory running out is exit
# status 4 with a message, never a crash.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
source "$(dirname "$0")/servers_dns.sh"
source "$(dirname "$0")/netns.sh"
# the tests that judge dnsload over UDP, repeated over the plain transport (lib.sh)
UDP_TESTS="t_a_request_never_ends_before_it_starts t_full_udp_socket_makes_a_datagram_wait
    t_icmp_error_ends_the_query_it_belongs_to t_icmp_refusal_waits_retry_delay
    t_out_of_memory_for_query_slots_is_status_4 t_sigint_stops_a_run_of_refused_queries"
trap stop_servers EXIT

O=$TMPROOT/out.json
E=$TMPROOT/err.txt
# nothing listens on this UDP port: every datagram draws an ICMP port unreachable
CLOSED_PORT=$((LG_PORT_BASE + 7))

# With several queries in flight, the ICMP error about one query is often
# reported by the send() of the next. It used to be charged to that next
# query (which never left) while the one it was about timed out. And it used
# to end that query inside the send: the freed slot started another at once,
# so one client made every attempt (118,000 in 2 s) and the others none.
t_icmp_error_ends_the_query_it_belongs_to() {
    _port_free "$CLOSED_PORT" || { fail "port $CLOSED_PORT is in use"; return; }
    local L=$TMPROOT/icmp.log
    run_tool $O $E "$DNSLOAD" -s 127.0.0.1 -p "$CLOSED_PORT" --query 'www.example.test A' \
        -c 4 --outstanding 4 -d 1s --timeout 300ms --retry-delay 10ms --log "$L"
    assert_eq "$RC" 1 "exit status"
    doc $O --invariants "v('c4.attempts')>100" "v('c4.errors.icmp')==v('c4.attempts')" \
        "not has('c4.errors.timeout')" "v('c4.unfinished')==0" "not has('c4.errors.send')" \
        "n('c4.client_attempts')==4" "min(s('c4.client_attempts'))>=10"
    python3 "$TESTDIR/reqlogcheck.py" "$L" --first-attempts || fail "--log breaks the timing or fairness rules"
}

# In a closed loop a refusal (ICMP) pauses the client for --retry-delay, as a
# refused TCP connect does: per round a client sends at most its 4 slots, and
# a 1 s level has at most 1 + 1000/100 rounds. Counted, not timed.
t_icmp_refusal_waits_retry_delay() {
    _port_free "$CLOSED_PORT" || { fail "port $CLOSED_PORT is in use"; return; }
    run_tool $O $E "$DNSLOAD" -s 127.0.0.1 -p "$CLOSED_PORT" --query 'www.example.test A' \
        -c 4 --outstanding 4 -d 1s --retry-delay 100ms
    assert_eq "$RC" 1 "exit status"
    doc $O --invariants "v('c4.errors.icmp')==v('c4.attempts')" "max(s('c4.client_attempts'))<=44"
}

# A request that ends in the event it started in (the refusal above, with
# one client) used to finish before it began: done before sent, and a
# latency near 1.8e13 ms (an unsigned wrap) in --log.
t_a_request_never_ends_before_it_starts() {
    _port_free "$CLOSED_PORT" || { fail "port $CLOSED_PORT is in use"; return; }
    local L=$TMPROOT/clock.log
    run_tool $O $E "$DNSLOAD" -s 127.0.0.1 -p "$CLOSED_PORT" --query 'www.example.test A' \
        -c 1 --outstanding 4 -d 500ms --retry-delay 0 --log "$L"
    assert_eq "$RC" 1 "exit status"
    doc $O --invariants "v('c1.attempts')>10"
    python3 "$TESTDIR/reqlogcheck.py" "$L" || fail "--log has a request that ends before it starts"
}

# SIGINT 300 ms into a 60 s run against a closed port stops it within a
# second (it used to wait for the deadline: one client held the loop).
t_sigint_stops_a_run_of_refused_queries() {
    _port_free "$CLOSED_PORT" || { fail "port $CLOSED_PORT is in use"; return; }
    "$DNSLOAD" -s 127.0.0.1 -p "$CLOSED_PORT" --query 'www.example.test A' -c 4 \
        --outstanding 4 -d 60s --retry-delay 0 >"$O" 2>"$E" &
    local pid=$! t0 i
    sleep 0.3
    t0=$(date +%s%N)
    kill -INT "$pid"
    for ((i = 0; i < 100; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.02
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    local rc=0
    wait "$pid" || rc=$?
    local ms=$((($(date +%s%N) - t0) / 1000000))
    echo "stopped in $ms ms, exit $rc"
    assert_eq "$rc" 130 "exit status"
    assert_le "$ms" 1000 "stopped within a second"
    doc $O --invariants "v('c4.attempts')>0"
}

# A token bucket on the client's side of a veth pair lets about 400 queries
# a second through; with 1024 in flight the socket's send buffer fills and
# send() says EAGAIN. That used to be a "send" error.
t_full_udp_socket_makes_a_datagram_wait() {
    need_knot_netns || { fail "knot in a network namespace did not start"; return; }
    local ns dev
    ns=$(netns_client 0)
    dev=$(netns_client_dev 0)
    ip -n "$ns" link set "$dev" txqueuelen 100000
    tc -n "$ns" qdisc replace dev "$dev" root tbf rate 256kbit burst 1600 limit 8mb ||
        { fail "cannot shape the link"; return; }
    run_tool $O $E ip netns exec "$ns" "$DNSLOAD" -s "$(netns_server_addr 0)" -p 53 \
        --query 'www.example.test A' -c 1 --outstanding 1024 -d 2s --timeout 8s
    tc -n "$ns" qdisc del dev "$dev" root
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c1.send_blocked')>0" "not has('c1.errors.send')" \
        "v('c1.errors')==0" "v('c1.requests')==v('c1.attempts')"
}

t_tls_close_without_close_notify_is_eof() {
    need_httpfault || { fail "fixture did not start"; return; }
    run_tool $O $E "$HTTPLOAD" -c 2 -d 500ms --cacert "$CA_PEM" \
        "https://localhost:$HTTPFAULT_TLS_PORT/truncate"
    assert_eq "$RC" 1 "exit status"
    doc $O --invariants "v('c2.errors.eof')==v('c2.attempts')" "not has('c2.errors.reset')"
    # a keep-alive connection closed while idle (50 ms after each answer, 50 ms
    # before the next request) is no error at all
    idle_close_run 10
    assert_eq "$RC" "$((RACED > 0))" "exit status (1 only for a raced close)"
    # the race of a keep-alive close: a request sent before the close reached
    # the client is lost, an eof error of that request, never retried (at 20
    # a second every other close meets the next request)
    idle_close_run 20
    assert_eq "$RC" 1 "exit status with raced closes"
    assert_ge "$RACED" 1 "closes that raced a request at 20 requests a second"
}

# idle_close_run RATE: one client at RATE a second for 1 s against the
# fixture's /idleclose over TLS; sets RC and RACED (the closes that raced a
# request, as the fixture saw them) and checks the document: those requests
# are the errors, each eof, and the others none. A loaded machine may delay
# the fixture's close into the next request at any rate, so every run counts.
idle_close_run() {
    local before
    before=$(count_lines 'the close raced a request' "$SRV/httpfault/log")
    run_tool $O $E "$HTTPLOAD" -c 1 -R "$1" -d 1s --cacert "$CA_PEM" \
        "https://localhost:$HTTPFAULT_TLS_PORT/idleclose"
    RACED=$(($(count_lines 'the close raced a request' "$SRV/httpfault/log") - before))
    echo "-R $1: $RACED closes raced a request"
    doc $O --invariants "v('c1.errors')==$RACED" "v('c1.errors.eof')==v('c1.errors')" \
        "v('c1.scheduled')==$1" "v('c1.reconnects')>=5"
}

# An LD_PRELOAD library that fails chosen allocations; under a sanitizer it
# sits in front of the sanitizer's allocator.
failalloc() {
    local so=$TMPROOT/failalloc.so
    [ -f "$so" ] || cc -shared -fPIC -O2 -o "$so" "$TESTDIR/../fixtures/failalloc.c" -ldl || return 1
    echo "$so"
}

t_out_of_memory_for_query_slots_is_status_4() {
    need_knot || { fail "knot did not start"; return; }
    local so
    so=$(failalloc) || { fail "cannot build the allocation fixture"; return; }
    # each client allocates its 1024 query slots when its socket opens: the
    # sixth client's allocation fails
    run_tool $O $E env LD_PRELOAD="$so" FAILALLOC_NMEMB=1024 FAILALLOC_SKIP=5 \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        "$DNSLOAD" -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 64 \
        --outstanding 1024 -d 1s -q
    assert_eq "$RC" 4 "exit status"
    assert_empty_file $O "no document"
    assert_contains $E "out of memory for a client's request slots"
    assert_eq "$(wc -l <$E)" 1 "one line on stderr"
}

run_tests
