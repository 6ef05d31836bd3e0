# Network namespaces for tests that need more than loopback: one server
# namespace and client namespaces joined to it by veth pairs, all made by the
# test run itself and removed by stop_servers. Source after servers.sh (and
# servers_dns.sh for knot). Needs root and iproute2.
#
# Client K lives in namespace $(netns_client K) with address $(netns_client_addr K)
# and reaches the server namespace at $(netns_server_addr K); each pair has a
# /24 of its own under 10.N.0.0/16, N taken from LG_PORT_BASE so two runs
# with different bases do not collide. Every client also reaches the server at
# one address, $(netns_server_common_addr), routed over its own pair: the
# address shards on several "hosts" name as their common target.
NETNS_PREFIX=lg$LG_PORT_BASE
NETNS_SERVER=$NETNS_PREFIX-srv
_NETNS_NET=$((20 + LG_PORT_BASE / 1000 % 200))

netns_client() { echo "$NETNS_PREFIX-c$1"; }
netns_client_addr() { echo "10.$_NETNS_NET.$1.1"; }
netns_server_addr() { echo "10.$_NETNS_NET.$1.2"; }
netns_server_common_addr() { echo "10.$_NETNS_NET.255.1"; }
# the client end of pair K (inside the client namespace)
netns_client_dev() { echo "v$LG_PORT_BASE""c$1"; }

_netns_exists() { ip netns list 2>/dev/null | awk '{ print $1 }' | grep -qx "$1"; }

# need_netns N: the server namespace and clients 0..N-1.
need_netns() {
    local n=$1 k c vc vs
    [ "$(id -u)" = 0 ] || { echo "netns.sh: network namespaces need root" >&2; return 1; }
    command -v ip >/dev/null || { echo "netns.sh: ip (iproute2) missing" >&2; return 1; }
    mkdir -p "$SRV/netns"
    # stop_servers runs this after it has killed the servers
    cat >"$SRV/netns/netns.stop" <<EOF
#!/usr/bin/env bash
for ns in \$(ip netns list | awk '{ print \$1 }' | grep '^$NETNS_PREFIX-'); do ip netns delete "\$ns"; done
EOF
    chmod +x "$SRV/netns/netns.stop"
    if ! _netns_exists "$NETNS_SERVER"; then
        ip netns add "$NETNS_SERVER" && ip -n "$NETNS_SERVER" link set lo up &&
            ip -n "$NETNS_SERVER" addr add "$(netns_server_common_addr)/32" dev lo || return 1
    fi
    for ((k = 0; k < n; k++)); do
        c=$(netns_client "$k")
        _netns_exists "$c" && continue
        vc=$(netns_client_dev "$k")
        vs="v$LG_PORT_BASE""s$k"
        ip netns add "$c" && ip -n "$c" link set lo up &&
            ip link add "$vc" type veth peer name "$vs" &&
            ip link set "$vc" netns "$c" && ip link set "$vs" netns "$NETNS_SERVER" &&
            ip -n "$c" addr add "$(netns_client_addr "$k")/24" dev "$vc" &&
            ip -n "$NETNS_SERVER" addr add "$(netns_server_addr "$k")/24" dev "$vs" &&
            ip -n "$c" link set "$vc" up && ip -n "$NETNS_SERVER" link set "$vs" up &&
            ip -n "$c" route add "$(netns_server_common_addr)/32" via "$(netns_server_addr "$k")" || {
            echo "netns.sh: cannot make namespace $c" >&2
            return 1
        }
    done
}

# _netns_wait_for NAME CMD...: runs CMD in the first client namespace until it
# succeeds (10 s at the most): the server NAME answers from there.
_netns_wait_for() {
    local name=$1 i
    shift
    for ((i = 0; i < 100; i++)); do
        ip netns exec "$(netns_client 0)" "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "netns.sh: $name did not answer in $NETNS_SERVER" >&2
    return 1
}

# need_knot_netns: knot in the server namespace on port 53 of every address,
# serving servers_dns.sh's example.test zone.
need_knot_netns() {
    local d=$SRV/knot-netns
    [ -f "$d/knotd.pid" ] && kill -0 "$(cat "$d/knotd.pid")" 2>/dev/null && return 0
    need_netns 1 || return 1
    mkdir -p "$d/zones" "$d/db" "$d/run"
    need_knot || return 1 # writes the zone and the configuration this one copies
    cp "$SRV/knot/zones/example.test.zone" "$d/zones/"
    sed -e "s|listen: 127.0.0.1@$KNOT_PORT|listen: 0.0.0.0@53|" -e "s|$SRV/knot/|$d/|g" \
        -e "s|\"$SRV/knot\"|\"$d\"|g" "$SRV/knot/knot.conf" >"$d/knot.conf"
    ip netns exec "$NETNS_SERVER" knotd -c "$d/knot.conf" >"$d/stdout.log" 2>&1 &
    echo $! >"$d/knotd.pid"
    local addr
    addr=$(netns_server_addr 0)
    _netns_wait_for knot kdig +timeout=1 +retry=0 -p 53 "@$addr" example.test SOA
}

# need_nginx_netns: nginx in the server namespace, HTTP/1.1 on port 80 of
# every address, with servers.sh's small page at / and keep-alive settings.
# Requests to /stamped are logged with the server's own clock (msec) and the
# client's address to $SRV/nginx-netns/stamped.log: a record of when each
# client namespace really sent, whatever its own clock says. /paced serves the
# same page at 3000 requests a second in all, delaying the excess (limit_req):
# a target that sets the pace, so a closed loop's throughput does not depend
# on how many generator processes share the machine's CPUs.
need_nginx_netns() {
    local d=$SRV/nginx-netns
    [ -f "$d/nginx.pid" ] && kill -0 "$(cat "$d/nginx.pid")" 2>/dev/null && return 0
    need_netns 1 || return 1
    command -v nginx >/dev/null || { echo "netns.sh: nginx missing" >&2; return 1; }
    mkdir -p "$d/www" "$d/tmp"
    echo "hello from nginx" >"$d/www/index.html"
    {
        nginx_conf_head "$d"
        cat <<CONF
    log_format stamped '\$msec \$remote_addr';
    limit_req_zone \$server_port zone=paced:1m rate=3000r/s;
    server {
        listen 0.0.0.0:80;
        root $d/www;
        location = /stamped { access_log $d/stamped.log stamped; return 200 "stamped\n"; }
        # limit_req acts after the rewrite phase, where "return" would answer first
        location = /paced { limit_req zone=paced burst=100000; alias $d/www/index.html; }
    }
}
CONF
    } >"$d/nginx.conf"
    # stop_servers sends the master (nginx.pid) SIGTERM: it stops its workers
    ip netns exec "$NETNS_SERVER" nginx -c "$d/nginx.conf" -p "$d" -e "$d/error.log" ||
        { cat "$d/error.log" >&2; return 1; }
    local addr
    addr=$(netns_server_addr 0)
    _netns_wait_for nginx bash -c "exec 3<>/dev/tcp/$addr/80"
}

# need_chrony_netns: chrony in the server namespace serving NTP from the
# host's clock (it adjusts nothing: -x), the reference --clock-ref measures
# each client namespace's clock against.
need_chrony_netns() {
    local d=$SRV/chrony-netns
    [ -f "$d/chronyd.pid" ] && kill -0 "$(cat "$d/chronyd.pid")" 2>/dev/null && return 0
    need_netns 1 || return 1
    command -v chronyd >/dev/null || { echo "netns.sh: chronyd missing (apt-get install chrony)" >&2; return 1; }
    mkdir -p "$d"
    cat >"$d/chrony.conf" <<CONF
local stratum 8
allow all
port 123
cmdport 0
pidfile $d/chronyd.file.pid
driftfile $d/drift
CONF
    ip netns exec "$NETNS_SERVER" chronyd -x -d -u root -f "$d/chrony.conf" >"$d/log" 2>&1 &
    echo $! >"$d/chronyd.pid"
    local i
    for ((i = 0; i < 50; i++)); do
        grep -q "Disabled control of system clock" "$d/log" 2>/dev/null && sleep 0.2 && return 0
        sleep 0.1
    done
    echo "netns.sh: chronyd did not start: $(cat "$d/log")" >&2
    return 1
}
