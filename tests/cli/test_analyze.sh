#!/usr/bin/env bash
# make analyze's runner (tests/analyze/analyze.sh) on a tree of two small files: it passes a
# clean one and fails on a planted null dereference, which each analyzer must report on its own.
# (make analyze itself, over the whole product, is CI's: minutes, not seconds.)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ANALYZE="$MCZ_ROOT/tests/analyze/analyze.sh"
for tool in scan-build cppcheck; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        pass "static analyzers # skip: no $tool (Debian's clang-tools, cppcheck)"; cli_done; exit
    fi
done

# tree DIR BODY: DIR holds one C file whose main has BODY, and a Makefile that compiles it.
tree() {
    mkdir -p "$1"
    printf '#include <stddef.h>\nint main(void)\n{\n%s\n}\n' "$2" >"$1/probe.c"
    printf 'probe.o: probe.c\n\t$(CC) -c probe.c -o probe.o\n' >"$1/Makefile"
}
# analyze DIR: the runner over DIR, its output in $T/analyze.out; the exit status.
analyze() {
    (cd "$1" && bash "$ANALYZE" "$1/report" "$1" make) >"$T/analyze.out" 2>&1
}

tree "$T/clean" '    int n = 1;
    return n - 1;'
analyze "$T/clean"
rc=$?
if [ "$rc" -eq 0 ] && grep -qF "analyze: nothing reported" "$T/analyze.out"; then
    pass "a clean tree passes"
else
    fail "a clean tree passes (exit $rc)"; sed 's/^/    /' "$T/analyze.out" | head -20
fi

tree "$T/planted" '    int *p = NULL;
    return *p;'
analyze "$T/planted"
rc=$?
if [ "$rc" -eq 1 ]; then pass "a null dereference fails"; else
    fail "a null dereference fails (exit $rc)"; sed 's/^/    /' "$T/analyze.out" | head -20; fi
contains "scan-build reports it" "$T/analyze.out" "scan-build: 1 bug found"
contains "scan-build says what" "$T/analyze.out" "Dereference of null pointer"
contains "cppcheck reports it" "$T/analyze.out" "[nullPointer]"
contains "the failure is said" "$T/analyze.out" "analyze: FAILED"

# Each analyzer's report fails the run alone: a value never read is scan-build's only, a write
# past an array's end cppcheck's only (clang's bounds checker is not among its defaults).
# only NAME DIR BODY SAYS SILENT: the runner fails on DIR, its output has SAYS, not SILENT.
only() {
    tree "$2" "$3"
    analyze "$2"
    local rc=$?
    if [ "$rc" -eq 1 ] && grep -qF -- "$4" "$T/analyze.out" && ! grep -qF -- "$5" "$T/analyze.out"
    then pass "$1"; else fail "$1 (exit $rc)"; sed 's/^/    /' "$T/analyze.out" | head -20; fi
}
only "a report of scan-build alone fails" "$T/dead" '    int x = 3;
    int y = x * 2;
    y = 0;
    return y;' "scan-build: 1 bug found" "[redundantAssignment]"
only "a report of cppcheck alone fails" "$T/bounds" '    char b[4];
    b[0] = 0;
    b[4] = 0;
    return b[0];' "[arrayIndexOutOfBounds]" "bug found"

# A missing analyzer is said, with its package, and is no pass.
mkdir -p "$T/nobin"
for t in bash grep mkdir dirname; do ln -s "$(command -v "$t")" "$T/nobin/$t"; done
(cd "$T/clean" && PATH="$T/nobin" bash "$ANALYZE" "$T/clean/report" "$T/clean" make) \
    >"$T/missing.out" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -qF "scan-build is missing (Debian package clang-tools" "$T/missing.out"
then pass "a missing analyzer is named"; else
    fail "a missing analyzer is named (exit $rc)"; sed 's/^/    /' "$T/missing.out" | head; fi
cli_done
