#!/usr/bin/env bash
# --codec xz (FORMAT.md §4): the archive gives back the MCH byte for byte, says so in -info, is
# verified, replayed and recovered like a zstd one; copies keep the codec unless told otherwise;
# options xz cannot honour are refused.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
N=300

"$BIN/mchgen" --seed 5 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
ok_run "-convert --codec xz" "$M" -convert --codec xz --level 6 --chunk-size 512K "$T/a.mch" \
    "$T/x.mcz"
ok_run "-export of the xz archive" "$M" -export "$T/x.mcz" "$T/back.mch"
same "xz round trip is byte-exact" "$T/a.mch" "$T/back.mch"
"$M" -info "$T/x.mcz" >"$T/info" 2>&1
contains "-info names the codec" "$T/info" "codec:         xz"
contains "-info gives the xz level" "$T/info" "level:         6"
contains "an xz archive has no dictionary" "$T/info" "dictionary:    none"
ok_run "-verify of the xz archive" "$M" -verify "$T/x.mcz"
contains "-verify checks every context" "$T/out" "Verified $N contexts"
ok_run "mcz-replay of the xz archive" "$BIN/mcz-replay" -j 2 "$T/x.mcz"
contains "mcz-replay replays every context" "$T/out" "Loaded $N  Verified $N"

# Copies keep the codec (and its level) of the archive they read; --codec changes it.
ok_run "-copy of the xz archive" "$M" -copy 1-100 "$T/x.mcz" "$T/c.mcz"
"$M" -info "$T/c.mcz" >"$T/info" 2>&1
contains "-copy keeps xz" "$T/info" "codec:         xz"
ok_run "-convert of the xz archive to zstd" "$M" -convert --codec zstd "$T/x.mcz" "$T/z.mcz"
"$M" -info "$T/z.mcz" >"$T/info" 2>&1
contains "--codec zstd gives zstd" "$T/info" "codec:         zstd"
"$M" -export "$T/z.mcz" "$T/back2.mch" >/dev/null 2>&1
same "xz to zstd keeps every byte" "$T/a.mch" "$T/back2.mch"
ok_run "-convert of the zstd archive to xz" "$M" -convert --codec xz "$T/z.mcz" "$T/x2.mcz"
"$M" -info "$T/x2.mcz" >"$T/info" 2>&1
contains "--codec xz recompresses a zstd archive" "$T/info" "codec:         xz"

# A truncated xz archive is recovered up to its last whole chunk.
size=$(stat -c %s "$T/x.mcz")
head -c $((size * 2 / 3)) "$T/x.mcz" >"$T/cut.mcz"
ok_run "-recover of a truncated xz archive" "$M" -recover "$T/cut.mcz" "$T/rec.mcz"
"$M" -export "$T/rec.mcz" "$T/rec.mch" >/dev/null 2>&1
got=$(stat -c %s "$T/rec.mch")
if [ "$got" -gt 0 ] && cmp -s -n "$got" "$T/rec.mch" "$T/a.mch"; then
    pass "the recovered contexts are the first ones, byte for byte ($got bytes)"
else fail "the recovered contexts are the first ones, byte for byte"; fi

exit_is "--codec lz4 is refused" 2 "$M" -convert --codec lz4 "$T/a.mch" "$T/bad.mcz"
contains "the message names the codecs" "$T/err" "zstd or xz"
exit_is "--codec xz --level 12 is refused" 2 "$M" -convert --codec xz --level 12 "$T/a.mch" \
    "$T/bad.mcz"
exit_is "--codec xz --no-dict is refused as redundant" 2 "$M" -convert --codec xz --no-dict \
    "$T/a.mch" "$T/bad.mcz"
exit_is "--codec xz --dict-from is refused" 2 "$M" -convert --codec xz --dict-from "$T/z.mcz" \
    "$T/a.mch" "$T/bad.mcz"
exit_is "--codec into an .mch is refused" 2 "$M" -copy --codec xz "$T/a.mch" "$T/bad.mch"
[ ! -e "$T/bad.mcz" ] && pass "no output is left by a refused command" ||
    fail "no output is left by a refused command"
cli_done
