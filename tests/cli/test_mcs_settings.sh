#!/usr/bin/env bash
# An archive written by -copy, -strip or -merge takes the input archive's settings (level,
# chunk size, dictionary or none, hashes or none: FORMAT.md §2 and §5 record them), unless the
# compression options -convert shares with them say otherwise; those options need an archive
# output. -convert refuses to write an archive under an .mch name.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
N=300

"$BIN/mchgen" --seed 4 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
# The strongest kind of setting, scaled down: a high level, no dictionary, no hashes.
ok_run "-convert with every option" "$M" -convert --level 19 --chunk-size 512K --no-dict \
    --no-hashes "$T/a.mch" "$T/cold.mcz"
# A level and chunk size that are not the defaults, with a dictionary and hashes.
ok_run "-convert at level 5, 256K chunks" "$M" -convert --level 5 --chunk-size 256K \
    "$T/a.mch" "$T/warm.mcz"

# settings FILE: the lines of -info that describe how the archive is compressed.
settings() {
    "$M" -info "$1" | grep -E '^(dictionary|hashes|level|chunk target):' |
        sed 's/^dictionary: *id [0-9]*,/dictionary: id,/'
}
# same_settings NAME A B: A and B are compressed alike (the dictionary's id not compared).
same_settings() {
    settings "$2" >"$T/s1"; settings "$3" >"$T/s2"
    same "$1" "$T/s1" "$T/s2"
}
# has_setting NAME FILE TEXT: FILE's settings include the line TEXT.
has_setting() {
    settings "$2" >"$T/s1"
    contains "$1" "$T/s1" "$3"
}

for src in cold warm; do
    in=$T/$src.mcz
    ok_run "$src: -copy of everything" "$M" -copy 1-$N "$in" "$T/c.mcz"
    same "$src: -copy of everything gives the archive back, byte for byte" "$in" "$T/c.mcz"
    ok_run "$src: -strip 1" "$M" -strip 1 "$in" "$T/s.mcz"
    same_settings "$src: -strip keeps the settings" "$in" "$T/s.mcz"
    # Fewer contexts, not necessarily fewer bytes: a chunk recompressed without a small
    # context may come out a few bytes larger (seed 4 at level 19: 61 bytes).
    "$M" -info "$T/s.mcz" >"$T/info"
    contains "$src: -strip 1 leaves $((N - 1)) contexts" "$T/info" "contexts:      $((N - 1)) "
    ok_run "$src: -copy 2-$N" "$M" -copy 2-$N "$in" "$T/c2.mcz"
    same "$src: -copy 2-$N gives what -strip 1 gives" "$T/s.mcz" "$T/c2.mcz"
    mkdir -p "$T/m-$src"
    cp "$in" "$T/m-$src/1.mcz"
    cp "$T/s.mcz" "$T/m-$src/2.mcz"
    ok_run "$src: -merge" "$M" -merge "$T/m.mcz" "$T/m-$src"
    same_settings "$src: -merge keeps the first archive's settings" "$in" "$T/m.mcz"
done
"$M" -info "$T/warm.mcz" | grep '^dictionary:' >"$T/d1"
"$M" -info "$T/s.mcz" | grep '^dictionary:' >"$T/d2"
same "warm: -strip keeps the very dictionary" "$T/d1" "$T/d2"

# ---- The options override what is inherited ----
ok_run "-copy --level 3" "$M" -copy 1-$N "$T/cold.mcz" "$T/l3.mcz" --level 3
has_setting "-copy --level 3: level 3" "$T/l3.mcz" "level:         3"
has_setting "-copy --level 3: the chunk size inherited" "$T/l3.mcz" "chunk target:  524288 bytes"
cmp -s "$T/cold.mcz" "$T/l3.mcz" && fail "-copy --level 3 recompresses the chunks" ||
    pass "-copy --level 3 recompresses the chunks"
export_ok() { "$M" -export "$2" "$T/x.mch" >/dev/null 2>&1; same "$1" "$T/a.mch" "$T/x.mch"; }
export_ok "-copy --level 3: every context" "$T/l3.mcz"
ok_run "-strip --chunk-size 64K" "$M" -strip 1 "$T/warm.mcz" "$T/k.mcz" --chunk-size 64K
has_setting "-strip --chunk-size 64K: 64K chunks" "$T/k.mcz" "chunk target:  65536 bytes"
has_setting "-strip --chunk-size 64K: the level inherited" "$T/k.mcz" "level:         5"
ok_run "-merge --no-dict --no-hashes" "$M" -merge "$T/nd.mcz" "$T/m-warm" --no-dict --no-hashes
has_setting "-merge --no-dict: no dictionary" "$T/nd.mcz" "dictionary:    none"
has_setting "-merge --no-hashes: no hashes" "$T/nd.mcz" "hashes:        none"
ok_run "-copy -thin keeps the settings" "$M" -copy -thin 1-$N "$T/warm.mcz" "$T/th.mcz"
same_settings "-copy -thin: the input's settings" "$T/warm.mcz" "$T/th.mcz"
# An MCH input: the library's defaults, and the options.
ok_run "-copy of an .mch into an archive" "$M" -copy 1-$N "$T/a.mch" "$T/fromch.mcz" --level 4
has_setting "-copy of an .mch: the level asked for" "$T/fromch.mcz" "level:         4"
has_setting "-copy of an .mch: the default chunk size" "$T/fromch.mcz" "chunk target:  2097152 bytes"

# ---- Usage errors: bad values, and options for an MCH output ----
FAIL_EXIT=2 fail_run "-copy --level 23 is a usage error" "$M" -copy 1 "$T/a.mch" "$T/u.mcz" \
    --level 23
FAIL_EXIT=2 fail_run "-strip --chunk-size 0 is a usage error" "$M" -strip 1 "$T/a.mch" \
    "$T/u.mcz" --chunk-size 0
for verb in "-copy 1" "-strip 1"; do
    FAIL_EXIT=2 fail_run "$verb --level into an .mch is a usage error" "$M" $verb "$T/warm.mcz" \
        "$T/u.mch" --level 3
    contains "$verb --level into an .mch: says why" "$T/err" "need an archive output"
done
FAIL_EXIT=2 fail_run "-merge --no-dict into an .mch is a usage error" "$M" -merge "$T/u.mch" \
    "$T/m-warm" --no-dict
[ -e "$T/u.mch" ] || [ -e "$T/u.mcz" ] && fail "usage errors write nothing" ||
    pass "usage errors write nothing"
for verb in copy strip merge convert; do
    "$M" -$verb --help >"$T/help" 2>&1
    contains "-$verb --help documents --level" "$T/help" "--level N"
    contains "-$verb --help documents --no-hashes" "$T/help" "--no-hashes"
done

# ---- -convert refuses an archive under an .mch name ----
for name in out.mch OUT.MCH; do
    FAIL_EXIT=2 fail_run "-convert into $name is refused" "$M" -convert "$T/a.mch" "$T/$name"
    contains "-convert into $name: says why, naming it" "$T/err" \
        "$T/$name: an archive would be written under an .mch name"
    contains "-convert into $name: says --force keeps it" "$T/err" "give --force"
    [ -e "$T/$name" ] && fail "-convert into $name writes nothing" ||
        pass "-convert into $name writes nothing"
done
ok_run "-convert into another name is allowed" "$M" -convert "$T/a.mch" "$T/out.bin"
# --force: superpmi.py keeps only .mch names, and mcz-superpmi serves archives whatever the name
ok_run "-convert --force into an .mch name" "$M" -convert --force "$T/a.mch" "$T/kept.mch"
ok_run "-convert --force: an archive, read as one" "$M" -info "$T/kept.mch"
contains "-convert --force: -info calls it an archive" "$T/out" "mcz archive"
ln -s /dev/null "$T/dev.mch"
ok_run "-convert into a device named .mch is allowed" "$M" -convert "$T/a.mch" "$T/dev.mch"

cli_done
