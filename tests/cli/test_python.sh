#!/usr/bin/env bash
# The Python module (python/mcz) under Debian's /usr/bin/python3: tests/python/test_mcz.py
# against the built library, one "ok -" line per test; then the module as `make install` puts
# it: into a prefix and into a staged tree (DESTDIR, another LIBDIR), each imported with only
# the PYTHONPATH the install printed, and removed to the last file by `make uninstall`. Under
# the sanitizers the library needs their runtime first in the process, so it is preloaded
# (leak checks off: the interpreter's own allocations are not ours).
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
    pass "python module # skip: no $PY"
    exit 0
fi
B=$(cd "${BUILD:-build}" && pwd)
LIB=$(readlink -f "$B/libmcz.so")
preload=
san_var=
if readelf -d "$LIB" | grep -q 'libasan'; then
    preload=$(cc -print-file-name=libasan.so)
    san_var=SAN=1
    export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
fi
LD_PRELOAD=$preload MCZ_LIBRARY=$LIB MCZ_BIN=$BIN PYTHONPATH="$MCZ_ROOT/python" \
    PYTHONDONTWRITEBYTECODE=1 "$PY" "$MCZ_ROOT/tests/python/test_mcz.py" || cli_failures=1

# ---- Installed ----
# make as a user types it: not as a part of the make running this test.
mk() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$MCZ_ROOT" \
        BUILD="$B" BIN="$BIN" $san_var PYTHON="$PY" "$@"
}
"$BIN/mchgen" --seed 7 --contexts 20 --preset small --out "$T/X.mch" >/dev/null 2>&1 &&
    "$BIN/mcs" -convert "$T/X.mch" "$T/X.mcz" >/dev/null 2>&1 ||
    fail "python install: a collection to read"

# imports NAME DIR LIBDIR: a python3 that knows nothing of the tree (a bare environment, the
# printed PYTHONPATH alone) imports the module from DIR and reads the archive through the
# libmcz.so.MAJOR in LIBDIR.
imports() {
    env -i PATH=/usr/bin:/bin LD_PRELOAD="$preload" ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
        PYTHONPATH="$2" "$PY" -c 'import mcz, sys
with mcz.open(sys.argv[1]) as c:
    mc = c[1]
    print(mcz.__file__, len(c), mc.number, mc.size > 0, mc.method_name != "")
    print([l.split()[-1] for l in open("/proc/self/maps") if "/libmcz.so" in l][0])' \
        "$T/X.mcz" >"$T/py.out" 2>"$T/py.err"
    local lib
    lib=$(readlink -f "$3/libmcz.so.${LIB##*libmcz.so.}" 2>/dev/null)
    if [ "$(head -1 "$T/py.out")" = "$2/mcz/__init__.py 20 1 True True" ] &&
        [ "$(readlink -f "$(sed -n 2p "$T/py.out")")" = "$lib" ]; then pass "$1"; else
        fail "$1"; sed 's/^/    /' "$T/py.out" "$T/py.err" | head -20; fi
}

# printed_path NAME: the PYTHONPATH the last install printed ("export PYTHONPATH=DIR").
printed_path() { sed -n 's/^    export PYTHONPATH=//p' "$T/install.out"; }

# empty_tree NAME DIR: uninstall left no file (the bytecode the import wrote included).
empty_tree() {
    local left
    left=$(find "$2" ! -type d 2>/dev/null)
    [ -z "$left" ] && pass "$1" || fail "$1: $left"
}

P=$T/prefix
if mk install PREFIX="$P" >"$T/install.out" 2>&1; then pass "python install: make install PREFIX="
else fail "python install: make install PREFIX="; tail "$T/install.out" | sed 's/^/    /'; fi
want="$P/lib/python3/dist-packages"
[ "$(printed_path)" = "$want" ] && pass "python install: the PYTHONPATH to use is printed" ||
    { fail "python install: the PYTHONPATH to use is printed"; tail -3 "$T/install.out"; }
imports "python install: imported with the printed PYTHONPATH alone" "$(printed_path)" "$P/lib"
ls "$want/mcz/__pycache__"/*.pyc >/dev/null 2>&1 &&
    pass "python install: the import wrote its bytecode" ||
    fail "python install: the import wrote its bytecode"
# Where python3 looks already, the install says so and prints no PYTHONPATH.
PYTHONPATH=$want mk install PREFIX="$P" >"$T/install.out" 2>&1
if grep -qF "Python module: $want/mcz ($PY looks there: import mcz works)" "$T/install.out" &&
    [ -z "$(printed_path)" ]; then pass "python install: says when python3 looks there already"
else fail "python install: says when python3 looks there already"; tail -3 "$T/install.out"; fi
mk uninstall PREFIX="$P" >/dev/null 2>&1
empty_tree "python install: make uninstall leaves no file" "$P"

# Staged, with a LIBDIR of its own: the module finds the staged library beside it.
S=$T/stage
mk install DESTDIR="$S" PREFIX=/opt/mcz LIBDIR=/opt/mcz/lib64 >"$T/install.out" 2>&1 ||
    fail "python install: make install DESTDIR= LIBDIR="
[ "$(printed_path)" = "$S/opt/mcz/lib/python3/dist-packages" ] &&
    pass "python install: a staged tree's PYTHONPATH is printed" ||
    { fail "python install: a staged tree's PYTHONPATH is printed"; tail -3 "$T/install.out"; }
imports "python install: a staged module reads through the staged library" "$(printed_path)" \
    "$S/opt/mcz/lib64"
mk uninstall DESTDIR="$S" PREFIX=/opt/mcz LIBDIR=/opt/mcz/lib64 >/dev/null 2>&1
empty_tree "python install: staged uninstall leaves no file" "$S"
cli_done
