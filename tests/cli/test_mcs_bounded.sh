#!/usr/bin/env bash
# The verbs keep memory bounded whatever the collection's size, and the bound changes nothing
# they write: -removeDup and -merge -dedup spill their keys to sorted runs past MCZ_DEDUP_RUN
# entries, and write the same bytes and the same counts with a bound of 1, of 7 and with none
# reached; their temporary file is gone afterwards; a TMPDIR where no run can go is an error
# naming it, with nothing left at OUT. An archive's index is read in pieces: its hash columns
# stream from the index's zstd frame in windows of 512 contexts, and give what the .mch gives.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs

"$BIN/mchgen" --seed 3 --contexts 900 --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
"$M" -convert --chunk-size 256K "$T/a.mch" "$T/a.mcz" >/dev/null || fail "-convert"
"$M" -convert --no-hashes --chunk-size 256K "$T/a.mch" "$T/n.mcz" >/dev/null ||
    fail "-convert --no-hashes"
cat "$T/a.mch" "$T/a.mch" >"$T/aa.mch" # every context twice: the second copies all go
mkdir "$T/dir" "$T/tmp"
cp "$T/a.mcz" "$T/dir/1.mcz"
cp "$T/a.mch" "$T/dir/2.mch"
cp "$T/n.mcz" "$T/dir/3.mcz"

# bounded NAME OUT_EXT ARGS...: the verb (OUT standing for its output) with runs of 1 and of 7
# entries writes what it writes with the default bound (never reached here), and says the same.
bounded() {
    local name=$1 ext=$2 run
    shift 2
    for run in none 1 7; do
        local out=$T/out.$run.$ext
        local args=("${@//OUT/$out}")
        rm -f "$out"
        if [ "$run" = none ]; then
            "$M" "${args[@]}" >"$T/said.$run" 2>&1
        else
            MCZ_DEDUP_RUN=$run TMPDIR=$T/tmp "$M" "${args[@]}" >"$T/said.$run" 2>&1
        fi
        echo "exit $?" >>"$T/said.$run"
        sed -i "s|$out|OUT|g" "$T/said.$run"
    done
    for run in 1 7; do
        same "$name: runs of $run write the same bytes" "$T/out.none.$ext" "$T/out.$run.$ext"
        same "$name: runs of $run say the same" "$T/said.none" "$T/said.$run"
    done
    contains "$name: succeeds" "$T/said.none" "exit 0"
}

bounded "-removeDup .mch" mch -removeDup "$T/aa.mch" OUT
bounded "-removeDup .mch into .mcz" mcz -removeDup "$T/aa.mch" OUT
bounded "-removeDup .mcz (stored keys)" mcz -removeDup "$T/a.mcz" OUT
bounded "-removeDup .mcz without hashes" mch -removeDup "$T/n.mcz" OUT
bounded "-removeDup -legacy -thin" mch -removeDup -legacy -thin "$T/aa.mch" OUT
bounded "-merge -dedup" mcz -merge OUT "$T/dir" -dedup
bounded "-merge -dedup -thin" mch -merge OUT "$T/dir" -dedup -thin
contains "-removeDup drops the second copies" "$T/said.none" "Saved"
if [ -z "$(ls -A "$T/tmp")" ]; then pass "the runs' temporary file is gone"; else
    fail "the runs' temporary file is gone ($(ls "$T/tmp"))"; fi

# Standard input is read twice from its spool, not again.
MCZ_DEDUP_RUN=5 TMPDIR=$T/tmp "$M" -removeDup - "$T/pipe.mch" <"$T/aa.mch" >/dev/null 2>&1
"$M" -removeDup "$T/aa.mch" "$T/file.mch" >/dev/null 2>&1
same "-removeDup - reads its spool twice" "$T/file.mch" "$T/pipe.mch"

rm -f "$T/no.mch"
MCZ_DEDUP_RUN=5 TMPDIR=$T/missing fail_run "runs need a TMPDIR" \
    "$M" -removeDup "$T/aa.mch" "$T/no.mch"
contains "the error names TMPDIR" "$T/err" "$T/missing"
if [ ! -e "$T/no.mch" ]; then pass "nothing at OUT"; else fail "nothing at OUT"; fi

# The hash columns, streamed across windows (900 contexts: two of them; MCZ_INDEX_STREAM_MIN=0
# streams an index of any size), read whole in order
# (-toc: identities; -removeDup: dedup keys) and out of order (-copy of a list, -verify).
export MCZ_INDEX_STREAM_MIN=0
cp "$T/a.mch" "$T/t.mch"
cp "$T/a.mcz" "$T/t.mcz"
ok_run "-toc of the .mch" "$M" -toc "$T/t.mch"
ok_run "-toc of the archive" "$M" -toc "$T/t.mcz"
same "-toc: the archive's streamed identities are the .mch's" "$T/t.mch.mct" "$T/t.mcz.mct"
"$M" -removeDup "$T/a.mch" "$T/rd1.mch" >/dev/null 2>&1
"$M" -removeDup "$T/a.mcz" "$T/rd2.mcz" >/dev/null 2>&1
"$M" -export "$T/rd2.mcz" "$T/rd2.mch" >/dev/null 2>&1
same "-removeDup: the archive's streamed dedup keys are the .mch's" "$T/rd1.mch" "$T/rd2.mch"
ok_run "-verify compares every stored hash" "$M" -verify "$T/a.mcz"

cli_done
