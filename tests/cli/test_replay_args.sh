#!/usr/bin/env bash
# mcz-replay's command line read by whole words: -name and --name alike, --name=value, options
# after the collection, no clustering (-foo is unknown, never -f oo), the refused word named with
# the nearest option, -p answered with -j; the verify replayer's summary says it verified.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
R="$BIN/mcz-replay"
"$BIN/mchgen" --seed 2 --contexts 60 --out "$T/c.mch" >/dev/null 2>&1
"$BIN/mcs" -convert "$T/c.mch" "$T/c.mcz" >/dev/null 2>&1
[ -s "$T/c.mcz" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
cd "$T" || exit 1

ok_run "-details (one dash) writes the details" "$R" -q -details d1.csv c.mcz
[ -s d1.csv ] && pass "-details: the file is there" || fail "-details: the file is there"
ok_run "--details=FILE" "$R" -q --details=d2.csv c.mcz
same "--details=FILE: the same details" d1.csv d2.csv
ok_run "options after the collection" "$R" c.mcz -q -j 2 --details d3.csv
same "options after the collection: the same details" d1.csv d3.csv
contains "the verify summary says it verified" out "Loaded 60  Verified 60  Failed 0"

exit_is "-foo: refused" 255 "$R" -q -foo c.mcz
contains "-foo: the word named" err "unknown option '-foo'"
[ -e oo ] && fail "-foo: no file 'oo' made" || pass "-foo: no file 'oo' made"
exit_is "--detials: refused" 255 "$R" --detials x.csv c.mcz
contains "--detials: did you mean --details" err "did you mean --details?"
exit_is "-p 2: refused" 255 "$R" -p 2 c.mcz
contains "-p: says -j" err "-j N"
# superpmi's and make's words for an option: the option named
exit_is "-failureList: refused" 255 "$R" -failureList f.mcl c.mcz
contains "-failureList: did you mean -f FILE" err "unknown option '-failureList'; did you mean -f FILE?"
exit_is "--jobs 2: refused" 255 "$R" --jobs 2 c.mcz
contains "--jobs: did you mean -j N" err "unknown option '--jobs'; did you mean -j N?"
exit_is "-failurelimit: refused" 255 "$R" -failurelimit 3 c.mcz
contains "-failurelimit: did you mean --failure-limit N" err "did you mean --failure-limit N?"
exit_is "--quiet=1: refused" 255 "$R" --quiet=1 c.mcz
contains "--quiet=1: takes no value" err "--quiet takes no value"
exit_is "-j without a value: refused" 255 "$R" c.mcz -j
contains "-j without a value: said" err "-j wants a value"
exit_is "two collections: refused" 255 "$R" -q c.mcz c.mch
contains "two collections: both named" err "c.mcz, c.mch"
# a full disk: the error with the OS's reason, and still the summary of the work done
if [ -w /dev/full ]; then
    exit_is "--details /dev/full: exit 255" 255 "$R" -q --details /dev/full c.mcz
    contains "--details /dev/full: the reason" err "/dev/full: write failed: No space left on device"
    contains "--details /dev/full: the summary still printed" out "Loaded 60  Verified 60"
fi
# --match-hash (superpmi's -m): only the contexts whose stored identity is HASH, from the index
# of an archive or the .mct of an .mch
"$BIN/mcs" -toc c.mch > /dev/null 2>&1
"$BIN/mcs" -dumpToc c.mch.mct > toc.txt
python3 - toc.txt > want.txt <<'PY'
import sys, collections
ids = {}
for line in open(sys.argv[1]):
    n, _, *b = line.split()
    h = bytes(int(x, 16) for x in b[:32]).decode()
    if h.strip("\0"):
        ids[int(n.rstrip(":"))] = h
count = collections.Counter(ids.values())
h = max(count, key=lambda k: (count[k], k))      # a hash several contexts share
print(h)
print(",".join(str(n) for n in sorted(ids) if ids[n] == h))
PY
H=$(sed -n 1p want.txt); want=$(sed -n 2p want.txt)
for input in c.mcz c.mch; do
    ok_run "--match-hash, $input" "$R" -q --match-hash "$H" --details m.csv "$input"
    got=$(tail -n +2 m.csv | cut -d, -f1 | paste -sd,)
    [ -n "$want" ] && [ "$got" = "$want" ] && pass "--match-hash, $input: the contexts with that identity ($got)" ||
        fail "--match-hash, $input: got '$got', want '$want'"
done
exit_is "--match-hash of another length: refused" 255 "$R" -q --match-hash abc c.mcz
# a reader that stops early (| head) is no error, as for -dump | head (6,000 contexts: details
# far larger than a pipe holds, so the write meets the closed pipe)
"$BIN/mchgen" --seed 2 --contexts 6000 --out big.mch >/dev/null 2>&1
"$R" -q --details - big.mch 2> pipe.err | head -2 > pipe.out
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] && [ ! -s pipe.err ] && [ "$(wc -l < pipe.out)" = 2 ] &&
    pass "--details - | head: exit 0, nothing said" ||
    fail "--details - | head: exit $rc, $(head -1 pipe.err)"

# a collection that cannot be read: -f and --details exist, empty, as superpmi leaves them
head -c 3000 c.mcz > cut.mcz
rm -f e.mcl e.csv
exit_is "a cut archive: exit 255" 255 "$R" -q -f e.mcl --details e.csv cut.mcz
[ -f e.mcl ] && [ ! -s e.mcl ] && [ -f e.csv ] && [ ! -s e.csv ] &&
    pass "a cut archive: -f and --details are there, empty" ||
    fail "a cut archive: -f and --details are there, empty"
ok_run "--: a collection named like an option" cp c.mcz ./-x.mcz
ok_run "--: what follows is an operand" "$R" -q -- -x.mcz
cli_done
