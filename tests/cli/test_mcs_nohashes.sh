#!/usr/bin/env bash
# Archives written without hashes (-convert --no-hashes, FORMAT.md §5 index flag NO_HASHES):
# smaller (with the index raw, by exactly 32 bytes per context), and every verb gives what it
# gives on the archive with hashes, computing the hashes from the decoded contexts where it would
# have read them from the index.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs

"$BIN/mchgen" --seed 11 --contexts 300 --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
# Two copies of the collection: duplicates for -removeDup to find.
cat "$T/a.mch" "$T/a.mch" >"$T/aa.mch"
ok_run "-convert" "$M" -convert --level 3 --chunk-size 256K "$T/aa.mch" "$T/h.mcz"
ok_run "-convert --no-hashes" "$M" -convert --level 3 --chunk-size 256K --no-hashes \
    "$T/aa.mch" "$T/n.mcz"

# export_same NAME MCH MCZ: the archive exports to the bytes of the MCH file.
export_same() {
    rm -f "$T/x.mch"
    "$M" -export "$3" "$T/x.mch" >/dev/null
    same "$1" "$2" "$T/x.mch"
}

export_same "--no-hashes: -export gives the input back" "$T/aa.mch" "$T/n.mcz"
size_h=$(stat -c %s "$T/h.mcz")
size_n=$(stat -c %s "$T/n.mcz")
[ "$size_n" -lt "$size_h" ] && pass "--no-hashes: smaller" ||
    fail "--no-hashes: smaller ($size_n, with hashes $size_h)"
# With the index raw (writers compress it, FORMAT.md §5), exactly the two 16-byte columns.
RAW_INDEX=$(cd "${BUILD:-build}" && pwd)/tests/raw_index
cp "$T/h.mcz" "$T/h-raw.mcz"
cp "$T/n.mcz" "$T/n-raw.mcz"
"$RAW_INDEX" "$T/h-raw.mcz" && "$RAW_INDEX" "$T/n-raw.mcz" || fail "raw_index rewrites the indexes"
size_h=$(stat -c %s "$T/h-raw.mcz")
size_n=$(stat -c %s "$T/n-raw.mcz")
[ $((size_h - size_n)) -eq $((32 * 600)) ] &&
    pass "--no-hashes: 32 bytes smaller per context in the raw index" ||
    fail "--no-hashes: 32 bytes smaller per context in the raw index ($size_h - $size_n for 600 contexts)"

ok_run "-info" "$M" -info "$T/n.mcz"
contains "-info says no hashes are stored" "$T/out" "hashes:        none"
ok_run "-info of the archive with hashes" "$M" -info "$T/h.mcz"
contains "-info says hashes are stored" "$T/out" "hashes:        stored"
ok_run "-verify" "$M" -verify "$T/n.mcz"
"$M" -convert --help >"$T/out" 2>&1
contains "-convert --help documents --no-hashes" "$T/out" "--no-hashes"

# ---- -toc and -dumpToc: the hashes computed from the decoded contexts ----
ok_run "-toc of the .mch" "$M" -toc "$T/aa.mch"
ok_run "-toc of the archive without hashes" "$M" -toc "$T/n.mcz"
same "-toc: the same table as from the .mch" "$T/aa.mch.mct" "$T/n.mcz.mct"
grep -q '[1-9A-F]' <("$M" -dumpToc "$T/n.mcz" | awk '{ print $3 }') &&
    pass "-toc: identities computed (not all empty)" || fail "-toc: identities computed"
ok_run "-dumpToc of the .mct" "$M" -dumpToc "$T/aa.mch.mct"
mv "$T/out" "$T/toc.txt"
ok_run "-dumpToc of the archive without hashes" "$M" -dumpToc "$T/n.mcz"
same "-dumpToc of the archive prints the .mch's table" "$T/toc.txt" "$T/out"

# ---- Deduplication: the keys computed from the decoded contexts ----
ok_run "-removeDup of the archive with hashes" "$M" -removeDup "$T/h.mcz" "$T/rd-h.mcz"
ok_run "-removeDup of the archive without hashes" "$M" -removeDup "$T/n.mcz" "$T/rd-n.mcz"
"$M" -export "$T/rd-h.mcz" "$T/rd-h.mch" >/dev/null
export_same "-removeDup: the same contexts as with hashes" "$T/rd-h.mch" "$T/rd-n.mcz"
[ "$(stat -c %s "$T/rd-h.mch")" -lt "$(stat -c %s "$T/aa.mch")" ] &&
    pass "-removeDup removed the duplicates" || fail "-removeDup removed the duplicates"
ok_run "-removeDup into an .mch" "$M" -removeDup "$T/n.mcz" "$T/rd-n.mch"
same "-removeDup into an .mch: the same file" "$T/rd-h.mch" "$T/rd-n.mch"
mkdir "$T/mh" "$T/mn"
"$M" -copy 1-400 "$T/h.mcz" "$T/mh/1.mcz" >/dev/null
"$M" -copy 200-600 "$T/h.mcz" "$T/mh/2.mcz" >/dev/null
"$M" -convert --no-hashes "$T/mh/1.mcz" "$T/mn/1.mcz" >/dev/null
"$M" -convert --no-hashes "$T/mh/2.mcz" "$T/mn/2.mcz" >/dev/null
ok_run "-merge -dedup of archives with hashes" "$M" -merge "$T/md-h.mcz" "$T/mh" -dedup
ok_run "-merge -dedup of archives without hashes" "$M" -merge "$T/md-n.mcz" "$T/mn" -dedup
"$M" -export "$T/md-h.mcz" "$T/md-h.mch" >/dev/null
export_same "-merge -dedup: the same contexts as with hashes" "$T/md-h.mch" "$T/md-n.mcz"

# ---- Copies: an archive output keeps the input's setting; the same archive as from the
# archive with hashes told --no-hashes; chunks copied whole into an archive with hashes get
# them computed by the writer ----
ok_run "-strip" "$M" -strip 2,150-160 "$T/n.mcz" "$T/s-n.mcz"
"$M" -strip 2,150-160 "$T/aa.mch" "$T/s.mch" >/dev/null
export_same "-strip: the same contexts as from the .mch" "$T/s.mch" "$T/s-n.mcz"
ok_run "-strip output: -verify" "$M" -verify "$T/s-n.mcz"
"$M" -info "$T/s-n.mcz" >"$T/info.txt"
contains "-strip output stores no hashes, as its input" "$T/info.txt" "hashes:        none"
"$M" -strip 2,150-160 "$T/h.mcz" "$T/s-h.mcz" --no-hashes >/dev/null
same "-strip: the same archive as from the archive with hashes, --no-hashes" "$T/s-h.mcz" \
    "$T/s-n.mcz"
ok_run "-copy" "$M" -copy 1-100,300-450 "$T/n.mcz" "$T/c-n.mcz"
"$M" -copy 1-100,300-450 "$T/h.mcz" "$T/c-h.mcz" --no-hashes >/dev/null
same "-copy: the same archive as from the archive with hashes, --no-hashes" "$T/c-h.mcz" \
    "$T/c-n.mcz"
ok_run "-copy output: -verify" "$M" -verify "$T/c-n.mcz"
ok_run "-concat of an archive without hashes onto one with" "$M" -concat "$T/hn.mcz" "$T/h.mcz"
ok_run "-concat: appending the archive without hashes" "$M" -concat "$T/hn.mcz" "$T/n.mcz"
ok_run "-concat output: -verify (hashes computed for the copied chunks)" "$M" -verify "$T/hn.mcz"
"$M" -info "$T/hn.mcz" >"$T/info.txt"
contains "-concat output stores hashes, as its first archive" "$T/info.txt" "hashes:        stored"
ok_run "-concat of an archive without hashes" "$M" -concat "$T/cat.mcz" "$T/n.mcz"
export_same "-concat: every context" "$T/aa.mch" "$T/cat.mcz"

# ---- Replay: nothing stored to compare the identity with, everything else verified ----
ok_run "mcz-replay of the archive without hashes" "$BIN/mcz-replay" -j 2 "$T/n.mcz"

cli_done
