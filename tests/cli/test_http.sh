#!/usr/bin/env bash
# Archives read over HTTP: nginx (started here, on 127.0.0.1, a free port, its own prefix) serves
# an archive; mcs verbs and mcz-replay read its URL and give what they give for the file; each
# --shard K/N downloads about 1/N of the chunks plus the index and dictionary (nginx's log of
# $body_bytes_sent); faults (503, 416, ranges ignored, a redirect loop, a wrong Content-Range, a
# short body, the server gone mid-run, the archive replaced mid-run) are clear errors naming the
# URL; MCZ_CACHE_DIR keeps what was fetched for later runs, never for another version. The
# answers nginx does not give come from http_faults.py.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$MCZ_ROOT/tests/cli/nginx.sh"
if [ ! -x "$NGINX" ] || [ ! -x /usr/bin/python3 ]; then
    echo "ok - skip: nginx (Debian nginx-light) or python3 is not installed (.ci/deps.sh installs them)"
    exit 0
fi
FAULTS_PID=
PLAIN_PID=
trap 'nginx_stop; kill $FAULTS_PID $PLAIN_PID 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
nginx_start "$T" '
        location /norange/ { alias $NGINX_DIR/www/; max_ranges 0; }
        location /e503/ { return 503; }
        location /e416/ { return 416; }
        location /moved/ { return 302 /c.mcz; }
        location /loop/ { return 302 /loop/c.mcz; }' || { fail "setup: nginx does not start"; cli_done; exit; }
PORT=$NGINX_PORT
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

# --- mcs -toc URL: the table goes to the current directory, named after the URL's file
mkdir -p "$T/here" "$T/there" && cp "$L" "$T/there/c.mcz"
"$BIN/mcs" -toc "$T/there/c.mcz" >/dev/null 2>&1
cd "$T/here"
ok_run "mcs -toc URL" "$BIN/mcs" -toc "$U/c.mcz?v=1"
same "mcs -toc URL: ./c.mcz.mct, the table the file gives" "$T/there/c.mcz.mct" "$T/here/c.mcz.mct"
fail_run "mcs -toc URL without a file name fails" "$BIN/mcs" -toc "$U/"
cd - >/dev/null
contains "mcs -toc URL without a file name: says why" "$T/err" "this URL has none"

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
head_bytes=$(nginx_sent "$T")
for k in $(seq $N); do
    : >"$T/logs/access.log"
    "$R" -q -j 1 --shard $k/$N --results "$T/s$k.txt" "$U/c.mcz" >/dev/null 2>&1
    sent=$(nginx_sent "$T")
    # 1/N of the chunks, plus the index and dictionary, plus at most the readahead past the shard
    limit=$(( head_bytes + (stored - head_bytes) / N + (stored - head_bytes) / N / 2 ))
    if [ "$sent" -le "$limit" ] && [ "$sent" -gt "$head_bytes" ]; then
        pass "shard $k/$N over HTTP: $sent bytes sent of $stored (index and dictionary $head_bytes)"
    else fail "shard $k/$N over HTTP: $sent bytes sent of $stored, more than $limit"; fi
done
"$R" -q --merge-results --details "$T/merged.csv" "$T"/s*.txt >"$T/merged.out" 2>&1
same "merged URL shards: same details as one run from the file" "$T/local.csv" "$T/merged.csv"

# --- small chunks: a shard's adjacent chunks come in few requests (units joined up to the
# shard over its workers, at most 4 MiB), its bytes still about 1/N
"$BIN/mcs" -convert "$T/c.mch" "$T/www/small.mcz" --chunk-size 16K >/dev/null 2>&1
chunks=$("$BIN/mcs" -info "$T/www/small.mcz" | awk '$1 == "chunks:" {print $2}')
stored=$(stat -c %s "$T/www/small.mcz")
"$R" -q -j 2 --details "$T/small.csv" "$T/www/small.mcz" >/dev/null 2>&1
: >"$T/logs/access.log"; "$BIN/mcs" -info "$U/small.mcz" >/dev/null 2>&1
head_bytes=$(nginx_sent "$T")
for k in $(seq $N); do
    : >"$T/logs/access.log"
    "$R" -q -j 2 --shard $k/$N --results "$T/small$k.txt" "$U/small.mcz" >/dev/null 2>&1
    sent=$(nginx_sent "$T") requests=$(nginx_requests "$T")
    limit=$(( head_bytes + (stored - head_bytes) / N + (stored - head_bytes) / N / 4 ))
    if [ "$requests" -lt $((chunks / N / 4)) ] && [ "$sent" -le "$limit" ]; then
        pass "shard $k/$N of $chunks small chunks: $requests requests, $sent bytes of $stored"
    else fail "shard $k/$N of $chunks small chunks: $requests requests, $sent bytes (limit $limit) of $stored"; fi
done
"$R" -q --merge-results --details "$T/small_merged.csv" "$T"/small*.txt >/dev/null 2>&1
same "small chunks, merged URL shards: same details as from the file" "$T/small.csv" "$T/small_merged.csv"
stored=$(stat -c %s "$L")

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
# A server that ignores ranges (nginx's max_ranges 0, `python3 -m http.server`) still serves:
# its whole body goes to the cache once, with a note; with no cache to write, the refusal names
# both ways forward.
MCZ_CACHE_DIR=$T/c.mch fault "ranges ignored (200), no cache can be written" "$U/norange/c.mcz" \
    "set MCZ_CACHE_DIR to a writable directory to fetch it once"
contains "ranges ignored, no cache: the refusal names a server with ranges" "$T/err" \
    "serve the file with ranges (nginx, for one)"
# HOME unset: the programs run natively only (Wine needs HOME for its prefix).
native=false
[ "$(head -c 4 "$BIN/mcs" | od -An -c | tr -d ' ')" = "177ELF" ] && native=true
if $native; then
    HOME= XDG_CACHE_HOME= fault "ranges ignored (200), no cache named at all" "$U/norange/c.mcz" \
        "(cache none: HOME unset)"
fi
W=$T/whole
"$BIN/mcs" -verify "$L" >"$T/local_verify.out" 2>&1
MCZ_CACHE_DIR=$W ok_run "ranges ignored, a cache: mcs -verify" "$BIN/mcs" -verify "$U/norange/c.mcz"
contains "ranges ignored: a note says the whole body was fetched once" "$T/err" \
    "the server ignores range requests, so its whole body ($stored bytes) was fetched once into the cache $W"
contains "ranges ignored: the note names a server with ranges" "$T/err" "nginx, for one"
sed "s|$U/norange/c.mcz|$L|g" "$T/out" >"$T/whole_verify.out"
grep -v "^mcz: note" "$T/local_verify.out" >"$T/local_verify.want"
same "ranges ignored: mcs -verify as from the file" "$T/local_verify.want" "$T/whole_verify.out"
MCZ_CACHE_DIR=$W ok_run "ranges ignored, cached: replay" "$R" -q -j 2 --details "$T/whole.csv" \
    "$U/norange/c.mcz"
same "ranges ignored, cached: replay details as from the file" "$T/local.csv" "$T/whole.csv"
if grep -q "whole body" "$T/err"; then fail "ranges ignored, cached: fetched again"; else
    pass "ranges ignored, cached: not fetched again (no note)"; fi
python3 -c 'import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()' "$T/www" >"$T/plain.port" 2>/dev/null &
PLAIN_PID=$!
for _ in $(seq 50); do [ -s "$T/plain.port" ] && break; sleep 0.1; done
P=http://127.0.0.1:$(cat "$T/plain.port")
"$BIN/mcs" -info "$L" >"$T/local_info.out" 2>&1
for f in c.mcz c.mch; do
    [ -e "$T/www/$f" ] || cp "$T/$f" "$T/www/$f"
    "$BIN/mcs" -info "$T/www/$f" 2>&1 | grep -v "^toc:" | sed "s|$T/www/$f|X|" >"$T/local_info.out"
    cache=(HOME="$T/home") # the user's cache; where HOME may not reach the program, named
    $native || cache=(MCZ_CACHE_DIR="$T/home/.cache/mcz")
    ok_run "python3 -m http.server serves $f (the user's cache)" env "${cache[@]}" "$BIN/mcs" \
        -info "$P/$f"
    sed "s|$P/$f|X|" "$T/out" >"$T/plain_info.out"
    same "python3 -m http.server: -info of $f as from the file" "$T/local_info.out" "$T/plain_info.out"
    contains "python3 -m http.server: $f cached in ~/.cache/mcz" "$T/err" "$T/home/.cache/mcz"
done
kill $PLAIN_PID 2>/dev/null
fault "503, retried" "$U/e503/c.mcz" "HTTP 503"
contains "503: retried 4 times" "$T/err" "4 tries"
fault "416" "$U/e416/c.mcz" "HTTP 416"
fault "404" "$U/missing.mcz" "HTTP 404 (not found) when opening it: check the URL's path"
grep -q "bytes at the end" "$T/err" && fail "404: no talk of bytes at the end" ||
    pass "404: no talk of bytes at the end"

python3 "$MCZ_ROOT/tests/cli/http_faults.py" "$L" >"$T/faults.port" 2>/dev/null &
FAULTS_PID=$!
for _ in $(seq 50); do [ -s "$T/faults.port" ] && break; sleep 0.1; done
F=http://127.0.0.1:$(cat "$T/faults.port")
ok_run "stand-in server: correct answers verify" "$BIN/mcs" -verify "$F/ok/c.mcz"
fault "wrong Content-Range" "$F/shifted/c.mcz" "the server sent range"
fault "short body" "$F/short/c.mcz" "tries"
fail_run "archive replaced mid-run (another ETag): mcs -verify fails" "$BIN/mcs" -verify "$F/changes/c.mcz"
contains "archive replaced mid-run: the error says so" "$T/err" "the archive changed while it was read"
fail_run "server stopped mid-run: mcs -verify fails" "$BIN/mcs" -verify "$F/dies/c.mcz"
contains "server stopped mid-run: the error names the URL" "$T/err" "$F/dies/c.mcz"
# --- the cache (MCZ_CACHE_DIR): a second run fetches only footers, a damaged piece is fetched
# again, an archive changed at the same URL (other bytes, or only a new Last-Modified and ETag)
# is never served from the old pieces, and a cache that cannot be written is only a warning
C=$T/cache
"$BIN/mcs" -verify "$L" >"$T/local_verify.out" 2>&1
cached_run() { # cached_run NAME OUT: mcz-replay and mcs -verify of the URL with the cache
    : >"$T/logs/access.log"
    MCZ_CACHE_DIR=$C "$R" -q -j 2 --details "$T/$2.csv" "$U/c.mcz" >/dev/null 2>"$T/$2.err"
    MCZ_CACHE_DIR=$C "$BIN/mcs" -verify "$U/c.mcz" 2>&1 | sed "s|$U/c.mcz|$L|g" >"$T/$2.out"
    same "$1: replay details as from the file" "$T/local.csv" "$T/$2.csv"
    same "$1: mcs -verify as from the file" "$T/local_verify.out" "$T/$2.out"
}
cached_run "cache, first run" cache1
first=$(nginx_sent "$T")
cached_run "cache, second run" cache2
second=$(nginx_sent "$T") requests=$(nginx_requests "$T")
footers=$(awk '$3 != 56' "$T/logs/access.log" | wc -l)
if [ "$first" -ge "$stored" ] && [ "$footers" -eq 0 ] && [ "$second" -eq $((56 * requests)) ]; then
    pass "cache: the second run fetches only footers ($requests requests, $second bytes; first run $first)"
else fail "cache: second run $second bytes in $requests requests ($footers not a footer), first $first"; fi

piece=$(ls -S "$C"/*/* | grep -v '/key$' | head -1)
name=${piece##*/}; off=$((16#${name%+*})); len=$((16#${name#*+}))
printf 'X' | dd of="$piece" bs=1 seek=$((len / 2)) conv=notrunc 2>/dev/null
cached_run "cache, a damaged piece" cache3
sent=$(nginx_sent "$T")
if [ "$sent" -ge "$len" ] && [ "$sent" -lt $((len + 56 * 40)) ]; then
    pass "cache: the damaged piece ($len bytes) is fetched again, nothing else ($sent bytes)"
else fail "cache: a damaged piece of $len bytes, $sent bytes fetched"; fi
dd if="$L" bs=1 skip="$off" count="$len" of="$T/piece.want" 2>/dev/null
head -c "$len" "$piece" >"$T/piece.got"
same "cache: the damaged piece is rewritten" "$T/piece.want" "$T/piece.got"

touch -d '2001-01-01 00:00:00' "$L" # the same bytes, another Last-Modified and ETag
cached_run "cache, archive touched" cache4
sent=$(nginx_sent "$T")
if [ "$sent" -ge "$stored" ]; then pass "cache: a new Last-Modified and ETag are a new archive ($sent bytes)"
else fail "cache: archive touched, only $sent bytes fetched of $stored"; fi
keys() { ls -d "$C"/*/ | wc -l; }
[ "$(keys)" -eq 2 ] && pass "cache: the touched archive has a key of its own" ||
    fail "cache: $(keys) keys after the archive was touched, not 2"

"$BIN/mchgen" --seed 8 --contexts 600 --out "$T/c2.mch" >/dev/null 2>&1
"$BIN/mcs" -convert "$T/c2.mch" "$T/c2.mcz" --chunk-size 128K >/dev/null 2>&1
touch -d '2001-01-01 00:00:00' "$T/c2.mcz"
cp -p "$T/c2.mcz" "$L" # other bytes under the same URL and the same Last-Modified
MCZ_CACHE_DIR=$C "$BIN/mcs" -dump "$U/c.mcz" >"$T/changed.out" 2>&1
"$BIN/mcs" -dump "$T/c2.mcz" >"$T/changed.want" 2>&1
same "cache: an archive changed at the same URL reads as the new one" "$T/changed.want" "$T/changed.out"
MCZ_CACHE_DIR=$C "$BIN/mcs" -export "$U/c.mcz" "$T/changed.mch" >/dev/null 2>&1
same "cache: an archive changed at the same URL exports the new contexts" "$T/c2.mch" "$T/changed.mch"
[ "$(keys)" -eq 3 ] && pass "cache: the changed archive has a key of its own" ||
    fail "cache: $(keys) keys after the archive changed, not 3"

MCZ_CACHE_DIR=$T/c.mch ok_run "cache that cannot be written: the run goes on" \
    "$BIN/mcs" -export "$U/c.mcz" "$T/nocache.mch"
contains "cache that cannot be written: a warning" "$T/err" "warning: cache $T/c.mch/"
same "cache that cannot be written: the contexts as without it" "$T/c2.mch" "$T/nocache.mch"
cli_done
