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

# A copy of the sources, where each planted violation is made alone: plant FILE TEXT appends
# TEXT to FILE; unplant FILE puts the original back.
src="$T/src"
mkdir -p "$src"
for d in include common platform io superpmi format writer reader tools mcs parallel-replay \
         superpmi-dropin bench; do
    cp -r "$MCZ_ROOT/$d" "$src/"
done
plant() { printf '%b' "$2" >>"$src/$1"; }
unplant() { cp "$MCZ_ROOT/$1" "$src/$1"; }
# source_refuses NAME TEXT FILE PLANT: FILE with PLANT appended, alone, makes the check fail
# saying TEXT.
source_refuses() {
    plant "$3" "$4"
    check_refuses "$1" "$2" "$BUILD_DIR" "$src"
    unplant "$3"
}

# 1. A program that includes an internal header.
source_refuses "a program including reader_impl.h is refused" \
    "mcs/mcs.c includes reader_impl.h" mcs/mcs.c '#include "reader_impl.h"\n'

# 1b. Frame literals outside the container layer: a tag as a number in a program, a tag's
# text in the writer, the skippable magic's bytes in the reader.
source_refuses "a program spelling a frame tag is refused" \
    "mcs/verb_receive.c spells a frame literal of format/archive.h" \
    mcs/verb_receive.c 'static const unsigned probe_tag = 0x485a434dU;\n'
source_refuses "the writer spelling a tag's text is refused" \
    "writer/output.c spells a frame literal of format/archive.h" \
    writer/output.c 'static const char probe_text[] = "MCZI";\n'
source_refuses "the reader spelling the frame magic's bytes is refused" \
    "reader/cursor.c spells a frame literal of format/archive.h" \
    reader/cursor.c 'static const unsigned char probe_magic[] = {0x5C, 0x2A, 0x4D, 0x18};\n'

# 1c. An operating system's header outside platform/: the reader reaching for POSIX itself,
# the writer for POSIX threads, io/ for maps; a Windows branch in the writer; a second table of
# Windows errors, in a program's process module.
source_refuses "the reader including unistd.h is refused" \
    "reader/verify.c includes an operating system's header outside platform/" \
    reader/verify.c '#include <unistd.h>\n'
source_refuses "the writer including pthread.h is refused" \
    "writer/lock.h includes an operating system's header outside platform/" \
    writer/lock.h '#include <pthread.h>\n'
source_refuses "io/ including sys/mman.h is refused" \
    "io/file.c includes an operating system's header outside platform/" \
    io/file.c '#include <sys/mman.h>\n'
source_refuses "an #ifdef _WIN32 in the writer is refused" \
    "writer/queue.c tests a system (line" \
    writer/queue.c '#ifdef _WIN32\nstatic const int probe_windows = 1;\n#endif\n'
source_refuses "a second table of Windows errors is refused" \
    "parallel-replay/replay_proc.c turns Windows' errors into errno: a second table" \
    parallel-replay/replay_proc.c \
    'static int probe_errno(unsigned long e)\n{\n    switch (e) {\n    case ERROR_FILE_NOT_FOUND: return 2;\n    default: return 5;\n    }\n}\n'

# 1d. System code in a program outside the platform layer: mcs reaching for a POSIX header, a
# Windows branch in mcz-replay, a system test in tools/'s header, tools/ reaching for Windows;
# the platform layer itself may do all of them.
source_refuses "mcs.c including fcntl.h is refused" \
    "mcs/mcs.c includes <fcntl.h>, a system's header outside the platform layer" \
    mcs/mcs.c '#include <fcntl.h>\n'
source_refuses "an #ifdef _WIN32 in mcz-replay is refused" \
    "parallel-replay/replay_plan.c tests a system (line" \
    parallel-replay/replay_plan.c '#ifdef _WIN32\nstatic const int probe_windows = 1;\n#endif\n'
source_refuses "a system test in tools/tool.h is refused" \
    "tools/tool.h tests a system (line" tools/tool.h '#if defined(__APPLE__)\n#endif\n'
source_refuses "tools/ including windows.h is refused" \
    "tools/tool_dir.c includes <windows.h>, a system's header outside the platform layer" \
    tools/tool_dir.c '#include <windows.h>\n'
# The program-specific system code has no exception any more: mcz-replay's worker processes and
# the drop-in's stand-in file are the platform's (platform/worker.h, platform/program.h).
source_refuses "mcz-replay's process module including poll.h is refused" \
    "parallel-replay/replay_proc.c includes <poll.h>, a system's header outside the platform layer" \
    parallel-replay/replay_proc.c '#include <poll.h>\n'
source_refuses "an #ifdef _WIN32 in the drop-in's -streaming is refused" \
    "superpmi-dropin/dropin_stream.c tests a system (line" \
    superpmi-dropin/dropin_stream.c '#ifdef _WIN32\nstatic const int probe_windows = 1;\n#endif\n'
plant platform/sys_posix.c '#include <sys/mman.h>\n'
ok_run "the platform layer may include the system's headers" bash "$CHECK" "$BUILD_DIR" "$src"
unplant platform/sys_posix.c

# A build directory of links to the real objects, where one object at a time is planted.
fake=$T/build
mkdir -p "$fake/obj"
ln -s "$BUILD_DIR/libmcz.so" "$fake/libmcz.so"
for d in common platform io superpmi format writer reader mcs parallel-replay bench tools; do
    mkdir -p "$fake/obj/$d"
    find "$BUILD_DIR/obj/$d" -maxdepth 1 -name '*.o' -exec ln -s -t "$fake/obj/$d/" {} +
done
defined() { nm --defined-only "$@" | awk 'NF==3 && $2 ~ /[TDBR]/ {print $3}' | sort -u; }
# An object calling symbol $2, compiled into directory $1 of the fake build.
caller_object() {
    printf 'extern void %s(void);\nvoid layering_probe(void) { %s(); }\n' "$2" "$2" >"$T/probe.c"
    "$CC" -c -o "$fake/obj/$1/layering_probe.o" "$T/probe.c"
}
# caller_refuses NAME TEXT DIR SYMBOL: an object in DIR calling SYMBOL, alone, makes the
# check fail saying TEXT.
caller_refuses() {
    caller_object "$3" "$4"
    check_refuses "$1" "$2" "$fake" "$MCZ_ROOT"
    rm -f "$fake/obj/$3/layering_probe.o"
}

# 2. A program that calls a library function the library does not export.
hidden=$(comm -23 <(defined "$BUILD_DIR"/obj/format/*.o) \
                  <(nm -D --defined-only "$BUILD_DIR/libmcz.so" | awk '{print $3}' | sort -u) |
         head -1)
if [ -z "$hidden" ]; then
    fail "the library has an internal function to call"
else
    caller_refuses "a program calling the internal $hidden is refused" \
        "mcs/ uses library internals: $hidden" mcs "$hidden"
fi

# 2b. A program calling the platform layer (hidden in libmcz.so, in libmcz.a) is not refused.
platform_fn=$(defined "$BUILD_DIR"/obj/platform/*.o | grep '^mcz_os_' | head -1)
if [ -z "$platform_fn" ]; then
    fail "the platform layer has an mcz_os_ function to call"
else
    caller_object mcs "$platform_fn"
    ok_run "a program calling the platform's $platform_fn is admitted" \
        bash "$CHECK" "$fake" "$MCZ_ROOT"
    rm -f "$fake/obj/mcs/layering_probe.o"
fi

# 3. The writer calling into the reader.
reader_fn=$(defined "$BUILD_DIR"/obj/reader/*.o | head -1)
caller_refuses "the writer calling the reader's $reader_fn is refused" \
    "writer/ uses reader/: $reader_fn" writer "$reader_fn"

# 4. A lower layer calling up: the SuperPMI model calling the container codec.
format_fn=$(defined "$BUILD_DIR"/obj/format/*.o | head -1)
caller_refuses "superpmi/ calling the container's $format_fn is refused" \
    "superpmi/ uses format/: $format_fn" superpmi "$format_fn"

# 5. A circle in mcs: the run's state, at the bottom, calling a verb back.
printf 'int cmd_concat(int argc, char **argv);
static char state[1024];
%s
' \
    'void *mcs_run_noted_size(void) { cmd_concat(0, 0); return state; }' >"$T/run.c"
rm -f "$fake/obj/mcs/mcs_run.o"
"$CC" -c -o "$fake/obj/mcs/mcs_run.o" "$T/run.c"
check_refuses "mcs's run state calling a verb back is refused" \
    "mcs/ calls in a circle:" "$fake" "$MCZ_ROOT"
cli_done
