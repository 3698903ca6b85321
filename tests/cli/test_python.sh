#!/usr/bin/env bash
# The Python module (python/mcz) under Debian's /usr/bin/python3: tests/python/test_mcz.py
# against the built library, one "ok -" line per test. Under the sanitizers the library needs
# their runtime first in the process, so it is preloaded (leak checks off: the interpreter's
# own allocations are not ours).
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
    pass "python module # skip: no $PY"
    exit 0
fi
LIB=$(readlink -f "${BUILD:-build}/libmcz.so")
preload=
if readelf -d "$LIB" | grep -q 'libasan'; then
    preload=$(cc -print-file-name=libasan.so)
    export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
fi
LD_PRELOAD=$preload MCZ_LIBRARY=$LIB MCZ_BIN=$BIN PYTHONPATH="$MCZ_ROOT/python" \
    PYTHONDONTWRITEBYTECODE=1 "$PY" "$MCZ_ROOT/tests/python/test_mcz.py"
