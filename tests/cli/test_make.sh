#!/usr/bin/env bash
# The Makefile as a user meets it: a make with nothing to do says only that (the writer's size
# line comes when the libraries are built again, and make writer-size prints it), and make demo
# builds on every core even when typed without -j.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
B=${BUILD:-build}
san_var= # the sanitized build (make asan) is made again only as it was made
readelf -d "$B/libmcz.so" 2>/dev/null | grep -q libasan && san_var=SAN=1
mk() { # make as a user types it, not as a part of the make running this test
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$MCZ_ROOT" \
        BUILD="$B" BIN="$BIN" $san_var "$@"
}
mk all >/dev/null 2>&1 # whatever was left to build
mk all >"$T/noop.out" 2>&1
if grep -q "libmcz-writer.so (stripped)" "$T/noop.out"; then
    fail "a make with nothing to do prints no size line"; sed 's/^/    /' "$T/noop.out"
else pass "a make with nothing to do prints no size line"; fi
mk writer-size >"$T/size.out" 2>&1
contains "make writer-size prints the size line" "$T/size.out" "libmcz-writer.so (stripped):"
mk -n demo >"$T/demo.out" 2>&1
if grep -qE "make.* -j[0-9]+ all" "$T/demo.out"; then pass "make demo builds with -j (every core)"
else fail "make demo builds with -j (every core)"; sed 's/^/    /' "$T/demo.out" | head -5; fi
DEMO_JOBS=3 mk -n demo >"$T/demo.out" 2>&1
contains "DEMO_JOBS sets the number" "$T/demo.out" "-j3 all"
cli_done
