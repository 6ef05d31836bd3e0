#!/usr/bin/env bash
# One run per tool under valgrind --leak-check=full: no definitely lost bytes,
# no invalid reads or writes. Runs on the normal build only (valgrind and
# AddressSanitizer cannot share a process; the sanitizer pass covers that build).
# run: once
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
[ -f "$(dirname "$0")/servers_dns.sh" ] && source "$(dirname "$0")/servers_dns.sh"

if nm "$HTTPLOAD" 2>/dev/null | grep -q __asan_init; then
    skip_file "sanitizer build: valgrind runs belong to the normal build"
fi
need_nginx || exit 1

VG=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
    --show-leak-kinds=definite)

vg_run() { # label command...: prints the command's exit status, for the caller to check
    local label=$1 rc=0
    shift
    timeout -k 5 300 "${VG[@]}" "$@" >"$TMPROOT/$label.out" 2>"$TMPROOT/$label.err" || rc=$?
    if [ "$rc" = 99 ] || grep -q 'definitely lost\|Invalid read\|Invalid write' "$TMPROOT/$label.err"; then
        fail "$label: valgrind found errors: $(grep -m3 -E 'lost|Invalid|uninitialised|Syscall param|Conditional jump' "$TMPROOT/$label.err")"
    fi
    echo "$rc"
}

# open_fds LABEL: the descriptors valgrind --track-fds found open at exit that
# the process did not inherit (sockets, files it opened and never closed)
open_fds() {
    awk '/^==[0-9]+== Open / { d = $0; next }
         /<inherited from parent>/ { d = ""; next }
         d != "" && /^==[0-9]+== *$/ { print d; d = "" }
         END { if (d != "") print d }' "$TMPROOT/$1.err"
}

t_httpload_http1_tls_h2_under_valgrind() {
    local rc
    rc=$(vg_run h1 "$HTTPLOAD" --levels 1,4 -d 500ms --log "$TMPROOT/log" --meta "$TMPROOT/meta" \
        "http://127.0.0.1:$NGINX_HTTP_PORT/close")
    assert_eq "$rc" 0 "http/1.1 exit status"
    rc=$(vg_run h2 "$HTTPLOAD" -c 4 -m 4 -d 500ms --cacert "$CA_PEM" "https://127.0.0.1:$NGINX_HTTPS_PORT/")
    assert_eq "$rc" 0 "h2 exit status"
    rc=$(vg_run refused "$HTTPLOAD" -c 2 -d 200ms "http://127.0.0.1:9/")
    assert_eq "$rc" 1 "refused exit status"
}

t_httpload_targets_and_churn_under_valgrind() {
    printf 'inline\n' >"$TMPROOT/vbody"
    printf 'GET https://127.0.0.1:%s/t/a\nX-A: 1\n\nPOST https://127.0.0.1:%s/t/b\n@%s\n' \
        "$NGINX_HTTPS_PORT" "$NGINX_HTTPS_PORT" "$TMPROOT/vbody" >"$TMPROOT/vtargets"
    local rc
    rc=$(vg_run targets-h2 "$HTTPLOAD" -c 3 -m 2 -d 500ms --http 2 --conn-requests 3 \
        --targets-per-metric --cacert "$CA_PEM" --targets "$TMPROOT/vtargets")
    assert_eq "$rc" 0 "--targets over h2 with --conn-requests exit status"
    rc=$(vg_run targets-h1 "$HTTPLOAD" -c 2 -d 300ms --http 1.1 --conn-requests 2 \
        --cacert "$CA_PEM" --targets "$TMPROOT/vtargets")
    assert_eq "$rc" 0 "--targets over http/1.1 with --conn-requests exit status"
    printf 'GET https://127.0.0.1:%s/\nGET http://127.0.0.1:%s/\n' "$NGINX_HTTPS_PORT" \
        "$NGINX_HTTP_PORT" >"$TMPROOT/vbad"
    rc=$(vg_run targets-bad "$HTTPLOAD" --targets "$TMPROOT/vbad")
    assert_eq "$rc" 2 "a refused --targets file"
}

# The open loop makes each client's socket before the level starts, and a
# reconnect's as the last connection closes: every one is closed again,
# whether the level ran (a new connection every second request) or was never
# run (its --start-at more than --max-late past).
t_open_loop_closes_the_sockets_it_made_ahead() {
    local rc at
    local -a VG=("${VG[@]}" --track-fds=yes) # vg_run's, for this test only
    rc=$(vg_run ol "$HTTPLOAD" -c 3 -R 20 --conn-requests 2 -d 1s --max-error-rate 1 \
        "http://127.0.0.1:$NGINX_HTTP_PORT/")
    assert_eq "$rc" 0 "open loop with --conn-requests 2: exit status"
    doc "$TMPROOT/ol.out" --invariants "v('c3.attempts') >= 6" \
        "v('c3.connect_attempts') >= v('c3.attempts') / 2"
    assert_eq "$(open_fds ol)" "" "descriptors left open after the open loop ran"
    at=$(awk -v now="$(date +%s.%N)" 'BEGIN { printf "@%.3f", now - 10 }')
    rc=$(vg_run ol-late "$HTTPLOAD" -q -c 3 -R 20 -d 1s --start-at "$at" \
        "http://127.0.0.1:$NGINX_HTTP_PORT/")
    assert_eq "$rc" 5 "open loop level past --max-late: exit status"
    assert_eq "$(open_fds ol-late)" "" "descriptors left open after a level that never ran"
}

# HTTP/3: clean runs (streams, --conn-requests so connections close and
# open), a certificate refused and a closed UDP port. Runs of a few seconds:
# under valgrind on a loaded machine a QUIC connection's first flight took
# over a second, and a client that has not begun by the deadline makes the
# level invalid; a request under valgrind there took over 5 s (--timeout
# 30s: this test is about leaks, not time).
t_httpload_http3_under_valgrind() {
    "$HTTPLOAD" --version | grep -q 'HTTP/3: ngtcp2' || skip "this httpload has no HTTP/3"
    need_caddy || { fail "caddy did not start"; return; }
    local rc
    rc=$(vg_run h3 "$HTTPLOAD" --http 3 -c 3 -m 4 -d 5s --conn-requests 5 --timeout 30s \
        --cacert "$CA_PEM" "https://127.0.0.1:$CADDY_PORT/index.html")
    assert_eq "$rc" 0 "h3 exit status"
    rc=$(vg_run h3-verify "$HTTPLOAD" --http 3 -c 1 -d 3s "https://127.0.0.1:$CADDY_PORT/")
    assert_eq "$rc" 1 "h3 certificate refused: exit status"
    rc=$(vg_run h3-refused "$HTTPLOAD" --http 3 -c 2 -d 3s --cacert "$CA_PEM" \
        "https://127.0.0.1:$((LG_PORT_BASE + 460))/")
    assert_eq "$rc" 1 "h3 refused exit status"
}

# The datagram batching's system calls, every path (GSO, sendmmsg, one by one)
# on loopback: the QUIC runs above take the GSO path only when a write holds
# more than one packet, so they caught its uninitialised control-message
# padding only now and then (CI, Dec 2026).
t_udp_batching_under_valgrind() {
    local unit=$BUILD/tests/unit/test_udp_batch rc
    [ -x "$unit" ] || { fail "no $unit (make check builds it)"; return; }
    rc=$(vg_run udp-batch "$unit")
    assert_eq "$rc" 0 "test_udp_batch under valgrind: $(tail -n 3 "$TMPROOT/udp-batch.out" | tr '\n' '|')"
    grep -q 'segments_arrive_as_datagrams_with_gso' "$TMPROOT/udp-batch.out" ||
        fail "the GSO case did not run: $(head -c 400 "$TMPROOT/udp-batch.out")"
}

t_dnsload_under_valgrind() {
    [ -x "$DNSLOAD" ] || { fail "dnsload not built"; return; }
    declare -F need_knot >/dev/null || { fail "servers_dns.sh has no need_knot"; return; }
    need_knot || { fail "knot did not start"; return; }
    local rc
    rc=$(vg_run dns "$DNSLOAD" --no-io-uring -c 4 -d 500ms --server 127.0.0.1 --port "$KNOT_PORT" --query "www.example.test A")
    assert_eq "$rc" 0 "dnsload exit status"
}

# The io_uring transport: what the kernel writes into the receive buffers
# outside any system call valgrind sees must still read as initialised, and
# the ring, its buffers and its eventfd go back at the level's end.
t_dnsload_io_uring_under_valgrind() {
    [ -x "$DNSLOAD" ] || { fail "dnsload not built"; return; }
    declare -F need_knot >/dev/null || { fail "servers_dns.sh has no need_knot"; return; }
    need_knot || { fail "knot did not start"; return; }
    local rc
    local -a VG=("${VG[@]}" --track-fds=yes) # vg_run's, for this test only
    rc=$(vg_run dnsring "$DNSLOAD" --io-uring --levels 2,4 --outstanding 4 -d 500ms \
        --server 127.0.0.1 --port "$KNOT_PORT" --query "www.example.test A" --query "example.test MX")
    assert_eq "$rc" 0 "dnsload --io-uring exit status"
    assert_eq "$(open_fds dnsring)" "" "descriptors left open (the ring's, its eventfd, the sockets)"
}

t_loadstats_under_valgrind() {
    "$HTTPLOAD" -q -c 2 -d 300ms "http://127.0.0.1:$NGINX_HTTP_PORT/" >"$TMPROOT/doc.json"
    local rc
    rc=$(vg_run summary "$LOADSTATS" summary "$TMPROOT/doc.json")
    assert_eq "$rc" 0 "loadstats summary"
    rc=$(vg_run compare "$LOADSTATS" compare "$TMPROOT/doc.json" "$TMPROOT/doc.json")
    assert_eq "$rc" 0 "loadstats compare"
    rc=$(vg_run plot "$LOADSTATS" plot "$TMPROOT/doc.json" -o "$TMPROOT/p.svg")
    assert_eq "$rc" 0 "loadstats plot"
    local f
    for f in hgrm csv csv-summary openmetrics; do
        rc=$(vg_run "export-$f" "$LOADSTATS" export -f "$f" -m c2.latency_warm_ms "$TMPROOT/doc.json")
        assert_eq "$rc" 0 "loadstats export -f $f"
    done
}

t_loadstats_merge_shards_under_valgrind() {
    local i
    for i in 0 1; do
        "$HTTPLOAD" -q -c 1 -d 300ms --max-samples 50 --meta "$TMPROOT/raw$i.meta.json" \
            "http://127.0.0.1:$NGINX_HTTP_PORT/" >"$TMPROOT/raw$i.json"
        python3 "$(dirname "$0")/shardify.py" "$TMPROOT/raw$i.json" "$TMPROOT/s$i.json" $i 2 ||
            fail "shardify.py"
    done
    local rc
    rc=$(vg_run merge "$LOADSTATS" merge --shards --meta "$TMPROOT/m.meta.json" -o "$TMPROOT/m.json" \
        "$TMPROOT/s0.json" "$TMPROOT/s1.json")
    assert_eq "$rc" 0 "loadstats merge --shards"
    rm "$TMPROOT/s1.meta.json"
    rc=$(vg_run merge-refused "$LOADSTATS" merge --shards "$TMPROOT/s0.json" "$TMPROOT/s1.json")
    assert_eq "$rc" 1 "loadstats merge --shards without a descriptor"
}

run_tests
