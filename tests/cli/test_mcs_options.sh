#!/usr/bin/env bash
# One option syntax for every verb (mcs/mcs_options.c): one or two dashes, --name=value and
# --name value, anywhere after the verb; unknown options answered with the nearest known one and
# one usage line; SuperPMI's prefix rules kept, a whole option name before an abbreviation.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs

"$BIN/mchgen" --seed 5 --contexts 4 --out "$T/a.mch" >/dev/null 2>&1 || fail "mchgen"
ok_run "-convert writes an archive" "$M" -convert "$T/a.mch" "$T/x.mcz"

# The commands a new user typed.
ok_run "mcs -info x.mcz -chunks" "$M" -info "$T/x.mcz" -chunks
contains "-chunks lists the chunks" "$T/out" "xxh3"
ok_run "mcs -convert a b -level 3" "$M" -convert "$T/a.mch" "$T/l3.mcz" -level 3
"$M" -info "$T/l3.mcz" >"$T/info" 2>&1
contains "-level 3 took effect" "$T/info" "level:         3"
ok_run "--level=3" "$M" -convert "$T/a.mch" "$T/l3b.mcz" --level=3
same "--level=3 and -level 3 write the same archive" "$T/l3.mcz" "$T/l3b.mcz"
ok_run "-LEVEL=3 -CHUNK-SIZE 1M (any case, one dash)" "$M" -convert "$T/a.mch" "$T/l3c.mcz" \
    -LEVEL=3 -CHUNK-SIZE 2M
ok_run "options before the files" "$M" -convert --level 3 "$T/a.mch" "$T/l3d.mcz"
same "option position does not matter" "$T/l3.mcz" "$T/l3d.mcz"
ok_run "-verbosity after the verb" "$M" -convert "$T/a.mch" "$T/q.mcz" -verbosity e
if [ -s "$T/err" ] || [ -s "$T/out" ]; then fail "-verbosity e after the verb silences the summary"
else pass "-verbosity e after the verb silences the summary"; fi
ok_run "--verbosity=e before the verb" "$M" --verbosity=e -convert "$T/a.mch" "$T/q2.mcz"
[ ! -s "$T/out" ] && pass "--verbosity=e before the verb silences it" ||
    fail "--verbosity=e before the verb silences it"
ok_run "-verbosity before the verb, as today" "$M" -verbosity e -info "$T/x.mcz"
ok_run "--thin (two dashes) on a SuperPMI flag" "$M" -copy 1-2 "$T/a.mch" "$T/t.mch" --thin
ok_run "-th abbreviates -thin (SuperPMI's prefix rule)" "$M" -copy 1-2 "$T/a.mch" "$T/t2.mch" -th
same "-th is -thin" "$T/t.mch" "$T/t2.mch"
ok_run "--convert: a verb with two dashes" "$M" --convert "$T/a.mch" "$T/v.mcz"
ok_run "--jit-ee=B" "$M" -info "$T/a.mch" --jit-ee=B
contains "--jit-ee=B applies" "$T/out" "given"

cp "$T/a.mch" "$T/-odd.mch"
(cd "$T" && "$M" -info -- -odd.mch) >"$T/out" 2>"$T/err" && contains "-- ends the options" \
    "$T/out" "file:          -odd.mch" || fail "-- ends the options"

# Unknown options: the nearest known one, one usage line, exit 2.
exit_is "mcs -info x.mcz -chunkz: exit 2" 2 "$M" -info "$T/x.mcz" -chunkz
contains "-chunkz: did you mean --chunks" "$T/err" "unknown option '-chunkz'; did you mean --chunks?"
[ "$(grep -c '^usage:' "$T/err")" -eq 1 ] && [ "$(wc -l <"$T/err")" -le 3 ] &&
    pass "-chunkz: one usage line" || fail "-chunkz: one usage line"
exit_is "--lvel: exit 2" 2 "$M" -convert "$T/a.mch" "$T/z.mcz" --lvel 3
contains "--lvel: did you mean --level" "$T/err" "did you mean --level?"
[ "$(grep -c '^usage:' "$T/err")" -eq 1 ] && [ "$(grep -c . "$T/err")" -eq 3 ] &&
    pass "-convert: a usage error prints one usage line, not its whole synopsis" ||
    fail "-convert: a usage error prints one usage line, not its whole synopsis"
exit_is "--chunk: the beginning of --chunk-size" 2 "$M" -convert "$T/a.mch" "$T/z.mcz" --chunk 1M
contains "--chunk: did you mean --chunk-size" "$T/err" "did you mean --chunk-size?"
exit_is "-convrt before the verb" 2 "$M" -convrt "$T/a.mch" "$T/z.mcz"
contains "-convrt: did you mean -convert" "$T/err" "did you mean -convert?"
exit_is "-frobnicate: no suggestion, exit 2" 2 "$M" -info "$T/x.mcz" -frobnicate
if grep -q "did you mean" "$T/err"; then fail "-frobnicate: no far-fetched suggestion"; else
    pass "-frobnicate: no far-fetched suggestion"; fi
exit_is "--thin=yes: a flag takes no value" 2 "$M" -copy 1 "$T/a.mch" "$T/z.mch" --thin=yes
contains "--thin=yes: named" "$T/err" "--thin takes no value"
exit_is "--level without a value" 2 "$M" -convert "$T/a.mch" "$T/z.mcz" --level
exit_is "--th: two dashes never abbreviate" 2 "$M" -copy 1 "$T/a.mch" "$T/z.mch" --th
if ls "$T"/z.* >/dev/null 2>&1; then fail "usage errors write nothing"; else
    pass "usage errors write nothing"; fi

# A whole option name comes before a SuperPMI abbreviation: -j is -convert's thread count
# (not -jitflags), -f is --force (not -fracture), -le is still -legacy.
ok_run "-j 1 is -convert's thread count" "$M" -convert "$T/a.mch" "$T/j.mcz" -j 1
ok_run "-f after the verb is --force" "$M" -export "$T/x.mcz" "$T/f.mch" -f
exit_is "-le is SuperPMI's -legacy, which -convert does not take" 2 \
    "$M" -convert "$T/a.mch" "$T/z.mcz" -le 3
contains "-le: unknown to -convert" "$T/err" "unknown option '-le'"
ok_run "-le is -legacy for -removeDup" "$M" -removeDup "$T/a.mch" "$T/rd.mch" -le

# Every long option of every verb, spelled with one dash, is that option: never read as a
# SuperPMI switch prefix nor refused as unknown (its verb then wants its files or the value).
bad=
for verb in $("$M" --help | sed -n 's/^  [ *] -\([A-Za-z]*\) .*/\1/p'); do
    for opt in $("$M" --help "$verb" | sed -n 's/^  --\([a-z-]*\).*/\1/p'); do
        "$M" -"$verb" -"$opt" >/dev/null 2>"$T/err"
        grep -q "unknown option" "$T/err" && bad="$bad -$verb:-$opt"
    done
done
[ -z "$bad" ] && pass "every --option of every verb is taken with one dash" ||
    fail "every --option of every verb is taken with one dash:$bad"

# A verb's full help, two ways.
ok_run "mcs --help convert" "$M" --help convert
cp "$T/out" "$T/h1"
ok_run "mcs -convert --help" "$M" -convert --help
same "--help VERB is the verb's --help" "$T/h1" "$T/out"
contains "the verb's help lists --preset" "$T/out" "--preset NAME"
ok_run "mcs --help -copy" "$M" --help -copy
contains "--help -copy lists -thin" "$T/out" "-thin"
exit_is "mcs --help nosuchverb: exit 2" 2 "$M" --help nosuchverb
ok_run "mcs --help documents the precedence" "$M" --help
contains "--help: whole name first" "$T/out" "After the verb, an option's whole name comes first"
cli_done
