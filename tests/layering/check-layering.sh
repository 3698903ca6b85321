#!/usr/bin/env bash
# make check-layering: the layers hold in the built objects, not only by convention
# (ARCHITECTURE.md). The library's layers, lowest first:
#     common  io  superpmi  format  {writer | reader}
#   1. no program (mcs/, parallel-replay/, superpmi-dropin/, bench/, tools/) includes a
#      library-internal header: only include/ and its own directory's headers;
#   2. every symbol a program's objects take from the library is one the library exports
#      (MCZ_API): nothing reaches a hidden internal;
#   3. each layer's objects take symbols only from the layers below it: never from a layer
#      above, and writer/ and reader/ never from each other.
# Usage: check-layering.sh BUILD_DIR [SOURCE_DIR]  (the source tree defaults to this checkout;
# tests/cli/test_layering.sh points both at doctored copies to see each check fail)
set -u
BUILD=$(cd "${1:-build}" && pwd)
cd "${2:-$(dirname "$0")/../..}"
failures=0
say() { echo "$1"; }
bad() { echo "not ok - $1"; failures=$((failures + 1)); }

LAYERS="common io superpmi format writer reader"
internal_headers=$(for l in $LAYERS; do (cd "$l" 2>/dev/null && ls *.h 2>/dev/null); done)
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

layer_objects() { ls "$BUILD"/obj/"$1"/*.o 2>/dev/null; }
library_symbols=$(for l in $LAYERS; do layer_objects "$l"; done | xargs -r nm --defined-only 2>/dev/null |
                 awk 'NF==3 && $2 ~ /[TDBRCV]/ {print $3}' | sort -u)
exported=$(nm -D --defined-only "$BUILD/libmcz.so" | awk '{print $3}' | sort -u)
for prog in mcs parallel-replay superpmi-dropin bench tools; do
    objs=$(find "$BUILD/obj/$prog" -name '*.o' 2>/dev/null)
    [ -n "$objs" ] || continue
    taken=$(comm -12 <(undefined_in $objs) <(echo "$library_symbols"))
    hidden=$(comm -23 <(echo "$taken") <(echo "$exported"))
    if [ -n "$hidden" ]; then bad "$prog/ uses library internals: $(echo $hidden)"
    else say "ok - $prog/ uses only the library's exported symbols ($(echo "$taken" | grep -c .))"; fi
done

# Layer by layer: what each takes from the library's other layers must come from below.
# below_of L: the layers L may use (writer and reader share everything below them).
below_of() {
    case $1 in
    common) echo "" ;; io) echo "common" ;; superpmi) echo "common io" ;;
    format) echo "common io superpmi" ;; writer | reader) echo "common io superpmi format" ;;
    esac
}
for layer in $LAYERS; do
    objs=$(layer_objects "$layer")
    [ -n "$objs" ] || continue
    taken=$(undefined_in $objs)
    before=$failures
    for other in $LAYERS; do
        [ "$other" = "$layer" ] && continue
        grep -qw "$other" <<<"$(below_of "$layer")" && continue
        others=$(layer_objects "$other")
        [ -n "$others" ] || continue
        up=$(comm -12 <(echo "$taken") <(defined_in $others))
        [ -n "$up" ] && bad "$layer/ uses $other/: $(echo $up)"
    done
    [ "$failures" -eq "$before" ] &&
        say "ok - $layer/ takes only from the layers below it: $(below_of "$layer" | sed 's/^$/(none)/')"
done
[ "$failures" -eq 0 ]
