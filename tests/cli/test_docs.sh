#!/usr/bin/env bash
# Every reference in the repository points inside it: no file names a format document kept
# elsewhere or a path into a sibling "shared" directory; the facts live in superpmi/SUPERPMI.md
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
headings() { sed -n 's/^#\{1,6\} \([0-9][0-9.]* \)\{0,1\}//p' "$MCZ_ROOT/superpmi/SUPERPMI.md"; }
headings >"$T/headings"
[ -s "$T/headings" ] && pass "superpmi/SUPERPMI.md has headings" || fail "superpmi/SUPERPMI.md has headings"
grep -rIohE --exclude-dir=.git --exclude-dir=build --exclude-dir=bin \
    'SUPERPMI\.md\)? "[^"]+"' "$MCZ_ROOT" | sed 's/^[^"]*"//; s/"$//' | sort -u >"$T/named"
[ -s "$T/named" ] && pass "the code names sections of superpmi/SUPERPMI.md" ||
    fail "the code names sections of superpmi/SUPERPMI.md"
while read -r title; do
    grep -qxF -- "$title" "$T/headings" && pass "SUPERPMI.md has the section \"$title\"" ||
        fail "SUPERPMI.md has the section \"$title\""
done <"$T/named"
echo "## 3. Maps" | sed -n 's/^#\{1,6\} \([0-9][0-9.]* \)\{0,1\}//p' | grep -qxF "Maps" &&
    pass "a numbered heading reads as its title" || fail "a numbered heading reads as its title"

# --- The README a newcomer reads: at most 300 lines, how long each of the two commands takes,
# that make test is for contributors, and superpmi.py's section within its first 150 lines.
R=$MCZ_ROOT/README.md
lines=$(wc -l <"$R")
[ "$lines" -le 300 ] && pass "README.md: $lines lines, at most 300" ||
    fail "README.md: $lines lines, more than 300"
at=$(grep -n '^## superpmi.py' "$R" | head -1 | cut -d: -f1)
next=$(awk -v a="${at:-0}" 'NR > a && /^## / {print NR; exit}' "$R")
[ -n "$at" ] && [ "${next:-999}" -le 151 ] && pass "README.md: superpmi.py's section within its first 150 lines" ||
    fail "README.md: superpmi.py's section within its first 150 lines (lines ${at:-none}-${next:-})"
contains "README.md: make test is for contributors" "$R" \
    "make test is for contributors: skip it to try your collection"
if grep -qE '^- `make demo`: about .* on 2 cores' "$R" && grep -qE '^- `make test`: .* minutes on 2' "$R"
then pass "README.md: how long each of the two commands takes on 2 cores"
else fail "README.md: how long each of the two commands takes on 2 cores"; fi

# --- The README's shell blocks run, as a newcomer would type them.
# Every ```sh block of README.md runs, in order, in one directory, unless the line before it
# says "not run by tests/cli/test_docs.sh" (with the reason). The directory holds what the
# README assumes: your.mch (a small generated collection), bin/ (the programs), superpmi on
# PATH (the stand-in of today's superpmi, tests/collector/spmi_today.c, which fails, misses
# and diffs some contexts), JITs under the names the README gives, a plugin, and inputs for the reference
# list. mcz-replay's exit codes 1-3 are results (failures, diffs, missing data), not a broken
# command, when it printed its summary line; any other non-zero exit fails the block.
NOT_RUN="not run by tests/cli/test_docs.sh"

# sh_blocks FILE DIR: writes each ```sh block of FILE to be run to DIR/block.N.sh (N from 1,
# in file order); prints how many were written and how many were marked not run.
sh_blocks() {
    awk -v dir="$2" -v skip="$NOT_RUN" '
        body && /^```[ \t]*$/ { body = 0; prev = ""; if (out) close(out); out = ""; next }
        body { if (out) print > out; next }
        /^```sh[ \t]*$/ {
            body = 1
            if (index(prev, skip)) { marked++; out = "" }
            else { n++; out = dir "/block." n ".sh" }
            next
        }
        NF { prev = $0 }
        END { print n + 0, marked + 0 }' "$1"
}

# run_blocks DIR COUNT: runs DIR/block.1.sh .. block.COUNT.sh in DIR/work with errexit and
# pipefail; the first command that fails is named on stderr, and the run stops there.
run_blocks() {
    local dir=$1 count=$2 i
    for ((i = 1; i <= count; i++)); do
        (cd "$dir/work" && PATH="$dir/path:$PATH" bash -c \
            'set -eo pipefail; trap '\''echo "block '"$i"': failed: $BASH_COMMAND" >&2'\'' ERR; . "$1"' \
            _ "$dir/block.$i.sh") || return 1
    done
}

# readme_dir DIR: the directory the README's commands expect.
readme_dir() {
    local d=$1 w=$1/work
    mkdir -p "$w/bin" "$w/base" "$w/diff" "$w/collections" "$d/path"
    ln -s "$BIN/mcs" "$w/bin/mcs" && ln -s "$BIN/mchgen" "$w/bin/mchgen" || return 1
    cat >"$w/bin/mcz-replay" <<EOS
#!/bin/sh
out=\$(mktemp) || exit 99
"$BIN/mcz-replay" "\$@" >"\$out"
rc=\$?
cat "\$out"
case \$rc in 1|2|3) grep -q '^Loaded ' "\$out" && rc=0 ;; esac
rm -f "\$out"
exit \$rc
EOS
    printf '#!/bin/sh\nexec "%s" "$@"\n' "$SPMI" >"$d/path/superpmi"
    chmod +x "$w/bin/mcz-replay" "$d/path/superpmi"
    touch "$w/libclrjit.so" "$w/base/libclrjit.so" "$w/diff/libclrjit.so"
    "$BIN/mchgen" --seed 11 --contexts 300 --out "$w/your.mch" >/dev/null &&
        "$BIN/mchgen" --seed 12 --contexts 100 --out "$d/a.mch" >/dev/null &&
        "$BIN/mcs" -convert "$d/a.mch" "$w/collections/a.mcz" >/dev/null &&
        "$BIN/mcs" -copy 1-40 "$w/collections/a.mcz" "$w/collections/b.mcz" >/dev/null &&
        "$BIN/mcs" -convert --chunk-size 128K "$w/your.mch" "$d/whole.mcz" >/dev/null &&
        head -c "$(($(stat -c %s "$d/whole.mcz") / 2))" "$d/whole.mcz" >"$w/damaged.mcz" &&
        cc -shared -fPIC -I"$MCZ_ROOT/parallel-replay" -o "$w/my_replay.so" \
            "$MCZ_ROOT/parallel-replay/plugins/replay_test_plugin.c"
}

SPMI=$(cd "${BUILD:-build}" && pwd)/tests/spmi_today
if [ ! -x "$SPMI" ]; then
    fail "setup: $SPMI is built (make test builds it)"
elif ! readme_dir "$T/readme" >"$T/setup.err" 2>&1; then
    fail "setup: the README's inputs are made"; sed 's/^/    /' "$T/setup.err" | head -10
else
    # A planted README: a block that runs, a broken command in the second, and a broken block
    # marked not run. The runner must stop at the broken command and name it.
    mkdir -p "$T/planted-readme"
    cp -r "$T/readme/work" "$T/readme/path" "$T/planted-readme/"
    cat >"$T/planted-readme/README.md" <<'EOS'
```sh
bin/mcs -info your.mch
```
<!-- not run by tests/cli/test_docs.sh: planted -->
```sh
bin/mcs -no-such-verb-at-all your.mch
```
```sh
bin/mcs -convert your.mch planted.mcz
bin/mcs -convrt your.mch planted.mcz
bin/mcs -info planted.mcz
```
EOS
    read -r n marked < <(sh_blocks "$T/planted-readme/README.md" "$T/planted-readme")
    [ "$n $marked" = "2 1" ] && pass "planted README: two blocks to run, one marked not run" ||
        fail "planted README: two blocks to run, one marked not run (got $n, $marked)"
    if run_blocks "$T/planted-readme" "$n" 2>"$T/planted.err" >/dev/null; then
        fail "planted README: a broken command fails the run"
    else pass "planted README: a broken command fails the run"; fi
    contains "planted README: the failing command is named" "$T/planted.err" \
        "block 2: failed: bin/mcs -convrt your.mch planted.mcz"
    [ -s "$T/planted-readme/work/planted.mcz" ] && pass "planted README: the commands before it ran" ||
        fail "planted README: the commands before it ran"

    read -r n marked < <(sh_blocks "$MCZ_ROOT/README.md" "$T/readme")
    [ "$n" -ge 3 ] && pass "README.md: $n shell blocks to run ($marked marked not run)" ||
        fail "README.md: at least 3 shell blocks to run (got $n)"
    if run_blocks "$T/readme" "$n" >"$T/readme.out" 2>"$T/readme.err"; then
        pass "README.md: every command of its $n shell blocks runs"
    else
        fail "README.md: every command of its shell blocks runs"
        grep 'failed:' "$T/readme.err" | sed 's/^/    /'; tail -5 "$T/readme.err" | sed 's/^/    /'
    fi
    # Day one's outputs: what each step says it gives.
    for f in your.mcz map.csv failed.mcl details.csv failed.mch passing.mcz diffs.csv diffs.mcl \
        diffs.mch; do
        [ -s "$T/readme/work/$f" ] && pass "day one: $f is written" || fail "day one: $f is written"
    done
    if [ -s "$T/readme/work/diffs.mch" ]; then
        "$BIN/mcs" -info "$T/readme/work/diffs.mch" >"$T/diffs.info" 2>&1
        want=$(wc -l <"$T/readme/work/diffs.mcl")
        contains "day one: diffs.mch holds the $want contexts with diffs" "$T/diffs.info" \
            "contexts:      $want (numbers 1-$want)"
    fi
fi

cli_done
