#!/usr/bin/env bash
# The packet layout (FORMAT.md §4a): the default archive gives back the MCH byte for byte and
# says so in -info; --layout plain writes chunks the zstd tool alone turns back into the MCH;
# copies keep the layout unless told otherwise; a damaged packet-layout chunk is an error,
# never other bytes; archives a version-2 and a version-3 build wrote (tests/cli/golden/v2*.mcz
# and v3*.mcz, zstd and xz, made with `mcs -convert --chunk-size 64K` and `--preset cold --chunk-size 128K` from
# `mchgen --seed 7 --contexts 24`) still read.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
G=$MCZ_ROOT/tests/cli/golden
N=300

"$BIN/mchgen" --seed 5 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"

ok_run "-convert (default layout)" "$M" -convert --chunk-size 256K "$T/a.mch" "$T/p.mcz"
"$M" -info "$T/p.mcz" >"$T/info" 2>&1
contains "-info names the packet layout" "$T/info" "layout:        packets"
contains "the archive is format version 4" "$T/info" "mcz archive, version 4"
ok_run "-export of the packet-layout archive" "$M" -export "$T/p.mcz" "$T/back.mch"
same "the packet layout gives the MCH back byte for byte" "$T/a.mch" "$T/back.mch"
ok_run "-verify of the packet-layout archive" "$M" -verify "$T/p.mcz"
ok_run "mcz-replay of the packet-layout archive" "$BIN/mcz-replay" -j 2 "$T/p.mcz"
contains "mcz-replay replays every context" "$T/out" "Loaded $N  Verified $N"
ok_run "-copy of one context" "$M" -copy 150 "$T/p.mcz" "$T/one.mch"
ok_run "-copy of the same context from the MCH" "$M" -copy 150 "$T/a.mch" "$T/one-ref.mch"
same "random access reads the context" "$T/one-ref.mch" "$T/one.mch"

ok_run "-convert --layout plain" "$M" -convert --layout plain --chunk-size 256K "$T/a.mch" \
    "$T/n.mcz"
"$M" -info "$T/n.mcz" >"$T/info" 2>&1
contains "-info names the plain layout" "$T/info" "layout:        plain"
ok_run "-export of the plain archive" "$M" -export "$T/n.mcz" "$T/back.mch"
same "the plain layout gives the MCH back" "$T/a.mch" "$T/back.mch"
p_size=$(stat -c %s "$T/p.mcz") n_size=$(stat -c %s "$T/n.mcz")
[ "$p_size" -lt "$n_size" ] && pass "the packet layout is smaller ($p_size < $n_size bytes)" ||
    fail "the packet layout is smaller ($p_size against $n_size bytes)"

# The zstd tool alone: the plain chunks decode to the MCH (FORMAT.md §1), the packet-layout
# chunks to their layout, which is not the MCH.
if command -v zstd >/dev/null; then
    ok_run "-convert --layout plain --no-dict" "$M" -convert --layout plain --no-dict \
        "$T/a.mch" "$T/nd.mcz"
    zstd -d -q -c "$T/nd.mcz" >"$T/zstd.mch" 2>/dev/null
    same "zstd -d of a plain archive is the MCH" "$T/a.mch" "$T/zstd.mch"
    ok_run "-convert --no-dict" "$M" -convert --no-dict "$T/a.mch" "$T/pd.mcz"
    zstd -d -q -c "$T/pd.mcz" >"$T/zstd.mch" 2>/dev/null
    cmp -s "$T/a.mch" "$T/zstd.mch" && fail "zstd -d of a packet-layout archive is its layout" ||
        pass "zstd -d of a packet-layout archive is its layout"
fi

# Copies keep the layout of the archive they read; --layout changes it.
ok_run "-copy of the packet-layout archive" "$M" -copy 1-100 "$T/p.mcz" "$T/c.mcz"
"$M" -info "$T/c.mcz" >"$T/info" 2>&1
contains "-copy keeps the packet layout" "$T/info" "layout:        packets"
ok_run "-copy of the plain archive" "$M" -copy 1-100 "$T/n.mcz" "$T/c.mcz"
"$M" -info "$T/c.mcz" >"$T/info" 2>&1
contains "-copy keeps the plain layout" "$T/info" "layout:        plain"
ok_run "-copy --layout packets of the plain archive" "$M" -copy --layout packets 1-100 \
    "$T/n.mcz" "$T/cp.mcz"
"$M" -info "$T/cp.mcz" >"$T/info" 2>&1
contains "-copy --layout packets gives packets" "$T/info" "layout:        packets"
[ "$(stat -c %s "$T/cp.mcz")" -lt "$(stat -c %s "$T/c.mcz")" ] &&
    pass "-copy --layout packets recompresses the plain chunks (smaller than a plain copy)" ||
    fail "-copy --layout packets recompresses the plain chunks (smaller than a plain copy)"
ok_run "-convert --layout packets of the plain archive" "$M" -convert --layout packets \
    "$T/n.mcz" "$T/c.mcz"
"$M" -info "$T/c.mcz" >"$T/info" 2>&1
contains "--layout packets gives packets" "$T/info" "layout:        packets"
ok_run "-export after the change of layout" "$M" -export "$T/c.mcz" "$T/back.mch"
same "the MCH survives the change of layout" "$T/a.mch" "$T/back.mch"
ok_run "-concat of a plain archive onto a packet-layout one" "$M" -concat "$T/c.mcz" "$T/n.mcz"
ok_run "-verify of an archive of both layouts" "$M" -verify "$T/c.mcz"
contains "both layouts verify" "$T/out" "Verified $((2 * N)) contexts"

# A byte flipped inside a packet-layout chunk's data: an error at an offset, never other bytes.
read -r off stored < <("$M" -info --chunks "$T/p.mcz" | awk '$1 == "1" { print $2, $3 }')
cp "$T/p.mcz" "$T/bad.mcz"
at=$((off + stored / 2))
b=$(od -An -tu1 -j $at -N1 "$T/bad.mcz" | tr -d ' ')
printf "$(printf '\\%03o' $((b ^ 0x10)))" | dd of="$T/bad.mcz" bs=1 seek=$at conv=notrunc 2>/dev/null
fail_run "-verify of a damaged packet-layout chunk" "$M" -verify "$T/bad.mcz"
contains "the error names the damaged chunk's offset" "$T/err" "at offset"
rm -f "$T/back.mch"
fail_run "-export of a damaged packet-layout chunk" "$M" -export "$T/bad.mcz" "$T/back.mch"
[ ! -e "$T/back.mch" ] && pass "the failed -export leaves no output" ||
    fail "the failed -export leaves no output"

# Archives of format version 2, written before the packet layout existed, and of version 3 (the
# packet layout as first written: every packet's size in the framing).
for golden in v2:plain v2-cold:plain v3:packets v3-cold:packets; do
    g=${golden%%:*} layout=${golden#*:} version=${golden:1:1}
    "$M" -info "$G/$g.mcz" >"$T/info" 2>&1
    contains "$g: -info reads format version $version" "$T/info" "mcz archive, version $version"
    contains "$g: its chunks are $layout" "$T/info" "layout:        $layout"
    ok_run "$g: -verify" "$M" -verify "$G/$g.mcz"
    ok_run "$g: -export" "$M" -export "$G/$g.mcz" "$T/g-$g.mch"
    cksum <"$T/g-$g.mch" >"$T/g-$g.cksum"
    same "$g: -export gives the collection it was made from" "$G/v2.mch.cksum" "$T/g-$g.cksum"
done
ok_run "-convert of a version-2 archive" "$M" -convert --layout packets "$G/v2.mcz" "$T/v3.mcz"
ok_run "-export of its version-3 copy" "$M" -export "$T/v3.mcz" "$T/v3.mch"
same "the version-3 copy holds the same contexts" "$T/g-v2.mch" "$T/v3.mch"

exit_is "--layout takes packets or plain" 2 "$M" -convert --layout columns "$T/a.mch" "$T/x.mcz"
exit_is "--layout into an .mch is refused" 2 "$M" -copy --layout plain 1 "$T/a.mch" "$T/x.mch"
[ ! -e "$T/x.mcz" ] && [ ! -e "$T/x.mch" ] && pass "no output is left by a refused command" ||
    fail "no output is left by a refused command"
cli_done
