#!/usr/bin/env bash
# Every invalid option or value of the three tools: exit status 2, exactly one
# line on stderr naming the option or file and what is wrong, nothing on
# stdout. One table row per case: expected text in the message | arguments.
source "$(dirname "$0")/lib.sh"

U=http://127.0.0.1:9/
echo "not a certificate" >"$TMPROOT/bad.pem"
printf 'www.example.test A\nbroken-line-without-type\n' >"$TMPROOT/bad.queries"
printf 'www.example.test NOSUCHTYPE\n' >"$TMPROOT/badtype.queries"
printf 'X-A: 1\nGET http://127.0.0.1:9/\n' >"$TMPROOT/bad.targets"
printf 'GET http://127.0.0.1:9/\nGET https://127.0.0.2:9/\n' >"$TMPROOT/origin.targets"
printf 'GET http://127.0.0.1:9/\n\nPOST http://127.0.0.1:9/b\n@/nonexistent/body.json\n' >"$TMPROOT/nobody.targets"
printf '# nothing but a comment\n' >"$TMPROOT/empty.targets"
printf 'GET http://127.0.0.1:9/\n' >"$TMPROOT/good.targets"

# expected substring | tool | arguments...
read -r -d '' HTTP_CASES <<'ROWS'
unknown option --bogus|httpload --bogus URL
unknown option --clinets: did you mean --clients?|httpload --clinets 5 URL
-rate: did you mean --rate? (an option's name takes two dashes)|httpload -rate 100 URL
-duration=10s: did you mean --duration=10s?|httpload -duration=10s URL
--streams: 'POST' is not a stream count from 1 to 1000; hey's and oha's -m (the method) is -X/--method here|httpload -m POST URL
unknown option -z: hey's and oha's -z (the duration) is -d/--duration here|httpload -z 10s URL
-q 100: -q is --quiet here and takes no value; hey's and oha's -q (a rate limit) is -R/--rate (in total) here|httpload -q 100 URL
--duration: 'x=1' is not a duration (examples: 500ms, 10s, 2m); oha's -d (the body) is --data here|httpload -d x=1 URL
unknown option -D: hey's -D (a body file) is --data @FILE here|httpload -D body.json URL
unknown option -T: hey's -T (the content type) is -H 'Content-Type: T' here|httpload -T application/json URL
--header: '-rate' is not a header|httpload -H -rate URL
option --insecure takes no value|httpload --insecure=1 URL
option --quiet takes no value|httpload --quiet=yes URL
--retry-delay: 'soon'|httpload --retry-delay soon URL
--shard: '4/4'|httpload --shard 4/4 URL
--shard: '1'|httpload --shard 1 URL
--start-at: '2026-12-01T10:00:00'|httpload --start-at 2026-12-01T10:00:00 URL
--start-at: '@x'|httpload --start-at @x URL
--max-late: 'never'|httpload --max-late never URL
--max-timer-floor: 'soon'|httpload --max-timer-floor soon URL
--max-timer-floor: '500ns'|httpload --max-timer-floor 500ns URL
option --preflight takes no value|httpload --preflight=yes URL
--max-doc-bytes: '100'|httpload --max-doc-bytes 100 URL
--max-doc-bytes: '12Q'|httpload --max-doc-bytes 12Q URL
--clock-ref: '[::1'|httpload --clock-ref [::1 URL
--clients needs a value|httpload URL --clients
-c needs a value|httpload URL -c
--clients: '0'|httpload -c 0 URL
--clients: '-3'|httpload -c -3 URL
--clients: 'many'|httpload -c many URL
--threads: '0'|httpload -t 0 URL
--threads: '-1'|httpload -t -1 URL
--rate: '0'|httpload -R 0 URL
--rate: '-5'|httpload -R -5 URL
--requests: 5 is fewer than the 10 clients of level c10, each of which makes a request; give -n 10 or more|httpload -c 10 -n 5 URL
--requests: '0'|httpload -n 0 URL
--start-at needs --duration with -n in a closed loop|httpload -n 50 --start-at @2000000000 URL
--rate: '5m' is ambiguous: m is milli or mega|httpload -R 5m URL
--rate: '5K' is ambiguous: K is 1000 or 1024|httpload --rate 5K URL
--rate: '5/x' is not a rate (examples: 500, 5k, 1.5M, 500/s, 30k/1m)|httpload -R 5/x URL
--timeout: '0s'|httpload --timeout 0s URL
--source: 'localhost' is not an IPv4 or IPv6 address|httpload --source localhost URL
--source: '127.0.0.0/33': the prefix length is not from 0 to 32|httpload --source 127.0.0.0/33 URL
--source: '10.0.0.0/16' makes more than 1024 addresses in all|httpload --source 10.0.0.0/16 URL
--source: mixes IPv4 and IPv6 addresses|httpload --source 127.0.0.2,::1 URL
--source: an empty or overlong address in the list|httpload --source 127.0.0.2,,127.0.0.3 URL
--source: 192.0.2.1 is not an address of this machine|httpload --source 127.0.0.2,192.0.2.1 URL
--source: the target is a Unix socket, which has no source address|httpload --source 127.0.0.2 --unix /nonexistent.sock URL
--ramp: 'soon' is not a duration|httpload --ramp soon URL
--ramp: 10 s is not shorter than the level's 10 s|httpload --ramp 10s URL
--timeout: '-1s'|httpload --timeout -1s URL
--duration: '10parsecs'|httpload -d 10parsecs URL
--duration: '0'|httpload -d 0 URL
--levels: '1,,4'|httpload --levels 1,,4 URL
--levels: '1,a'|httpload --levels 1,a URL
--levels: '4,4'|httpload --levels 4,4 URL
--levels: ''|httpload --levels '' URL
--max-samples: '0'|httpload --max-samples 0 URL
--max-error-rate: '1.5'|httpload --max-error-rate 1.5 URL
--max-error-rate: '-0.1'|httpload --max-error-rate -0.1 URL
--seed: 'x'|httpload --seed x URL
--streams: '0'|httpload -m 0 URL
--http: '4'|httpload --http 4 URL
--http 3 needs an https:// URL|httpload --http 3 URL
--header: 'NoColon'|httpload -H NoColon URL
--header: ': empty'|httpload -H ': empty' URL
--proxy-header: 'bad'|httpload --proxy-header bad -x http://127.0.0.1:9 URL
--expect-status: '2xx'|httpload --expect-status 2xx URL
--expect-status: '300-200'|httpload --expect-status 300-200 URL
--method: 'GET POST'|httpload -X 'GET POST' URL
--data: cannot read|httpload --data @/nonexistent/body URL
--cacert|httpload --cacert /nonexistent/ca.pem https://127.0.0.1:9/
--cacert|httpload --cacert BADPEM https://127.0.0.1:9/
unexpected argument 'more'|httpload URL more
unsupported scheme|httpload ftp://127.0.0.1/
missing scheme|httpload 127.0.0.1:8080/
port out of range|httpload http://127.0.0.1:70000/
port out of range|httpload http://127.0.0.1:0/
cannot resolve|httpload http://no-such-host.invalid/
--proxy|httpload -x ftp://127.0.0.1:9 URL
--proxy|httpload -x https://127.0.0.1:9 URL
--proxy-tunnel needs --proxy|httpload --proxy-tunnel URL
--unix-socket: path|httpload --unix-socket /tmp/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa URL
cannot be combined|httpload --unix-socket /tmp/x -x http://127.0.0.1:9 URL
--streams|httpload --http 1.1 -m 4 URL
--meta|httpload -c 1 -d 100ms --meta /nonexistent/dir/meta.json URL_LIVE
--log|httpload -c 1 -d 100ms --log /nonexistent/dir/log.ndjson URL
--data: cannot read '/dev/zero': larger than 256 MiB|httpload --data @/dev/zero URL
bad.targets:1: 'X-A: 1' is not a request line|httpload --targets BADT
origin.targets:2: 'https://127.0.0.2:9/' is not http like the first target|httpload --targets ORIGINT
--resolve: 'a.test:443' is not HOST:PORT:ADDR|httpload --resolve a.test:443 URL
--resolve: 'a.test:443:b.test' has no IP address as ADDR|httpload --resolve a.test:443:b.test URL
--resolve: 'a.test:0:127.0.0.1' has no port|httpload --resolve a.test:0:127.0.0.1 URL
--resolve: 'a.test:443:[::1' has no IP address as ADDR|httpload --resolve a.test:443:[::1 URL
--resolve needs a value|httpload URL --resolve
unknown option --reslove: did you mean --resolve?|httpload --reslove a.test:443:127.0.0.1 URL
--connect-to: 'a.test:443:b.test' is not HOST:PORT:HOST2:PORT2|httpload --connect-to a.test:443:b.test URL
unknown option --conect-to: did you mean --connect-to?|httpload --conect-to a.test:443:b.test:1 URL
URL: cannot resolve 'nosuch.invalid'|httpload --resolve other.invalid:80:127.0.0.1 http://nosuch.invalid/
nobody.targets:4: cannot read the body file '/nonexistent/body.json'|httpload --targets NOBODYT
empty.targets: no targets|httpload --targets EMPTYT
--targets /nonexistent/list.txt: No such file|httpload --targets /nonexistent/list.txt
--targets gives the URLs|httpload --targets GOODT URL
--method: with --targets|httpload -X POST --targets GOODT
--targets-per-metric needs --targets|httpload --targets-per-metric URL
missing URL (or --targets FILE)|httpload -c 2
--conn-requests: '0'|httpload --conn-requests 0 URL
--conn-requests: 'many'|httpload --conn-requests many URL
--max-handshakes: '0'|httpload --max-handshakes 0 URL
--max-handshakes: 'few'|dnsload --max-handshakes few --transport dot --query 'a.test A'
ROWS

check_row() { # expected tool args...
    local want=$1 tool=$2
    shift 2
    local bin
    case $tool in
    httpload) bin=$HTTPLOAD ;;
    dnsload) bin=$DNSLOAD ;;
    loadstats) bin=$LOADSTATS ;;
    esac
    local args=() a
    for a in "$@"; do
        case $a in
        URL) args+=("$U") ;;
        URL_LIVE) args+=("$U") ;;
        BADPEM) args+=("$TMPROOT/bad.pem") ;;
        BADQ) args+=("$TMPROOT/bad.queries") ;;
        BADTYPEQ) args+=("$TMPROOT/badtype.queries") ;;
        BADT) args+=("$TMPROOT/bad.targets") ;;
        ORIGINT) args+=("$TMPROOT/origin.targets") ;;
        NOBODYT) args+=("$TMPROOT/nobody.targets") ;;
        EMPTYT) args+=("$TMPROOT/empty.targets") ;;
        GOODT) args+=("$TMPROOT/good.targets") ;;
        *) args+=("$a") ;;
        esac
    done
    run_tool "$TMPROOT/o" "$TMPROOT/e" "$bin" "${args[@]}"
    local lines
    lines=$(grep -c '' "$TMPROOT/e")
    if [ "$RC" != 2 ] || [ -s "$TMPROOT/o" ] || [ "$lines" != 1 ] || ! grep -qF -- "$want" "$TMPROOT/e"; then
        fail "$tool ${args[*]}: exit $RC, $(wc -c <"$TMPROOT/o") bytes on stdout, $lines stderr lines: $(head -c 300 "$TMPROOT/e") (wanted '$want')"
    fi
}

run_table() {
    local row want rest
    while IFS= read -r row; do
        [ -n "$row" ] || continue
        want=${row%%|*}
        rest=${row#*|}
        eval "check_row \"\$want\" $rest"
    done <<<"$1"
}

t_httpload_bad_input_table() {
    run_table "$HTTP_CASES"
}

t_dnsload_bad_input_table() {
    [ -x "$DNSLOAD" ] || { fail "dnsload not built"; return; }
    # the rows are part of the tree: without them nothing of dnsload is checked
    [ -n "${DNS_CASES:-}" ] || { fail "no DNS rows: $(dirname "$0")/badinput_dns.rows is missing or empty"; return; }
    run_table "$DNS_CASES"
}

t_loadstats_bad_input_table() {
    run_table "$(
        cat <<'ROWS'
unknown|loadstats frobnicate /dev/null
unknown command 'sumary': did you mean summary?|loadstats sumary /dev/null
unknown option --qiet: did you mean --quiet?|loadstats check --qiet /dev/null
/nonexistent/doc.json|loadstats summary /nonexistent/doc.json
/nonexistent/doc.json|loadstats check /nonexistent/doc.json
/nonexistent|loadstats compare /nonexistent/a.json /nonexistent/b.json
ROWS
    )"
}

t_dnsperf_hint_only_for_the_letter_dnsperf_users_type() {
    [ -x "$DNSLOAD" ] || { fail "dnsload not built"; return; }
    # --duration written out is this tool's own option: no word of dnsperf
    run_tool "$TMPROOT/o" "$TMPROOT/e" "$DNSLOAD" -s 127.0.0.1 --duration q.txt --query 'a.test A'
    assert_eq "$RC" 2 "exit status"
    assert_contains "$TMPROOT/e" "--duration: 'q.txt' is not a duration"
    assert_eq "$(count_lines dnsperf "$TMPROOT/e")" 0 "lines naming dnsperf"
    # --quiet followed by a number is an operand, not dnsperf's -q
    run_tool "$TMPROOT/o" "$TMPROOT/e" "$DNSLOAD" -s 127.0.0.1 --quiet 100 --query 'a.test A'
    assert_eq "$RC" 2 "exit status"
    assert_contains "$TMPROOT/e" "unexpected argument '100'"
}

t_too_many_clients_for_the_fd_limit_is_refused_up_front() {
    # ulimit -n sets the hard limit too, so the tool cannot raise it
    run_tool "$TMPROOT/o" "$TMPROOT/e" bash -c 'ulimit -n 64 && exec "$@"' _ "$HTTPLOAD" -c 1000 -d 1s "$U"
    assert_eq "$RC" 2 "exit status"
    assert_empty_file "$TMPROOT/o" "stdout"
    assert_contains "$TMPROOT/e" "limit is 64"
}

t_help_and_version_succeed() {
    run_tool "$TMPROOT/o" "$TMPROOT/e" "$HTTPLOAD" --help
    assert_eq "$RC" 0 "httpload --help"
    assert_contains "$TMPROOT/o" "--expect-status"
    run_tool "$TMPROOT/o" "$TMPROOT/e" "$HTTPLOAD" --version
    assert_eq "$RC" 0 "httpload --version"
}

[ -f "$(dirname "$0")/badinput_dns.rows" ] && DNS_CASES=$(cat "$(dirname "$0")/badinput_dns.rows")
run_tests
