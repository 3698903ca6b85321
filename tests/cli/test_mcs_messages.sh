#!/usr/bin/env bash
# Messages that point the right way: what a file that is no collection looks like, an MCH file
# given for an archive named as one, a cut input pointing to -recover, -recover keeping every
# complete context of a cut MCH file and saying where the cut is (a context start, as the .mct
# records it), HTTP failures in words, and -info honest about a missing dictionary.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs

"$BIN/mchgen" --seed 11 --contexts 6 --out "$T/a.mch" >/dev/null 2>&1 || fail "mchgen"
"$M" -convert "$T/a.mch" "$T/a.mcz" >/dev/null 2>&1 || fail "-convert"
"$M" -toc "$T/a.mch" >/dev/null 2>&1 && "$M" -dumpToc "$T/a.mch.mct" >"$T/toc.txt" || fail "-toc"
offset_of() { echo $((16#$(awk -v k="$1" 'NR == k { print $2 }' "$T/toc.txt"))); }

# Not a collection: said at once, with what it looks like; never "no footer".
fail_run "mcs -info /etc/passwd" "$M" -info /etc/passwd
contains "/etc/passwd: not a collection" "$T/err" "/etc/passwd: not a collection"
contains "/etc/passwd: looks like text" "$T/err" "it looks like text"
cp /etc/passwd "$T/p.mcz"
fail_run "a text file named .mcz" "$M" -info "$T/p.mcz"
contains "a text file named .mcz: not a collection" "$T/err" "not a collection"
grep -q "no footer at the end" "$T/err" && fail "a text file named .mcz: no talk of a footer" ||
    pass "a text file named .mcz: no talk of a footer"
fail_run "an ELF file" "$M" -integ "$M"
contains "an ELF file: said so" "$T/err" "it is an ELF file"

# An MCH file where an archive is expected.
fail_run "--dict-from an MCH file" "$M" -convert "$T/a.mch" "$T/z.mcz" --dict-from "$T/a.mch"
contains "--dict-from an MCH file: named an MCH file" "$T/err" "an MCH file, not an archive"
contains "--dict-from an MCH file: the command that helps" "$T/err" "mcs -convert $T/a.mch OUT.mcz"

# A cut archive and a cut MCH file point to -recover.
head -c 3000 "$T/a.mcz" >"$T/cut.mcz"
fail_run "a cut archive" "$M" -info "$T/cut.mcz"
contains "a cut archive: names mcs -recover" "$T/err" "mcs -recover $T/cut.mcz OUT.mcz"
o4=$(offset_of 4)
head -c $((o4 + 100)) "$T/a.mch" >"$T/cut.mch"
fail_run "a cut .mch: -integ" "$M" -integ "$T/cut.mch"
contains "a cut .mch: the context start the .mct records" "$T/err" "context 4 at offset $o4: cut short"
contains "a cut .mch: names mcs -recover" "$T/err" "mcs -recover $T/cut.mch"
fail_run "a cut archive on standard input" sh -c '"$1" -info - <"$2"' sh "$M" "$T/cut.mcz"
contains "standard input: the same bytes piped to mcs -recover -" "$T/err" \
    "'... | mcs -recover - OUT.mcz'"

# -recover of a cut .mch keeps every complete context.
ok_run "-recover of a cut .mch" "$M" -recover "$T/cut.mch" "$T/rec.mch"
contains "-recover: how many" "$T/out" "Recovered 3 complete contexts"
contains "-recover: where the cut is" "$T/err" "context 4 at offset $o4"
"$M" -copy 1-3 "$T/a.mch" "$T/first3.mch" >/dev/null 2>&1
same "-recover keeps contexts 1-3 byte for byte" "$T/rec.mch" "$T/first3.mch"
ok_run "-recover of a cut .mch into an archive" "$M" -recover "$T/cut.mch" "$T/rec.mcz"
"$M" -export "$T/rec.mcz" "$T/rec2.mch" >/dev/null 2>&1
same "-recover into an archive keeps the same contexts" "$T/rec2.mch" "$T/first3.mch"
head -c 100 "$T/a.mch" >"$T/cut1.mch"
fail_run "-recover with nothing complete fails" "$M" -recover "$T/cut1.mch" "$T/rec1.mch"
contains "-recover with nothing complete says so" "$T/err" "nothing to recover"
[ -e "$T/rec1.mch" ] && fail "-recover with nothing complete leaves no output" ||
    pass "-recover with nothing complete leaves no output"
ok_run "-recover of a whole .mch copies it" "$M" -recover "$T/a.mch" "$T/whole.mch"
same "-recover of a whole .mch: identical" "$T/a.mch" "$T/whole.mch"

# HTTP in words: the host and the system's reason, no range syntax.
fail_run "an HTTP server that is not there" "$M" -info http://127.0.0.1:9/x.mcz
contains "HTTP: cannot connect to HOST: reason" "$T/err" "cannot connect to 127.0.0.1:9: Connection refused"
grep -q "bytes -" "$T/err" && fail "HTTP: no range jargon" || pass "HTTP: no range jargon"

# -dumpToc of an MCH file: the table it takes, or the command that writes one.
fail_run "-dumpToc of an MCH file with a table" "$M" -dumpToc "$T/a.mch"
contains "-dumpToc of an MCH file: names its .mct" "$T/err" \
    "a.mch is an MCH file, not a table of contents: its table is $T/a.mch.mct (mcs -dumpToc $T/a.mch.mct)"
grep -q "INDX" "$T/err" && fail "-dumpToc of an MCH file: no talk of INDX" ||
    pass "-dumpToc of an MCH file: no talk of INDX"
cp "$T/a.mch" "$T/notoc.mch"
fail_run "-dumpToc of an MCH file without a table" "$M" -dumpToc "$T/notoc.mch"
contains "-dumpToc of an MCH file without a table: the -toc command" "$T/err" \
    "mcs -toc $T/notoc.mch writes $T/notoc.mch.mct, then mcs -dumpToc $T/notoc.mch.mct"

# -toc of contexts that lack what the identity needs: the .mch and the .mcz say the same, the
# first one's reason included, and what it means for -removeDup and .exc files.
"$BIN/mchgen" --seed 7 --contexts 60 --preset small --out "$T/thin.mch" >/dev/null 2>&1
"$M" -convert "$T/thin.mch" "$T/thin.mcz" >/dev/null 2>&1
for f in thin.mch thin.mcz; do
    ok_run "-toc $f" "$M" -toc "$T/$f"
    contains "-toc $f: how many" "$T/err" "contexts lack what the identity needs"
    contains "-toc $f: the first and why" "$T/err" \
        "the first: $T/$f: context 2 at offset 2501: no PrintClassName (149) packet"
    contains "-toc $f: what it means for -removeDup" "$T/err" \
        "-removeDup takes one for a duplicate only of a byte-identical copy"
    contains "-toc $f: what it means for .exc" "$T/err" "an .exc file (identity hashes) cannot exclude them"
    contains "-toc $f: release collections are like that" "$T/err" \
        "Release collections hold such contexts too: it is no damage"
done

# -info on a missing dictionary.
"$M" -convert --no-dict "$T/a.mch" "$T/nd.mcz" >/dev/null 2>&1
ok_run "-info of an archive without a dictionary" "$M" -info "$T/nd.mcz"
contains "-info: none, not stored" "$T/out" "dictionary:    none (not stored"
contains "-info: the reasons a dictionary is not stored" "$T/out" \
    "written with --no-dict, or a dictionary trained on these contexts did not pay for itself"
cli_done
