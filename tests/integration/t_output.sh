#!/usr/bin/env bash
# Documents a harness can rely on: --max-doc-bytes keeps the document within
# a size the user chooses, -o writes it whole under a temporary name and
# renames it, and what cannot be written is said at once. (A harness that
# reads stdout only after the exit needs neither: t_harness.sh.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
source "$(dirname "$0")/servers_dns.sh"
trap stop_servers EXIT

O=$TMPROOT/out.json
E=$TMPROOT/err.txt

# harness SECONDS CMD...: starts CMD with stdout on a pipe that is read only
# after the process has exited (a pattern real harnesses use), as long as
# SECONDS; prints "exited STATUS BYTES" or "blocked", and leaves what was read
# in $O and stderr in $E.
harness() {
    python3 - "$O" "$E" "$@" <<'PY'
import subprocess, sys, time
out, err, limit, cmd = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
with open(err, "wb") as e:
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=e)
    t0 = time.time()
    while p.poll() is None and time.time() - t0 < limit:
        time.sleep(0.1)
    if p.poll() is None:
        p.kill()
        p.wait()
        print("blocked")
        sys.exit(0)
    data = p.stdout.read()
open(out, "wb").write(data)
print("exited", p.returncode, len(data))
PY
}

t_max_doc_bytes_lets_a_harness_read_after_exit() {
    need_knot || { fail "knot did not start"; return; }
    local q=(-s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 8 -d 2s -q)
    local r
    r=$(harness 15 "$DNSLOAD" "${q[@]}" --max-doc-bytes 60000)
    assert_eq "${r% *}" "exited 0" "with --max-doc-bytes 60000"
    assert_le "${r##* }" 60000 "document size"
    doc $O "v('c8.attempts')==v('c8.requests')+v('c8.errors')+v('c8.unfinished')" \
        "v('c8.requests')>n('c8.latency_warm_ms')+n('c8.latency_cold_ms')" \
        "n('c8.requests_per_second')==2" "n('c8.latency_warm_ms')>1000"
    assert_contains $E "c8.latency_warm_ms keeps [0-9]* of [0-9]* samples"
    if grep -q "stdout (a pipe)" $E; then
        fail "a document within the pipe's 64 KiB made the tool say something about it"
    fi
}

t_max_doc_bytes_too_small_for_the_counts_is_an_error() {
    run_tool $O $E "$HTTPLOAD" -q -c 2 -d 300ms --max-doc-bytes 256 \
        "http://127.0.0.1:$NGINX_HTTP_PORT/"
    assert_eq "$RC" 4 "exit status"
    assert_empty_file $O "no document"
    assert_contains $E "the smallest document of this run takes"
}

t_output_file_appears_whole() {
    local f=$TMPROOT/doc.json
    "$HTTPLOAD" -q -c 2 -d 2s -o "$f" --meta "$TMPROOT/doc.meta.json" \
        "http://127.0.0.1:$NGINX_HTTP_PORT/" >$O 2>$E &
    local pid=$!
    sleep 1
    [ -e "$f" ] && fail "the document exists before the run ended"
    ls -a "$TMPROOT" | grep -q '^\.doc\.json\.' || fail "no temporary file while the run goes on"
    exit_status wait $pid
    assert_eq "$RC" 0 "exit status"
    assert_empty_file $O "nothing on stdout with -o"
    doc "$f" --invariants "v('c2.requests')>0"
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMPROOT/doc.meta.json" ||
        fail "the descriptor is not JSON"
    [ -z "$(ls -a "$TMPROOT" | grep '^\.doc\.')" ] || fail "a temporary file was left behind"
}

t_interrupted_before_a_level_leaves_no_output_file() {
    local f=$TMPROOT/none.json
    # the level would start in 30 s: a signal before it leaves nothing
    "$HTTPLOAD" -q -c 2 -d 1s -o "$f" --start-at "@$(($(date +%s) + 30))" \
        "http://127.0.0.1:$NGINX_HTTP_PORT/" >$O 2>$E &
    local pid=$!
    sleep 1
    kill -INT $pid
    exit_status wait $pid
    assert_eq "$RC" 130 "exit status"
    [ -e "$f" ] && fail "an output file exists"
    [ -z "$(ls -a "$TMPROOT" | grep '^\.none\.')" ] || fail "a temporary file was left behind"
}

t_unwritable_output_is_a_usage_error_before_the_run() {
    run_tool $O $E "$HTTPLOAD" -c 2 -d 10s -o /nonexistent/dir/doc.json \
        "http://127.0.0.1:$NGINX_HTTP_PORT/"
    assert_eq "$RC" 2 "exit status"
    assert_contains $E "--output /nonexistent/dir/doc.json"
    assert_eq "$(wc -l <$E)" 1 "one line on stderr"
}

need_nginx || exit 1
run_tests
