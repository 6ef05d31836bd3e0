#!/usr/bin/env bash
# run: once
# The Debian package: dpkg-buildpackage -us -uc -b on a clean copy of the tree
# (the files git knows, none of the developer's build directories), lintian
# without errors, dpkg -i, the tools, manual pages and bash completion from
# their installed paths, then dpkg --purge. Needs root (dpkg -i) and dpkg-dev,
# debhelper, lintian, bash-completion and man-db; a few minutes, bounded.
# Run: BUILD=/path/to/build bash tests/integration/t_package.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TOP=$(cd "$TESTDIR/../.." && pwd)
W=$TMPROOT/package
BUILD_BOUND=${BUILD_BOUND:-1200}

# dpkg_retry ARGS...: dpkg, waiting (up to 2 minutes) while another dpkg holds its lock.
dpkg_retry() {
    local i
    for ((i = 0; i < 60; i++)); do
        if dpkg "$@" >"$W/dpkg.out" 2>&1; then
            return 0
        fi
        grep -q 'lock' "$W/dpkg.out" || { cat "$W/dpkg.out"; return 1; }
        sleep 2
    done
    cat "$W/dpkg.out"
    return 1
}

# clean_copy DIR: the tree as git sees it (tracked files as they are now, and new
# files git does not ignore), without build directories or generated files.
clean_copy() {
    mkdir -p "$1"
    git -C "$TOP" ls-files -z --cached --others --exclude-standard |
        (cd "$TOP" && while IFS= read -r -d '' f; do if [ -e "$f" ]; then printf '%s\0' "$f"; fi; done) |
        (cd "$TOP" && tar --null -T - -cf -) | tar -xf - -C "$1"
}

# completions CMD WORD...: what bash offers for the last word, loading the
# installed completion of CMD the way an interactive shell does.
completions() {
    env -i PATH=/usr/bin:/bin HOME="$W" bash -c '
        source /usr/share/bash-completion/bash_completion
        cmd=$1
        _completion_loader "$cmd"
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        spec=$(complete -p "$cmd") || exit 1
        fn=${spec#*-F }; fn=${fn%% *}
        [ "$fn" = _minimal ] && { echo "no completion installed for $cmd" >&2; exit 1; }
        "$fn" "$cmd" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' completions "$@"
}

t_debian_package_builds_installs_and_purges() {
    if [ "$(id -u)" != 0 ]; then
        echo "skip: installing the package needs root"
        fail "skip: not root (dpkg -i)"
        return
    fi
    local tool
    git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
        { fail "skip: $TOP is not a git work tree, so there is no clean copy to build"; return; }
    for tool in git dpkg-buildpackage dh lintian man; do
        command -v "$tool" >/dev/null || { fail "skip: $tool is missing (scripts/deps test)"; return; }
    done
    [ -f /usr/share/bash-completion/bash_completion ] || { fail "skip: bash-completion is missing"; return; }
    if dpkg-query -W -f='${Status}' loadgen 2>/dev/null | grep -q 'installed'; then
        fail "a loadgen package is installed already; this test would replace and purge it"
        return
    fi
    mkdir -p "$W"
    trap 'dpkg_retry --purge loadgen >/dev/null 2>&1' EXIT

    local start=$SECONDS
    clean_copy "$W/src"
    [ -f "$W/src/debian/rules" ] || { fail "the copy has no debian/rules"; return; }
    local junk
    junk=$(find "$W/src" -maxdepth 1 \( -name build -o -name 'build-*' -o -name configure \
        -o -name Makefile -o -name config.status \) -printf '%f\n')
    assert_eq "$junk" "" "the copy holds no build output"
    local version arch
    version=$(cd "$W/src" && dpkg-parsechangelog -S Version)
    arch=$(dpkg --print-architecture)
    grep -q "^AC_INIT(\[loadgen\], \[$version\]" "$W/src/configure.ac" ||
        fail "debian/changelog's version $version is not configure.ac's"

    # -J: debhelper builds and runs make check with one job unless told the
    # machine's count
    (cd "$W/src" && timeout -k 10 "$BUILD_BOUND" dpkg-buildpackage -us -uc -b -J"$(nproc)") >"$W/build.log" 2>&1 ||
        { fail "dpkg-buildpackage failed: $(tail -n 5 "$W/build.log")"; return; }
    local deb=$W/loadgen_${version}_${arch}.deb
    [ -f "$deb" ] || { fail "no $(basename "$deb")"; return; }
    echo "built $(basename "$deb") in $((SECONDS - start)) s"
    dpkg-deb -c "$deb" | awk '{print $6}' >"$W/contents"
    local f
    for f in ./usr/bin/httpload ./usr/bin/dnsload ./usr/bin/loadstats \
        ./usr/share/man/man1/httpload.1.gz ./usr/share/man/man1/dnsload.1.gz \
        ./usr/share/man/man1/loadstats.1.gz ./usr/share/bash-completion/completions/httpload \
        ./usr/share/bash-completion/completions/dnsload \
        ./usr/share/bash-completion/completions/loadstats ./usr/share/doc/loadgen/copyright; do
        grep -qx -- "$f" "$W/contents" || fail "the package lacks $f"
    done

    start=$SECONDS
    exit_status timeout -k 10 600 lintian --fail-on error "$deb" >"$W/lintian.txt" 2>&1
    echo "lintian ($((SECONDS - start)) s): $(count_lines '^E:' "$W/lintian.txt") errors, $(count_lines '^W:' "$W/lintian.txt") warnings"
    sed 's/^/  /' "$W/lintian.txt"
    assert_eq "$(count_lines '^E:' "$W/lintian.txt")" 0 "lintian errors"
    assert_eq "$RC" 0 "lintian exit status"

    dpkg_retry -i "$deb" || { fail "dpkg -i failed"; return; }
    run_tool "$W/out" "$W/err" /usr/bin/httpload --version
    assert_eq "$RC" 0 "/usr/bin/httpload --version"
    assert_contains "$W/out" "$version"
    assert_contains "$W/out" "HTTP/3: ngtcp2 0.12" "the package's httpload speaks HTTP/3"
    run_tool "$W/out" "$W/err" /usr/bin/dnsload --version
    assert_eq "$RC" 0 "/usr/bin/dnsload --version"
    assert_contains "$W/out" "$version"
    run_tool "$W/out" "$W/err" /usr/bin/loadstats --help
    assert_eq "$RC" 0 "/usr/bin/loadstats --help"
    assert_contains "$W/out" "usage: loadstats"
    assert_eq "$(man -w httpload)" /usr/share/man/man1/httpload.1.gz "man -w httpload"
    assert_eq "$(man -w loadstats)" /usr/share/man/man1/loadstats.1.gz "man -w loadstats"

    # bash completion offers each tool's options, taken from its --help
    completions httpload --cli >"$W/c" 2>&1
    assert_eq "$(cat "$W/c")" --clients "httpload --cli<TAB>"
    completions httpload --http "" >"$W/c" 2>&1
    assert_eq "$(tr '\n' ' ' <"$W/c")" "1.1 2 3 auto " "httpload --http <TAB>"
    completions dnsload --que >"$W/c" 2>&1
    assert_eq "$(tr '\n' ' ' <"$W/c")" "--queries --query " "dnsload --que<TAB>"
    completions loadstats "" >"$W/c" 2>&1
    assert_contains "$W/c" "^merge$" "loadstats <TAB> offers merge"
    assert_contains "$W/c" "^export$" "loadstats <TAB> offers export"
    completions loadstats merge --sh >"$W/c" 2>&1
    assert_eq "$(cat "$W/c")" --shards "loadstats merge --sh<TAB>"

    dpkg_retry --purge loadgen || fail "dpkg --purge failed"
    [ -e /usr/bin/httpload ] && fail "/usr/bin/httpload is still there after the purge"
    dpkg-query -W -f='${Status}' loadgen 2>/dev/null | grep -q 'installed' &&
        fail "loadgen is still installed"
    trap - EXIT
}

run_tests
