#!/usr/bin/env bash
# A context whose framing is sound but whose packet's item size fits no JIT-EE version mcz
# knows: -integ fails it, naming the packet, the size found and the sizes expected (a flipped
# id, or a version mcz does not know: --jit-ee cannot help).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# One context, one GetArgNext (29) packet: LWM1, 1 item of 12 bytes (the table says 8 + 8).
python3 - "$T/other.mch" <<'PY'
import struct, sys
items = struct.pack('<Q', 0x1000) + struct.pack('<I', 7)
payload = b'LWM1' + struct.pack('<II', 1, 0) + items
packet = bytes([29]) + struct.pack('<I', len(payload)) + payload + b'\x42'
open(sys.argv[1], 'wb').write(b'mc' + struct.pack('<I', len(packet)) + packet + b'42')
PY

fail_run "-integ fails a packet of the wrong item size" "$BIN/mcs" -integ "$T/other.mch"
contains "-integ names the packet" "$T/err" "packet GetArgNext: items of 12 bytes where key 8 + value 8 are expected"

# The same bytes with a broken canary are damage, not a version difference.
python3 - "$T/other.mch" "$T/broken.mch" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[-3] = 0x41
open(sys.argv[2], 'wb').write(b)
PY
fail_run "-integ rejects a broken canary" "$BIN/mcs" -integ "$T/broken.mch"
contains "the error names the context" "$T/err" "context 1"

# --- JIT-EE versions: the same corpus written as B and as C ---
M="$BIN/mcs"
G="$BIN/mchgen"
"$G" --seed 5 --contexts 120 --preset full --out "$T/b.mch" || fail "mchgen B"
"$G" --seed 5 --contexts 120 --preset full --jit-ee C --out "$T/c.mch" || fail "mchgen --jit-ee C"
"$G" --seed 5 --contexts 120 --preset full --jit-ee 28808A0E-5DC5-48BD-A7EB-27DEF284EFF0 \
    --out "$T/b2.mch" || fail "mchgen --jit-ee GUID"
same "mchgen writes B by default" "$T/b.mch" "$T/b2.mch"
exit_is "mchgen refuses an unknown version" 2 "$G" --contexts 1 --jit-ee Z --out "$T/z.mch"

ok_run "-info on a B collection" "$M" -info "$T/b.mch"
contains "-info reports B with its GUID" "$T/out" \
    "packet table:  B, detected from the packets; its GUID 28808a0e-5dc5-48bd-a7eb-27def284eff0 is inferred from the table, not recorded"
ok_run "-info on a C collection" "$M" -info "$T/c.mch"
contains "-info reports C, detected" "$T/out" "packet table:  C, detected from the packets; its GUID is not known"
if [ -s "$T/err" ]; then fail "a detected version is no warning"; else pass "a detected version is no warning"; fi

# The GUID is recorded, never guessed from the packets (tests/cli/test_mcs_jitee_guid.sh).
fail_run "-printJITEEVersion of an MCH file: it records no GUID" "$M" -printJITEEVersion "$T/b.mch"
contains "it says so" "$T/err" "an MCH file records no JIT-EE GUID"
if [ -s "$T/out" ]; then fail "nothing on stdout"; else pass "nothing on stdout"; fi
ok_run "-printJITEEVersion --list lists the versions" "$M" -printJITEEVersion --list
contains "the list has B" "$T/out" "B   28808a0e-5dc5-48bd-a7eb-27def284eff0"
contains "the list has C" "$T/out" "C   unknown"

# Each read as its own version, both give the same signatures and identities; read as the
# other, they do not.
ok_run "-dumpMap of B" "$M" -dumpMap "$T/b.mch"; mv "$T/out" "$T/b.map"
ok_run "-dumpMap of C" "$M" -dumpMap "$T/c.mch"; mv "$T/out" "$T/c.map"
same "-dumpMap: B and C read alike" "$T/b.map" "$T/c.map"
contains "-dumpMap names classes" "$T/b.map" "class "
fail_run "-dumpMap of C read as B refuses what B cannot read" "$M" -dumpMap --jit-ee B "$T/c.mch"
contains "it says which packet does not fit B" "$T/err" "another JIT-EE version?"
toc_hashes() { "$M" -toc "$1" >/dev/null 2>&1 && "$M" -dumpToc "$1.mct" | cut -c24-; }
toc_hashes "$T/b.mch" >"$T/b.hashes"
toc_hashes "$T/c.mch" >"$T/c.hashes"
same "-toc: B and C give the same identities" "$T/b.hashes" "$T/c.hashes"

# --jit-ee by name and by GUID, on any verb; a bad value is a usage error
ok_run "--jit-ee by name" "$M" -info --jit-ee B "$T/c.mch"
contains "--jit-ee is reported" "$T/out" "packet table:  B, given by --jit-ee; its GUID 28808a0e-5dc5-48bd-a7eb-27def284eff0 is inferred"
ok_run "--jit-ee by GUID" "$M" -info "$T/c.mch" --jit-ee=28808A0E-5DC5-48BD-A7EB-27DEF284EFF0
contains "--jit-ee GUID is taken in any case" "$T/out" "packet table:  B, given by --jit-ee"
FAIL_EXIT=2 fail_run "--jit-ee refuses an unknown version" "$M" -info --jit-ee Q "$T/b.mch"
contains "the refusal names the versions" "$T/err" "'Q' is not a JIT-EE version or GUID mcz knows (B, C"
FAIL_EXIT=2 fail_run "--jit-ee needs a value" "$M" -integ "$T/b.mch" --jit-ee

# Packets that cannot decide: warned, read as the newest
python3 - "$T/int.mch" <<'PY2'
import struct, sys
items = struct.pack('<Q', 0x1000) + struct.pack('<Q', 0x2000)
payload = b'LWM1' + struct.pack('<II', 1, 0) + items
packet = bytes([29]) + struct.pack('<I', len(payload)) + payload + b'\x42'
open(sys.argv[1], 'wb').write(b'mc' + struct.pack('<I', len(packet)) + packet + b'42')
PY2
ok_run "-info on undecidable packets" "$M" -info "$T/int.mch"
contains "undecided: a warning" "$T/err" "its packets do not tell which JIT-EE version recorded it; reading it as C, the newest"
contains "undecided: the newest" "$T/out" "packet table:  C, the newest: the packets do not tell; its GUID is not known"
ok_run "--jit-ee silences the guess" "$M" -info --jit-ee C "$T/int.mch"
if [ -s "$T/err" ]; then fail "no warning with --jit-ee"; else pass "no warning with --jit-ee"; fi

# -convert records the version; the archive reads as it, and verifies
ok_run "-convert a C collection" "$M" -convert "$T/c.mch" "$T/c.mcz"
ok_run "-info of its archive" "$M" -info "$T/c.mcz"
contains "the archive records C" "$T/out" "packet table:  C, recorded in the archive; its GUID is not known"
contains "the archive is format version 4" "$T/out" "mcz archive, version 4"
toc_hashes "$T/c.mcz" >"$T/cz.hashes"
same "-toc of the archive: the identities of its collection" "$T/c.hashes" "$T/cz.hashes"
ok_run "-verify of the archive" "$M" -verify "$T/c.mcz"
ok_run "mcz-replay verifies the archive" "$BIN/mcz-replay" -q "$T/c.mcz"
ok_run "mcz-replay verifies the .mch with its .mct" "$BIN/mcz-replay" -q "$T/c.mch"
ok_run "mcz-replay --jit-ee" "$BIN/mcz-replay" -q --jit-ee C "$T/c.mch"
exit_is "mcz-replay refuses an unknown --jit-ee" 255 "$BIN/mcz-replay" -q --jit-ee Q "$T/c.mch"
# read as B, the .mct written as C no longer matches: every context fails the identity check
exit_is "mcz-replay --jit-ee B on C: identities differ" 1 "$BIN/mcz-replay" -q --jit-ee B "$T/c.mch"
cli_done
