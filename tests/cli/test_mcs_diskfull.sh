#!/usr/bin/env bash
# A full disk (a 64 KiB tmpfs): every writing verb fails with exit 1, says so once with the
# errno's text, names the output, and leaves nothing behind. Needs mount (root); skipped, with
# a line saying so, where it is not permitted.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
D=$T/full

mkdir "$D"
if ! mount -t tmpfs -o size=64k tmpfs "$D" 2>/dev/null; then
    echo "# skipped: cannot mount a tmpfs here (needs root)"
    cli_done
    exit
fi
trap 'umount "$D" 2>/dev/null; rm -rf "$T"' EXIT

"$BIN/mchgen" --seed 9 --contexts 300 --preset small --out "$T/a.mch" >/dev/null 2>&1 &&
    "$M" -convert --level 3 --chunk-size 64K "$T/a.mch" "$T/a.mcz" >/dev/null 2>&1 ||
    fail "mchgen and -convert write a collection and its archive"
"$M" -convert "$T/a.mch" "$T/b.mcz" >/dev/null 2>&1 # the default conversion, the smallest
[ "$(stat -c %s "$T/b.mcz")" -gt 65536 ] && pass "the archive does not fit in the tmpfs" ||
    fail "the archive does not fit in the tmpfs"

# full NAME OUT CMD...: CMD fails on the full disk, one line naming OUT and the errno, no debris.
full() {
    local name=$1 out=$2; shift 2
    fail_run "$name fails" "$@"
    if [ "$(grep -c '' "$T/err")" -eq 1 ] && grep -q "^mcs: $out: .*No space left on device" \
        "$T/err"; then pass "$name: one line naming the output and the errno"
    else fail "$name: one line naming the output and the errno"; sed 's/^/    /' "$T/err"; fi
    if [ -z "$(ls -A "$D")" ]; then pass "$name: nothing left behind"
    else fail "$name: nothing left behind"; ls -A "$D" | sed 's/^/    /'; fi
}

full "-convert" "$D/x.mcz" "$M" -convert "$T/a.mch" "$D/x.mcz"
full "-convert --no-dict" "$D/x.mcz" "$M" -convert --no-dict "$T/a.mch" "$D/x.mcz"
full "-copy into an archive (chunks copied)" "$D/x.mcz" "$M" -copy 1-300 "$T/a.mcz" "$D/x.mcz"
full "-strip into an archive" "$D/x.mcz" "$M" -strip 1 "$T/a.mcz" "$D/x.mcz" --level 1
full "-export" "$D/x.mch" "$M" -export "$T/a.mcz" "$D/x.mch"
full "-copy into an .mch" "$D/x.mch" "$M" -copy 1-300 "$T/a.mch" "$D/x.mch"
# The index itself does not fit: most of the room taken, the chunks written, then the index.
head -c $((65536 - 8192)) /dev/zero >"$D/filler" 2>/dev/null
"$BIN/mchgen" --seed 9 --contexts 3 --preset small --out "$T/s.mch" >/dev/null 2>&1
"$M" -convert "$T/s.mch" "$D/x.mcz" >"$T/out" 2>"$T/err"
rc=$?
rm -f "$D/filler"
if [ "$rc" -eq 0 ]; then pass "a small archive beside a filler (fits)"; rm -f "$D/x.mcz"
elif grep -q "No space left on device" "$T/err"; then pass "a small archive beside a filler: the errno"
else fail "a small archive beside a filler: the errno"; sed 's/^/    /' "$T/err"; fi

cli_done
