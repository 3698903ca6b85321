#!/usr/bin/env bash
# mcz_diag_set takes the offset and the context number as two distinct types: a call that passes
# one for the other, or a bare number, does not compile; the right call does. And the line a
# program prints names the file as the subject, once.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CC=${CC:-cc}

# compiles NAME BODY: a C file with BODY in a function compiles against include/mcz.h.
compiles() {
    printf '#include "mcz.h"\nint f(mcz_diag *d);\nint f(mcz_diag *d) { %s }\n' "$2" >"$T/c.c"
    "$CC" -std=c11 -Wall -Werror -fsyntax-only -I"$MCZ_ROOT/include" "$T/c.c" 2>"$T/cc.err"
}
if compiles right 'return mcz_diag_set(d, MCZ_ECORRUPT, mcz_at_offset(4), mcz_in_context(2), "x");'
then pass "the offset, then the context: compiles"
else fail "the offset, then the context: compiles"; sed 's/^/    /' "$T/cc.err" | head -5; fi
if compiles swapped \
    'return mcz_diag_set(d, MCZ_ECORRUPT, mcz_in_context(2), mcz_at_offset(4), "x");'
then fail "the context where the offset goes does not compile"
else pass "the context where the offset goes does not compile"; fi
if compiles bare 'return mcz_diag_set(d, MCZ_ECORRUPT, 4, 2, "x");'
then fail "bare numbers for the offset and context do not compile"
else pass "bare numbers for the offset and context do not compile"; fi

# A missing .mcl: the library names the file as the subject, the program prints it once.
"$BIN/mcs" -copy "$T/no-such.mcl" "$T/none.mch" "$T/out.mch" >"$T/out" 2>"$T/err"
if [ "$(grep -o "no-such.mcl" "$T/err" | wc -l)" -eq 1 ]; then pass "a missing .mcl is named once"
else fail "a missing .mcl is named once"; sed 's/^/    /' "$T/err" | head -5; fi
cli_done
