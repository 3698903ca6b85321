#!/usr/bin/env bash
# A .mct that parses but does not describe its .mch (entries swapped, one dropped and the rest
# renumbered, a wrong identity, another file's table) is not trusted: -copy still writes the
# context asked for, and one warning names the .mct, says what is wrong and that the file is
# read by scanning instead.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
N=20

"$BIN/mchgen" --seed 11 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 &&
    "$BIN/mchgen" --seed 12 --contexts $N --preset small --out "$T/other.mch" >/dev/null 2>&1 ||
    fail "mchgen writes two collections"
"$M" -toc "$T/a.mch" >/dev/null 2>&1 && mv "$T/a.mch.mct" "$T/good.mct" &&
    "$M" -toc "$T/other.mch" >/dev/null 2>&1 || fail "-toc of both collections"
for k in 1 2 3 $N; do "$M" -copy $k "$T/a.mch" "$T/ref$k.mch" >/dev/null 2>&1; done
"$M" -dump 1 "$T/a.mch" >"$T/ref.dump" 2>/dev/null

# at ENTRY FIELD: offset in a .mct of field FIELD (0 offset, 8 number, 12 hash) of ENTRY.
at() { echo $((8 + 48 * ($1 - 1) + $2)); }
# get FILE ENTRY FIELD LEN > bytes; put FILE ENTRY FIELD < bytes.
get() { dd if="$1" bs=1 skip="$(at "$2" "$3")" count="$4" status=none; }
put() { dd of="$1" bs=1 seek="$(at "$2" "$3")" conv=notrunc status=none; }
# le32 N: four little-endian bytes.
le32() { printf "$(printf '\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24)))"; }

# distrusted LABEL K TEXT: with forged.mct beside a copy of a.mch, -copy K writes context K,
# exit 0, and one warning names the .mct, says TEXT and that the file is scanned.
distrusted() {
    local label=$1 k=$2 text=$3
    cp "$T/a.mch" "$T/t.mch"
    cp "$T/forged.mct" "$T/t.mch.mct"
    ok_run "$label: -copy $k succeeds" "$M" -copy "$k" "$T/t.mch" "$T/got.mch"
    same "$label: -copy $k writes context $k" "$T/ref$k.mch" "$T/got.mch"
    contains "$label: the warning says what is wrong" "$T/err" "$text"
    if [ "$(grep -c "^mcs: warning: $T/t.mch.mct: .*; reading $T/t.mch by scanning instead$" \
        "$T/err")" -eq 1 ]; then pass "$label: one warning names the .mct and the fallback"
    else fail "$label: one warning names the .mct and the fallback"; sed 's/^/    /' "$T/err"; fi
    ok_run "$label: -copy of everything succeeds" "$M" -copy 1-$N "$T/t.mch" "$T/all.mch"
    same "$label: -copy of everything writes the file" "$T/a.mch" "$T/all.mch"
    [ "$(grep -c 'warning: .*t.mch.mct' "$T/err")" -eq 1 ] &&
        pass "$label: warned once for $N contexts" || fail "$label: warned once for $N contexts"
}

# The good table is used, without a word.
cp "$T/good.mct" "$T/forged.mct"
cp "$T/a.mch" "$T/t.mch"
cp "$T/good.mct" "$T/t.mch.mct"
ok_run "good .mct: -copy $N" "$M" -copy $N "$T/t.mch" "$T/got.mch"
same "good .mct: -copy $N writes context $N" "$T/ref$N.mch" "$T/got.mch"
[ -s "$T/err" ] && fail "good .mct: no warning" || pass "good .mct: no warning"

# Entries 1 and 2 swapped (offset and identity), their numbers kept.
cp "$T/good.mct" "$T/forged.mct"
get "$T/good.mct" 2 0 8 | put "$T/forged.mct" 1 0
get "$T/good.mct" 2 12 36 | put "$T/forged.mct" 1 12
get "$T/good.mct" 1 0 8 | put "$T/forged.mct" 2 0
get "$T/good.mct" 1 12 36 | put "$T/forged.mct" 2 12
distrusted "swapped entries" 1 "it places context 1 at"
"$M" -dump 1 "$T/t.mch" >"$T/got.dump" 2>/dev/null
same "swapped entries: -dump 1 prints context 1" "$T/ref.dump" "$T/got.dump"

# Entry 2 dropped and the rest renumbered: every offset increases, entry 2 names context 3 and
# has its identity; only the walk from context 1 shows that context 2 begins elsewhere.
{
    printf 'INDX'; le32 $((N - 1)); get "$T/good.mct" 1 0 48
    for i in $(seq 3 $N); do get "$T/good.mct" "$i" 0 8; le32 $((i - 1)); get "$T/good.mct" "$i" 12 36; done
    printf 'INDX'
} >"$T/forged.mct"
distrusted "an entry dropped" 2 "but context 1 ends at"

# A wrong identity (the first digit changed) for the first context from 3 on that has one;
# its offset is right.
k=3
while [ "$(get "$T/good.mct" $k 12 1 | od -An -tu1 | tr -d ' ')" = 0 ] && [ $k -lt $N ]; do
    k=$((k + 1)); done
"$M" -copy $k "$T/a.mch" "$T/ref$k.mch" >/dev/null 2>&1
cp "$T/good.mct" "$T/forged.mct"
{ [ "$(get "$T/good.mct" $k 12 1)" = 0 ] && printf 1 || printf 0; } | put "$T/forged.mct" $k 12
distrusted "a wrong identity" $k "it records identity"

# Another collection's table (as many contexts, other sizes).
cp "$T/other.mch.mct" "$T/forged.mct"
distrusted "another file's .mct" 3 "it places context"

# Which .mct is read, as SuperPMI finds it: X.mch.mct before X.mct, and none at all for a file
# not named *.mch (a bad table beside it would warn if it were read).
cp "$T/other.mch.mct" "$T/forged.mct"
cp "$T/a.mch" "$T/p.mch"; cp "$T/good.mct" "$T/p.mch.mct"; cp "$T/forged.mct" "$T/p.mct"
ok_run "X.mch.mct before X.mct: -copy 3 succeeds" "$M" -copy 3 "$T/p.mch" "$T/got.mch"
same "X.mch.mct before X.mct: -copy 3 writes context 3" "$T/ref3.mch" "$T/got.mch"
[ -s "$T/err" ] && fail "X.mch.mct before X.mct: the bad X.mct is not read" ||
    pass "X.mch.mct before X.mct: the bad X.mct is not read"
rm "$T/p.mch.mct"
ok_run "X.mct alone: -copy 3 succeeds" "$M" -copy 3 "$T/p.mch" "$T/got.mch"
contains "X.mct alone: it is read (and distrusted)" "$T/err" "warning: $T/p.mct:"
for name in p.bin p.MC p.mchx; do
    cp "$T/a.mch" "$T/$name"; cp "$T/forged.mct" "$T/$name.mct"
    ok_run "$name: -copy 3 succeeds" "$M" -copy 3 "$T/$name" "$T/got.mch"
    same "$name: -copy 3 writes context 3" "$T/ref3.mch" "$T/got.mch"
    [ -s "$T/err" ] && fail "$name: no .mct beside it is read" || pass "$name: no .mct beside it is read"
done
cp "$T/a.mch" "$T/Q.MCH"; cp "$T/forged.mct" "$T/Q.mct"
ok_run "Q.MCH: -copy 3 succeeds" "$M" -copy 3 "$T/Q.MCH" "$T/got.mch"
contains "Q.MCH: the .mch suffix in any case pairs with Q.mct" "$T/err" "warning: $T/Q.mct:"

cli_done
