#!/usr/bin/env bash
# Integration tests of the loadstats binary on documents written here: protocol
# check, summary numbers, compare exit codes, merge and plot. Needs no servers;
# the plot test needs xmllint (libxml2-utils) and rsvg-convert (librsvg2-bin).
# Run: BUILD=/path/to/build bash tests/integration/t_loadstats.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

W=$TMPROOT/loadstats
mkdir -p "$W"

# json_get FILE PATH...: one value out of a JSON file, e.g. json_get f.json c1.x n
json_get() {
    python3 - "$@" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v[k]
print(json.dumps(v))
PY
}

write_run() { # write_run FILE WARM_SAMPLES [RPS_SAMPLES]
    cat >"$1" <<JSON
collector: warming up (noise before the document is tolerated)
{"metrics": {
  "c1.latency_cold_ms": {"unit": "milliseconds", "samples": [3.0, 3.5]},
  "c1.latency_warm_ms": {"unit": "milliseconds", "samples": [$2]},
  "c1.requests_per_second": {"unit": "requests_per_second", "samples": [${3:-100, 110, 105}]},
  "c1.errors.timeout": {"unit": "count", "samples": [0]},
  "c64.latency_warm_ms": {"unit": "milliseconds", "samples": [$2]},
  "c64.requests": {"unit": "count", "samples": [6400]},
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
    assert_contains "$W/out" "latency_warm_ms *ms *2 *0.50"
    assert_contains "$W/out" "requests_per_second *req/s"
    local c1 c64
    c1=$(grep -n '^c1:' "$W/out" | cut -d: -f1)
    c64=$(grep -n '^c64:' "$W/out" | cut -d: -f1)
    assert_le "$c1" "$c64" "levels in ascending client count"
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
    for c in summary check compare merge plot; do
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

t_merge_combines_generators() {
    write_run "$W/a.json" "1, 2" "100, 110, 105"
    write_run "$W/b.json" "3" "10, 20, 30"
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge "$W/a.json" "$W/b.json"
    assert_eq "$RC" 0 "merge"
    run_tool "$W/out" "$W/err2" "$LOADSTATS" check "$W/m.json"
    assert_eq "$RC" 0 "the merged document is valid"
    assert_eq "$(json_get "$W/m.json" metrics c1.latency_warm_ms samples)" "[1, 2, 3]"
    assert_eq "$(json_get "$W/m.json" metrics c1.requests_per_second samples)" "[110, 130, 135]"
    assert_eq "$(json_get "$W/m.json" metrics c64.requests samples)" "[12800]"
    assert_eq "$(json_get "$W/m.json" metrics c1.errors.timeout unit)" '"count"'
    assert_eq "$(json_get "$W/m.json" metrics c64.watch.nginx.rss_bytes samples)" \
        "[1048576, 2097152, 1048576, 2097152]"
    # -o writes a file; stdin is one of the inputs
    run_tool "$W/out" "$W/err" "$LOADSTATS" merge -o "$W/m2.json" "$W/a.json" - <"$W/b.json"
    assert_eq "$RC" 0 "merge -o with stdin"
    assert_empty_file "$W/out"
    cmp -s "$W/m.json" "$W/m2.json" || fail "merge -o differs from merge to stdout"
}

t_merge_reports_partial_keys_and_conflicts() {
    write_run "$W/a.json" "1"
    printf '{"metrics": {"c1.latency_warm_ms": {"unit": "milliseconds", "samples": [2]}, "c1.only_here": {"unit": "count", "samples": [4]}}}' >"$W/b.json"
    run_tool "$W/m.json" "$W/err" "$LOADSTATS" merge "$W/a.json" "$W/b.json"
    assert_eq "$RC" 0 "partial keys are kept"
    assert_contains "$W/err" '"c1.only_here" is missing from .*a.json'
    assert_eq "$(json_get "$W/m.json" metrics c1.only_here samples)" "[4]"
    assert_eq "$(json_get "$W/m.json" metrics c1.latency_cold_ms samples)" "[3, 3.5]"
    printf '{"metrics": {"c1.latency_warm_ms": {"unit": "seconds", "samples": [0.002]}}}' >"$W/c.json"
    run_tool "$W/out" "$W/err" "$LOADSTATS" merge "$W/a.json" "$W/c.json"
    assert_eq "$RC" 1 "a unit conflict is an error"
    assert_contains "$W/err" 'unit conflict for "c1.latency_warm_ms"'
    assert_empty_file "$W/out"
}

t_plot_svg_parses_and_renders() {
    python3 - "$W/p.json" <<'PY'
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

run_tests
