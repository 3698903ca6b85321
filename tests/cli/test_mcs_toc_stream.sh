#!/usr/bin/env bash
# mcs -toc writes its table entry by entry as it walks (its memory does not grow with the
# collection): the count in the header is patched in at the end for an MCH file, known before
# the walk for an archive, counted by a first walk when the table goes to a stream (a FIFO),
# which cannot go back. Every way gives the same bytes: "INDX", the count, 48 bytes a context,
# "INDX". A table that cannot be written is an error naming it, with no table left behind.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
N=300

"$BIN/mchgen" --seed 5 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 &&
    "$M" -convert --level 3 --chunk-size 64K "$T/a.mch" "$T/a.mcz" >/dev/null 2>&1 ||
    fail "mchgen and -convert write the collection"

ok_run "-toc of the MCH file" "$M" -toc "$T/a.mch"
contains "-toc says how many it added" "$T/out" "added $N to Table of Contents"
ok_run "-toc of its archive" "$M" -toc "$T/a.mcz"
same "the archive's table is the MCH file's" "$T/a.mch.mct" "$T/a.mcz.mct"

# u32le FILE OFFSET: the little-endian u32 at OFFSET.
u32le() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
size=$(wc -c < "$T/a.mch.mct")
[ "$size" -eq $((8 + 48 * N + 4)) ] && pass "the table holds $N entries and its two tags" ||
    fail "the table is $size bytes, not $((8 + 48 * N + 4))"
[ "$(u32le "$T/a.mch.mct" 4)" = "$N" ] && pass "the header's count, patched at the end, is $N" ||
    fail "the header's count is $(u32le "$T/a.mch.mct" 4), not $N"
[ "$(head -c 4 "$T/a.mch.mct")" = INDX ] && [ "$(tail -c 4 "$T/a.mch.mct")" = INDX ] &&
    pass "the table opens and closes with INDX" || fail "the table's tags"
ok_run "-dumpToc reads the table" "$M" -dumpToc "$T/a.mch.mct"

# Into a FIFO (a stream): counted first, the same bytes.
mkdir "$T/s" && cp "$T/a.mch" "$T/s/a.mch" && mkfifo "$T/s/a.mch.mct"
cat "$T/s/a.mch.mct" > "$T/fifo.mct" &
reader=$!
ok_run "-toc into a FIFO" "$M" -toc "$T/s/a.mch"
wait "$reader"
same "the table through a FIFO is the file's" "$T/fifo.mct" "$T/a.mch.mct"

# A table that cannot be written (a device that is always full): an error naming it.
if [ -w /dev/full ]; then
    mkdir "$T/f" && cp "$T/a.mch" "$T/f/a.mch" && ln -s /dev/full "$T/f/a.mch.mct"
    fail_run "-toc into a full device fails" "$M" -toc "$T/f/a.mch"
    contains "the error names the table" "$T/err" "$T/f/a.mch.mct"
fi

# A truncated last context stops the walk: no table, none half written, no temporary left.
mkdir "$T/d" && head -c $(($(wc -c < "$T/a.mch") - 5)) "$T/a.mch" > "$T/d/a.mch"
fail_run "-toc of a truncated collection fails" "$M" -toc "$T/d/a.mch"
[ "$(ls -A "$T/d")" = a.mch ] && pass "a failed -toc leaves neither table nor temporary" ||
    fail "a failed -toc left: $(ls -A "$T/d" | tr '\n' ' ')"

cli_done
