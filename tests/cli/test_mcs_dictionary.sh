#!/usr/bin/env bash
# The trained dictionary pays for itself (FORMAT.md §10): -convert never makes a collection
# larger with it than without, whether the whole collection is its sample (3.9 MB, decided at
# the end) or more input follows the sample (16 MB, judged on held-out chunks); and where it
# pays (small chunks), it is kept. Standard input is judged as the file is.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs

size() { stat -c %s "$1"; }
has_dict() { "$M" -info "$1" | grep -q '^dictionary: *id '; }

# never_larger NAME MCH [OPTIONS...]: the default archive is no larger than the --no-dict one.
never_larger() {
    local name=$1 mch=$2; shift 2
    "$M" -convert "$@" "$mch" "$T/d.mcz" >/dev/null 2>&1 &&
        "$M" -convert --no-dict "$@" "$mch" "$T/n.mcz" >/dev/null 2>&1 ||
        { fail "$name (conversion failed)"; return; }
    local d n
    d=$(size "$T/d.mcz"); n=$(size "$T/n.mcz")
    if [ "$d" -le "$n" ]; then pass "$name ($d <= $n bytes)"; else
        fail "$name: $d bytes with the dictionary, $n without"; fi
}

for seed in 1 2; do
    "$BIN/mchgen" --seed $seed --contexts 300 --out "$T/s$seed.mch" >/dev/null 2>&1 &&
        "$BIN/mchgen" --seed $seed --contexts 1500 --out "$T/m$seed.mch" >/dev/null 2>&1 ||
        fail "mchgen writes the collections (seed $seed)"
    never_larger "seed $seed, 300 contexts (all of it the sample): never larger" "$T/s$seed.mch"
    never_larger "seed $seed, 1500 contexts (more than the sample): never larger" "$T/m$seed.mch"
    never_larger "seed $seed, 1500 contexts, 256K chunks: never larger" "$T/m$seed.mch" \
        --chunk-size 256K
    cp "$T/d.mcz" "$T/f$seed.mcz" # the file's archive, which standard input's must equal (below)
done

# A collection that once came out larger with it (14,495 bytes, FORMAT.md §10): the dictionary
# stored was trained on all the samples, twice the size of the one judged on the held-out half.
"$BIN/mchgen" --seed 5 --contexts 4000 --out "$T/l5.mch" >/dev/null 2>&1 ||
    fail "mchgen writes the collection (seed 5, 4000 contexts)"
never_larger "seed 5, 4000 contexts, 1M chunks: never larger" "$T/l5.mch" --chunk-size 1M

# With 64K chunks a dictionary saves far more than it costs: it is kept, and it helps.
"$M" -convert --chunk-size 64K "$T/s1.mch" "$T/d.mcz" >/dev/null 2>&1
"$M" -convert --chunk-size 64K --no-dict "$T/s1.mch" "$T/n.mcz" >/dev/null 2>&1
if has_dict "$T/d.mcz" && [ "$(size "$T/d.mcz")" -lt "$(size "$T/n.mcz")" ]; then
    pass "64K chunks: the dictionary is kept and the archive is smaller"
else
    fail "64K chunks: the dictionary is kept and the archive is smaller"
fi

# Standard input is measured once spooled: the same archive as from the file.
"$M" -convert --chunk-size 256K - "$T/p.mcz" <"$T/m1.mch" >/dev/null 2>&1
same "standard input gives the archive the file gives" "$T/f1.mcz" "$T/p.mcz"
cli_done
