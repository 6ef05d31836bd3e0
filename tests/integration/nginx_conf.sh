# The head of every nginx.conf the tests, the demo, bench/ and scripts/profile
# write, so that what they share (no access log, temp files and pid beside the
# configuration, keep-alive for any run) is said once. Sourced by servers.sh.

# nginx_conf_head DIR [NAME=VALUE...]: the start of an nginx.conf for a server
# kept in DIR, up to the inside of its http block (the caller adds the rest and
# closes it). The defaults suit a test server that shares the machine; the
# names change them:
#   workers=N      worker processes (2)
#   cpu=K          pin the workers to CPU K (worker_cpu_affinity; unpinned)
#   nofile=N       the workers' descriptor limit (worker_rlimit_nofile; inherited)
#   connections=N  connections per worker (16384)
#   multi_accept=on  accept every pending connection at once (off)
#   errors=LEVEL   error_log's level (warn)
#   keepalive=T    keepalive_timeout (120s)
nginx_conf_head() {
    local d=$1 workers=2 cpu='' nofile='' connections=16384 multi_accept='' errors=warn
    local keepalive=120s kv
    shift
    for kv; do
        case $kv in
            workers=* | cpu=* | nofile=* | connections=* | multi_accept=* | errors=* | keepalive=*)
                local "$kv" ;;
            *) echo "nginx_conf_head: unknown parameter $kv" >&2; return 1 ;;
        esac
    done
    echo "worker_processes $workers;"
    if [ -n "$cpu" ]; then
        # the mask of CPU K as nginx reads it: a 1 followed by K zeros (not
        # printf's %0*d, which writes one zero even for a width of 0)
        local mask=1 i
        for ((i = 0; i < cpu; i++)); do mask+=0; done
        echo "worker_cpu_affinity $mask;"
    fi
    [ -n "$nofile" ] && echo "worker_rlimit_nofile $nofile;"
    cat <<CONF
pid $d/nginx.pid;
error_log $d/error.log $errors;
events { worker_connections $connections;${multi_accept:+ multi_accept $multi_accept;} }
http {
    access_log off;
    client_body_temp_path $d/tmp/cb; proxy_temp_path $d/tmp/p; fastcgi_temp_path $d/tmp/f;
    uwsgi_temp_path $d/tmp/u; scgi_temp_path $d/tmp/s;
    keepalive_requests 100000000;
    keepalive_timeout $keepalive;
    default_type text/plain;
CONF
}

# nginx_conf_head_pinned DIR CPU: the head of a benchmark's server (bench/,
# scripts/profile): one worker on CPU of its own, room for the tens of
# thousands of connections a scale or memory run opens, errors only.
nginx_conf_head_pinned() {
    nginx_conf_head "$1" workers=1 cpu="$2" nofile=65536 connections=30000 multi_accept=on \
        errors=error keepalive=300s
}
