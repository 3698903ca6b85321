#!/usr/bin/env bash
# mcs -convert gives the same bytes for the same input and options, whatever -j: the input is
# larger than the 8 MiB the dictionary is trained on, so the training decision (judged on
# held-out chunks; 64K chunks, where a dictionary pays) falls while chunks are still being
# appended and compressed. Three conversions with -j 1, three with -j 2.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
RUNS=3

"$BIN/mchgen" --seed 3 --contexts 1200 --out "$T/s.mch" >/dev/null 2>&1 ||
    fail "mchgen writes the source collection"
size=$(stat -c %s "$T/s.mch")
if [ "$size" -gt $((8 << 20)) ]; then pass "the source ($size bytes) exceeds the training prefix"
else fail "the source ($size bytes) exceeds the training prefix"; fi

convert() { "$M" -convert "$T/s.mch" "$2" --level 1 --chunk-size 64K -j "$1" >/dev/null 2>&1; }
convert 1 "$T/ref.mcz" || fail "-convert -j 1"
"$M" -info "$T/ref.mcz" >"$T/info" 2>&1
contains "the reference has a trained dictionary" "$T/info" "dictionary:    id"
for threads in 1 2; do
    for run in $(seq 1 "$RUNS"); do
        rm -f "$T/run.mcz"
        if convert "$threads" "$T/run.mcz"; then
            same "-convert -j $threads, run $run: the reference's bytes" "$T/ref.mcz" "$T/run.mcz"
        else
            fail "-convert -j $threads, run $run"
        fi
    done
done
cli_done
