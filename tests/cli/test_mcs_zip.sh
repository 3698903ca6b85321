#!/usr/bin/env bash
# What superpmi.py downloads, in: mcs -convert X.mch.zip (one member X.mch, written by Python's
# zipfile as superpmi.py's upload does) converts the member as it is inflated, told a zip by its
# content; the archive exports back to the collection byte for byte and is the one the MCH
# itself gives. Bad zips (no .mch member, several, cut, a CRC that does not match, damaged
# data, a member that is no collection or is cut inside a context) fail naming the file and
# member, exit 1, and leave no output.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs

"$BIN/mchgen" --seed 11 --contexts 200 --preset small --out "$T/c.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
"$M" -convert "$T/c.mch" "$T/from-mch.mcz" >/dev/null 2>&1 || fail "-convert of the MCH"

python3 - "$T" <<'PY'
import struct, sys, zipfile
t = sys.argv[1]
mch = open(f"{t}/c.mch", "rb").read()
def write(name, members, method=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(f"{t}/{name}", "w", method) as z:
        for member, data in members:
            z.writestr(member, data)
write("c.mch.zip", [("c.mch", mch)])                                 # superpmi.py's upload
write("stored.mch.zip", [("c.mch", mch)], zipfile.ZIP_STORED)
write("with-toc.zip", [("c.mch.mct", b"toc"), ("c.mch", mch), ("notes/", b"")])
write("none.mch.zip", [("readme.txt", b"hello"), ("c.mch.mct", b"toc")])
write("two.mch.zip", [("a.mch", mch), ("b.MCH", mch)])
write("notmch.mch.zip", [("x.mch", b"hello, no collection here")])
write("short.mch.zip", [("x.mch", mch[:-100])])
with zipfile.ZipFile(f"{t}/empty.zip", "w"):
    pass
data = open(f"{t}/c.mch.zip", "rb").read()
open(f"{t}/cut.mch.zip", "wb").write(data[: len(data) // 2])
# the member's CRC-32 changed in its local header and in the central directory
crc = struct.unpack_from("<I", data, 14)[0]
open(f"{t}/crc.mch.zip", "wb").write(
    data.replace(struct.pack("<I", crc), struct.pack("<I", crc ^ 0x5A5A5A5A)))
damaged = bytearray(data)
for i in range(len(data) // 3, len(data) // 3 + 16):
    damaged[i] ^= 0xA5
open(f"{t}/damaged.mch.zip", "wb").write(bytes(damaged))
PY

# ---- Deflated and stored, by content whatever the name ----
ok_run "-convert X.mch.zip" "$M" -convert "$T/c.mch.zip" "$T/c.mcz"
contains "it says what it converted" "$T/out" "Converted 200 contexts"
ok_run "-export of the archive" "$M" -export "$T/c.mcz" "$T/back.mch"
same "the collection comes back byte for byte" "$T/c.mch" "$T/back.mch"
same "the archive is the one the MCH gives" "$T/from-mch.mcz" "$T/c.mcz"
cp "$T/stored.mch.zip" "$T/stored.bin"
ok_run "-convert of a stored (ZIP_STORED) zip named .bin" "$M" -convert "$T/stored.bin" "$T/s.mcz"
"$M" -export "$T/s.mcz" "$T/s.mch" >/dev/null 2>&1
same "stored: the collection comes back byte for byte" "$T/c.mch" "$T/s.mch"
ok_run "-convert of a zip holding a .mct and a directory beside the .mch" "$M" -convert \
    "$T/with-toc.zip" "$T/t.mcz"
same "only the .mch member is converted" "$T/from-mch.mcz" "$T/t.mcz"
ok_run "-convert of a zip with options" "$M" -convert "$T/c.mch.zip" "$T/o.mcz" --preset fast \
    --jit-ee-guid 28808a0e-5dc5-48bd-a7eb-27def284eff0
ok_run "the options hold" "$M" -printJITEEVersion "$T/o.mcz"
"$M" -export "$T/o.mcz" "$T/o.mch" >/dev/null 2>&1
same "with options: the collection comes back" "$T/c.mch" "$T/o.mch"
FAIL_EXIT=2 fail_run "an .mch output name is still refused" "$M" -convert "$T/c.mch.zip" "$T/x.mch"

# ---- Other verbs, and standard input, say what a zip is ----
fail_run "-export of a zip" "$M" -export "$T/c.mch.zip" "$T/e.mch"
contains "it says a zip is read by -convert and -info" "$T/err" \
    "c.mch.zip: a zip file: -convert and -info read the .mch member of a zip named as a file"
fail_run "-convert of a zip on standard input" sh -c "'$M' -convert - '$T/e.mcz' <'$T/c.mch.zip'"
contains "it says so for standard input too" "$T/err" "standard input: a zip file"

# ---- -info reads the member through ----
ok_run "-info X.mch.zip" "$M" -info "$T/c.mch.zip"
contains "-info names the member and its method" "$T/out" "format:        zip, member c.mch (deflate,"
contains "-info counts the contexts" "$T/out" "contexts:      200 (numbers 1-200)"
contains "-info gives the member's size" "$T/out" "size:          $(stat -c %s "$T/c.mch") bytes (the member)"
fail_run "-info of a zip whose CRC does not match" "$M" -info "$T/crc.mch.zip"
contains "-info: the CRC is named" "$T/err" "crc.mch.zip: member c.mch: at offset"

# ---- Bad zips: the file and member named, exit 1, nothing left behind ----
# bad NAME ZIP TEXT: -convert fails saying TEXT, and leaves no output.
bad() {
    rm -f "$T/bad.mcz"
    fail_run "$1" "$M" -convert "$T/$2" "$T/bad.mcz"
    contains "$1: the error says it" "$T/err" "$3"
    if [ -e "$T/bad.mcz" ] || ls -a "$T" | grep -q '^\.bad\.mcz'; then fail "$1: no output"; else
        pass "$1: no output"; fi
}
bad "no .mch member" none.mch.zip "none.mch.zip: the zip holds no .mch member (2 members)"
bad "an empty zip" empty.zip "empty.zip: the zip holds no .mch member (0 members)"
bad "two .mch members" two.mch.zip \
    "two.mch.zip: the zip holds 2 .mch members (a.mch, b.MCH): one is expected"
bad "a zip cut in half" cut.mch.zip "cut.mch.zip: not a readable zip"
bad "a CRC-32 that does not match" crc.mch.zip "crc.mch.zip: member c.mch: at offset"
contains "the CRC is named" "$T/err" "CRC error"
bad "damaged deflate data" damaged.mch.zip "damaged.mch.zip"
contains "damaged: the member is named" "$T/err" "member c.mch"
bad "a member that is no collection" notmch.mch.zip \
    "notmch.mch.zip, member x.mch: context 1 at offset 0: bad magic (expected 'mc')"
bad "a member cut inside a context" short.mch.zip "short.mch.zip, member x.mch: context 200 at offset"
contains "cut: the length is named" "$T/err" "runs past the end of the member"
if [ "$(grep -o "context 200" "$T/err" | wc -l)" -eq 1 ]; then pass "cut: the context is named once"
else fail "cut: the context is named once"; sed 's/^/    /' "$T/err" | head -5; fi

cli_done
