#!/usr/bin/env bash
# run: once
# (the normal build only since 2026-12-04: CI had outgrown its 40 minutes; the
# sanitizers still meet this code in the torture scenarios and the other files)
# --watch and the generator's self-diagnostics: process trees sampled once a
# second (nginx's master and workers, shell trees with several command names,
# children that come and go), pid files, usage errors, generator_rss_bytes,
# loop_lag_ms, rx_dropped, and the warning that the generator was saturated.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
need_nginx || exit 1
# the files the loop opens, under strace: on the normal build only, where the
# loop is the generator's and not the sanitizer's (lib.sh's NORMAL_ONLY). The
# timed view of the same (request tails with and without --watch on a crowded
# host, nine interleaved pairs) is bench/watch-tails: a measurement, not a test.
NORMAL_ONLY="t_watch_opens_the_tree_alone_and_never_on_the_request_loop"

H=$HTTPLOAD
BASE=http://127.0.0.1:$NGINX_HTTP_PORT
O=$TMPROOT/out.json
E=$TMPROOT/err.txt
NGINX_PID=$(cat "$SRV/nginx/nginx.pid")

# kill_tree PIDFILE ROOT: stops a test tree: its root, which must still run,
# then the children that wrote their pids to PIDFILE (one that already ended is
# no news).
kill_tree() {
    local p
    stop_background "$2"
    if [ -f "$1" ]; then
        for p in $(cat "$1"); do kill "$p" 2>/dev/null || :; done
    fi
}

t_nginx_tree_is_sampled_under_load() {
    run_tool $O $E $H -c 16 -d 2s --watch nginx=$NGINX_PID "$BASE/"
    assert_eq "$RC" 0 "exit status"
    local w=c16.watch.nginx
    doc $O --invariants "n('$w.cpu_s')==2" "sum(s('$w.cpu_s'))>0" \
        "n('$w.rss_bytes')==2" "n('$w.pss_bytes')==2" "n('$w.uss_bytes')==2" "n('$w.fds')==2" \
        "all(p<=r for p,r in zip(s('$w.pss_bytes'),s('$w.rss_bytes')))" \
        "all(u<=p for u,p in zip(s('$w.uss_bytes'),s('$w.pss_bytes')))" \
        "min(s('$w.uss_bytes'))>0" \
        "min(s('$w.fds'))>=16" \
        "has('$w.nginx.cpu_s')" "has('$w.nginx.fds')" \
        "s('$w.nginx.rss_bytes')==s('$w.rss_bytes')" \
        "all(f==int(f) for f in s('$w.fds'))"
    # the summary says the tree's CPU share, its peak memory and the requests
    # per CPU second it consumed, as loadstats summary would
    summary $O $E httpload --watch nginx
    assert_contains $E "^  watch nginx: [0-9]*% CPU, peak RSS [0-9.]* MiB, peak PSS [0-9.]* MiB; [0-9]* requests per CPU second$"
}

# --watch once walked every process's /proc/PID/stat on the request loop (on a
# host with 2,000 more processes, tens of milliseconds that showed in
# loop_lag_ms and latency); then, from a thread of its own, it still
# walked them all once a second: 6,248 opens in this test's 2-second run on
# that build, where this one opens a few dozen. The loop opens nothing while
# it carries requests (the level's last sample runs after its last wait),
# and the run opens the tree's files, not the host's.
t_watch_opens_the_tree_alone_and_never_on_the_request_loop() {
    command -v strace >/dev/null || skip "strace missing (apt-get install strace)"
    local pids=() i st=$TMPROOT/strace-watch counts
    for ((i = 0; i < 2000; i++)); do
        sleep 120 &
        pids+=($!)
    done
    rm -rf "$st" && mkdir -p "$st"
    run_tool $O $E env ASAN_OPTIONS=detect_leaks=0 strace -f -ff -qq -e trace=openat,open,epoll_wait -o "$st/t" \
        $H -q -c 2 -d 2s --watch nginx=$NGINX_PID "$BASE/"
    stop_background "${pids[@]}"
    assert_eq "$RC" 0 "exit status"
    # per loop thread (one that waits in libev's epoll_wait): opens between its
    # first and its last wait; and every open of the run. The timer floor's
    # burst before the run (timerfloor.c) waits in epoll_wait for one event,
    # libev for many: only waits for more than one event mark the loop.
    counts=$(awk 'match($0, /^epoll_wait\(.*, [0-9]+, -?[0-9]+\) +=/) && $0 !~ /, 1, -?[0-9]+\) +=/ {
            if (!first[FILENAME]) first[FILENAME] = FNR; last[FILENAME] = FNR }
        /^open(at)?\(/ { all++; at[FILENAME, FNR] = 1 }
        END { for (k in at) { split(k, p, SUBSEP); f = p[1]
                  if (first[f] && p[2] > first[f] && p[2] < last[f]) inloop++ }
              print inloop + 0, all + 0 }' "$st"/t.*)
    echo "opens on the loop between waits, and in all: $counts"
    assert_eq "${counts% *}" 0 "files opened on the request loop while it ran"
    assert_le "${counts#* }" 200 "files opened by a 2-second run with 2,000 other processes on the host"
    doc $O "n('c2.watch.nginx.cpu_s')==2"
}

t_each_command_name_gets_its_own_series() {
    local pids=$TMPROOT/tree.pids
    rm -f "$pids"
    bash -c "sleep 30 & echo \$! >>$pids; tail -f /dev/null & echo \$! >>$pids; wait" &
    local root=$!
    sleep 0.3
    run_tool $O $E $H -c 2 -d 2s --watch tree=$root "$BASE/"
    kill_tree "$pids" "$root"
    assert_eq "$RC" 0 "exit status"
    local w=c2.watch.tree
    doc $O "n('$w.rss_bytes')==2" "has('$w.bash.rss_bytes')" "has('$w.sleep.rss_bytes')" \
        "has('$w.tail.fds')" "has('$w.bash.cpu_s')" "not has('$w.nginx.cpu_s')" \
        "all(abs(t-(a+b+c))<1 for t,a,b,c in zip(s('$w.rss_bytes'),s('$w.bash.rss_bytes'),s('$w.sleep.rss_bytes'),s('$w.tail.rss_bytes')))" \
        "all(abs(t-(a+b+c))<1 for t,a,b,c in zip(s('$w.fds'),s('$w.bash.fds'),s('$w.sleep.fds'),s('$w.tail.fds')))" \
        "min(s('$w.pss_bytes'))<=min(s('$w.rss_bytes'))"
}

t_a_child_born_during_the_level_is_picked_up() {
    local pids=$TMPROOT/late.pids
    rm -f "$pids"
    cp "$(command -v sleep)" "$TMPROOT/latecomer"
    bash -c "sleep 1.8; $TMPROOT/latecomer 30 & echo \$! >>$pids; wait" &
    local root=$!
    run_tool $O $E $H -c 2 -d 3s --watch late=$root "$BASE/"
    kill_tree "$pids" "$root"
    assert_eq "$RC" 0 "exit status"
    local w=c2.watch.late
    doc $O "n('$w.rss_bytes')==3" "has('$w.latecomer.rss_bytes')" \
        "1<=n('$w.latecomer.rss_bytes')<3" "n('$w.bash.rss_bytes')==3"
}

t_a_watched_process_that_exits_ends_its_series() {
    sleep 1.5 &
    local short=$!
    run_tool $O $E $H -c 2 -d 3s --watch short=$short --watch nginx=$NGINX_PID "$BASE/"
    wait "$short" # it ended on its own, during the level
    assert_eq "$RC" 0 "exit status"
    doc $O "n('c2.watch.short.rss_bytes')==1" "n('c2.watch.short.sleep.rss_bytes')==1" \
        "n('c2.watch.nginx.rss_bytes')==3"
    assert_contains $E "watch short: process $short exited during level c2"
}

t_absent_pid_is_a_usage_error() {
    true &
    local gone=$!
    wait "$gone"
    run_tool $O $E $H -c 1 -d 1s --watch gone=$gone "$BASE/"
    assert_eq "$RC" 2 "exit status"
    assert_empty_file $O "nothing on stdout"
    assert_eq "$(wc -l <$E)" 1 "one line on stderr"
    assert_contains $E "--watch gone=$gone: there is no process $gone"
    for bad in "nopid" "=1" "a.b=1" "x=abc" "x=pidfile:$TMPROOT/none.pid"; do
        run_tool $O $E $H -c 1 -d 1s --watch "$bad" "$BASE/"
        assert_eq "$RC" 2 "exit status for --watch $bad"
        assert_contains $E "--watch"
    done
    run_tool $O $E $H -c 1 -d 1s --watch a=$NGINX_PID --watch a=$NGINX_PID "$BASE/"
    assert_eq "$RC" 2 "exit status for a name given twice"
}

t_pidfile_form_reads_the_pid() {
    run_tool $O $E $H -c 4 -d 1s --watch web=pidfile:$SRV/nginx/nginx.pid "$BASE/"
    assert_eq "$RC" 0 "exit status"
    doc $O "n('c4.watch.web.cpu_s')==1" "has('c4.watch.web.nginx.fds')" \
        "v('c4.watch.web.fds')>=4"
}

t_watch_works_on_every_level() {
    run_tool $O $E $H --levels 1,4 -d 1s --watch nginx=$NGINX_PID "$BASE/"
    assert_eq "$RC" 0 "exit status"
    doc $O "n('c1.watch.nginx.cpu_s')==1" "n('c4.watch.nginx.cpu_s')==1" \
        "has('c1.watch.nginx.nginx.pss_bytes')" "has('c4.watch.nginx.nginx.pss_bytes')"
}

t_generator_reports_its_rss_and_loop_lag() {
    run_tool $O $E $H -c 4 -d 2s -t 2 "$BASE/"
    assert_eq "$RC" 0 "exit status"
    doc $O "n('c4.generator_rss_bytes')==2" "min(s('c4.generator_rss_bytes'))>1e6" \
        "n('c4.loop_lag_ms')>=2" "min(s('c4.loop_lag_ms'))>=0" "max(s('c4.loop_lag_ms'))<1000" \
        "not has('c4.rx_dropped')" "not any('.watch.' in k for k in m)"
}

t_dnsload_reports_rx_dropped() {
    [ -x "$DNSLOAD" ] || { fail "dnsload not built: $DNSLOAD"; return; }
    # nothing answers on this port: every query fails, the sockets still count
    run_tool $O $E $DNSLOAD -s 127.0.0.1 -p $((LG_PORT_BASE + 7)) --query 'example.test A' \
        -c 2 -d 1s --timeout 200ms --max-error-rate 1 --watch nginx=$NGINX_PID
    assert_eq "$RC" 0 "exit status"
    doc $O "v('c2.rx_dropped')==0" "n('c2.rx_dropped')==1" "has('c2.watch.nginx.cpu_s')"
}

t_rx_dropped_counts_datagrams_the_sockets_dropped() {
    [ -x "$DNSLOAD" ] || { fail "dnsload not built: $DNSLOAD"; return; }
    # a server answering every query 3000 times overflows the clients' receive
    # queues: it runs at a real-time priority on dnsload's core, so dnsload
    # cannot drain the queue during a burst (on a core of its own it could
    # keep up with Python's sends, and nothing would be dropped)
    cat >$TMPROOT/udpflood.py <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.settimeout(3)
try:
    while True:
        data, addr = s.recvfrom(2048)
        for _ in range(3000):
            s.sendto(data, addr)
except socket.timeout:
    pass
PY
    local port=$((LG_PORT_BASE + 8))
    timeout 20 taskset -c 0 chrt -f 1 python3 $TMPROOT/udpflood.py $port &
    local flood=$!
    sleep 0.3
    run_tool $O $E taskset -c 0 $DNSLOAD -s 127.0.0.1 -p $port --query 'example.test A' -c 2 -d 1s \
        --timeout 200ms --max-error-rate 1
    stop_background "$flood"
    assert_eq "$RC" 0 "exit status"
    doc $O "n('c2.rx_dropped')==1" "v('c2.rx_dropped')>0"
}

t_saturated_loop_is_reported() {
    # The loop thread shares one CPU with a busy process at a lower priority:
    # it always has work and is runnable all the time, but rarely runs. The
    # hog outlives the run's own bound (on the sanitizer build, at nice 19
    # beside it, the run took more than the 10 s the hog once had).
    taskset -c 0 timeout $((${RUN_BOUND:-120} + 10)) sh -c 'while :; do :; done' &
    local hog=$!
    run_tool $O $E taskset -c 0 nice -n 19 $H -c 64 -d 2s --meta $TMPROOT/sat.meta "$BASE/"
    stop_background "$hog"
    assert_eq "$RC" 0 "exit status"
    assert_contains $E "level c64: the generator limited this measurement"
    assert_contains $E "--threads"
    # --meta says the same, with the shares stderr printed
    self_watch_agrees $TMPROOT/sat.meta $E true
}

t_unsaturated_loop_is_not_reported() {
    run_tool $O $E $H -c 1 -R 20 -d 1s --meta $TMPROOT/idle.meta "$BASE/"
    assert_eq "$RC" 0 "exit status"
    if grep -q "limited this measurement" $E; then fail "warning on an idle loop: $(cat $E)"; fi
    self_watch_agrees $TMPROOT/idle.meta $E false
}

# self_watch_agrees META ERR LIMITED: the level's self_watch in META says
# limited LIMITED, and when stderr printed the shares, the same ones
self_watch_agrees() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, re, sys
meta, err, limited = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3] == "true"
(level,) = json.load(open(meta))["levels"]
sw = level["self_watch"]
print("self_watch", sw)
if sw is None or sw["limited"] is not limited:
    print("ASSERTION: self_watch %s, not limited %s" % (sw, limited))
    sys.exit()
if not (0 <= sw["on_cpu"] <= 1.05) or sw["loops"] != 1 or sw["busiest_loop"] != 0:
    print("ASSERTION: self_watch's shares or loops out of range: %s" % sw)
if not (0 <= sw["tick_lag_p99_ms"] <= sw["tick_lag_max_ms"]):
    print("ASSERTION: self_watch's tick lateness out of order: %s" % sw)
m = re.search(r"runnable (\d+)% of the level \(on a CPU (\d+)%, waiting for one (\d+)%\)", err)
if limited and m:
    runnable, on_cpu, waiting = (int(x) for x in m.groups())
    if sw["waiting_for_cpu"] is None:
        print("ASSERTION: stderr printed the wait (%d%%), --meta has none" % waiting)
    elif abs(sw["on_cpu"] * 100 - on_cpu) > 0.5 or abs(sw["waiting_for_cpu"] * 100 - waiting) > 0.5:
        print("ASSERTION: --meta's shares %s differ from stderr's %d%% and %d%%" % (sw, on_cpu, waiting))
elif limited and sw["on_cpu"] + (sw["waiting_for_cpu"] or 0) <= 0.9 and sw["tick_lag_p99_ms"] <= 100 \
        and sw["tick_lag_max_ms"] <= 500:
    print("ASSERTION: limited, yet neither runnable over 90%% nor ticks late: %s" % sw)
PY
}

run_tests
