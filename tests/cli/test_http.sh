#!/usr/bin/env bash
# Archives read over HTTP: nginx (started here, on 127.0.0.1, a free port, its own prefix) serves
# an archive; mcs verbs and mcz-replay read its URL and give what they give for the file; each
# --shard K/N downloads about 1/N of the chunks plus the index and dictionary (nginx's log of
# $body_bytes_sent); faults (503, 416, ranges ignored, a redirect loop, a wrong Content-Range, a
# short body, the server gone mid-run) are clear errors naming the URL. The answers nginx does
# not give come from http_faults.py.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -x "$NGINX" ] || [ ! -x /usr/bin/python3 ]; then
    echo "ok - skip: nginx (Debian nginx-light) or python3 is not installed (.ci/deps.sh installs them)"
    exit 0
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
mkdir -p "$T/www" "$T/logs" "$T/tmp"
cat >"$T/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $T/nginx.pid; error_log $T/logs/error.log;
events { worker_connections 64; }
http {
    log_format sent "\$uri \$status \$body_bytes_sent";
    access_log $T/logs/access.log sent;
    client_body_temp_path $T/tmp; proxy_temp_path $T/tmp; fastcgi_temp_path $T/tmp;
    uwsgi_temp_path $T/tmp; scgi_temp_path $T/tmp;
    server {
        listen 127.0.0.1:$PORT;
        root $T/www;
        location /norange/ { alias $T/www/; max_ranges 0; }
        location /e503/ { return 503; }
        location /e416/ { return 416; }
        location /moved/ { return 302 /c.mcz; }
        location /loop/ { return 302 /loop/c.mcz; }
    }
}
CONF
"$NGINX" -p "$T" -c "$T/nginx.conf" 2>"$T/nginx.err" &
NGINX_PID=$!
FAULTS_PID=
trap 'kill $NGINX_PID $FAULTS_PID 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1',$PORT),1)" 2>/dev/null && break
    sleep 0.1
done
U=http://127.0.0.1:$PORT

"$BIN/mchgen" --seed 7 --contexts 600 --out "$T/c.mch" >/dev/null 2>&1
"$BIN/mcs" -convert "$T/c.mch" "$T/www/c.mcz" --chunk-size 128K >/dev/null 2>&1
[ -s "$T/www/c.mcz" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
L=$T/www/c.mcz

# --- mcs verbs: the URL reads as the file does (the file's name aside)
for verb in -info -verify -dump; do
    "$BIN/mcs" $verb "$L" >"$T/local.out" 2>&1; echo "exit $?" >>"$T/local.out"
    "$BIN/mcs" $verb "$U/c.mcz" >"$T/url.out" 2>&1; echo "exit $?" >>"$T/url.out"
    sed -i "s|$U/c.mcz|X|g; s|$L|X|g" "$T/local.out" "$T/url.out"
    same "mcs $verb: the URL gives what the file gives" "$T/local.out" "$T/url.out"
done
"$BIN/mcs" -copy 5-400 "$L" "$T/local_copy.mch" >/dev/null 2>&1
ok_run "mcs -copy from a URL" "$BIN/mcs" -copy 5-400 "$U/c.mcz" "$T/url_copy.mch"
same "mcs -copy from a URL: what the file gives" "$T/local_copy.mch" "$T/url_copy.mch"
ok_run "mcs -export from a URL" "$BIN/mcs" -export "$U/c.mcz" "$T/back.mch"
same "mcs -export from a URL: the original MCH" "$T/c.mch" "$T/back.mch"

# --- mcz-replay: whole runs and shards, merged, as from the file
R="$BIN/mcz-replay"
"$R" -q -j 2 --details "$T/local.csv" "$L" >"$T/local.out" 2>&1
ok_run "replay from a URL" "$R" -q -j 2 --details "$T/url.csv" "$U/c.mcz"
same "replay from a URL: same details as the file" "$T/local.csv" "$T/url.csv"
same "replay from a URL: same summary as the file" "$T/local.out" "$T/out"
N=4
stored=$(stat -c %s "$L")
: >"$T/logs/access.log"
"$BIN/mcs" -info "$U/c.mcz" >/dev/null 2>&1 # one open: footer, index, header and dictionary
head_bytes=$(awk '{s += $3} END {print s}' "$T/logs/access.log")
for k in $(seq $N); do
    : >"$T/logs/access.log"
    "$R" -q -j 1 --shard $k/$N --results "$T/s$k.txt" "$U/c.mcz" >/dev/null 2>&1
    sent=$(awk '{s += $3} END {print s}' "$T/logs/access.log")
    # 1/N of the chunks, plus the index and dictionary, plus at most the readahead past the shard
    limit=$(( head_bytes + (stored - head_bytes) / N + (stored - head_bytes) / N / 2 ))
    if [ "$sent" -le "$limit" ] && [ "$sent" -gt "$head_bytes" ]; then
        pass "shard $k/$N over HTTP: $sent bytes sent of $stored (index and dictionary $head_bytes)"
    else fail "shard $k/$N over HTTP: $sent bytes sent of $stored, more than $limit"; fi
done
"$R" -q --merge-results --details "$T/merged.csv" "$T"/s*.txt >"$T/merged.out" 2>&1
same "merged URL shards: same details as one run from the file" "$T/local.csv" "$T/merged.csv"

# --- redirects: followed (at most 3), a loop is an error
ok_run "a redirect is followed" "$BIN/mcs" -verify "$U/moved/c.mcz"
fail_run "a redirect loop is an error" "$BIN/mcs" -verify "$U/loop/c.mcz"
contains "a redirect loop: the error names the URL" "$T/err" "$U/loop/c.mcz"

# --- server answers that are errors, naming the URL
fault() { # fault NAME URL TEXT
    fail_run "$1: mcs -verify fails" "$BIN/mcs" -verify "$2"
    contains "$1: the error names the URL" "$T/err" "$2"
    contains "$1: the error says why" "$T/err" "$3"
    FAIL_EXIT=255 fail_run "$1: mcz-replay fails" "$R" -q "$2"
}
fault "ranges ignored (200)" "$U/norange/c.mcz" "ignores range requests"
fault "503, retried" "$U/e503/c.mcz" "HTTP 503"
contains "503: retried 4 times" "$T/err" "4 tries"
fault "416" "$U/e416/c.mcz" "HTTP 416"

python3 "$MCZ_ROOT/tests/cli/http_faults.py" "$L" >"$T/faults.port" 2>/dev/null &
FAULTS_PID=$!
for _ in $(seq 50); do [ -s "$T/faults.port" ] && break; sleep 0.1; done
F=http://127.0.0.1:$(cat "$T/faults.port")
ok_run "stand-in server: correct answers verify" "$BIN/mcs" -verify "$F/ok/c.mcz"
fault "wrong Content-Range" "$F/shifted/c.mcz" "the server sent range"
fault "short body" "$F/short/c.mcz" "tries"
fail_run "server stopped mid-run: mcs -verify fails" "$BIN/mcs" -verify "$F/dies/c.mcz"
contains "server stopped mid-run: the error names the URL" "$T/err" "$F/dies/c.mcz"
cli_done
