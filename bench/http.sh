#!/usr/bin/env bash
# Archives over HTTP on loopback: nginx (own prefix, a free port on 127.0.0.1) serves a synthetic
# archive; prints the bytes nginx sent for each --shard K/N (against the archive's size), the time
# to the first context (mcs -dump 1) and the replay time from the URL and from the file.
#   bench/http.sh [CONTEXTS]      (default 20000; bin/ built first)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/bin
CONTEXTS=${1:-20000}
T=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$T/www" "$T/logs" "$T/tmp"
cat >"$T/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $T/nginx.pid; error_log $T/logs/error.log;
events { worker_connections 64; }
http {
    log_format sent "\$body_bytes_sent";
    access_log $T/logs/access.log sent;
    client_body_temp_path $T/tmp; proxy_temp_path $T/tmp; fastcgi_temp_path $T/tmp;
    uwsgi_temp_path $T/tmp; scgi_temp_path $T/tmp;
    server { listen 127.0.0.1:$PORT; root $T/www; }
}
CONF
"$(command -v nginx || echo /usr/sbin/nginx)" -p "$T" -c "$T/nginx.conf" &
NGINX_PID=$!
trap 'kill $NGINX_PID 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
sleep 0.5
"$BIN/mchgen" --seed 1 --contexts "$CONTEXTS" --out "$T/c.mch" >/dev/null
"$BIN/mcs" -convert "$T/c.mch" "$T/www/c.mcz" >/dev/null
L=$T/www/c.mcz
U=http://127.0.0.1:$PORT/c.mcz
size=$(stat -c %s "$L")
sent() { awk '{s += $1} END {print s + 0}' "$T/logs/access.log"; }
now() { date +%s.%N; }
echo "archive: $CONTEXTS contexts, $size bytes"
: >"$T/logs/access.log"; "$BIN/mcs" -info "$U" >/dev/null
echo "open (footer, index, header, dictionary): $(sent) bytes"
for n in 1 4 16; do
    max=0; tot=0
    for k in $(seq $n); do
        : >"$T/logs/access.log"
        "$BIN/mcz-replay" -q -j 2 --shard $k/$n --results "$T/r.txt" "$U" >/dev/null
        s=$(sent); tot=$((tot + s)); [ "$s" -gt "$max" ] && max=$s
    done
    echo "--shard K/$n: at most $max bytes per shard ($(awk "BEGIN{printf \"%.1f\", 100*$max/$size}")% of the archive), $tot in all"
done
t0=$(now); "$BIN/mcs" -dump 1 "$U" >/dev/null; t1=$(now)
echo "time to first context (mcs -dump 1 URL): $(awk "BEGIN{printf \"%.0f\", 1000*($t1-$t0)}") ms"
t0=$(now); "$BIN/mcs" -dump 1 "$L" >/dev/null; t1=$(now)
echo "time to first context (mcs -dump 1 file): $(awk "BEGIN{printf \"%.0f\", 1000*($t1-$t0)}") ms"
t0=$(now); "$BIN/mcz-replay" -q -j 2 "$U" >/dev/null; t1=$(now)
url=$(awk "BEGIN{print $t1-$t0}")
t0=$(now); "$BIN/mcz-replay" -q -j 2 "$L" >/dev/null; t1=$(now)
file=$(awk "BEGIN{print $t1-$t0}")
raw=$(stat -c %s "$T/c.mch")
echo "replay -j 2 (verify), URL:  $(awk "BEGIN{printf \"%.2f s, %.0f MB/s of MCH\", $url, $raw/$url/1e6}")"
echo "replay -j 2 (verify), file: $(awk "BEGIN{printf \"%.2f s, %.0f MB/s of MCH\", $file, $raw/$file/1e6}")"
