#!/usr/bin/env bash
# udp: both transports
# Source addresses (--source), the ramp (--ramp) and the descriptor limit,
# against real servers on loopback: nginx logs each connection's
# $remote_addr, unbound (log-queries) each query's client address, so the
# addresses the generator bound are read from the servers' side; --log and
# --meta show when each client began; prlimit sets the descriptor limits.
# Needs nginx, unbound, prlimit; IPv6 on lo for the ::1 test.
source "$(dirname "$0")/lib.sh"
source "$TESTDIR/servers.sh"
source "$TESTDIR/servers_dns.sh"
trap stop_servers EXIT
# the second UDP transport's pass: the tests whose sockets are UDP
UDP_TESTS="t_dns_udp_sockets_come_from_each_source t_dns_ramp_spreads_the_clients_sockets"

H=$HTTPLOAD
D=$DNSLOAD
W=$TMPROOT/sources
mkdir -p "$W"
SRC_HTTP_PORT=$((LG_PORT_BASE + 70))
SRC_DNS_PORT=$((LG_PORT_BASE + 71))
URL=http://127.0.0.1:$SRC_HTTP_PORT/

# need_src_nginx: nginx on 127.0.0.1 and [::1]:SRC_HTTP_PORT whose access
# log holds each request's client address and nginx's connection number.
need_src_nginx() {
    local d=$SRV/srcnginx
    [ -f "$d/nginx.pid" ] && kill -0 "$(cat "$d/nginx.pid")" 2>/dev/null && return 0
    _port_free "$SRC_HTTP_PORT" || return 1
    mkdir -p "$d/tmp"
    {
        nginx_conf_head "$d" workers=1 nofile=4096 connections=4000
        cat <<CONF
    log_format src '\$remote_addr \$connection';
    server {
        listen 127.0.0.1:$SRC_HTTP_PORT;
        listen [::1]:$SRC_HTTP_PORT;
        access_log $d/access.log src;
        location / { return 200 "source\n"; }
    }
}
CONF
    } >"$d/nginx.conf"
    nginx -c "$d/nginx.conf" -p "$d" -e "$d/error.log" || { cat "$d/error.log" >&2; return 1; }
    _wait_port 127.0.0.1 "$SRC_HTTP_PORT"
}

# need_src_unbound: unbound on 127.0.0.1:SRC_DNS_PORT logging every query
# with its client address ("info: 127.0.0.2 www.example.test. A IN").
need_src_unbound() {
    local d=$SRV/srcunbound
    [ -f "$d/unbound.pid" ] && kill -0 "$(cat "$d/unbound.pid")" 2>/dev/null && return 0
    command -v unbound >/dev/null || return 1
    _port_free "$SRC_DNS_PORT" || return 1
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
    log-queries: yes
    verbosity: 0
    num-threads: 1
    interface: 127.0.0.1@$SRC_DNS_PORT
    so-reuseport: no
    access-control: 127.0.0.0/8 allow
    do-ip6: no
    module-config: "iterator"
    local-zone: "example.test." static
    local-data: "www.example.test. 3600 IN A 192.0.2.1"
remote-control:
    control-enable: no
CONF
    unbound -d -c "$d/unbound.conf" >"$d/stdout.log" 2>&1 &
    echo $! >"$d/unbound.pid"
    _wait_udp_dns "$SRC_DNS_PORT" 10
}

# addrs_in LOG: the distinct client addresses of nginx's access log.
addrs_in() { awk '{print $1}' "$1" | sort -u | tr '\n' ' ' | sed 's/ $//'; }

t_http_connections_come_from_each_source_in_turn() {
    need_src_nginx || fail "nginx did not start"
    local log=$SRV/srcnginx/access.log
    : >"$log"
    run_tool $W/h.out $W/h.err $H -c 6 -d 1s --source 127.0.0.2,127.0.0.3,127.0.0.4 \
        --meta $W/h.meta "$URL"
    assert_eq "$RC" 0 "exit status ($(head -c 300 $W/h.err))"
    assert_eq "$(addrs_in "$log")" "127.0.0.2 127.0.0.3 127.0.0.4" "client addresses nginx saw"
    # round robin: six connections, two from each address
    local per
    per=$(awk '{c[$2] = $1} END {for (k in c) n[c[k]]++; for (a in n) print a, n[a]}' "$log" | sort | tr '\n' ' ')
    assert_eq "$per" "127.0.0.2 2 127.0.0.3 2 127.0.0.4 2 " "connections per address"
    python3 - $W/h.meta <<'PY' || fail "--meta does not record the sources"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["sources"] == {"given": "127.0.0.2,127.0.0.3,127.0.0.4",
                        "addresses": ["127.0.0.2", "127.0.0.3", "127.0.0.4"]}, m.get("sources")
PY
}

t_http_cidr_source_gives_the_block_s_hosts() {
    need_src_nginx || fail "nginx did not start"
    local log=$SRV/srcnginx/access.log
    : >"$log"
    # a /29: six hosts, .1 to .6 (the network and broadcast addresses are no host's)
    run_tool $W/c.out $W/c.err $H -c 12 -t 2 -d 1s --source 127.0.1.0/29 --meta $W/c.meta "$URL"
    assert_eq "$RC" 0 "exit status ($(head -c 300 $W/c.err))"
    assert_eq "$(addrs_in "$log")" "127.0.1.1 127.0.1.2 127.0.1.3 127.0.1.4 127.0.1.5 127.0.1.6" \
        "client addresses nginx saw"
    python3 - $W/c.meta <<'PY' || fail "--meta does not list the block's hosts"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["sources"]["given"] == "127.0.1.0/29"
assert m["sources"]["addresses"] == ["127.0.1.%d" % i for i in range(1, 7)], m["sources"]
PY
}

t_ipv6_loopback_source_works() {
    need_src_nginx || fail "nginx did not start"
    ip -6 addr show dev lo | grep -q '::1/128' || skip "no ::1 on lo"
    local log=$SRV/srcnginx/access.log
    : >"$log"
    run_tool $W/6.out $W/6.err $H -c 2 -d 500ms --source ::1 "http://[::1]:$SRC_HTTP_PORT/"
    assert_eq "$RC" 0 "exit status ($(head -c 300 $W/6.err))"
    assert_eq "$(addrs_in "$log")" "::1" "client address nginx saw"
    # and a family other than the target's is refused by name
    run_tool $W/6b.out $W/6b.err $H -c 2 -d 500ms --source ::1 "$URL"
    assert_eq "$RC" 2 "exit status of an IPv6 source toward an IPv4 target"
    assert_contains $W/6b.err "--source: ::1 is an IPv6 address and the target"
}

t_address_not_on_this_machine_is_a_usage_error() {
    run_tool $W/n.out $W/n.err $H -c 2 -d 1s --source 127.0.0.2,192.0.2.1 http://127.0.0.1:9/
    assert_eq "$RC" 2 "exit status"
    assert_empty_file $W/n.out "stdout"
    assert_eq "$(wc -l <$W/n.err)" 1 "lines on stderr"
    assert_contains $W/n.err "--source: 192.0.2.1 is not an address of this machine"
    run_tool $W/n.out $W/n.err $D -s 127.0.0.1 -p 9 --query 'a.test A' --source 192.0.2.1
    assert_eq "$RC" 2 "dnsload's exit status"
    assert_contains $W/n.err "dnsload: --source: 192.0.2.1 is not an address of this machine"
}

t_dns_udp_sockets_come_from_each_source() {
    need_src_unbound || fail "unbound did not start"
    local log=$SRV/srcunbound/unbound.log
    : >"$log" # unbound appends: the queries of earlier tests go
    run_tool $W/d.out $W/d.err $D -s 127.0.0.1 -p $SRC_DNS_PORT --query 'www.example.test A' \
        -c 4 -d 1s --source 127.0.2.1,127.0.2.2 --meta $W/d.meta
    assert_eq "$RC" 0 "exit status ($(head -c 300 $W/d.err))"
    local seen
    seen=$(grep -oE 'info: 127\.[0-9.]+ www\.example\.test\. A IN' "$log" | awk '{print $2}' | sort -u | tr '\n' ' ')
    assert_eq "$seen" "127.0.2.1 127.0.2.2 " "client addresses unbound saw"
    python3 - $W/d.meta <<'PY' || fail "--meta does not record the sources"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["sources"]["addresses"] == ["127.0.2.1", "127.0.2.2"], m.get("sources")
PY
}

t_ramp_spreads_the_clients_first_attempts() {
    need_src_nginx || fail "nginx did not start"
    # 10 clients over 1 s: client i's first attempt at about i x 100 ms
    run_tool $W/r.out $W/r.err $H -c 10 -d 2s --ramp 1s --log $W/r.log --meta $W/r.meta "$URL"
    assert_eq "$RC" 0 "exit status ($(head -c 300 $W/r.err))"
    python3 - $W/r.log $W/r.meta <<'PY' || fail "the clients did not begin 100 ms apart"
import json, sys
first = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["cold"] and r["client"] not in first:
        first[r["client"]] = r["attempt_ms"]
assert sorted(first) == list(range(10)), first
# never before its moment (without --ramp all ten begin within a few ms):
# the upper bound is only the level's end, as a machine whose other work
# starves the generator (it says so on stderr) makes its timer late
for i, t in first.items():
    assert i * 100 - 1 <= t < 2000, (i, t)
assert first[0] < 1000, first
m = json.load(open(sys.argv[2]))
ramp = m["levels"][0]["ramp"]
assert ramp["ramp_s"] == 1 and abs(ramp["step_s"] - 0.1) < 1e-9, ramp
assert m["options"]["ramp_s"] == 1, m["options"]
PY
}

t_dns_ramp_spreads_the_clients_sockets() {
    need_src_unbound || fail "unbound did not start"
    # 5 UDP clients over 500 ms: client i's first query at about i x 100 ms
    run_tool $W/dr.out $W/dr.err $D -s 127.0.0.1 -p $SRC_DNS_PORT --query 'www.example.test A' \
        -c 5 -d 2s --ramp 500ms --log $W/dr.log
    assert_eq "$RC" 0 "exit status ($(head -c 300 $W/dr.err))"
    python3 - $W/dr.log <<'PY' || fail "the UDP clients did not begin 100 ms apart"
import json, sys
first = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    first[r["client"]] = min(first.get(r["client"], 1e9), r["origin_ms"])
assert sorted(first) == list(range(5)), first
for i, t in first.items():
    assert i * 100 - 1 <= t < 2000, (i, t)
assert first[0] < 1000, first
PY
}

t_ramp_open_loop_counts_nothing_before_a_client_began() {
    need_src_nginx || fail "nginx did not start"
    # 100/s over 10 clients for 2 s: 200 due, less those of each client due
    # before it began (client i begins at i x 100 ms of a 1 s ramp; its
    # requests fall due every 100 ms from i x 10 ms): 45 in all
    run_tool $W/o.out $W/o.err $H -c 10 -R 100 -d 2s --ramp 1s --log $W/o.log "$URL"
    assert_eq "$RC" 0 "exit status ($(head -c 300 $W/o.err))"
    # a generator starved by the machine's other work (it says so) may leave
    # requests unsent at the deadline; the schedule's count is exact anyway
    local starved=0
    grep -q "the generator limited this measurement" $W/o.err && starved=1
    python3 - $W/o.out $W/o.log $starved <<'PY' || fail "requests due before a client began were counted"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
scheduled = m["c10.scheduled"]["samples"][0]
unsent = m["c10.unsent"]["samples"][0]
assert scheduled == 155, scheduled
assert unsent == 0 or sys.argv[3] == "1", unsent
assert m["c10.attempts"]["samples"][0] + unsent == scheduled
for line in open(sys.argv[2]):
    r = json.loads(line)
    assert r["origin_ms"] >= r["client"] * 100 - 1, r
PY
}

t_descriptor_soft_limit_is_raised_for_1000_clients() {
    command -v prlimit >/dev/null || skip "prlimit missing"
    need_src_nginx || fail "nginx did not start"
    # a soft limit of 256 under a hard one that holds 1000 clients (65536,
    # or this shell's own hard limit: raising it takes CAP_SYS_RESOURCE)
    local hard
    hard=$(ulimit -Hn)
    [ "$hard" = unlimited ] || [ "$hard" -gt 65536 ] && hard=65536
    [ "$hard" -ge 1100 ] || skip "a hard descriptor limit of $hard"
    run_tool $W/f.out $W/f.err prlimit --nofile=256:$hard $H -c 1000 -d 2s --ramp 500ms \
        --source 127.0.3.1,127.0.3.2 "$URL"
    assert_eq "$RC" 0 "exit status ($(head -c 300 $W/f.err))"
    python3 - $W/f.out <<'PY' || fail "not every client connected"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
assert m["c1000.connections"]["samples"][0] >= 1000, m["c1000.connections"]
assert m["c1000.requests"]["samples"][0] >= 1000
assert m["c1000.errors"]["samples"][0] == 0
PY
    # a hard limit of 256 cannot be raised: one line says what to raise
    run_tool $W/f2.out $W/f2.err prlimit --nofile=256:256 $H -c 1000 -d 1s "$URL"
    assert_eq "$RC" 2 "exit status with a hard limit of 256"
    assert_empty_file $W/f2.out "stdout"
    assert_eq "$(wc -l <$W/f2.err)" 1 "lines on stderr"
    assert_contains $W/f2.err "1000 clients need 1020 file descriptors but the hard limit is 256: raise it (as root: ulimit -Hn 1020"
    assert_contains $W/f2.err "LimitNOFILE=1020"
    # and --preflight says the same in its descriptor line
    run_tool $W/f3.out $W/f3.err prlimit --nofile=256:256 $H --preflight -c 1000 "$URL"
    assert_eq "$RC" 6 "--preflight's exit status"
    assert_contains $W/f3.err "preflight descriptors: unfit; hard limit 256; needs 1020; fix: ulimit -Hn (LimitNOFILE), or --shard"
}

t_ports_are_counted_per_source_address() {
    # 100,000 clients toward one address: more than one source's ports, not
    # more than four's (a range of 32768-60999 holds 28232 each)
    read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
    local per=$((hi - lo + 1))
    [ "$per" -lt 100000 ] && [ $((4 * per)) -ge 100000 ] || skip "a port range of $per"
    run_tool $W/p.out $W/p.err $H --preflight -c 100000 "$URL"
    grep -E '^httpload: preflight ports: unfit' $W/p.err >/dev/null || fail "one source: $(grep 'preflight ports' $W/p.err)"
    run_tool $W/p.out $W/p.err $H --preflight -c 100000 --source 127.0.4.1,127.0.4.2,127.0.4.3,127.0.4.4 "$URL"
    grep -E '^httpload: preflight ports: ok; [0-9]+ ports \(4 sources\)' $W/p.err >/dev/null ||
        fail "four sources: $(grep 'preflight ports' $W/p.err)"
}

# need_src_netns: a network namespace of its own (lo only) whose port range
# is 100 ports wide, with an nginx inside on 127.0.0.1:SRC_HTTP_PORT.
SRC_NS=lg$LG_PORT_BASE-src
need_src_netns() {
    [ "$(id -u)" = 0 ] && command -v ip >/dev/null || return 1
    local d=$SRV/srcns
    [ -f "$d/nginx.pid" ] && kill -0 "$(cat "$d/nginx.pid")" 2>/dev/null && return 0
    mkdir -p "$d/tmp"
    # stop_servers runs it after it has stopped the servers
    printf '#!/bin/sh\nip netns delete %s 2>/dev/null\n' "$SRC_NS" >"$d/netns.stop"
    chmod +x "$d/netns.stop"
    ip netns add "$SRC_NS" && ip -n "$SRC_NS" link set lo up || return 1
    ip netns exec "$SRC_NS" sysctl -q -w net.ipv4.ip_local_port_range="40000 40099" || return 1
    {
        nginx_conf_head "$d" workers=1 nofile=4096 connections=4000
        cat <<CONF
    log_format src '\$remote_addr \$connection';
    server {
        listen 127.0.0.1:$SRC_HTTP_PORT;
        access_log $d/access.log src;
        location / { return 200 "namespace\n"; }
    }
}
CONF
    } >"$d/nginx.conf"
    ip netns exec "$SRC_NS" nginx -c "$d/nginx.conf" -p "$d" -e "$d/error.log" || return 1
    local i
    for ((i = 0; i < 50; i++)); do
        ip netns exec "$SRC_NS" bash -c "exec 3<>/dev/tcp/127.0.0.1/$SRC_HTTP_PORT" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

t_sources_multiply_the_ports_one_address_has() {
    need_src_netns || skip "no network namespace here (root and iproute2)"
    local u=http://127.0.0.1:$SRC_HTTP_PORT/
    # 300 clients, 100 ports: from one address most connects fail
    # (EADDRNOTAVAIL), and the preflight says so first
    run_tool $W/ns1.out $W/ns1.err ip netns exec "$SRC_NS" $H -c 300 -d 1s --ramp 300ms "$u"
    assert_eq "$RC" 1 "exit status from one address ($(head -c 300 $W/ns1.err))"
    assert_contains $W/ns1.err "preflight ports: unfit; 100 ports"
    python3 - $W/ns1.out <<'PY' || fail "300 clients fit 100 ports"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
assert m["c300.errors.connect"]["samples"][0] > 0, m.get("c300.errors.connect")
PY
    # from the six hosts of a /29, 600 ports: every client connects (not
    # 127.0.0.1, whose ports the run above left in TIME_WAIT)
    local log=$SRV/srcns/access.log
    : >"$log"
    run_tool $W/ns6.out $W/ns6.err ip netns exec "$SRC_NS" $H -c 300 -d 1s --ramp 300ms \
        --source 127.0.1.0/29 "$u"
    assert_eq "$RC" 0 "exit status from six addresses ($(head -c 300 $W/ns6.err))"
    grep -q "preflight ports" $W/ns6.err && fail "a preflight line: $(grep 'preflight ports' $W/ns6.err)"
    python3 - $W/ns6.out <<'PY' || fail "not every client connected"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
assert m["c300.connections"]["samples"][0] == 300, m["c300.connections"]
assert m["c300.errors"]["samples"][0] == 0, m["c300.errors"]
PY
    assert_eq "$(awk '{print $1}' "$log" | sort -u | wc -l)" 6 "client addresses nginx saw"
}

run_tests
