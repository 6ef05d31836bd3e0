# shellcheck shell=bash
# Shared by the bench/ scripts (source it; not a benchmark itself): paths to
# the tools, the pinned bench servers, and the helpers that run one generator,
# time it, count its system calls and its instructions, and write the tables
# and the collector document.
#
# Servers run on core $SERVER_CPU (default 1) and generators on core $GEN_CPU
# (default 0), so a generator never competes with the server it drives. Every
# run is bounded by timeout(1): a generator that hangs is killed, and its
# figures for that round are left out (and said so on stderr).
# Environment: BUILD (default build-bench), LG_PORT_BASE (default 48000),
# SRV (default /tmp/srv-bench-LG_PORT_BASE), ROUNDS (default 3), DURATION (seconds, default 5),
# OUT (where the documents go; default results/bench), QUICK=1 (no strace and
# no callgrind: speed only), CG_ONLY=1 (the subject under callgrind only),
# KEEP=1 (keep the work folder with every tool's
# output, strace tables and callgrind profiles).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build-bench}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
HTTPLOAD=${HTTPLOAD:-$BUILD/httpload/httpload}
DNSLOAD=${DNSLOAD:-$BUILD/dnsload/dnsload}
LOADSTATS=${LOADSTATS:-$BUILD/stats/loadstats}
export LG_PORT_BASE=${LG_PORT_BASE:-48000}
# one folder per port base: a bench server found there is reused, and stopped
# on exit, so two people benching with different bases must not share it
export SRV=${SRV:-/tmp/srv-bench-$LG_PORT_BASE}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
GEN_CPU=${GEN_CPU:-0}
SERVER_CPU=${SERVER_CPU:-1}
OUT=${OUT:-$TOP/results/bench}
# the bench's own ports, away from servers.sh's offsets
export BENCH_HTTP_PORT=$((LG_PORT_BASE + 180))
export BENCH_HTTPS_PORT=$((LG_PORT_BASE + 543))
export BENCH_H2C_PORT=$((LG_PORT_BASE + 182))
# TLS for bench/h2tls and bench/memory: TLS 1.2 with ECDHE-RSA-AES128-GCM-SHA256
# by default (what h2load and nginx 1.22 negotiate by themselves, so the
# DESIGN.md anchors compare); BENCH_TLS_PROTOCOLS=TLSv1.3 for TLS 1.3 with
# TLS_AES_128_GCM_SHA256.
BENCH_TLS_PROTOCOLS=${BENCH_TLS_PROTOCOLS:-TLSv1.2}
BENCH_TLS_CIPHERS=${BENCH_TLS_CIPHERS:-ECDHE-RSA-AES128-GCM-SHA256}
BENCH_TLS13_SUITES=${BENCH_TLS13_SUITES:-TLS_AES_128_GCM_SHA256}

# servers.sh gives need_certs, _wait_port and stop_servers (which stops every
# server whose pid file is under $SRV, the bench nginx and knot included)
# shellcheck source=tests/integration/servers.sh
. "$TOP/tests/integration/servers.sh"
# shellcheck source=tests/integration/servers_dns.sh
. "$TOP/tests/integration/servers_dns.sh"
# knot for the benches, away from the tests' knot on the same base (+53), so
# a bench and a test run can share a base
export KNOT_PORT=$((LG_PORT_BASE + 153))

die() { echo "${0##*/}: $*" >&2; exit 2; }
note() { echo "${0##*/}: $*" >&2; }

need_tools() { # command...
    local c missing=()
    for c in "$@"; do command -v "$c" >/dev/null || missing+=("$c"); done
    ((${#missing[@]} == 0)) || die "missing ${missing[*]} (scripts/deps bench installs them)"
}

# bench_setup NAME: checks the build, makes the work folder $WORK (removed on
# exit unless KEEP=1) and installs the trap that stops the servers.
bench_setup() {
    BENCH=$1
    [ -x "$HTTPLOAD" ] || die "no $HTTPLOAD (run scripts/build build-bench, or set BUILD)"
    need_tools taskset strace valgrind callgrind_annotate python3 /usr/bin/time
    [ "$(nproc)" -ge 2 ] || die "needs two cores (server on one, generator on the other)"
    WORK=$(mktemp -d "/tmp/bench-$BENCH.XXXXXX")
    mkdir -p "$OUT"
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM
    # enough descriptors for the generators (they inherit it) and strace
    ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
    # the rows: tool metric round value
    : >"$WORK/rows"
}

bench_cleanup() {
    local rc=$?
    set +e
    # a generator still running (interrupted mid-round) goes first: GEN_PID is
    # its timeout(1), which passes the signal on to the command's process group
    [ -n "${GEN_PID:-}" ] && kill "$GEN_PID" 2>/dev/null && wait "$GEN_PID" 2>/dev/null
    stop_servers >/dev/null 2>&1
    if [ -n "${KEEP:-}" ]; then note "kept $WORK"; else rm -rf "$WORK"; fi
    exit "$rc"
}

# need_nginx_bench: nginx for the benchmarks, one worker pinned to
# $SERVER_CPU, access log off, on 127.0.0.1:$BENCH_HTTP_PORT (HTTP/1.1),
# $BENCH_HTTPS_PORT (TLS, h2 and http/1.1 by ALPN) and $BENCH_H2C_PORT (h2c). / answers "hello\n" (a
# 153-byte HTTP/1.1 response, headers included: the size DESIGN.md's anchor
# figures were measured with); /slow serves a 6-byte file behind limit_req: at
# most $SLOW_RATE (default 1000) responses per second in total, the others wait
# in nginx, so a client spends nearly all its time connected and waiting
# (bench/memory). SLOW_RATE is read when nginx starts.
need_nginx_bench() {
    local d=$SRV/nginx-bench
    [ -f "$d/nginx.pid" ] && kill -0 "$(cat "$d/nginx.pid")" 2>/dev/null && return 0
    need_certs || return 1
    mkdir -p "$d/tmp" "$d/www"
    echo hello >"$d/www/slow"
    {
        nginx_conf_head_pinned "$d" "$SERVER_CPU" || return 1
        cat <<CONF
    http2_max_concurrent_streams 128;
    limit_req_zone \$server_port zone=slow:1m rate=${SLOW_RATE:-1000}r/s;
    limit_req_status 503;
    server {
        listen 127.0.0.1:$BENCH_HTTP_PORT backlog=16384 reuseport;
        listen 127.0.0.1:$BENCH_HTTPS_PORT ssl http2 backlog=16384;
        listen 127.0.0.1:$BENCH_H2C_PORT http2 backlog=16384;
        ssl_certificate $SRV/certs/server.pem;
        ssl_certificate_key $SRV/certs/server.key;
        ssl_session_cache shared:bench:10m;
        # one protocol and one cipher for every generator: left to itself,
        # nginx 1.22 offers no TLS 1.3 and each client picks its own AES key size
        ssl_protocols $BENCH_TLS_PROTOCOLS;
        ssl_prefer_server_ciphers on;
        ssl_ciphers $BENCH_TLS_CIPHERS;
        ssl_conf_command Ciphersuites $BENCH_TLS13_SUITES;
        location = / { return 200 "hello\n"; }
        # a file, not "return": return answers in the rewrite phase, before limit_req
        location = /slow { limit_req zone=slow burst=100000; root $d/www; }
    }
}
CONF
    } >"$d/nginx.conf"
    # the ports lie in the ephemeral range with the default LG_PORT_BASE: an
    # outgoing connection (or one in TIME_WAIT) may hold one for a while
    local i
    for ((i = 1; ; i++)); do
        taskset -c "$SERVER_CPU" nginx -c "$d/nginx.conf" -p "$d" -e "$d/error.log" 2>"$d/start.err" && break
        if ((i == 10)) || ! grep -q 'Address already in use' "$d/start.err"; then
            cat "$d/start.err" >&2; return 1
        fi
        note "a bench port is taken (by a client connection?); trying again in 2 s"
        sleep 2
    done
    _wait_port 127.0.0.1 "$BENCH_HTTP_PORT" && _wait_port 127.0.0.1 "$BENCH_HTTPS_PORT" &&
        _wait_port 127.0.0.1 "$BENCH_H2C_PORT"
}

# need_knot_bench: servers_dns.sh's knot, then every thread pinned to $SERVER_CPU.
need_knot_bench() {
    command -v knotd >/dev/null || die "knotd missing (scripts/deps test installs it)"
    need_knot || return 1
    taskset -a -cp "$SERVER_CPU" "$(cat "$SRV/knot/knotd.pid")" >/dev/null
}

# row TOOL METRIC ROUND VALUE: one measurement
row() { echo "$1 $2 $3 $4" >>"$WORK/rows"; }

# timed TAG CMD...: runs CMD on $GEN_CPU under GNU time; its stdout goes to
# $WORK/TAG.out, its stderr to $WORK/TAG.err, and "user sys maxrss_kib wall"
# to $WORK/TAG.time. Returns CMD's exit status.
timed() {
    local tag=$1; shift
    local rc=0
    timeout -k 10 "${LIMIT:-600}" /usr/bin/time -f '%U %S %M %e' -o "$WORK/$tag.time" \
        taskset -c "$GEN_CPU" "$@" >"$WORK/$tag.out" 2>"$WORK/$tag.err" &
    GEN_PID=$!
    wait "$GEN_PID" || rc=$?
    GEN_PID=
    return "$rc"
}

# straced TAG CMD...: runs CMD under strace -c -f on $GEN_CPU; the total
# number of system calls goes to $WORK/TAG.sys (strace's table: TAG.strace).
straced() {
    local tag=$1; shift
    local rc=0
    timeout -k 10 "${LIMIT:-600}" taskset -c "$GEN_CPU" strace -c -f -o "$WORK/$tag.strace" "$@" \
        >"$WORK/$tag.out" 2>"$WORK/$tag.err" &
    GEN_PID=$!
    wait "$GEN_PID" || rc=$?
    GEN_PID=
    # the total line: "100.00 SECONDS USECS/CALL CALLS [ERRORS] total"
    awk '$NF == "total" { print $4 }' "$WORK/$tag.strace" >"$WORK/$tag.sys"
    return "$rc"
}

# grinded TAG CMD...: runs CMD under callgrind on $GEN_CPU (threads included)
# and writes its user-space instruction count (Ir) to $WORK/TAG.ir; the
# profile stays in $WORK/TAG.callgrind. CG_OPTS: more callgrind options
# (--dump-instr=yes for costs per instruction).
grinded() {
    local tag=$1; shift
    local rc=0
    # shellcheck disable=SC2086 # CG_OPTS is a list of options
    timeout -k 10 "${LIMIT:-600}" taskset -c "$GEN_CPU" valgrind --tool=callgrind --callgrind-out-file="$WORK/$tag.callgrind" \
        ${CG_OPTS:-} "$@" >"$WORK/$tag.out" 2>"$WORK/$tag.err" &
    GEN_PID=$!
    wait "$GEN_PID" || rc=$?
    GEN_PID=
    awk '/^summary:/ { print $2; exit }' "$WORK/$tag.callgrind" >"$WORK/$tag.ir"
    return "$rc"
}

# profiled TAG CMD...: runs CMD on $GEN_CPU under perf record, one sample
# per ${PERF_PERIOD_NS:-1000000} ns of its CPU clock (threads included); the
# samples per library go to $WORK/TAG.dso ("SAMPLES LIBRARY" lines).
profiled() {
    local tag=$1; shift
    local rc=0
    timeout -k 10 "${LIMIT:-600}" taskset -c "$GEN_CPU" perf record -q -e cpu-clock -c "${PERF_PERIOD_NS:-1000000}" \
        -o "$WORK/$tag.perf" -- "$@" >"$WORK/$tag.out" 2>"$WORK/$tag.err" &
    GEN_PID=$!
    wait "$GEN_PID" || rc=$?
    GEN_PID=
    perf report -i "$WORK/$tag.perf" --sort dso -n --stdio 2>/dev/null |
        awk '!/^#/ && NF >= 3 { print $2, $3 }' >"$WORK/$tag.dso"
    # the kernel's samples by symbol ("SAMPLES SYMBOL"), for perfdso.py --symbols
    perf report -i "$WORK/$tag.perf" --dsos '[kernel.kallsyms]' --sort sym -n --stdio 2>/dev/null |
        awk '!/^#/ && NF >= 4 && $3 == "[k]" { print $2, $4 }' >"$WORK/$tag.ksym"
    return "$rc"
}

# profile_of TOOL...: with PROFILE=1, $ROUNDS rounds of one $DURATION-second
# run of each TOOL under perf (the order rotating as in run_rounds), and a
# table of CPU per request by library, each tool's median of its rounds
# (bench/perfdso.py).
profile_of() {
    [ -n "${PROFILE:-}" ] || return 0
    local tools=("$@") ntools=$# r i k tool rc req args=() kargs=()
    for ((r = 1; r <= ROUNDS; r++)); do
        for ((i = 0; i < ntools; i++)); do
            k=$(((i + r - 1) % ntools))
            tool=${tools[k]}
            cmd_for "$tool" "$DURATION"
            rc=0
            LIMIT=$((DURATION + 60)) profiled "$tool.perf.$r" "${CMD[@]}" || rc=$?
            req=$(requests_of "$tool" "$tool.perf.$r")
            if [ -z "$req" ] || [ "$req" = 0 ] || [ ! -s "$WORK/$tool.perf.$r.dso" ]; then
                note "round $r: $tool under perf: no usable run (exit $rc, requests '$req')"
                continue
            fi
            args+=("$tool" "$WORK/$tool.perf.$r.dso" "$req")
            kargs+=("$tool" "$WORK/$tool.perf.$r.ksym" "$req")
        done
    done
    ((${#args[@]})) || return 0
    echo
    echo "CPU per request by library (perf record -e cpu-clock, ${DURATION}s runs, medians of $ROUNDS rounds;" \
        "perf's own cost is in every figure)"
    python3 "$TOP/bench/perfdso.py" "${PERF_PERIOD_NS:-1000000}" "${args[@]}"
    echo
    echo "the kernel's share by symbol: the ${KSYMS:-12} that differ most between $1 and $2 (same runs)"
    python3 "$TOP/bench/perfdso.py" --symbols "${KSYMS:-12}" "${PERF_PERIOD_NS:-1000000}" "${kargs[@]}"
}

# summary_requests ERR, summary_rate ERR: a generator's completed requests
# (all levels) and its first level's requests per second, from the
# summary's first line on stderr: as it is now (requests/s first) and as
# builds before 2026-12-04 wrote it (the count first), so an A/B can bench
# both
summary_requests() {
    sed -nE 's/^[a-z]*load: level c[0-9]*(: |[^;]*; )([0-9]+) requests in .*/\2/p' "$1" |
        awk '{ s += $1 } END { if (NR) print s }'
}
summary_rate() {
    sed -nE -e 's/^[a-z]*load: level c[0-9]*: ([0-9.]+) requests\/s, .*/\1/p' \
        -e 's/^[a-z]*load: level c[0-9]*: [0-9]+ requests in [0-9.]+s \(([0-9.]+)\/s\).*/\1/p' "$1" | head -n 1
}

# requests_of TOOL TAG: completed requests (queries) as the tool reports them
requests_of() {
    local out=$WORK/$2.out err=$WORK/$2.err
    case $1 in
    httpload | httpload_mh | dnsload | dnsload_ring) summary_requests "$err" ;;
    floor | floor_uring) sed -n 's/^floor: \([0-9]*\) requests in .*/\1/p' "$err" ;;
    wrk) awk '/ requests in / { print $1 }' "$out" ;;
    h2load) awk '/^requests:/ { print $8 }' "$out" ;;
    dnsperf) awk '/Queries completed:/ { print $3 }' "$out" ;;
    esac
}

# rate_of TOOL TAG: requests (queries) per second as the tool reports them
rate_of() {
    local out=$WORK/$2.out err=$WORK/$2.err
    case $1 in
    httpload | dnsload | dnsload_ring) summary_rate "$err" ;;
    floor | floor_uring) sed -n 's/^floor: [0-9]* requests in [0-9.]* s (\([0-9.]*\)\/s).*/\1/p' "$err" ;;
    wrk) awk '/^Requests\/sec:/ { print $2 }' "$out" ;;
    h2load) awk '/^finished in/ { print $4 }' "$out" ;;
    dnsperf) awk '/Queries per second:/ { print $4 }' "$out" ;;
    esac
}

# The bench script defines cmd_for TOOL SECONDS, which sets the array CMD to
# the command line of TOOL running for SECONDS.

# measure_speed TOOL ROUND: one timed run of $DURATION seconds: rows rps, cpu,
# user and sys (CPU seconds per request, the whole process from exec to exit).
measure_speed() {
    local tool=$1 r=$2 tag=$1.speed.$2 rc=0
    cmd_for "$tool" "$DURATION"
    LIMIT=$((DURATION + 60)) timed "$tag" "${CMD[@]}" || rc=$?
    local req rate user sys
    req=$(requests_of "$tool" "$tag"); rate=$(rate_of "$tool" "$tag")
    read -r user sys _ _ < <(tail -n 1 "$WORK/$tag.time" 2>/dev/null)
    if [ -z "$req" ] || [ "$req" = 0 ] || [ -z "$rate" ]; then
        note "round $r: $tool completed nothing (exit $rc); see below"; tail -n 5 "$WORK/$tag.err" "$WORK/$tag.out" >&2
        return 0
    fi
    [ "$rc" = 0 ] || note "round $r: $tool exited $rc (figures kept; stderr: $(tail -n 1 "$WORK/$tag.err"))"
    row "$tool" rps "$r" "$rate"
    row "$tool" cpu "$r" "$(awk -v u="$user" -v s="$sys" -v n="$req" 'BEGIN { printf "%.6g", (u + s) / n }')"
    row "$tool" user "$r" "$(awk -v u="$user" -v n="$req" 'BEGIN { printf "%.6g", u / n }')"
    row "$tool" sys "$r" "$(awk -v s="$sys" -v n="$req" 'BEGIN { printf "%.6g", s / n }')"
    note "round $r: $tool $rate/s, $req in all, CPU ${user}s user ${sys}s sys"
}

# measure_syscalls TOOL ROUND: a ${STRACE_SECONDS:-2}-second run under strace:
# row syscalls (all system calls of the process / completed requests).
measure_syscalls() {
    local tool=$1 r=$2 tag=$1.strace.$2 rc=0
    cmd_for "$tool" "${STRACE_SECONDS:-2}"
    LIMIT=$((${STRACE_SECONDS:-2} + 90)) straced "$tag" "${CMD[@]}" || rc=$?
    local req calls
    req=$(requests_of "$tool" "$tag"); calls=$(cat "$WORK/$tag.sys")
    if [ -z "$req" ] || [ "$req" = 0 ] || [ -z "$calls" ]; then
        note "round $r: $tool under strace completed nothing (exit $rc)"; return 0
    fi
    row "$tool" syscalls "$r" "$(awk -v c="$calls" -v n="$req" 'BEGIN { printf "%.6g", c / n }')"
    note "round $r: $tool under strace: $calls system calls, $req requests"
}

# measure_instructions TOOL ROUND: two runs under callgrind, ${CG_SHORT:-1} and
# ${CG_LONG:-3} seconds: row instr = (Ir_long - Ir_short) / (req_long - req_short),
# so start-up and exit cancel out.
measure_instructions() {
    local tool=$1 r=$2 short=${CG_SHORT:-1} long=${CG_LONG:-3} ir_s ir_l req_s req_l rc_s=0 rc_l=0
    cmd_for "$tool" "$short"
    LIMIT=$((short + 300)) grinded "$tool.cg-short.$r" "${CMD[@]}" || rc_s=$?
    cmd_for "$tool" "$long"
    LIMIT=$((long + 300)) grinded "$tool.cg-long.$r" "${CMD[@]}" || rc_l=$?
    ir_s=$(cat "$WORK/$tool.cg-short.$r.ir"); ir_l=$(cat "$WORK/$tool.cg-long.$r.ir")
    req_s=$(requests_of "$tool" "$tool.cg-short.$r"); req_l=$(requests_of "$tool" "$tool.cg-long.$r")
    if [ -z "$ir_s" ] || [ -z "$ir_l" ] || [ -z "$req_s" ] || [ -z "$req_l" ] || [ "$req_l" -le "$req_s" ]; then
        note "round $r: $tool under callgrind: no usable pair (Ir $ir_s/$ir_l, requests $req_s/$req_l, exit $rc_s/$rc_l)"; return 0
    fi
    row "$tool" instr "$r" "$(awk -v a="$ir_s" -v b="$ir_l" -v x="$req_s" -v y="$req_l" 'BEGIN { printf "%.6g", (b - a) / (y - x) }')"
    note "round $r: $tool under callgrind: $req_s and $req_l requests, $ir_s and $ir_l instructions, exit $rc_s and $rc_l"
}

# run_rounds TOOL...: $ROUNDS rounds; in each, every tool's timed run (the
# order rotates from round to round, so no tool always runs first or last),
# then unless QUICK=1 every tool (only those in DEEP_TOOLS, when it is set)
# under strace and under callgrind. CG_ONLY=1:
# only the first tool (the subject), only under callgrind (instructions per
# request and the function table, for work on one code path). cmd_for runs
# inside it: a cmd_for must not read a global named tools, ntools, r, i or k,
# which these locals hide (bench/scale once ran 2 clients at every count so).
run_rounds() {
    local tools=("$@") ntools=$# r i k
    for ((r = 1; r <= ROUNDS; r++)); do
        if [ -n "${CG_ONLY:-}" ]; then
            measure_instructions "${tools[0]}" "$r"
            continue
        fi
        for ((i = 0; i < ntools; i++)); do
            k=$(((i + r - 1) % ntools))
            measure_speed "${tools[k]}" "$r"
        done
        [ -n "${QUICK:-}" ] && continue
        for ((i = 0; i < ntools; i++)); do
            k=$(((i + r - 1) % ntools))
            if deep "${tools[k]}"; then measure_syscalls "${tools[k]}" "$r"; fi
        done
        for ((i = 0; i < ntools; i++)); do
            k=$(((i + r - 1) % ntools))
            if deep "${tools[k]}"; then measure_instructions "${tools[k]}" "$r"; fi
        done
    done
}

# build_floor: the floor's client (bench/floor.c and its parts) as $FLOOR,
# with link-time optimisation as the tools are built (configure.ac)
build_floor() {
    FLOOR=$WORK/floor
    cc -std=c11 -O2 -flto=auto -g -Wall -Wextra -Wno-unused-parameter -o "$FLOOR" "$TOP"/bench/floor.c \
        "$TOP"/bench/floor_sock.c "$TOP"/bench/floor_h1.c "$TOP"/bench/floor_dns.c \
        "$TOP"/bench/floor_h2.c "$TOP"/bench/floor_uring.c -lssl -lcrypto -lnghttp2 -luring ||
        die "cannot build the floor"
}

# deep TOOL: whether TOOL runs under strace and callgrind (DEEP_TOOLS: a
# list of tools, or every tool when empty)
deep() {
    [ -z "${DEEP_TOOLS:-}" ] || [[ " $DEEP_TOOLS " == *" $1 "* ]]
}

# top_functions TOOL: the functions of TOOL with the highest self cost per
# request (bench/cgtop.py: the last round's long minus short callgrind run).
top_functions() {
    local r=$ROUNDS tool=$1 req_s req_l
    [ -f "$WORK/$tool.cg-long.$r.callgrind" ] && [ -f "$WORK/$tool.cg-short.$r.callgrind" ] || return 0
    req_s=$(requests_of "$tool" "$tool.cg-short.$r"); req_l=$(requests_of "$tool" "$tool.cg-long.$r")
    [ -n "$req_s" ] && [ -n "$req_l" ] || return 0
    echo "$tool: self instructions per request by function (callgrind, round $r: ${CG_LONG:-3}s run minus ${CG_SHORT:-1}s run)"
    python3 "$TOP/bench/cgtop.py" "$WORK/$tool.cg-short.$r.callgrind" "$req_s" \
        "$WORK/$tool.cg-long.$r.callgrind" "$req_l" "${TOP_N:-20}" || true
    # the profiles stay for callgrind_annotate when KEEP=1
    if [ -n "${KEEP:-}" ]; then echo "  profiles: $WORK/$tool.cg-{short,long}.$r.callgrind"; fi
}
