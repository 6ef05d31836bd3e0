#!/usr/bin/env bash
# No allocation per request, on every path: each path runs twice, 0.3 s and
# 1.5 s, under tests/fixtures/alloccount.c (an LD_PRELOAD counter of malloc,
# calloc, realloc and the aligned ones), and the extra allocations of the
# longer run divided by its extra requests must stay below 0.05 (one
# allocation per request gives 1; start-up, the handshakes and the samples'
# doublings are the same few in both runs or grow with log(requests)). A
# count, not a timing. Over TLS, OpenSSL 3.0 made 4 per request (its record
# buffers and WPACKET structs) before loadgen/transport/tlsmem.c.
# run: once
# (an LD_PRELOAD allocator shim would sit behind the sanitizer's allocator)
# Run: BUILD=/path/to/build bash tests/integration/t_allocs.sh
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
source "$(dirname "$0")/servers_dns.sh"

W=$TMPROOT/allocs
mkdir -p "$W"
SO=$W/alloccount.so

# one_pair NAME CMD... (CMD holds @D@ where the duration goes): a 0.3 s and
# a 1.5 s run; sets DA and DR to the extra allocations and extra requests of
# the longer one.
one_pair() {
    local name=$1 d a r
    shift
    local -a counts=() reqs=()
    for d in 300ms 1500ms; do
        local args=() x
        for x in "$@"; do args+=("${x//@D@/$d}"); done
        rm -f "$W/$name.$d.count"
        run_tool "$W/$name.$d.json" "$W/$name.$d.err" env LD_PRELOAD="$SO" \
            ALLOCCOUNT_FILE="$W/$name.$d.count" "${args[@]}" -q --summary
        assert_eq "$RC" 0 "$name ($d) exit status"
        a=$(awk '{ print $2 }' "$W/$name.$d.count" 2>/dev/null)
        r=$(sed -n 's/^[a-z]*load: level c[0-9]*[^;]*; \([0-9]*\) requests in .*/\1/p' "$W/$name.$d.err")
        [ -n "$a" ] && [ -n "$r" ] || { fail "$name ($d): no count or no request count"; return 1; }
        counts+=("$a")
        reqs+=("$r")
    done
    DA=$((counts[1] - counts[0])) DR=$((reqs[1] - reqs[0]))
    echo "$name: ${counts[0]} allocations for ${reqs[0]} requests, ${counts[1]} for ${reqs[1]}"
}

# allocs_per_request NAME CMD...: the extra allocations of the longer run of
# a pair, per extra request, stay below 0.05. A pair whose longer run did
# fewer than 200 more requests (a starved CPU) says nothing either way: up
# to three pairs are run for one that does.
allocs_per_request() {
    local try
    for try in 1 2 3; do
        one_pair "$@" || return
        ((DR >= 200)) && break
        echo "$1: the longer run did only $DR more requests: once more"
    done
    ((DR >= 200)) || { fail "$1: no pair of runs 200 requests apart in three tries"; return; }
    awk -v a="$DA" -v r="$DR" 'BEGIN { exit !(a / r < 0.05) }' ||
        fail "$1: $DA more allocations for $DR more requests"
}

build_shim() {
    cc -shared -fPIC -O2 -o "$SO" "$TESTDIR/../fixtures/alloccount.c" -ldl ||
        fail "cannot build the allocation counter"
}

t_no_allocation_per_request_http1() {
    need_nginx || { fail "nginx did not start"; return; }
    [ -f "$SO" ] || build_shim
    allocs_per_request h1 "$HTTPLOAD" -c 4 -d @D@ "http://127.0.0.1:$NGINX_HTTP_PORT/"
    allocs_per_request h1tls "$HTTPLOAD" --http 1.1 --cacert "$CA_PEM" -c 4 -d @D@ \
        "https://127.0.0.1:$NGINX_HTTPS_PORT/"
    allocs_per_request h1open "$HTTPLOAD" -c 4 -R 1000 --max-error-rate 1 -d @D@ "http://127.0.0.1:$NGINX_HTTP_PORT/"
}

t_no_allocation_per_request_http2() {
    need_nginx || { fail "nginx did not start"; return; }
    [ -f "$SO" ] || build_shim
    allocs_per_request h2c "$HTTPLOAD" --http 2 -m 4 -c 4 -d @D@ "http://127.0.0.1:$NGINX_H2C_PORT/"
    allocs_per_request h2tls "$HTTPLOAD" --http 2 -m 4 --cacert "$CA_PEM" -c 4 -d @D@ \
        "https://127.0.0.1:$NGINX_HTTPS_PORT/"
}

t_no_allocation_per_request_dns() {
    need_unbound || { fail "unbound did not start"; return; }
    [ -f "$SO" ] || build_shim
    printf 'www.example.test A\nexample.test MX\n' >"$W/queries"
    local t
    for t in udp tcp; do
        allocs_per_request "dns$t" "$DNSLOAD" --no-io-uring -s 127.0.0.1 -p "$UNBOUND_PORT" --transport "$t" \
            --queries "$W/queries" -c 4 -d @D@
    done
    # the io_uring transport: its buffers are made per level, grown in chunks
    allocs_per_request dnsring "$DNSLOAD" --io-uring -s 127.0.0.1 -p "$UNBOUND_PORT" \
        --queries "$W/queries" -c 4 -d @D@
    allocs_per_request dnsringopen "$DNSLOAD" --io-uring -R 2000 --max-error-rate 1 \
        -s 127.0.0.1 -p "$UNBOUND_PORT" --queries "$W/queries" -c 4 -d @D@
    allocs_per_request dnsdot "$DNSLOAD" -s 127.0.0.1 -p "$UNBOUND_DOT_PORT" --transport dot \
        --cacert "$CA_PEM" --queries "$W/queries" -c 4 -d @D@
    allocs_per_request dnsdoh "$DNSLOAD" -s 127.0.0.1 -p "$UNBOUND_DOH_PORT" --transport doh \
        --cacert "$CA_PEM" --queries "$W/queries" -c 4 -d @D@
}

run_tests
