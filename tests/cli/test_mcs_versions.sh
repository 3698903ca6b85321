#!/usr/bin/env bash
# A collection from another JIT-EE version: sound framing, but a packet whose item size differs
# from this build's table. -integ must pass it (exit 0) and warn, naming the packet.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# One context, one GetArgNext (29) packet: LWM1, 1 item of 12 bytes (the table says 8 + 8).
python3 - "$T/other.mch" <<'PY'
import struct, sys
items = struct.pack('<Q', 0x1000) + struct.pack('<I', 7)
payload = b'LWM1' + struct.pack('<II', 1, 0) + items
packet = bytes([29]) + struct.pack('<I', len(payload)) + payload + b'\x42'
open(sys.argv[1], 'wb').write(b'mc' + struct.pack('<I', len(packet)) + packet + b'42')
PY

ok_run "-integ accepts a collection of another packet-table version" "$BIN/mcs" -integ "$T/other.mch"
contains "-integ warns about the packet table" "$T/err" "GetArgNext"
contains "-integ still reports the count" "$T/out" "Checked the integrity of 1 methodContexts"

# The same bytes with a broken canary are damage, not a version difference.
python3 - "$T/other.mch" "$T/broken.mch" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[-3] = 0x41
open(sys.argv[2], 'wb').write(b)
PY
fail_run "-integ rejects a broken canary" "$BIN/mcs" -integ "$T/broken.mch"
contains "the error names the context" "$T/err" "context 1"
cli_done
