#!/usr/bin/env bash
# Is the move real? `loadstats compare` over repeated runs of httpload against
# the tests' nginx and the fault fixture: 2 unchanged runs against 2 flag
# nothing over 20 interleaved pairings (at most one false alarm), a real change
# (a 1 MiB body against one of 6 bytes, in a round whose sides' runs agree
# within 1.3-fold; a server 1 ms slower) is flagged with 2 runs a side, one
# run a side says that run-to-run noise is unknown, --stat and the interval's
# arithmetic on documents written here, `summary` over several runs shows the
# run-to-run spread, and a level whose generator limited it (self_watch in
# its --meta) is named by compare, report and merge.
# Timed runs: the normal suite only.
# run: once
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$TESTDIR/servers.sh"
trap stop_servers EXIT

W=$TMPROOT/compare
mkdir -p "$W"

# run_http NAME CLIENTS URL: one second of httpload (on CPU 0 while pinned:
# see pinning); $W/NAME.json
run_http() {
    run_tool "$W/$1.json" "$W/$1.err" "${PIN[@]}" "$HTTPLOAD" -q -c "$2" -d 1s "$3"
    assert_eq "$RC" 0 "httpload -c $2 $3: $(head -c 300 "$W/$1.err")"
}

# compare_json OUT BASE NEW [OPTION...]: loadstats compare --json; sets RC
compare_json() {
    local out=$1
    shift
    run_tool "$out" "$out.err" "$LOADSTATS" compare --json "$@"
}

# json_warnings FILE: compare --json's warnings, one line each: kind side run
# level metric ("-" for a member left out)
json_warnings() {
    python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
if "warnings" not in doc:
    print("no warnings member")  # never the empty list it would otherwise read as
for w in doc.get("warnings", []):
    print(" ".join(w.get(k, "-") for k in ("kind", "side", "run", "level", "metric")))
PY
}

# json_warning_on_stderr FILE K ERR: whether compare --json's K-th warning is
# a whole line of ERR as stderr gives it ("loadstats compare: warning: ...")
json_warning_on_stderr() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["warnings"][int(sys.argv[2])]
line = "loadstats compare: warning: " + w["message"]
sys.exit(0 if line in open(sys.argv[3]).read().splitlines() else 1)
PY
}

# nginx_workers_on CPUS: nginx's workers allowed on CPUS (taskset's list)
nginx_workers_on() {
    local p
    for p in $(nginx_workers); do taskset -apc "$1" "$p" >/dev/null; done
}

# pinning on|shared|off: run_http's httpload on CPU 0 and nginx's workers on
# the others (on), or on CPU 0 with it (shared), or both back on every CPU
# (nothing changes on a machine of one CPU).
PIN=()
pinning() {
    local cpus
    cpus=$(nproc)
    [ "$cpus" -ge 2 ] || return 0
    if [ "$1" = on ]; then
        nginx_workers_on "1-$((cpus - 1))"
        PIN=(taskset -c 0)
    elif [ "$1" = shared ]; then
        nginx_workers_on 0
        PIN=(taskset -c 0)
    else
        nginx_workers_on "0-$((cpus - 1))"
        PIN=()
    fi
}

# The A/A's runs: 13 unchanged one-second runs of 4 clients against nginx's
# page, after one to warm up; made once for the tests that use them.
# They are pinned: httpload has CPU 0 to itself and nginx's workers the
# others, as httpload's self-watch asks of a measurement: 4 closed-loop clients
# keep its loop runnable all the time, and sharing 2 CPUs with nginx's 2 workers it said
# "the generator limited this measurement", and its CPU took one of three
# values for seconds at a time, by where the scheduler put the threads (0.38,
# 0.49 or 0.64 s per second here, 2026-12-02; pinned so, 10 runs in a row gave
# 0.48-0.50, and what moves then is the machine's speed, in slow steps that the
# interleaved pairings put on both sides). Two runs a side that land in one
# placement against two in another are a 1.3-fold move with no spread within a
# side, which no interval from two runs can tell from a real one (doc/loadstats.md,
# "Is the move real?").
aa_runs() {
    [ -s "$W/aa12.json" ] && return 0
    need_nginx || { fail "nginx did not start"; return 1; }
    local i
    pinning on
    run_http aa-warmup 4 "http://127.0.0.1:$NGINX_HTTP_PORT/"
    for i in $(seq 0 12); do run_http "aa$i" 4 "http://127.0.0.1:$NGINX_HTTP_PORT/"; done
    pinning off
    [ -s "$W/aa12.json" ]
}

t_two_unchanged_runs_against_two_flag_nothing_over_20_pairings() {
    aa_runs || return
    # windows of four consecutive runs, split two ways that interleave them,
    # so that a drift of the machine's load falls on both sides
    local i n=0 split
    for i in $(seq 0 9); do
        for split in "$i $((i + 2)) $((i + 1)) $((i + 3))" "$i $((i + 3)) $((i + 1)) $((i + 2))"; do
            set -- $split
            compare_json "$W/aa.$n.cmp" "$W/aa$1.json,$W/aa$2.json" "$W/aa$3.json,$W/aa$4.json"
            echo "aa$1,aa$2 vs aa$3,aa$4 $RC" >>"$W/aa.pairings"
            n=$((n + 1))
        done
    done
    assert_eq "$n" 20 "pairings"
    python3 - "$W" <<'PY'
import json, sys
w = sys.argv[1]
alarms = 0
for n, line in enumerate(open(w + "/aa.pairings")):
    name, rc = line.rsplit(" ", 1)
    rows = json.load(open("%s/aa.%d.cmp" % (w, n)))["comparisons"]
    flags = ["%s %s (ratio %s, interval %s)" % (k, v["verdict"], v["ratio"], v["interval"])
             for k, v in rows.items() if v["verdict"] in ("regressed", "improved")]
    regressed = any(v["verdict"] == "regressed" for v in rows.values())
    if int(rc) != (1 if regressed else 0):
        print("ASSERTION: %s: exit %s, regressed: %s" % (name, rc, regressed))
    warm = rows["c4.latency_warm_ms"]
    if (warm["base_runs"], warm["new_runs"], warm["run_noise"]) != (2, 2, "resampled"):
        print("ASSERTION: %s: latency_warm_ms over %s/%s runs, run noise %s"
              % (name, warm["base_runs"], warm["new_runs"], warm["run_noise"]))
    print("%s: %d compared, %s" % (name, len(rows), "; ".join(flags) or "nothing flagged"))
    alarms += bool(flags)
print("false alarms: %d of %d pairings" % (alarms, n + 1))
if alarms > 1:
    print("ASSERTION: %d A/A pairings flagged a metric (at most 1)" % alarms)
PY
}

# side_medians R: each of round R's four runs' median warm latency, and
# whether each side's two runs agree within 1.3-fold (exit 0) or not (1)
side_medians() {
    python3 - "$W" "$1" <<'PY'
import json, sys
w, r = sys.argv[1:3]
def median(name):
    s = sorted(json.load(open("%s/%s%s.json" % (w, name, r)))["metrics"]["c4.latency_warm_ms"]["samples"])
    return s[len(s) // 2]
sides = {side: [median(side + str(i) + ".") for i in (0, 1)] for side in ("small", "big")}
spread = {side: max(v) / min(v) for side, v in sides.items()}
print("round %s: " % r + "; ".join("%s %.3f, %.3f ms (%.2f-fold)" % (k, v[0], v[1], spread[k])
                                  for k, v in sides.items()))
sys.exit(0 if max(spread.values()) <= 1.3 else 1)
PY
}

t_a_1_mib_body_against_6_bytes_is_flagged_with_2_runs_a_side() {
    need_nginx || { fail "nginx did not start"; return; }
    local u=http://127.0.0.1:$NGINX_HTTP_PORT r steady= medians
    # Two runs a side know little of their noise: at 99% the interval is the
    # log ratio +- 9.9 (Student's t, 2 degrees of freedom) times the pooled
    # spread, so runs of a side 2-fold apart hide even this 25- to 45-fold
    # move, and they are rightly called noisy. This machine moves between
    # speeds in steps: a side's runs seconds apart differed up to 2-fold here
    # (/big.bin 1.49 then 2.94 ms), and in CI the test failed three times
    # (latency_warm's intervals [1.09, 1741] around 43.6 unpinned, [0.37,
    # 4262] around 39.6 with the workers on the other CPU, [0.887, 1343]
    # around 34.5 with them on httpload's CPU). What is promised: in a round
    # whose sides' runs agree within 1.3-fold, the move is flagged. Up to
    # five rounds are taken to find one (three found none while two builds
    # and a callgrind run shared the machine: small 2.01-, 1.37-, 1.99-fold);
    # none steady fails the test.
    # With the workers on httpload's CPU a body crosses no CPU (the steadiest
    # placement here: 30 of 30 rounds flagged).
    pinning shared
    run_http big-warmup 4 "$u/big.bin"
    for r in 0 1 2 3 4; do
        # interleaved: a drift of the machine's load falls on both sides
        run_http "small0.$r" 4 "$u/small"
        run_http "big0.$r" 4 "$u/big.bin"
        run_http "small1.$r" 4 "$u/small"
        run_http "big1.$r" 4 "$u/big.bin"
        if medians=$(side_medians "$r"); then
            steady=$r
            echo "$medians"
            break
        fi
        echo "$medians"
    done
    pinning off
    [ -n "$steady" ] || { fail "no round of 5 had each side's runs within 1.3-fold (above)"; return; }
    r=$steady
    doc "$W/small0.$r.json" "v('c4.bytes_received')>=6*v('c4.requests')"
    doc "$W/big0.$r.json" "v('c4.bytes_received')>=1048576*v('c4.requests')"
    compare_json "$W/big.cmp" "$W/small0.$r.json,$W/small1.$r.json" "$W/big0.$r.json,$W/big1.$r.json"
    assert_eq "$RC" 1 "compare's exit status: a regression"
    # the same runs the other way round
    compare_json "$W/small.cmp" "$W/big0.$r.json,$W/big1.$r.json" "$W/small0.$r.json,$W/small1.$r.json"
    python3 - "$W/big.cmp" "$W/small.cmp" "$medians" <<'PY'
import json, sys
bigger, smaller = (json.load(open(p))["comparisons"] for p in sys.argv[1:3])
for k, v in bigger.items():
    print(k, v["verdict"], v["ratio"], v["interval"])
def want(rows, key, verdict, what):
    if rows[key]["verdict"] != verdict:
        print("ASSERTION: %s: %s is %s (interval %s), not %s; %s"
              % (what, key, rows[key]["verdict"], rows[key]["interval"], verdict, sys.argv[3]))
want(bigger, "c4.latency_warm_ms", "regressed", "a 1 MiB body")
want(smaller, "c4.latency_warm_ms", "improved", "back to 6 bytes")
# bytes received have no better direction (fewer is less work done, or the
# same work compressed): a real move is changed, either way
want(smaller, "c4.bytes_received", "changed", "back to 6 bytes")
want(bigger, "c4.bytes_received", "changed", "a 1 MiB body")
PY
}

t_a_server_1_ms_slower_is_flagged_with_2_runs_a_side() {
    need_httpfault || { fail "the fault fixture did not start"; return; }
    local u=http://127.0.0.1:$HTTPFAULT_PORT
    # one client: the fixture is a Python thread per connection, steadiest alone
    run_http ok-warmup 1 "$u/ok"
    run_http ok0 1 "$u/ok"
    run_http wait0 1 "$u/wait1ms"
    run_http ok1 1 "$u/ok"
    run_http wait1 1 "$u/wait1ms"
    compare_json "$W/wait.cmp" "$W/ok0.json,$W/ok1.json" "$W/wait0.json,$W/wait1.json"
    assert_eq "$RC" 1 "compare's exit status: a regression"
    python3 - "$W/wait.cmp" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["comparisons"]
for k, v in rows.items():
    print(k, v["verdict"], v["base"], v["new"], v["delta_abs"], v["interval"])
if rows["c1.latency_warm_ms"]["verdict"] != "regressed":
    print("ASSERTION: latency_warm_ms is %s, not regressed" % rows["c1.latency_warm_ms"]["verdict"])
PY
}

t_a_level_the_generator_limited_is_named_by_compare_report_and_merge() {
    need_nginx || { fail "nginx did not start"; return; }
    local u=http://127.0.0.1:$NGINX_HTTP_PORT/ i
    # the subject is the warnings, not the verdicts: two single runs of 20
    # requests on a loaded machine differ beyond 10% by chance (a CI run's
    # compare said regressed, exit 1), so no move counts as one here and the
    # exit status says only whether compare compared
    local any=(--maximum-factor 1000)
    # an open loop of 20 requests a second leaves the loop idle: not limited
    for i in 0 1; do
        run_tool "$W/lim$i.json" "$W/lim$i.err" "$HTTPLOAD" -q -c 1 -R 20 -d 1s \
            --meta "$W/lim$i.meta.json" "$u"
        assert_eq "$RC" 0 "httpload run $i: $(head -c 300 "$W/lim$i.err")"
    done
    doc_meta() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["levels"][0]["self_watch"]["limited"])' "$1"; }
    assert_eq "$(doc_meta "$W/lim0.meta.json")" False "an idle loop's self_watch.limited"
    run_tool "$W/lim.out" "$W/lim.err" "$LOADSTATS" compare "${any[@]}" "$W/lim0.json" "$W/lim1.json"
    assert_eq "$RC" 0 "compare of two unlimited runs"
    grep -q "generator limited" "$W/lim.err" && fail "a warning for unlimited runs: $(cat "$W/lim.err")"
    compare_json "$W/lim.cmp" "${any[@]}" "$W/lim0.json" "$W/lim1.json"
    assert_eq "$RC" 0 "compare --json of two unlimited runs"
    assert_eq "$(json_warnings "$W/lim.cmp")" "" "--json's warnings of two unlimited runs"
    # the second run's descriptor as a saturated loop writes it (t_watch.sh)
    python3 - "$W/lim1.meta.json" <<'PY'
import json, sys
meta = json.load(open(sys.argv[1]))
meta["levels"][0]["self_watch"].update(limited=True, on_cpu=0.0141, waiting_for_cpu=0.9856)
json.dump(meta, open(sys.argv[1], "w"))
PY
    run_tool "$W/lim.out" "$W/lim.err" "$LOADSTATS" compare "${any[@]}" "$W/lim0.json" "$W/lim1.json"
    assert_eq "$RC" 0 "compare still compares"
    assert_contains "$W/lim.err" "warning: new run $W/lim1.json: level c1: the generator limited this measurement (self_watch in its --meta)"
    assert_eq "$(grep -c "generator limited" "$W/lim.err")" 1 "warnings: the limited run's only"
    # the harness reads the JSON: the same warning is there, with its run and level
    compare_json "$W/lim.cmp" "${any[@]}" "$W/lim0.json" "$W/lim1.json"
    assert_eq "$RC" 0 "compare --json still compares"
    assert_eq "$(json_warnings "$W/lim.cmp")" "generator_limited new $W/lim1.json c1 -" "--json's warnings"
    json_warning_on_stderr "$W/lim.cmp" 0 "$W/lim.cmp.err" ||
        fail "--json's message is not stderr's line: $(cat "$W/lim.cmp" "$W/lim.cmp.err" | head -c 600)"
    run_tool "$W/lim.html" "$W/lim.html.err" "$LOADSTATS" report "$W/lim1.json"
    assert_eq "$RC" 0 "report: $(head -c 300 "$W/lim.html.err")"
    assert_contains "$W/lim.html" "the generator limited this measurement (its self-watch: on a CPU 1%, waiting for one 99%, its tick [0-9.]* ms late at p99)"
    run_tool "$W/lim-merged.json" "$W/lim-merged.err" "$LOADSTATS" merge --meta "$W/lim-merged.meta.json" \
        "$W/lim0.json" "$W/lim1.json"
    assert_eq "$RC" 0 "merge: $(head -c 300 "$W/lim-merged.err")"
    assert_eq "$(doc_meta "$W/lim-merged.meta.json")" True "the merged level's self_watch.limited"
    # and a descriptor whose self_watch is not an object is refused by name
    python3 - "$W/lim1.meta.json" <<'PY'
import json, sys
meta = json.load(open(sys.argv[1]))
meta["levels"][0]["self_watch"] = "yes"
json.dump(meta, open(sys.argv[1], "w"))
PY
    run_tool "$W/lim-bad.json" "$W/lim-bad.err" "$LOADSTATS" merge "$W/lim0.json" "$W/lim1.json"
    assert_eq "$RC" 1 "merge with an invalid descriptor"
    assert_contains "$W/lim-bad.err" "levels\[0\].self_watch must be an object or null"
    # compare still compares (the documents are whole) and says what it skipped
    run_tool "$W/lim.out" "$W/lim.err" "$LOADSTATS" compare "${any[@]}" "$W/lim0.json" "$W/lim1.json"
    assert_eq "$RC" 0 "compare beside an invalid descriptor"
    assert_contains "$W/lim.err" "warning: new run $W/lim1.json: its descriptor $W/lim1.meta.json cannot be used (.*self_watch must be an object or null); its identity and self-watch are not checked"
    compare_json "$W/lim.cmp" "${any[@]}" "$W/lim0.json" "$W/lim1.json"
    assert_eq "$(json_warnings "$W/lim.cmp")" "descriptor_unusable new $W/lim1.json - -" "--json's warnings"
}

# write_doc FILE WARM...: a document of one level, its warm latencies given
write_doc() {
    local f=$1
    shift
    local warm
    warm=$(IFS=,; echo "$*")
    printf '{"metrics": {"c2.latency_warm_ms": {"unit": "milliseconds", "samples": [%s]},
 "c2.requests_per_second": {"unit": "requests_per_second", "samples": [100, 102]},
 "c2.attempts": {"unit": "count", "samples": [%d]}}}\n' "$warm" "$#" >"$f"
}

t_a_metric_on_one_side_only_is_named_in_the_json_too() {
    write_doc "$W/only-a.json" 1 2 3 4 5
    python3 - "$W/only-a.json" "$W/only-b.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["metrics"]["c2.ttfb_ms"] = {"unit": "milliseconds", "samples": [0.5, 0.6]}
json.dump(doc, open(sys.argv[2], "w"))
PY
    compare_json "$W/only.cmp" "$W/only-a.json" "$W/only-b.json"
    assert_eq "$RC" 0 "compare --json: $(head -c 300 "$W/only.cmp.err")"
    assert_contains "$W/only.cmp.err" '^loadstats compare: note: "c2.ttfb_ms" is only in NEW'
    assert_eq "$(json_warnings "$W/only.cmp")" "only_in_new new - - c2.ttfb_ms" "--json's warnings"
    compare_json "$W/only.cmp" "$W/only-b.json" "$W/only-a.json"
    assert_eq "$(json_warnings "$W/only.cmp")" "only_in_base base - - c2.ttfb_ms" "--json's warnings"
    python3 -c 'import json, sys; w = json.load(open(sys.argv[1]))["warnings"][0]; sys.exit(0 if w["message"].startswith("\"c2.ttfb_ms\" is only in BASE (") else 1)' "$W/only.cmp" ||
        fail "the note's message: $(head -c 400 "$W/only.cmp")"
}

t_one_run_a_side_says_run_noise_is_unknown() {
    write_doc "$W/one-a.json" 1 2 3 4 5
    write_doc "$W/one-b.json" 1 2 3 4 5
    run_tool "$W/out" "$W/err" "$LOADSTATS" compare "$W/one-a.json" "$W/one-b.json"
    assert_eq "$RC" 0 "an unchanged run"
    assert_contains "$W/out" "^base: 1 run (.*one-a.json)"
    assert_contains "$W/out" "run-to-run noise is unknown (compare several runs a side"
    compare_json "$W/one.cmp" "$W/one-a.json" "$W/one-b.json"
    assert_contains "$W/one.cmp" '"run_noise": "unknown"'
    # several runs a side: nothing said, the noise is resampled
    run_tool "$W/out" "$W/err" "$LOADSTATS" compare "$W/one-a.json,$W/one-b.json" \
        "$W/one-b.json,$W/one-a.json"
    assert_eq "$RC" 0
    assert_contains "$W/out" "^base: 2 runs"
    grep -q "run-to-run noise is unknown" "$W/out" && fail "said unknown with two runs a side"
    assert_contains "$W/out" "^statistic: median; interval: 99%, from 2000 hierarchical bootstrap resamples"
}

t_compare_takes_a_statistic_and_its_runs_mean() {
    # the side's statistic is the mean over its runs of each run's
    write_doc "$W/s1.json" 1 2 3 4 100
    write_doc "$W/s2.json" 3 4 5 6 200
    write_doc "$W/s3.json" 2 4 6 8 1000
    compare_json "$W/stat.cmp" "$W/s1.json,$W/s2.json" "$W/s3.json"
    python3 - "$W/stat.cmp" <<'PY'
import json, sys
out = json.load(open(sys.argv[1]))
w = out["comparisons"]["c2.latency_warm_ms"]
def check(what, got, want):
    if got != want:
        print("ASSERTION: %s: %r, expected %r" % (what, got, want))
check("statistic", out["statistic"], "median")
check("base (median 3 and 5)", w["base"], 4)
check("new", w["new"], 6)
check("base_median", w["base_median"], 4)
check("runs", (w["base_runs"], w["new_runs"], w["base_samples"], w["new_samples"]), (2, 1, 10, 5))
check("p99 beside it (mean of 96.16 and 192.24)", w["base_p99"], 144.2)
check("ratio", w["ratio"], 1.5)
lo, hi = w["interval"]
if hi is None:  # infinite: a run whose median resamples to 1000 one time in 17
    hi = float("inf")
if not lo <= 1.5 <= hi:
    print("ASSERTION: the interval %s does not hold the ratio" % w["interval"])
check("run noise", w["run_noise"], "resampled")
check("no p99 for a count", "base_p99" in out["comparisons"]["c2.attempts"], False)
PY
    compare_json "$W/p99.cmp" --stat p99 "$W/s1.json,$W/s2.json" "$W/s3.json"
    assert_contains "$W/p99.cmp" '"statistic": "p99"'
    compare_json "$W/mean.cmp" --stat mean "$W/s1.json" "$W/s3.json"
    python3 - "$W/p99.cmp" "$W/mean.cmp" <<'PY'
import json, sys
p99, mean = (json.load(open(p))["comparisons"]["c2.latency_warm_ms"] for p in sys.argv[1:3])
if (p99["base"], p99["new"]) != (144.2, 960.32) or "base_median" in p99:
    print("ASSERTION: --stat p99: the mean of the runs' p99, got %s" % p99)
if (mean["base"], mean["new"]) != (22, 204):
    print("ASSERTION: --stat mean: %s" % mean)
PY
    # the same inputs and seed give the same output
    compare_json "$W/again.cmp" "$W/s1.json,$W/s2.json" "$W/s3.json"
    cmp -s "$W/stat.cmp" "$W/again.cmp" || fail "compare is not reproducible"
}

# five_samples FILE MEDIAN LOWEST: a run of five warm latencies around MEDIAN,
# the lowest LOWEST x MEDIAN
five_samples() {
    python3 - "$@" <<'PY'
import json, sys
path, m, lowest = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
samples = [x * m for x in (lowest, 0.95, 1.0, 1.05, 1.1)]
json.dump({"metrics": {"c2.latency_warm_ms": {"unit": "milliseconds", "samples": samples}}},
          open(path, "w"))
PY
}

t_one_zero_sample_does_not_flip_noisy_to_regressed() {
    # two runs a side, base medians 10 and 13, new 35 and 45.5: with the
    # lowest sample at 0.9x its median, noisy; with it at 0, the interval was
    # the resampled ratios' percentiles without Student's t: regressed, exit 1
    local low
    for low in 0.9 0; do
        five_samples "$W/z-b1.$low.json" 10 "$low"
        five_samples "$W/z-b2.$low.json" 13 "$low"
        five_samples "$W/z-n1.$low.json" 35 "$low"
        five_samples "$W/z-n2.$low.json" 45.5 "$low"
        compare_json "$W/z.$low.cmp" "$W/z-b1.$low.json,$W/z-b2.$low.json" \
            "$W/z-n1.$low.json,$W/z-n2.$low.json"
        assert_eq "$RC" 0 "compare with the lowest sample at $low x the median"
    done
    python3 - "$W/z.0.9.cmp" "$W/z.0.cmp" <<'PY'
import json, sys
rows = [json.load(open(p))["comparisons"]["c2.latency_warm_ms"] for p in sys.argv[1:]]
for lowest, row in zip(("0.9", "0"), rows):
    lo, hi = row["interval"]
    print("lowest %s x median: %s [%s, %s]" % (lowest, row["verdict"], lo, hi))
    if row["verdict"] != "noisy" or not lo < 1.1 < row["ratio"] < hi:
        print("ASSERTION: lowest sample %s x median: %s, interval %s" % (lowest, row["verdict"], row["interval"]))
# a 0 widens the interval (it is further from the median than 0.9 of it), never narrows it
if rows[1]["interval"][1] / rows[1]["interval"][0] < rows[0]["interval"][1] / rows[0]["interval"][0]:
    print("ASSERTION: the interval with a 0 is narrower: %s, %s" % (rows[1]["interval"], rows[0]["interval"]))
PY
}

# errors FILE COUNT: a document of one level whose errors are COUNT
errors_doc() {
    printf '{"metrics": {"c2.errors": {"unit": "count", "samples": [%s]}}}\n' "$2" >"$1"
}

t_a_base_that_can_be_0_has_no_ratio() {
    # errors 0 and 4 in the base's runs, 20 and 30 in the new's: the base's
    # statistic is 0 in a quarter of the resamples, so the ratio new/base is
    # undefined, and said so (it was [5, inf], regressed; such an interval
    # printed 0.0000-846967.6333 where the base was near 0)
    local n
    for n in 0 4 20 30; do errors_doc "$W/e$n.json" "$n"; done
    run_tool "$W/e.out" "$W/e.err" "$LOADSTATS" compare "$W/e0.json,$W/e4.json" "$W/e20.json,$W/e30.json"
    assert_eq "$RC" 0 "compare over a base that can be 0"
    assert_contains "$W/e.out" "^noisy  *c2.errors  *count  *2.00  *25.00  .* 12.5000  *undefined  *2/2  *the base can be 0: the ratio is undefined$"
    compare_json "$W/e.cmp" "$W/e0.json,$W/e4.json" "$W/e20.json,$W/e30.json"
    python3 - "$W/e.cmp" <<'PY'
import json, sys
row = json.load(open(sys.argv[1]))["comparisons"]["c2.errors"]
if row["interval"] != [None, None] or row.get("noisy_because") != "zero_base" or row["verdict"] != "noisy":
    print("ASSERTION: a base that can be 0: %s" % row)
PY
    # errors in every new run where no base run had any: a move from nothing
    run_tool "$W/e.out" "$W/e.err" "$LOADSTATS" compare "$W/e0.json,$W/e0.json" "$W/e20.json,$W/e30.json"
    assert_eq "$RC" 1 "errors from none"
    assert_contains "$W/e.out" "^regressed  *c2.errors .* inf  *inf-inf "
    # a loop's lag, one sample a run: a base run of 0.0012 ms beside one of
    # 0.313 is no resample of 0, but the base's own interval reaches it (the
    # logarithms made 0.0000-132740317175800.9062 of it, on an A/B of nginx)
    for n in 0.0012 0.313 0.29 0.2; do
        printf '{"metrics": {"c8.loop_lag_ms": {"unit": "milliseconds", "samples": [%s]}}}\n' "$n" >"$W/lag$n.json"
    done
    run_tool "$W/lag.out" "$W/lag.err" "$LOADSTATS" compare "$W/lag0.0012.json,$W/lag0.313.json" \
        "$W/lag0.29.json,$W/lag0.2.json"
    assert_contains "$W/lag.out" "^tiny  *c8.loop_lag_ms .* undefined  *2/2 "
}

t_bytes_received_have_no_direction() {
    # fewer bytes received is less work done, or the same work compressed
    # (gzip's purpose): a move either way is changed, and fails nothing
    printf '{"metrics": {"c4.bytes_received": {"unit": "bytes", "samples": [1000]}}}\n' >"$W/bytes-a.json"
    printf '{"metrics": {"c4.bytes_received": {"unit": "bytes", "samples": [333]}}}\n' >"$W/bytes-b.json"
    run_tool "$W/bytes.out" "$W/bytes.err" "$LOADSTATS" compare "$W/bytes-a.json" "$W/bytes-b.json"
    assert_eq "$RC" 0 "fewer bytes received"
    assert_contains "$W/bytes.out" "^changed  *c4.bytes_received "
    assert_contains "$W/bytes.out" "^1 compared: 0 regressed, 0 improved, 1 changed, 0 noisy, 0 tiny, 0 ok$"
    compare_json "$W/bytes.cmp" "$W/bytes-b.json" "$W/bytes-a.json"
    assert_eq "$RC" 0 "more bytes received"
    assert_contains "$W/bytes.cmp" '"significant": false, "verdict": "changed"'
}

t_the_tally_counts_each_quantity_once() {
    # a watched tree's memory, and its one command's: the same quantity twice
    # (on an A/B of nginx with and without gzip: "6 improved", the tree's
    # memory rows counted twice, and fewer bytes received regressed)
    local side
    for side in base:100:1000 new:50:333; do
        IFS=: read -r name memory bytes <<<"$side"
        printf '{"metrics": {"c4.watch.w.rss_bytes": {"unit": "bytes", "samples": [%s, %s]},
 "c4.watch.w.nginx.rss_bytes": {"unit": "bytes", "samples": [%s, %s]},
 "c4.bytes_received": {"unit": "bytes", "samples": [%s]}}}\n' \
            "$memory" "$memory" "$memory" "$memory" "$bytes" >"$W/tally-$name.json"
    done
    run_tool "$W/tally.out" "$W/tally.err" "$LOADSTATS" compare "$W/tally-base.json" "$W/tally-new.json"
    assert_eq "$RC" 0 "less memory and fewer bytes: nothing regressed"
    assert_contains "$W/tally.out" "^improved  *c4.watch.w.rss_bytes "
    assert_contains "$W/tally.out" "^improved  *c4.watch.w.nginx.rss_bytes "
    assert_contains "$W/tally.out" "^changed  *c4.bytes_received "
    assert_contains "$W/tally.out" "^2 compared: 0 regressed, 1 improved, 1 changed, 0 noisy, 0 tiny, 0 ok; 1 row of commands in watched trees shown, not counted$"
    compare_json "$W/tally.cmp" "$W/tally-base.json" "$W/tally-new.json"
    python3 - "$W/tally.cmp" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["comparisons"]
got = {k: (v["verdict"], v["counted"], v["significant"]) for k, v in rows.items()}
want = {"c4.watch.w.rss_bytes": ("improved", True, False),
        "c4.watch.w.nginx.rss_bytes": ("improved", False, False),
        "c4.bytes_received": ("changed", True, False)}
if got != want:
    print("ASSERTION: %s, expected %s" % (got, want))
PY
    # more bytes is no regression either; more memory is, counted once
    run_tool "$W/tally.out" "$W/tally.err" "$LOADSTATS" compare "$W/tally-new.json" "$W/tally-base.json"
    assert_eq "$RC" 1 "more memory regressed"
    assert_contains "$W/tally.out" "^changed  *c4.bytes_received "
    assert_contains "$W/tally.out" "^2 compared: 1 regressed, 0 improved, 1 changed, "
}

t_compare_refuses_bad_lists_and_options() {
    write_doc "$W/r.json" 1 2
    local args
    for args in "--stat p50 $W/r.json $W/r.json" "--confidence 1 $W/r.json $W/r.json" \
        "--confidence 0 $W/r.json $W/r.json" "--resamples 10 $W/r.json $W/r.json" \
        "$W/r.json,,$W/r.json $W/r.json" "$W/r.json -,-" "$W/r.json,$W/missing.json $W/r.json"; do
        # shellcheck disable=SC2086
        run_tool "$W/out" "$W/err" "$LOADSTATS" compare $args
        assert_eq "$RC" 2 "exit status of 'compare $args'"
        assert_empty_file "$W/out" "stdout of 'compare $args'"
        assert_eq "$(wc -l <"$W/err")" 1 "one line for 'compare $args': $(cat "$W/err")"
    done
    # a unit that differs between the runs of one side is an invalid input
    printf '{"metrics": {"c2.latency_warm_ms": {"unit": "seconds", "samples": [0.001]}}}' >"$W/sec.json"
    run_tool "$W/out" "$W/err" "$LOADSTATS" compare "$W/r.json,$W/sec.json" "$W/r.json"
    assert_eq "$RC" 1 "units differ between the runs of a side"
    assert_contains "$W/err" 'sec.json: "c2.latency_warm_ms" is in seconds here but in milliseconds'
}

t_summary_over_runs_shows_the_run_to_run_spread() {
    aa_runs || return
    local runs="$W/aa0.json,$W/aa1.json,$W/aa2.json"
    run_tool "$W/sum.json" "$W/err" "$LOADSTATS" summary --json "$runs"
    assert_eq "$RC" 0 "summary over three runs"
    for i in 0 1 2; do
        run_tool "$W/sum$i.json" "$W/err" "$LOADSTATS" summary --json "$W/aa$i.json"
    done
    python3 - "$W/sum.json" "$W"/sum0.json "$W"/sum1.json "$W"/sum2.json <<'PY'
import json, statistics, sys
over = json.load(open(sys.argv[1]))
runs = [json.load(open(p)) for p in sys.argv[2:]]
for key in ("c4.latency_warm_ms", "c4.requests_per_second", "c4.requests"):
    s = over[key]
    each = [r[key] for r in runs]
    if s["runs"] != 3 or s["n"] != sum(e["n"] for e in each):
        print("ASSERTION: %s: runs %s, n %s" % (key, s["runs"], s["n"]))
    for field in ("median", "p99", "mean"):
        values = [e[field] for e in each]
        mean, spread = statistics.mean(values), statistics.stdev(values)
        if abs(s[field] - mean) > 0.006 or abs(s["spread"][field] - spread) > 0.006:
            print("ASSERTION: %s %s: %s +- %s, the runs give %s +- %s (%s)"
                  % (key, field, s[field], s["spread"][field], mean, spread, values))
print("median of latency_warm_ms over three runs: %s +- %s"
      % (over["c4.latency_warm_ms"]["median"], over["c4.latency_warm_ms"]["spread"]["median"]))
PY
    run_tool "$W/sum.txt" "$W/err" "$LOADSTATS" summary --wide "$runs"
    assert_contains "$W/sum.txt" "latency_warm_ms *ms *[0-9]* *[0-9.]*+-[0-9.]*"
    run_tool "$W/sum.txt" "$W/err" "$LOADSTATS" summary "$runs"
    assert_contains "$W/sum.txt" "^over 3 runs: each number is the mean of the runs'"
    assert_contains "$W/sum.txt" "latency_warm_ms *[µm]s *[0-9]* *[0-9.]*±[0-9.]*"
    assert_contains "$W/sum.txt" "^    requests *[0-9]*±[0-9]*$"
}

run_tests
