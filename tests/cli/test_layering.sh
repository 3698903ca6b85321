#!/usr/bin/env bash
# The public boundary (make check-layering), checked on the objects this test run built; then
# each of its checks is shown a violation and must fail, naming it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BUILD_DIR=$(cd "${BUILD:-build}" && pwd)
CHECK="$MCZ_ROOT/tests/layering/check-layering.sh"
CC=${CC:-cc}

ok_run "the tree keeps its layers" bash "$CHECK" "$BUILD_DIR"
cat "$T/out"

# check_refuses NAME TEXT BUILD SOURCE: the check fails and says TEXT.
check_refuses() {
    bash "$CHECK" "$3" "$4" >"$T/layer.out" 2>&1
    local rc=$?
    if [ "$rc" -ne 0 ] && grep -qF -- "$2" "$T/layer.out"; then pass "$1"; else
        fail "$1 (exit $rc)"; sed 's/^/    /' "$T/layer.out" | head -10; fi
}

# 1. A program that includes an internal header.
src="$T/src"
mkdir -p "$src"
for d in include common platform io superpmi format writer reader tools mcs parallel-replay \
         superpmi-dropin bench; do
    cp -r "$MCZ_ROOT/$d" "$src/"
done
echo '#include "reader_impl.h"' >>"$src/mcs/mcs.c"
check_refuses "a program including reader_impl.h is refused" \
    "mcs/mcs.c includes reader_impl.h" "$BUILD_DIR" "$src"

# 1b. Frame literals outside the container layer: a tag as a number in a program, a tag's
# text in the writer, the skippable magic's bytes in the reader.
echo 'static const unsigned probe_tag = 0x485a434dU;' >>"$src/mcs/verb_receive.c"
echo 'static const char probe_text[] = "MCZI";' >>"$src/writer/output.c"
echo 'static const unsigned char probe_magic[] = {0x5C, 0x2A, 0x4D, 0x18};' >>"$src/reader/cursor.c"
check_refuses "a program spelling a frame tag is refused" \
    "mcs/verb_receive.c spells a frame literal of format/archive.h" "$BUILD_DIR" "$src"
check_refuses "the writer spelling a tag's text is refused" \
    "writer/output.c spells a frame literal of format/archive.h" "$BUILD_DIR" "$src"
check_refuses "the reader spelling the frame magic's bytes is refused" \
    "reader/cursor.c spells a frame literal of format/archive.h" "$BUILD_DIR" "$src"

# 1c. An operating system's header outside platform/: the reader reaching for POSIX itself,
# the writer for POSIX threads; a Windows branch in the writer; a second table of Windows
# errors, in a program's own Windows file.
echo '#include <unistd.h>' >>"$src/reader/verify.c"
echo '#include <pthread.h>' >>"$src/writer/lock.h"
printf '#ifdef _WIN32\nstatic const int probe_windows = 1;\n#endif\n' >>"$src/writer/queue.c"
printf 'static int probe_errno(unsigned long e)\n{\n    switch (e) {\n    case ERROR_FILE_NOT_FOUND: return 2;\n    default: return 5;\n    }\n}\n' \
    >>"$src/parallel-replay/replay_proc_win32.c"
check_refuses "the reader including unistd.h is refused" \
    "reader/verify.c includes an operating system's header outside platform/" "$BUILD_DIR" "$src"
check_refuses "the writer including pthread.h is refused" \
    "writer/lock.h includes an operating system's header outside platform/" "$BUILD_DIR" "$src"
check_refuses "an #ifdef _WIN32 in the writer is refused" \
    "writer/queue.c tests a system (line" "$BUILD_DIR" "$src"
check_refuses "a second table of Windows errors is refused" \
    "parallel-replay/replay_proc_win32.c turns Windows' errors into errno: a second table" \
    "$BUILD_DIR" "$src"

# 1d. System code in a program outside the platform layer: mcs reaching for a POSIX header, a
# Windows branch in mcz-replay, a system test in tools/'s header, tools/ reaching for Windows;
# the platform layer itself may do all of them.
echo '#include <fcntl.h>' >>"$src/mcs/mcs.c"
printf '#ifdef _WIN32\nstatic const int probe_windows = 1;\n#endif\n' >>"$src/parallel-replay/replay_plan.c"
printf '#if defined(__APPLE__)\n#endif\n' >>"$src/tools/tool.h"
echo '#include <windows.h>' >>"$src/tools/tool_dir.c"
echo '#include <sys/mman.h>' >>"$src/platform/sys_posix.c"
check_refuses "mcs.c including fcntl.h is refused" \
    "mcs/mcs.c includes <fcntl.h>, a system's header outside the platform layer" "$BUILD_DIR" "$src"
check_refuses "an #ifdef _WIN32 in mcz-replay is refused" \
    "parallel-replay/replay_plan.c tests a system (line" "$BUILD_DIR" "$src"
check_refuses "a system test in tools/tool.h is refused" \
    "tools/tool.h tests a system (line" "$BUILD_DIR" "$src"
check_refuses "tools/ including windows.h is refused" \
    "tools/tool_dir.c includes <windows.h>, a system's header outside the platform layer" \
    "$BUILD_DIR" "$src"
bash "$CHECK" "$BUILD_DIR" "$src" >"$T/layer.out" 2>&1
if grep -q "platform/sys_posix.c" "$T/layer.out"; then fail "platform/'s own header is refused"
else pass "the platform layer may include the system's headers"; fi

# A build directory of links to the real objects, where one directory can be doctored.
fake_build() {
    local dir=$1
    mkdir -p "$dir/obj"
    ln -s "$BUILD_DIR/libmcz.so" "$dir/libmcz.so"
    for d in common platform io superpmi format writer reader mcs parallel-replay bench tools; do
        mkdir -p "$dir/obj/$d"
        find "$BUILD_DIR/obj/$d" -maxdepth 1 -name '*.o' -exec ln -s {} "$dir/obj/$d/" \;
    done
}
defined() { nm --defined-only "$@" | awk 'NF==3 && $2 ~ /[TDBR]/ {print $3}' | sort -u; }
# An object calling symbol $2, compiled into directory $1.
caller_object() {
    printf 'extern void %s(void);\nvoid layering_probe(void) { %s(); }\n' "$2" "$2" >"$T/probe.c"
    "$CC" -c -o "$1/layering_probe.o" "$T/probe.c"
}

# 2. A program that calls a library function the library does not export.
hidden=$(comm -23 <(defined "$BUILD_DIR"/obj/format/*.o) \
                  <(nm -D --defined-only "$BUILD_DIR/libmcz.so" | awk '{print $3}' | sort -u) |
         head -1)
if [ -z "$hidden" ]; then
    fail "the library has an internal function to call"
else
    fake_build "$T/b1"
    caller_object "$T/b1/obj/mcs" "$hidden"
    check_refuses "a program calling the internal $hidden is refused" \
        "mcs/ uses library internals: $hidden" "$T/b1" "$MCZ_ROOT"
fi

# 2b. A program calling the platform layer (hidden in libmcz.so, in libmcz.a) is not refused.
platform_fn=$(defined "$BUILD_DIR"/obj/platform/*.o | grep '^mcz_os_' | head -1)
fake_build "$T/b5"
caller_object "$T/b5/obj/mcs" "$platform_fn"
bash "$CHECK" "$T/b5" "$MCZ_ROOT" >"$T/layer.out" 2>&1
if [ -n "$platform_fn" ] && ! grep -q "uses library internals" "$T/layer.out"; then
    pass "a program calling the platform's $platform_fn is admitted"
else fail "a program calling the platform's ${platform_fn:-(none found)} is admitted"; fi

# 3. The writer calling into the reader.
reader_fn=$(defined "$BUILD_DIR"/obj/reader/*.o | head -1)
fake_build "$T/b2"
caller_object "$T/b2/obj/writer" "$reader_fn"
check_refuses "the writer calling the reader's $reader_fn is refused" \
    "writer/ uses reader/: $reader_fn" "$T/b2" "$MCZ_ROOT"

# 4. A lower layer calling up: the SuperPMI model calling the container codec.
format_fn=$(defined "$BUILD_DIR"/obj/format/*.o | head -1)
fake_build "$T/b3"
caller_object "$T/b3/obj/superpmi" "$format_fn"
check_refuses "superpmi/ calling the container's $format_fn is refused" \
    "superpmi/ uses format/: $format_fn" "$T/b3" "$MCZ_ROOT"

# 5. A circle in mcs: the run's state, at the bottom, calling a verb back.
fake_build "$T/b4"
printf 'int cmd_concat(int argc, char **argv);
static char state[1024];
%s
' \
    'void *mcs_run_noted_size(void) { cmd_concat(0, 0); return state; }' >"$T/run.c"
rm -f "$T/b4/obj/mcs/mcs_run.o"
"$CC" -c -o "$T/b4/obj/mcs/mcs_run.o" "$T/run.c"
check_refuses "mcs's run state calling a verb back is refused" \
    "mcs/ calls in a circle:" "$T/b4" "$MCZ_ROOT"
cli_done
