#!/usr/bin/env bash
# Every reference in the repository points inside it: no file names a format document kept
# elsewhere or a path into a sibling "shared" directory; the facts live in format/SUPERPMI.md
# and format/FORMAT.md. The check is first shown a planted violation and must name it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The patterns are assembled here so that this file does not match them itself.
PATTERNS=("mch""-format" "..""/shared/" "/work""/shared")

# outside_refs DIR: prints FILE:LINE: TEXT for each text file under DIR (build outputs and git
# metadata aside) that names one of PATTERNS; exit 0 when there is none.
outside_refs() {
    local args=() p found=0
    for p in "${PATTERNS[@]}"; do args+=(-e "$p"); done
    grep -rInF "${args[@]}" --exclude-dir=.git --exclude-dir=build --exclude-dir=bin "$1" &&
        found=1
    [ "$found" -eq 0 ]
}

mkdir -p "$T/planted/src"
echo "int x; /* see the spec, ${PATTERNS[0]} section 5 */" >"$T/planted/src/a.c"
echo "details in ${PATTERNS[1]}notes.md" >"$T/planted/README.md"
if outside_refs "$T/planted" >"$T/found"; then fail "planted references are found"; else
    pass "planted references are found"; fi
contains "the first planted reference is named with its file and line" "$T/found" "src/a.c:1:"
contains "the second planted reference is named" "$T/found" "README.md:1:"

if outside_refs "$MCZ_ROOT" >"$T/found"; then pass "no file refers to a document outside the repository"
else fail "no file refers to a document outside the repository"; sed 's/^/    /' "$T/found" | head -20; fi

# Each section the code names (SUPERPMI.md followed by a quoted title on the same line) is a
# heading there.
headings() { sed -n 's/^#\{1,6\} \([0-9][0-9.]* \)\{0,1\}//p' "$MCZ_ROOT/format/SUPERPMI.md"; }
headings >"$T/headings"
[ -s "$T/headings" ] && pass "format/SUPERPMI.md has headings" || fail "format/SUPERPMI.md has headings"
grep -rIohE --exclude-dir=.git --exclude-dir=build --exclude-dir=bin \
    'SUPERPMI\.md\)? "[^"]+"' "$MCZ_ROOT" | sed 's/^[^"]*"//; s/"$//' | sort -u >"$T/named"
[ -s "$T/named" ] && pass "the code names sections of format/SUPERPMI.md" ||
    fail "the code names sections of format/SUPERPMI.md"
while read -r title; do
    grep -qxF -- "$title" "$T/headings" && pass "SUPERPMI.md has the section \"$title\"" ||
        fail "SUPERPMI.md has the section \"$title\""
done <"$T/named"
echo "## 3. Maps" | sed -n 's/^#\{1,6\} \([0-9][0-9.]* \)\{0,1\}//p' | grep -qxF "Maps" &&
    pass "a numbered heading reads as its title" || fail "a numbered heading reads as its title"

cli_done
