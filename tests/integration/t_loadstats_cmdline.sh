#!/usr/bin/env bash
# The command line of every loadstats command, which one option loop parses
# (stats/cmd/cmd_options.c): each option --help lists is one the command takes,
# and every refusal is one line on stderr naming the problem, nothing on
# stdout, exit status 2. Needs no server.
# Run: BUILD=/path/to/build bash tests/integration/t_loadstats_cmdline.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

COMMANDS="summary check compare merge plot export"
W=$TMPROOT/loadstats_cmdline
mkdir -p "$W"

# refused WANT CMD ARGS...: exit 2, nothing on stdout, one stderr line holding WANT
refused() {
    local want=$1
    shift
    run_tool "$W/out" "$W/err" "$LOADSTATS" "$@"
    local lines
    lines=$(grep -c '' "$W/err")
    if [ "$RC" != 2 ] || [ -s "$W/out" ] || [ "$lines" != 1 ] || ! grep -qF -- "$want" "$W/err"; then
        fail "loadstats $*: exit $RC, $(wc -c <"$W/out") bytes on stdout, $lines stderr lines: $(head -c 300 "$W/err") (wanted '$want')"
    fi
}

t_every_command_names_an_unknown_option() {
    local c
    for c in $COMMANDS; do
        refused "loadstats $c: unknown option --frobnicate (see loadstats $c --help)" $c --frobnicate x.json
        refused "loadstats $c: unknown option -Z (see loadstats $c --help)" $c -Z x.json
    done
}

t_every_option_help_lists_is_taken() {
    # Given alone, an option is either taken (then the missing FILE is the
    # complaint) or, when --help shows a value after it, needs that value.
    local c o n=0
    for c in $COMMANDS; do
        run_tool "$W/help" "$W/err" "$LOADSTATS" $c --help
        assert_eq "$RC" 0 "loadstats $c --help"
        for o in $(grep -oE -- '--[a-z][a-z0-9-]*' "$W/help" | sort -u); do
            grep -qE -- "^  (-[a-z], )?$o( |\$)" "$W/help" || continue # named in prose only
            n=$((n + 1))
            [ "$o" = --help ] && continue
            if grep -qE -- "^  (-[a-z], )?$o [^ ]" "$W/help"; then
                refused "loadstats $c: option $o needs a value" $c "$o"
            else
                run_tool "$W/out" "$W/err" "$LOADSTATS" $c "$o"
                assert_eq "$RC" 2 "loadstats $c $o"
                grep -q "unknown option\|needs a value" "$W/err" && fail "loadstats $c $o: $(cat "$W/err")"
            fi
        done
    done
    assert_ge "$n" 20 "options found in the commands' --help"
}

t_a_missing_value_is_named() {
    refused "loadstats merge: option --seed needs a value" merge a.json --seed
    refused "loadstats plot: option -o needs a value" plot a.json -o
    refused "loadstats export: option --format needs a value" export --format
    refused "loadstats compare: option --noise-factor needs a value" compare a b --noise-factor
}

t_a_value_for_an_option_without_one_is_refused() {
    # getopt reports --quiet=1 with the option's id, which once read as "unknown option -q"
    refused "loadstats check: option --quiet takes no value" check --quiet=1 a.json
    refused "loadstats summary: option --json takes no value" summary --json=1 a.json
    refused "loadstats merge: option --shards takes no value" merge --shards=yes a.json
    refused "loadstats plot: option --help takes no value" plot --help=x a.json
}

t_a_bad_value_is_named() {
    refused "--maximum-factor must be at least 1, not 0.5" compare --maximum-factor 0.5 a b
    refused "--noise-factor needs a non-negative number, not 'x'" compare --noise-factor x a b
    refused "--max-samples needs a whole number of at least 1, not '0'" merge --max-samples 0 a
    refused "--seed needs a whole number, not '1.5'" merge --seed 1.5 a
    refused "unknown format 'xml' (hgrm, csv, csv-summary, openmetrics)" export -f xml a
    refused "--ticks needs a whole number from 1 to 1000, not '0'" export -f csv --ticks 0 a
}

t_rules_between_options_come_before_the_operands() {
    refused "loadstats merge: --allow-partial needs --shards" merge --allow-partial
    refused "loadstats merge: --allow-duplicate does not go with --shards" merge --shards \
        --allow-duplicate
    refused "loadstats export: needs --format (hgrm, csv, csv-summary, openmetrics)" export
    refused "loadstats export: --format hgrm needs exactly one --metric KEY, got 0" export -f hgrm a
}

t_the_number_of_operands_is_checked() {
    local c
    for c in summary check plot; do
        refused "loadstats $c: needs exactly one FILE (or -), got 0" $c
        refused "loadstats $c: needs exactly one FILE (or -), got 2" $c a b
    done
    refused "loadstats export: needs exactly one FILE (or -), got 2" export -f csv a b
    refused "loadstats compare: needs two documents, BASE and NEW; got 1" compare a
    refused "loadstats merge: needs at least one document to merge" merge
}

t_help_stops_the_command_line() {
    local c
    for c in $COMMANDS; do
        # options before --help are taken, nothing after it is looked at
        run_tool "$W/out" "$W/err" "$LOADSTATS" $c -h --frobnicate
        assert_eq "$RC" 0 "loadstats $c -h --frobnicate"
        assert_contains "$W/out" "^usage: loadstats $c "
        assert_contains "$W/out" "^  -h, --help  *this text$"
        assert_empty_file "$W/err" "loadstats $c -h stderr"
    done
}

run_tests
