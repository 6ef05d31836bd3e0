# DNS servers for the integration tests, on loopback only. Source after
# servers.sh (it provides $SRV, need_certs, _wait_port and stop_servers, which
# also stops these: their pid files are $SRV/<server>/*.pid).
#   need_knot     knotd, authoritative for example.test (and nothing else, so
#                 any other zone is REFUSED), on 127.0.0.1:$KNOT_PORT UDP+TCP
#   need_unbound  unbound with local data for example.test on
#                 127.0.0.1:$UNBOUND_PORT (UDP+TCP), DoT on $UNBOUND_DOT_PORT and
#                 DoH (HTTP/2, /dns-query) on $UNBOUND_DOH_PORT, with the test
#                 certificate of need_certs (CA: $CA_PEM); DoH allows 4
#                 concurrent streams per connection (http-max-streams)
#   need_bind     BIND 9 (named), authoritative for example.test (recursion off,
#                 so other zones are REFUSED) on 127.0.0.1:$BIND_PORT UDP+TCP,
#                 its own DoH listener (HTTP/2 over TLS, /dns-query) on
#                 $BIND_DOH_PORT, and its statistics channel (JSON at
#                 /json/v1/server) on $BIND_STATS_PORT; bind_requests prints how
#                 many queries it has received
#   need_kresd    knot-resolver (kresd) with a DoH listener (HTTP/2 over TLS,
#                 /dns-query) on $KRESD_DOH_PORT with the test certificate,
#                 forwarding to need_knot's server; kresd_requests prints how
#                 many DoH requests it has received (its stats module, read
#                 through its control socket)
# Records (all three servers): www.example.test A 192.0.2.1 and AAAA 2001:db8::1,
# example.test MX 10 mail.example.test, mail.example.test A 192.0.2.25,
# txt.example.test TXT; any other name under example.test is NXDOMAIN.
# Ports follow servers.sh's LG_PORT_BASE, so runs with different bases coexist.
export KNOT_PORT=$((LG_PORT_BASE + 53))
export UNBOUND_PORT=$((LG_PORT_BASE + 54))
export UNBOUND_DOT_PORT=$((LG_PORT_BASE + 853))
export UNBOUND_DOH_PORT=$((LG_PORT_BASE + 854))
export BIND_PORT=$((LG_PORT_BASE + 57))
export BIND_DOH_PORT=$((LG_PORT_BASE + 857))
export BIND_STATS_PORT=$((LG_PORT_BASE + 858))
export KRESD_DOH_PORT=$((LG_PORT_BASE + 859))

_wait_udp_dns() { # port seconds: until the server answers a query over UDP
    local i
    for ((i = 0; i < ${2:-10} * 10; i++)); do
        kdig +timeout=1 +retry=0 -p "$1" @127.0.0.1 example.test SOA >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "servers_dns.sh: no DNS answer on 127.0.0.1:$1 after ${2:-10}s" >&2
    return 1
}

# write_test_zone FILE: the example.test zone every authoritative server here
# serves (knot and BIND answer the same names).
write_test_zone() {
    cat >"$1" <<'ZONE'
$ORIGIN example.test.
$TTL 3600
@       SOA ns1 hostmaster 1 3600 900 604800 300
@       NS  ns1
@       MX  10 mail
ns1     A   192.0.2.53
www     A   192.0.2.1
www     AAAA 2001:db8::1
mail    A   192.0.2.25
txt     TXT "loadgen test zone"
ZONE
}

need_knot() {
    [ -f "$SRV/knot/knotd.pid" ] && kill -0 "$(cat "$SRV/knot/knotd.pid")" 2>/dev/null && return 0
    command -v knotd >/dev/null || { echo "servers_dns.sh: knotd missing (apt-get install knot)" >&2; return 1; }
    _port_free "$KNOT_PORT" || return 1
    local d=$SRV/knot
    mkdir -p "$d/zones" "$d/db" "$d/run"
    write_test_zone "$d/zones/example.test.zone"
    cat >"$d/knot.conf" <<CONF
server:
    rundir: "$d/run"
    listen: 127.0.0.1@$KNOT_PORT
    udp-workers: 2
    tcp-workers: 2
    background-workers: 1
    tcp-max-clients: 4096
database:
    storage: "$d/db"
log:
  - target: "$d/knot.log"
    any: warning
zone:
  - domain: example.test
    storage: "$d/zones"
    file: "example.test.zone"
    zonefile-sync: -1
    journal-content: none
CONF
    # as root knotd would drop to the "knot" user, which cannot read $SRV
    if [ "$(id -u)" = 0 ]; then
        sed -i '1a\    user: root:root' "$d/knot.conf"
    fi
    knotd -c "$d/knot.conf" >"$d/stdout.log" 2>&1 &
    echo $! >"$d/knotd.pid"
    _wait_udp_dns "$KNOT_PORT" 10 && _wait_port 127.0.0.1 "$KNOT_PORT"
}

need_bind() {
    [ -f "$SRV/bind/named.pid" ] && kill -0 "$(cat "$SRV/bind/named.pid")" 2>/dev/null && return 0
    command -v named >/dev/null || { echo "servers_dns.sh: named missing (apt-get install bind9)" >&2; return 1; }
    need_certs || return 1
    _port_free "$BIND_PORT" "$BIND_DOH_PORT" "$BIND_STATS_PORT" || return 1
    local d=$SRV/bind
    mkdir -p "$d"
    write_test_zone "$d/example.test.zone"
    # controls {}: no rndc channel (its default port 953 is shared by every
    # run on the machine); pid-file none: the pid file is ours, named runs in
    # the foreground (-f) as the user that started it, root included
    cat >"$d/named.conf" <<CONF
options {
    directory "$d";
    pid-file none;
    session-keyfile none;
    listen-on port $BIND_PORT { 127.0.0.1; };
    listen-on port $BIND_DOH_PORT tls loadgen http default { 127.0.0.1; };
    listen-on-v6 { none; };
    recursion no;
    dnssec-validation no;
};
controls { };
tls loadgen { key-file "$SRV/certs/server.key"; cert-file "$SRV/certs/server.pem"; };
statistics-channels { inet 127.0.0.1 port $BIND_STATS_PORT allow { 127.0.0.1; }; };
zone "example.test" { type primary; file "$d/example.test.zone"; };
logging {
    channel main { file "$d/named.log"; severity warning; };
    category default { main; };
};
CONF
    named -f -c "$d/named.conf" >"$d/stdout.log" 2>&1 &
    echo $! >"$d/named.pid"
    _wait_udp_dns "$BIND_PORT" 10 && _wait_port 127.0.0.1 "$BIND_DOH_PORT" &&
        _wait_port 127.0.0.1 "$BIND_STATS_PORT"
}

# bind_requests: queries BIND has received over every transport so far (the
# statistics channel's Requestv4: one per DNS message, DoH included).
bind_requests() {
    python3 -c 'import json, sys, urllib.request
d = json.load(urllib.request.urlopen("http://127.0.0.1:%s/json/v1/server" % sys.argv[1], timeout=5))
print(d.get("nsstats", {}).get("Requestv4", 0))' "$BIND_STATS_PORT"
}

need_kresd() {
    [ -f "$SRV/kresd/kresd.pid" ] && kill -0 "$(cat "$SRV/kresd/kresd.pid")" 2>/dev/null && return 0
    command -v kresd >/dev/null || { echo "servers_dns.sh: kresd missing (apt-get install knot-resolver)" >&2; return 1; }
    need_certs && need_knot || return 1
    _port_free "$KRESD_DOH_PORT" || return 1
    local d=$SRV/kresd
    mkdir -p "$d"
    rm -rf "$d/control"
    # every query goes to knot (example.test) and no trust anchor is set: no
    # root, no network, nothing to validate
    cat >"$d/config" <<CONF
net.listen('127.0.0.1', $KRESD_DOH_PORT, { kind = 'doh2' })
net.tls('$SRV/certs/server.pem', '$SRV/certs/server.key')
cache.size = 10 * MB
trust_anchors.remove('.')
modules.load('stats')
policy.add(policy.all(policy.STUB('127.0.0.1@$KNOT_PORT')))
CONF
    # -n: no interactive console on stdin; the control socket is
    # $d/control/<pid>; the working directory holds the cache
    kresd -n -c "$d/config" "$d" >"$d/kresd.log" 2>&1 &
    echo $! >"$d/kresd.pid"
    _wait_port 127.0.0.1 "$KRESD_DOH_PORT" || { cat "$d/kresd.log" >&2; return 1; }
    local i
    for ((i = 0; i < 100; i++)); do
        [ -S "$d/control/$(cat "$d/kresd.pid")" ] && return 0
        sleep 0.1
    done
    echo "servers_dns.sh: kresd made no control socket in $d/control" >&2
    return 1
}

# kresd_requests: DoH requests kresd has received so far (its stats module's
# request.doh: one per DNS message over DoH, answered or not).
kresd_requests() {
    python3 -c 'import re, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
s.sendall(b"stats.get(\"request.doh\")\n")
s.shutdown(socket.SHUT_WR)  # kresd answers, then closes the connection
out = b""
while True:
    d = s.recv(4096)
    if not d:
        break
    out += d
m = re.search(rb"(\d+)", out)
if not m:
    sys.exit("kresd control socket: no number in %r" % out)
print(int(m.group(1)))' "$SRV/kresd/control/$(cat "$SRV/kresd/kresd.pid")"
}

need_unbound() {
    [ -f "$SRV/unbound/unbound.pid" ] && kill -0 "$(cat "$SRV/unbound/unbound.pid")" 2>/dev/null && return 0
    command -v unbound >/dev/null || { echo "servers_dns.sh: unbound missing (apt-get install unbound)" >&2; return 1; }
    # DoH needs unbound built with libnghttp2 (Debian's 1.17 is)
    unbound -V 2>/dev/null | grep -q libnghttp2 ||
        echo "servers_dns.sh: warning: unbound lacks libnghttp2: no DoH on $UNBOUND_DOH_PORT" >&2
    need_certs || return 1
    _port_free "$UNBOUND_PORT" "$UNBOUND_DOT_PORT" "$UNBOUND_DOH_PORT" || return 1
    local d=$SRV/unbound
    mkdir -p "$d"
    cat >"$d/unbound.conf" <<CONF
server:
    directory: "$d"
    chroot: ""
    username: ""
    pidfile: "$d/unbound.file.pid"
    do-daemonize: no
    use-syslog: no
    logfile: "$d/unbound.log"
    verbosity: 0
    num-threads: 1
    interface: 127.0.0.1@$UNBOUND_PORT
    interface: 127.0.0.1@$UNBOUND_DOT_PORT
    interface: 127.0.0.1@$UNBOUND_DOH_PORT
    tls-port: $UNBOUND_DOT_PORT
    https-port: $UNBOUND_DOH_PORT
    tls-service-key: "$SRV/certs/server.key"
    tls-service-pem: "$SRV/certs/server.pem"
    http-endpoint: "/dns-query"
    http-max-streams: 4
    http-notls-downstream: no
    incoming-num-tcp: 1024
    so-reuseport: no
    access-control: 127.0.0.0/8 allow
    do-ip6: no
    module-config: "iterator"
    local-zone: "example.test." static
    local-data: "example.test. 3600 IN SOA ns1.example.test. hostmaster.example.test. 1 3600 900 604800 300"
    local-data: "example.test. 3600 IN MX 10 mail.example.test."
    local-data: "www.example.test. 3600 IN A 192.0.2.1"
    local-data: "www.example.test. 3600 IN AAAA 2001:db8::1"
    local-data: "mail.example.test. 3600 IN A 192.0.2.25"
    local-data: 'txt.example.test. 3600 IN TXT "loadgen test zone"'
remote-control:
    control-enable: no
CONF
    unbound -d -c "$d/unbound.conf" >"$d/stdout.log" 2>&1 &
    echo $! >"$d/unbound.pid"
    _wait_udp_dns "$UNBOUND_PORT" 10 && _wait_port 127.0.0.1 "$UNBOUND_DOT_PORT" &&
        _wait_port 127.0.0.1 "$UNBOUND_DOH_PORT"
}

# need_dnsfault: tests/fixtures/dnsfault.py on 127.0.0.1:$DNSFAULT_PORT (UDP and TCP),
# answering by the first label of the name (see the fixture); late.* answers
# come after $DNSFAULT_DELAY seconds, stale.* ones after 70000 more queries of
# the same client and 1 s, each logged to $DNSFAULT_LOG.
export DNSFAULT_PORT=$((LG_PORT_BASE + 55))
export DNSFAULT_DELAY=${DNSFAULT_DELAY:-0.6}
export DNSFAULT_LOG=$SRV/dnsfault/answers.log
need_dnsfault() {
    [ -f "$SRV/dnsfault/dnsfault.pid" ] && kill -0 "$(cat "$SRV/dnsfault/dnsfault.pid")" 2>/dev/null && return 0
    _port_free "$DNSFAULT_PORT" || return 1
    local d=$SRV/dnsfault fixture
    fixture=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)/dnsfault.py
    mkdir -p "$d"
    rm -f "$d/ready"
    : >"$DNSFAULT_LOG"
    python3 "$fixture" "$DNSFAULT_PORT" --delay "$DNSFAULT_DELAY" --log "$DNSFAULT_LOG" \
        >"$d/ready" 2>"$d/stderr.log" &
    echo $! >"$d/dnsfault.pid"
    local i
    for ((i = 0; i < 100; i++)); do
        grep -q ready "$d/ready" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "servers_dns.sh: dnsfault.py did not start: $(cat "$d/stderr.log")" >&2
    return 1
}
