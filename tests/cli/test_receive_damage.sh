#!/usr/bin/env bash
# mcs -receive against mcs -verify on the same damaged bytes (FORMAT.md §12 "Streams"): an
# archive with a dictionary, a metadata frame and several chunks is damaged frame by frame (a
# bit flipped at the magic, the size, the tag, the first field, the middle and the last byte of
# the header, dictionary, metadata, each chunk's header and data frames, index and footer), given
# a format version and a header flag this build does not know (the header's checksum resealed),
# and cut at every frame boundary and inside every frame. Whatever -verify refuses, -receive
# refuses with an error naming the stream offset (keeping the chunks before the damage), or,
# for a stream that ends inside a frame (its documented behaviour for a writer killed
# mid-write), keeps exactly the chunks before that frame with a warning. What -verify takes,
# -receive takes whole.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M="$BIN/mcs"

"$BIN/mchgen" --seed 11 --contexts 120 --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
"$M" -convert "$T/a.mch" "$T/trained.mcz" --chunk-size 24K --level 3 >/dev/null 2>&1
ok_run "-convert: a dictionary, metadata, six chunks" "$M" -convert "$T/a.mch" "$T/a.mcz" \
    --dict-from "$T/trained.mcz" --chunk-size 160K --level 3 --jit-ee-guid 28808a0e-5dc5-48bd-a7eb-27def284eff0 \
    --target-os linux --target-arch x64
[ -s "$T/a.mcz" ] || { fail "setup: the archive is written"; exit 1; }
ok_run "-verify takes the archive" "$M" -verify "$T/a.mcz"
ok_run "-receive takes the archive whole" sh -c "'$M' -receive '$T/whole.mcz' <'$T/a.mcz'"
"$M" -copy 1-120 "$T/a.mcz" "$T/all.mch" >/dev/null 2>&1
"$M" -copy 1-120 "$T/whole.mcz" "$T/whole.mch" >/dev/null 2>&1
same "-receive keeps every context" "$T/all.mch" "$T/whole.mch"

# The frames of the archive, one a line: KIND OFFSET SIZE (a chunk's data frame apart), and
# a forger of the header that reseals its checksum (XXH3-64 of its first 36 bytes).
cat >"$T/frames.py" <<'EOF'
import ctypes, ctypes.util, struct, sys
def frames(b):
    names = {b"MCZH": "header", b"MCZD": "dict", b"MCZM": "meta", b"MCZI": "index",
             b"MCZF": "footer"}
    at = 0
    while at < len(b):
        size, tag = struct.unpack_from("<I4s", b, at + 4)
        yield names.get(tag, "chunk-head"), at, 8 + size
        if tag not in names:
            data = struct.unpack_from("<I", b, at + 24)[0]
            yield "chunk-data", at + 8 + size, data
            at += data
        at += 8 + size
def reseal_header(path, pos, value):
    b = bytearray(open(path, "rb").read())
    struct.pack_into("<I", b, pos, value)
    lib = ctypes.CDLL(ctypes.util.find_library("xxhash"))
    lib.XXH3_64bits.restype = ctypes.c_uint64
    lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    struct.pack_into("<Q", b, 36, lib.XXH3_64bits(bytes(b[:36]), 36))
    open(path, "wb").write(b)
if sys.argv[1] == "frames":
    for kind, at, size in frames(open(sys.argv[2], "rb").read()):
        print(kind, at, size)
else:
    reseal_header(sys.argv[2], int(sys.argv[3]), int(sys.argv[4], 0))
EOF
python3 "$T/frames.py" frames "$T/a.mcz" >"$T/frames" || fail "the archive's frames are listed"
for kind in header dict meta chunk-head chunk-data index footer; do
    grep -q "^$kind " "$T/frames" || fail "the archive has a $kind frame"
done
chunks=$(grep -c "^chunk-head " "$T/frames")
[ "$chunks" -ge 4 ] && pass "the archive has $chunks chunks" || fail "several chunks ($chunks)"

contexts_of() { "$M" -info "$1" 2>/dev/null | sed -n 's/^contexts: *\([0-9]*\).*/\1/p'; }

# received NAME FILE [cut]: -receive of FILE does what -verify of FILE calls for. A cut may
# keep every context (the index or footer cut off); damage elsewhere keeps fewer.
received() {
    local name=$1 file=$2
    "$M" -verify "$file" >/dev/null 2>&1
    local verified=$?
    rm -f "$T/r.mcz"
    "$M" -receive "$T/r.mcz" <"$file" >"$T/recv.out" 2>"$T/recv.err"
    local rc=$?
    if [ "$verified" -eq 0 ]; then
        [ "$rc" -eq 0 ] && [ "$(contexts_of "$T/r.mcz")" = 120 ] && pass "$name: both take it" ||
            { fail "$name: -verify takes it, -receive exits $rc"; sed 's/^/    /' "$T/recv.err"; }
        return
    fi
    if ! "$M" -verify "$T/r.mcz" >/dev/null 2>&1; then
        fail "$name: what -receive kept does not verify"; return
    fi
    local kept
    kept=$(contexts_of "$T/r.mcz")
    if [ "$rc" -eq 1 ] && grep -q "^mcs: stdin: offset [0-9]*: " "$T/recv.err"; then
        pass "$name: refused ($(sed 's/^mcs: //' "$T/recv.err" | head -1))"
    elif [ "$rc" -eq 0 ] && [ -n "$kept" ] && { [ "$kept" -lt 120 ] || [ "$3" = cut ]; }; then
        pass "$name: a cut stream, $kept contexts kept$(grep -q "inside a frame" "$T/recv.err" &&
              echo ', the torn frame dropped with a warning')"
    else
        fail "$name: -verify refuses it, -receive exits $rc"; sed 's/^/    /' "$T/recv.err"
        return
    fi
    if [ "${kept:-0}" -gt 0 ]; then # what was kept is the archive's first contexts
        "$M" -copy "1-$kept" "$T/r.mcz" "$T/kept.mch" >/dev/null 2>&1
        [ -s "$T/first.$kept.mch" ] || # the archive's first $kept, copied once for every case
            "$M" -copy "1-$kept" "$T/a.mcz" "$T/first.$kept.mch" >/dev/null 2>&1
        cmp -s "$T/kept.mch" "$T/first.$kept.mch" ||
            fail "$name: the $kept contexts kept are not the first"
    fi
}

# Bit flips: six places in every frame.
while read -r kind at size; do
    for rel in 0 4 8 12 $((size / 2)) $((size - 1)); do
        [ "$rel" -lt "$size" ] || continue
        pos=$((at + rel))
        cp "$T/a.mcz" "$T/d.mcz"
        byte=$(od -An -tu1 -j "$pos" -N1 "$T/d.mcz" | tr -d ' ')
        printf "$(printf '\\%03o' $((byte ^ 16)))" |
            dd of="$T/d.mcz" bs=1 seek="$pos" conv=notrunc status=none
        received "$kind at $at, byte $rel flipped" "$T/d.mcz"
    done
done <"$T/frames"

# A version after this build's, a flag it does not know: the header's checksum agrees.
cp "$T/a.mcz" "$T/v.mcz"; python3 "$T/frames.py" reseal "$T/v.mcz" 12 99
received "format version 99" "$T/v.mcz"
grep -q "format version 99" "$T/recv.err" && pass "the version is named" ||
    fail "the version is named"
cp "$T/a.mcz" "$T/f.mcz"
flags=$(od -An -tu4 -j 16 -N4 "$T/a.mcz" | tr -d ' ')
python3 "$T/frames.py" reseal "$T/f.mcz" 16 $((flags | 0x80))
received "an unknown header flag" "$T/f.mcz"
grep -q "offset 16: archive header: reserved bits" "$T/recv.err" && pass "the flag is named" ||
    fail "the flag is named"

# Cuts: at every frame boundary and a byte into every frame.
while read -r kind at size; do
    for cut in "$at" $((at + 1)); do
        head -c "$cut" "$T/a.mcz" >"$T/c.mcz"
        received "cut at $cut ($kind)" "$T/c.mcz" cut
    done
done <"$T/frames"

# Bytes after the footer.
{ cat "$T/a.mcz"; printf 'x'; } >"$T/x.mcz"
received "a byte after the footer" "$T/x.mcz"
cli_done
