#!/usr/bin/env bash
# The layers above io/ keep to C11 and POSIX.1-2008 (make test-posix builds them so): a file
# compiled with those flags builds as it is, and is refused once it calls a glibc-only function
# or uses a GNU extension of C.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CC=${CC:-cc}
read -r -a flags <<<"$(make -s -C "$MCZ_ROOT" --no-print-directory posix-strict-flags)"

# compiles FILE [DIR]: FILE builds with the strict flags, run from the tree as make does (DIR:
# where FILE's own quoted includes are, when it is a copy elsewhere).
compiles() {
    (cd "$MCZ_ROOT" && "$CC" "${flags[@]}" ${2:+-iquote "$2"} -fsyntax-only "$1") >"$T/cc.out" 2>&1
}

for f in writer/output.c reader/recover.c writer/collector.c; do
    if compiles "$f"; then pass "$f builds in C11 and POSIX.1-2008"; else
        fail "$f builds in C11 and POSIX.1-2008"; head -5 "$T/cc.out" | sed 's/^/    /'; fi
done

# Every source of the collector (sources.mk) is strict C11: above io/ in POSIX.1-2008 too; io/
# and platform/ with glibc's extensions where they have them, but no extension of the language.
read -r -a io_flags <<<"$(make -s -C "$MCZ_ROOT" --no-print-directory posix-io-flags)"
read -r -a collector <<<"$(make -s -C "$MCZ_ROOT" --no-print-directory collector-sources)"
bad=()
for f in "${collector[@]}"; do
    case $f in
    io/* | platform/*)
        (cd "$MCZ_ROOT" && "$CC" "${io_flags[@]}" -fsyntax-only "$f") >"$T/cc.out" 2>&1 ;;
    *) compiles "$f" ;;
    esac || bad+=("$f")
done
if [ ${#collector[@]} -gt 20 ] && [ ${#bad[@]} -eq 0 ]; then
    pass "the collector's ${#collector[@]} sources build as strict C11 (-std=c11 -Wpedantic)"
else fail "the collector's sources build as strict C11: not ${bad[*]:-(no list)}"; fi

# planted NAME CODE: a copy of reader/verify.c with CODE appended is refused.
planted() {
    cp "$MCZ_ROOT/reader/verify.c" "$T/probe.c"
    printf '%s\n' "$2" >>"$T/probe.c"
    if compiles "$T/probe.c" "$MCZ_ROOT/reader"; then fail "$1 is refused"; else
        pass "$1 is refused"; fi
}
cp "$MCZ_ROOT/reader/verify.c" "$T/probe.c"
if compiles "$T/probe.c" "$MCZ_ROOT/reader"; then pass "a copy of reader/verify.c builds"; else
    fail "a copy of reader/verify.c builds"; head -5 "$T/cc.out" | sed 's/^/    /'; fi
planted "a glibc-only call (strchrnul)" \
    'const char *strict_probe(const char *s); const char *strict_probe(const char *s) { return strchrnul(s, 47); }'
planted "a GNU statement expression" \
    'int strict_probe(int a); int strict_probe(int a) { return ({ int b = a; b + 1; }); }'
planted "a variable-length array" \
    'int strict_probe(int n); int strict_probe(int n) { int a[n]; a[0] = n; return a[0]; }'
planted "a case range" \
    'int strict_probe(int a); int strict_probe(int a) { switch (a) { case 1 ... 3: return 1; } return 0; }'
cli_done
