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

# on_terminal CMD...: runs CMD with stdout on a pseudo-terminal (as a user at
# a shell has it) and stderr in $E; what reached the terminal goes to $O, the
# exit status to RC.
on_terminal() {
    RC=$(python3 - "$O" "$E" "$@" <<'PY'
import os, pty, subprocess, sys
out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
master, slave = pty.openpty()
with open(err, "wb") as e:
    p = subprocess.Popen(cmd, stdout=slave, stderr=e)
os.close(slave)
data = b""
while True:  # until the child's end of the terminal is closed
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: no process holds the terminal any more
        break
    if not chunk:
        break
    data += chunk
open(out, "wb").write(data)
print(p.wait(timeout=60))
PY
    )
}

# A document of thousands of lines on a terminal scrolled the summary away
# (httpload -c 64 -d 1s printed 573 KB of samples after it): on a terminal
# nothing goes to stdout, one line on stderr says how to keep the document,
# and the exit status is the run's.
t_terminal_gets_no_document_and_one_line_saying_so() {
    need_knot || { fail "knot did not start"; return; }
    on_terminal "$HTTPLOAD" -c 4 -d 300ms "http://127.0.0.1:$NGINX_HTTP_PORT/"
    assert_eq "$RC" 0 "httpload's exit status on a terminal"
    assert_empty_file $O "what httpload wrote to the terminal"
    assert_contains $E "^httpload: stdout is a terminal, so the JSON document is not printed; keep it with -o FILE or > FILE$"
    assert_contains $E "^httpload: level c4: " "the summary"
    # the status of a run with errors is kept: 1, as with the document
    on_terminal "$HTTPLOAD" -q -c 2 -d 300ms "http://127.0.0.1:$NGINX_HTTP_PORT/missing"
    assert_eq "$RC" 1 "httpload's exit status of a run with errors on a terminal"
    assert_empty_file $O "what a run with errors wrote to the terminal"
    assert_eq "$(head -n 1 $E)" "httpload: stdout is a terminal, so the JSON document is not printed; keep it with -o FILE or > FILE" \
        "the first line of a quiet run with errors"
    assert_contains $E "^httpload: level c2: [0-9]* errors and 0 unfinished in [0-9]* attempts (100%) exceed --max-error-rate 0$"
    on_terminal "$DNSLOAD" -q -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 2 -d 300ms
    assert_eq "$RC" 0 "dnsload's exit status on a terminal"
    assert_empty_file $O "what dnsload wrote to the terminal"
    assert_contains $E "^dnsload: stdout is a terminal, so the JSON document is not printed; keep it with -o FILE or > FILE$"
    # -o FILE still writes it, with the terminal left empty
    on_terminal "$HTTPLOAD" -q -c 2 -d 300ms -o "$TMPROOT/term.json" "http://127.0.0.1:$NGINX_HTTP_PORT/"
    assert_eq "$RC" 0 "exit status with -o on a terminal"
    assert_empty_file $O "the terminal with -o"
    assert_empty_file $E "stderr with -o on a terminal"
    doc "$TMPROOT/term.json" --invariants "v('c2.requests')>0"
}

# A pipe is not a terminal: it gets the whole document, in both tools. At
# a low rate: a closed loop under the sanitizers on a busy 2-core host was
# judged generator-limited, a warning -q keeps (CI mimic, 2026-12-04), and
# stderr's silence is what this checks, not the generator's speed.
t_pipe_gets_the_document() {
    need_knot || { fail "knot did not start"; return; }
    "$HTTPLOAD" -q -c 2 -R 200 -d 300ms "http://127.0.0.1:$NGINX_HTTP_PORT/" 2>$E | cat >$O
    assert_empty_file $E "httpload's stderr into a pipe"
    doc $O --invariants "v('c2.requests')>0"
    "$DNSLOAD" -q -s 127.0.0.1 -p "$KNOT_PORT" --query 'www.example.test A' -c 2 -R 200 -d 300ms 2>$E | cat >$O
    assert_empty_file $E "dnsload's stderr into a pipe"
    doc $O --invariants "v('c2.requests')>0"
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
