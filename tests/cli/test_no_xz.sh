#!/usr/bin/env bash
# A build without liblzma (make XZ=0; CMake's MCZ_WITH_XZ=OFF, a collector's build): it refuses
# xz chunks, reading and writing, with an error naming the file, context and offset and no
# output left behind, and writes zstd archives byte for byte as the full build does. The XZ=0
# mcs is built here, in $BUILD/noxz (the first run compiles the library again: about a minute).
# tier: builds (make test-builds: CI runs it after make test; tests/run-all.sh)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BUILD_DIR=$(cd "${BUILD:-build}" && pwd)
NOXZ=$BUILD_DIR/noxz/bin/mcs
if ! make -s -C "$MCZ_ROOT" XZ=0 BUILD="$BUILD_DIR/noxz" BIN="$BUILD_DIR/noxz/bin" "$NOXZ" \
        >"$T/make.log" 2>&1; then
    fail "make XZ=0 builds mcs"; tail -5 "$T/make.log" | sed 's/^/    /'; cli_done; exit
fi
if ldd "$NOXZ" | grep -q liblzma; then fail "the XZ=0 mcs does not link liblzma"
else pass "the XZ=0 mcs does not link liblzma"; fi

"$BIN/mchgen" --seed 5 --contexts 120 --preset small --out "$T/c.mch" >/dev/null 2>&1 ||
    fail "mchgen writes the collection"
ok_run "the full build writes an xz archive" "$BIN/mcs" -convert --preset cold "$T/c.mch" "$T/xz.mcz"
fail_run "XZ=0: -verify of an xz archive fails" "$NOXZ" -verify "$T/xz.mcz"
contains "it names the file, the context and the reason" "$T/err" \
    "xz.mcz: context 1 at offset"
contains "it says the build has no xz codec" "$T/err" "no xz codec (built without liblzma)"
fail_run "XZ=0: -export of an xz archive fails" "$NOXZ" -export "$T/xz.mcz" "$T/back.mch"
[ ! -e "$T/back.mch" ] && pass "no export is left" || fail "no export is left"
fail_run "XZ=0: -convert --preset cold is refused" "$NOXZ" -convert --preset cold "$T/c.mch" "$T/x.mcz"
contains "it says why" "$T/err" "no xz codec"
[ ! -e "$T/x.mcz" ] && pass "no archive is left" || fail "no archive is left"

ok_run "XZ=0: -convert to zstd" "$NOXZ" -convert "$T/c.mch" "$T/z0.mcz"
ok_run "the full build: -convert to zstd" "$BIN/mcs" -convert "$T/c.mch" "$T/z1.mcz"
same "the two builds write the same zstd archive" "$T/z0.mcz" "$T/z1.mcz"
ok_run "XZ=0: -verify of it" "$NOXZ" -verify "$T/z1.mcz"
cli_done
