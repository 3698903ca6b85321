#!/usr/bin/env bash
# The collector as a runtime takes it (tests/cmake-host/): a host project built with CMake and
# Ninja adds mcz with add_subdirectory, MCZ_WRITER_ONLY=ON and MCZ_ZSTD_SOURCE_DIR at Debian's
# zstd source (apt-get source, kept in $BUILD/zstd-src/ between runs); its program links the
# collector and zstd statically and needs no shared library but the C library's (readelf -d);
# the archive it writes of a collection verifies and exports to the collection's bytes, and it
# refuses the xz codec the collector is built without. Skipped, saying so, only without cmake
# or ninja (.ci/deps.sh installs both). A zstd source that cannot be fetched fails it.
# tier: builds (make test-builds: CI runs it after make test; tests/run-all.sh)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BUILD_DIR=$(mkdir -p "${BUILD:-build}" && cd "${BUILD:-build}" && pwd)
for tool in cmake ninja; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        pass "the CMake host project # skip: no $tool (.ci/deps.sh installs cmake, ninja-build)"
        cli_done; exit
    fi
done

if ! zstd_src=$(bash "$MCZ_ROOT/cmake/zstd-source.sh" "$BUILD_DIR/zstd-src" 2>"$T/fetch.log"); then
    fail "Debian's zstd source is fetched (apt-get source zstd; a deb-src entry is needed)"
    sed 's/^/    /' "$T/fetch.log"
    cli_done; exit
fi
pass "Debian's zstd source is at hand ($(basename "$(dirname "$zstd_src")")/src)"

host=$T/host
ok_run "the host project configures (add_subdirectory, MCZ_WRITER_ONLY, MCZ_ZSTD_SOURCE_DIR)" \
    cmake -G Ninja -S "$MCZ_ROOT/tests/cmake-host" -B "$host" -DCMAKE_BUILD_TYPE=Release \
    -DMCZ_DIR="$MCZ_ROOT" -DMCZ_ZSTD_SOURCE_DIR="$zstd_src"
ok_run "the host project builds" cmake --build "$host"
prog=$host/collect_host
if [ -f "$host/mcz/libmcz-writer.a" ] && [ ! -e "$host/mcz/libmcz-writer.so" ]; then
    pass "mcz::writer is a static library"
else fail "mcz::writer is a static library"; ls "$host/mcz" | sed 's/^/    /'; fi
if [ -x "$prog" ]; then
    needed=$(readelf -d "$prog" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
    if [ "$needed" = "libc.so.6 " ]; then pass "the program needs the C library alone ($needed)"
    else fail "the program needs the C library alone (it needs: $needed)"; fi
    if nm "$prog" | grep -q ' T ZSTD_compress2$'; then pass "zstd is linked into the program"
    else fail "zstd is linked into the program"; fi
fi

"$BIN/mchgen" --seed 11 --contexts 400 --preset small --out "$T/c.mch" >/dev/null 2>&1 ||
    fail "mchgen writes the collection"
ok_run "the host collects the collection" "$prog" "$T/c.mch" "$T/c.mcz"
ok_run "mcs -verify of what it wrote" "$BIN/mcs" -verify "$T/c.mcz"
ok_run "mcs -export of what it wrote" "$BIN/mcs" -export "$T/c.mcz" "$T/back.mch"
same "the export is the collection, byte for byte" "$T/c.mch" "$T/back.mch"

ok_run "the host asks for xz: refused" "$prog" --xz "$T/x.mcz"
contains "it says the build has no xz codec" "$T/out" "no xz codec"
[ ! -e "$T/x.mcz" ] && pass "no archive is left by the refusal" ||
    fail "no archive is left by the refusal"
cli_done
