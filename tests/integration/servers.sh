# Real servers for the integration tests and the demo, on loopback only.
# Source this file; call need_<server> before using one: it starts the server
# once (configuration, certificates and logs under $SRV) and exports its ports.
# stop_servers stops everything started from this $SRV.
: "${SRV:=${TMPDIR:-/tmp}/loadgen-srv.$$}"
mkdir -p "$SRV"
# nginx's and squid's workers run as unprivileged users and must read their
# files here; mktemp -d makes the directory 0700
chmod 755 "$SRV"
export SRV

# Loopback ports: LG_PORT_BASE plus a fixed offset each, so two runs on one
# machine can use different bases.
: "${LG_PORT_BASE:=18000}"
export LG_PORT_BASE
export NGINX_HTTP_PORT=$((LG_PORT_BASE + 80))
export NGINX_HTTPS_PORT=$((LG_PORT_BASE + 443))
export NGINX_H2C_PORT=$((LG_PORT_BASE + 82))
export NGINX_UNIX=$SRV/nginx.sock
export NGHTTPD_H2C_PORT=$((LG_PORT_BASE + 90))
export NGHTTPD_TLS_PORT=$((LG_PORT_BASE + 91))
export NGHTTPD_LIMIT_PORT=$((LG_PORT_BASE + 92))
export NGHTTPD_ONE_PORT=$((LG_PORT_BASE + 94))
export UNTRUSTED_TLS_PORT=$((LG_PORT_BASE + 444))
export RESUME_CACHE_PORT=$((LG_PORT_BASE + 445))
export RESUME_OFF_PORT=$((LG_PORT_BASE + 446))
export RESUME_NONE_PORT=$((LG_PORT_BASE + 447))
export TINYPROXY_PORT=$((LG_PORT_BASE + 888))
export MITM_PORT=$((LG_PORT_BASE + 889))
export SQUID_PORT=$((LG_PORT_BASE + 887))
export HTTPFAULT_PORT=$((LG_PORT_BASE + 99))
export BACKLOG_PORT=$((LG_PORT_BASE + 98))
export ALPNSPLIT_PORT=$((LG_PORT_BASE + 448))
export HTTPFAULT_RESET_PORT=$((LG_PORT_BASE + 97))
export HTTPFAULT_TLS_PORT=$((LG_PORT_BASE + 96))
export CADDY_PORT=$((LG_PORT_BASE + 453))
export CADDY_OTHERNAME_PORT=$((LG_PORT_BASE + 454))
export NGTCP2_PORT=$((LG_PORT_BASE + 456))
export NGTCP2_OTHERNAME_PORT=$((LG_PORT_BASE + 457))
export NAMES_HTTPS_PORT=$((LG_PORT_BASE + 470))
export NAMES_HTTP_PORT=$((LG_PORT_BASE + 471))
export NAMES_MITM_PORT=$((LG_PORT_BASE + 472))

_wait_port() { # host port seconds
    local i
    for ((i = 0; i < ${3:-10} * 10; i++)); do
        (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "servers.sh: nothing listens on $1:$2 after ${3:-10}s" >&2
    return 1
}

# _port_free PORT...: nothing listens on these loopback ports yet (TCP or
# UDP). A server left from another run would otherwise answer in place of the
# one this run configures, with another configuration and certificate.
_port_free() {
    local p
    for p in "$@"; do
        # ss first: a connect to a listener that never accepts (backlog.py
        # left from another run, its queue full) waits for ever; bounded
        # where ss is missing
        if { command -v ss >/dev/null && [ -n "$(ss -Hln "( sport = :$p )" -t -u)" ]; } ||
            { ! command -v ss >/dev/null && timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$p" 2>/dev/null; }; then
            echo "servers.sh: 127.0.0.1:$p is already in use (a server left from another run? set LG_PORT_BASE to use other ports)" >&2
            return 1
        fi
    done
}

# need_certs: a test CA, a server certificate for localhost/127.0.0.1/::1
# signed by it, a certificate it signed for another name (other.test), and a
# second, untrusted CA with its own server certificate.
need_certs() {
    [ -f "$SRV/certs/server.pem" ] && return 0
    mkdir -p "$SRV/certs"
    (
        cd "$SRV/certs" || exit 1
        for ca in ca rogue; do
            openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=loadgen test $ca" \
                -keyout $ca.key -out $ca.pem -addext basicConstraints=critical,CA:TRUE \
                -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null || exit 1
        done
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >ext.cnf
        printf 'subjectAltName=DNS:other.test\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >other.cnf
        for who in server:ca:ext untrusted:rogue:ext othername:ca:other; do
            name=${who%%:*}; rest=${who#*:}; ca=${rest%%:*}; ext=${rest#*:}
            openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout $name.key \
                -out $name.csr 2>/dev/null || exit 1
            openssl x509 -req -in $name.csr -CA $ca.pem -CAkey $ca.key -CAcreateserial \
                -days 30 -extfile $ext.cnf -out $name.pem 2>/dev/null || exit 1
        done
    ) || { echo "servers.sh: making test certificates failed" >&2; return 1; }
    export CA_PEM=$SRV/certs/ca.pem
}
export CA_PEM=$SRV/certs/ca.pem

# nginx_conf_head, the start of every nginx.conf written here and in bench/
# shellcheck source=tests/integration/nginx_conf.sh
. "$(dirname "${BASH_SOURCE[0]}")/nginx_conf.sh"

# need_nginx: HTTP/1.1 on NGINX_HTTP_PORT and a Unix socket, HTTPS (h2 and
# http/1.1 by ALPN) on NGINX_HTTPS_PORT, h2c prior knowledge on NGINX_H2C_PORT,
# and an HTTPS listener with an untrusted certificate on UNTRUSTED_TLS_PORT.
# Locations: / (small page), /close (Connection: close), /missing (404),
# /big.bin (1 MiB), /small (a 6-byte body), /chunked (chunked body), /echo
# (POST body echoed back).
# /t/ (any path under it: 200, its own access log $SRV/nginx/targets.log,
# one line per request: connection number, request number on it, method,
# URI, the Connection header, Content-Length, the request's whole length and
# the X-Target header).
# Two name-based virtual hosts, vhost-a.test and vhost-b.test, on the same
# HTTP, HTTPS and h2c listeners, each logging its own requests (one line each:
# the protocol, then the host) to $SRV/nginx/vhost-a.log and vhost-b.log.
# TLS session resumption, HTTPS over TLS 1.2 (session IDs, not TLS 1.3's
# tickets-only resumption), each listener logging one line per request to
# $SRV/nginx/resume-<name>.log: "r" when the request's connection resumed a
# session, "." when not: RESUME_CACHE_PORT resumes from a session cache with
# tickets off; RESUME_OFF_PORT (cache off, tickets off) gives no session to
# resume; RESUME_NONE_PORT (cache none, tickets off) gives session IDs but
# keeps no session, so it resumes none. NGINX_HTTPS_PORT resumes from tickets.
need_nginx() {
    [ -f "$SRV/nginx/nginx.pid" ] && kill -0 "$(cat "$SRV/nginx/nginx.pid")" 2>/dev/null && return 0
    need_certs || return 1
    _port_free "$NGINX_HTTP_PORT" "$NGINX_HTTPS_PORT" "$NGINX_H2C_PORT" "$UNTRUSTED_TLS_PORT" \
        "$RESUME_CACHE_PORT" "$RESUME_OFF_PORT" "$RESUME_NONE_PORT" || return 1
    local d=$SRV/nginx
    mkdir -p "$d/www" "$d/tmp"
    echo "hello from nginx" >"$d/www/index.html"
    head -c 1048576 /dev/zero | tr '\0' 'x' >"$d/www/big.bin"
    {
        nginx_conf_head "$d"
        cat <<CONF
    log_format targets '\$connection \$connection_requests \$request_method \$request_uri "\$http_connection" \$content_length \$request_length "\$http_x_target"';
    server {
        listen 127.0.0.1:$NGINX_HTTP_PORT;
        listen unix:$NGINX_UNIX;
        listen 127.0.0.1:$NGINX_HTTPS_PORT ssl http2;
        listen 127.0.0.1:$NGINX_H2C_PORT http2;
        ssl_certificate $SRV/certs/server.pem;
        ssl_certificate_key $SRV/certs/server.key;
        root $d/www;
        location = /close { keepalive_timeout 0; return 200 "bye\n"; }
        location = /missing { return 404; }
        location = /small { return 200 "small\n"; }
        location = /chunked { chunked_transfer_encoding on; gzip on; gzip_min_length 1; gzip_types text/plain; return 200 "a chunked reply\n"; }
        location /t/ { access_log $d/targets.log targets; return 200 "target\n"; }
        location = /echo { client_max_body_size 10m; client_body_buffer_size 10m; echo_read_request_body_off_placeholder off; }
    }
    log_format vhost '\$server_protocol \$host';
CONF
        local v
        for v in a b; do
            cat <<CONF
    server {
        listen 127.0.0.1:$NGINX_HTTP_PORT;
        listen 127.0.0.1:$NGINX_HTTPS_PORT ssl http2;
        listen 127.0.0.1:$NGINX_H2C_PORT http2;
        server_name vhost-$v.test;
        ssl_certificate $SRV/certs/server.pem;
        ssl_certificate_key $SRV/certs/server.key;
        access_log $d/vhost-$v.log vhost;
        location / { return 200 "vhost $v\n"; }
    }
CONF
        done
        cat <<CONF
    server {
        listen 127.0.0.1:$UNTRUSTED_TLS_PORT ssl;
        ssl_certificate $SRV/certs/untrusted.pem;
        ssl_certificate_key $SRV/certs/untrusted.key;
        location / { return 200 "untrusted\n"; }
    }
    log_format resumed '\$ssl_session_reused';
CONF
        local name port cache
        while read -r name port cache; do
            cat <<CONF
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $SRV/certs/server.pem;
        ssl_certificate_key $SRV/certs/server.key;
        ssl_protocols TLSv1.2;
        ssl_session_cache $cache;
        ssl_session_tickets off;
        access_log $d/resume-$name.log resumed;
        location / { return 200 "resume $name\n"; }
    }
CONF
        done <<LIST
cache $RESUME_CACHE_PORT shared:resume:1m
off $RESUME_OFF_PORT off
none $RESUME_NONE_PORT none
LIST
        echo "}"
    } >"$d/nginx.conf"
    # nginx has no echo module in Debian's light build: /echo answers the POST with a static page
    sed -i 's/echo_read_request_body_off_placeholder off;/return 200 "posted\\n";/' "$d/nginx.conf"
    nginx -c "$d/nginx.conf" -p "$d" -e "$d/error.log" || { cat "$d/error.log" >&2; return 1; }
    _wait_port 127.0.0.1 "$NGINX_HTTP_PORT" && _wait_port 127.0.0.1 "$NGINX_HTTPS_PORT"
}

# need_names_nginx: an origin for many host names (--resolve, --targets
# across origins): a certificate for *.example.test signed by the test CA,
# HTTPS (h2 and http/1.1) on NAMES_HTTPS_PORT and HTTP on NAMES_HTTP_PORT,
# both on 127.0.0.1 and [::1]; every request logged to $SRV/names/names.log
# as: the SNI the client sent ("-" for none), the Host (or :authority), the
# server's port, its address, nginx's connection number, the request's
# number on it and the URI. Under /close/ nginx closes the connection after
# each response.
need_names_nginx() {
    [ -f "$SRV/names/nginx.pid" ] && kill -0 "$(cat "$SRV/names/nginx.pid")" 2>/dev/null && return 0
    need_certs || return 1
    _port_free "$NAMES_HTTPS_PORT" "$NAMES_HTTP_PORT" || return 1
    local d=$SRV/names
    mkdir -p "$d/tmp"
    (
        cd "$SRV/certs" || exit 1
        printf 'subjectAltName=DNS:*.example.test\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >wild.cnf
        openssl req -newkey rsa:2048 -nodes -subj "/CN=*.example.test" -keyout wild.key \
            -out wild.csr 2>/dev/null &&
            openssl x509 -req -in wild.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 \
                -extfile wild.cnf -out wild.pem 2>/dev/null
    ) || { echo "servers.sh: making the *.example.test certificate failed" >&2; return 1; }
    {
        nginx_conf_head "$d" workers=1
        cat <<CONF
    log_format names '\$ssl_server_name \$host \$server_port \$server_addr \$connection \$connection_requests \$request_uri';
    server {
        listen 127.0.0.1:$NAMES_HTTPS_PORT ssl http2;
        listen [::1]:$NAMES_HTTPS_PORT ssl http2;
        listen 127.0.0.1:$NAMES_HTTP_PORT;
        listen [::1]:$NAMES_HTTP_PORT;
        ssl_certificate $SRV/certs/wild.pem;
        ssl_certificate_key $SRV/certs/wild.key;
        access_log $d/names.log names;
        location / { return 200 "name \$host\n"; }
        location /close/ { keepalive_timeout 0; return 200 "closed \$host\n"; }
    }
}
CONF
    } >"$d/nginx.conf"
    nginx -c "$d/nginx.conf" -p "$d" -e "$d/error.log" || { cat "$d/error.log" >&2; return 1; }
    _wait_port 127.0.0.1 "$NAMES_HTTPS_PORT" && _wait_port 127.0.0.1 "$NAMES_HTTP_PORT"
}

# need_names_mitmproxy: mitmproxy on NAMES_MITM_PORT that sends every
# upstream connection to 127.0.0.1 (tests/fixtures/mitm_resolve.py: the
# names CONNECT carries are in no DNS), trusting the test CA upstream; its
# own CA in $SRV/names-mitm/mitmproxy-ca-cert.pem (NAMES_MITM_CA).
need_names_mitmproxy() {
    [ -f "$SRV/names-mitm/mitm.pid" ] && kill -0 "$(cat "$SRV/names-mitm/mitm.pid")" 2>/dev/null && return 0
    need_certs || return 1
    _port_free "$NAMES_MITM_PORT" || return 1
    local d=$SRV/names-mitm here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)
    mkdir -p "$d"
    mitmdump --listen-host 127.0.0.1 -p "$NAMES_MITM_PORT" --set confdir="$d" \
        --set ssl_verify_upstream_trusted_ca="$SRV/certs/ca.pem" -s "$here/mitm_resolve.py" \
        -q >"$d/mitm.log" 2>&1 &
    echo $! >"$d/mitm.pid"
    _wait_port 127.0.0.1 "$NAMES_MITM_PORT" 30 || return 1
    local i
    for ((i = 0; i < 100; i++)); do [ -f "$d/mitmproxy-ca-cert.pem" ] && break; sleep 0.1; done
    export NAMES_MITM_CA=$d/mitmproxy-ca-cert.pem
}
export NAMES_MITM_CA=$SRV/names-mitm/mitmproxy-ca-cert.pem

# nginx_workers: the PIDs of the tests' nginx's worker processes, one a line.
nginx_workers() { pgrep -P "$(cat "$SRV/nginx/nginx.pid")"; }

# need_nghttpd: h2c (prior knowledge) on NGHTTPD_H2C_PORT and h2 over TLS on
# NGHTTPD_TLS_PORT, serving $SRV/nghttpd/www; and h2c on NGHTTPD_LIMIT_PORT
# allowing only 2 concurrent streams per connection (SETTINGS), and on
# NGHTTPD_ONE_PORT only 1.
need_nghttpd() {
    [ -f "$SRV/nghttpd/h2c.pid" ] && kill -0 "$(cat "$SRV/nghttpd/h2c.pid")" 2>/dev/null && return 0
    need_certs || return 1
    _port_free "$NGHTTPD_H2C_PORT" "$NGHTTPD_TLS_PORT" "$NGHTTPD_LIMIT_PORT" "$NGHTTPD_ONE_PORT" ||
        return 1
    local d=$SRV/nghttpd
    mkdir -p "$d/www"
    echo "hello from nghttpd" >"$d/www/index.html"
    nghttpd --no-tls -d "$d/www" --address=127.0.0.1 "$NGHTTPD_H2C_PORT" >"$d/h2c.log" 2>&1 &
    echo $! >"$d/h2c.pid"
    nghttpd -d "$d/www" --address=127.0.0.1 "$NGHTTPD_TLS_PORT" "$SRV/certs/server.key" \
        "$SRV/certs/server.pem" >"$d/tls.log" 2>&1 &
    echo $! >"$d/tls.pid"
    nghttpd --no-tls --max-concurrent-streams=2 -d "$d/www" --address=127.0.0.1 \
        "$NGHTTPD_LIMIT_PORT" >"$d/limit.log" 2>&1 &
    echo $! >"$d/limit.pid"
    nghttpd --no-tls --max-concurrent-streams=1 -d "$d/www" --address=127.0.0.1 \
        "$NGHTTPD_ONE_PORT" >"$d/one.log" 2>&1 &
    echo $! >"$d/one.pid"
    _wait_port 127.0.0.1 "$NGHTTPD_H2C_PORT" && _wait_port 127.0.0.1 "$NGHTTPD_TLS_PORT" &&
        _wait_port 127.0.0.1 "$NGHTTPD_LIMIT_PORT" && _wait_port 127.0.0.1 "$NGHTTPD_ONE_PORT"
}

# need_tinyproxy: a forward proxy doing CONNECT and absolute-form requests.
need_tinyproxy() {
    [ -f "$SRV/tinyproxy/tinyproxy.pid" ] && kill -0 "$(cat "$SRV/tinyproxy/tinyproxy.pid")" 2>/dev/null && return 0
    _port_free "$TINYPROXY_PORT" || return 1
    local d=$SRV/tinyproxy
    mkdir -p "$d"
    cat >"$d/tinyproxy.conf" <<CONF
Port $TINYPROXY_PORT
Listen 127.0.0.1
Timeout 60
MaxClients 1024
Allow 127.0.0.1
ConnectPort $NGINX_HTTPS_PORT
ConnectPort $NGINX_HTTP_PORT
ConnectPort $NGHTTPD_TLS_PORT
ConnectPort $HTTPFAULT_RESET_PORT
PidFile "$d/tinyproxy.pid"
LogFile "$d/tinyproxy.log"
LogLevel Warning
DisableViaHeader Yes
CONF
    tinyproxy -d -c "$d/tinyproxy.conf" >"$d/stdout.log" 2>&1 &
    echo $! >"$d/tinyproxy.pid"
    _wait_port 127.0.0.1 "$TINYPROXY_PORT"
}

# need_squid: a caching-off forward proxy with keep-alive to clients and
# servers, for absolute-form requests and CONNECT.
need_squid() {
    [ -f "$SRV/squid/squid.pid" ] && kill -0 "$(cat "$SRV/squid/squid.pid")" 2>/dev/null && return 0
    _port_free "$SQUID_PORT" || return 1
    local d=$SRV/squid
    mkdir -p "$d"
    cat >"$d/squid.conf" <<CONF
http_port 127.0.0.1:$SQUID_PORT
pid_filename $d/squid.pid
cache deny all
cache_mem 8 MB
cache_dir null /tmp
access_log none
cache_store_log none
cache_log $d/cache.log
coredump_dir $d
acl localhost src 127.0.0.1/32
acl loopback_dst dst 127.0.0.0/8
acl SSL_ports port $NGINX_HTTPS_PORT $NGHTTPD_TLS_PORT
acl CONNECT method CONNECT
http_access deny CONNECT !SSL_ports
http_access allow localhost loopback_dst
http_access deny all
client_persistent_connections on
server_persistent_connections on
shutdown_lifetime 0 seconds
workers 1
CONF
    chown -R proxy:proxy "$d" 2>/dev/null
    squid -f "$d/squid.conf" -N >"$d/stdout.log" 2>&1 &
    echo $! >"$d/squid.main.pid"
    _wait_port 127.0.0.1 "$SQUID_PORT" 20
}

# need_mitmproxy: an HTTPS man-in-the-middle proxy with its own CA
# ($SRV/mitmproxy/mitmproxy-ca-cert.pem), trusting the test CA upstream.
need_mitmproxy() {
    [ -f "$SRV/mitmproxy/mitm.pid" ] && kill -0 "$(cat "$SRV/mitmproxy/mitm.pid")" 2>/dev/null && return 0
    need_certs || return 1
    _port_free "$MITM_PORT" || return 1
    local d=$SRV/mitmproxy
    mkdir -p "$d"
    mitmdump --listen-host 127.0.0.1 -p "$MITM_PORT" --set confdir="$d" \
        --set ssl_verify_upstream_trusted_ca="$SRV/certs/ca.pem" -q >"$d/mitm.log" 2>&1 &
    echo $! >"$d/mitm.pid"
    _wait_port 127.0.0.1 "$MITM_PORT" 30 || return 1
    local i
    for ((i = 0; i < 100; i++)); do [ -f "$d/mitmproxy-ca-cert.pem" ] && break; sleep 0.1; done
    export MITM_CA=$d/mitmproxy-ca-cert.pem
}
export MITM_CA=$SRV/mitmproxy/mitmproxy-ca-cert.pem

# need_caddy: caddy serving HTTP/1.1, HTTP/2 and HTTP/3 (QUIC on the same
# port, UDP) with the test certificate on CADDY_PORT, from $SRV/caddy/www:
# /index.html (small), /big.bin (1 MiB), /missing (404), /echo (200 to any
# method), /fault/PATH (PATH of the HTTP fault fixture, proxied: start it
# with need_httpfault); every request is a line of JSON in $SRV/caddy/access.log
# ("proto":"HTTP/3.0" for HTTP/3). CADDY_OTHERNAME_PORT serves the same with
# a certificate for other.test (trusted CA, another name).
need_caddy() {
    [ -f "$SRV/caddy/caddy.pid" ] && kill -0 "$(cat "$SRV/caddy/caddy.pid")" 2>/dev/null && return 0
    command -v caddy >/dev/null || { echo "servers.sh: caddy is not installed" >&2; return 1; }
    need_certs || return 1
    _port_free "$CADDY_PORT" "$CADDY_OTHERNAME_PORT" || return 1
    local d=$SRV/caddy
    mkdir -p "$d/www" "$d/home"
    echo "hello from caddy" >"$d/www/index.html"
    head -c 1048576 /dev/zero | tr '\0' 'x' >"$d/www/big.bin"
    : >"$d/access.log"
    cat >"$d/Caddyfile" <<CONF
{
	admin off
	auto_https off
	servers {
		protocols h1 h2 h3
	}
	log {
		output file $d/caddy.log
	}
	storage file_system $d/home/data
}
(site) {
	root * $d/www
	handle_path /fault/* {
		reverse_proxy 127.0.0.1:$HTTPFAULT_PORT
	}
	respond /missing 404
	respond /echo "posted" 200
	file_server
	log {
		output file $d/access.log
		format json
	}
}
https://127.0.0.1:$CADDY_PORT {
	bind 127.0.0.1
	tls $SRV/certs/server.pem $SRV/certs/server.key
	import site
}
https://127.0.0.1:$CADDY_OTHERNAME_PORT {
	bind 127.0.0.1
	tls $SRV/certs/othername.pem $SRV/certs/othername.key
	import site
}
CONF
    HOME=$d/home XDG_DATA_HOME=$d/home/data XDG_CONFIG_HOME=$d/home/config \
        caddy run --config "$d/Caddyfile" --adapter caddyfile >"$d/stdout.log" 2>&1 &
    echo $! >"$d/caddy.pid"
    _wait_port 127.0.0.1 "$CADDY_PORT" 20 && _wait_port 127.0.0.1 "$CADDY_OTHERNAME_PORT" 20 &&
        _wait_udp 127.0.0.1 "$CADDY_PORT" 20
}

# need_ngtcp2_server: ngtcp2's example HTTP/3 server (Debian's ngtcp2-server,
# GnuTLS flavour) serving $SRV/ngtcp2/www (/index.html, /big.bin of 1 MiB)
# with the test certificate on NGTCP2_PORT, and with the certificate for
# other.test (and nothing else) on NGTCP2_OTHERNAME_PORT.
need_ngtcp2_server() {
    [ -f "$SRV/ngtcp2/server.pid" ] && kill -0 "$(cat "$SRV/ngtcp2/server.pid")" 2>/dev/null && return 0
    local bin
    bin=$(command -v gtlsserver || echo /usr/sbin/gtlsserver)
    [ -x "$bin" ] || { echo "servers.sh: gtlsserver (ngtcp2-server) is not installed" >&2; return 1; }
    need_certs || return 1
    _port_free "$NGTCP2_PORT" "$NGTCP2_OTHERNAME_PORT" || return 1
    local d=$SRV/ngtcp2
    mkdir -p "$d/www"
    echo "hello from ngtcp2" >"$d/www/index.html"
    head -c 1048576 /dev/zero | tr '\0' 'x' >"$d/www/big.bin"
    "$bin" -q -d "$d/www" 127.0.0.1 "$NGTCP2_PORT" "$SRV/certs/server.key" \
        "$SRV/certs/server.pem" >"$d/server.log" 2>&1 &
    echo $! >"$d/server.pid"
    "$bin" -q -d "$d/www" 127.0.0.1 "$NGTCP2_OTHERNAME_PORT" "$SRV/certs/othername.key" \
        "$SRV/certs/othername.pem" >"$d/othername.log" 2>&1 &
    echo $! >"$d/othername.pid"
    _wait_udp 127.0.0.1 "$NGTCP2_PORT" && _wait_udp 127.0.0.1 "$NGTCP2_OTHERNAME_PORT"
}

# _wait_udp HOST PORT SECONDS: something has bound the UDP port.
_wait_udp() {
    local i
    for ((i = 0; i < ${3:-10} * 10; i++)); do
        [ -n "$(ss -Hlnu "src $1:$2" 2>/dev/null)" ] && return 0
        sleep 0.1
    done
    echo "servers.sh: nothing bound UDP $1:$2 after ${3:-10}s" >&2
    return 1
}

stop_servers() {
    local f pids=()
    if [ -f "$SRV/nginx/nginx.pid" ]; then
        pids+=("$(cat "$SRV/nginx/nginx.pid")")
        nginx -c "$SRV/nginx/nginx.conf" -p "$SRV/nginx" -e "$SRV/nginx/error.log" -s stop 2>/dev/null || true
    fi
    for f in "$SRV"/*/*.pid; do
        [ -f "$f" ] || continue
        case $f in */nginx/nginx.pid) continue ;; esac
        pids+=("$(cat "$f")")
        kill "$(cat "$f")" 2>/dev/null || true
        rm -f "$f"
    done
    for f in "$SRV"/*/*.stop; do if [ -x "$f" ]; then "$f" || true; fi; done
    # wait until they are gone, so a later need_* cannot mistake a dying
    # server for a running one
    local i p
    for ((i = 0; i < 50; i++)); do
        local alive=0
        for p in "${pids[@]}"; do if kill -0 "$p" 2>/dev/null; then alive=1; fi; done
        ((alive)) || break
        sleep 0.1
    done
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    rm -f "$SRV/nginx/nginx.pid"
    return 0
}

# need_httpfault: the misbehaving HTTP fixture (tests/fixtures/httpfault.py).
need_httpfault() {
    [ -f "$SRV/httpfault/httpfault.pid" ] && kill -0 "$(cat "$SRV/httpfault/httpfault.pid")" 2>/dev/null && return 0
    need_certs || return 1
    _port_free "$HTTPFAULT_PORT" "$HTTPFAULT_RESET_PORT" "$HTTPFAULT_TLS_PORT" || return 1
    mkdir -p "$SRV/httpfault"
    local here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)
    python3 "$here/httpfault.py" "$HTTPFAULT_PORT" "$HTTPFAULT_RESET_PORT" "$HTTPFAULT_TLS_PORT" \
        "$SRV/certs/server.pem" "$SRV/certs/server.key" >"$SRV/httpfault/log" 2>&1 &
    echo $! >"$SRV/httpfault/httpfault.pid"
    _wait_port 127.0.0.1 "$HTTPFAULT_PORT" && _wait_port 127.0.0.1 "$HTTPFAULT_RESET_PORT" &&
        _wait_port 127.0.0.1 "$HTTPFAULT_TLS_PORT"
}

# need_alpnsplit: a TLS front on ALPNSPLIT_PORT (tests/fixtures/alpnsplit.py)
# that agrees to h2 and http/1.1 on alternate connections, relaying them to
# nginx's h2c and HTTP/1.1 ports: one run meets both protocols.
need_alpnsplit() {
    [ -f "$SRV/alpnsplit/alpnsplit.pid" ] && kill -0 "$(cat "$SRV/alpnsplit/alpnsplit.pid")" 2>/dev/null && return 0
    need_nginx || return 1
    _port_free "$ALPNSPLIT_PORT" || return 1
    mkdir -p "$SRV/alpnsplit"
    local here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)
    python3 "$here/alpnsplit.py" "$ALPNSPLIT_PORT" "$SRV/certs/server.pem" "$SRV/certs/server.key" \
        "$NGINX_H2C_PORT" "$NGINX_HTTP_PORT" >"$SRV/alpnsplit/log" 2>&1 &
    echo $! >"$SRV/alpnsplit/alpnsplit.pid"
    _wait_port 127.0.0.1 "$ALPNSPLIT_PORT"
}

# need_backlog: a listener that never accepts (tests/fixtures/backlog.py): once
# its queue of one is full, connects to BACKLOG_PORT time out.
need_backlog() {
    [ -f "$SRV/backlog/backlog.pid" ] && kill -0 "$(cat "$SRV/backlog/backlog.pid")" 2>/dev/null && return 0
    _port_free "$BACKLOG_PORT" || return 1
    mkdir -p "$SRV/backlog"
    local here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)
    python3 "$here/backlog.py" "$BACKLOG_PORT" >"$SRV/backlog/log" 2>&1 &
    echo $! >"$SRV/backlog/backlog.pid"
    _wait_port 127.0.0.1 "$BACKLOG_PORT"
}
