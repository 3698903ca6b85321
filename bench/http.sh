#!/usr/bin/env bash
# Archives over HTTP on loopback: nginx (tests/cli/nginx.sh: own prefix, a free port on
# 127.0.0.1) serves a synthetic archive; prints the bytes and requests nginx answered for each
# --shard K/N (against the archive's size and chunks), the time to the first context
# (mcs -dump 1) and the replay time from the URL and from the file, then the same replay twice
# with a cache directory (MCZ_CACHE_DIR): bytes fetched and time, cold and warm.
#   bench/http.sh [CONTEXTS]      (default 20000; bin/ built first)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/bin
CONTEXTS=${1:-20000}
source "$ROOT/tests/cli/nginx.sh"
T=$(mktemp -d)
trap 'nginx_stop; rm -rf "$T"' EXIT
nginx_start "$T" || { echo "nginx does not start" >&2; exit 1; }
"$BIN/mchgen" --seed 1 --contexts "$CONTEXTS" --out "$T/c.mch" >/dev/null
"$BIN/mcs" -convert "$T/c.mch" "$T/www/c.mcz" >/dev/null
L=$T/www/c.mcz
U=http://127.0.0.1:$NGINX_PORT/c.mcz
size=$(stat -c %s "$L")
chunks=$("$BIN/mcs" -info "$L" | awk '$1 == "chunks:" {print $2}')
now() { date +%s.%N; }
ms() { awk "BEGIN{printf \"%.0f\", 1000*($2-$1)}"; }
pct() { awk "BEGIN{printf \"%.1f\", 100*$1/$size}"; }
clear_log() { : >"$T/logs/access.log"; }
echo "archive: $CONTEXTS contexts, $size bytes, $chunks chunks"
clear_log; "$BIN/mcs" -info "$U" >/dev/null
echo "open (footer, index, header, dictionary): $(nginx_sent "$T") bytes in $(nginx_requests "$T") requests"
"$BIN/mcs" -info "$L" --chunks | awk '$1 ~ /^[0-9]+$/ && NF == 7 {print $5, $5 + $6 - 1}' >"$T/chunks"
spanned() { # chunks holding the contexts a --results file lists
    awk 'NR == FNR {if ($1 ~ /^[0-9]+$/) {if (!lo || $1 < lo) lo = $1; if ($1 > hi) hi = $1}; next}
         $2 >= lo && $1 <= hi {n++} END {print n + 0}' "$1" "$T/chunks"
}
for n in 1 4 16; do
    max=0 tot=0 maxreq=0 maxchunks=0
    for k in $(seq $n); do
        clear_log
        "$BIN/mcz-replay" -q -j 2 --shard $k/$n --results "$T/r.txt" "$U" >/dev/null
        s=$(nginx_sent "$T") q=$(nginx_requests "$T") c=$(spanned "$T/r.txt")
        tot=$((tot + s)); [ "$s" -gt "$max" ] && max=$s; [ "$q" -gt "$maxreq" ] && maxreq=$q
        [ "$c" -gt "$maxchunks" ] && maxchunks=$c
    done
    echo "--shard K/$n: at most $max bytes per shard ($(pct $max)% of the archive), $tot in all;" \
         "at most $maxreq requests per shard (opening included), at most $maxchunks chunks per shard"
done
t0=$(now); "$BIN/mcs" -dump 1 "$U" >/dev/null; t1=$(now)
echo "time to first context (mcs -dump 1 URL): $(ms $t0 $t1) ms"
t0=$(now); "$BIN/mcs" -dump 1 "$L" >/dev/null; t1=$(now)
echo "time to first context (mcs -dump 1 file): $(ms $t0 $t1) ms"
raw=$(stat -c %s "$T/c.mch")
replay() { # replay LABEL INPUT [ENV...]: times mcz-replay -j 2 and the bytes nginx sent
    local label=$1 input=$2; shift 2
    clear_log
    local t0 t1; t0=$(now); env "$@" "$BIN/mcz-replay" -q -j 2 "$input" >/dev/null; t1=$(now)
    echo "replay -j 2 (verify), $label: $(ms $t0 $t1) ms," \
         "$(awk "BEGIN{printf \"%.0f\", $raw/($t1-$t0)/1e6}") MB/s of MCH, $(nginx_sent "$T") bytes fetched"
}
replay "URL" "$U"
replay "file" "$L"
replay "URL, cache cold" "$U" MCZ_CACHE_DIR="$T/cache"
replay "URL, cache warm" "$U" MCZ_CACHE_DIR="$T/cache"
t0=$(now); MCZ_CACHE_DIR=$T/cache "$BIN/mcs" -dump 1 "$U" >/dev/null; t1=$(now)
echo "time to first context (mcs -dump 1 URL, cache warm): $(ms $t0 $t1) ms"
