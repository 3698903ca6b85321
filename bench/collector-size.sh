#!/usr/bin/env bash
# collector-size.sh [TARGET...] - what the collector adds, stripped, to a program that already
# links zstd statically (bench/COLLECTOR.md, "Size"). TARGETs: linux-x86_64 (cc),
# linux-arm64 (aarch64-linux-gnu-gcc, Debian's gcc-aarch64-linux-gnu), windows-x64
# (x86_64-w64-mingw32-gcc-posix, .ci/deps-windows.sh); default all three, a target whose
# compiler is missing reported as skipped.
#
# For each target, with -Os, each function and datum in its own section, unreferenced sections
# dropped by the linker (--gc-sections), stripped, zstd static (built from Debian's zstd source,
# cmake/zstd-source.sh: the tree a runtime vendors; ZSTD_SRC=DIR takes another), the C library
# as the target links it (shared on Linux; msvcrt on Windows, the compiler's runtime static):
#   zstd-c     bench/size/size_host.c calling zstd's compressor alone
#   zstd-all   calling every zstd function the collector calls (compression with dictionaries,
#              decompression, the dictionary builder): what a runtime vendoring zstd has
#   collector  zstd-all and the collector API (mcz.h; sources.mk's MCZ_WRITER_SRC, built as
#              a collector: no xz, NDEBUG)
# and three collectors built for size: without the live mode (MCZ_NO_LIVE), without the rolling
# buffer (MCZ_NO_MEMORY), without the crash dump (no mcz_writer_dump_on_signal call), and without
# all three. "adds" is collector - zstd-all, in KiB (1024 bytes) of the stripped file. Then the
# largest of mcz's objects in the collector's link (the linker map: their .text, .rodata,
# .data, unwind tables kept after --gc-sections).
# Work files in OUT (build/collector-size/). Prints markdown.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/build/collector-size}
TOP=${TOP:-8}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux-x86_64 linux-arm64 windows-x64)
mkdir -p "$OUT"
ZSTD_SRC=${ZSTD_SRC:-$(bash "$ROOT/cmake/zstd-source.sh" "$ROOT/build/zstd-src")}
mkdir -p "$OUT/xxh" && cp "$(echo '#include <xxhash.h>' | cpp -H -o /dev/null 2>&1 |
    sed -n 's/^\. //p' | head -n1)" "$OUT/xxh/xxhash.h" # the header alone, for every target
read -r -a mcz_src <<<"$(make -s -C "$ROOT" --no-print-directory collector-sources)"

# target_setup TARGET: CC, flags and file suffix of a target; 1 when its compiler is missing.
target_setup() {
    case $1 in
    linux-x86_64) CC=cc; SIZE=size; SYS_FLAGS=(-D_GNU_SOURCE); LINK=(); EXE= ;;
    linux-arm64)
        CC=aarch64-linux-gnu-gcc; SIZE=aarch64-linux-gnu-size; SYS_FLAGS=(-D_GNU_SOURCE)
        LINK=(); EXE= ;;
    windows-x64)
        CC=x86_64-w64-mingw32-gcc-posix; SIZE=x86_64-w64-mingw32-size
        SYS_FLAGS=(-D_FILE_OFFSET_BITS=64 -D__USE_MINGW_ANSI_STDIO=1)
        LINK=(-static); EXE=.exe ;;
    *) echo "collector-size.sh: unknown target $1" >&2; exit 2 ;;
    esac
    command -v "$CC" >/dev/null 2>&1
}

COMMON=(-Os -ffunction-sections -fdata-sections -DNDEBUG)

# archive LIB FLAGS... -- SOURCES...: compiles the sources (two at a time) into the static LIB.
archive() {
    local lib=$1 objdir=$1.d flags=() src
    shift
    while [ "$1" != -- ]; do flags+=("$1"); shift; done
    shift
    rm -rf "$objdir" && mkdir -p "$objdir"
    local n=0
    for src in "$@"; do
        "$CC" "${flags[@]}" -c "$src" -o "$objdir/$(basename "$src" .c).o" &
        n=$((n + 1))
        [ $((n % 2)) -ne 0 ] || wait
    done
    wait
    local objs=("$objdir"/*.o)
    [ ${#objs[@]} -eq $# ] || { echo "collector-size.sh: $lib: a source did not compile" >&2; exit 1; }
    rm -f "$lib" && ar rcs "$lib" "${objs[@]}"
}

# variant LIB DEFINES...: mcz.a with writer/writer.c (where the modes are) compiled so, as LIB.
variant() {
    local lib=$1
    shift
    cp "$T/mcz.a" "$T/$lib"
    (cd "$ROOT" && "$CC" "${base_flags[@]}" "$@" -c writer/writer.c -o "$T/writer.o")
    ar r "$T/$lib" "$T/writer.o"
}

# program NAME DEFINES...: links bench/size/size_host.c so, with the map NAME.map; its size.
program() {
    local name=$1 libs=()
    shift
    case " $* " in *" -DSIZE_COLLECTOR "*) libs=("$T/${COLLECTOR_LIB:-mcz.a}") ;; esac
    "$CC" "${COMMON[@]}" -std=c11 -I"$ROOT/include" -I"$ZSTD_SRC/lib" "$@" \
        "$ROOT/bench/size/size_host.c" -o "$T/$name$EXE" -Wl,--gc-sections -s \
        -Wl,-Map="$T/$name.map" "${LINK[@]}" "${libs[@]}" "$T/zstd.a" -pthread
    echo "$(loaded "$T/$name$EXE") $(stat -c %s "$T/$name$EXE")"
}

# loaded FILE: the bytes of FILE's code and data (size's text + data: what is loaded, bss
# excepted), which unlike the file's size is not rounded to pages.
loaded() { "$SIZE" "$1" | awk 'NR == 2 { print $1 + $2 }'; }

kib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1024 }'; }

# contributors MAP LIB: "bytes object" for each member of LIB in the link MAP, largest first.
contributors() {
    awk -v lib="$(basename "$2")" '
        function hex(h,   i, v) {
            v = 0
            for (i = 3; i <= length(h); i++)
                v = v * 16 + index("0123456789abcdef", tolower(substr(h, i, 1))) - 1
            return v
        }
        /^Linker script and memory map/ { on = 1; next }
        !on { next }
        NF == 1 && $1 ~ /^\./ { pending = $1; next }
        {
            name = (NF == 3) ? pending : $1
            if (NF == 3 || NF == 4) {
                file = $NF; size = $(NF - 1)
                if (name ~ /^\.(text|rodata|rdata|data|eh_frame|pdata|xdata|gcc_except)/ &&
                    index(file, lib "(") && size ~ /^0x/) {
                    sub(/.*\(/, "", file); sub(/\)$/, "", file)
                    sum[file] += hex(size)
                }
            }
            pending = ""
        }
        END { for (f in sum) print sum[f], f }' "$1" | sort -rn
}

rows=() tops=()
for target in "${targets[@]}"; do
    if ! target_setup "$target"; then
        rows+=("| $target | skipped: no $CC | | | | | | | | |")
        continue
    fi
    T=$OUT/$target
    mkdir -p "$T"
    archive "$T/zstd.a" "${COMMON[@]}" -DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 \
        -I"$ZSTD_SRC/lib" -I"$ZSTD_SRC/lib/common" -- \
        "$ZSTD_SRC"/lib/{common,compress,decompress,dictBuilder}/*.c
    base_flags=("${COMMON[@]}" -std=c11 -DMCZ_NO_XZ -DMCZ_BUILDING_LIBRARY -fvisibility=hidden
                "${SYS_FLAGS[@]}" -I"$ROOT/include" -I"$ROOT/common" -I"$OUT/xxh"
                -I"$ZSTD_SRC/lib")
    (cd "$ROOT" && archive "$T/mcz.a" "${base_flags[@]}" -- "${mcz_src[@]}")
    variant mcz-nolive.a -DMCZ_NO_LIVE
    variant mcz-nomem.a -DMCZ_NO_MEMORY
    variant mcz-none.a -DMCZ_NO_LIVE -DMCZ_NO_MEMORY
    read -r zc zc_file <<<"$(program zstd-c -DSIZE_ZSTD_COMPRESSOR)"
    read -r za za_file <<<"$(program zstd-all -DSIZE_ZSTD_ALL)"
    read -r full full_file <<<"$(program collector -DSIZE_COLLECTOR)"
    read -r nolive _ <<<"$(COLLECTOR_LIB=mcz-nolive.a program nolive -DSIZE_COLLECTOR)"
    read -r nomem _ <<<"$(COLLECTOR_LIB=mcz-nomem.a program nomem -DSIZE_COLLECTOR)"
    read -r nodump _ <<<"$(program nodump -DSIZE_COLLECTOR -DSIZE_NO_CRASH_DUMP)"
    read -r none _ <<<"$(COLLECTOR_LIB=mcz-none.a program none -DSIZE_COLLECTOR \
                           -DSIZE_NO_CRASH_DUMP)"
    rows+=("| $target | $(kib "$zc") | $(kib "$za") | $(kib "$full") | **$(kib $((full - za)))** |\
 $(kib $((full_file - za_file))) | $(kib $((full - zc))) | $(kib $((full - nolive))) |\
 $(kib $((full - nomem))) | $(kib $((full - nodump))) | $(kib $((full - none))) |")
    mcz_total=0 top=""
    while read -r bytes obj; do
        mcz_total=$((mcz_total + bytes))
        top+="${top:+, }${obj%.o} $(kib "$bytes")"
    done < <(contributors "$T/collector.map" mcz.a | head -n "$TOP")
    all_mcz=$(contributors "$T/collector.map" mcz.a | awk '{ s += $1 } END { print s + 0 }')
    zstd_more=$(( $(contributors "$T/collector.map" zstd.a | awk '{ s += $1 } END { print s + 0 }') -
                  $(contributors "$T/zstd-all.map" zstd.a | awk '{ s += $1 } END { print s + 0 }') ))
    tops+=("| $target | $(kib "$all_mcz") | $(kib "$zstd_more") | ${top//__/\/} |")
done

echo "KiB of code and data (text + data) of the stripped programs, -Os, --gc-sections; zstd"
echo "$(sed -n 's/^Version: //p' "$ZSTD_SRC"/../*.dsc 2>/dev/null | head -n1) from Debian's source, static."
echo
echo "| target | zstd compressor | all zstd the collector calls | with the collector | collector adds | file grows by | added to the compressor alone | saved without live mode | saved without rolling buffer | saved without crash dump | saved without all three |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "mcz's objects in the collector's link (KiB of code, data and unwind tables kept), the largest $TOP;"
echo "zstd: what the collector's link keeps of zstd beyond the zstd-all program's."
echo
echo "| target | all of mcz's objects | zstd beyond zstd-all | largest |"
echo "|---|---|---|---|"
printf '%s\n' "${tops[@]}"
