#!/usr/bin/env bash
# make check-layering: the public boundary holds in the built objects, not only by convention.
#   1. no program (mcs/, parallel-replay/, superpmi-dropin/, bench/, tools/) includes a
#      library-internal header: only include/ and its own directory's headers;
#   2. every symbol a program's objects take from the library is one the library exports
#      (MCZ_API): nothing reaches a hidden internal;
#   3. writer/ and reader/ objects take nothing from each other (both only from format/).
# Usage: check-layering.sh BUILD_DIR [SOURCE_DIR]  (the source tree defaults to this checkout;
# tests/cli/test_layering.sh points both at doctored copies to see each check fail)
set -u
BUILD=$(cd "${1:-build}" && pwd)
cd "${2:-$(dirname "$0")/../..}"
failures=0
say() { echo "$1"; }
bad() { echo "not ok - $1"; failures=$((failures + 1)); }

internal_headers=$(cd format && ls *.h; cd ../writer && ls *.h; cd ../reader && ls *.h) 2>/dev/null
found=
for src in $(ls mcs/*.[ch] parallel-replay/*.[ch] parallel-replay/plugins/*.c \
             superpmi-dropin/*.[ch] bench/*.c \
             bench/mchgen/*.[ch] tools/*.[ch] 2>/dev/null); do
    for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$src"); do
        base=$(basename "$h")
        if [[ "$h" != *..* ]] && { [ -e "include/$h" ] || [ -e "$(dirname "$src")/$h" ]; }; then
            continue
        fi
        if grep -qx "$base" <<<"$internal_headers" || [[ "$h" == */* ]]; then
            bad "$src includes $h, which is not a public header"; found=1
        fi
    done
done
[ -z "$found" ] && say "ok - programs include only public headers and their own"

defined_in() { nm --defined-only "$@" 2>/dev/null | awk 'NF==3 && $2 ~ /[TDBRCV]/ {print $3}' | sort -u; }
undefined_in() { nm -u "$@" 2>/dev/null | awk '{print $NF}' | sort -u; }

library_symbols=$(defined_in "$BUILD"/obj/format/*.o "$BUILD"/obj/writer/*.o "$BUILD"/obj/reader/*.o)
exported=$(nm -D --defined-only "$BUILD/libmcz.so" | awk '{print $3}' | sort -u)
for prog in mcs parallel-replay superpmi-dropin bench tools; do
    objs=$(find "$BUILD/obj/$prog" -name '*.o' 2>/dev/null)
    [ -n "$objs" ] || continue
    taken=$(comm -12 <(undefined_in $objs) <(echo "$library_symbols"))
    hidden=$(comm -23 <(echo "$taken") <(echo "$exported"))
    if [ -n "$hidden" ]; then bad "$prog/ uses library internals: $(echo $hidden)"
    else say "ok - $prog/ uses only the library's exported symbols ($(echo "$taken" | grep -c .))"; fi
done

writer_defs=$(defined_in "$BUILD"/obj/writer/*.o)
reader_defs=$(defined_in "$BUILD"/obj/reader/*.o)
w2r=$(comm -12 <(undefined_in "$BUILD"/obj/writer/*.o) <(echo "$reader_defs"))
r2w=$(comm -12 <(undefined_in "$BUILD"/obj/reader/*.o) <(echo "$writer_defs"))
[ -z "$w2r" ] && say "ok - writer/ takes nothing from reader/" || bad "writer/ uses reader/: $(echo $w2r)"
[ -z "$r2w" ] && say "ok - reader/ takes nothing from writer/" || bad "reader/ uses writer/: $(echo $r2w)"
[ "$failures" -eq 0 ]
