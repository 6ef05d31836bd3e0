#!/usr/bin/env bash
# run: once
# (the normal build only since 2026-12-04: CI had outgrown its 40 minutes; the
# sanitizers still meet this code in the torture scenarios and the other files)
# Many requests in one run and connection churn, against real servers:
# httpload --targets (vegeta's format: each client walks the list from its
# global id modulo the list's length), --targets-per-metric, --conn-requests
# on HTTP/1.1 (Connection: close on the Nth), TLS, a MITM proxy and HTTP/2
# (GOAWAY after N streams); and dnsload's query lists and --conn-requests,
# which follow the same rules. nginx's /t/ location logs every request with
# its connection (servers.sh), which is what the checks read.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
source "$(dirname "$0")/servers_dns.sh"
need_nginx || exit 1
# The DNS servers bind their ports now: with a port base above 32768 their
# ports lie among the ephemeral ones, which the churn tests below fill with
# TIME_WAIT connections for a minute. Their tests report a server that did
# not start.
need_knot >/dev/null 2>&1
need_unbound >/dev/null 2>&1

H=$HTTPLOAD
BASE=http://127.0.0.1:$NGINX_HTTP_PORT
TLS=https://127.0.0.1:$NGINX_HTTPS_PORT
H2C=http://127.0.0.1:$NGINX_H2C_PORT
LOG=$SRV/nginx/targets.log
O=$TMPROOT/out.json
E=$TMPROOT/err.txt
GOAWAY_PORT=$((LG_PORT_BASE + 93))

# Reads nginx's /t/ log (servers.sh: connection, request number on it,
# method, URI, "Connection", Content-Length, request length, "X-Target").
#   walk URIS STARTS  every connection sends the URIs (comma-separated, in
#                     list order) in turn from some index; the multiset of
#                     those first indexes is STARTS (comma-separated)
#   churn N CLIENTS H1  no connection carries more than N requests, all but
#                     at most CLIENTS carry exactly N; H1=1: the Nth of each
#                     says Connection: close and no other does
#   count             the number of requests logged
cat >"$TMPROOT/tlog.py" <<'PY'
import collections, re, sys
LINE = re.compile(r'^(\d+) (\d+) (\S+) (\S+) "([^"]*)" (\S+) (\d+) "([^"]*)"$')
def read(path):
    conns = collections.OrderedDict()
    rows = []
    for raw in open(path):
        m = LINE.match(raw.rstrip("\n"))
        assert m, "unparsable log line %r" % raw
        row = dict(conn=m[1], n=int(m[2]), method=m[3], uri=m[4], connection=m[5],
                   cl=m[6], length=int(m[7]), xtarget=m[8])
        rows.append(row)
        conns.setdefault(row["conn"], []).append(row)
    for c in conns.values():
        c.sort(key=lambda r: r["n"])  # nginx logs a connection's requests in order
    return rows, conns
cmd, path = sys.argv[1], sys.argv[2]
rows, conns = read(path)
if cmd == "count":
    print(len(rows))
elif cmd == "walk":
    uris, starts = sys.argv[3].split(","), sorted(int(x) for x in sys.argv[4].split(","))
    first = []
    for cid, c in conns.items():
        i0 = uris.index(c[0]["uri"])
        got = [r["uri"] for r in c]
        want = [uris[(i0 + k) % len(uris)] for k in range(len(c))]
        assert got == want, "connection %s sent %s..., not the list in turn from %d" % (cid, got[:8], i0)
        first.append(i0)
    print("connections start at %s (want %s)" % (sorted(first), starts))
    assert sorted(first) == starts, "start offsets %s, want %s" % (sorted(first), starts)
elif cmd == "churn":
    n, clients, h1 = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
    sizes = collections.Counter(len(c) for c in conns.values())
    print("requests per connection: %s" % dict(sizes))
    assert max(sizes) <= n, "a connection carried %d requests" % max(sizes)
    assert sum(v for k, v in sizes.items() if k != n) <= clients, "too many short connections"
    if h1:
        for cid, c in conns.items():
            for r in c:
                want = "close" if r["n"] == n else "-"
                assert r["connection"] == want, "connection %s request %d: Connection %r" % (cid, r["n"], r["connection"])
    print(len(conns))
PY
tlog() { python3 "$TMPROOT/tlog.py" "$@"; }

# wait_logged N: nginx writes a request's line just after its response; give
# the last few a moment, then fail if the log does not hold N requests.
wait_logged() {
    local i n
    for ((i = 0; i < 30; i++)); do
        n=$(tlog count "$LOG") || n=-1
        [ "$n" -ge "$1" ] && break
        sleep 0.1
    done
    assert_eq "$n" "$1" "requests in nginx's log"
}

# value KEY: a count of the document $O
value() { python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["metrics"][sys.argv[2]]["samples"][0]))' "$O" "$1"; }

# Three targets, one with its own header and one a POST with a body file:
# each of 4 clients keeps one connection and sends them in turn, client i
# starting at i mod 3 (0, 1, 2, 0); every target reaches the server as
# written.
t_targets_each_client_walks_the_list_from_its_own_offset() {
    printf 'a posted body of 31 bytes, here\n' >"$TMPROOT/body.txt"
    cat >"$TMPROOT/list.txt" <<EOF
# three targets
GET $BASE/t/a
X-Target: own

GET $BASE/t/b?x=1
POST $BASE/t/c
Content-Type: text/plain
@$TMPROOT/body.txt
EOF
    : >"$LOG"
    run_tool $O $E $H -c 4 -d 500ms -H 'X-Target: cmdline' --meta "$TMPROOT/meta.json" \
        --targets "$TMPROOT/list.txt"
    assert_eq "$RC" 0 "exit status"
    python3 - "$TMPROOT/meta.json" "$TMPROOT/list.txt" "$BASE/t/a" <<'PY' || fail "--meta"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["http"]["requests"] == 3 and m["http"]["targets_file"] == sys.argv[2], m["http"]
assert m["target"] == sys.argv[3], m["target"]
PY
    doc $O --invariants "v('c4.connections')==4" "v('c4.reconnects')==0" "v('c4.errors')==0" \
        "v('c4.requests')>30"
    wait_logged "$(value c4.attempts)"
    tlog walk "$LOG" /t/a,/t/b?x=1,/t/c 0,1,2,0 || fail "the clients' walks"
    python3 - "$LOG" <<'PY' || fail "what reached nginx"
import sys
for line in open(sys.argv[1]):
    conn, n, method, uri, connection, cl, length, xt = line.split(" ")
    want = {"/t/a": ("GET", "-", '"own"'), "/t/b?x=1": ("GET", "-", '"cmdline"'),
            "/t/c": ("POST", "32", '"cmdline"')}[uri]
    assert (method, cl, xt.strip()) == want, (line, want)
    if uri == "/t/c":
        assert int(length) > 32, "the request's length does not hold its 32-byte body: " + line
PY
}

# With --shard 1/2 of 4 clients this process runs global clients 1 and 3:
# over 4 targets they start at 1 and 3 (local numbering would give 0 and 1).
t_targets_shards_walk_from_the_global_client_id() {
    printf 'GET %s/t/0\nGET %s/t/1\nGET %s/t/2\nGET %s/t/3\n' "$BASE" "$BASE" "$BASE" "$BASE" \
        >"$TMPROOT/four.txt"
    : >"$LOG"
    run_tool $O $E $H -c 4 --shard 1/2 -d 300ms --targets "$TMPROOT/four.txt"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c4.connections')==2" "v('c4.errors')==0"
    wait_logged "$(value c4.attempts)"
    tlog walk "$LOG" /t/0,/t/1,/t/2,/t/3 1,3 || fail "the sharded clients' walks"
}

# --targets-per-metric: c<N>.target.<LINE>.latency_{cold,warm}_ms for every
# target, whose samples add up to the level's, over HTTP/1.1 and HTTP/2.
t_targets_per_metric_samples_add_up_to_the_totals() {
    local url args
    while read -r url args; do
        printf '# lines 2, 4 and 5\nGET %s/t/a\n\nGET %s/t/b\nHEAD %s/t/c\n' "$url" "$url" "$url" \
            >"$TMPROOT/m.txt"
        # shellcheck disable=SC2086 # args are words
        run_tool $O $E $H -c 3 -d 300ms $args --targets-per-metric --targets "$TMPROOT/m.txt"
        assert_eq "$RC" 0 "exit status ($args)"
        local k cold="" warm=""
        for k in 2 4 5; do
            cold+="+n('c3.target.$k.latency_cold_ms')"
            warm+="+n('c3.target.$k.latency_warm_ms')"
        done
        doc $O --invariants "v('c3.errors')==0" "v('c3.requests')>30" \
            "has('c3.target.2.latency_warm_ms') and has('c3.target.4.latency_warm_ms') and has('c3.target.5.latency_warm_ms')" \
            "0$cold==n('c3.latency_cold_ms')==3" "0$warm==n('c3.latency_warm_ms')" \
            "0$cold$warm==v('c3.requests')" \
            "sorted(k for k in m if '.target.' in k)==sorted('c3.target.%d.latency_%s_ms' % (l, w) for l in (2, 4, 5) for w in ('cold', 'warm'))" \
            "abs(n('c3.target.2.latency_warm_ms')-n('c3.target.5.latency_warm_ms'))<=3"
    done <<CASES
$BASE --http 1.1
$H2C --http 2 -m 4
$TLS --http 2 -m 2 --cacert $CA_PEM
CASES
}

# A target the server answers 404 is a status error whose reason in the
# summary names the target's line; the other target's latency is its own.
t_targets_status_error_names_the_target_line() {
    printf 'GET %s/t/fine\n\n# this one is missing\nGET %s/missing\n' "$BASE" "$BASE" \
        >"$TMPROOT/404.txt"
    run_tool $O $E $H -c 2 -d 300ms --targets-per-metric --targets "$TMPROOT/404.txt"
    assert_eq "$RC" 1 "exit status"
    doc $O --invariants "v('c2.errors.status')==v('c2.errors')>10" \
        "abs(v('c2.errors')-v('c2.requests'))<=2" "not has('c2.target.4.latency_warm_ms')" \
        "n('c2.target.1.latency_cold_ms')+n('c2.target.1.latency_warm_ms')==v('c2.requests')"
    assert_contains $E "unexpected status 404 (the target on line 4)"
}

# Through a forward proxy (absolute-form requests) every target keeps its
# URI, and an inline body (@<<TAG) arrives with its length.
t_targets_through_squid_with_an_inline_body() {
    need_squid || { fail "squid did not start"; return; }
    cat >"$TMPROOT/sq.txt" <<EOF
GET $BASE/t/one
PUT $BASE/t/two
@<<END
twelve bytes
END
EOF
    : >"$LOG"
    run_tool $O $E $H -c 2 -d 500ms -x "http://127.0.0.1:$SQUID_PORT" --targets "$TMPROOT/sq.txt"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c2.errors')==0" "v('c2.requests')>5" "v('c2.connections')==2"
    wait_logged "$(value c2.attempts)"
    assert_eq "$(grep -c '^[0-9]* [0-9]* GET /t/one "[^"]*" - ' "$LOG")" "$(grep -c /t/one "$LOG")" "GETs of /t/one without a body"
    assert_eq "$(grep -c '^[0-9]* [0-9]* PUT /t/two "[^"]*" 13 ' "$LOG")" "$(grep -c /t/two "$LOG")" "PUTs of /t/two with 13 bytes"
    assert_ge "$(grep -c /t/two "$LOG")" 3 "PUTs logged"
}

# --conn-requests 1 over TLS: a connection, a TLS handshake and a cold
# request per request, no warm one; nginx saw each alone on its connection,
# with Connection: close.
t_conn_requests_1_over_tls_is_a_connection_per_request() {
    : >"$LOG"
    run_tool $O $E $H -c 2 -d 1s --http 1.1 --cacert "$CA_PEM" --conn-requests 1 "$TLS/t/tls"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c2.errors')==0" "v('c2.requests')>20" \
        "v('c2.connections')==v('c2.requests')==v('c2.attempts')" \
        "n('c2.tls_handshake_ms')==v('c2.connections')" "n('c2.latency_cold_ms')==v('c2.requests')" \
        "not has('c2.latency_warm_ms')" "v('c2.reconnects')==v('c2.connections')-2"
    wait_logged "$(value c2.attempts)"
    tlog churn "$LOG" 1 0 1 >/dev/null || fail "nginx saw a connection with more than one request, or without Connection: close"
}

# The capacity test of a TLS-intercepting proxy: through mitmproxy, every
# request pays a CONNECT and a TLS handshake with the proxy, and all succeed.
t_conn_requests_1_through_mitmproxy_counts_every_handshake() {
    need_mitmproxy || { fail "mitmproxy did not start"; return; }
    run_tool $O $E $H -c 2 -d 2s --http 1.1 --cacert "$MITM_CA" -x "http://127.0.0.1:$MITM_PORT" \
        --conn-requests 1 "$TLS/t/mitm"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c2.errors')==0" "v('c2.requests')>5" \
        "v('c2.connections')==v('c2.requests')" "n('c2.proxy_connect_ms')==v('c2.connections')" \
        "n('c2.tls_handshake_ms')==v('c2.connections')" "not has('c2.latency_warm_ms')"
}

# --conn-requests 5: nginx sees connections of 5 requests (the last of each
# client's may be shorter), the fifth with Connection: close; per client,
# connections = ceil(requests / 5).
t_conn_requests_5_sends_connection_close_on_the_fifth() {
    : >"$LOG"
    run_tool $O $E $H -c 3 -d 500ms --conn-requests 5 --meta "$TMPROOT/meta.json" "$BASE/t/five"
    assert_eq "$RC" 0 "exit status"
    python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["options"]["conn_requests"] == 5' \
        "$TMPROOT/meta.json" || fail "--meta options.conn_requests"
    doc $O --invariants "v('c3.errors')==0" "v('c3.requests')>50" \
        "5*(v('c3.connections')-3) < v('c3.attempts') <= 5*v('c3.connections')" \
        "n('c3.latency_cold_ms')==v('c3.connections')" "v('c3.reconnects')==v('c3.connections')-3"
    wait_logged "$(value c3.attempts)"
    local conns
    conns=$(tlog churn "$LOG" 5 3 1 | tail -n 1) || fail "connections of nginx's log"
    assert_eq "$conns" "$(value c3.connections)" "connections nginx saw"
}

# HTTP/2: a new connection after N streams, several in flight at once; the
# client says GOAWAY (NO_ERROR) when it leaves (nghttpd -v shows the frames).
t_conn_requests_http2_new_connection_after_n_streams_with_goaway() {
    : >"$LOG"
    run_tool $O $E $H -c 2 -d 500ms --http 2 -m 4 --conn-requests 10 "$H2C/t/h2"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c2.errors')==0" "v('c2.requests')>100" \
        "10*(v('c2.connections')-2) < v('c2.attempts') <= 10*v('c2.connections')"
    wait_logged "$(value c2.attempts)"
    local conns
    conns=$(tlog churn "$LOG" 10 2 0 | tail -n 1) || fail "connections of nginx's log"
    assert_eq "$conns" "$(value c2.connections)" "connections nginx saw"

    _port_free "$GOAWAY_PORT" || { fail "port $GOAWAY_PORT is taken"; return; }
    mkdir -p "$TMPROOT/www" && echo hello >"$TMPROOT/www/index.html"
    nghttpd -v --no-tls -d "$TMPROOT/www" --address=127.0.0.1 "$GOAWAY_PORT" >"$TMPROOT/nghttpd.log" 2>&1 &
    local npid=$!
    _wait_port 127.0.0.1 "$GOAWAY_PORT"
    run_tool $O $E $H -c 1 -d 300ms --http 2 -m 2 --conn-requests 3 "http://127.0.0.1:$GOAWAY_PORT/"
    stop_background "$npid"
    assert_eq "$RC" 0 "exit status (nghttpd)"
    python3 - "$TMPROOT/nghttpd.log" "$O" <<'PY' || fail "GOAWAY after the third stream"
import collections, json, re, sys
headers, goaway, order = collections.Counter(), {}, collections.defaultdict(list)
text = open(sys.argv[1]).read()
for m in re.finditer(r"\[id=(\d+)\] \[ *[0-9.]+\] recv (HEADERS|GOAWAY) frame[^\n]*\n( *\(last_stream_id=\d+, error_code=(\w+))?", text):
    cid, kind = int(m[1]), m[2]
    order[cid].append(kind)
    if kind == "HEADERS":
        headers[cid] += 1
    else:
        goaway[cid] = m[4]
conns = json.load(open(sys.argv[2]))["metrics"]["c1.connections"]["samples"][0]
print("nghttpd: %d connections, streams per connection %s, GOAWAY on %d" % (len(order), dict(collections.Counter(headers.values())), len(goaway)))
assert len(order) == conns, (len(order), conns)
full = [c for c in order if headers[c] == 3]
assert len(full) >= len(order) - 1, "connections with other than 3 streams: %s" % dict(headers)
for c in full:
    assert order[c][-1] == "GOAWAY" and goaway[c] == "NO_ERROR", "connection %d: %s" % (c, order[c])
PY
}

# The walk of the targets goes on across a client's connections: with 3
# targets and 2 requests per connection a client sends a b | c a | b c ...
t_conn_requests_walk_of_targets_goes_on_across_connections() {
    printf 'GET %s/t/a\nGET %s/t/b\nGET %s/t/c\n' "$BASE" "$BASE" "$BASE" >"$TMPROOT/abc.txt"
    : >"$LOG"
    run_tool $O $E $H -c 1 -d 300ms --conn-requests 2 --targets "$TMPROOT/abc.txt"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c1.errors')==0" "v('c1.requests')>20"
    wait_logged "$(value c1.attempts)"
    python3 - "$LOG" <<'PY' || fail "the walk across connections"
import sys
# connection numbers grow, and a client's next connection may be logged
# before its last request on the previous one: order by both numbers
rows = sorted((l.split(" ") for l in open(sys.argv[1])), key=lambda r: (int(r[0]), int(r[1])))
conns = []
for r in rows:
    if not conns or conns[-1][0] != r[0]:
        conns.append((r[0], []))
    conns[-1][1].append(r[3])
seq = [u for _, us in conns for u in us]
assert all(len(us) == 2 for _, us in conns[:-1]), [us for _, us in conns][:5]
want = [["/t/a", "/t/b", "/t/c"][k % 3] for k in range(len(seq))]
assert seq == want, seq[:12]
PY
}

# Open loop: churn keeps the schedule's accounting (scheduled = attempts +
# unsent) and still a connection per request.
t_conn_requests_1_in_an_open_loop() {
    run_tool $O $E $H -c 4 -R 400 -d 1s --conn-requests 1 "$BASE/t/open"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c4.errors')==0" "360<=v('c4.attempts')<=405" \
        "v('c4.connections')==v('c4.requests')" "n('c4.send_lag_ms')==v('c4.attempts')"
}

# dnsload walks its query list by the same rule: one UDP socket per client,
# the queries in order from its global id modulo the list's length. With
# --shard 1/2 of 4 clients, sockets start at queries 1 and 3 (a client
# numbering of its own would give 0 and 1).
t_dnsload_queries_walk_from_the_global_client_id() {
    [ "$(id -u)" = 0 ] || skip "capturing on lo needs root"
    command -v tcpdump >/dev/null || { fail "tcpdump is not installed"; return; }
    need_knot || { fail "knot did not start"; return; }
    printf 'www.example.test A\nwww.example.test AAAA\nexample.test MX\nmail.example.test A\n' \
        >"$TMPROOT/q.txt"
    tcpdump -i lo -nn -l -U -T domain "udp and dst port $KNOT_PORT" >"$TMPROOT/dns.cap" 2>"$TMPROOT/tcpdump.err" &
    local tpid=$! i
    for ((i = 0; i < 50; i++)); do
        grep -q "listening on" "$TMPROOT/tcpdump.err" && break
        sleep 0.1
    done
    sleep 1 # "listening" comes a little before the capture really begins
    # at a rate a text capture keeps up with: every query must be seen
    run_tool $O $E "$DNSLOAD" --server 127.0.0.1 --port "$KNOT_PORT" --queries "$TMPROOT/q.txt" \
        -c 4 --shard 1/2 -R 1000 -d 1s
    sleep 1
    kill -INT "$tpid"
    wait "$tpid"
    assert_eq "$RC" 0 "exit status"
    python3 - "$TMPROOT/dns.cap" "$O" <<'PY' || fail "the sockets' walks"
import collections, json, re, sys
names = ["A? www.example.test.", "AAAA? www.example.test.", "MX? example.test.", "A? mail.example.test."]
socks = collections.OrderedDict()
for line in open(sys.argv[1]):
    # 12:00:00.000000 IP 127.0.0.1.45678 > 127.0.0.1.18053: 4660+ [1au] A? www.example.test. (45)
    m = re.search(r"IP 127\.0\.0\.1\.(\d+) > \S+: \d+\S* (?:\[\w+\] )?(\w+\? \S+) ", line)
    if m:
        socks.setdefault(m[1], []).append(names.index(m[2]))
doc = json.load(open(sys.argv[2]))["metrics"]
sent = sum(len(v) for v in socks.values())
print("%d sockets, %d queries captured, %d attempts" % (len(socks), sent, doc["c4.attempts"]["samples"][0]))
assert len(socks) == 2, list(socks)
assert sent == doc["c4.attempts"]["samples"][0] > 400, "the capture does not hold every query"
starts = []
for port, seq in socks.items():
    want = [(seq[0] + k) % 4 for k in range(len(seq))]
    assert seq == want, "socket %s sent %s..." % (port, seq[:8])
    starts.append(seq[0])
assert sorted(starts) == [1, 3], starts
PY
}

# dnsload --conn-requests: over TCP a connection per N queries; over UDP a
# new socket (a new source port) per query; over DoH a new TLS connection and
# HTTP/2 session per N queries.
t_dnsload_conn_requests_over_tcp_udp_and_doh() {
    need_knot || { fail "knot did not start"; return; }
    need_unbound || { fail "unbound did not start"; return; }
    run_tool $O $E "$DNSLOAD" --server 127.0.0.1 --port "$KNOT_PORT" --query 'www.example.test A' \
        --transport tcp -c 2 -d 300ms --conn-requests 3
    assert_eq "$RC" 0 "exit status (tcp)"
    doc $O --invariants "v('c2.errors')==0" "v('c2.requests')>20" \
        "3*(v('c2.connections')-2) < v('c2.attempts') <= 3*v('c2.connections')" \
        "n('c2.latency_cold_ms')==v('c2.connections')"
    run_tool $O $E "$DNSLOAD" --server 127.0.0.1 --port "$KNOT_PORT" --query 'www.example.test A' \
        -c 2 -d 300ms --conn-requests 1
    assert_eq "$RC" 0 "exit status (udp)"
    doc $O --invariants "v('c2.errors')==0" "v('c2.requests')>20" \
        "v('c2.connections')==v('c2.requests')" "not has('c2.latency_warm_ms')"
    run_tool $O $E "$DNSLOAD" --server 127.0.0.1 --port "$UNBOUND_DOH_PORT" --transport doh \
        --cacert "$CA_PEM" --query 'www.example.test A' -c 2 -d 500ms --conn-requests 4
    assert_eq "$RC" 0 "exit status (doh)"
    doc $O --invariants "v('c2.errors')==0" "v('c2.requests')>8" \
        "4*(v('c2.connections')-2) < v('c2.attempts') <= 4*v('c2.connections')" \
        "n('c2.tls_handshake_ms')==v('c2.connections')"
}

run_tests
