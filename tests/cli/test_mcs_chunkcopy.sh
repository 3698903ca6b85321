#!/usr/bin/env bash
# The copying verbs on archives work chunk by chunk from the index: the same verb on an .mch file
# and on its archive writes the same contexts; a chunk kept whole goes into an archive output
# with its compressed bytes unchanged; a damaged chunk is refused, never copied; archives with
# other dictionaries still merge; -toc and -dumpToc read the index alone.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs

"$BIN/mchgen" --seed 7 --contexts 400 --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
# Level 3 and small chunks: many chunks, and compressed bytes that a recompression at the
# output's default level would not reproduce, so a copy shows as one.
"$M" -convert --level 3 --chunk-size 256K "$T/a.mch" "$T/a.mcz" >/dev/null ||
    fail "-convert of the collection"

# export_same NAME MCH MCZ: the archive exports to the bytes of the MCH file.
export_same() {
    rm -f "$T/x.mch"
    "$M" -export "$3" "$T/x.mch" >/dev/null
    same "$1" "$2" "$T/x.mch"
}

# chunks FILE: the chunk table, "offset stored raw first count xxh3" per line.
chunks() { "$M" -info "$1" --chunks | awk 'f { print $2, $3, $4, $5, $6, $7 } $2 == "offset" { f = 1 }'; }

# copied_frames SRC OUT: how many of SRC's chunks are in OUT with the same raw bytes (XXH3)
# and the same zstd data frame, byte for byte (the frame follows the chunk's 40 + 4*COUNT byte
# header frame, FORMAT.md §4).
copied_frames() {
    chunks "$2" >"$T/out.chunks"
    chunks "$1" | awk 'NR == FNR { out[$6] = $0; next } $6 in out { print $0, out[$6] }' \
        "$T/out.chunks" - | while read -r o1 s1 _ _ c1 _ o2 s2 _ _ c2 _; do
        local h1=$((40 + 4 * c1)) h2=$((40 + 4 * c2))
        [ $((s1 - h1)) -eq $((s2 - h2)) ] &&
            cmp -s -i $((o1 + h1)):$((o2 + h2)) -n $((s1 - h1)) "$1" "$2" && echo copied
    done | wc -l
}

# damage_frame FILE K: flips a byte in the middle of the data frame of the K-th chunk (from 1).
damage_frame() {
    local off st count b at
    read -r off st _ _ count _ < <(chunks "$1" | sed -n "$2p")
    at=$((off + 40 + 4 * count + (st - 40 - 4 * count) / 2))
    b=$(od -An -tu1 -j "$at" -N1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $((b ^ 255)))" | dd of="$1" bs=1 seek="$at" conv=notrunc status=none
}

nchunks=$(chunks "$T/a.mcz" | wc -l)
[ "$nchunks" -ge 10 ] && pass "-info --chunks lists the chunks ($nchunks)" ||
    fail "-info --chunks lists the chunks ($nchunks)"
"$M" -info "$T/a.mcz" >"$T/info.txt"
contains "-info --chunks agrees with the chunk count" "$T/info.txt" "chunks:        $nchunks"

# ---- The same verb on .mch and .mcz: the same contexts, whatever the output ----
# Context 2 lies in the first chunk and 150-160 in a middle one: those chunks are partly kept.
read -r _ _ _ c3first c3count _ < <(chunks "$T/a.mcz" | sed -n 3p)
for args in "-removeDup" "-removeDup -legacy" "-removeDup -thin" "-strip 2,150-160" \
    "-strip $c3first-$((c3first + c3count - 1))" "-copy 1-100,300-400" "-copy -thin 5-50"; do
    set -- $args
    verb=$1
    shift
    ok_run "$args .mch -> .mch" "$M" "$verb" "$@" "$T/a.mch" "$T/r1.mch"
    ok_run "$args .mcz -> .mcz" "$M" "$verb" "$@" "$T/a.mcz" "$T/r2.mcz"
    export_same "$args: .mch and .mcz give the same contexts" "$T/r1.mch" "$T/r2.mcz"
    ok_run "$args .mcz -> .mch" "$M" "$verb" "$@" "$T/a.mcz" "$T/r3.mch"
    same "$args: .mcz into .mch gives the same file" "$T/r1.mch" "$T/r3.mch"
done

# ---- Whole chunks are copied as they are ----
ok_run "-strip of one chunk's contexts" "$M" -strip "$c3first-$((c3first + c3count - 1))" \
    "$T/a.mcz" "$T/s.mcz"
copied=$(copied_frames "$T/a.mcz" "$T/s.mcz")
[ "$copied" -eq $((nchunks - 1)) ] && pass "-strip copies every other chunk's data frame" ||
    fail "-strip copies every other chunk's data frame ($copied of $((nchunks - 1)))"
next_sum=$(chunks "$T/a.mcz" | sed -n 4p | awk '{ print $6 }')
chunks "$T/s.mcz" | awk -v n="$c3first" -v x="$next_sum" '$4 == n && $6 == x { f = 1 } END { exit !f }' &&
    pass "-strip: the next chunk, copied, takes the stripped chunk's numbers" ||
    fail "-strip: the next chunk, copied, takes the stripped chunk's numbers"
ok_run "-strip into an archive: -verify" "$M" -verify "$T/s.mcz"
ok_run "-strip 2 (a partly kept chunk)" "$M" -strip 2 "$T/a.mcz" "$T/s2.mcz"
copied=$(copied_frames "$T/a.mcz" "$T/s2.mcz")
[ "$copied" -eq $((nchunks - 1)) ] && pass "-strip 2 recompresses only the first chunk" ||
    fail "-strip 2 recompresses only the first chunk ($copied of $((nchunks - 1)) copied)"
ok_run "-strip -thin" "$M" -strip 2 "$T/a.mcz" "$T/st.mcz" -thin
"$M" -strip 2 "$T/a.mch" "$T/st.mch" -thin >/dev/null
# A chunk copied whole would keep its compile results; one re-serialized and compressed with
# the input's settings may come out byte for byte the same when it had none.
export_same "-strip -thin re-serializes every context (as from the .mch)" "$T/st.mch" "$T/st.mcz"

mkdir "$T/m"
"$M" -copy 1-200 "$T/a.mcz" "$T/m/1.mcz" >/dev/null
"$M" -copy 150-400 "$T/a.mcz" "$T/m/2.mcz" >/dev/null
ok_run "-merge of archives" "$M" -merge "$T/merged.mcz" "$T/m"
"$M" -export "$T/m/1.mcz" "$T/m1.mch" >/dev/null
"$M" -export "$T/m/2.mcz" "$T/m2.mch" >/dev/null
cat "$T/m1.mch" "$T/m2.mch" >"$T/m12.mch"
export_same "-merge of archives holds both, in order" "$T/m12.mch" "$T/merged.mcz"
total=$(($(chunks "$T/m/1.mcz" | wc -l) + $(chunks "$T/m/2.mcz" | wc -l)))
[ "$(copied_frames "$T/m/1.mcz" "$T/merged.mcz")" -eq "$(chunks "$T/m/1.mcz" | wc -l)" ] &&
    pass "-merge copies the first archive's chunks" || fail "-merge copies the first archive's chunks"
[ "$(chunks "$T/merged.mcz" | wc -l)" -eq "$total" ] &&
    pass "-merge keeps the chunks whole ($total)" || fail "-merge keeps the chunks whole"
ok_run "-merge -dedup of overlapping archives" "$M" -merge "$T/md.mcz" "$T/m" -dedup
ok_run "-removeDup of the whole" "$M" -removeDup "$T/a.mch" "$T/rd.mch"
export_same "-merge -dedup of overlapping archives equals -removeDup of the whole" \
    "$T/rd.mch" "$T/md.mcz"
ok_run "-concat of an archive onto an archive" "$M" -concat "$T/cat.mcz" "$T/m/1.mcz"
ok_run "-concat of a second archive" "$M" -concat "$T/cat.mcz" "$T/m/2.mcz"
export_same "-concat of archives holds both, in order" "$T/m12.mch" "$T/cat.mcz"
[ "$(copied_frames "$T/merged.mcz" "$T/cat.mcz")" -eq "$total" ] &&
    pass "-concat copies every chunk" || fail "-concat copies every chunk"
ok_run "-concat of an .mch onto an archive" "$M" -concat "$T/cat.mcz" "$T/a.mch"
cat "$T/m12.mch" "$T/a.mch" >"$T/cat3.mch"
export_same "-concat of an .mch onto an archive appends it" "$T/cat3.mch" "$T/cat.mcz"
contains "-concat counts what it appended" "$T/out" "Appended 400 contexts"
cp "$T/a.mch" "$T/fake.mcz"
fail_run "-concat onto an .mcz that is not an archive fails" "$M" -concat "$T/fake.mcz" "$T/m/1.mcz"
same "-concat onto a non-archive leaves it as it was" "$T/a.mch" "$T/fake.mcz"

# Thanks to the stored keys, a chunk of duplicates only is never read.
ok_run "-concat creates an archive" "$M" -concat "$T/twice.mcz" "$T/a.mcz"
ok_run "-concat the same archive again" "$M" -concat "$T/twice.mcz" "$T/a.mcz"
ok_run "-removeDup of the archive twice over" "$M" -removeDup "$T/twice.mcz" "$T/rd2.mcz"
export_same "-removeDup of the archive twice over" "$T/rd.mch" "$T/rd2.mcz"

# ---- Archives with other dictionaries: contexts re-appended, the result the same ----
mkdir "$T/mixed"
"$M" -convert --no-dict "$T/m1.mch" "$T/mixed/1.mcz" >/dev/null
"$M" -convert --dict-size 4K --level 1 "$T/m2.mch" "$T/mixed/2.mcz" >/dev/null
cp "$T/m1.mch" "$T/mixed/3.mch"
ok_run "-merge of archives with different dictionaries" "$M" -merge "$T/mixed.mcz" "$T/mixed"
cat "$T/m12.mch" "$T/m1.mch" >"$T/mixed.mch"
export_same "-merge of different dictionaries holds every context" "$T/mixed.mch" "$T/mixed.mcz"
ok_run "-merge of different dictionaries: -verify" "$M" -verify "$T/mixed.mcz"
ok_run "-merge -dedup of different dictionaries" "$M" -merge "$T/mixed-rd.mcz" "$T/mixed" -dedup
export_same "-merge -dedup of different dictionaries" "$T/rd.mch" "$T/mixed-rd.mcz"
ok_run "-concat of archives with different dictionaries" "$M" -concat "$T/mixed/1.mcz" \
    "$T/mixed/2.mcz"
export_same "-concat of different dictionaries holds both" "$T/m12.mch" "$T/mixed/1.mcz"

# ---- A damaged chunk is an error naming the file and the offset, and nothing is written ----
# A byte in the middle of the data frame of chunk 5, which every verb below keeps whole.
cp "$T/a.mcz" "$T/bad.mcz"
damage_frame "$T/bad.mcz" 5
mkdir "$T/badtree" && cp "$T/bad.mcz" "$T/badtree/"
for v in "-strip 1" "-copy 1-400" "-removeDup" "-merge" "-concat"; do
    rm -f "$T/o.mcz"
    case $v in
    -merge) fail_run "damaged chunk: $v fails" "$M" -merge "$T/o.mcz" "$T/badtree" ;;
    -concat) fail_run "damaged chunk: $v fails" "$M" -concat "$T/o.mcz" "$T/bad.mcz" ;;
    *) fail_run "damaged chunk: $v fails" "$M" $v "$T/bad.mcz" "$T/o.mcz" ;;
    esac
    contains "damaged chunk: $v names the file and the context" "$T/err" "bad.mcz: context"
    contains "damaged chunk: $v says where" "$T/err" "at offset"
    if [ -e "$T/o.mcz" ] || ls -a "$T" | grep -q '^\.o\.mcz\.tmp'; then
        fail "damaged chunk: $v leaves no output"; else pass "damaged chunk: $v leaves no output"; fi
done
cp "$T/a.mcz" "$T/cat-bad.mcz"
fail_run "damaged chunk: -concat of it onto an archive fails" "$M" -concat "$T/cat-bad.mcz" \
    "$T/bad.mcz"
same "damaged chunk: -concat leaves the archive as it was" "$T/a.mcz" "$T/cat-bad.mcz"

# A damaged chunk holding only duplicates is never read: -removeDup decides from the index.
damage_frame "$T/twice.mcz" $((nchunks + 5))
fail_run "a damaged copy of chunk 5: -verify fails" "$M" -verify "$T/twice.mcz"
ok_run "a damaged chunk of duplicates only: -removeDup" "$M" -removeDup "$T/twice.mcz" "$T/rd3.mcz"
export_same "a damaged chunk of duplicates only is never read" "$T/rd.mch" "$T/rd3.mcz"

# ---- -toc and -dumpToc: the index alone ----
ok_run "-toc of the .mch" "$M" -toc "$T/a.mch"
ok_run "-toc of the damaged archive (nothing decompressed)" "$M" -toc "$T/bad.mcz"
same "-toc: the damaged archive's index gives the .mch's table" "$T/a.mch.mct" "$T/bad.mcz.mct"
ok_run "-dumpToc of the .mct" "$M" -dumpToc "$T/a.mch.mct"
mv "$T/out" "$T/toc.txt"
ok_run "-dumpToc of an archive" "$M" -dumpToc "$T/a.mcz"
same "-dumpToc of an archive prints its table" "$T/toc.txt" "$T/out"
"$M" -toc --help >"$T/out" 2>&1
contains "-toc --help says -verify checks contents" "$T/out" "-verify checks contents"

cli_done
