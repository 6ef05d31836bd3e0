#!/usr/bin/env bash
# run: once
# The pages cannot drift from the tools: every command block of README.md and
# doc/*.md marked runnable (tests/integration/runnable.py says how) runs as
# written, the tools on PATH, against the servers of scripts/serve, which this
# file starts as a reader would (its ports at LG_PORT_BASE + 100, clear of the
# other tests' servers; the blocks' 18NNN ports and /tmp/loadgen-serve are
# moved there). A page's blocks run in order in a directory of the page's own,
# where build-a and build-b are this build (README's A/B task), each with
# bash -e under a bound, and a block that fails is named by file and line.
# No page may have fewer runnable blocks than the table below says, so a mark
# that goes missing is noticed; and every link between the pages resolves.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/servers.sh" # makes $SRV readable by the servers' workers
TOP=$(cd "$TESTDIR/../.." && pwd)

# the runnable blocks each page has at least
MIN_BLOCKS="README.md:10 doc/httpload.md:2 doc/open-loop.md:1 doc/dnsload.md:1
    doc/loadstats.md:2 doc/multi-machine.md:1 doc/watching.md:1 doc/output-format.md:1
    doc/coming-from.md:1"
# pages another change writes (issue 41), linked before they land
PENDING_PAGES=""

SERVE_BASE=$((LG_PORT_BASE + 100))
SERVE_SRV=$SRV/readme-serve
serve_pid=
stop_serve() {
    [ -z "$serve_pid" ] && return 0
    kill -TERM "$serve_pid" 2>/dev/null
    wait "$serve_pid" 2>/dev/null
}
trap stop_serve EXIT
if command -v mitmdump >/dev/null; then
    # the certificates of the other tests' servers, made once (several seconds
    # of key generation on a busy machine)
    need_certs && mkdir -p "$SERVE_SRV" && cp -r "$SRV/certs" "$SERVE_SRV/"
    SRV=$SERVE_SRV LG_PORT_BASE=$SERVE_BASE "$TOP/scripts/serve" >"$TMPROOT/serve.out" 2>&1 &
    serve_pid=$!
    for ((i = 0; i < 600; i++)); do
        grep -q 'serving until Ctrl-C' "$TMPROOT/serve.out" && break
        kill -0 "$serve_pid" 2>/dev/null || break
        sleep 0.1
    done
fi

serving() { # or skip, or fail saying why scripts/serve is not
    command -v mitmdump >/dev/null ||
        skip "mitmproxy (mitmdump) is not installed: scripts/serve starts it for README's MITM task"
    grep -q 'serving until Ctrl-C' "$TMPROOT/serve.out" && return 0
    fail "scripts/serve did not start its servers: $(tail -n 5 "$TMPROOT/serve.out" | tr '\n' ' ')"
    exit 1
}

run_blocks() { # PAGE...: runs their blocks, each page's in order in a directory
    # of its own; prints "PAGE COUNT" for each page that has blocks
    local dir=$TMPROOT/run.$RANDOM file line statuses script rc t0 work
    mkdir -p "$dir/blocks"
    (cd "$TOP" && python3 "$TESTDIR/runnable.py" blocks "$dir/blocks" "$SERVE_BASE" "$SERVE_SRV" "$@") >"$dir/list"
    while IFS=$'\t' read -r file line statuses script; do
        work=$dir/$(echo "$file" | tr / _)
        if [ ! -d "$work" ]; then
            mkdir -p "$work"
            ln -s "$BUILD" "$work/build-a"
            ln -s "$BUILD" "$work/build-b"
        fi
        rc=0
        t0=$SECONDS
        (cd "$work" && PATH=$BUILD/httpload:$BUILD/dnsload:$BUILD/stats:$PATH \
            timeout -k 5 60 bash -e "$script") </dev/null >"$script.log" 2>&1 || rc=$?
        echo "$file:$line: exit status $rc after $((SECONDS - t0)) s" >&2
        [[ ",$statuses," == *",$rc,"* ]] ||
            fail "$file:$line: the block ended with exit status $rc (it may end with $statuses): $(tail -n 3 "$script.log" | tr '\n' ' ')"
    done <"$dir/list"
    cut -f 1 "$dir/list" | uniq -c | awk '{ print $2, $1 }'
}

min_blocks() { # PAGE: the table's minimum, 0 for a page not in it
    local entry
    for entry in $MIN_BLOCKS; do
        [ "${entry%:*}" = "$1" ] && { echo "${entry##*:}"; return; }
    done
    echo 0
}

t_readme_commands_run_as_written() {
    serving
    local counts
    counts=$(run_blocks README.md)
    assert_ge "$(echo "$counts" | awk '$1 == "README.md" { print $2 }')" "$(min_blocks README.md)" \
        "runnable blocks in README.md"
}

t_doc_commands_run_as_written() {
    serving
    local counts entry page total
    counts=$(cd "$TOP" && run_blocks doc/*.md)
    for entry in $MIN_BLOCKS; do
        page=${entry%:*}
        [ "$page" = README.md ] && continue
        [ -f "$TOP/$page" ] || fail "$page is gone (the table of runnable blocks names it)"
        assert_ge "$(echo "$counts" | awk -v p="$page" '$1 == p { n = $2 } END { print n + 0 }')" \
            "${entry##*:}" "runnable blocks in $page"
    done
    total=$(echo "$counts" | awk '{ n += $2 } END { print n + 0 }')
    assert_ge "$total" 10 "runnable blocks in doc/"
}

t_links_between_pages_resolve() {
    local p
    (cd "$TOP" && python3 "$TESTDIR/runnable.py" links README.md doc/*.md) >"$TMPROOT/links.out" || true
    cp "$TMPROOT/links.out" "$TMPROOT/links.left"
    for p in $PENDING_PAGES; do
        [ -f "$TOP/$p" ] && continue
        grep -v -- ": no such file: $p\$" "$TMPROOT/links.left" >"$TMPROOT/links.tmp" || true
        mv "$TMPROOT/links.tmp" "$TMPROOT/links.left"
    done
    assert_empty_file "$TMPROOT/links.left" "links that do not resolve"
    # the checker does see a broken link
    printf '[a](no-such-page.md) [b](#no-such-heading)\n# Title\n' >"$TMPROOT/broken.md"
    python3 "$TESTDIR/runnable.py" links "$TMPROOT/broken.md" >"$TMPROOT/broken.out" &&
        fail "runnable.py links passed a broken link"
    assert_contains "$TMPROOT/broken.out" "no-such-page.md: no such file"
    assert_contains "$TMPROOT/broken.out" "no heading 'no-such-heading'"
}

run_tests
