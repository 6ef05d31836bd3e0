#!/usr/bin/env bash
# nginx_conf.sh, the head shared by the tests' and the benchmarks' nginx
# configurations: the pinned head puts the worker on the CPU asked for (CPU 0
# included), both heads make a configuration nginx accepts, and a parameter
# it does not know is refused rather than ignored.
# run: once
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/nginx_conf.sh"

# the worker_cpu_affinity mask of CPU K is a 1 followed by K zeros
t_pinned_head_pins_the_cpu_asked_for() {
    local cpu want got
    for cpu in 0 1 3; do
        want=1$(printf '%*s' "$cpu" '' | tr ' ' 0)
        got=$(nginx_conf_head_pinned /x "$cpu" | sed -n 's/^worker_cpu_affinity \(.*\);$/\1/p')
        assert_eq "$got" "$want" "worker_cpu_affinity for CPU $cpu"
    done
    nginx_conf_head /x | grep -q worker_cpu_affinity && fail "the default head pins its workers"
    return 0
}

# nginx -t on each head with one server: what the tests and bench/ start
t_both_heads_make_a_configuration_nginx_accepts() {
    command -v nginx >/dev/null || skip "nginx is missing"
    local d=$TMPROOT/nginx-conf head
    for head in "nginx_conf_head $d" "nginx_conf_head_pinned $d 0"; do
        mkdir -p "$d/tmp"
        {
            $head
            echo "    server { listen 127.0.0.1:$NGINX_HTTP_PORT; location / { return 200; } }"
            echo "}"
        } >"$d/nginx.conf"
        nginx -t -q -c "$d/nginx.conf" -p "$d" -e "$d/error.log" 2>"$d/t.err" ||
            { cat "$d/t.err"; fail "nginx rejects the configuration from $head"; }
        rm -rf "$d"
    done
}

t_unknown_parameter_is_refused() {
    exit_status nginx_conf_head /x worker=3
    assert_eq "$RC" 1 "nginx_conf_head's status for worker=3 (workers= is the name)"
}

run_tests
