# nginx for the HTTP tests and bench/http.sh (sourced): one server of its own, no root needed.
#
# nginx_start DIR [LOCATIONS]: serves DIR/www on 127.0.0.1 at a free port, with DIR as its prefix
#   (config, pid, logs, temporary files) and LOCATIONS (nginx text, "$NGINX_DIR" usable) added
#   to the server block. Each request is a line "URI STATUS BYTES_SENT" of DIR/logs/access.log.
#   Sets NGINX_PORT and NGINX_PID and returns once nginx accepts connections (polled every
#   20 ms); 1 when nginx is missing, exits or is not ready within 10 s.
# nginx_sent DIR / nginx_requests DIR: bytes of bodies sent, requests answered (the log so far).
# nginx_stop: stops the server nginx_start started.
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

nginx_start() {
    local dir=$1 locations=${2:-}
    [ -x "$NGINX" ] || return 1
    NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])') || return 1
    mkdir -p "$dir/www" "$dir/logs" "$dir/tmp"
    cat >"$dir/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $dir/nginx.pid; error_log $dir/logs/error.log;
events { worker_connections 64; }
http {
    log_format sent "\$uri \$status \$body_bytes_sent";
    access_log $dir/logs/access.log sent;
    client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $dir/www;
        ${locations//\$NGINX_DIR/$dir}
    }
}
CONF
    "$NGINX" -p "$dir" -c "$dir/nginx.conf" 2>"$dir/nginx.err" &
    NGINX_PID=$!
    local tries
    for tries in $(seq 500); do
        kill -0 "$NGINX_PID" 2>/dev/null || { cat "$dir/nginx.err" >&2; return 1; }
        (exec 3<>"/dev/tcp/127.0.0.1/$NGINX_PORT") 2>/dev/null && return 0
        sleep 0.02
    done
    return 1
}

nginx_sent() { awk '{s += $3} END {print s + 0}' "$1/logs/access.log"; }
nginx_requests() { awk 'END {print NR}' "$1/logs/access.log"; }

nginx_stop() {
    [ -n "${NGINX_PID:-}" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
    NGINX_PID=
}
