#!/usr/bin/env bash
# Names and origins, against real servers on loopback: --resolve and
# --connect-to send a name to an address of the user's choosing (the name
# still in SNI, Host or :authority, CONNECT and DoH's URL), and --targets
# across origins switches a client's one connection from origin to origin,
# counted in origin_switches and not in reconnects. nginx (need_names_nginx:
# a certificate for *.example.test) logs each request's SNI, Host, server
# port and address, connection and URI, which is what the checks read.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
source "$(dirname "$0")/servers_dns.sh"
need_names_nginx || exit 1

H=$HTTPLOAD
P=$NAMES_HTTPS_PORT
LOG=$SRV/names/names.log
O=$TMPROOT/out.json
E=$TMPROOT/err.txt

# names_log FIELD...: nginx's log as "SNI HOST PORT ADDR" (or the fields
# named, 1-based: 1 SNI, 2 host, 3 port, 4 address, 5 connection, 6 request
# on it, 7 URI), one line per request, sorted and counted.
names_log() {
    local fields=${*:-1 2 3 4}
    awk -v f="$fields" 'BEGIN { n = split(f, k, " ") }
        { s = $k[1]; for (i = 2; i <= n; i++) s = s " " $k[i]; print s }' "$LOG" | sort | uniq -c |
        awk '{ $1 = ""; sub(/^ /, ""); print }'
}

# wait_logged N: nginx writes a line just after its response
wait_logged() {
    local i
    for ((i = 0; i < 30; i++)); do
        [ "$(wc -l <"$LOG")" -ge "$1" ] && return 0
        sleep 0.1
    done
    fail "nginx logged $(wc -l <"$LOG") requests, not $1"
}

value() { python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["metrics"][sys.argv[2]]["samples"][0]))' "$O" "$1"; }

# --resolve NAME:PORT:127.0.0.1: a name no DNS knows reaches nginx on
# 127.0.0.1, as SNI and as Host (HTTP/1.1) or :authority (HTTP/2), and the
# certificate for *.example.test is verified against the name.
t_resolve_sends_the_name_to_the_given_address() {
    local http
    for http in 1.1 2; do
        : >"$LOG"
        run_tool $O $E $H -c 1 -n 3 --http $http --cacert "$CA_PEM" \
            --resolve "one.example.test:$P:127.0.0.1" "https://one.example.test:$P/r"
        assert_eq "$RC" 0 "exit status (--http $http)"
        doc $O --invariants "v('c1.requests')==3" "v('c1.errors')==0"
        wait_logged 3
        assert_eq "$(names_log 1 2 3 4)" "one.example.test one.example.test $P 127.0.0.1" \
            "SNI, Host, port and address nginx saw (--http $http)"
    done
    # without --resolve the name does not resolve: a usage error naming it
    run_tool $O $E $H -c 1 -n 1 --cacert "$CA_PEM" "https://one.example.test:$P/r"
    assert_eq "$RC" 2 "exit status without --resolve"
    assert_contains $E "cannot resolve 'one.example.test'"
}

# '*' is every name on that port; an entry for one name comes first; the
# port must match (curl's rule): an entry for another port is not used.
t_resolve_star_is_every_name_an_exact_one_first() {
    printf 'GET https://a.example.test:%s/a\nGET https://b.example.test:%s/b\n' "$P" "$P" \
        >"$TMPROOT/ab.txt"
    : >"$LOG"
    run_tool $O $E $H -c 2 -n 10 --http 1.1 --cacert "$CA_PEM" --resolve "*:$P:127.0.0.1" \
        --resolve "b.example.test:$P:[::1]" --resolve "a.example.test:1:127.0.0.9" \
        --targets "$TMPROOT/ab.txt"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c2.requests')==10" "v('c2.errors')==0"
    wait_logged 10
    assert_eq "$(names_log 1 2 4 7 | tr '\n' ',')" \
        "a.example.test a.example.test 127.0.0.1 /a,b.example.test b.example.test ::1 /b," \
        "name, Host, address and URI nginx saw"
}

# An IPv6 ADDR in brackets, on HTTP too (no SNI: nginx logs '-'), and an
# IPv6 literal as the HOST itself.
t_resolve_ipv6_in_brackets() {
    : >"$LOG"
    run_tool $O $E $H -c 1 -n 2 --resolve "six.example.test:$NAMES_HTTP_PORT:[::1]" \
        "http://six.example.test:$NAMES_HTTP_PORT/six"
    assert_eq "$RC" 0 "exit status"
    wait_logged 2
    assert_eq "$(names_log 1 2 3 4)" "- six.example.test $NAMES_HTTP_PORT ::1" "what nginx saw"
    : >"$LOG"
    run_tool $O $E $H -c 1 -n 2 --resolve "[::2]:$NAMES_HTTP_PORT:127.0.0.1" \
        "http://[::2]:$NAMES_HTTP_PORT/lit"
    assert_eq "$RC" 0 "exit status (an IPv6 HOST)"
    wait_logged 2
    assert_eq "$(names_log 2 4)" "[::2] 127.0.0.1" "Host and address nginx saw"
}

# --connect-to NAME:443:127.0.0.1:PORT: the URL's port stays in the name
# (Host has none, being https's default) while the connection goes to PORT.
t_connect_to_moves_the_connection_not_the_name() {
    : >"$LOG"
    run_tool $O $E $H -c 1 -n 2 --http 1.1 --cacert "$CA_PEM" \
        --connect-to "moved.example.test:443:127.0.0.1:$P" "https://moved.example.test/m"
    assert_eq "$RC" 0 "exit status"
    wait_logged 2
    assert_eq "$(names_log 1 2 3 4)" "moved.example.test moved.example.test $P 127.0.0.1" \
        "what nginx saw"
}

# Targets on two origins, two targets each: each client walks them in
# turn (a1 a2 b1 b2 a1 ...) and switches its connection at each change of
# origin; reconnects stay 0, every connection carries one origin, and a
# client's next connection starts only after the last response on its
# previous one (--log's times): never two open at once, even with 4 HTTP/2
# streams in flight.
t_targets_across_origins_switch_the_one_connection() {
    printf 'GET https://%s.example.test:%s/%s\n' a "$P" a1 a "$P" a2 b "$P" b1 b "$P" b2 \
        >"$TMPROOT/ab.txt"
    local args
    for args in "--http 1.1" "--http 2 -m 4"; do
        : >"$LOG"
        # shellcheck disable=SC2086 # args are words
        run_tool $O $E $H -c 3 -n 60 $args --cacert "$CA_PEM" --resolve "*:$P:127.0.0.1" \
            --log "$TMPROOT/log.ndjson" --targets "$TMPROOT/ab.txt"
        assert_eq "$RC" 0 "exit status ($args)"
        doc $O --invariants "v('c3.errors')==0" "v('c3.requests')==60" "v('c3.reconnects')==0" \
            "v('c3.origin_switches')>10" \
            "v('c3.connections')==3+v('c3.origin_switches')" \
            "n('c3.latency_cold_ms')==v('c3.connections')" \
            "n('c3.tls_handshake_ms')==v('c3.connections')"
        summary $O $E httpload
        wait_logged "$(value c3.requests)"
        python3 - "$LOG" "$TMPROOT/log.ndjson" "$O" <<'PY' || fail "connections and origins ($args)"
import collections, json, sys
conns = collections.defaultdict(set)
for line in open(sys.argv[1]):
    sni, host, port, addr, conn, n, uri = line.split()
    assert sni == host, line
    assert uri[1] == host[0], line
    conns[conn].add(host)
# one origin per connection
for c, seen in conns.items():
    assert len(seen) == 1, "connection %s carried %s" % (c, seen)
recs = [json.loads(l) for l in open(sys.argv[2])]
by_client = collections.defaultdict(list)
for r in recs:
    by_client[r["client"]].append(r)
switches = 0
for client, rs in by_client.items():
    last_done = collections.defaultdict(float)
    for r in rs:
        last_done[r["connection"]] = max(last_done[r["connection"]], r["done_ms"])
    for r in rs:
        if r["cold"] and r["connection"] > 1:
            prev = last_done[r["connection"] - 1]
            assert r["attempt_ms"] >= prev, "client %d opened connection %d at %.3f ms, before its previous one's last response at %.3f ms" % (client, r["connection"], r["attempt_ms"], prev)
        switches += r.get("origin_switch", False)
doc = json.load(open(sys.argv[3]))["metrics"]
want = doc["c3.origin_switches"]["samples"][0]
assert switches == want, "--log marks %d origin switches, the document counts %d" % (switches, want)
print("%d connections, %d switches, %d log records" % (len(conns), switches, len(recs)))
PY
    done
}

# The server closes every connection (/close/): the next request on the same
# origin reconnects, one on the other origin switches; each is counted once,
# in its own count. Walk a a b b: per client as many of one as of the other.
t_origin_switches_apart_from_server_closes() {
    printf 'GET https://%s.example.test:%s/close/%s\n' a "$P" 1 a "$P" 2 b "$P" 1 b "$P" 2 \
        >"$TMPROOT/closing.txt"
    run_tool $O $E $H -c 2 -n 200 --http 1.1 --cacert "$CA_PEM" --resolve "*:$P:127.0.0.1" \
        --targets "$TMPROOT/closing.txt"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c2.errors')==0" "v('c2.requests')==200" \
        "v('c2.connections')==200" "v('c2.reconnects')>=90" "v('c2.origin_switches')>=90" \
        "v('c2.connections')==2+v('c2.reconnects')+v('c2.origin_switches')" \
        "abs(v('c2.reconnects')-v('c2.origin_switches'))<=2"
}

# Through a MITM proxy every change of origin is a new CONNECT and a TLS
# handshake with the proxy's certificate for that name; nginx sees the
# names as SNI and Host (the proxy resolves them: tests/fixtures/mitm_resolve.py).
t_targets_across_origins_through_mitmproxy() {
    need_names_mitmproxy || { fail "mitmproxy did not start"; return; }
    local i
    for i in 1 2 3 4; do printf 'GET https://n%d.example.test:%s/n\n' "$i" "$P"; done >"$TMPROOT/mitm.txt"
    : >"$LOG"
    run_tool $O $E $H -c 2 -n 40 --http 1.1 --cacert "$NAMES_MITM_CA" \
        -x "http://127.0.0.1:$NAMES_MITM_PORT" --targets "$TMPROOT/mitm.txt"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c2.errors')==0" "v('c2.requests')==40" "v('c2.reconnects')==0" \
        "v('c2.connections')==40" "v('c2.origin_switches')==38" \
        "n('c2.proxy_connect_ms')==40" "n('c2.tls_handshake_ms')==40"
    wait_logged 40
    assert_eq "$(names_log 1 2 | tr '\n' ',')" \
        "n1.example.test n1.example.test,n2.example.test n2.example.test,n3.example.test n3.example.test,n4.example.test n4.example.test," \
        "SNI and Host nginx saw through the proxy"
    assert_eq "$(wc -l <"$LOG")" 40 "requests nginx saw"
}

# dnsload --resolve: the server's name no DNS knows is connected to at the
# given address for DoT and DoH, and the name is what TLS checks: with -k
# the queries succeed, with the test CA the certificate (for localhost) does
# not match it; the name the certificate holds passes.
t_dnsload_resolve_for_dot_and_doh() {
    need_unbound || { fail "unbound did not start"; return; }
    local t port
    for t in dot doh; do
        port=$UNBOUND_DOT_PORT
        [ $t = doh ] && port=$UNBOUND_DOH_PORT
        run_tool $O $E "$DNSLOAD" --server resolver.example.test -p "$port" --transport $t -k \
            --resolve "resolver.example.test:$port:127.0.0.1" --query 'www.example.test A' -c 2 -n 20
        assert_eq "$RC" 0 "exit status ($t, -k)"
        doc $O --invariants "v('c2.requests')==20" "v('c2.errors')==0"
        run_tool $O $E "$DNSLOAD" --server resolver.example.test -p "$port" --transport $t \
            --cacert "$CA_PEM" --resolve "*:$port:127.0.0.1" --query 'www.example.test A' -c 1 -n 2
        assert_eq "$RC" 1 "exit status ($t, a certificate for another name)"
        doc $O "v('c1.errors.tls_verify')==2"
        run_tool $O $E "$DNSLOAD" --server localhost -p "$port" --transport $t --cacert "$CA_PEM" \
            --resolve "localhost:$port:127.0.0.1" --query 'www.example.test A' -c 1 -n 2
        assert_eq "$RC" 0 "exit status ($t, the certificate's name)"
        run_tool $O $E "$DNSLOAD" --server resolver.example.test -p "$port" --transport $t -k \
            --query 'www.example.test A' -c 1 -n 2
        assert_eq "$RC" 2 "exit status ($t, no --resolve)"
        assert_contains $E "cannot resolve 'resolver.example.test'"
    done
}

run_tests
