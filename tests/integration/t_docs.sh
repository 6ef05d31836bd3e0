#!/usr/bin/env bash
# The manuals stay true: every option --help lists is in the man page, and the
# man pages format without groff warnings.
source "$(dirname "$0")/lib.sh"
DOC=$(cd "$TESTDIR/../../doc" && pwd)

check_tool() { # binary man-page [subcommand...]: the help of each subcommand too
    local bin=$1 man=$2 sub
    shift 2
    run_tool "$TMPROOT/help.out" "$TMPROOT/help.err" "$bin" --help
    assert_eq "$RC" 0 "$(basename "$bin") --help exit status"
    for sub in "$@"; do
        run_tool "$TMPROOT/sub.out" "$TMPROOT/sub.err" "$bin" "$sub" --help
        assert_eq "$RC" 0 "$(basename "$bin") $sub --help exit status"
        cat "$TMPROOT/sub.out" "$TMPROOT/sub.err" >>"$TMPROOT/help.out"
    done
    set -- "$bin" "$man"
    groff -man -Tascii -ww "$2" 2>"$TMPROOT/man.warn" | col -b >"$TMPROOT/man.txt"
    assert_empty_file "$TMPROOT/man.warn" "groff warnings for $(basename "$2")"
    local o n=0
    for o in $(grep -o -- '--[a-z][a-z0-9-]*' "$TMPROOT/help.out" | sort -u); do
        n=$((n + 1))
        grep -q -- "$o" "$TMPROOT/man.txt" || fail "$o is in $(basename "$1") --help but not in $(basename "$2")"
    done
    assert_ge "$n" 3 "options found in $(basename "$1") --help"
}

t_httpload_man_page_documents_every_option() {
    check_tool "$HTTPLOAD" "$DOC/httpload.1"
}

t_dnsload_man_page_documents_every_option() {
    check_tool "$DNSLOAD" "$DOC/dnsload.1"
}

t_loadstats_man_page_documents_every_option() {
    check_tool "$LOADSTATS" "$DOC/loadstats.1" summary check compare merge plot report
}

t_loadstats_man_page_documents_every_export_option() {
    check_tool "$LOADSTATS" "$DOC/loadstats.1" export
}

run_tests
