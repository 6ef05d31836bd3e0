#!/usr/bin/env bash
# tests/layers.sh — the folders' layering, checked from the #include lines:
# each quoted include of a C file names a file of the tree, in its own folder
# or in one its row of doc/layout.md allows, and every folder holding C files
# has a row. The table in doc/layout.md is the one place the rule lives.
# First a self-check: in a small planted tree, under the same table, a
# forbidden include and an unknown folder must be caught and an allowed
# include let through; a checker that catches nothing cannot pass.
#
# usage: tests/layers.sh [ROOT]   (default: the tree this script is in)
# Run by make check (tests/Makemodule.am). Exit status 0, or 1 with one line
# per violation.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-$here}
table=$here/doc/layout.md

# rules TABLE: one line per row, "FOLDER ALLOWED..." (folders without their
# trailing /, "-" for nothing, "*" for anything), from the table's rows whose
# first cell is a `path`.
rules() {
    awk -F'|' '
        $2 ~ /^ *`[^`]*` *$/ {
            folder = $2; gsub(/[ `]/, "", folder); sub(/\/$/, "", folder)
            allowed = $4; out = ""
            while (match(allowed, /`[^`]*`/)) {
                item = substr(allowed, RSTART + 1, RLENGTH - 2)
                sub(/\/$/, "", item)
                out = out " " item
                allowed = substr(allowed, RSTART + RLENGTH)
            }
            if (out == "" && $4 ~ /—/) out = " -"
            print folder out
        }' "$1"
}

# check ROOT TABLE: prints one line per violation; the status is 1 when any.
check() {
    local root=$1 rules_file
    rules_file=$(mktemp)
    rules "$2" >"$rules_file"
    if [ ! -s "$rules_file" ]; then
        echo "$2: no table of folders found"
        rm -f "$rules_file"
        return 1
    fi
    (cd "$root" && find . \( -name 'build*' -o -name .git -o -name autom4te.cache -o -name results \) -prune \
        -o -type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort) |
        awk -v root="$root" -v rules="$rules_file" '
            function exists(path,   line) {
                if (path in known) return known[path]
                known[path] = (getline line < (root "/" path)) >= 0
                close(root "/" path)
                return known[path]
            }
            BEGIN {
                while ((getline line < rules) > 0) {
                    n = split(line, f, " ")
                    row[f[1]] = 1
                    for (i = 2; i <= n; i++) may[f[1], f[i]] = 1
                }
                bad = 0
            }
            {
                file = $0
                folder = file; sub(/\/[^\/]*$/, "", folder)
                if (folder == file) folder = "."
                if (!(folder in row)) {
                    if (!(folder in told)) print folder "/: a folder of C files with no row in doc/layout.md"
                    told[folder] = 1; bad = 1
                    next
                }
                nr = 0
                while ((getline line < (root "/" file)) > 0) {
                    nr++
                    if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
                    inc = line; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
                    if (inc !~ /\//) inc = folder "/" inc   # beside the file
                    target = inc; sub(/\/[^\/]*$/, "", target)
                    if (!exists(inc)) {
                        print file ":" nr ": includes \"" inc "\", which is no file of the tree"
                        bad = 1
                    } else if (target != folder && !may[folder, "*"] && !may[folder, target] && !may[folder, inc]) {
                        print file ":" nr ": includes \"" inc "\": " folder "/ may not include " target "/ (doc/layout.md)"
                        bad = 1
                    }
                }
                close(root "/" file)
            }
            END { exit bad }'
    local rc=$?
    rm -f "$rules_file"
    return $rc
}

# The self-check: a planted tree under the real table.
plant=$(mktemp -d)
trap 'rm -rf "$plant"' EXIT
mkdir -p "$plant/stats/read" "$plant/stats/write" "$plant/stats/cmd" "$plant/nowhere"
echo '#include "stats/cmd/cmd.h" /* the reader calling a command */' >"$plant/stats/read/planted.c"
echo '#include "stats/read/units.h"' >"$plant/stats/write/allowed.c"
echo '#include "units.h"' >"$plant/stats/read/beside.c"
touch "$plant/stats/cmd/cmd.h" "$plant/stats/read/units.h" "$plant/nowhere/stray.c"
found=$(check "$plant" "$table")
selfcheck_ok=1
for want in 'stats/read/planted.c:1: includes "stats/cmd/cmd.h": stats/read/ may not include stats/cmd/' \
    'nowhere/: a folder of C files with no row'; do
    if ! grep -qF "$want" <<<"$found"; then
        echo "self-check: a planted violation went unnoticed: $want"
        selfcheck_ok=0
    fi
done
if grep -qE 'allowed\.c|beside\.c' <<<"$found"; then
    echo "self-check: an allowed include was refused:"
    grep -E 'allowed\.c|beside\.c' <<<"$found"
    selfcheck_ok=0
fi
[ "$selfcheck_ok" = 1 ] || exit 1

if ! check "$root" "$table"; then
    echo "FAIL: the layering of doc/layout.md is broken (above)"
    exit 1
fi
echo "ok: every include keeps to doc/layout.md"
