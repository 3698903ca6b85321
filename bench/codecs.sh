#!/usr/bin/env bash
# bench/codecs.sh - mcz's presets against generic compressors, side by side in one run, on the
# default corpus (mchgen --seed 1, 20,000 contexts): stored size and ratio, compression and full
# decompression speed (MB of MCH per second, wall, 2 cores), and the time to read one context
# from the middle. Seekable baselines: pixz (indexed xz), bgzip (BGZF, htslib), zck (zchunk);
# whole-file ones: xz -9, zstd -19 --long=27 (reading one context means decoding up to it).
# Writes bench/codecs.png (ratio against decompression speed) when gnuplot is there.
# Each preset is measured in the default packet layout and with --layout plain. The baseline is
# what a JIT engineer downloads today: superpmi.py's store holds each collection as X.mch.zip,
# one member deflated by Python's zipfile (ZIP_DEFLATED, default level); "vs .mch.zip" is each
# row's bytes against it, and one more row converts that zip straight to the default archive
# (mcs -convert X.mch.zip, nothing unpacked), which must give the same bytes as from the MCH.
# MCZ_ONLY=1 measures the mcz rows and that baseline alone (no generic compressors, no plot).
# Not a test: it prints figures. Usage: bash bench/codecs.sh [BIN] [CONTEXTS]
# Needs Debian's pixz, tabix (bgzip), zchunk, xz-utils, zstd (and gnuplot-nox for the plot).
set -euo pipefail
BIN=$(cd "${1:-bin}" && pwd)
CONTEXTS=${2:-20000}
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
tools="pixz bgzip zck xz zstd"
[ "${MCZ_ONLY:-0}" = 1 ] && tools=""
for tool in $tools; do
    command -v "$tool" >/dev/null || { echo "bench/codecs.sh: $tool is missing (apt-get install pixz tabix zchunk xz-utils zstd)" >&2; exit 1; }
done

"$BIN/mchgen" --seed 1 --contexts "$CONTEXTS" --out "$D/c.mch" >/dev/null
RAW=$(stat -c %s "$D/c.mch")
# The middle context: its number, and its offset and size in the MCH (walking the containers).
MID=$((CONTEXTS / 2))
read -r OFF LEN < <(python3 - "$D/c.mch" $MID <<'PY'
import struct, sys
f = open(sys.argv[1], 'rb'); want = int(sys.argv[2]); off = 0
for n in range(1, want + 1):
    f.seek(off); size = struct.unpack('<I', f.read(6)[2:6])[0] + 8
    if n == want: print(off, size)
    off += size
PY
)
printf 'corpus: %d contexts, %d bytes; one context: number %d (offset %d, %d bytes); %d cores; load %s\n' \
    "$CONTEXTS" "$RAW" "$MID" "$OFF" "$LEN" "$(getconf _NPROCESSORS_ONLN)" "$(cut -d' ' -f1-3 /proc/loadavg)"

now() { date +%s%N; }
mbps() { awk -v b="$RAW" -v ns="$1" 'BEGIN { printf "%.1f", b / 1e6 / (ns / 1e9) }'; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.3f", ns / 1e9 }'; }

rows=()
ZIP_BYTES=0 # the .mch.zip baseline's size, once measured
# row NAME FILE COMPRESS_NS DECOMPRESS_NS ONE_NS SEEKABLE
row() {
    local size; size=$(stat -c %s "$2")
    rows+=("$(printf '| %s | %d | %.2f | %s | %s | %s | %s | %s |' "$1" "$size" \
        "$(awk -v r="$RAW" -v s="$size" 'BEGIN { print r / s }')" "$(mbps "$3")" "$(mbps "$4")" \
        "$(secs "$5")" "$6" "$(awk -v z="$ZIP_BYTES" -v s="$size" \
        'BEGIN { if (z > 0) printf "%.1f%%", 100 * s / z; else print "-" }')")")
    printf '%s\t%s\t%s\n' "${1%% (*}" "$(awk -v r="$RAW" -v s="$size" 'BEGIN { print r / s }')" \
        "$(mbps "$4")" >>"$D/plot.tsv"
}
timed() { local t0; t0=$(now); "$@" >/dev/null 2>&1; echo $(( $(now) - t0 )); }

# The baseline: superpmi.py's upload (zipfile.ZipFile(..., 'w', zipfile.ZIP_DEFLATED).write),
# read back as its download does (the member inflated whole: here to nothing, there to disk).
zip_py() { python3 - "$@" <<'PY'
import shutil, sys, zipfile
if sys.argv[1] == 'write':
    with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z:
        z.write(sys.argv[3], 'c.mch')
else:
    with zipfile.ZipFile(sys.argv[2]) as z, z.open('c.mch') as m, open(sys.argv[3], 'wb') as out:
        if len(sys.argv) > 4:
            out.write(m.read(int(sys.argv[4])))
        else:
            shutil.copyfileobj(m, out, 1 << 20)
PY
}
c=$(timed zip_py write "$D/c.mch.zip" "$D/c.mch")
d=$(timed zip_py read "$D/c.mch.zip" /dev/null)
o=$(timed zip_py read "$D/c.mch.zip" /dev/null $((OFF + LEN)))
ZIP_BYTES=$(stat -c %s "$D/c.mch.zip")
row "X.mch.zip (superpmi.py's store: zipfile ZIP_DEFLATED; one context: inflated up to it)" \
    "$D/c.mch.zip" "$c" "$d" "$o" "no"

for preset in fast default cold; do
    for layout in packets plain; do
        f="$D/$preset-$layout.mcz"
        c=$(timed "$BIN/mcs" -convert --preset $preset --layout $layout "$D/c.mch" "$f")
        d=$(timed "$BIN/mcs" -export "$f" /dev/null)
        o=$(timed "$BIN/mcs" -copy $MID "$f" "$D/one.mch")
        cmp -s "$D/one.mch" <(tail -c +$((OFF + 1)) "$D/c.mch" | head -c "$LEN") ||
            { echo "mcz $preset: the context read is wrong" >&2; exit 1; }
        name="mcz --preset $preset"
        [ $layout = packets ] || name="$name --layout plain"
        row "$name" "$f" "$c" "$d" "$o" "yes"
    done
done

# The download converted as it is: X.mch.zip -> the default archive, the member inflated as it
# is read; the bytes must be those converted from the MCH.
c=$(timed "$BIN/mcs" -convert --preset default "$D/c.mch.zip" "$D/fromzip.mcz")
cmp -s "$D/fromzip.mcz" "$D/default-packets.mcz" ||
    { echo "mcs -convert X.mch.zip: not the archive the MCH gives" >&2; exit 1; }
d=$(timed "$BIN/mcs" -export "$D/fromzip.mcz" /dev/null)
o=$(timed "$BIN/mcs" -copy $MID "$D/fromzip.mcz" "$D/one.mch")
row "mcz --preset default, converted from X.mch.zip" "$D/fromzip.mcz" "$c" "$d" "$o" "yes"

if [ "${MCZ_ONLY:-0}" = 1 ]; then
    echo
    echo "| what | bytes | ratio | compress MB/s | decompress MB/s | one context, s | seekable | vs .mch.zip |"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    exit 0
fi

c=$(timed sh -c "pixz -9 -p 2 <'$D/c.mch' >'$D/c.pxz'")
d=$(timed sh -c "pixz -d -p 2 <'$D/c.pxz' >/dev/null")
o=$(timed sh -c "xz -dc '$D/c.pxz' | tail -c +$((OFF + 1)) | head -c $LEN >/dev/null")
row "pixz -9 (indexed xz; one context: decoded up to it)" "$D/c.pxz" "$c" "$d" "$o" "yes (blocks)"

c=$(timed sh -c "bgzip -l 9 -@ 2 -i -I '$D/c.gzi' -c '$D/c.mch' >'$D/c.bgz'")
d=$(timed sh -c "bgzip -d -@ 2 -c '$D/c.bgz' >/dev/null")
o=$(timed sh -c "bgzip -b $OFF -s $LEN -I '$D/c.gzi' -c '$D/c.bgz' >/dev/null")
row "bgzip -l 9 (BGZF)" "$D/c.bgz" "$c" "$d" "$o" "yes"

c=$(timed zck -o "$D/c.zck" "$D/c.mch")
d=$(timed unzck -c "$D/c.zck")
o=$d # unzck has no ranged read by offset: a whole decode
row "zck (zchunk; one context: whole decode)" "$D/c.zck" "$c" "$d" "$o" "yes (chunks)"

c=$(timed sh -c "xz -9 -T1 -c '$D/c.mch' >'$D/c.xz'")
d=$(timed sh -c "xz -dc '$D/c.xz' >/dev/null")
o=$(timed sh -c "xz -dc '$D/c.xz' | head -c $((OFF + LEN)) >/dev/null")
row "xz -9, whole file" "$D/c.xz" "$c" "$d" "$o" "no"

c=$(timed zstd -19 --long=27 -T2 -q -f "$D/c.mch" -o "$D/c.zst")
d=$(timed sh -c "zstd -d --long=27 -q -c '$D/c.zst' >/dev/null")
o=$(timed sh -c "zstd -d --long=27 -q -c '$D/c.zst' | head -c $((OFF + LEN)) >/dev/null")
row "zstd -19 --long=27, whole file" "$D/c.zst" "$c" "$d" "$o" "no"

echo
echo "| what | bytes | ratio | compress MB/s | decompress MB/s | one context, s | seekable | vs .mch.zip |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"

if command -v gnuplot >/dev/null; then
    gnuplot <<GP
set terminal pngcairo size 900,560 noenhanced
set output '$HERE/codecs.png'
set title 'ratio against full decompression speed ($CONTEXTS contexts, $RAW bytes)'
set xlabel 'decompression, MB of MCH per second (wall, log scale)'
set ylabel 'ratio (raw / stored)'
set logscale x
set datafile separator '\t'
set key off
set grid
set yrange [*:*]
set offsets 0, 0, 1.5, 1
plot '$D/plot.tsv' using 3:2 with points pt 7 ps 1.5, '' using 3:2:1 with labels offset 0.8,0.6 left rotate by 20 font ',9'
GP
    echo "plot: bench/codecs.png"
fi
