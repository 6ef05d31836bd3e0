#!/usr/bin/env bash
# Memory running out on any thread, whatever that thread holds, fails the run:
# exit status 4, one line saying why, no document; never a hang, an abort or
# a usage error. The allocation fails through tests/fixtures/failalloc.c
# (LD_PRELOAD); scripts/torture walks every allocation of several runs, these
# tests pin the cases that once went wrong.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh"
source "$(dirname "$0")/servers_dns.sh"
trap stop_servers EXIT

O=$TMPROOT/out.json
E=$TMPROOT/err.txt

failalloc() {
    local so=$TMPROOT/failalloc.so
    [ -f "$so" ] || cc -shared -fPIC -O2 -o "$so" "$TESTDIR/../fixtures/failalloc.c" -ldl || return 1
    echo "$so"
}

# status_4_in_one_line TEXT: the run just made ended as memory's failures
# must: status 4 (RC), no document, one line on stderr, holding TEXT.
status_4_in_one_line() {
    assert_eq "$RC" 4 "exit status ($(head -c 300 $E))"
    assert_empty_file $O "no document"
    assert_contains $E "$1"
    assert_eq "$(wc -l <$E)" 1 "one line on stderr"
}

# interrupted_after_failure FIRED CMD...: runs CMD, whose allocation fixture
# creates the file FIRED when it makes an allocation fail; once it has (10 s
# at most), sends SIGINT, and kills CMD if it has not ended 5 s later. Sets
# RC (137 when it had to be killed).
interrupted_after_failure() {
    local fired=$1
    shift
    rm -f "$fired"
    "$@" >"$O" 2>"$E" &
    local pid=$! i
    for ((i = 0; i < 100; i++)); do
        [ -e "$fired" ] && break
        sleep 0.1
    done
    [ -e "$fired" ] || echo "the allocation never failed"
    sleep 0.2
    kill -INT "$pid" 2>/dev/null || true # it may have ended by itself, as it should
    for ((i = 0; i < 100; i++)); do
        # an exited child stays a zombie until wait: it answers kill -0
        [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && [ "$(cut -d' ' -f3 "/proc/$pid/stat")" != Z ] && kill -9 "$pid"
    RC=0
    wait "$pid" || RC=$?
    echo "exit $RC"
}

# The control thread samples the generator's CPU once a second into arrays
# that grow with a 512-byte realloc at the first whole second, holding the
# sampling lock; memory running out there locked it again: the run hung, and
# SIGINT (the same thread's job) could not stop it.
t_out_of_memory_on_the_sampling_thread_ends_the_run() {
    need_nginx || { fail "nginx did not start"; return; }
    local so
    so=$(failalloc) || { fail "cannot build the allocation fixture"; return; }
    interrupted_after_failure "$TMPROOT/fired" env LD_PRELOAD="$so" FAILALLOC_SIZE=512 \
        FAILALLOC_FUNC=realloc FAILALLOC_THREAD=other FAILALLOC_FIRED="$TMPROOT/fired" \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        "$HTTPLOAD" -c 2 -d 1500ms "http://127.0.0.1:$NGINX_HTTP_PORT/"
    # 4: it ended by itself, or at the latest at the signal; 137: killed
    assert_eq "$RC" 4 "exit status"
    assert_empty_file $O "no document"
    assert_contains $E "out of memory for the generator's own samples"
    assert_eq "$(wc -l <$E)" 1 "one line on stderr"
}

# A --log buffer (a record's MiB: struct logbuf of loadgen/output/reqlog.c,
# 24 bytes of header and 1 MiB of records) that cannot be had fails the run
# with one line. The full torture (h1, allocations 72 and 73 of 234) found a
# second: "--log FILE: Success: 1 of 78 records lost", a loss no write
# caused, said with errno 0 after the line that had said why.
t_log_buffer_out_of_memory_is_one_line() {
    need_nginx || { fail "nginx did not start"; return; }
    local so
    so=$(failalloc) || { fail "cannot build the allocation fixture"; return; }
    rm -f "$TMPROOT/fired"
    RC=0
    env LD_PRELOAD="$so" FAILALLOC_SIZE=$((24 + 1024 * 1024)) FAILALLOC_FUNC=malloc \
        FAILALLOC_FIRED="$TMPROOT/fired" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        "$HTTPLOAD" -c 2 -d 300ms --log "$TMPROOT/log" "http://127.0.0.1:$NGINX_HTTP_PORT/" >$O 2>$E || RC=$?
    [ -e "$TMPROOT/fired" ] || fail "no --log buffer's allocation failed"
    status_4_in_one_line "out of memory for --log records; the run could not be carried out, no document"
}

# A cipher fetch of OpenSSL's that runs out of memory while SSL_CTX_new
# loads its ciphers can leave the default context fetching none for good:
# "library has no ciphers", which a usage error (status 2, "cannot create
# a TLS context (see --help)") blamed on the input (the whole torture's doh
# and mitm runs, allocations 3,263 and 3,268). Each of the first six
# allocations under EVP_CIPHER_fetch fails in turn (the fourth is that
# case in Debian 12's OpenSSL 3.0): none is status 2, each that fails
# the run is status 4 with one line. An OpenSSL configuration that loads no
# provider with ciphers (only "null") is the same: status 4, named.
t_tls_context_without_ciphers_is_status_4() {
    need_unbound || { fail "unbound did not start"; return; }
    local so k failed=0 cnf=$TMPROOT/null-provider.cnf
    so=$(failalloc) || { fail "cannot build the allocation fixture"; return; }
    local cmd=("$DNSLOAD" -q --transport doh -c 1 -d 100ms --timeout 1s -s 127.0.0.1
        -p "$UNBOUND_DOH_PORT" --cacert "$CA_PEM" --query 'www.example.test A')
    for ((k = 1; k <= 6; k++)); do
        rm -f "$TMPROOT/fired"
        RC=0
        env LD_PRELOAD="$so" FAILALLOC_UNDER=EVP_CIPHER_fetch FAILALLOC_UNDER_NTH=$k \
            FAILALLOC_FIRED="$TMPROOT/fired" SSL_CERT_FILE=/nonexistent SSL_CERT_DIR=/nonexistent \
            ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" "${cmd[@]}" >$O 2>$E || RC=$?
        [ -e "$TMPROOT/fired" ] || break
        case $RC in
        0 | 1) ;;
        4)
            failed=$((failed + 1))
            assert_empty_file $O "allocation $k under EVP_CIPHER_fetch: no document"
            assert_eq "$(wc -l <$E)" 1 "allocation $k under EVP_CIPHER_fetch: one line on stderr"
            ;;
        *) fail "allocation $k under EVP_CIPHER_fetch: exit status $RC: $(head -c 300 $E)" ;;
        esac
    done
    [ "$failed" -gt 0 ] || fail "no allocation under EVP_CIPHER_fetch failed the run (of $((k - 1)))"
    printf '%s\n' 'openssl_conf = init' '[init]' 'providers = providers' '[providers]' \
        'null = null' '[null]' 'activate = 1' >"$cnf"
    RC=0
    OPENSSL_CONF=$cnf "${cmd[@]}" >$O 2>$E || RC=$?
    status_4_in_one_line "cannot create a TLS context: OpenSSL fetches no cipher"
}

# OpenSSL 3.0's PEM reader says nothing of memory when its own buffer (the
# certificate's DER bytes) cannot be had: the loader's error is the bare
# "PEM lib" a bad file never leaves alone. That was '--cacert FILE: not a
# readable PEM certificate file' and exit status 2 (scripts/torture).
t_cacert_read_out_of_memory_is_status_4() {
    need_certs || { fail "the test certificates could not be made"; return; }
    local so der
    so=$(failalloc) || { fail "cannot build the allocation fixture"; return; }
    der=$(openssl x509 -in "$CA_PEM" -outform DER | wc -c)
    rm -f "$TMPROOT/fired"
    RC=0
    # no system store: the first allocation of the DER's size is --cacert's
    env LD_PRELOAD="$so" FAILALLOC_SIZE="$der" FAILALLOC_FUNC=malloc FAILALLOC_FIRED="$TMPROOT/fired" \
        SSL_CERT_FILE=/nonexistent SSL_CERT_DIR=/nonexistent \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        "$HTTPLOAD" -c 1 -d 100ms --cacert "$CA_PEM" "https://127.0.0.1:$NGINX_HTTPS_PORT/" >$O 2>$E || RC=$?
    [ -e "$TMPROOT/fired" ] || fail "the allocation of $der bytes never failed"
    status_4_in_one_line "out of memory"
}

# ngtcp2 (0.12) leaves ngtcp2_conn_client_new's out-parameter pointing at the
# connection it freed when one of its allocations fails inside: the client
# kept it, and closing the connection deleted it again (scripts/torture's
# whole h3 run, allocation 64 of 1,049: a SEGV in ngtcp2_conn_del). Each
# allocation under that call fails in turn; each run must say so and exit 4.
t_quic_connection_out_of_memory_inside_ngtcp2_is_status_4() {
    need_caddy || { fail "caddy did not start"; return; }
    local so k fired=0
    so=$(failalloc) || { fail "cannot build the allocation fixture"; return; }
    for ((k = 1; k <= 40; k++)); do
        rm -f "$TMPROOT/fired"
        RC=0
        env LD_PRELOAD="$so" FAILALLOC_UNDER=ngtcp2_conn_client_new_versioned FAILALLOC_UNDER_NTH=$k \
            FAILALLOC_FIRED="$TMPROOT/fired" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
            "$HTTPLOAD" --http 3 -c 1 -d 100ms --timeout 2s --insecure \
            "https://127.0.0.1:$CADDY_PORT/index.html" >$O 2>$E || RC=$?
        [ -e "$TMPROOT/fired" ] || break
        fired=$((fired + 1))
        assert_eq "$RC" 4 "exit status, allocation $k under ngtcp2_conn_client_new ($(head -c 300 $E))"
        assert_contains $E "out of memory for a QUIC connection"
        assert_empty_file $O "no document, allocation $k"
    done
    # the call allocates: at least its connection; and the walk ended by itself
    assert_ge "$fired" 1 "allocations made to fail under ngtcp2_conn_client_new"
    [ "$k" -le 40 ] || fail "more than 40 allocations under ngtcp2_conn_client_new: the walk was cut"
}

# loadstats plot draws its SVG into memory first, so that memory running out
# leaves no half an SVG; when the memory stream's last allocation failed, it
# closed without error and without a buffer, and plot wrote an empty SVG with
# exit status 0 (the whole torture run's ls_plot, allocation 71 of 72). Every
# allocation of a small plot fails in turn: each run writes a whole SVG and
# exits 0, or writes nothing and exits 4 with one line.
t_plot_out_of_memory_writes_all_of_the_svg_or_none() {
    local so n total doc=$TMPROOT/plot.json
    so=$(failalloc) || { fail "cannot build the allocation fixture"; return; }
    python3 - "$doc" <<'PY'
import json, sys
m = {"c2.latency_warm_ms": {"unit": "milliseconds", "samples": [1.0, 2.0, 3.0]},
     "c2.latency_cold_ms": {"unit": "milliseconds", "samples": [4.0]},
     "c2.requests_per_second": {"unit": "requests_per_second", "samples": [4]}}
json.dump({"metrics": m}, open(sys.argv[1], "w"))
PY
    env LD_PRELOAD="$so" FAILALLOC_COUNT="$TMPROOT/count" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        "$LOADSTATS" plot -o - "$doc" >/dev/null 2>&1
    total=$(cat "$TMPROOT/count" 2>/dev/null)
    assert_ge "${total:-0}" 10 "allocations counted in a plot"
    for ((n = 1; n <= ${total:-0}; n++)); do
        RC=0
        env LD_PRELOAD="$so" FAILALLOC_NTH=$n ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
            "$LOADSTATS" plot -o - "$doc" >$O 2>$E || RC=$?
        if [ "$RC" = 0 ]; then
            python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' $O 2>/dev/null ||
                fail "allocation $n of $total: exit 0 with an SVG that does not parse ($(wc -c <$O) bytes)"
        else
            assert_eq "$RC" 4 "allocation $n of $total: exit status ($(head -c 200 $E))"
            assert_empty_file $O "allocation $n of $total: no SVG"
            assert_eq "$(wc -l <$E)" 1 "allocation $n of $total: one line on stderr"
        fi
    done
}

run_tests
