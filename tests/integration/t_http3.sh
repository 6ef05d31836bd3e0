#!/usr/bin/env bash
# httpload --http 3 (HTTP/3 over QUIC) against real HTTP/3 servers: caddy,
# whose JSON access log must count exactly the attempts, each one HTTP/3.0
# (1, 4 and 64 clients, -m 1 and -m 8, a 1 MiB body, the open loop, levels,
# --conn-requests, --targets, --log, --shard, --watch), and ngtcp2's example
# server. Faults, each classified and bounded by --timeout with a valid
# document: nothing listening (ICMP), a certificate for another name, an
# untrusted one, the server killed mid-run, a fixture dropping every packet
# and one answering with version negotiation. And the usage errors.
# Run: BUILD=/path/to/build bash tests/integration/t_http3.sh
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"

H=$HTTPLOAD
O=$TMPROOT/h3out.json
E=$TMPROOT/h3err.txt
ALOG=$SRV/caddy/access.log
FAULT_PORT=$((LG_PORT_BASE + 458))
KILL_PORT=$((LG_PORT_BASE + 459))
CLOSED_PORT=$((LG_PORT_BASE + 460)) # nothing ever listens here
OWN_PORT=$((LG_PORT_BASE + 461))    # ngtcp2's server with options of a test's own

"$H" --version >"$TMPROOT/version.txt" 2>&1
grep -q 'HTTP/3: ngtcp2' "$TMPROOT/version.txt" ||
    skip_file "this httpload has no HTTP/3 ($(cat "$TMPROOT/version.txt"))"
need_caddy || exit 1
CADDY=https://127.0.0.1:$CADDY_PORT

# caddy_lines: requests in caddy's access log so far.
caddy_lines() { wc -l <"$ALOG"; }

# expect_caddy_h3 BEFORE N: caddy logged exactly N requests after line BEFORE,
# every one over HTTP/3. caddy writes a request's line after its response
# goes out, so the count may trail the client by a moment: wait for it (up
# to 5 s), then compare.
expect_caddy_h3() {
    local before=$1 n=$2 i got
    for ((i = 0; i < 50; i++)); do
        got=$(($(caddy_lines) - before))
        [ "$got" -ge "$n" ] && break
        sleep 0.1
    done
    sleep 0.2 # and nothing more arrives
    got=$(($(caddy_lines) - before))
    assert_eq "$got" "$n" "caddy's access log counts the attempts"
    local h3
    h3=$(tail -n +"$((before + 1))" "$ALOG" | grep -c '"proto":"HTTP/3.0"')
    assert_eq "$h3" "$n" "every logged request is HTTP/3.0"
}

# v KEY: a count from the last document.
v() { python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["metrics"]; print(int(m[sys.argv[2]]["samples"][0]) if sys.argv[2] in m else 0)' "$O" "$1"; }

# h3_run CLIENTS STREAMS ARGS...: a clean run against caddy, checked against
# its access log and the document's own rules.
h3_run() {
    local c=$1 m=$2
    shift 2
    local before
    before=$(caddy_lines)
    run_tool $O $E $H --http 3 -c "$c" -m "$m" --cacert "$CA_PEM" "$@"
    assert_eq "$RC" 0 "exit status ($(head -c 300 $E))"
    doc $O --invariants "v('c$c.errors')==0" "v('c$c.unfinished')==0" \
        "v('c$c.connections')>=$c" "n('c$c.quic_handshake_ms')==v('c$c.connections')" \
        "not has('c$c.tls_handshake_ms')" "not has('c$c.connect_ms')" \
        "n('c$c.ttfb_ms')==v('c$c.requests')" "v('c$c.attempts')>=$c"
    expect_caddy_h3 "$before" "$(v "c$c.attempts")"
}

t_caddy_one_client_one_stream() {
    h3_run 1 1 -d 1s "$CADDY/index.html"
    doc $O "v('c1.requests')>20" "v('c1.reconnects')==0" "n('c1.latency_cold_ms')==1"
}

t_caddy_four_clients_eight_streams() {
    h3_run 4 8 -d 1s "$CADDY/index.html"
    doc $O "v('c4.requests')>50" "v('c4.reconnects')==0" "n('c4.latency_cold_ms')==4"
    # the summary names the protocol the connections spoke
    assert_contains $E "^  connections 4 established of 4 attempted (all h3), reconnects 0, "
}

t_caddy_64_clients() {
    h3_run 64 1 -d 3s --timeout 5s "$CADDY/index.html"
    doc $O "v('c64.requests')>=64" "n('c64.latency_cold_ms')==64" "v('c64.connections')==64"
}

t_caddy_64_clients_eight_streams() {
    h3_run 64 8 -d 3s --timeout 5s "$CADDY/index.html"
    doc $O "v('c64.requests')>=64" "v('c64.connections')==64"
}

# A 1 MiB body: all of it arrives (bytes_received counts stream data, which
# is the bodies plus HTTP/3 frames and QPACK).
t_caddy_one_mebibyte_body() {
    h3_run 2 2 -d 1s --timeout 5s "$CADDY/big.bin"
    doc $O "v('c2.requests')>=2" "v('c2.connections')==2" \
        "v('c2.bytes_received')>=v('c2.requests')*1048576" \
        "v('c2.bytes_received')<v('c2.requests')*1048576*1.01+100000"
}

# A body sent: 64 KiB POSTed on each request (caddy answers /echo without
# reading it, and stops the stream's upload as HTTP/3 lets a server do).
t_caddy_post_body() {
    head -c 65536 /dev/zero >"$TMPROOT/body.bin"
    h3_run 2 2 -d 1s --data "@$TMPROOT/body.bin" "$CADDY/echo"
    doc $O "v('c2.requests')>=2"
}

t_caddy_open_loop() {
    h3_run 4 1 -d 2s --rate 100 "$CADDY/index.html"
    doc $O "v('c4.scheduled')==v('c4.attempts')+v('c4.unsent')" "v('c4.attempts')>=150" \
        "v('c4.connections')==4" \
        "n('c4.send_lag_ms')==v('c4.attempts')"
}

t_caddy_levels() {
    local before
    before=$(caddy_lines)
    run_tool $O $E $H --http 3 --levels 1,4 -d 700ms --cacert "$CA_PEM" "$CADDY/index.html"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c1.connections')==1" "v('c4.connections')==4" \
        "n('c1.quic_handshake_ms')==1" "n('c4.quic_handshake_ms')==4" \
        "v('c1.errors')+v('c4.errors')==0"
    expect_caddy_h3 "$before" "$(($(v c1.attempts) + $(v c4.attempts)))"
}

# --conn-requests 3: a new QUIC connection (a new handshake) every 3 requests.
t_caddy_conn_requests() {
    h3_run 2 1 -d 1s --conn-requests 3 "$CADDY/index.html"
    doc $O "v('c2.requests')>=6" "v('c2.connections')==n('c2.quic_handshake_ms')" \
        "v('c2.connections')>=v('c2.attempts')/3" "v('c2.connections')<=v('c2.attempts')/3+2" \
        "n('c2.latency_cold_ms')==v('c2.connections')"
}

# --targets with --targets-per-metric, --log and --shard on HTTP/3.
t_caddy_targets_log_and_shard() {
    printf 'GET %s/index.html\n\nGET %s/big.bin\n' "$CADDY" "$CADDY" >"$TMPROOT/h3targets.txt"
    local before
    before=$(caddy_lines)
    run_tool $O $E $H --http 3 -c 4 --shard 1/2 -d 1s --cacert "$CA_PEM" \
        --targets "$TMPROOT/h3targets.txt" --targets-per-metric --log "$TMPROOT/h3log.ndjson"
    assert_eq "$RC" 0 "exit status ($(head -c 300 $E))"
    doc $O --invariants "v('c4.connections')==2" "v('c4.errors')==0" \
        "n('c4.target.1.latency_cold_ms')+n('c4.target.1.latency_warm_ms')>0" \
        "n('c4.target.3.latency_cold_ms')+n('c4.target.3.latency_warm_ms')>0"
    expect_caddy_h3 "$before" "$(v c4.attempts)"
    assert_eq "$(wc -l <"$TMPROOT/h3log.ndjson")" "$(v c4.attempts)" "--log has a record per attempt"
    local big
    big=$(tail -n +"$((before + 1))" "$ALOG" | grep -c '"uri":"/big.bin"')
    assert_eq "$big" "$(($(n_of c4.target.3.latency_cold_ms) + $(n_of c4.target.3.latency_warm_ms)))" \
        "caddy served /big.bin as often as its target's samples say"
}
n_of() { python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["metrics"]; print(len(m[sys.argv[2]]["samples"]) if sys.argv[2] in m else 0)' "$O" "$1"; }

t_caddy_watch() {
    local pid
    pid=$(cat "$SRV/caddy/caddy.pid")
    h3_run 2 1 -d 2s --watch "caddy=$pid" "$CADDY/index.html"
    doc $O "n('c2.watch.caddy.cpu_s')>=1" "n('c2.watch.caddy.rss_bytes')>=1"
}

# own_ngtcp2_server OPTION...: ngtcp2's example server with these options on
# OWN_PORT, serving $SRV/ngtcp2/www; sets OWN_PID (own_ngtcp2_server_stop).
own_ngtcp2_server() {
    local bin
    bin=$(command -v gtlsserver || echo /usr/sbin/gtlsserver)
    need_ngtcp2_server || return 1
    "$bin" -q "$@" -d "$SRV/ngtcp2/www" 127.0.0.1 "$OWN_PORT" "$SRV/certs/server.key" \
        "$SRV/certs/server.pem" >"$TMPROOT/own-ngtcp2.log" 2>&1 &
    OWN_PID=$!
    _wait_udp 127.0.0.1 "$OWN_PORT"
}
own_ngtcp2_server_stop() { stop_background "$OWN_PID"; }

# The server's bidirectional stream limit caps -m (said on stderr), and
# requests wait for its MAX_STREAMS instead of failing.
t_ngtcp2_stream_limit_caps_streams() {
    own_ngtcp2_server --max-streams-bidi=2 || { fail "ngtcp2's server did not start"; return; }
    run_tool $O $E $H --http 3 -c 2 -m 8 -d 1s --cacert "$CA_PEM" --meta "$TMPROOT/limit-meta.json" \
        "https://127.0.0.1:$OWN_PORT/index.html"
    own_ngtcp2_server_stop
    assert_eq "$RC" 0 "exit status ($(head -c 300 $E))"
    assert_contains $E "allows 2 concurrent streams per connection: --streams 8 was capped to 2"
    doc $O --invariants "v('c2.errors')==0" "v('c2.requests')>20" "v('c2.reconnects')==0"
}

# 5% of the packets lost each way (the server's own loss simulation): QUIC
# recovers them; no request fails.
t_ngtcp2_lossy_path_recovers() {
    own_ngtcp2_server --rx-loss=0.05 --tx-loss=0.05 || { fail "ngtcp2's server did not start"; return; }
    run_tool $O $E $H --http 3 -c 2 -m 2 -d 2s --timeout 10s --cacert "$CA_PEM" \
        "https://127.0.0.1:$OWN_PORT/index.html"
    own_ngtcp2_server_stop
    assert_eq "$RC" 0 "exit status ($(head -c 300 $E))"
    doc $O --invariants "v('c2.errors')==0" "v('c2.requests')>20" "v('c2.reconnects')==0"
}

# A server that wants a client certificate refuses the handshake with a TLS
# alert in CONNECTION_CLOSE: tls_handshake, the alert named.
t_ngtcp2_client_certificate_required_is_tls_handshake() {
    own_ngtcp2_server --verify-client || { fail "ngtcp2's server did not start"; return; }
    fault_run 500ms -c 2 --cacert "$CA_PEM" "https://127.0.0.1:$OWN_PORT/index.html"
    own_ngtcp2_server_stop
    doc $O "v('c2.errors.tls_handshake')==v('c2.attempts')"
    assert_contains $E "refusing the TLS handshake: TLS alert"
    assert_contains $E "CRYPTO_ERROR 0x174"
}

t_ngtcp2_example_server() {
    need_ngtcp2_server || { fail "ngtcp2's example server did not start"; return; }
    run_tool $O $E $H --http 3 -c 4 -m 4 -d 1s --cacert "$CA_PEM" \
        "https://127.0.0.1:$NGTCP2_PORT/index.html"
    assert_eq "$RC" 0 "exit status ($(head -c 300 $E))"
    doc $O --invariants "v('c4.errors')==0" "v('c4.requests')>50" "v('c4.connections')==4" \
        "v('c4.bytes_received')>=18*v('c4.requests')"
    run_tool $O $E $H --http 3 -c 2 -d 1s --cacert "$CA_PEM" "https://127.0.0.1:$NGTCP2_PORT/big.bin"
    assert_eq "$RC" 0 "exit status, 1 MiB body"
    doc $O --invariants "v('c2.errors')==0" "v('c2.bytes_received')>=1048576*v('c2.requests')"
}

# --- faults --------------------------------------------------------------

# Requests that time out (caddy proxying a backend that never answers): each
# one's stream is cancelled and the connection stays.
t_caddy_timeout_cancels_the_stream_and_keeps_the_connection() {
    need_httpfault || { fail "the HTTP fault fixture did not start"; return; }
    run_tool $O $E $H --http 3 -c 2 -m 2 -d 1s --timeout 300ms --cacert "$CA_PEM" "$CADDY/fault/stall"
    assert_eq "$RC" 1 "exit status"
    doc $O --invariants "v('c2.errors.timeout')==v('c2.attempts')" "v('c2.attempts')>=8" \
        "v('c2.connections')==2" "v('c2.reconnects')==0"
    assert_errors_described $E
}

# A response cut short (caddy proxying a backend that sends 10 of the 100
# bytes its Content-Length promised, then closes): caddy ends the stream
# early; the response is a protocol error of its stream, which is reset,
# and the connection stays.
t_caddy_cut_response_is_protocol_and_keeps_the_connection() {
    need_httpfault || { fail "the HTTP fault fixture did not start"; return; }
    run_tool $O $E $H --http 3 -c 2 -d 1s --cacert "$CA_PEM" "$CADDY/fault/truncate"
    assert_eq "$RC" 1 "exit status"
    doc $O --invariants "v('c2.errors.protocol')==v('c2.attempts')" "v('c2.attempts')>=4" \
        "v('c2.connections')==2"
    assert_contains $E "does not match its content-length"
    # and the same connection carries good requests after a bad one: a
    # client whose --log shows, on its first connection, a protocol error
    # followed by a success
    printf 'GET %s/fault/truncate\n\nGET %s/index.html\n' "$CADDY" "$CADDY" >"$TMPROOT/mixed.txt"
    run_tool $O $E $H --http 3 -c 2 -d 2s --cacert "$CA_PEM" --targets "$TMPROOT/mixed.txt" \
        --log "$TMPROOT/mixed.ndjson"
    doc $O --invariants "v('c2.errors.protocol')>=1" "v('c2.requests')>=1" "v('c2.connections')==2"
    python3 - "$TMPROOT/mixed.ndjson" <<'PY' || fail "no connection carried a success after a protocol error"
import json, sys
recs = sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: (r["client"], r["request"]))
seen_bad = set()
for r in recs:
    key = (r["client"], r["connection"])
    if r["outcome"] == "protocol":
        seen_bad.add(key)
    elif r["outcome"] == "ok" and key in seen_bad:
        sys.exit(0)
sys.exit(1)
PY
}

# fault_run DURATION ARGS...: a run of DURATION with --timeout 1s that must
# fail (exit 1) with a valid document and every error class described, and
# whose every attempt ended within its --timeout: each --log record's latency
# is at most 1.5 s (the timeout, and loop lag on a loaded machine; QUIC's own
# idle timeout would be 30 s). The wall clock only guards against a hang:
# DURATION + the timeout + 20 s of start-up (the sanitizer build loads the
# system's trust store in about 2.5 s here, loaded).
fault_run() {
    local d=$1 t0=$SECONDS dsec
    shift
    case $d in *ms) dsec=1 ;; *) dsec=${d%s} ;; esac
    run_tool $O $E $H --http 3 -d "$d" --timeout 1s --log "$TMPROOT/fault.ndjson" "$@"
    assert_eq "$RC" 1 "exit status"
    assert_le "$((SECONDS - t0))" "$((dsec + 1 + 20))" "seconds the run took"
    doc $O --invariants
    assert_errors_described $E
    python3 - "$TMPROOT/fault.ndjson" "$O" <<'PY' || fail "an attempt outlasted --timeout"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
m = json.load(open(sys.argv[2]))["metrics"]
attempts = sum(int(v["samples"][0]) for k, v in m.items() if k.endswith(".attempts"))
assert len(recs) == attempts, "%d records for %d attempts" % (len(recs), attempts)
slow = [r for r in recs if r["latency_ms"] > 1500]
assert not slow, "attempts longer than --timeout: %s" % slow[:3]
PY
}

t_nothing_listening_is_connect_refused_by_icmp() {
    fault_run 500ms -c 2 --cacert "$CA_PEM" "https://127.0.0.1:$CLOSED_PORT/"
    doc $O "v('c2.errors.connect_refused')==v('c2.attempts')" "v('c2.connections')==0"
    assert_contains $E "ICMP port unreachable"
}

t_certificate_for_another_name_is_tls_verify() {
    need_ngtcp2_server || { fail "ngtcp2's example server did not start"; return; }
    fault_run 500ms -c 2 --cacert "$CA_PEM" \
        "https://127.0.0.1:$NGTCP2_OTHERNAME_PORT/index.html"
    doc $O "v('c2.errors.tls_verify')==v('c2.attempts')"
    assert_contains $E "does not match the expected"
    # the same server is trusted for the name it has (SNI and verification)
    run_tool $O $E $H --http 3 -c 1 -d 300ms --cacert "$CA_PEM" --sni other.test \
        "https://127.0.0.1:$NGTCP2_OTHERNAME_PORT/index.html"
    assert_eq "$RC" 0 "--sni other.test: exit status ($(head -c 300 $E))"
    # and --insecure takes it as it is
    run_tool $O $E $H --http 3 -c 1 -d 300ms -k "https://127.0.0.1:$NGTCP2_OTHERNAME_PORT/index.html"
    assert_eq "$RC" 0 "--insecure: exit status"
}

t_untrusted_certificate_is_tls_verify() {
    # caddy's certificate without the test CA: the system store does not know it
    fault_run 500ms -c 1 "$CADDY/index.html"
    doc $O "v('c1.errors.tls_verify')==v('c1.attempts')"
    assert_contains $E "issuer is unknown"
}

# The server killed mid-run: the requests in flight fail as reset (the ICMP
# errors that answer QUIC's retransmissions), the reconnects as refused; the
# run ends on time. The server is killed once requests flow (the progress
# line shows a rate), not at a fixed moment: a loaded machine may still be
# handshaking then.
t_server_killed_mid_run() {
    local bin
    bin=$(command -v gtlsserver || echo /usr/sbin/gtlsserver)
    [ -x "$bin" ] || { fail "gtlsserver (ngtcp2-server) is not installed"; return; }
    need_ngtcp2_server || { fail "ngtcp2's example server did not start"; return; }
    "$bin" -q -d "$SRV/ngtcp2/www" 127.0.0.1 "$KILL_PORT" "$SRV/certs/server.key" \
        "$SRV/certs/server.pem" >"$TMPROOT/killed.log" 2>&1 &
    local spid=$!
    _wait_udp 127.0.0.1 "$KILL_PORT" || { kill "$spid"; fail "the server did not start"; return; }
    : >$E
    (
        for ((i = 0; i < 100; i++)); do
            grep -q '[1-9][0-9]* req/s' $E && break
            sleep 0.1
        done
        kill -9 "$spid"
    ) &
    local killer=$!
    fault_run 6s -c 4 -m 2 --progress --cacert "$CA_PEM" "https://127.0.0.1:$KILL_PORT/index.html"
    wait "$killer"
    # the server ends by the killer's SIGKILL (137), and by nothing else
    wait "$spid" 2>/dev/null || [ $? -eq 137 ] || fail "the server ended by itself, before it was killed"
    doc $O "v('c4.requests')>0" "v('c4.errors.reset')>=1" "v('c4.errors.reset')<=8" \
        "v('c4.errors.connect_refused')>=1" "v('c4.unfinished')==0"
    assert_contains $E "stopped answering"
}

# start_fault MODE: the QUIC fault fixture on FAULT_PORT; sets FAULT_PID.
start_fault() {
    : >"$TMPROOT/quicfault.log"
    python3 "$TESTDIR/../fixtures/quicfault.py" "$1" "$FAULT_PORT" "$TMPROOT/quicfault.log" &
    FAULT_PID=$!
    _wait_udp 127.0.0.1 "$FAULT_PORT"
}
stop_fault() { stop_background "$FAULT_PID"; }

# Every packet dropped: no answer ever comes; each attempt ends at --timeout
# as a connect timeout (QUIC's idle timeout is longer: --timeout bounds it).
t_dropped_packets_time_out() {
    start_fault drop || { fail "the fixture did not start"; return; }
    fault_run 500ms -c 2 --cacert "$CA_PEM" "https://127.0.0.1:$FAULT_PORT/"
    stop_fault
    doc $O "v('c2.errors.connect_timeout')==v('c2.attempts')" "v('c2.attempts')==2"
    assert_contains $E "no QUIC packet from the server"
    # the client sent its Initial (and retransmitted it)
    assert_ge "$(wc -l <"$TMPROOT/quicfault.log")" 2 "datagrams the fixture received"
}

t_version_negotiation_is_a_connect_error() {
    start_fault vn || { fail "the fixture did not start"; return; }
    fault_run 500ms -c 2 --cacert "$CA_PEM" "https://127.0.0.1:$FAULT_PORT/"
    stop_fault
    doc $O "v('c2.errors.connect')==v('c2.attempts')"
    assert_contains $E "does not speak QUIC version 1"
    assert_contains $E "0xff00001d"
}

# --- usage --------------------------------------------------------------

t_usage_errors() {
    local args
    while IFS='|' read -r args want; do
        # shellcheck disable=SC2086
        run_tool $O $E $H --http 3 $args
        assert_eq "$RC" 2 "exit status of --http 3 $args"
        assert_contains $E "$want"
        assert_empty_file $O "stdout of --http 3 $args"
    done <<ROWS
-d 1s http://127.0.0.1:$CADDY_PORT/|needs an https:// URL
-d 1s --proxy http://127.0.0.1:3128 $CADDY/|CONNECT carries TCP
-d 1s --unix-socket /tmp/x.sock $CADDY/|QUIC runs over UDP
-d 1s --tls-resume $CADDY/|--tls-resume is not supported with --http 3
-d 1s --cacert /nonexistent/ca.pem $CADDY/|--cacert /nonexistent/ca.pem
ROWS
}

t_version_and_meta_say_http3() {
    assert_contains "$TMPROOT/version.txt" "nghttp3 "
    run_tool $O $E $H --http 3 -c 1 -d 200ms --cacert "$CA_PEM" --meta "$TMPROOT/meta.json" \
        "$CADDY/index.html"
    assert_eq "$RC" 0 "exit status"
    python3 - "$TMPROOT/meta.json" <<'PY' || fail "--meta does not say which HTTP/3 is built in"
import json, sys
m = json.load(open(sys.argv[1]))
h = m["http"]
assert h["http3"] is True and h["mode"] == "3", h
assert "ngtcp2 0.12" in h["http3_libraries"] and "nghttp3" in h["http3_libraries"], h
PY
}

run_tests
