#!/usr/bin/env bash
# run: once
# HTTP/3 is optional at build time: ./configure --with-http3=auto builds
# without it when ngtcp2, nghttp3 or GnuTLS is missing (here: pkg-config made
# blind to ngtcp2), =yes then stops naming the Debian packages, a bad value is
# refused, and an httpload without HTTP/3 says so in --version and --meta and
# refuses --http 3 as a usage error. About a minute: one configure of each
# kind and a build of httpload alone.
# Run: BUILD=/path/to/build bash tests/integration/t_http3_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TOP=$(cd "$TESTDIR/../.." && pwd)
W=$TMPROOT/http3build

# A pkg-config directory holding every .pc file the system has but ngtcp2's.
blind_pkgconfig() {
    local d=$W/pc dir pc
    mkdir -p "$d"
    # the first directory in pkg-config's path wins, as pkg-config itself reads them
    for dir in $(pkg-config --variable pc_path pkg-config | tr ':' ' '); do
        for pc in "$dir"/*.pc; do
            if [ -f "$pc" ] && [ ! -e "$d/${pc##*/}" ]; then cp "$pc" "$d"/; fi
        done
    done
    rm -f "$d"/libngtcp2*.pc
    echo "$d"
}

t_configure_without_ngtcp2_builds_httpload_without_http3() {
    [ -x "$TOP/configure" ] || { fail "no configure script in $TOP (run scripts/build first)"; return; }
    mkdir -p "$W/yes" "$W/bad" "$W/auto"
    local pc
    pc=$(blind_pkgconfig)
    (cd "$W/yes" && PKG_CONFIG_LIBDIR=$pc timeout 300 "$TOP/configure" -q --with-http3=yes) \
        >"$W/yes.log" 2>&1 && fail "--with-http3=yes configured without ngtcp2"
    assert_contains "$W/yes.log" "libngtcp2-dev" "--with-http3=yes names the package"
    (cd "$W/bad" && timeout 300 "$TOP/configure" -q --with-http3=maybe) >"$W/bad.log" 2>&1 &&
        fail "--with-http3=maybe was accepted"
    assert_contains "$W/bad.log" "expected auto, yes or no"
    # without LTO: the subject is what httpload links, and LTO's link of it
    # would only make this test longer
    (cd "$W/auto" && PKG_CONFIG_LIBDIR=$pc timeout 300 "$TOP/configure" --with-http3=auto --disable-lto) \
        >"$W/auto.log" 2>&1 || { fail "configure (auto, no ngtcp2) failed: $(tail -n 3 "$W/auto.log")"; return; }
    assert_contains "$W/auto.log" "HTTP/3: no"
    (cd "$W/auto" && timeout 600 make -j"$(nproc)" httpload/httpload) >"$W/make.log" 2>&1 ||
        { fail "make httpload failed: $(grep -m3 error "$W/make.log")"; return; }
    local h=$W/auto/httpload/httpload
    nm "$h" | grep -qi ngtcp2 && fail "an httpload without HTTP/3 links ngtcp2"
    run_tool "$W/out" "$W/err" "$h" --version
    assert_eq "$RC" 0 "--version"
    assert_contains "$W/out" "HTTP/3: not built in"
    run_tool "$W/out" "$W/err" "$h" --http 3 -d 1s https://127.0.0.1:9/
    assert_eq "$RC" 2 "--http 3 without HTTP/3: exit status"
    assert_contains "$W/err" "built without HTTP/3"
    assert_empty_file "$W/out" "stdout of a usage error"
    run_tool "$W/out" "$W/err" "$h" -c 1 -d 200ms --meta "$W/meta.json" http://127.0.0.1:9/
    python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["http"]; assert h["http3"] is False and h["http3_libraries"] == "not built in", h' \
        "$W/meta.json" || fail "--meta does not say HTTP/3 is not built in"
}

run_tests
