#!/usr/bin/env bash
# The index rows a writing verb spills to TMPDIR past MCZ_INDEX_SPILL_MIN (0 here: every chunk's
# rows) give the archive written with every row in memory, for -convert (with and without hashes,
# xz), -removeDup, -merge -dedup, -strip and -copy into .mcz. A TMPDIR with no room (a tmpfs of
# 64 KiB, as root, or in a user namespace of its own: unshare -rm) fails the verb with exit 1,
# one line naming the output, the directory and the errno, and leaves no output file.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs

# 200 contexts in 64K chunks: some 30 chunks, each spilling its rows.
"$BIN/mchgen" --seed 11 --contexts 200 --preset small --out "$T/a.mch" >/dev/null 2>&1 &&
    "$BIN/mchgen" --seed 12 --contexts 150 --preset small --out "$T/b.mch" >/dev/null 2>&1 ||
    fail "mchgen writes two collections"
ok_run "-convert a.mch" "$M" -convert --chunk-size 64K "$T/a.mch" "$T/a.mcz"
ok_run "-convert b.mch" "$M" -convert --chunk-size 64K "$T/b.mch" "$T/b.mcz"
mkdir "$T/m" && cp "$T/a.mcz" "$T/b.mcz" "$T/a.mch" "$T/m/"

# spilled NAME OUTNAME CMD...: CMD (its output named OUTNAME in $T) writes the same bytes with
# every row spilled as with every row in memory.
spilled() {
    local name=$1 out=$2; shift 2
    rm -f "$T/$out"
    MCZ_INDEX_SPILL_MIN=1000000000 "$@" >/dev/null 2>&1 && mv "$T/$out" "$T/held.mcz" &&
        MCZ_INDEX_SPILL_MIN=0 "$@" >/dev/null 2>&1 && same "$name: rows spilled" "$T/held.mcz" "$T/$out" ||
        fail "$name: rows spilled (the verb failed)"
}
spilled "-convert" x.mcz "$M" -convert --chunk-size 64K "$T/a.mch" "$T/x.mcz"
spilled "-convert --no-hashes" x.mcz "$M" -convert --chunk-size 64K --no-hashes "$T/a.mch" "$T/x.mcz"
spilled "-convert --codec xz" x.mcz "$M" -convert --chunk-size 64K --codec xz "$T/a.mch" "$T/x.mcz"
spilled "-removeDup" x.mcz "$M" -removeDup "$T/a.mcz" "$T/x.mcz"
spilled "-merge -dedup" x.mcz "$M" -merge "$T/x.mcz" "$T/m/*" -dedup
spilled "-strip" x.mcz "$M" -strip 5-50 "$T/a.mcz" "$T/x.mcz"
spilled "-copy" x.mcz "$M" -copy 50-175 "$T/a.mcz" "$T/x.mcz"

# --- TMPDIR without room: a tmpfs of 64 KiB; the rows of 200 contexts (7,200 bytes) are made
# larger than it by a filler leaving 4 KiB.
mkdir "$T/small" "$T/dest"
full_tmp() { # CMD...: runs CMD with TMPDIR on the small tmpfs, filled but for 4 KiB
    local fill='head -c 61440 /dev/zero >"$0/filler" 2>/dev/null'
    if mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null; then
        sh -c "$fill" "$T/small"
        TMPDIR="$T/small" "$@"; local rc=$?
        umount "$T/small"; return $rc
    fi
    unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs "$0" && '"$fill"' && shift &&
        TMPDIR="$0" exec "$@"' "$T/small" "$@"
}
if mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null && umount "$T/small" ||
   unshare -rm sh -c 'mount -t tmpfs tmpfs "$0"' "$T/small" 2>/dev/null; then
    for verb in "-convert --chunk-size 64K $T/a.mch" "-removeDup $T/a.mcz"; do
        set -- $verb
        v=$1; shift
        fail_run "full TMPDIR: mcs $v fails" full_tmp env MCZ_INDEX_SPILL_MIN=0 "$M" $v "$@" \
            "$T/dest/x.mcz"
        if [ "$(grep -c '' "$T/err")" -eq 1 ] &&
            grep -qF "mcs: $T/dest/x.mcz: " "$T/err" &&
            grep -qF "cannot keep the index rows in a temporary file in $T/small: No space left on device" \
                "$T/err"; then pass "full TMPDIR: mcs $v names the output, the directory and the errno"
        else fail "full TMPDIR: mcs $v names the output, the directory and the errno"
            sed 's/^/    /' "$T/err"; fi
        if [ -z "$(ls -A "$T/dest")" ]; then pass "full TMPDIR: mcs $v leaves nothing behind"
        else fail "full TMPDIR: mcs $v leaves nothing behind"; ls -A "$T/dest" | sed 's/^/    /'; fi
    done
    # The same with the rows held (the default bound): the tmpfs is not needed, the verb works.
    ok_run "full TMPDIR, rows held in memory: -convert works" full_tmp "$M" -convert \
        --chunk-size 64K "$T/a.mch" "$T/dest/x.mcz"
else
    fail "full TMPDIR: no way to mount a small tmpfs here (mount, unshare -rm)"
fi
cli_done
