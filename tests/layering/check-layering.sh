#!/usr/bin/env bash
# make check-layering: the layers hold in the built objects, not only by convention
# (ARCHITECTURE.md). The library's layers, lowest first:
#     common  platform  io  superpmi  format  {writer | reader}
#   1. no program (mcs/, parallel-replay/, superpmi-dropin/, bench/, tools/) includes a
#      library-internal header: only include/, the platform layer's (platform/) and its own
#      directory's headers;
#   2. every symbol a program's objects take from the library is one the library exports
#      (MCZ_API) or the platform layer's (the programs link libmcz.a, which holds it; hidden in
#      libmcz.so): nothing reaches another hidden internal;
#   3. each layer's objects take symbols only from the layers below it: never from a layer
#      above, and writer/ and reader/ never from each other;
#   4. the frame magic numbers and tags (format/archive.h) are spelled only in the container
#      layer: no other layer or program writes one as a number, a byte list or its text;
#   5. no library file outside platform/ includes an operating system's header (POSIX's,
#      Windows', threads') or tests a system in its #if lines (the public header's export
#      macros aside), and none but platform/os_win32.c turns Windows' error codes into errno
#      (a switch over ERROR_* names): a port to another system fills platform/ alone (libcurl's
#      header is io/'s, the HTTP source's). A POSIX call (open, mmap, pthread_mutex_lock...)
#      outside platform/ then has no declaration: the build refuses it
#      (-Werror=implicit-function-declaration, the Makefile's and CMake's warnings);
#   6. no object of mcs/ calls (or takes data from) one that calls it back, however far round:
#      mcs is layered (ARCHITECTURE.md "mcs"), the messages and the run's state at the bottom;
#   7. the programs reach the system through the platform layer (platform/platform.h): no
#      program file includes more than ISO C's headers, the libraries' it links (zstd's,
#      libzip's) and its own ("..."), or tests a system (_WIN32, __APPLE__, __linux__...) in
#      its #if lines, or turns Windows' errors into errno: what one program alone asks of the
#      system (mcz-replay's workers, the drop-in's paths and stand-in file) is platform/'s too
#      (platform/worker.h, platform/program.h), and every program file is under the rule.
#      The benchmarks' drivers (bench/*.c) and the test plugins (parallel-replay/plugins/) are
#      no programs a user runs: they are outside it.
# Usage: check-layering.sh BUILD_DIR [SOURCE_DIR]  (the source tree defaults to this checkout;
# tests/cli/test_layering.sh points both at doctored copies to see each check fail)
set -u
export LC_ALL=C # one collation for sort and comm, and bytes for grep
BUILD=$(cd "${1:-build}" && pwd)
cd "${2:-$(dirname "$0")/../..}"
failures=0
say() { echo "$1"; }
bad() { echo "not ok - $1"; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

LAYERS="common platform io superpmi format writer reader"
PROGRAMS="mcs parallel-replay superpmi-dropin bench tools"
# 1. One awk pass over the programs' "#include "..."" lines. A header is the program's to
# include when it names no parent (..) and exists under include/, platform/ or the including
# file's directory; any other is refused when it is a layer's (by name) or names a path.
find $LAYERS -maxdepth 1 -name '*.h' >"$work/internal_headers" 2>/dev/null
find include platform $PROGRAMS >"$work/existing" 2>/dev/null
found=
while IFS= read -r hit; do
    bad "$hit"; found=1
done < <(awk -v internal="$work/internal_headers" -v existing="$work/existing" '
    FILENAME == internal { sub(/.*\//, ""); is_internal[$0] = 1; next }
    FILENAME == existing { exists[$0] = 1; next }
    match($0, /^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"/) {
        h = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", h); sub(/"$/, "", h)
        dir = FILENAME; sub(/\/[^\/]*$/, "", dir)
        if (h !~ /\.\./ && (exists[path("include/" h)] || exists[path("platform/" h)] ||
                            exists[path(dir "/" h)]))
            next
        base = h; sub(/.*\//, "", base)
        if (is_internal[base] || h ~ /\//)
            print FILENAME " includes " h ", which is not a public header" }
    function path(p) { gsub(/\/(\.\/)+/, "/", p); gsub(/\/\/+/, "/", p); return p }' \
    "$work/internal_headers" "$work/existing" \
    $(ls mcs/*.[ch] parallel-replay/*.[ch] parallel-replay/plugins/*.c superpmi-dropin/*.[ch] \
         bench/*.c bench/mchgen/*.[ch] tools/*.[ch] 2>/dev/null))
[ -z "$found" ] && say "ok - programs include only public headers, the platform's and their own"

# The objects' symbols, read once (one nm run) for rules 2, 3 and 6: "D OBJECT TYPE SYMBOL"
# for a definition, "U OBJECT U SYMBOL" for a use, OBJECT relative to obj/ (mcs/mcs_run.o).
# A use is what nm -u lists (U, and the weak w and v); every other type is a definition.
# A layer's objects are those directly in obj/LAYER/ ("flat"), a program's all under obj/PROGRAM/.
: >"$work/objects"; : >"$work/symbols"
[ -d "$BUILD/obj" ] && (cd "$BUILD/obj" && find -H -- * -name '*.o' >"$work/objects" 2>/dev/null)
(cd "$BUILD/obj" 2>/dev/null && xargs -r nm -A <"$work/objects" 2>/dev/null) |
    awk 'NF == 3 { object = $1; sub(/:[^:]*$/, "", object)
                   if ($2 ~ /^[Uwv]$/) print "U", object, "U", $3
                   else print "D", object, $2, $3 }' >"$work/symbols"
nm -D --defined-only "$BUILD/libmcz.so" | awk '{print $3}' >"$work/exported"

# The symbol sets of rules 2 and 3, one "KEY SYMBOL..." line a key (symbols sorted):
#   objects:DIR         DIR has objects (flat:DIR: directly in obj/DIR/);
#   taken:PROGRAM       the library's symbols PROGRAM's objects use;
#   hidden:PROGRAM      those neither exported nor the platform layer's;
#   cross:LAYER:OTHER   the symbols LAYER's objects take from another layer's.
declare -A sets
while read -r key symbols; do sets[$key]=$symbols; done < <(
    awk -v layers="$LAYERS" -v programs="$PROGRAMS" -v exported="$work/exported" \
        -v objects="$work/objects" '
        BEGIN { n = split(layers, layer, " "); for (i = 1; i <= n; i++) is_layer[layer[i]] = 1
                m = split(programs, program, " ")
                for (i = 1; i <= m; i++) is_program[program[i]] = 1 }
        FILENAME == exported { is_exported[$1] = 1; next }
        { object = (FILENAME == objects) ? $0 : $2
          dir = object; sub(/\/.*/, "", dir); flat = (object !~ /\/.*\//) }
        FILENAME == objects { print "objects:" dir, "-"; if (flat) print "flat:" dir, "-"; next }
        $1 == "D" && flat && is_layer[dir] && $3 ~ /[TDBRCV]/ {
            library[$4] = 1; defines[dir, $4] = 1 }
        $1 == "U" && is_program[dir] { program_uses[dir, $4] = 1 }
        $1 == "U" && flat && is_layer[dir] { layer_uses[dir, $4] = 1 }
        END {
            for (k in program_uses) {
                split(k, p, SUBSEP)
                if (!(p[2] in library)) continue
                print "taken:" p[1], p[2]
                if (!(p[2] in is_exported) && !(("platform", p[2]) in defines))
                    print "hidden:" p[1], p[2]
            }
            for (k in layer_uses) {
                split(k, p, SUBSEP)
                for (i = 1; i <= n; i++)
                    if (layer[i] != p[1] && ((layer[i], p[2]) in defines))
                        print "cross:" p[1] ":" layer[i], p[2]
            } }' "$work/exported" "$work/objects" "$work/symbols" | sort -u |
    awk '$1 != key { if (key != "") print key, list; key = $1; list = $2; next }
         { list = list " " $2 } END { if (key != "") print key, list }')

# 2. What the programs take from the library.
for prog in $PROGRAMS; do
    [ -n "${sets[objects:$prog]:-}" ] || continue
    if [ -n "${sets[hidden:$prog]:-}" ]; then
        bad "$prog/ uses library internals: ${sets[hidden:$prog]}"
    else
        read -ra taken <<<"${sets[taken:$prog]:-}"
        say "ok - $prog/ uses only the library's exported symbols and the platform's (${#taken[@]})"
    fi
done

# 3. Layer by layer: what each takes from the library's other layers must come from below.
# below_of L: the layers L may use (writer and reader share everything below them).
below_of() {
    case $1 in
    common) echo "" ;; platform) echo "common" ;; io) echo "common platform" ;;
    superpmi) echo "common platform io" ;; format) echo "common platform io superpmi" ;;
    writer | reader) echo "common platform io superpmi format" ;;
    esac
}
for layer in $LAYERS; do
    [ -n "${sets[flat:$layer]:-}" ] || continue
    below=$(below_of "$layer")
    before=$failures
    for other in $LAYERS; do
        [[ " $below " == *" $other "* ]] && continue
        up=${sets[cross:$layer:$other]:-}
        [ -n "$up" ] && bad "$layer/ uses $other/: $up"
    done
    [ "$failures" -eq "$before" ] &&
        say "ok - $layer/ takes only from the layers below it: ${below:-(none)}"
done
# The frame literals, from format/archive.h: each as its u32 (0x184D2A5C), its bytes in file
# order (0x5C, 0x2A, 0x4D, 0x18) and its text ("MCZH").
frame_literals() {
    sed -n 's/^#define MCZ_ARC_\(SKIP_MAGIC\|TAG_[A-Z_]*\|END_MAGIC\) *0x\([0-9A-Fa-f]\{8\}\)u.*/\2/p' \
        format/archive.h
}
literal_patterns() {
    local hex b0 b1 b2 b3
    for hex in $(frame_literals); do
        b3=${hex:0:2} b2=${hex:2:2} b1=${hex:4:2} b0=${hex:6:2}
        echo "0x$hex"
        echo "0x$b0, *0x$b1, *0x$b2, *0x$b3"
        printable "$b0" "$b1" "$b2" "$b3" || continue # the skippable magic has no text
        printf '"%b"\n' "\\x$b0\\x$b1\\x$b2\\x$b3" | sed 's/[][\\.*^$+?(){}|]/\\&/g'
    done
}
printable() {
    local b
    for b in "$@"; do (( 16#$b >= 0x20 && 16#$b < 0x7f )) || return 1; done
}
patterns=$(literal_patterns)
if [ "$(echo "$patterns" | grep -c .)" -lt 30 ]; then # 11 literals, 10 of them text
    bad "format/archive.h names fewer than 10 frame magic numbers and tags"
else
    spelled=$(ls common/*.[ch] io/*.[ch] superpmi/*.[ch] writer/*.[ch] reader/*.[ch] \
                  mcs/*.[ch] parallel-replay/*.[ch] parallel-replay/plugins/*.c \
                  superpmi-dropin/*.[ch] bench/*.c bench/mchgen/*.[ch] tools/*.[ch] 2>/dev/null |
              xargs -r grep -noiE -f <(echo "$patterns") | head -20)
    if [ -n "$spelled" ]; then
        while IFS= read -r hit; do
            bad "${hit%%:*} spells a frame literal of format/archive.h: ${hit#*:}"
        done <<<"$spelled"
    else
        say "ok - frame magic numbers and tags are spelled only in format/"
    fi
fi
# 5. The operating system is platform/'s alone: its headers, its #if tests, its errors.
os_headers='unistd|fcntl|dirent|dlfcn|poll|spawn|termios|netdb|windows|winsock2|io|direct|pthread|semaphore|sys/[a-z_]+|netinet/[a-z_]+|arpa/[a-z_]+|curl/[a-z_]+'
system_tests='_WIN32|_WIN64|__MINGW32__|_MSC_VER|__APPLE__|__linux__|__unix__|__CYGWIN__'
library_files=$(for l in $LAYERS; do [ "$l" = platform ] || ls "$l"/*.[ch] 2>/dev/null; done)
os_hits=$(grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*<($os_headers)\.h>" \
              $library_files /dev/null 2>/dev/null | grep -vE '^io/[^:]*:[0-9]+:.*<curl/')
if [ -n "$os_hits" ]; then
    while IFS= read -r hit; do
        bad "${hit%%:*} includes an operating system's header outside platform/: ${hit##*:}"
    done <<<"$os_hits"
else
    say "ok - only platform/ includes an operating system's headers"
fi
# The public header tests the system for its export and printf macros only (MCZ_DLL,
# MCZ_BUILDING_LIBRARY, MinGW's gnu_printf).
test_hits=$({ grep -nHE "^[[:space:]]*#[[:space:]]*(if|ifdef|ifndef|elif)\b.*\b($system_tests)\b" \
                  $library_files /dev/null
              grep -nHE "^[[:space:]]*#[[:space:]]*(if|ifdef|ifndef|elif)\b.*\b($system_tests)\b" \
                  include/*.h /dev/null | grep -vE 'MCZ_DLL|MCZ_BUILDING_LIBRARY|__GNUC__'; } 2>/dev/null)
if [ -n "$test_hits" ]; then
    while IFS= read -r hit; do
        file=${hit%%:*} rest=${hit#*:}
        bad "$file tests a system (line ${rest%%:*}: ${rest#*:}): system-specific code belongs in platform/"
    done <<<"$test_hits"
else
    say "ok - only platform/ tests a system in its #if lines (the public header's export macros aside)"
fi
# One table of Windows errors (platform/os_win32.c mcz_os_errno_of_win32): a case label of an
# ERROR_* name anywhere else is a second one.
win_error_files() { grep -lE "^[[:space:]]*case[[:space:]]+ERROR_[A-Z_]+[[:space:]]*:" "$@" 2>/dev/null; }
tables=$(win_error_files $(ls common/*.[ch] platform/*.[ch] io/*.[ch] superpmi/*.[ch] format/*.[ch] \
                              writer/*.[ch] reader/*.[ch] include/*.h mcs/*.[ch] \
                              parallel-replay/*.[ch] superpmi-dropin/*.[ch] bench/mchgen/*.[ch] \
                              tools/*.[ch] 2>/dev/null) | grep -vx platform/os_win32.c)
if [ -n "$tables" ]; then
    for t in $tables; do bad "$t turns Windows' errors into errno: a second table (platform/os_win32.c mcz_os_errno_of_win32 is the one)"; done
else
    say "ok - one table of Windows errors (platform/os_win32.c)"
fi
# 6. mcs's modules in no circle: "caller callee" for each object using a symbol another one
# defines (functions and data: the switch table names the verbs), then tsort finds a loop.
mcs_edges() {
    awk '$2 ~ /^mcs\/[^\/]*\.o$/ {
             f = $2; sub(/.*\//, "", f); sub(/\.o$/, "", f)
             if ($1 == "D") { if ($3 ~ /[TDRB]/) def[$4] = f } else use[f " " $4] = 1 }
         END { for (k in use) { split(k, p, " ")
                   if ((p[2] in def) && def[p[2]] != p[1]) print p[1], def[p[2]] } }' \
        "$work/symbols" | sort -u
}
if [ -n "${sets[flat:mcs]:-}" ]; then
    loop=$(mcs_edges | tsort 2>&1 >/dev/null | grep -v '^tsort: -:' | sed 's/^tsort: //')
    if [ -n "$loop" ]; then bad "mcs/ calls in a circle: $(echo $loop)"
    else say "ok - no object of mcs/ calls one that calls it back"; fi
fi
# 7. The programs reach the system through the platform layer alone.
iso_c_headers='assert|complex|ctype|errno|fenv|float|inttypes|iso646|limits|locale|math|setjmp|signal|stdalign|stdarg|stdatomic|stdbool|stddef|stdint|stdio|stdlib|stdnoreturn|string|tgmath|threads|time|uchar|wchar|wctype'
linked_headers='zstd|zdict|zip'
program_files=$(ls mcs/*.[ch] parallel-replay/*.[ch] superpmi-dropin/*.[ch] bench/mchgen/*.[ch] \
                    tools/*.[ch] 2>/dev/null)
found=
while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    bad "${hit%%:*} includes <$(sed 's/.*<//; s/>.*//' <<<"${hit#*:}")>, a system's header outside the platform layer (platform/platform.h reaches the system)"
    found=1
done < <(grep -HE "^[[:space:]]*#[[:space:]]*include[[:space:]]*<" $program_files /dev/null |
         grep -vE "<($iso_c_headers|$linked_headers)\.h>")
while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    file=${hit%%:*} rest=${hit#*:}
    bad "$file tests a system (line ${rest%%:*}: ${rest#*:}): system-specific code belongs in the platform layer"
    found=1
done < <(grep -nHE "^[[:space:]]*#[[:space:]]*(if|ifdef|ifndef|elif)\b.*\b(_WIN32|_WIN64|__MINGW32__|_MSC_VER|__APPLE__|__linux__|__unix__|__CYGWIN__)\b" \
             $program_files /dev/null)
[ -z "$found" ] && say "ok - the programs reach the system through platform/ alone"
[ "$failures" -eq 0 ]
