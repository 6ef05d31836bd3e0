#!/usr/bin/env bash
# loadstats report: pages of real runs against nginx (one run; ten levels with
# --watch; an open loop; an A/B of run lists; a run that was not clean),
# rendered in headless Chromium, each page's DOM checked by reportcheck.py and
# a screenshot kept beside it (REPORT_SCREENSHOTS=DIR keeps them elsewhere).
# run: once
# (the page writer is plain formatting over the reader the ASan suite already
# runs in t_loadstats.sh; Chromium's start-up is what costs here, ~10 s a page
# on a busy machine, so the pages render in parallel, once each.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
need_nginx || exit 1

H=$HTTPLOAD
L=$LOADSTATS
URL=http://127.0.0.1:$NGINX_HTTP_PORT/
R=$TMPROOT/report
SHOTS=${REPORT_SCREENSHOTS:-$R}
mkdir -p "$R" "$SHOTS"
CHECK=$TESTDIR/reportcheck.py
NGINX_PID=$(cat "$SRV/nginx/nginx.pid")

# run NAME ARGS...: a real run, its document in $R/NAME.json and its
# descriptor beside it, where report finds it.
run() {
    local name=$1
    shift
    timeout -k 5 120 "$H" -q --meta "$R/$name.meta.json" "$@" >"$R/$name.json" 2>"$R/$name.err"
    echo $? >"$R/$name.rc"
}

# render NAME: Chromium loads $R/NAME.html (in the background; `wait` for it):
# its DOM in NAME.dom, its log in NAME.log, a screenshot in $SHOTS/NAME.png.
render() {
    local name=$1
    DBUS_SESSION_BUS_ADDRESS=disabled: timeout -k 5 150 chromium --headless --no-sandbox \
        --disable-gpu --no-first-run --disable-extensions --disable-background-networking \
        --user-data-dir="$R/profile-$name" --enable-logging=stderr --v=0 \
        --window-size=1200,2400 --screenshot="$SHOTS/$name.png" \
        --dump-dom "file://$R/$name.html" >"$R/$name.dom" 2>"$R/$name.log"
    echo $? >"$R/$name.render"
}

# the latency samples (cold and warm) of a `loadstats summary --json`
LATENCY_SAMPLES='
import json, sys
d = json.load(sys.stdin)
print(sum(v["n"] for k, v in d.items() if k.endswith(("latency_warm_ms", "latency_cold_ms"))))'

# Everything the tests look at is made once, up front: the runs one after
# another (they measure), then the pages, then the renders side by side.
run_everything() {
    run one -c 4 -d 1s "$URL"
    run one2 -c 4 -d 1s "$URL"
    run new -c 4 -d 1s "$URL"
    run levels --levels 1,2,3,4,5,6,7,8,9,10 -d 1s --watch "nginx=$NGINX_PID" "$URL"
    # unsent requests are allowed: the page shows them, the test is about the page
    run open --rate 400 --levels 2,4 -d 1s --max-error-rate 1 "$URL"
    # a port nothing listens on: every attempt is refused, the run is not clean
    run refused -c 2 -d 1s "http://127.0.0.1:$((LG_PORT_BASE + 1))/"
    "$L" report -o "$R/one.html" "$R/one.json" 2>"$R/one.report.err"
    "$L" report -o "$R/levels.html" "$R/levels.json" 2>"$R/levels.report.err"
    "$L" report -o "$R/open.html" "$R/open.json" 2>"$R/open.report.err"
    "$L" report -o "$R/ab.html" --base "$R/one.json,$R/one2.json" "$R/new.json" \
        2>"$R/ab.report.err"
    "$L" report -o "$R/refused.html" "$R/refused.json" 2>"$R/refused.report.err"
    local browser=
    command -v chromium >/dev/null && browser=yes
    # two at a time: the CI machine has two cores
    if [ -n "$browser" ]; then
        render one &
        render levels &
    fi
    # meanwhile: copies of the ten-level run pooled, for a page of over a
    # million samples (what the page draws follows levels, not samples; one
    # run given many times, which merge merges only when allowed)
    copies=$("$L" summary --json "$R/levels.json" | python3 -c "$LATENCY_SAMPLES" |
        awk '{ print int(1000000 / ($1 + 1)) + 1 }')
    "$L" merge --allow-duplicate $(for ((i = 0; i < copies; i++)); do echo "$R/levels.json"; done) \
        >"$R/million.json"
    "$L" report -o "$R/million.html" "$R/million.json" 2>"$R/million.report.err"
    wait
    if [ -n "$browser" ]; then
        render open &
        render ab &
        wait
    fi
}
run_everything

need_chromium() {
    command -v chromium >/dev/null || skip "chromium is not installed (Debian package chromium)"
}

# check PAGE EXPECTATION...: the page, its DOM and the browser's log.
check() {
    local page=$1
    shift
    assert_eq "$(cat "$R/$page.render")" 0 "chromium's exit status for $page"
    [ -s "$SHOTS/$page.png" ] || fail "no screenshot of $page"
    xmllint --noout "$R/$page.html" || fail "$page.html is not well-formed"
    python3 "$CHECK" "$R/$page.html" "$R/$page.dom" "$R/$page.log" "$@" || fail "$page: see above"
}

t_report_of_one_run_renders_in_chromium() {
    need_chromium
    assert_eq "$(cat "$R/one.rc")" 0 "httpload's exit status"
    assert_empty_file "$R/one.report.err"
    # one level: no figure across levels, and no empty section for them;
    # cold and warm apart; no verdict without a base
    check one figures=4 series:latency-cold=1 series:latency-warm=1 bars:phases=1 \
        series:requests-timeline=1 nofigure:knee nofigure:send-lag nofigure:errors-timeline \
        rows:counts=1 "text:exit status" "text:0 (clean)" "text:$URL" section:latency \
        nosection:levels-figures nosection:verdict count:cpu_model=1
}

t_report_of_ten_levels_with_watch_renders_and_stays_small() {
    need_chromium
    assert_eq "$(cat "$R/levels.rc")" 0 "httpload's exit status"
    # a curve, a bar and a timeline per level; the knee across them, marked
    check levels figures=8 series:latency-cold=10 series:latency-warm=10 legend:latency-warm=10 \
        bars:phases=10 series:requests-timeline=10 series:knee=1 marks:knee=1 \
        series:knee-latency=2 rows:counts=10 rows:latency=10 "text:requests per CPU second" \
        section:levels-figures \
        series:watch-cpu=1 series:watch-pss=1 legend:watch-pss=1 maxbytes=400000
    # --watch nginx: the tree and its one command name, per level
    python3 "$CHECK" "$R/levels.html" "$R/levels.html" /dev/null rows:watch=20 ||
        fail "the watch table"
}

t_report_of_a_million_samples_is_a_few_hundred_kb() {
    local n
    n=$("$L" summary --json "$R/million.json" | python3 -c "$LATENCY_SAMPLES")
    assert_ge "$n" 1000000 "latency samples in the pooled document"
    assert_empty_file "$R/million.report.err"
    assert_le "$(wc -c <"$R/million.html")" 400000 "bytes of the page of $n samples"
    echo "$n samples: $(wc -c <"$R/million.json") bytes of document, $(wc -c <"$R/million.html") of page"
}

t_report_of_an_open_loop_shows_schedule_and_send_lag() {
    need_chromium
    assert_eq "$(cat "$R/open.rc")" 0 "httpload's exit status"
    check open series:send-lag=2 series:latency-warm=2 rows:open-loop=2 \
        "text:requested rate" "text:scheduled = attempts + unsent"
}

t_report_ab_of_run_lists_overlays_base_and_new() {
    need_chromium
    assert_empty_file "$R/ab.report.err"
    # two base runs and one new: three curves, two legend entries (base, new)
    check ab series:latency-warm=3 legend:latency-warm=2 series:latency-cold=3 \
        legend:latency-cold=2 bars:phases=2 "text:Base against new" \
        "text:c4.latency_warm_ms" "text:base run 2" "text:new run 1"
    grep -q '<tr class="\(ok\|tiny\|noisy\|improved\|regressed\)"><td>' "$R/ab.html" ||
        fail "the A/B table has no judged row"
}

# The A/B page opens with compare's judgement in words, the same judgement
# `loadstats compare` makes of the same runs (not a second one): its warm
# latency and throughput clauses say what compare's rows say.
t_report_ab_opens_with_compare_s_verdict_in_words() {
    assert_empty_file "$R/ab.report.err"
    "$L" compare --json "$R/one.json,$R/one2.json" "$R/new.json" >"$R/ab.compare.json" || true
    python3 - "$R/ab.html" "$R/ab.compare.json" <<'PY' || fail "the A/B page's verdict"
import json, re, sys
import xml.etree.ElementTree as ET
X = "{http://www.w3.org/1999/xhtml}"
page = ET.parse(sys.argv[1]).getroot()
rows = json.load(open(sys.argv[2]))["comparisons"]
body = page.find(X + "body")
sections = [e for e in body if e.tag == X + "section"]
assert sections and sections[0].get("id") == "verdict", "the first section is %r" % sections[0].get("id")
words = "".join(sections[0].find(X + "p").itertext())
opening, _, clauses = words.partition(": ")
verdicts = [r["verdict"] for r in rows.values() if r["counted"]]
want = ("new is worse in some ways and better in others" if "regressed" in verdicts and "improved" in verdicts
        else "new is slower" if "regressed" in verdicts else "new is faster" if "improved" in verdicts
        else None)
assert want is None or opening == want, (opening, want, words)
assert want is not None or opening in ("no real difference", "no difference shown",
                                       "new is neither better nor worse, but it changed"), words
said = {"noisy": "not distinguishable from noise", "tiny": "but under 1 ms", "ok": "within x1.1",
        "regressed": "%", "improved": "%", "changed": "%"}
for key, name in (("c4.latency_warm_ms", "warm p50"), ("c4.requests_per_second", "throughput")):
    verdict = rows[key]["verdict"]
    if verdict == "ok":  # said together: "warm p50 and throughput within x1.1"
        clause = next(c for c in clauses.split("; ") if name in c)
    else:
        clause = next(c for c in clauses.split("; ") if c.startswith(name))
    assert said[verdict] in clause, (key, verdict, clause)
    if verdict in ("regressed", "improved"):
        pct = float(re.match(name + r" ([+-][\d.]+)%", clause).group(1))
        assert abs(pct - (rows[key]["ratio"] - 1) * 100) < 0.6, (clause, rows[key]["ratio"])
print("verdict: " + words)
PY
}

# The machine is said once, not once per run: what every run's descriptor
# says alike once, and apart only what differs; a run measured on another
# machine is called out, with how it differs.
t_report_says_the_machine_once_and_only_its_differences() {
    python3 - "$R/new.meta.json" "$R/other.meta.json" <<'PY'
import json, sys
meta = json.load(open(sys.argv[1]))
meta["machine"]["cpu_model"] = "Another CPU 9000"
json.dump(meta, open(sys.argv[2], "w"))
PY
    cp "$R/new.json" "$R/other.json"
    "$L" report -o "$R/machines.html" --base "$R/one.json,$R/one2.json" "$R/other.json" \
        2>"$R/machines.report.err"
    # each machine field once; the CPU model apart with each run's (and in the warning)
    python3 "$CHECK" "$R/machines.html" "$R/machines.html" /dev/null count:kernel=1 \
        count:logical_cpus=1 count:cpu_model=1 count:"Another CPU 9000"=2 \
        "text:new run 1 was measured on another machine than base run 1 (CPU model 'Another CPU 9000'" ||
        fail "the machines of runs that differ"
    python3 "$CHECK" "$R/ab.html" "$R/ab.html" /dev/null count:kernel=1 count:cpu_model=1 \
        nosection:levels-figures || fail "the machine of three runs on one"
}

t_report_says_what_an_unclean_run_means() {
    assert_eq "$(cat "$R/refused.rc")" 1 "httpload's exit status against a closed port"
    assert_empty_file "$R/refused.report.err"
    python3 "$CHECK" "$R/refused.html" "$R/refused.html" /dev/null "text:exceeded --max-error-rate" \
        "text:connect_refused" || fail "the unclean run's page"
}

t_report_refuses_bad_input_with_one_line() {
    local o=$TMPROOT/bad.html e=$TMPROOT/bad.err
    run_tool /dev/null $e "$L" report -o $o "$R/one.json,,$R/new.json"
    assert_eq "$RC" 2 "an empty item in a list"
    assert_eq "$(wc -l <$e)" 1 "lines of error"
    assert_contains $e "an empty name in the list of runs"
    run_tool /dev/null $e "$L" report -o $o --meta "$R/one.meta.json" "$R/one.json,$R/new.json"
    assert_eq "$RC" 2 "--meta with a list"
    assert_contains $e "names one descriptor"
    echo '{"metrics": {}}' >$TMPROOT/empty.json
    run_tool /dev/null $e "$L" report -o $o $TMPROOT/empty.json
    assert_eq "$RC" 1 "an invalid document"
    assert_eq "$(wc -l <$e)" 1 "lines of error"
    run_tool /dev/null $e "$L" report -o $o $TMPROOT/absent.json
    assert_eq "$RC" 2 "a missing document"
    [ ! -e $o ] || fail "a page was written for bad input"
    ! ls $TMPROOT/bad.html.*.tmp >/dev/null 2>&1 || fail "a temporary page was left behind"
    run_tool /dev/null $e "$L" report -o $o --meta $TMPROOT/absent.meta.json "$R/one.json"
    assert_eq "$RC" 2 "a named descriptor that does not exist"
    assert_contains $e "absent.meta.json"
}

run_tests
