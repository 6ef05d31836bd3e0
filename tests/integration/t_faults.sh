#!/usr/bin/env bash
# run: once
# (the normal build only: each test is a few seconds of load through a fault,
# and the CI budget is nearly spent; the error paths they reach run under the
# sanitizers in the torture's injected failures)
# The faults a harness meets in a long run, against real servers: the server
# dies mid-level and comes back, the link drops and returns, the disk fills,
# the wall clock jumps, the descriptors run out. Each run must classify every
# failure, keep every client going, keep its accounts, and say what it lost.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
source "$(dirname "$0")/servers_dns.sh"
source "$(dirname "$0")/netns.sh"
trap 'cleanup_mounts; stop_servers' EXIT

W=$TMPROOT/faults
mkdir -p "$W"
# cleanup_mounts: unmounts what small_disk mounted, should a test have ended
# before it did so itself
cleanup_mounts() {
    local m
    [ -f "$W/mounts" ] || return 0
    while read -r m; do mountpoint -q "$m" && umount "$m"; done <"$W/mounts"
    rm -f "$W/mounts"
}
FAULTLOG="python3 $TESTDIR/faultlog.py"
# One timer tick: the kernel's, 1/CONFIG_HZ (1 ms at HZ=1000, 4 at Debian's
# 250; loadgen/transport/udp_ring_probe.c), the bound of every time the tests
# below judge. Where the kernel's configuration cannot be read, the coarsest
# tick a Linux kernel is built with (HZ=100).
kernel_hz() {
    { zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null; } |
        sed -n 's/^CONFIG_HZ=\([0-9][0-9]*\)$/\1/p' | head -n 1
}
HZ=$(kernel_hz)
TICK_MS=$(awk -v hz="${HZ:-100}" 'BEGIN { print 1000 / hz }')
echo "(timer tick: $TICK_MS ms, HZ=${HZ:-100}${HZ:+ as the kernel was built})"
# The generator at a real-time priority where a test judges its timers: a
# neighbour's build would otherwise delay a wake-up by milliseconds (see
# t_openloop.sh). The runs it applies to are open loops at low rates.
RT="chrt -f 10"

# --- the server dies mid-level and comes back --------------------------------

# An nginx of this file's own (HTTP/1.1 and HTTPS with h2), to be killed
# without disturbing the servers of the other tests.
OWN_NGINX=$SRV/nginx-faults
OWN_HTTP_PORT=$((LG_PORT_BASE + 470))
OWN_HTTPS_PORT=$((LG_PORT_BASE + 471))
own_nginx_start() {
    local d=$OWN_NGINX
    if [ ! -f "$d/nginx.conf" ]; then
        need_certs || return 1
        _port_free "$OWN_HTTP_PORT" "$OWN_HTTPS_PORT" || return 1
        mkdir -p "$d/www" "$d/tmp"
        echo "hello from nginx" >"$d/www/index.html"
        {
            nginx_conf_head "$d"
            cat <<CONF
    server {
        listen 127.0.0.1:$OWN_HTTP_PORT;
        listen 127.0.0.1:$OWN_HTTPS_PORT ssl http2;
        ssl_certificate $SRV/certs/server.pem;
        ssl_certificate_key $SRV/certs/server.key;
        root $d/www;
    }
}
CONF
        } >"$d/nginx.conf"
    fi
    # a port base in the ephemeral range (CI's is not) lets another process's
    # connection in TIME_WAIT hold one of these ports for up to a minute
    # (bench/lib.sh does the same)
    local i
    for ((i = 1; ; i++)); do
        nginx -c "$d/nginx.conf" -p "$d" -e "$d/error.log" 2>"$d/start.err" && break
        if ((i == 10)) || ! grep -q 'Address already in use' "$d/start.err"; then
            cat "$d/start.err" >&2
            return 1
        fi
        sleep 2
    done
    _wait_port 127.0.0.1 "$OWN_HTTP_PORT" && _wait_port 127.0.0.1 "$OWN_HTTPS_PORT"
}

# kill_nginx_tree: SIGKILL to the master and its workers at once: nothing is
# closed gracefully and the listening sockets go with them.
kill_nginx_tree() {
    local master
    master=$(cat "$OWN_NGINX/nginx.pid")
    # shellcheck disable=SC2046 # one word per pid
    kill -9 "$master" $(pgrep -P "$master")
}

# port_released PORT: nothing listens on the loopback PORT (TCP or UDP) any
# more, within 10 s: a process SIGKILL ended holds its sockets until it has
# finished dying, which on a busy machine took half a second, and a server
# started before then cannot bind
port_released() {
    local i
    for ((i = 0; i < 100; i++)); do
        [ -z "$(ss -Hltun "sport = :$1")" ] && return 0
        sleep 0.1
    done
    echo "port $1 still in use 10 s after its server was killed: $(ss -Hltunp "sport = :$1")" >&2
    return 1
}

# knot_restart: knotd again, once the killed one's ports are free; its pid
# file goes first: the killed knotd may linger as a zombie nobody reaps (when
# the shell that started it has gone, in a container whose first process
# reaps nothing), and knotd refuses to start while the pid it names exists
knot_restart() {
    port_released "$KNOT_PORT" || return 1
    rm -f "$SRV/knot/run/knot.pid"
    knotd -c "$SRV/knot/knot.conf" >>"$SRV/knot/stdout.log" 2>&1 &
    echo $! >"$SRV/knot/knotd.pid"
    _wait_udp_dns "$KNOT_PORT" 10
}

# The level runs 4 s; the servers die 1 s in and come back 1 s later. Four
# generators at once through the same outage: httpload over HTTP/1.1 and over
# TLS with HTTP/2, dnsload over UDP and over TCP. Every failure must be of a
# class that names what happened (the in-flight requests reset, cut off, or
# timed out while the dying server still held them: on a busy machine a
# killed nginx held its sockets for 0.5 s; then connections refused, reset
# while they were being set up by the dying listener (connect), or a
# handshake cut off; over UDP the queries lost, then refused by ICMP),
# every client must fail and then complete requests again, a client whose
# connection failed must wait --retry-delay before its next attempt, and the
# level is valid (exit status 0 under --max-error-rate 1).
t_servers_die_mid_level_and_come_back() {
    own_nginx_start || { fail "nginx did not start"; return; }
    need_knot || { fail "knot did not start"; return; }
    local common=(-c 8 -d 4s --timeout 1s --retry-delay 100ms --max-error-rate 1)
    local q=(-s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A')
    local pids=() t0
    "$HTTPLOAD" "${common[@]}" --log "$W/h1.log" "http://127.0.0.1:$OWN_HTTP_PORT/" \
        >"$W/h1.json" 2>"$W/h1.err" &
    pids+=($!)
    "$HTTPLOAD" "${common[@]}" --http 2 --cacert "$CA_PEM" --log "$W/h2.log" \
        "https://127.0.0.1:$OWN_HTTPS_PORT/" >"$W/h2.json" 2>"$W/h2.err" &
    pids+=($!)
    "$DNSLOAD" "${q[@]}" "${common[@]}" --log "$W/udp.log" >"$W/udp.json" 2>"$W/udp.err" &
    pids+=($!)
    "$DNSLOAD" "${q[@]}" "${common[@]}" --transport tcp --log "$W/tcp.log" >"$W/tcp.json" \
        2>"$W/tcp.err" &
    pids+=($!)
    sleep 1
    kill_nginx_tree
    kill -9 "$(cat "$SRV/knot/knotd.pid")"
    sleep 1
    port_released "$OWN_HTTP_PORT" && port_released "$OWN_HTTPS_PORT" && own_nginx_start ||
        fail "nginx did not start again"
    knot_restart || fail "knot did not start again"
    local p name allowed
    for p in "${pids[@]}"; do
        RC=0
        wait "$p" || RC=$?
        assert_eq "$RC" 0 "exit status of pid $p"
    done
    for name in h1:reset,eof,timeout,connect_refused,connect \
        h2:reset,eof,timeout,connect_refused,connect,tls_handshake udp:timeout,icmp \
        tcp:reset,eof,timeout,connect_refused,connect; do
        allowed=${name#*:}
        name=${name%%:*}
        echo "== $name: $(grep -E '^  errors\.' "$W/$name.err" | tr -s ' ' | paste -sd';')"
        doc "$W/$name.json" --invariants "v('c8.errors')>0" "s('c8.requests_per_second')[-1]>0"
        $FAULTLOG recovered "$W/$name.json" "$W/$name.log" --allowed "$allowed" \
            --retry-delay-ms 100 --tick-ms "$TICK_MS" || fail "$name: through the outage"
        assert_errors_described "$W/$name.err"
    done
}

# --- the link drops and returns ---------------------------------------------

# The server's end of the veth pair goes down for 2 s, 1 s into a 5-s level,
# then up: the client's packets vanish, as on a cut cable. httpload and dnsload
# run at once, each an open loop at 1000/s of 8 clients (at the real-time
# priority: the test judges their timers): every request in flight when the
# link went, and every connection attempt while it was down, ends as timeout
# or connect_timeout at --timeout, not sooner and not more than one timer
# tick later (TICK_MS); the schedule goes on: every request due meanwhile is
# scheduled and either sent late or counted unsent (scheduled = attempts +
# unsent, scheduled = rate x duration exactly); after the link returns the
# requests complete again.
t_link_drops_and_returns() {
    [ "$(id -u)" = 0 ] || skip "network namespaces need root"
    $RT true || skip "no real-time scheduling here (chrt -f 10 fails)"
    need_netns 1 || { fail "cannot make the namespaces"; return; }
    need_nginx_netns || { fail "nginx in a namespace did not start"; return; }
    need_knot_netns || { fail "knot in a namespace did not start"; return; }
    local ns addr dev pids=() p
    ns=$(netns_client 0)
    addr=$(netns_server_addr 0)
    dev="v$LG_PORT_BASE""s0"
    local common=(-c 8 -R 1000 -d 5s --timeout 800ms --max-error-rate 1)
    ip netns exec "$ns" $RT "$HTTPLOAD" "${common[@]}" --log "$W/link-h.log" "http://$addr/" \
        >"$W/link-h.json" 2>"$W/link-h.err" &
    pids+=($!)
    ip netns exec "$ns" $RT "$DNSLOAD" -s "$addr" -p 53 --query 'www.example.test A' \
        "${common[@]}" --log "$W/link-d.log" >"$W/link-d.json" 2>"$W/link-d.err" &
    pids+=($!)
    sleep 1
    ip -n "$NETNS_SERVER" link set "$dev" down
    sleep 2
    ip -n "$NETNS_SERVER" link set "$dev" up
    for p in "${pids[@]}"; do
        RC=0
        wait "$p" || RC=$?
        assert_eq "$RC" 0 "exit status of pid $p"
    done
    local name
    for name in link-h link-d; do
        echo "== $name: $(grep -E '^  errors\.' "$W/$name.err" | tr -s ' ' | paste -sd';')"
        doc "$W/$name.json" --invariants "v('c8.scheduled')==5000" "v('c8.errors')>0" \
            "set(k for k in m if k.startswith('c8.errors.'))<={'c8.errors.timeout','c8.errors.connect_timeout'}" \
            "s('c8.requests_per_second')[-1]>0"
        # each client had a request in flight when the link went
        $FAULTLOG timeouts "$W/$name.log" --timeout-ms 800 --tick-ms "$TICK_MS" --min 8 ||
            fail "$name: requests timed out at the wrong moment"
    done
}

# --- the disk fills ------------------------------------------------------------

# small_disk DIR: a 256 KiB tmpfs at DIR, made here (unmounted at the test's
# end, or by cleanup_mounts)
small_disk() {
    mkdir -p "$1"
    mount -t tmpfs -o size=256k tmpfs "$1" || return 1
    echo "$1" >>"$W/mounts"
}

# attempts_in_summary ERR: the attempts of the run's one level, from the
# summary's first line (requests, errors, unfinished)
attempts_in_summary() {
    sed -nE 's/.*level c[0-9]+: [0-9.]+ requests\/s, [^;]*; ([0-9]+) requests in .*, ([0-9]+) errors, ([0-9]+) unfinished.*/\1 \2 \3/p' "$1" |
        awk '{ print $1 + $2 + $3 }'
}

# log_loss_said ERR LOG ATTEMPTS: stderr says how many of the run's records
# --log lost ("--log FILE: N of M records lost ...; the file holds the first
# K"), N + K = M = ATTEMPTS, and the file holds K whole records
log_loss_said() {
    local err=$1 log=$2 attempts=$3 line lost total kept lines
    line=$(grep -E -- "--log .*: [0-9]+ of [0-9]+ records lost" "$err") ||
        { fail "stderr does not say how many --log records were lost: $(cat "$err")"; return; }
    echo "$line"
    read -r lost total kept < <(sed -nE 's/.*: ([0-9]+) of ([0-9]+) records lost.*holds the first ([0-9]+).*/\1 \2 \3/p' <<<"$line")
    assert_eq "$total" "$attempts" "records the run made (its attempts)"
    assert_eq "$((lost + kept))" "$total" "lost + kept"
    lines=$(wc -l <"$log")
    assert_eq "$lines" "$kept" "records in $log"
    python3 -c 'import json, sys
for line in open(sys.argv[1]):
    json.loads(line)' "$log" || fail "$log holds a record cut short"
}

# no_temporaries DIR: nothing the tool wrote under a temporary name is left
no_temporaries() {
    if ls -A "$1" | grep -qE '^\..*\.[A-Za-z0-9]{6}$'; then
        fail "temporary files left in $1: $(ls -A "$1" | tr '\n' ' ')"
    fi
}

# The log fills the disk a moment into the run; the document and --meta,
# on the same disk, cannot be written at its end: neither is there (no file
# cut short under its name, no temporary file left), the exit status is 4,
# and stderr says how many --log records were lost. Then the log alone on
# the small disk: the document is whole, the exit status still 4 (--meta
# records it), and the count of lost records is said. Both tools; then the
# document alone on a disk too full for it (httpload), and --meta alone on a
# full one (dnsload): the engine writes both the same way for either tool.
t_disk_fills_mid_run() {
    need_nginx || { fail "nginx did not start"; return; }
    need_knot || { fail "knot did not start"; return; }
    local d=$W/disk attempts
    local dns=("$DNSLOAD" -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 4 -d 500ms)
    local http=("$HTTPLOAD" -c 4 -d 500ms "http://127.0.0.1:$NGINX_HTTP_PORT/")
    small_disk "$d" || { fail "cannot mount a tmpfs"; return; }
    local tool name
    for tool in http dns; do
        local -n cmd=$tool
        name=$tool-all
        run_tool "$W/$name.out" "$W/$name.err" "${cmd[@]}" -o "$d/$name.json" \
            --log "$d/$name.log" --meta "$d/$name.meta.json"
        assert_eq "$RC" 4 "$name: exit status"
        [ ! -e "$d/$name.json" ] || fail "$name: a document under its name on a full disk"
        [ ! -e "$d/$name.meta.json" ] || fail "$name: --meta under its name on a full disk"
        assert_empty_file "$W/$name.out" "$name: stdout"
        assert_contains "$W/$name.err" "writing the document to $d/$name.json failed: No space left on device"
        no_temporaries "$d"
        attempts=$(attempts_in_summary "$W/$name.err")
        log_loss_said "$W/$name.err" "$d/$name.log" "$attempts"
        rm -f "$d/$name.log"

        name=$tool-log
        run_tool "$W/$name.out" "$W/$name.err" "${cmd[@]}" -o "$W/$name.json" \
            --log "$d/$name.log" --meta "$W/$name.meta.json"
        assert_eq "$RC" 4 "$name: exit status"
        doc "$W/$name.json" --invariants
        python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["exit_status"] != 4)' \
            "$W/$name.meta.json" || fail "$name: --meta does not record exit status 4"
        attempts=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
print(sum(v["samples"][0] for k, v in m.items() if k.endswith(".attempts")))' "$W/$name.json")
        log_loss_said "$W/$name.err" "$d/$name.log" "$attempts"
        rm -f "$d/$name.log"
    done

    # a disk with 8 KiB left: the document of half a second's run needs more
    head -c $((248 * 1024)) /dev/zero >"$d/filler" 2>/dev/null || true
    name=http-doc
    run_tool "$W/$name.out" "$W/$name.err" "${http[@]}" -o "$d/$name.json"
    assert_eq "$RC" 4 "$name: exit status"
    [ ! -e "$d/$name.json" ] || fail "$name: a document under its name on a full disk"
    assert_contains "$W/$name.err" "writing the document to $d/$name.json failed: No space left on device"
    no_temporaries "$d"

    # and none left: --meta alone cannot be written
    head -c $((256 * 1024)) /dev/zero >>"$d/filler" 2>/dev/null || true
    name=dns-meta
    run_tool "$W/$name.out" "$W/$name.err" "${dns[@]}" -o "$W/$name.json" --meta "$d/$name.meta.json"
    assert_eq "$RC" 4 "$name: exit status"
    doc "$W/$name.json" --invariants
    [ ! -e "$d/$name.meta.json" ] || fail "$name: --meta under its name on a full disk"
    assert_contains "$W/$name.err" "--meta $d/$name.meta.json: No space left on device"
    no_temporaries "$d"
    umount "$d"
}

# --- the wall clock jumps --------------------------------------------------------

# A run with --start-at whose wall clock (CLOCK_REALTIME) is stepped 1.5 s
# back half a second into its first level, as an NTP step would, by
# tests/fixtures/clockstep.c (this process alone; the machine's clock is not
# touched). The levels run by the monotonic clock: the first keeps its exact
# schedule (request n due n/rate after its start, 1000 in its second at
# 1000/s), and so does the second; only the moment the second starts moves,
# since it is a wall-clock moment: it starts when the stepped clock shows it
# (--meta: on time), 1.5 s later than it would have.
t_wall_clock_steps_mid_run() {
    need_nginx || { fail "nginx did not start"; return; }
    local so=$W/clockstep.so
    cc -shared -fPIC -O2 -o "$so" "$TESTDIR/../fixtures/clockstep.c" -ldl -lpthread ||
        { fail "cannot build tests/fixtures/clockstep.c"; return; }
    local at t0 t1
    at=$(awk -v now="$(date +%s.%N)" 'BEGIN { printf "@%.3f", now + 0.5 }')
    t0=$(date +%s.%N)
    # 20 and 40 clients at 1000/s: each client's requests 20 or 40 ms apart,
    # so a stall of this busy host leaves none unsent at the deadline
    # (t_openloop.sh), and a run at the real-time priority
    run_tool "$W/clock.json" "$W/clock.err" env LD_PRELOAD="$so" CLOCKSTEP_AFTER_MS=1000 \
        CLOCKSTEP_BY_MS=-1500 CLOCKSTEP_MARK="$W/clock.stepped" $RT "$HTTPLOAD" --levels 20,40 \
        -R 1000 -d 1s --timeout 500ms --start-at "$at" --meta "$W/clock.meta.json" \
        --log "$W/clock.log" "http://127.0.0.1:$NGINX_HTTP_PORT/"
    t1=$(date +%s.%N)
    assert_eq "$RC" 0 "exit status ($(cat "$W/clock.err"))"
    [ -e "$W/clock.stepped" ] || fail "the wall clock was not stepped"
    doc "$W/clock.json" --invariants "v('c20.scheduled')==1000" "v('c40.scheduled')==1000" \
        "v('c20.unsent')==0" "v('c40.unsent')==0" "s('c20.ran_s')==[1]" "s('c40.ran_s')==[1]"
    python3 - "$W/clock.log" "$W/clock.meta.json" "$t0" "$t1" <<'PY' || fail "a level's schedule, or its start"
import collections, json, sys
log, meta, t0, t1 = sys.argv[1], json.load(open(sys.argv[2])), float(sys.argv[3]), float(sys.argv[4])
origins = collections.defaultdict(list)
for line in open(log):
    r = json.loads(line)
    origins[r["level"]].append(r["origin_ms"])
bad = []
for level, o in sorted(origins.items()):
    o.sort()
    # request n is due n/1000 s after the level's start, by the monotonic clock
    off = max(abs(x - n * 1.0) for n, x in enumerate(o))
    print("level c%d: %d requests, due at n x 1 ms to within %.6f ms" % (level, len(o), off))
    if len(o) != 1000 or off > 0.001:
        bad.append("level c%d: its schedule moved" % level)
for l in meta["levels"]:
    print("level c%d: requested start %s, actual %s, lag %s s" % (l["clients"], l["requested_start"], l["actual_start"], l["start_lag_s"]))
    if not abs(l["start_lag_s"]) < 0.5:
        bad.append("level c%d did not start when its (wall) clock said: lag %s s" % (l["clients"], l["start_lag_s"]))
# without the step: 0.5 s to the start, 1 + 0.5 + 1 s to the second level's, 1 s of it
took = t1 - t0
print("the run took %.2f s, 4.0 without the step" % took)
if took < 4.0 + 1.5 / 2:
    bad.append("the second level did not start later by the step: the run took %.2f s" % took)
sys.exit("; ".join(bad) or None)
PY
}

# --- the descriptors run out -------------------------------------------------

# soft_nofile PID [LIMIT]: the soft descriptor limit of a running process, or
# set it (the hard limit stays: lowering that could not be undone without
# CAP_SYS_RESOURCE)
soft_nofile() {
    if [ $# -eq 1 ]; then
        prlimit --pid "$1" --nofile --output SOFT --noheadings | tr -d ' '
    else
        prlimit --pid "$1" --nofile="$2:$(prlimit --pid "$1" --nofile --output HARD --noheadings | tr -d ' ')"
    fi
}

# The start-up check passed, and a second into the level the generator's soft
# descriptor limit drops to 3 (prlimit: every descriptor it opens from then on
# fails with EMFILE, sockets and its reads of /proc alike), and a second later
# it is back. Every client opens a connection (httpload) or a UDP socket
# (dnsload) per request (--conn-requests 1). Each attempt while it lasts fails
# as a socket error whose reason names EMFILE, and costs one socket() call
# (tests/fixtures/failsys.c counts them): nothing retries inside the tool,
# and a client waits --retry-delay before its next attempt, so the failures
# are at most a client's share of the outage over --retry-delay; requests
# complete again once descriptors are there, every client's. The generator's
# own samples are all there (generator_rss_bytes, one a second), and --watch
# does not take its own want of descriptors for the watched server's exit:
# it leaves out the seconds it could not read, and says how many.
t_descriptors_run_out_mid_run() {
    need_nginx || { fail "nginx did not start"; return; }
    need_knot || { fail "knot did not start"; return; }
    local so=$W/failsys.so
    cc -shared -fPIC -O2 -o "$so" "$TESTDIR/../fixtures/failsys.c" -ldl -lpthread ||
        { fail "cannot build tests/fixtures/failsys.c"; return; }
    local common=(--conn-requests 1 -c 8 -d 3s --timeout 1s --retry-delay 100ms --max-error-rate 1)
    local pids=() p soft t0 t1
    env LD_PRELOAD="$so" FAILSYS_COUNT="$W/fd-h.count" "$HTTPLOAD" "${common[@]}" \
        --watch "ngx=pidfile:$SRV/nginx/nginx.pid" --log "$W/fd-h.log" --meta "$W/fd-h.meta" \
        "http://127.0.0.1:$NGINX_HTTP_PORT/" >"$W/fd-h.json" 2>"$W/fd-h.err" &
    pids+=($!)
    env LD_PRELOAD="$so" FAILSYS_COUNT="$W/fd-d.count" "$DNSLOAD" -s 127.0.0.1 -p "$KNOT_PORT" \
        --query 'www.example.test A' "${common[@]}" --log "$W/fd-d.log" --meta "$W/fd-d.meta" >"$W/fd-d.json" \
        2>"$W/fd-d.err" &
    pids+=($!)
    sleep 1
    soft=$(soft_nofile "${pids[0]}")
    t0=$(date +%s.%N)
    for p in "${pids[@]}"; do soft_nofile "$p" 3 || fail "prlimit $p"; done
    sleep 1
    for p in "${pids[@]}"; do soft_nofile "$p" "$soft" || fail "prlimit $p back"; done
    t1=$(date +%s.%N)
    for p in "${pids[@]}"; do
        RC=0
        wait "$p" || RC=$?
        assert_eq "$RC" 0 "exit status of pid $p"
    done
    local name outage
    outage=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    echo "descriptors out for $outage s"
    for name in fd-h fd-d; do
        echo "== $name: $(grep -E '^  errors\.' "$W/$name.err" | tr -s ' ' | paste -sd';'); $(paste -sd' ' "$W/$name.count")"
        doc "$W/$name.json" --invariants "v('c8.errors.socket')>0" "v('c8.errors')==v('c8.errors.socket')" \
            "s('c8.requests_per_second')[-1]>0" "n('c8.generator_rss_bytes')==3" \
            "v('c8.errors.socket')<=8*($outage/0.1+2)"
        assert_contains "$W/$name.err" "errors.socket .*Too many open files (EMFILE)"
        # one socket() call per connection attempt, failed or not, beside
        # the preflight's churn probe before the run (its connections or
        # sockets and its listener, as --meta records them)
        python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
calls = int(dict(line.split() for line in open(sys.argv[2]))["socket"])
probe = json.load(open(sys.argv[3]))["preflight"]["churn_probe"]
assert "connections" in probe, probe
calls -= probe["connections"] + 1
print("socket() calls %s beside the churn probe%s, connection attempts %s" % (calls, probe, m["c8.connect_attempts"]["samples"][0]))
sys.exit(calls != m["c8.connect_attempts"]["samples"][0])' "$W/$name.json" "$W/$name.count" "$W/$name.meta" ||
            fail "$name: socket() calls are not one per connection attempt"
        $FAULTLOG recovered "$W/$name.json" "$W/$name.log" --allowed socket --retry-delay-ms 100 \
            --tick-ms "$TICK_MS" || fail "$name: through the outage"
    done
    if grep -q "exited during level" "$W/fd-h.err"; then
        fail "--watch took the generator's own want of descriptors for nginx's exit: $(grep exited "$W/fd-h.err")"
    fi
    # the seconds it could not read /proc are left out, and said so; the others are there
    local left
    left=$(sed -nE 's/.*--watch ngx: ([0-9]+) seconds? of level c8 left out.*/\1/p' "$W/fd-h.err")
    [ -n "$left" ] || fail "--watch does not say which seconds it left out: $(cat "$W/fd-h.err")"
    doc "$W/fd-h.json" "n('c8.watch.ngx.cpu_s')+${left:-0}==3" "n('c8.watch.ngx.fds')+${left:-0}==3"
}

run_tests
