#!/usr/bin/env bash
# run: once
# (the normal build only since 2026-12-04: CI had outgrown its 40 minutes; the
# sanitizers still meet this code in the torture scenarios and the other files)
# Integration tests of the loadstats binary: protocol check, summary numbers,
# compare exit codes, plot, on documents written here; merge and export on
# those and on real documents of httpload against nginx and dnsload against
# knot (started on demand). The plot test needs xmllint (libxml2-utils) and
# rsvg-convert (librsvg2-bin); export openmetrics needs python3-prometheus-client.
# Run: BUILD=/path/to/build bash tests/integration/t_loadstats.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$TESTDIR/servers.sh"
source "$TESTDIR/servers_dns.sh"

W=$TMPROOT/loadstats
mkdir -p "$W"

# json_get FILE PATH...: one value out of a JSON file, e.g. json_get f.json c1.x n
json_get() {
    python3 - "$@" <<'PY' || fail "json_get $*: no such value"
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v[int(k)] if isinstance(v, list) else v[k]
print(json.dumps(v))
PY
}

# (c64 counts attempts, not requests: a document whose requests outnumber its
# latency samples shows a cut, which merge refuses without true counts)
write_run() { # write_run FILE WARM_SAMPLES [RPS_SAMPLES]
    cat >"$1" <<JSON
collector: warming up (noise before the document is tolerated)
{"metrics": {
  "c1.latency_cold_ms": {"unit": "milliseconds", "samples": [3.0, 3.5]},
  "c1.latency_warm_ms": {"unit": "milliseconds", "samples": [$2]},
  "c1.requests_per_second": {"unit": "requests_per_second", "samples": [${3:-100, 110, 105}]},
  "c1.errors.timeout": {"unit": "count", "samples": [0]},
  "c64.latency_warm_ms": {"unit": "milliseconds", "samples": [$2]},
  "c64.attempts": {"unit": "count", "samples": [6400]},
  "c64.watch.nginx.rss_bytes": {"unit": "bytes", "samples": [1048576, 2097152]}
}}
JSON
}

t_check_accepts_a_valid_document() {
    write_run "$W/ok.json" "1, 2, 10"
    run_tool "$W/out" "$W/err" "$LOADSTATS" check "$W/ok.json"
    assert_eq "$RC" 0 "check of a valid document"
    assert_contains "$W/out" "7 metrics"
    assert_empty_file "$W/err"
    run_tool "$W/out" "$W/err" "$LOADSTATS" check -q - <"$W/ok.json"
    assert_eq "$RC" 0 "check from stdin"
    assert_empty_file "$W/out" "quiet check prints nothing"
}

t_check_rejects_each_rule() {
    local m='"c1.x": {"unit": "count", "samples": [1]}' n=0 doc reason
    while IFS='|' read -r reason doc; do
        n=$((n + 1))
        printf '%s' "$doc" >"$W/bad$n.json"
        run_tool "$W/out" "$W/err" "$LOADSTATS" check "$W/bad$n.json"
        assert_eq "$RC" 1 "check must refuse: $reason"
        assert_eq "$(wc -l <"$W/err")" 1 "one-line reason for: $reason"
        assert_contains "$W/err" "$reason"
        assert_empty_file "$W/out" "nothing on stdout for: $reason"
    done <<DOCS
no JSON document|no json here
second JSON document|{"metrics": {$m}} {"metrics": {$m}}
after the document|{"metrics": {$m}} trailing
unknown top-level key|{"metrics": {$m}, "meta": {}}
sidecar must be a string|{"metrics": {$m}, "sidecar": 3}
metrics is empty|{"metrics": {}}
metrics must be an object|{"metrics": [1]}
unknown key "mean"|{"metrics": {"c1.x": {"unit": "count", "samples": [1], "mean": 1}}}
has no unit|{"metrics": {"c1.x": {"samples": [1]}}}
has no samples|{"metrics": {"c1.x": {"unit": "count"}}}
unknown unit "furlongs"|{"metrics": {"c1.x": {"unit": "furlongs", "samples": [1]}}}
samples is empty|{"metrics": {"c1.x": {"unit": "count", "samples": []}}}
is a string|{"metrics": {"c1.x": {"unit": "count", "samples": ["1"]}}}
is true|{"metrics": {"c1.x": {"unit": "count", "samples": [true]}}}
is NaN|{"metrics": {"c1.x": {"unit": "count", "samples": [NaN]}}}
is Infinity|{"metrics": {"c1.x": {"unit": "count", "samples": [Infinity]}}}
overflows a double|{"metrics": {"c1.x": {"unit": "count", "samples": [1e999]}}}
out of range for serde_json|{"metrics": {"c1.x": {"unit": "count", "samples": [1.7976931348623158e308]}}}
appears twice|{"metrics": {$m, $m}}
DOCS
}

t_summary_json_numbers() {
    write_run "$W/s.json" "10, 1, 2"
    run_tool "$W/out" "$W/err" "$LOADSTATS" summary --json "$W/s.json"
    assert_eq "$RC" 0 "summary --json"
    local k=c1.latency_warm_ms
    assert_eq "$(json_get "$W/out" $k n)" 3
    assert_eq "$(json_get "$W/out" $k min)" 1
    assert_eq "$(json_get "$W/out" $k max)" 10
    assert_eq "$(json_get "$W/out" $k mean)" 4.33
    assert_eq "$(json_get "$W/out" $k median)" 2
    assert_eq "$(json_get "$W/out" $k p90)" 8.4
    assert_eq "$(json_get "$W/out" $k p95)" 9.2
    assert_eq "$(json_get "$W/out" $k p99)" 9.84
    assert_eq "$(json_get "$W/out" $k p999)" 9.98
    assert_eq "$(json_get "$W/out" $k stddev)" 4.03
    assert_eq "$(json_get "$W/out" $k cv)" 0.93
    assert_eq "$(json_get "$W/out" $k mad)" 1
    assert_eq "$(json_get "$W/out" c1.requests_per_second mean)" 105
    assert_eq "$(json_get "$W/out" c64.watch.nginx.rss_bytes median)" 1572864
}

t_summary_table_groups_by_level() {
    write_run "$W/s.json" "0.5, 0.6"
    run_tool "$W/out" "$W/err" "$LOADSTATS" summary "$W/s.json"
    assert_eq "$RC" 0 "summary table"
    assert_contains "$W/out" "^c1: 1 client"
    assert_contains "$W/out" "^c64: 64 clients"
    # n, min, p50 in the unit that suits the row: 0.5 ms is 500 µs
    assert_contains "$W/out" "^    latency_warm_ms *µs *2 *500 *550 "
    assert_contains "$W/out" "^    requests_per_second *req/s *3 *100 *105 *110 *105 "
    assert_contains "$W/out" "^    attempts *6400$"
    local c1 c64
    c1=$(grep -n '^c1:' "$W/out" | cut -d: -f1)
    c64=$(grep -n '^c64:' "$W/out" | cut -d: -f1)
    assert_le "$c1" "$c64" "levels in ascending client count"
    # --wide: every statistic, as JSON rounds it, in the document's unit
    run_tool "$W/wide" "$W/err" "$LOADSTATS" summary --wide "$W/s.json"
    assert_eq "$RC" 0 "summary --wide"
    assert_contains "$W/wide" "^  metric *unit *n *min *median *p90 *p95 *p99 *p999 *max *mean *stddev *cv *mad$"
    assert_contains "$W/wide" "^  latency_warm_ms *ms *2 *0.50 *0.55 "
    assert_contains "$W/wide" "^  requests_per_second *req/s"
    assert_contains "$W/wide" "^  attempts *count *1 *6400.00 *6400.00 "
}

# A document as a real multi-level run writes it, made up (a real one takes
# seconds a level): three levels of ten seconds, latencies from tens of
# microseconds to seconds, error classes, a watched tree and its command,
# per-target latencies, an open loop's counts. Deterministic.
write_realistic_run() { # write_realistic_run FILE SEED
    python3 - "$1" "$2" <<'PY'
import json, random, sys
rnd = random.Random(int(sys.argv[2]))
m = {}
def put(key, unit, samples):
    m[key] = {"unit": unit, "samples": samples}
for c, base in ((1, 0.045), (64, 1.4), (1024, 380.0)):
    k = "c%d." % c
    warm = [round(rnd.lognormvariate(0, 0.6) * base, 3) for _ in range(3000)]
    put(k + "latency_cold_ms", "milliseconds", [round(x * 3, 3) for x in warm[:c]])
    put(k + "latency_warm_ms", "milliseconds", warm)
    for phase in ("connect_ms", "tls_handshake_ms", "ttfb_ms"):
        put(k + phase, "milliseconds", [round(x / 3, 3) for x in warm[:c]])
    put(k + "target.1.latency_warm_ms", "milliseconds", warm[::2])
    put(k + "requests_per_second", "requests_per_second", [rnd.randint(20000, 23000) for _ in range(10)])
    put(k + "errors_per_second", "requests_per_second", [rnd.randint(0, 40) for _ in range(10)])
    put(k + "send_lag_ms", "milliseconds", [round(rnd.expovariate(20), 4) for _ in range(500)])
    put(k + "ran_s", "seconds", [10.002])
    for name, n in (("attempts", 216034 * c), ("requests", 215700 * c), ("errors", 334 * c),
                    ("errors.connect_refused", 300 * c), ("errors.http_5xx", 34 * c),
                    ("unfinished", 0), ("scheduled", 216100 * c), ("unsent", 66 * c),
                    ("connections", c), ("reconnects", 12), ("bytes_received", 33081234 * c)):
        put(k + name, "bytes" if name.startswith("bytes") else "count", [n])
    put(k + "client_attempts", "count", [rnd.randint(3000, 3500) for _ in range(c)])
    put(k + "generator_cpu_s", "seconds", [round(rnd.uniform(0.8, 1.0), 3) for _ in range(10)])
    put(k + "generator_rss_bytes", "bytes", [rnd.randint(8 << 20, 90 << 20) for _ in range(10)])
    put(k + "loop_lag_ms", "milliseconds", [round(rnd.uniform(0.01, 4), 3) for _ in range(10)])
    for part in ("watch.nginx.", "watch.nginx.nginx_worker_process."):
        put(k + part + "cpu_s", "seconds", [round(rnd.uniform(0.3, 0.9), 2) for _ in range(10)])
        for mem in ("rss_bytes", "pss_bytes", "uss_bytes"):
            put(k + part + mem, "bytes", [rnd.randint(20 << 20, 30 << 20) for _ in range(10)])
        put(k + part + "fds", "count", [72 + c] * 10)
json.dump({"metrics": m}, open(sys.argv[1], "w"))
PY
}

# `loadstats summary` on a terminal: within 120 columns, counts as integers
# (once "attempts count 1 216034.00 216034.00 ..." over 200 columns), the
# samples in the unit that suits each row; --wide keeps every column.
t_summary_fits_120_columns_with_counts_as_integers() {
    write_realistic_run "$W/real1.json" 1
    write_realistic_run "$W/real2.json" 2
    local doc out
    for doc in "$W/real1.json" "$W/real1.json,$W/real2.json"; do
        out=$W/real.$(basename "${doc%%,*}").$((${#doc} % 97)).txt
        run_tool "$out" "$W/err" "$LOADSTATS" summary "$doc"
        assert_eq "$RC" 0 "summary $doc"
        assert_empty_file "$W/err"
        "$LOADSTATS" summary --json "$doc" >"$out.json"
        python3 - "$out" "$out.json" "$TESTDIR" "${doc%%,*}" <<'PY' || fail "summary of $doc"
import json, re, sys
sys.path.insert(0, sys.argv[3])
import metrickinds
text = open(sys.argv[1], encoding="utf-8").read()
lines, summary = text.splitlines(), json.load(open(sys.argv[2]))
doc = json.load(open(sys.argv[4]))["metrics"]
several = text.startswith("over ")
wide = [l for l in lines if len(l) > 120]
assert not wide, "%d lines over 120 columns, the widest %d: %r" % (len(wide), max(map(len, wide)), wide[0])
# each level's block of counts: one integer per count, as the document has it
level = None
counts = 0
for line in lines:
    if re.match(r"^c\d+: ", line):
        level = line.split(":")[0]
    m = re.match(r"^    ([a-z0-9_.]+) +(\d+)(?:±(\d+))?(?:  .*)?$", line)
    if not m or metrickinds.kind(level + "." + m.group(1), doc[level + "." + m.group(1)]["unit"]) != "count":
        continue
    key = level + "." + m.group(1)
    assert int(m.group(2)) == round(summary[key]["mean"]), (line, summary[key]["mean"])
    assert (m.group(3) is not None) == several, line
    counts += 1
want = sum(1 for k, v in doc.items() if metrickinds.kind(k, v["unit"]) == "count")
assert counts == want, "%d count lines, the document has %d counts" % (counts, want)
assert "attempts count" not in text and "216034.00" not in text, "a count as a statistics row"
# latencies: p50 in the row's unit is the median, at three significant digits
scale = {"ns": 1e-6, "µs": 1e-3, "ms": 1, "s": 1e3}
header = None
seen = 0
for line in lines:
    if re.match(r"^c\d+: ", line):
        level = line.split(":")[0]
    if line.startswith("  samples "):
        header = line.split()
    m = re.match(r"^    (latency_warm_ms|latency_cold_ms) +(ns|µs|ms|s) +(.*)$", line)
    if not m:
        continue
    cells = dict(zip(header[2:], m.group(3).split()))
    p50 = float(cells["p50"].split("±")[0]) * scale[m.group(2)]
    median = summary[level + "." + m.group(1)]["median"]
    assert abs(p50 - median) <= 0.011 + 0.005 * median, (line, median)
    seen += 1
assert seen == 6, "%d latency rows" % seen
for unit in ("µs", "ms", "s", "MiB", "req/s"):
    assert re.search(r"  %s  " % re.escape(unit), text), "no row in %s" % unit
print("%d lines, the widest %d columns, %d counts" % (len(lines), max(map(len, lines)), counts))
PY
    done
    run_tool "$W/real.wide" "$W/err" "$LOADSTATS" summary --wide "$W/real1.json"
    assert_eq "$RC" 0 "summary --wide"
    assert_contains "$W/real.wide" "^  metric *unit *n *min *median *p90 *p95 *p99 *p999 *max *mean *stddev *cv *mad$"
    assert_contains "$W/real.wide" "^  attempts *count *1 *216034.00 *216034.00 "
    assert_ge "$(awk '{ if (length($0) > w) w = length($0) } END { print w }' "$W/real.wide")" 150 \
        "the widest line of --wide"
}

t_bad_usage_exits_2() {
    write_run "$W/u.json" "1"
    local args
    for args in "" "frobnicate" "summary" "summary --bogus $W/u.json" "summary $W/missing.json" \
        "check $W" "compare $W/u.json" "compare --maximum-factor abc $W/u.json $W/u.json" \
        "compare --noise-factor" "merge" "merge - -" "plot -x $W/u.json" \
        "plot -o /nonexistent/dir/p.svg $W/u.json"; do
        # shellcheck disable=SC2086
        run_tool "$W/out" "$W/err" "$LOADSTATS" $args
        assert_eq "$RC" 2 "exit status of 'loadstats $args'"
        assert_empty_file "$W/out" "stdout of 'loadstats $args'"
        assert_eq "$(wc -l <"$W/err")" 1 "one line on stderr for 'loadstats $args'"
    done
}

t_help_documents_every_subcommand() {
    run_tool "$W/out" "$W/err" "$LOADSTATS" --help
    assert_eq "$RC" 0 "--help"
    local c
    for c in summary check compare merge plot export report; do
        assert_contains "$W/out" "^  $c "
        run_tool "$W/sub" "$W/err" "$LOADSTATS" $c --help
        assert_eq "$RC" 0 "$c --help"
        assert_contains "$W/sub" "usage: loadstats $c"
    done
}

t_compare_exit_codes() {
    write_run "$W/base.json" "10, 10.2, 9.8, 10.1, 9.9"
    write_run "$W/same.json" "10, 10.2, 9.8, 10.1, 9.9"
    write_run "$W/slow.json" "15, 15.2, 14.8, 15.1, 14.9"
    write_run "$W/fast.json" "5, 5.2, 4.8, 5.1, 4.9"
    run_tool "$W/out" "$W/err" "$LOADSTATS" compare "$W/base.json" "$W/same.json"
    assert_eq "$RC" 0 "unchanged run passes the gate"
    assert_contains "$W/out" "0 regressed"
    run_tool "$W/out" "$W/err" "$LOADSTATS" compare --json "$W/base.json" "$W/slow.json"
    assert_eq "$RC" 1 "slower run fails the gate"
    local k=c64.latency_warm_ms
    assert_eq "$(json_get "$W/out" comparisons $k verdict)" '"regressed"'
    assert_eq "$(json_get "$W/out" comparisons $k significant)" true
    assert_eq "$(json_get "$W/out" comparisons $k base_median)" 10
    assert_eq "$(json_get "$W/out" comparisons $k new_median)" 15
    assert_eq "$(json_get "$W/out" comparisons $k delta_abs)" 5
    assert_eq "$(json_get "$W/out" comparisons $k delta_pct)" 50
    assert_eq "$(json_get "$W/out" comparisons $k ratio)" 1.5
    run_tool "$W/out" "$W/err" "$LOADSTATS" compare --json "$W/base.json" "$W/fast.json"
    assert_eq "$RC" 0 "faster run passes"
    assert_eq "$(json_get "$W/out" comparisons $k verdict)" '"improved"'
    run_tool "$W/out" "$W/err" "$LOADSTATS" compare --maximum-factor 2 "$W/base.json" "$W/slow.json"
    assert_eq "$RC" 0 "a wider factor passes"
    run_tool "$W/out" "$W/err" "$LOADSTATS" compare --minimum-time-resolution-ms 10 \
        "$W/base.json" "$W/slow.json"
    assert_eq "$RC" 0 "a 5 ms move under a 10 ms resolution is tiny"
    assert_contains "$W/out" "^tiny"
    run_tool "$W/out" "$W/err" "$LOADSTATS" compare --noise-factor 100 "$W/base.json" "$W/slow.json"
    assert_eq "$RC" 0 "a move inside the noise band passes"
    assert_contains "$W/out" "^noisy"
    # throughput: lower is worse
    write_run "$W/slowrps.json" "10, 10.2, 9.8, 10.1, 9.9" "50, 55, 52"
    run_tool "$W/out" "$W/err" "$LOADSTATS" compare --json "$W/base.json" "$W/slowrps.json"
    assert_eq "$RC" 1 "falling throughput fails the gate"
    assert_eq "$(json_get "$W/out" comparisons c1.requests_per_second verdict)" '"regressed"'
}

t_compare_invalid_input_exits_1() {
    write_run "$W/base.json" "1"
    printf '{"metrics": {}}' >"$W/empty.json"
    run_tool "$W/out" "$W/err" "$LOADSTATS" compare "$W/base.json" "$W/empty.json"
    assert_eq "$RC" 1 "invalid NEW"
    assert_contains "$W/err" "metrics is empty"
    assert_empty_file "$W/out"
}

# Samples near the largest double: their sums overflow a double, and summary
# printed inf and -nan, its --json null, compare "ok" with a delta of -nan.
# Every command gives finite numbers (never inf, nan or null for a number), a
# table cell never cuts one short (1.60e+308, not 309 digits cut at 47), and
# merge, whose counts and seconds are sums, refuses one beyond a double.
t_samples_near_the_largest_double_give_finite_numbers_or_a_refusal() {
    local f
    for f in a:1.5e308,1.6e308,1.7e308 b:1.4e308,1.5e308,1.6e308; do
        printf '{"metrics": {"c1.latency_warm_ms": {"unit": "milliseconds", "samples": [%s]},
 "c1.requests_per_second": {"unit": "requests_per_second", "samples": [1.7e308, 1.6e308]},
 "c1.requests": {"unit": "count", "samples": [3]}}}\n' "${f#*:}" >"$W/huge-${f%%:*}.json"
    done
    local a=$W/huge-a.json b=$W/huge-b.json cmd out n=0
    for cmd in "summary $a" "summary $a,$b" "summary --wide $a,$b" "summary --json $a" "summary --json $a,$b" \
        "compare $a,$b $b,$b" "compare --json $a,$b $b,$b" "compare --json $a $b" \
        "export -f csv-summary $a" "export -f csv $a" "export -f openmetrics $a" \
        "export -f hgrm -m c1.latency_warm_ms $a" "report $a" "plot $a"; do
        out=$W/huge.$((n++))
        # shellcheck disable=SC2086
        run_tool "$out" "$out.err" "$LOADSTATS" $cmd
        assert_eq "$RC" 0 "loadstats $cmd: $(head -c 300 "$out.err")"
        [ "$(count_lines '(^|[^a-z])(nan|inf|null)([^a-z]|$)' "$out")" = 0 ] ||
            fail "'loadstats $cmd' writes nan, inf or null: $(grep -m 3 -Ei '(^|[^a-z])(nan|inf|null)([^a-z]|$)' "$out" | cut -c 1-200)"
    done
    run_tool "$W/huge.txt" "$W/err" "$LOADSTATS" summary --wide "$a"
    assert_contains "$W/huge.txt" "latency_warm_ms *ms *3 *1.50e+308 *1.60e+308"
    run_tool "$W/huge.txt" "$W/err" "$LOADSTATS" summary "$a"
    assert_contains "$W/huge.txt" "latency_warm_ms *s *3 *1.50e+305 *1.60e+305"
    run_tool "$W/huge.html" "$W/err" "$LOADSTATS" report "$a"
    assert_contains "$W/huge.html" '<td class="n">1.6e+308</td>' "the report's median"
    # a merged count or second is a sum: beyond a double, the metric is refused by name
    run_tool "$W/huge.merged" "$W/err" "$LOADSTATS" merge "$a" "$b"
    assert_eq "$RC" 1 "merge of documents whose sums overflow"
    assert_empty_file "$W/huge.merged" "merge's output"
    assert_contains "$W/err" '^loadstats merge: "c1.requests_per_second": its sum over the documents is beyond the largest double'
    run_tool "$W/huge.cmp" "$W/err" "$LOADSTATS" compare --json "$a,$b" "$b,$b"
    python3 - "$W/huge.cmp" <<'PY'
import json, sys
row = json.load(open(sys.argv[1]))["comparisons"]["c1.latency_warm_ms"]
lo, hi = row["interval"]
if abs(row["base"] - 1.55e308) > 1e294 or row["new"] != 1.5e308 or not lo < row["ratio"] < hi:
    print("ASSERTION: compare of runs near the largest double: %s" % row)
PY
}

t_merge_combines_generators() {
    write_run "$W/a.json" "1, 2" "100, 110, 105"
    write_run "$W/b.json" "3" "10, 20, 30"
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge "$W/a.json" "$W/b.json"
    assert_eq "$RC" 0 "merge"
    run_tool "$W/out" "$W/err2" "$LOADSTATS" check "$W/m.json"
    assert_eq "$RC" 0 "the merged document is valid"
    assert_eq "$(json_get "$W/m.json" metrics c1.latency_warm_ms samples)" "[1, 2, 3]"
    assert_eq "$(json_get "$W/m.json" metrics c1.requests_per_second samples)" "[110, 130, 135]"
    assert_eq "$(json_get "$W/m.json" metrics c64.attempts samples)" "[12800]"
    assert_eq "$(json_get "$W/m.json" metrics c1.errors.timeout unit)" '"count"'
    # a gauge of one generator's host is no sample of another's: kept apart
    assert_eq "$(json_get "$W/m.json" metrics c64.input0.watch.nginx.rss_bytes samples)" \
        "[1048576, 2097152]"
    assert_eq "$(json_get "$W/m.json" metrics c64.input1.watch.nginx.rss_bytes samples)" \
        "[1048576, 2097152]"
    # -o writes a file; stdin is one of the inputs
    run_tool "$W/out" "$W/err" "$LOADSTATS" merge -o "$W/m2.json" "$W/a.json" - <"$W/b.json"
    assert_eq "$RC" 0 "merge -o with stdin"
    assert_empty_file "$W/out"
    cmp -s "$W/m.json" "$W/m2.json" || fail "merge -o differs from merge to stdout"
}

t_merge_reports_partial_keys_and_conflicts() {
    write_run "$W/a.json" "1"
    printf '{"metrics": {"c1.latency_warm_ms": {"unit": "milliseconds", "samples": [2]}, "c1.only_here": {"unit": "count", "samples": [4]}, "c1.only_here_ms": {"unit": "milliseconds", "samples": [4]}}}' >"$W/b.json"
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge "$W/a.json" "$W/b.json"
    assert_eq "$RC" 0 "partial keys are merged"
    # a plain count another document lacks adds 0 there, and is warned about
    # (the generators write every plain count; a class like errors.timeout,
    # which b.json lacks, only where it is not 0: no word about it)
    assert_eq "$(json_get "$W/m.json" metrics c1.only_here samples)" "[4]"
    assert_contains "$W/err" '"c1.only_here" is missing from .*a.json; counted as 0 there'
    grep -q 'errors.timeout' "$W/err" && fail "a count with a class missing from a document is warned about"
    assert_contains "$W/err" '"c1.only_here_ms" is missing from .*a.json'
    assert_eq "$(json_get "$W/m.json" metrics c1.only_here_ms samples)" "[4]"
    assert_eq "$(json_get "$W/m.json" metrics c1.latency_cold_ms samples)" "[3, 3.5]"
    printf '{"metrics": {"c1.latency_warm_ms": {"unit": "seconds", "samples": [0.002]}}}' >"$W/c.json"
    run_tool "$W/out" "$W/err" "$LOADSTATS" merge "$W/a.json" "$W/c.json"
    assert_eq "$RC" 1 "a unit conflict is an error"
    assert_contains "$W/err" 'unit conflict for "c1.latency_warm_ms"'
    assert_empty_file "$W/out"
    printf '{"metrics": {"c1.requests": {"unit": "count", "samples": [1, 2]}}}' >"$W/d.json"
    run_tool "$W/out" "$W/err" "$LOADSTATS" merge "$W/a.json" "$W/d.json"
    assert_eq "$RC" 1 "a count with two samples is refused"
    assert_contains "$W/err" 'd.json: "c1.requests" is an exact count and must have one sample'
}

# --- merge of shards ----------------------------------------------------------

# http_run NAME [OPTION...]: httpload against nginx; $W/NAME.json and NAME.meta.json.
http_run() {
    local name=$1
    shift
    need_nginx || { fail "nginx did not start"; return 1; }
    run_tool "$W/$name.json" "$W/$name.err" "$HTTPLOAD" -q --meta "$W/$name.meta.json" "$@" \
        "http://127.0.0.1:$NGINX_HTTP_PORT/"
    assert_eq "$RC" 0 "httpload $*"
    [ "$RC" = 0 ]
}

# shardify RAW OUT INDEX COUNT [OPTION...]: one shard of a sharded run (shardify.py).
shardify() {
    python3 "$TESTDIR/shardify.py" "$W/$1.json" "$W/$2.json" "${@:3}" || fail "shardify.py $*"
}

# merged_by_kind A B MERGED: every key of MERGED is what its kind (the table of
# stats/read/metrickinds.def, read by metrickinds.py) makes of A and B: counts
# summed, timelines added second by second (over the whole seconds of the
# shorter ran_s of their level), a level's ran_s the shorter, samples pooled (the same multiset),
# gauges kept apart (c<N>.shard0.<metric> is A's, shard1 B's; input0/input1
# without --shards). Prints the keys checked per kind.
merged_by_kind() {
    python3 - "$TESTDIR" "$@" <<'PY' || fail "merged_by_kind $*"
import json, re, sys
sys.path.insert(0, sys.argv[1])
import metrickinds
a, b, m = (json.load(open(p))["metrics"] for p in sys.argv[2:5])
kinds = {"count": [], "timeline": [], "samples": [], "gauge": [], "span": []}
for key, v in m.items():
    kind = metrickinds.kind(key, v["unit"])
    empty = {"unit": v["unit"], "samples": []}
    if kind == "gauge":
        level, part, metric = re.match(r"^(c\d+)\.(?:shard|input)(\d+)\.(.+)$", key).groups()
        want = (a, b)[int(part)][level + "." + metric]["samples"]
    else:
        metric = metrickinds.metric(key)
        x, y = a.get(key, empty)["samples"], b.get(key, empty)["samples"]
        if kind == "timeline":
            want = [p + q for p, q in zip(x, y)] + (x[len(y):] if len(x) > len(y) else y[len(x):])
            ran = [d[key.split(".")[0] + ".ran_s"]["samples"][0] for d in (a, b)
                   if key.split(".")[0] + ".ran_s" in d]
            if ran:
                want = want[:max(1, int(min(ran)))]
        elif kind == "span":
            want = [min(x + y)]
        elif kind == "count":
            want = [sum(x) + sum(y)]
        else:
            want = sorted(x + y)
    got = sorted(v["samples"]) if kind == "samples" else v["samples"]
    if got != want:
        print("ASSERTION: %s (%s): merged %s, expected %s" % (key, kind, got[:5], want[:5]))
    kinds[kind].append(metric)
gauges = {re.sub(r"^(c\d+)\.(?:shard|input)\d+\.", r"\1.", k) for k in m}
missing = (set(a) | set(b)) - set(m) - gauges
if missing:
    print("ASSERTION: keys lost by the merge: %s" % sorted(missing))
for kind in sorted(kinds):
    print("%s: %s" % (kind, " ".join(sorted(set(kinds[kind])))))
PY
}

t_merge_shards_of_httpload_types_every_metric() {
    # levels of 1.5 s: each loop's tick at 1 s falls inside the level, so
    # every shard has loop_lag_ms (doc/output-format.md: absent for a level
    # of a second or less, whose tick races the deadline), and one whole
    # second gives one generator_rss_bytes sample
    http_run raw0 --levels 1,2 -d 1.5s || return
    http_run raw1 --levels 1,2 -d 1.5s || return
    shardify raw0 s0 0 2
    shardify raw1 s1 1 2
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge --shards "$W/s0.json" "$W/s1.json"
    assert_eq "$RC" 0 "merge --shards of a complete set"
    assert_empty_file "$W/err" "nothing to warn about"
    doc "$W/m.json" --invariants "levels()==[2,4]" "v('c4.connections')==4" \
        "n('c4.latency_cold_ms')==4" "n('c2.latency_cold_ms')==2" \
        "n('c2.shard0.generator_rss_bytes')==n('c2.shard1.generator_rss_bytes')==1"
    merged_by_kind "$W/s0.json" "$W/s1.json" "$W/m.json" >"$W/kinds"
    cat "$W/kinds"
    local c
    for c in attempts requests errors unfinished connections reconnects bytes_received; do
        grep -q "^count: .*\b$c\b" "$W/kinds" || fail "$c was not merged as a count"
    done
    for c in latency_cold_ms latency_warm_ms connect_ms ttfb_ms; do
        grep -q "^samples: .*\b$c\b" "$W/kinds" || fail "$c was not pooled as samples"
    done
    for c in generator_rss_bytes loop_lag_ms; do
        grep -q "^gauge: .*\b$c\b" "$W/kinds" || fail "$c was not kept apart per shard"
    done
    grep -q "^timeline: errors_per_second generator_cpu_s requests_per_second$" "$W/kinds" ||
        fail "requests_per_second, errors_per_second and generator_cpu_s not added second by second"
    grep -q "^span: ran_s$" "$W/kinds" || fail "ran_s was not merged as the shortest span"
}

t_merge_shards_of_dnsload_sums_rcodes_one_shard_lacks() {
    need_knot || { fail "knot did not start"; return; }
    local i name
    for i in 0 1; do
        name=www.example.test
        [ "$i" = 1 ] && name=nothing.example.test
        # errors (a timeout on a loaded machine) are merged like any count
        run_tool "$W/draw$i.json" "$W/draw$i.err" "$DNSLOAD" -q -s 127.0.0.1 -p "$KNOT_PORT" \
            --query "$name A" -c 2 -d 1s --max-error-rate 1 --meta "$W/draw$i.meta.json"
        assert_eq "$RC" 0 "dnsload shard $i: $(cat "$W/draw$i.err")"
        shardify draw$i ds$i $i 2
    done
    doc "$W/ds1.json" "v('c4.rcode.NXDOMAIN')>0" "not has('c4.rcode.NOERROR')"
    doc "$W/ds0.json" "v('c4.rcode.NOERROR')>0" "not has('c4.rcode.NXDOMAIN')"
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge --shards "$W/ds0.json" "$W/ds1.json"
    assert_eq "$RC" 0 "merge --shards of dnsload shards"
    assert_empty_file "$W/err" "a count one shard lacks is not warned about"
    merged_by_kind "$W/ds0.json" "$W/ds1.json" "$W/m.json" >"$W/kinds"
    cat "$W/kinds"
    grep -q "^count: .*rcode.NOERROR .*rcode.NXDOMAIN" "$W/kinds" || fail "rcodes not summed"
    doc "$W/m.json" --invariants "v('c4.rcode.NOERROR')+v('c4.rcode.NXDOMAIN')==v('c4.requests')"
}

t_merge_shards_refuses_incomplete_or_foreign_sets() {
    write_run "$W/x.json" "1, 2"
    python3 - "$W" <<'PY' || fail "writing the shard descriptors"
import json, sys
w = sys.argv[1]
def meta(name, index, count, run_id="r1"):
    json.dump({"tool": "httpload", "run_id": run_id, "shard": {"index": index, "count": count},
               "levels": [{"clients": 1, "shard_clients": 1 if index == 0 else 0, "sampled": []},
                          {"clients": 64, "shard_clients": 64 // count + (index < 64 % count), "sampled": []}]},
              open("%s/%s.meta.json" % (w, name), "w"))
for name, index, count, run_id in [("p0", 0, 3, "r1"), ("p2", 2, 3, "r1"), ("q2", 2, 3, "r1"),
                                   ("r1", 1, 3, "other"), ("n1", 1, 4, "r1")]:
    meta(name, index, count, run_id)
PY
    local f
    for f in p0 p2 q2 r1 n1 nometa; do cp "$W/x.json" "$W/$f.json"; done
    # a missing shard: refused, named, nothing written
    run_tool "$W/out" "$W/err" "$LOADSTATS" merge --shards "$W/p0.json" "$W/p2.json"
    assert_eq "$RC" 1 "an incomplete set is refused"
    assert_empty_file "$W/out"
    assert_contains "$W/err" "shard 1 of 3 is missing"
    assert_contains "$W/err" "--allow-partial"
    # --allow-partial: merged, said on stderr, exit 3
    run_tool "$W/out" "$W/err" "$LOADSTATS" merge --shards --allow-partial "$W/p0.json" "$W/p2.json"
    assert_eq "$RC" 3 "--allow-partial merges and exits 3"
    assert_contains "$W/err" "shard 1 of 3 is missing"
    assert_contains "$W/err" "merging the 2 shards present anyway"
    assert_eq "$(json_get "$W/out" metrics c64.attempts samples)" "[12800]"
    # duplicated index, foreign run id, other shard count, no descriptor: one line each
    run_tool "$W/out" "$W/err" "$LOADSTATS" merge --shards --allow-partial "$W/p0.json" \
        "$W/p2.json" "$W/q2.json" "$W/r1.json" "$W/n1.json" "$W/nometa.json"
    assert_eq "$RC" 1 "a foreign set is refused even with --allow-partial"
    assert_empty_file "$W/out"
    assert_contains "$W/err" "p2.json and .*q2.json are both shard 2 of 3"
    assert_contains "$W/err" 'r1.json: run id "other" differs from "r1" in .*p0.json'
    assert_contains "$W/err" "n1.json: shard 1 of 4, but .*p0.json is shard 0 of 3"
    assert_contains "$W/err" "nometa.json: no valid shard descriptor .*nometa.meta.json (cannot open"
    assert_eq "$(grep -c 'refusing the set' "$W/err")" 1 "one closing line"
    assert_eq "$(wc -l <"$W/err")" 5 "one line per problem, and the closing line"
    # --shards reads descriptors: stdin has none
    run_tool "$W/out" "$W/err" "$LOADSTATS" merge --shards - <"$W/p0.json"
    assert_eq "$RC" 2 "--shards with stdin is a usage error"
    run_tool "$W/out" "$W/err" "$LOADSTATS" merge --allow-partial "$W/p0.json"
    assert_eq "$RC" 2 "--allow-partial without --shards"
}

t_merge_shards_warns_clock_and_refuses_a_late_start() {
    http_run raw0 -c 1 -d 1s || return
    http_run raw1 -c 1 -d 1s || return
    shardify raw0 w0 0 2 --unsynchronized
    shardify raw1 w1 1 2 --lag 0.2
    # its seconds are not the other shard's: refused, unless accepted
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge --shards "$W/w0.json" "$W/w1.json"
    assert_eq "$RC" 1 "a shard that started 0.2 s late"
    assert_empty_file "$W/m.json" "nothing merged"
    assert_contains "$W/err" "w1.json (shard 1 of 2, host gen1): level c2 started 0.200 s late (start_lag_s; more than --max-start-lag 0.05 s)"
    assert_contains "$W/err" "w0.json (shard 0 of 2, host gen0): clock not synchronized (estimated error 250000 us)"
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge --shards --accept-start-lag "$W/w0.json" "$W/w1.json"
    assert_eq "$RC" 0 "warnings only, with --accept-start-lag"
    assert_contains "$W/err" "w1.json (shard 1 of 2, host gen1): level c2 started 0.200 s late (more than --max-start-lag 0.05 s).* (merged anyway: --accept-start-lag)"
    assert_eq "$(wc -l <"$W/err")" 2 "two warnings"
    doc "$W/m.json" --invariants "v('c2.connections')==2"
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge --shards --max-start-lag 0.5 "$W/w0.json" "$W/w1.json"
    assert_eq "$RC" 0
    assert_eq "$(wc -l <"$W/err")" 1 "a wider bound leaves the clock warning"
}

t_merge_weights_shards_cut_by_max_samples() {
    # exact: shard A saw 9000 requests, kept 100 (all 1.0); B saw 1000, kept 100 (all 2.0)
    local s
    for s in A:1:9000:0 B:2:1000:1; do
        IFS=: read -r name value seen index <<<"$s"
        python3 - "$W/$name" "$value" "$seen" "$index" <<'PY' || fail "writing shard $name"
import json, sys
out, value, seen, index = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
json.dump({"metrics": {"c2.latency_warm_ms": {"unit": "milliseconds", "samples": [value] * 100},
                       "c2.requests": {"unit": "count", "samples": [seen]}}}, open(out + ".json", "w"))
json.dump({"run_id": None, "shard": {"index": index, "count": 2},
           "levels": [{"clients": 2, "shard_clients": 1, "sampled": ["latency_warm_ms"],
                       "seen": {"latency_warm_ms": seen}}]}, open(out + ".meta.json", "w"))
PY
    done
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge --shards --meta "$W/m.meta.json" "$W/A.json" "$W/B.json"
    assert_eq "$RC" 0 "weighted merge"
    python3 - "$W/m.json" <<'PY' || fail "the weighted merge's checker"
import json, sys
s = json.load(open(sys.argv[1]))["metrics"]["c2.latency_warm_ms"]["samples"]
if (len(s), s.count(1), s.count(2)) != (100, 90, 10):
    print("ASSERTION: expected 90 samples from A and 10 from B, got %d/%d of %d" % (s.count(1), s.count(2), len(s)))
PY
    assert_contains "$W/err" '"c2.latency_warm_ms": 100 of 10000 samples kept, drawn from each input in proportion'
    assert_eq "$(json_get "$W/m.meta.json" levels 0 seen latency_warm_ms)" 10000
    assert_eq "$(json_get "$W/m.meta.json" levels 0 sampled)" '["latency_warm_ms"]'
    # the same inputs and seed give the same document
    run_tool "$W/m2.json" "$W/err" "$LOADSTATS" merge --shards "$W/A.json" "$W/B.json"
    cmp -s "$W/m.json" "$W/m2.json" || fail "the merge is not reproducible"
    # --max-samples caps it further, in the same proportion
    run_tool "$W/m3.json" "$W/err" "$LOADSTATS" merge --max-samples 10 "$W/A.json" "$W/B.json"
    assert_eq "$(json_get "$W/m3.json" metrics c2.latency_warm_ms samples)" "[1, 1, 1, 1, 1, 1, 1, 1, 1, 2]"

    # real shards cut by --max-samples, the true counts in their descriptors
    http_run raw0 -c 1 -d 1s --max-samples 200 || return
    http_run raw1 -c 1 -d 1s --max-samples 200 || return
    shardify raw0 c0 0 2
    shardify raw1 c1 1 2
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge --shards --meta "$W/m.meta.json" "$W/c0.json" "$W/c1.json"
    assert_eq "$RC" 0 "weighted merge of real shards"
    doc "$W/m.json" "n('c2.latency_warm_ms')==200" "n('c2.ttfb_ms')==200"
    local seen
    seen=$(python3 -c 'import json,sys; print(sum(json.load(open(f))["levels"][0]["seen"]["ttfb_ms"] for f in sys.argv[1:]))' \
        "$W/c0.meta.json" "$W/c1.meta.json")
    assert_eq "$(json_get "$W/m.meta.json" levels 0 seen ttfb_ms)" "$seen" "the merged descriptor's true count"
    doc "$W/m.json" "v('c2.requests')==$seen"
    assert_contains "$W/err" "\"c2.ttfb_ms\": 200 of $seen samples kept"
    # a descriptor that lists a cut metric without its true count: refused, as
    # pooling it unweighted would stand its samples for too few requests
    shardify raw0 u0 0 2 --no-seen
    shardify raw1 u1 1 2 --no-seen
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge --shards "$W/u0.json" "$W/u1.json"
    assert_eq "$RC" 1
    assert_empty_file "$W/m.json" "nothing merged"
    assert_contains "$W/err" "u0.json: c2.latency_warm_ms was cut (its descriptor lists it in \"sampled\"), but .*u0.meta.json has no true count (\"seen\") to weigh it by; refusing"
    # an invalid descriptor beside a document stops a plain merge too
    printf '{"levels": 3}' >"$W/c1.meta.json"
    run_tool "$W/out" "$W/err" "$LOADSTATS" merge "$W/c0.json" "$W/c1.json"
    assert_eq "$RC" 1 "an invalid descriptor"
    assert_contains "$W/err" "c1.meta.json: levels must be an array"
}

# --- export ---------------------------------------------------------------------

# real_docs: $W/h.json from httpload against nginx (levels 1 and 2), $W/d.json
# from dnsload against knot (NOERROR and NXDOMAIN answers).
real_docs() {
    [ -s "$W/h.json" ] && [ -s "$W/d.json" ] && return 0
    need_nginx || { fail "nginx did not start"; return 1; }
    need_knot || { fail "knot did not start"; return 1; }
    run_tool "$W/h.json" "$W/h.err" "$HTTPLOAD" -q --levels 1,2 -d 1s --max-samples 3000 \
        "http://127.0.0.1:$NGINX_HTTP_PORT/"
    assert_eq "$RC" 0 "httpload"
    # A query timing out on a loaded machine is dnsload's business (t_dnsload.sh);
    # here the document is only the input, errors or not.
    run_tool "$W/d.json" "$W/d.err" "$DNSLOAD" -q -s 127.0.0.1 -p "$KNOT_PORT" -c 2 -d 1s \
        --max-error-rate 1 --query "www.example.test A" --query "nothing.example.test A"
    assert_eq "$RC" 0 "dnsload: $(cat "$W/d.err")"
    [ -s "$W/h.json" ] && [ -s "$W/d.json" ]
}

# a python3 that has Debian's python3-prometheus-client (a pyenv python3 first on PATH may not)
om_python() {
    local p
    for p in python3 /usr/bin/python3; do
        "$p" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null && { echo "$p"; return 0; }
    done
    return 1
}

t_export_openmetrics_parses_and_matches_the_samples() {
    real_docs || return
    local py
    py=$(om_python) || { echo "skip: python3-prometheus-client is not installed"; fail "skip: no prometheus_client to parse OpenMetrics"; return; }
    local f
    for f in h d; do
        run_tool "$W/$f.om" "$W/err" "$LOADSTATS" export --format openmetrics "$W/$f.json"
        assert_eq "$RC" 0 "export openmetrics of $f.json"
        assert_empty_file "$W/err"
        run_tool "$W/$f.sum" "$W/err" "$LOADSTATS" summary --json "$W/$f.json"
        assert_eq "$RC" 0 "summary --json of $f.json"
        "$py" - "$W/$f.json" "$W/$f.om" "$W/$f.sum" "$TESTDIR" <<'PY' || fail "the OpenMetrics checker of $f.json"
import json, math, re, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
sys.path.insert(0, sys.argv[4])
import metrickinds
doc = json.load(open(sys.argv[1]))["metrics"]
text = open(sys.argv[2]).read()
summary = json.load(open(sys.argv[3]))
def bad(msg):
    print("ASSERTION: " + msg)
# the parser is strict: the same text without its # EOF is refused
try:
    list(text_string_to_metric_families(text.replace("# EOF\n", "")))
    bad("the parser accepted a text without # EOF")
except ValueError:
    pass
families = {f.name: f for f in text_string_to_metric_families(text)}
def percentile(xs, q):  # summary's definition: rank q(n-1), interpolated
    rank = q * (len(xs) - 1)
    lo = math.floor(rank)
    if lo + 1 >= len(xs) or rank == lo:
        return xs[lo]
    return xs[lo] + (xs[lo + 1] - xs[lo]) * (rank - lo)
seen = 0
for key, m in doc.items():
    clients, metric = key[1:].split(".", 1)
    name = "loadgen_" + re.sub(r"[^A-Za-z0-9_]", "_", metric)
    if name not in families:
        bad("%s: no family %s" % (key, name)); continue
    fam = families[name]
    samples = {(s.name, s.labels.get("quantile")): s.value for s in fam.samples if s.labels["clients"] == clients}
    xs = sorted(m["samples"])
    if metrickinds.kind(key, m["unit"]) == "count":
        if fam.type != "counter" or samples != {(name + "_total", None): xs[0]}:
            bad("%s: counter %s %s, expected %s" % (key, fam.type, samples, xs[0]))
    else:
        want = {(name, str(q) if q not in (0, 1) else str(q)): percentile(xs, q) for q in (0, 0.5, 0.9, 0.95, 0.99, 0.999, 1)}
        want = {(name, q): v for (n, q), v in want.items()}
        want[(name + "_count", None)] = len(xs)
        want[(name + "_sum", None)] = sum(xs)
        if fam.type != "summary" or samples != want:
            bad("%s: summary %s\n  expected %s" % (key, sorted(samples.items())[:3], sorted(want.items())[:3]))
        s = summary[key]
        for q, field in ((0.5, "median"), (0.9, "p90"), (0.99, "p99"), (0.999, "p999"), (1, "max"), (0, "min")):
            if abs(samples[(name, str(q))] - s[field]) > 0.005 + 1e-9:
                bad("%s: quantile %s is %s, summary's %s is %s" % (key, q, samples[(name, str(q))], field, s[field]))
    seen += 1
print("checked %d metrics in %d families" % (seen, len(families)))
PY
    done
    grep -q '^loadgen_rcode_NXDOMAIN_total{clients="2"} [1-9]' "$W/d.om" || fail "no rcode.NXDOMAIN counter"
    grep -q '^# UNIT loadgen_generator_rss_bytes bytes$' "$W/h.om" || fail "no UNIT for a _bytes metric"
    tail -n 1 "$W/h.om" | grep -qx '# EOF' || fail "the text does not end in # EOF"
}

t_export_csv_has_a_row_per_sample() {
    real_docs || return
    run_tool "$W/h.csv" "$W/err" "$LOADSTATS" export -f csv "$W/h.json"
    assert_eq "$RC" 0 "export csv"
    run_tool "$W/hs.csv" "$W/err" "$LOADSTATS" export -f csv-summary "$W/h.json"
    assert_eq "$RC" 0 "export csv-summary"
    run_tool "$W/h.sum" "$W/err" "$LOADSTATS" summary --json "$W/h.json"
    assert_eq "$RC" 0 "summary --json"
    python3 - "$W/h.json" "$W/h.csv" "$W/hs.csv" "$W/h.sum" <<'PY' || fail "the CSV checker"
import csv, json, sys
doc = json.load(open(sys.argv[1]))["metrics"]
raw = open(sys.argv[2], newline="").read()
if raw.count("\r\n") != raw.count("\n"):
    print("ASSERTION: csv lines do not all end in CRLF")
rows = list(csv.reader(open(sys.argv[2], newline="")))
if rows[0] != ["clients", "metric", "unit", "sample", "value"]:
    print("ASSERTION: header %s" % rows[0])
total = sum(len(m["samples"]) for m in doc.values())
if len(rows) - 1 != total:
    print("ASSERTION: %d rows for %d samples" % (len(rows) - 1, total))
got = {}
for clients, metric, unit, index, value in rows[1:]:
    got.setdefault("c%s.%s" % (clients, metric), []).append((int(index), float(value), unit))
for key, m in doc.items():
    want = [(i + 1, v, m["unit"]) for i, v in enumerate(m["samples"])]
    if got.get(key) != want:
        print("ASSERTION: %s: csv rows differ from the samples" % key)
summary = json.load(open(sys.argv[4]))
rows = list(csv.DictReader(open(sys.argv[3], newline="")))
if len(rows) != len(doc):
    print("ASSERTION: %d summary rows for %d metrics" % (len(rows), len(doc)))
for r in rows:
    s = summary["c%s.%s" % (r["clients"], r["metric"])]
    for field, value in s.items():
        if float(r[field]) != value:
            print("ASSERTION: %s %s: csv %s, summary %s" % (r["metric"], field, r[field], value))
print("%d sample rows, %d summary rows" % (total, len(rows)))
PY
    # RFC 4180 quoting of a name with a comma and a quote, read back exactly
    python3 -c 'import json,sys; json.dump({"metrics": {"c3.we,ird\"name_ms": {"unit": "milliseconds", "samples": [1.5, 2]}, "nolevel": {"unit": "count", "samples": [7]}}}, open(sys.argv[1], "w"))' "$W/q.json"
    run_tool "$W/q.csv" "$W/err" "$LOADSTATS" export -f csv "$W/q.json"
    assert_eq "$RC" 0
    assert_eq "$(sed -n 2p "$W/q.csv" | tr -d '\r')" '3,"we,ird""name_ms",milliseconds,1,1.5'
    assert_eq "$(sed -n 4p "$W/q.csv" | tr -d '\r')" ',nolevel,count,1,7'
    python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1], newline=""))); sys.exit(r[1][1] != "we,ird\"name_ms")' "$W/q.csv" ||
        fail "python's csv module does not read the quoted name back"
    run_tool "$W/q1.csv" "$W/err" "$LOADSTATS" export -f csv -m nolevel "$W/q.json"
    assert_eq "$(wc -l <"$W/q1.csv")" 2 "--metric keeps one metric"
}

t_export_hgrm_matches_hdrhistogram_layout_and_summary() {
    real_docs || return
    local k=c2.latency_warm_ms
    run_tool "$W/h.hgrm" "$W/err" "$LOADSTATS" export -f hgrm -m $k --decimals 6 "$W/h.json"
    assert_eq "$RC" 0 "export hgrm"
    run_tool "$W/h.sum" "$W/err" "$LOADSTATS" summary --json "$W/h.json"
    assert_eq "$RC" 0 "summary --json"
    python3 - "$W/h.json" "$W/h.hgrm" "$W/h.sum" "$k" <<'PY' || fail "the hgrm checker"
import json, math, sys
xs = sorted(json.load(open(sys.argv[1]))["metrics"][sys.argv[4]]["samples"])
lines = open(sys.argv[2]).read().split("\n")
s = json.load(open(sys.argv[3]))[sys.argv[4]]
n = len(xs)
def bad(msg):
    print("ASSERTION: " + msg)
if lines[0] != "       Value     Percentile TotalCount 1/(1-Percentile)" or lines[1] != "":
    bad("header %r" % lines[:2])
body = [l for l in lines[2:] if l and not l.startswith("#")]
foot = [l for l in lines if l.startswith("#")]
def percentile(q):
    rank = q * (n - 1)
    lo = math.floor(rank)
    return xs[lo] if lo + 1 >= n or rank == lo else xs[lo] + (xs[lo + 1] - xs[lo]) * (rank - lo)
# HdrHistogram's PercentileIterator: 5 ticks per half-distance, until the
# nearest-rank sample is the largest, then 100%
level, want = 0.0, []
while True:
    want.append(level)
    rank = next(i for i in range(n) if 100.0 * (i + 1) / n >= level)
    if xs[rank] == xs[-1]:
        break
    level += 100.0 / (5 * 2 ** (int(math.log(100.0 / (100.0 - level)) / math.log(2)) + 1))
if len(body) != len(want) + 1:
    bad("%d lines, HdrHistogram would print %d" % (len(body), len(want) + 1))
for line, lvl in zip(body, want):
    value, pct, count, inv = line.split()
    q = lvl / 100
    if pct != "%.12f" % q or abs(float(value) - percentile(q)) > 6e-7 or inv != "%.2f" % (1 / (1 - q)):
        bad("line %r for level %s, value %s" % (line, lvl, percentile(q)))
    if int(count) != sum(1 for x in xs if x <= percentile(q)):
        bad("line %r: TotalCount is not the samples at or below the value" % line)
    if lvl == 50 and abs(float(value) - s["median"]) > 0.005 + 1e-6:
        bad("50%% line %s, summary median %s" % (value, s["median"]))
    if lvl == 90 and abs(float(value) - s["p90"]) > 0.005 + 1e-6:
        bad("90%% line %s, summary p90 %s" % (value, s["p90"]))
last = body[-1].split()
if len(last) != 3 or last[1] != "1.000000000000" or int(last[2]) != n or abs(float(last[0]) - xs[-1]) > 6e-7:
    bad("last line %r" % body[-1])
if abs(float(body[0].split()[0]) - s["min"]) > 0.005 + 1e-6:
    bad("first value is not the minimum")
mean = float(foot[0].split("=")[1].split(",")[0])
std = float(foot[0].split("=")[2].rstrip("]"))
if abs(mean - s["mean"]) > 0.005 + 1e-6 or abs(std - s["stddev"]) > 0.005 + 1e-6:
    bad("footer mean/stddev %s/%s, summary %s/%s" % (mean, std, s["mean"], s["stddev"]))
if "Total count    = %12d]" % n not in foot[1] or "Buckets = %12d, SubBuckets     =            1]" % len(set(xs)) not in foot[2]:
    bad("footer %r" % foot)
print("%d lines for %d samples" % (len(body), n))
PY
    # the default is HdrHistogram's usual three decimals
    run_tool "$W/h3.hgrm" "$W/err" "$LOADSTATS" export -f hgrm -m $k "$W/h.json"
    sed -n 3p "$W/h3.hgrm" | grep -Eq '^ +[0-9]+\.[0-9]{3} 0\.000000000000 +1 +1\.00$' ||
        fail "first line: $(sed -n 3p "$W/h3.hgrm")"
}

t_export_refuses_bad_usage_and_input() {
    write_run "$W/e.json" "1, 2"
    local args
    for args in "export $W/e.json" "export -f xml $W/e.json" "export -f hgrm $W/e.json" \
        "export -f hgrm -m a -m b $W/e.json" "export -f csv" "export -f hgrm -m c1.latency_warm_ms --ticks 0 $W/e.json"; do
        # shellcheck disable=SC2086
        run_tool "$W/out" "$W/err" "$LOADSTATS" $args
        assert_eq "$RC" 2 "exit status of 'loadstats $args'"
        assert_empty_file "$W/out"
        assert_eq "$(wc -l <"$W/err")" 1 "one line for 'loadstats $args'"
    done
    run_tool "$W/out" "$W/err" "$LOADSTATS" export -f hgrm -m c9.latency_warm_ms "$W/e.json"
    assert_eq "$RC" 1 "a --metric the document lacks"
    assert_contains "$W/err" 'has no metric "c9.latency_warm_ms"'
    printf '{"metrics": {"c1.x": {"unit": "count", "samples": [1]}, "c1.y": {"unit": "count", "samples": []}}}' >"$W/bad.json"
    run_tool "$W/out" "$W/err" "$LOADSTATS" export -f csv -o "$W/bad.csv" "$W/bad.json"
    assert_eq "$RC" 1 "an invalid document"
    assert_contains "$W/err" "samples is empty"
    [ -e "$W/bad.csv" ] && fail "an invalid document left a half-written CSV"
    printf '{"metrics": {"c1.a.b_ms": {"unit": "milliseconds", "samples": [1]}, "c1.a_b_ms": {"unit": "milliseconds", "samples": [1]}}}' >"$W/clash.json"
    run_tool "$W/out" "$W/err" "$LOADSTATS" export -f openmetrics "$W/clash.json"
    assert_eq "$RC" 1 "names that sanitize alike"
    assert_contains "$W/err" '"a.b_ms" and "a_b_ms" both become loadgen_a_b_ms'
}

t_plot_svg_parses_and_renders() {
    python3 - "$W/p.json" <<'PY' || fail "writing the plot's document"
import json, random, sys
random.seed(1)
m = {}
for c in (1, 16, 64):
    m[f"c{c}.latency_cold_ms"] = {"unit": "milliseconds", "samples": [round(2 + random.expovariate(1), 3) for _ in range(500)]}
    m[f"c{c}.latency_warm_ms"] = {"unit": "milliseconds", "samples": [round(0.3 + random.expovariate(5) * c / 16, 3) for _ in range(5000)]}
    m[f"c{c}.requests_per_second"] = {"unit": "requests_per_second", "samples": [1000 * c ** 0.5 + random.randint(-50, 50) for _ in range(10)]}
    m[f"c{c}.errors"] = {"unit": "count", "samples": [0]}
json.dump({"metrics": m}, open(sys.argv[1], "w"))
PY
    run_tool "$W/out" "$W/err" "$LOADSTATS" plot "$W/p.json" -o "$W/p.svg"
    assert_eq "$RC" 0 "plot"
    assert_empty_file "$W/out"
    xmllint --noout "$W/p.svg" || fail "the SVG does not parse"
    assert_contains "$W/p.svg" "99.99%"
    assert_contains "$W/p.svg" "latency (ms)"
    assert_contains "$W/p.svg" "latency_cold_ms"
    assert_contains "$W/p.svg" "c64: 64 clients"
    rsvg-convert "$W/p.svg" -o "$W/p.png" || fail "rsvg-convert cannot render the SVG"
    [ -s "$W/p.png" ] || fail "the rendered PNG is empty"
    printf '{"metrics": {"c1.errors": {"unit": "count", "samples": [0]}}}' >"$W/none.json"
    run_tool "$W/out" "$W/err" "$LOADSTATS" plot "$W/none.json" -o "$W/none.svg"
    assert_eq "$RC" 1 "nothing to draw"
    assert_contains "$W/err" "nothing to draw"
}

# The report's reading of documents and descriptors, on both builds (the
# browser checks are in t_report.sh, once): a real run with --watch and an
# open loop, an A/B of a list, a descriptor full of odd strings, one that is
# not JSON, and a document with odd level and error-class names; each page
# must be well-formed XML with the untrusted text escaped.
t_report_reads_real_runs_and_odd_descriptors() {
    need_nginx || { fail "nginx did not start"; return 1; }
    local r=$W/report
    mkdir -p $r
    # (a loaded machine may leave a request of the open loop unsent: what
    # matters here is how the report reads the document, not its counts)
    run_tool $r/a.json $r/a.err "$HTTPLOAD" -q --levels 1,2 -d 1s --rate 200 --max-error-rate 1 \
        --watch "nginx=pidfile:$SRV/nginx/nginx.pid" --meta $r/a.meta.json \
        "http://127.0.0.1:$NGINX_HTTP_PORT/"
    assert_eq "$RC" 0 "httpload"
    cp $r/a.json $r/b.json
    cp $r/a.meta.json $r/b.meta.json
    run_tool $r/out $r/err "$LOADSTATS" report -o $r/a.html $r/a.json
    assert_eq "$RC" 0 "report of a run"
    run_tool $r/out $r/err "$LOADSTATS" report -o $r/ab.html --base $r/a.json,$r/b.json $r/b.json
    assert_eq "$RC" 0 "report of an A/B"
    python3 - $r/odd.meta.json <<'PY'
import json, sys
odd = "<script>alert(1)</script> & \"quotes\" 'single' \u00e9\u4e2d \x01\x1f end"
json.dump({"tool": odd, "version": odd, "target": odd, "argv": [odd, "", "a b"],
           "started_at": odd, "run_id": odd, "shard": {"index": 0, "count": 1},
           "exit_status": 3, "options": {odd: odd, "n": 1e300, "list": [odd, None, True]},
           "machine": {"memory_bytes": 123456789, odd: {"deep": [[[[[odd]]]]]}},
           "levels": [{"clients": 1, "seconds": 1, "error_reasons": {odd: odd}},
                      {"clients": -5}, "not an object"]},
          open(sys.argv[1], "w"))
PY
    run_tool $r/out $r/err "$LOADSTATS" report -o $r/odd.html --meta $r/odd.meta.json $r/a.json
    assert_eq "$RC" 0 "report with an odd descriptor"
    ! grep -q '<script' $r/odd.html || fail "a descriptor's text reached the page unescaped"
    assert_contains $r/odd.html "a level was invalid"
    echo 'not json' >$r/b.meta.json
    run_tool $r/out $r/err "$LOADSTATS" report -o $r/bad.html $r/b.json
    assert_eq "$RC" 0 "report beside a broken descriptor"
    assert_eq "$(wc -l <$r/err)" 1 "lines on stderr for a broken descriptor"
    assert_contains $r/bad.html "not a descriptor"
    # (names XML cannot hold: a control character, U+FFFF, and a tree's name
    # that a figure's legend cuts inside a character)
    python3 - $r/names.json <<'PY'
import json, sys
m = {"c18446744073709551615.requests": {"unit": "count", "samples": [1]},
     "c7.errors.<b>&amp;": {"unit": "count", "samples": [2]},
     "c7.errors.\uffff\u0007": {"unit": "count", "samples": [1]},
     "c7.watch.%s.cpu_s" % ("\u4e2d" * 40): {"unit": "seconds", "samples": [0.5]},
     "c7.watch.t.cpu_s": {"unit": "seconds", "samples": [0.5]},
     "c7.watch..cpu_s": {"unit": "seconds", "samples": [0.5]},
     "c7.watch.t.x.y.z.rss_bytes": {"unit": "bytes", "samples": [1, 2]},
     "c7.latency_warm_ms": {"unit": "seconds", "samples": [0.001] * 3},
     "c7.latency_warm_ms\u0001": {"unit": "milliseconds", "samples": [2, 3]},
     "c7.latency_<b>&amp;'_%s_ms" % ("\u4e2d" * 30): {"unit": "milliseconds", "samples": [4]},
     "c7.requests_per_second": {"unit": "requests_per_second", "samples": [5, 0, 7]}}
json.dump({"metrics": m}, open(sys.argv[1], "w"))
PY
    run_tool $r/out $r/err "$LOADSTATS" report -o $r/names.html $r/names.json
    assert_eq "$RC" 0 "report of odd metric names"
    # plot writes them with the report's writer: an SVG that parses, each
    # name shown, what XML cannot hold as '?' (a legend cuts the long one)
    run_tool $r/names.svg $r/err "$LOADSTATS" plot $r/names.json
    assert_eq "$RC" 0 "plot of odd metric names: $(head -c 300 $r/err)"
    python3 - $r/names.svg <<'PY' || fail "plot's SVG of odd metric names"
import sys
import xml.etree.ElementTree as ET
text = "".join(ET.parse(sys.argv[1]).getroot().itertext())
for want in ("latency_warm_ms (n=3,", "latency_warm_ms? (n=2,", "latency_<b>&amp;'_\u4e2d",
             "\u4e2d? (n=1,", "c7: 7 clients"):
    assert want in text, "%r is not in the SVG's text" % want
PY
    # the watch table's CPU is in cores, and its requests per CPU second is
    # the one summary prints (it once read cpu_s as milliseconds: 1000x off)
    "$LOADSTATS" summary $r/a.json >$r/summary.txt
    python3 - $r/a.html $r/summary.txt <<'PY' || fail "the watch table disagrees with summary"
import os, re, sys
import xml.etree.ElementTree as ET
X = "{http://www.w3.org/1999/xhtml}"
page = ET.parse(sys.argv[1]).getroot()
table = next(t for t in page.iter(X + "table") if t.get("class") == "watch")
# a level whose nginx used no whole clock tick of CPU (10 ms; at 200
# requests/s it may not) has no ratio: summary says n/a, the table's cell is empty
want = dict(re.findall(r"^  (c\d+)  nginx  ([\d.]+|n/a \(no CPU consumed\))$",
                       open(sys.argv[2]).read(), re.M))
assert len(want) == 2, want
seen = 0
for tr in table.iter(X + "tr"):
    cells = ["".join(c.itertext()) for c in tr]
    if tr.find(X + "td") is None or cells[2] != "(the whole tree)":
        continue
    cores = float(cells[3].replace(",", ""))
    assert 0 <= cores <= os.cpu_count(), cells
    if want[cells[0]].startswith("n/a"):
        assert cells[7] == "", (cells, want[cells[0]])
    else:
        got, exp = float(cells[7].replace(",", "")), float(want[cells[0]])
        assert abs(got - exp) <= 0.005 * exp + 0.01, (cells, exp)
    seen += 1
assert seen == 2, seen
PY
    local page
    for page in a ab odd bad names; do
        xmllint --noout $r/$page.html || fail "$page.html is not well-formed"
    done
}

run_tests
