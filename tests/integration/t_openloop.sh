#!/usr/bin/env bash
# udp: both transports
# run: once
# (the normal build only: what it judges is time, the schedule against the
# timer's floor and a packet capture; the open loop's code also runs under the
# sanitizers in t_http3's and t_loadstats' open-loop runs and the torture's
# dns_udp)
# The open loop (--rate) against nginx, knot and the fault fixture: latency
# that agrees with a packet capture (the schedule is kept at the timer's
# resolution), every scheduled request accounted for, a server's stall shown
# in every request scheduled during it; and, for the closed loop, the pause
# after a failed connection and the phase clocks.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
source "$(dirname "$0")/servers_dns.sh"
# the tests that judge dnsload over UDP, repeated over the plain transport (lib.sh)
UDP_TESTS="t_dnsload_open_loop_accounts_for_every_query"
trap stop_servers EXIT
need_nginx || exit 1

H=$HTTPLOAD
BASE=http://127.0.0.1:$NGINX_HTTP_PORT
O=$TMPROOT/out.json
E=$TMPROOT/err.txt
L=$TMPROOT/log.ndjson

# The timing tests below judge the generator and the wire, not the other work
# of a shared machine: the generator, the server's workers and the capture run
# at a real-time priority (SCHED_FIFO 10) while they measure, so a neighbour's
# build cannot stall them for tens of milliseconds. On a host with a load
# average of 13 on 2 cores, at normal priority, 1 run in 8 of the exact
# schedule below left 20 requests unsent (a 69 ms stall of nginx); at the
# real-time priority none of 8 did, the longest send lag 4.5 ms.
RT="chrt -f 10"

# realtime_servers on|off PID...: every thread of these processes to the
# generator's real-time priority, or back to the normal policy.
realtime_servers() {
    local mode=$1 p
    shift
    for p in "$@"; do
        if [ "$mode" = on ]; then
            chrt -a -f -p 10 "$p" >/dev/null || fail "chrt -a -f -p 10 $p"
        else
            chrt -a -o -p 0 "$p" >/dev/null || fail "chrt -a -o -p 0 $p"
        fi
    done
}

t_schedule_is_exact_when_the_target_keeps_up() {
    $RT true || skip "no real-time scheduling here (chrt -f 10 fails)"
    local workers
    workers=$(nginx_workers)
    # each client's requests are 10 ms apart: one left waiting at the deadline
    # would take an answer slower than that
    realtime_servers on $workers
    run_tool $O $E $RT $H -c 4 -R 400 -d 1s "$BASE/"
    realtime_servers off $workers
    assert_eq "$RC" 0 "exit status"
    # request n is due n/400 s after the start: exactly 400 before a 1 s deadline
    doc $O --invariants "v('c4.scheduled')==400" "v('c4.unsent')==0" "v('c4.attempts')==400" \
        "n('c4.send_lag_ms')==400" "min(s('c4.send_lag_ms'))>=0"
}

t_rate_is_read_with_suffixes_and_per_a_time() {
    # 6k/1m is 100 per second: request n is due n/100 s after the start,
    # so exactly 100 fall before a 1 s deadline
    run_tool $O $E $H -c 2 -R 6k/1m -d 1s --max-error-rate 1 "$BASE/"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c2.scheduled')==100"
}

t_requests_per_level_at_a_rate_schedule_exactly_n() {
    # -n 150 at 500/s: the schedule makes requests 0..149 due, the level
    # lasting 0.3 s; every one of them is accounted for
    run_tool $O $E $H -c 3 -R 500 -n 150 --max-error-rate 1 "$BASE/"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c3.scheduled')==150" "v('c3.attempts')+v('c3.unsent')==150" \
        "s('c3.ran_s')[0]==0.3"
}

t_overload_accounts_for_every_scheduled_request() {
    run_tool $O $E $H -c 2 -R 100000 -d 1s "$BASE/"
    assert_eq "$RC" 1 "exit status: unsent requests fail the run by default"
    doc $O --invariants "v('c2.scheduled')==100000" "v('c2.unsent')>0" \
        "v('c2.attempts')+v('c2.unsent')==v('c2.scheduled')" \
        "n('c2.send_lag_ms')==v('c2.attempts')"
    assert_contains $E "could not keep up with the rate"
    assert_contains $E "unsent of 100000 scheduled"
    run_tool $O $E $H -c 2 -R 100000 -d 1s --max-error-rate 1 "$BASE/"
    assert_eq "$RC" 0 "exit status with --max-error-rate 1"
    doc $O --invariants "v('c2.unsent')>0"
}

t_dnsload_open_loop_accounts_for_every_query() {
    $RT true || skip "no real-time scheduling here (chrt -f 10 fails)"
    need_knot || { fail "knot did not start"; return; }
    run_tool $O $E $DNSLOAD -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 2 \
        -R 200000 -d 1s
    assert_eq "$RC" 1 "exit status: unsent queries fail the run by default"
    doc $O --invariants "v('c2.scheduled')==200000" "v('c2.unsent')>0" \
        "n('c2.send_lag_ms')==v('c2.attempts')"
    # knot and dnsload at the real-time priority, 50 clients, each with a
    # query due every 100 ms. This machine still stalls both for up to 40 ms
    # at that priority: in a 120-s run with 2 clients (a query due on each
    # every 4 ms), 382 of 60,000 queries were answered more than 4 ms after
    # they were due and the slowest 39.7 ms; with 50 clients, 450 over 4 ms
    # and none over 30. A stall is latency in the run, but in a client's
    # last interval it leaves the client's next query unsent at the deadline,
    # which fails the run as it should: with 2 clients that happened once in
    # CI. Now a stall must outlast 100 ms.
    realtime_servers on "$(cat "$SRV/knot/knotd.pid")"
    run_tool $O $E $RT $DNSLOAD -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 50 \
        -R 500 -d 1s
    realtime_servers off "$(cat "$SRV/knot/knotd.pid")"
    assert_eq "$RC" 0 "exit status at a rate knot keeps up with"
    doc $O --invariants "v('c50.scheduled')==500" "v('c50.unsent')==0" \
        "not has('c50.connect_ms')"
}

# The capture's timestamps are taken in the kernel as segments cross
# loopback: the generator cannot measure less than they show, and its latency
# counted from the schedule may exceed them only by its wake-up lateness (to
# send, to read): the medians within 0.25 ms. That lateness must also be at
# the timer's floor on this machine, measured here with bench/timerprobe on
# the same schedule. Before the timerfd schedule the median send lag was
# about 0.5 ms against a floor of about 0.05 ms. The generator, nginx's
# workers, the probe and tcpdump run at the real-time priority (see RT). On a
# host with a load average of 13 on 2 cores, at the normal priority, the
# medians were 0.55 to 1.71 ms apart in 9 runs of 9; with the generator and
# nginx at the real-time priority 0.14 to 0.22 ms in 23 runs (one left 4
# requests unsent at the deadline), but tcpdump, still at the normal
# priority, lost a third of the packets in one; with tcpdump there too, 0.13
# to 0.15 ms in 5 runs of this test, nothing lost.
# 8 clients, each with a request due every 8 ms: with 2 (one every 2 ms) the
# run lost a request at its end in 1 of 25 runs here and once in CI. This
# machine stalls for 2 to 4 ms a few times a second, nginx's workers and the
# generator alike at the real-time priority (in the traced run, client 1's
# last request waited 2.35 ms for nginx's answer while client 0's, due at
# 1,998 ms, left at 2,000.02); a stall in the run is latency, but in a client's
# last interval before the deadline it leaves that client's next request
# unsent, which fails the run as it should. A stall must now outlast 8 ms.
# capture_run N: one 2-s run at 1,000/s under tcpdump, the document and the
# capture compared; appends the difference of their medians (ms) to
# $TMPROOT/excess.txt for the caller to judge over the runs.
capture_run() {
    local pcap=$TMPROOT/lo$1.pcap workers i tpid
    workers=$(nginx_workers)
    # a buffer of 32 MiB holds the whole run; tcpdump says on exit how many
    # packets the kernel dropped all the same
    $RT tcpdump -i lo -nn -U --immediate-mode -B 32768 --time-stamp-precision=nano -w "$pcap" \
        "tcp port $NGINX_HTTP_PORT" 2>"$TMPROOT/tcpdump.err" &
    tpid=$!
    for ((i = 0; i < 50; i++)); do
        grep -q "listening on" "$TMPROOT/tcpdump.err" && break
        sleep 0.1
    done
    sleep 1 # "listening" comes a little before the capture really begins
    realtime_servers on $workers
    run_tool $O $E $RT $H -c 8 -R 1000 -d 2s "$BASE/"
    realtime_servers off $workers
    sleep 1 # let the last segments reach the file
    kill -INT "$tpid"
    wait "$tpid"
    assert_eq "$RC" 0 "exit status (run $1)"
    grep -q '^0 packets dropped by kernel$' "$TMPROOT/tcpdump.err" ||
        fail "the capture is incomplete (run $1): $(grep 'dropped' "$TMPROOT/tcpdump.err")"
    python3 - "$pcap" "$O" "$NGINX_HTTP_PORT" "$TMPROOT/floor.txt" "$TMPROOT/excess.txt" <<'PY' ||
import json, struct, sys

pcap, doc, port, floor_file, excess_file = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                                            sys.argv[4], sys.argv[5])
data = open(pcap, "rb").read()
magic = struct.unpack("<I", data[:4])[0]
assert magic == 0xA1B23C4D, "not a nanosecond pcap"
linktype = struct.unpack("<I", data[20:24])[0]
off, conns = 24, {}
while off + 16 <= len(data):
    sec, frac, caplen, _ = struct.unpack("<IIII", data[off:off + 16])
    pkt = data[off + 16:off + 16 + caplen]
    off += 16 + caplen
    t = sec * 1e9 + frac
    ip = pkt[14:] if linktype == 1 else pkt[16:]  # Ethernet, or Linux cooked
    if not ip or ip[0] >> 4 != 4:
        continue
    ihl = (ip[0] & 15) * 4
    total = struct.unpack(">H", ip[2:4])[0]
    tcp = ip[ihl:]
    sport, dport = struct.unpack(">HH", tcp[:4])
    payload = total - ihl - (tcp[12] >> 4) * 4
    if payload <= 0:
        continue
    client = dport if sport == port else sport
    conns.setdefault(client, []).append((t, sport == port))
capture = []
for segs in conns.values():
    sent = None
    first = True
    for t, from_server in segs:
        if not from_server:
            sent = t
        elif sent is not None:
            if not first:  # the first exchange is the cold one
                capture.append((t - sent) / 1e6)
            first = False
            sent = None
m = json.load(open(doc))["metrics"]
warm = sorted(m["c8.latency_warm_ms"]["samples"])
lag = sorted(m["c8.send_lag_ms"]["samples"])
floor = sorted(float(x) for x in open(floor_file))
capture.sort()
med = lambda v: v[len(v) // 2]
print("capture: %d exchanges, median %.4f ms; latency_warm: %d, median %.4f ms; "
      "send lag median %.4f ms; timer floor median %.4f ms"
      % (len(capture), med(capture), len(warm), med(warm), med(lag), med(floor)))
# 2000 requests, 8 of them cold; nothing lost from the capture (see above)
assert len(warm) == 1992, "the document does not have 1992 warm requests"
assert len(capture) == len(warm), "capture and document count different requests"
assert med(warm) >= med(capture), "the generator measured less than the wire shows"
assert med(lag) <= 3 * med(floor) + 0.05, "requests go out later than the timer's floor allows"
with open(excess_file, "a") as f:
    print("%.4f" % (med(warm) - med(capture)), file=f)
PY
        fail "capture and document disagree (run $1)"
}

t_open_loop_latency_agrees_with_a_packet_capture() {
    command -v tcpdump >/dev/null || { fail "tcpdump is not installed"; return; }
    $RT true || skip "no real-time scheduling here (chrt -f 10 fails)"
    cc -std=c11 -O2 -o "$TMPROOT/timerprobe" "$TESTDIR/../../bench/timerprobe.c" ||
        { fail "cannot build bench/timerprobe.c"; return; }
    $RT "$TMPROOT/timerprobe" 1000 2 >"$TMPROOT/probe.txt"
    grep -v '^cpu_s' "$TMPROOT/probe.txt" >"$TMPROOT/floor.txt"
    rm -f "$TMPROOT/excess.txt"
    local run
    for run in 1 2 3; do capture_run $run; done
    # The wake-up allowance is judged on the median of three runs: the
    # machine's wake-up lateness itself moves from run to run (the probe's
    # median 0.070 to 0.109 ms in six runs of this test), and one run's
    # excess read 0.155 to 0.251 ms in 15 runs here (2 over the bound).
    python3 - "$TMPROOT/excess.txt" <<'PY' || fail "latency exceeds the capture by more than the wake-up allowance"
import sys
v = sorted(float(x) for x in open(sys.argv[1]))
print("medians' differences over the runs: %s ms" % ", ".join("%.4f" % x for x in v))
assert len(v) == 3 and v[1] <= 0.25
PY
}

t_stall_shows_in_every_request_scheduled_during_it() {
    need_httpfault || { fail "httpfault did not start"; return; }
    run_tool $O $E $H -c 1 -R 100 -d 2s --log "$L" "http://127.0.0.1:$HTTPFAULT_PORT/stallonce"
    assert_eq "$RC" 0 "exit status"
    python3 - "$L" "$O" <<'PY' || fail "the stall is hidden"
import json, sys
recs = [json.loads(x) for x in open(sys.argv[1])]
stalled = max(recs, key=lambda r: r["done_ms"] - r["sent_ms"])
start, end = stalled["sent_ms"], stalled["done_ms"]
assert end - start >= 290, "no request stalled for 300 ms: %r" % stalled
during = [r for r in recs if start < r["origin_ms"] < end]
assert len(during) >= 25, "only %d requests were scheduled during the stall" % len(during)
for r in during:
    assert r["done_ms"] >= end, "a request due during the stall finished before it ended: %r" % r
    assert abs(r["latency_ms"] - (r["done_ms"] - r["origin_ms"])) < 0.01, r
warm = json.load(open(sys.argv[2]))["metrics"]["c1.latency_warm_ms"]["samples"]
assert sum(1 for x in warm if x >= 100) >= 15, "the document does not show the stall"
PY
}

t_no_request_starts_after_the_deadline() {
    run_tool $O $E $H -c 8 -d 1s --log "$L" "$BASE/"
    assert_eq "$RC" 0 "exit status"
    python3 - "$L" <<'PY' || fail "a request started after the deadline"
import json, sys
late = [r for r in map(json.loads, open(sys.argv[1])) if r["sent_ms"] >= 1000 or r["origin_ms"] >= 1000]
assert not late, late[:3]
PY
}

# Nothing listens on this port: every connection is refused at once.
CLOSED_PORT=$((LG_PORT_BASE + 7))

t_closed_loop_waits_after_a_failed_connection() {
    _port_free "$CLOSED_PORT" || { fail "port $CLOSED_PORT is in use"; return; }
    run_tool $O $E $H -c 2 -d 1s "http://127.0.0.1:$CLOSED_PORT/"
    assert_eq "$RC" 1 "exit status"
    # 100 ms apart by default: about ten attempts per client in a second
    doc $O --invariants "v('c2.errors.connect_refused')==v('c2.attempts')" \
        "v('c2.attempts')>=2" "v('c2.attempts')<=24"
    run_tool $O $E $H -c 2 -d 1s --retry-delay 0 "http://127.0.0.1:$CLOSED_PORT/"
    doc $O --invariants "v('c2.attempts')>=200"
    run_tool $O $E $H -c 2 -d 1s --retry-delay 500ms "http://127.0.0.1:$CLOSED_PORT/"
    doc $O --invariants "v('c2.attempts')<=6"
}

t_open_loop_keeps_its_schedule_when_connections_fail() {
    _port_free "$CLOSED_PORT" || { fail "port $CLOSED_PORT is in use"; return; }
    run_tool $O $E $H -c 2 -R 50 -d 1s "http://127.0.0.1:$CLOSED_PORT/"
    assert_eq "$RC" 1 "exit status"
    doc $O --invariants "v('c2.scheduled')==50" "v('c2.attempts')==50" \
        "v('c2.errors.connect_refused')==50"
}

# The open loop makes a connection's socket before the moment of its first
# request (the cohort's before the level, a reconnect's as the connection
# before it closes), so that moment pays only for connect(). Counted, not
# timed, under strace: each connect() comes at least one turn of its thread's
# loop (an epoll_wait) after the socket() of its descriptor, and at most one
# socket per client goes unused (made as the level's last connection closed).
# A build that made the socket on the request's path fails the first check.
# (LeakSanitizer cannot run under ptrace: leak checks are off for this run)
t_open_loop_makes_sockets_ahead_of_their_requests() {
    command -v strace >/dev/null || skip "strace missing (apt-get install strace)"
    # each client's requests 250 ms apart, two per connection: 3 connections each
    run_tool $O $E env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=socket,connect,epoll_wait \
        -o "$TMPROOT/sock.trace" $H -c 2 -R 8 --conn-requests 2 -d 1500ms "$BASE/"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c2.scheduled')==12" "v('c2.attempts')==12" "v('c2.connect_attempts')==6"
    python3 - "$TMPROOT/sock.trace" <<'PY' || fail "a socket was made on its request's path"
import re, sys
turns, made, connects, sockets, late, pending = {}, {}, 0, 0, [], {}
for line in open(sys.argv[1]):
    m = re.match(r"(\d+) +(.*)", line)
    if not m:
        continue
    pid, call = m.group(1), m.group(2)
    if call.startswith("epoll_wait("):
        turns[pid] = turns.get(pid, 0) + 1
        continue
    if call.startswith("<... socket resumed>"):
        call = pending.pop(pid, "") + call
    if call.startswith("socket(") and "SOCK_STREAM" in call:
        r = re.search(r"= (\d+)$", call.strip())
        if not r:
            pending[pid] = call  # finished on a later line
            continue
        sockets += 1
        made[r.group(1)] = dict(turns)  # every thread's loop turns so far
    elif call.startswith("connect("):
        fd = re.match(r"connect\((\d+),", call).group(1)
        if fd not in made:
            continue  # not a socket() of this run's clients (none expected)
        connects += 1
        if turns.get(pid, 0) <= made[fd].get(pid, 0):
            late.append(line.strip())
print("stream sockets %d, connects %d, connects in the same loop turn as their socket %d"
      % (sockets, connects, len(late)))
assert connects == 6, "6 connects expected"
assert not late, late[:3]
assert sockets <= connects + 2, "more than one unused socket per client"
PY
}

t_open_loop_stays_awake_for_its_first_moment() {
    command -v strace >/dev/null || skip "strace missing (apt-get install strace)"
    # counts, no timing: the schedule's timer is armed for the first moment,
    # then for the wake-up halfway through the lead; from that wake-up the
    # loop stays awake until the moment, so the first connect follows without
    # a third arming (a build that sleeps again for the moment arms it thrice)
    run_tool $O $E env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=timerfd_settime,connect \
        -o "$TMPROOT/first.trace" $H -c 2 -R 8 -d 500ms "$BASE/"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c2.attempts')==4"
    python3 - "$TMPROOT/first.trace" <<'PY' || fail "the loop slept again before its first moment"
import re, sys
arms, last = {}, None  # (thread, timer fd) -> armings so far; the last armed
for line in open(sys.argv[1]):
    m = re.match(r"(\d+) +(timerfd_settime|connect)\((\d+),", line)
    if not m:
        continue
    pid, call, fd = m.groups()
    if call == "timerfd_settime":
        arms[(pid, fd)] = arms.get((pid, fd), 0) + 1
        last = (pid, fd)
        continue
    n = arms.get(last, 0) if last and last[0] == pid else 0
    print("the first connect's thread armed its schedule timer %d times before it" % n)
    assert 1 <= n <= 2, n
    break
else:
    assert False, "no connect"
PY
}

t_phase_clocks_are_fresh_reads() {
    need_certs || { fail "no certificates"; return; }
    # a connection per request: connect and handshake measured hundreds of times
    run_tool $O $E $H -c 4 -d 1s --cacert "$CA_PEM" --http 1.1 \
        "https://127.0.0.1:$NGINX_HTTPS_PORT/close"
    assert_eq "$RC" 0 "exit status"
    doc $O --invariants "v('c4.connections')>50" \
        "n('c4.tls_handshake_ms')==v('c4.connections')" "min(s('c4.tls_handshake_ms'))>0" \
        "n('c4.connect_ms')==v('c4.connections')" "min(s('c4.connect_ms'))>0" \
        "min(s('c4.ttfb_ms'))>0"
}

run_tests
