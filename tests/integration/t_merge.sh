#!/usr/bin/env bash
# run: once
# (the normal build only since 2026-12-04: CI had outgrown its 40 minutes; the
# sanitizers still meet this code in the torture scenarios and the other files)
# A merge that refuses what did not run together, on real documents of
# httpload and dnsload: shards of another tool, duration, level order or
# requested start are refused by name; an interrupted shard is refused unless
# --allow-partial (exit 3); a document that shows a cut without true counts is
# refused; one run given twice (the same path, a link, a copy) is refused
# unless --allow-duplicate; a shard's achieved rate reads against its share;
# and every metric the generators write has a row of its own in the table of
# metric kinds.
# (The older merge tests, on documents written by hand, are in t_loadstats.sh.)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$TESTDIR/servers.sh"
source "$TESTDIR/servers_dns.sh"
trap stop_servers EXIT

W=$TMPROOT/merge
mkdir -p "$W"

# http_run NAME [OPTION...]: httpload against nginx; $W/NAME.json and NAME.meta.json
http_run() {
    local name=$1
    shift
    need_nginx || { fail "nginx did not start"; return 1; }
    run_tool "$W/$name.json" "$W/$name.err" "$HTTPLOAD" -q --meta "$W/$name.meta.json" "$@" \
        "http://127.0.0.1:$NGINX_HTTP_PORT/"
    assert_eq "$RC" 0 "httpload $*: $(head -c 300 "$W/$name.err")"
    [ "$RC" = 0 ]
}

# shardify RAW OUT INDEX COUNT [OPTION...]: one shard of a sharded run (shardify.py)
shardify() {
    python3 "$TESTDIR/shardify.py" "$W/$1.json" "$W/$2.json" "${@:3}" || fail "shardify.py $*"
}

# merge_shards OUT [OPTION...] INPUT...: loadstats merge --shards; sets RC
merge_shards() {
    local out=$1
    shift
    run_tool "$W/$out.json" "$W/$out.err" "$LOADSTATS" merge --shards "$@"
}

# refused OUT WHAT TEXT...: the merge exited 1, wrote nothing, and said each TEXT
refused() {
    local out=$1 what=$2 text
    shift 2
    assert_eq "$RC" 1 "$what: exit status ($(head -c 400 "$W/$out.err"))"
    assert_empty_file "$W/$out.json" "$what: nothing merged"
    for text in "$@"; do assert_contains "$W/$out.err" "$text"; done
    assert_contains "$W/$out.err" "refusing the set: its documents are not the shards of one run"
}

t_shards_of_another_tool_duration_or_level_order_are_refused() {
    need_knot || { fail "knot did not start"; return; }
    http_run h --levels 1,2 -d 1s || return
    http_run h2s --levels 1,2 -d 2s || return
    http_run hback --levels 2,1 -d 1s || return
    run_tool "$W/d.json" "$W/d.err" "$DNSLOAD" -q -s 127.0.0.1 -p "$KNOT_PORT" --levels 1,2 -d 1s \
        --query 'www.example.test A' --max-error-rate 1 --meta "$W/d.meta.json"
    assert_eq "$RC" 0 "dnsload: $(head -c 300 "$W/d.err")"
    shardify h h0 0 2
    shardify h h1 1 2
    shardify d d1 1 2
    shardify h2s h2s1 1 2
    shardify hback hback1 1 2
    shardify h late1 1 2 --start-shift 12
    # the same test: merged
    merge_shards same "$W/h0.json" "$W/h1.json"
    assert_eq "$RC" 0 "two shards of one test: $(cat "$W/same.err")"
    merge_shards tool "$W/h0.json" "$W/d1.json"
    refused tool "an httpload and a dnsload shard" \
        'd1.json (shard 1 of 2): tool "dnsload" differs from "httpload" in .*h0.json' \
        'd1.json (shard 1 of 2): target "udp://127.0.0.1:[0-9]*" differs from "http://127.0.0.1'
    merge_shards duration "$W/h0.json" "$W/h2s1.json"
    refused duration "shards of other durations" \
        "h2s1.json (shard 1 of 2): duration_s 2 differs from 1 in .*h0.json"
    merge_shards order "$W/h0.json" "$W/hback1.json"
    refused order "levels in another order" \
        "hback1.json (shard 1 of 2): levels ran in the order c4,c2, not c2,c4 in .*h0.json"
    merge_shards late "$W/h0.json" "$W/late1.json"
    refused late "levels started 12 s apart" \
        "late1.json (shard 1 of 2): level c2's requested_start \"2026-12-01T10:00:12.000000000Z\" differs from \"2026-12-01T10:00:00.000000000Z\""
    # --allow-partial does not let another test through
    merge_shards tool "$W/h0.json" "$W/d1.json" --allow-partial
    assert_eq "$RC" 1 "another tool with --allow-partial"
}

t_an_interrupted_shard_is_refused_unless_partial_is_allowed() {
    http_run whole -c 1 -d 2s || return
    # the same test, SIGINT a second into its level: exit 130, "interrupted" in its descriptor
    "$HTTPLOAD" -q -c 1 -d 2s --meta "$W/cut.meta.json" "http://127.0.0.1:$NGINX_HTTP_PORT/" \
        >"$W/cut.json" 2>"$W/cut.err" &
    local pid=$!
    sleep 1
    kill -INT "$pid"
    RC=0
    wait "$pid" || RC=$?
    assert_eq "$RC" 130 "the interrupted run's exit status"
    assert_contains "$W/cut.meta.json" '"interrupted": true'
    shardify whole w0 0 2
    shardify cut c1 1 2
    merge_shards partial "$W/w0.json" "$W/c1.json"
    assert_eq "$RC" 1 "an interrupted shard"
    assert_empty_file "$W/partial.json" "nothing merged"
    assert_contains "$W/partial.err" "c1.json (shard 1 of 2): level c2 was interrupted (\"interrupted\": true): its counts are partial"
    assert_contains "$W/partial.err" "refusing an incomplete set (--allow-partial merges it anyway)"
    merge_shards partial "$W/w0.json" "$W/c1.json" --allow-partial
    assert_eq "$RC" 3 "--allow-partial merges it and exits 3"
    assert_contains "$W/partial.err" "lack what the interrupted shards did not measure; exit status 3"
    # the cut shard ran about a second of the two: the merged level's seconds
    # are those both shards ran (a second only the whole one ran would read as
    # the rate halving), and ran_s is the cut shard's
    assert_contains "$W/partial.err" "\"c2.ran_s\": the inputs ran this level for"
    local cut_ran
    cut_ran=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["metrics"]["c2.ran_s"]["samples"][0])' "$W/c1.json")
    doc "$W/partial.json" --invariants "v('c2.connections')==2" "0<v('c2.ran_s')==$cut_ran<2" \
        "n('c2.requests_per_second')==1"
}

t_a_cut_document_without_true_counts_is_refused() {
    # A kept 100 samples of 9,000 requests at 1.0 ms, B all 100 of 100 at 2.0 ms:
    # pooled as if whole, the median would read 1.5 ms where it is 1.0
    python3 - "$W" <<'PY'
import json, sys
w = sys.argv[1]
for name, value, requests in (("A", 1.0, 9000), ("B", 2.0, 100)):
    json.dump({"metrics": {"c2.latency_warm_ms": {"unit": "milliseconds", "samples": [value] * 100},
                           "c2.requests": {"unit": "count", "samples": [requests]}}},
              open("%s/%s.json" % (w, name), "w"))
PY
    run_tool "$W/ab.json" "$W/ab.err" "$LOADSTATS" merge "$W/A.json" "$W/B.json"
    assert_eq "$RC" 1 "a cut document without its descriptor"
    assert_empty_file "$W/ab.json" "nothing merged"
    assert_contains "$W/ab.err" "A.json: level c2 counts 9000 requests but its latency samples (latency_cold_ms and latency_warm_ms) stand for 100: they were cut"
    assert_contains "$W/ab.err" "refusing to pool them as if whole"
    # with the true count in its descriptor: weighed, the median is A's
    printf '{"levels": [{"clients": 2, "sampled": ["latency_warm_ms"], "seen": {"latency_warm_ms": 9000}}]}' \
        >"$W/A.meta.json"
    run_tool "$W/ab.json" "$W/ab.err" "$LOADSTATS" merge "$W/A.json" "$W/B.json"
    assert_eq "$RC" 0 "weighed by its descriptor: $(cat "$W/ab.err")"
    run_tool "$W/ab.sum" "$W/err" "$LOADSTATS" summary --json "$W/ab.json"
    assert_contains "$W/ab.sum" '"c2.latency_warm_ms": {"n": 100, "min": 1, "max": 2, "mean": 1.01, "median": 1,'

    # a real document cut to fit --max-doc-bytes, merged without its descriptor
    http_run fit -c 2 -d 1s --max-doc-bytes 20000 || return
    cp "$W/fit.json" "$W/bare.json"
    run_tool "$W/fit2.json" "$W/fit2.err" "$LOADSTATS" merge "$W/bare.json" "$W/fit.json"
    assert_eq "$RC" 1 "a real cut document without its descriptor"
    assert_contains "$W/fit2.err" "bare.json: level c2 counts [0-9]* requests but its latency samples"
    assert_contains "$W/fit2.err" "no descriptor (A.meta.json beside A.json, from --meta)"
}

# given_twice OUT FIRST SECOND HOW: the merge exited 1, wrote nothing, and said
# in one line that FIRST and SECOND are one run, and HOW it knew
given_twice() {
    assert_eq "$RC" 1 "$2 and $3: exit status ($(head -c 400 "$W/$1.err"))"
    assert_empty_file "$W/$1.json" "$2 and $3: nothing merged"
    assert_eq "$(wc -l <"$W/$1.err")" 1 "$2 and $3: lines on stderr"
    assert_contains "$W/$1.err" "^loadstats merge: $2 and $3 are one run ($4): merged twice, its counts would double (--allow-duplicate merges it anyway)$"
}

t_one_run_given_twice_is_refused_unless_allowed() {
    # the whole run of the interrupted shard's test, with its descriptor (tests
    # run in name order; made here when that one did not run)
    [ -s "$W/whole.json" ] && [ -s "$W/whole.meta.json" ] || http_run whole -c 1 -d 2s || return
    local named="their descriptors name one run: httpload on host $(hostname) started at 20[-0-9T:.]*Z"
    local same="the same metrics with the same samples"
    run_tool "$W/twice.json" "$W/twice.err" "$LOADSTATS" merge "$W/whole.json" "$W/whole.json"
    given_twice twice "$W/whole.json" "$W/whole.json" "$named"
    # a copy under another name, its descriptor copied beside it
    cp "$W/whole.json" "$W/wc.json"
    cp "$W/whole.meta.json" "$W/wc.meta.json"
    run_tool "$W/twice.json" "$W/twice.err" "$LOADSTATS" merge "$W/whole.json" "$W/wc.json"
    given_twice twice "$W/whole.json" "$W/wc.json" "$named"
    # a hard link, and the copy on standard input: no descriptor to say, the content does
    ln -f "$W/whole.json" "$W/wl.json"
    run_tool "$W/twice.json" "$W/twice.err" "$LOADSTATS" merge "$W/wl.json" "$W/whole.json"
    given_twice twice "$W/wl.json" "$W/whole.json" "$same"
    run_tool "$W/twice.json" "$W/twice.err" "$LOADSTATS" merge "$W/whole.json" - <"$W/wc.json"
    given_twice twice "$W/whole.json" "<stdin>" "$same"
    # asked for: merged, with a warning, every count twice
    run_tool "$W/twice.json" "$W/twice.err" "$LOADSTATS" merge --allow-duplicate "$W/whole.json" \
        "$W/wc.json"
    assert_eq "$RC" 0 "--allow-duplicate: $(head -c 400 "$W/twice.err")"
    assert_contains "$W/twice.err" "^loadstats merge: warning: $W/whole.json and $W/wc.json are one run ($named); merged anyway (--allow-duplicate)"
    python3 - "$W/whole.json" "$W/twice.json" <<'PY'
import json, sys
one, two = (json.load(open(p))["metrics"] for p in sys.argv[1:3])
for key in ("c1.attempts", "c1.requests"):
    if two[key]["samples"] != [2 * one[key]["samples"][0]]:
        print("ASSERTION: %s: %s merged twice is %s" % (key, one[key]["samples"], two[key]["samples"]))
PY
}

t_a_shards_achieved_rate_reads_against_its_share() {
    need_nginx || { fail "nginx did not start"; return; }
    # shard 1 of 4 runs clients 1 and 5 of 8: a quarter of the 400/s schedule
    run_tool "$W/r.json" "$W/r.err" "$HTTPLOAD" --shard 1/4 -c 8 -R 400 -d 1s --max-error-rate 0.1 \
        --meta "$W/r.meta.json" "http://127.0.0.1:$NGINX_HTTP_PORT/"
    assert_eq "$RC" 0 "a shard in an open loop: $(head -c 300 "$W/r.err")"
    python3 - "$W/r.meta.json" "$W/r.json" <<'PY'
import json, sys
level = json.load(open(sys.argv[1]))["levels"][0]
m = json.load(open(sys.argv[2]))["metrics"]
def bad(msg):
    print("ASSERTION: " + msg)
if level["shard_clients"] != 2 or level["requested_rate"] != 100.0 or level["run_requested_rate"] != 400.0:
    bad("the shard's requested rate: %s" % level)
attempts = m["c8.attempts"]["samples"][0]
if abs(level["achieved_rate"] * level["seconds"] - attempts) > 1e-6 * attempts:
    bad("achieved_rate %s x %s s is not the %s attempts" % (level["achieved_rate"], level["seconds"], attempts))
# its schedule: request n at n/400 s whose client n mod 8 is 1 or 5
if m["c8.scheduled"]["samples"][0] != 100:
    bad("scheduled %s of the 400 in a second, not a quarter" % m["c8.scheduled"]["samples"][0])
print("requested %s/s, achieved %s/s" % (level["requested_rate"], level["achieved_rate"]))
PY
    assert_contains "$W/r.err" "rate [0-9.]*/s of 100.0/s requested"
}

t_every_metric_the_generators_write_has_a_kind() {
    need_nginx || { fail "nginx did not start"; return; }
    need_knot || { fail "knot did not start"; return; }
    need_certs || return
    printf 'GET http://127.0.0.1:%s/\n\nGET http://127.0.0.1:%s/t/a\n' "$NGINX_HTTP_PORT" \
        "$NGINX_HTTP_PORT" >"$W/targets.txt"
    run_tool "$W/k1.json" "$W/k1.err" "$HTTPLOAD" -q -c 2 -R 200 -d 1s --targets "$W/targets.txt" \
        --targets-per-metric --watch "nginx=pidfile:$SRV/nginx/nginx.pid" --max-error-rate 1
    assert_eq "$RC" 0 "httpload: $(head -c 300 "$W/k1.err")"
    run_tool "$W/k2.json" "$W/k2.err" "$HTTPLOAD" -q -c 2 -d 1s --cacert "$CA_PEM" \
        "https://127.0.0.1:$NGINX_HTTPS_PORT/"
    assert_eq "$RC" 0 "httpload over TLS: $(head -c 300 "$W/k2.err")"
    run_tool "$W/k3.json" "$W/k3.err" "$DNSLOAD" -q -s 127.0.0.1 -p "$KNOT_PORT" -c 2 -d 1s \
        --query 'www.example.test A' --query 'nothing.example.test A' --max-error-rate 1
    assert_eq "$RC" 0 "dnsload: $(head -c 300 "$W/k3.err")"
    python3 "$TESTDIR/metrickinds.py" covers "$W"/k[123].json ||
        fail "a metric of the generators has no row of its own in stats/read/metrickinds.def"
    # and a merge of one with itself is refused, or, when asked for, follows each kind's rule
    run_tool "$W/kk.json" "$W/kk.err" "$LOADSTATS" merge "$W/k1.json" "$W/k1.json"
    given_twice kk "$W/k1.json" "$W/k1.json" "the same metrics with the same samples"
    run_tool "$W/kk.json" "$W/kk.err" "$LOADSTATS" merge --allow-duplicate "$W/k1.json" "$W/k1.json"
    assert_eq "$RC" 0 "merge of a document with itself"
    python3 - "$W/k1.json" "$W/kk.json" <<'PY'
import json, sys
one, two = (json.load(open(p))["metrics"] for p in sys.argv[1:3])
def bad(msg):
    print("ASSERTION: " + msg)
def s(m, k):
    return m[k]["samples"]
if s(two, "c2.attempts") != [2 * s(one, "c2.attempts")[0]]:
    bad("attempts not summed")
if s(two, "c2.watch.nginx.cpu_s") != [2 * x for x in s(one, "c2.watch.nginx.cpu_s")]:
    bad("the watched CPU not added second by second")
for part in ("input0", "input1"):
    if s(two, "c2.%s.watch.nginx.rss_bytes" % part) != s(one, "c2.watch.nginx.rss_bytes"):
        bad("%s's memory not kept apart" % part)
if "c2.watch.nginx.rss_bytes" in two:
    bad("memory pooled across documents")
if sorted(s(two, "c2.target.1.latency_warm_ms")) != sorted(2 * s(one, "c2.target.1.latency_warm_ms")):
    bad("a target's latencies not pooled")
PY
}

run_tests
