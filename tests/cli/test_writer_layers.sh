#!/usr/bin/env bash
# The writer's structure (writer/out.h, writer_impl.h), checked on the source and the objects
# this test run built: the mode is looked at in one place only (writer.c's table of modes picks
# the output), no file of writer/ calls a file that calls it back, and the writer makes no
# system call of its own (platform/platform.h). Each check is then shown a violation and must fail.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OBJ=$(cd "${BUILD:-build}" && pwd)/obj/writer
CC=${CC:-cc}

# mode_tests DIR: the lines of DIR's sources that look at a writer's mode.
mode_tests() { grep -n -- '->mode\b' "$1"/*.c "$1"/*.h 2>/dev/null; }

# one_mode_test DIR: exactly one, the switch in writer.c that picks the output.
one_mode_test() {
    local lines
    lines=$(mode_tests "$1")
    [ "$(printf '%s\n' "$lines" | grep -c .)" -eq 1 ] && grep -q '^.*/writer\.c:.*switch (opt->mode)' <<<"$lines"
}

# calls DIR: "caller callee" for each writer object that calls a function another one defines.
calls() {
    local o
    for o in "$1"/*.o; do
        nm --defined-only "$o" | awk -v f="$(basename "$o" .o)" '$2 ~ /[TD]/ {print "D", f, $3}'
        nm -u "$o" | awk -v f="$(basename "$o" .o)" '{print "U", f, $2}'
    done | awk '$1 == "D" {def[$3] = $2; next} {use[$2 " " $3] = 1}
                END {for (k in use) {split(k, p, " "); if ((p[2] in def) && def[p[2]] != p[1])
                     print p[1], def[p[2]]}}' | sort -u
}

# a_cycle DIR: prints a cycle of calls between DIR's objects, if there is one (tsort names it).
a_cycle() { calls "$1" | tsort 2>&1 >/dev/null | grep -v '^tsort: -:'; }

# System calls the writer leaves to platform/platform.h, and the thread calls it leaves to platform/threads.h
# (pthreads on POSIX, Win32's primitives on Windows).
SYSCALLS='open|openat|close|read|write|pread|pread64|pwrite|pwrite64|fsync|fdatasync|fallocate|fallocate64|ftruncate|ftruncate64|send|sendmsg|poll|sigaction|pthread_sigmask|sigprocmask|sigtimedwait|sigpending|raise|kill|rename|renameat|unlink|unlinkat|fstat|fstat64|stat|nanosleep|clock_gettime|sysconf|mmap|munmap'
THREADCALLS='pthread_[a-z_]+|sem_[a-z_]+'
os_calls() { nm -A -u "$1"/*.o | awk '{print $NF}' | grep -Ex "$SYSCALLS|$THREADCALLS" | sort -u; }

src=$(cd "$MCZ_ROOT/writer" && pwd)
if one_mode_test "$src"; then pass "writer/ looks at the mode in one place, the table of modes"
else fail "writer/ looks at the mode in one place"; mode_tests "$src" | sed 's/^/    /'; fi

cycle=$(a_cycle "$OBJ")
if [ -z "$cycle" ] && [ -n "$(calls "$OBJ")" ]; then pass "no file of writer/ calls one that calls it back"
else fail "writer/ calls in a circle"; printf '%s\n' "$cycle" | sed 's/^/    /'; fi

found=$(os_calls "$OBJ")
if [ -z "$found" ]; then pass "writer/ makes no system call of its own"
else fail "writer/ calls the system itself: $(echo $found)"; fi

# --- Each check shown a violation.
bad="$T/writer"
mkdir -p "$bad"
cp "$src"/*.c "$src"/*.h "$bad/"
echo 'static int peek(const mcz_writer_options *o) { return o->mode == MCZ_WRITE_LIVE; }' >>"$bad/output.c"
if one_mode_test "$bad"; then fail "a second mode test is seen"; else pass "a second mode test is seen"; fi

objs="$T/obj"
mkdir -p "$objs"
printf 'int b_fn(void);\nint a_fn(void) { return b_fn(); }\n' >"$T/a.c"
printf 'int a_fn(void);\nint b_fn(void) { return a_fn(); }\n' >"$T/b.c"
printf 'int b_fn(void);\nint c_fn(void) { return b_fn(); }\n' >"$T/c.c"
"$CC" -c "$T/a.c" -o "$objs/a.o" && "$CC" -c "$T/b.c" -o "$objs/b.o" ||
    fail "the cycle sample builds"
if [ -n "$(a_cycle "$objs")" ]; then pass "two files calling each other are seen"
else fail "two files calling each other are seen"; fi
rm -f "$objs/a.o"
"$CC" -c "$T/c.c" -o "$objs/c.o" || fail "the chain sample builds"
if [ -z "$(a_cycle "$objs")" ]; then pass "a call in one direction is no circle"
else fail "a call in one direction is no circle"; fi

printf '#include <unistd.h>\nint sync_it(int fd) { return fsync(fd); }\n' >"$T/s.c"
"$CC" -c "$T/s.c" -o "$objs/s.o" || fail "the system-call sample builds"
if [ "$(os_calls "$objs")" = fsync ]; then pass "a system call in a writer object is seen"
else fail "a system call in a writer object is seen"; fi
rm -f "$objs/s.o"
printf '#include <pthread.h>\nint lock_it(pthread_mutex_t *m) { return pthread_mutex_lock(m); }\n' >"$T/p.c"
"$CC" -c "$T/p.c" -o "$objs/p.o" || fail "the thread-call sample builds"
if [ "$(os_calls "$objs")" = pthread_mutex_lock ]; then pass "a thread call in a writer object is seen"
else fail "a thread call in a writer object is seen"; fi

cli_done
