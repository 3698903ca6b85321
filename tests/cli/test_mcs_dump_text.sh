#!/usr/bin/env bash
# -dump, -ildump and -jitflags print SuperPMI's texts. One context is built here byte by byte
# (a method Geometry:Scale(valueclass Point) returning int, with generic instantiation handles,
# signature blobs, JIT flags with bits 31 and 32, and IL using the opcodes SuperPMI prints in
# its own way); each verb's output is compared with a golden file in tests/cli/golden/ whose
# every field was worked out from SuperPMI's format strings (superpmi/SUPERPMI.md, "Dump texts").
# The packet ids and CorInfoType numbers are JIT-EE version B's (0x13 is VALUECLASS there, CLASS
# in C), which its packets alone do not tell: every verb is given --jit-ee B.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
G=$MCZ_ROOT/tests/cli/golden

# ---- Byte writers ----
hex() { for b in "$@"; do printf "\\x$b"; done; }
le() { # le N BYTES: N as BYTES little-endian bytes
    local v=$1 n=$2 i
    for ((i = 0; i < n; i++)); do printf "\\x$(printf '%02x' $(((v >> (8 * i)) & 255)))"; done
}
le32() { le "$1" 4; }
le64() { le "$1" 8; }
zeros() { head -c "$1" /dev/zero; }
NONE=4294967295 # 0xFFFFFFFF, "no buffer" / "no instantiation"

# chunk FILE: a pool chunk (u32 length, bytes).
chunk() { le32 "$(wc -c <"$1")"; cat "$1"; }

# packet ID TAG COUNT KEYS VALUES POOL: one packet holding an LWM1/DWM1 map (KEYS empty for a
# dense map); the files hold the bytes.
packet() {
    local id=$1 tag=$2 count=$3 keys=$4 values=$5 pool=$6 body="$T/body"
    {
        printf '%s' "$tag"
        le32 "$count"
        le32 "$(wc -c <"$pool")"
        cat "$keys" "$values" "$pool"
    } >"$body"
    hex "$(printf '%02x' "$id")"
    le32 "$(wc -c <"$body")"
    cat "$body"
    hex 42
}

# sig CALLCONV RETCLASS RETTYPE FLAGS NARGS CC CI MC MI ARGS PSIG CBSIG MSIG SCOPE TOKEN:
# an Agnostic_CORINFO_SIG_INFO (84 bytes; retTypeSigClass 0).
sig() {
    le32 "$1"; le64 "$2"; le64 0; le32 "$3"; le32 "$4"; le32 "$5"
    le32 "$6"; le32 "$7"; le32 "$8"; le32 "$9"; le64 "${10}"; le32 "${11}"; le32 "${12}"
    le64 "${13}"; le64 "${14}"; le32 "${15}"
}

# A PrintResult-style name map (PrintMethodName 6, PrintClassName 149): handle=name pairs in
# key order.
names() {
    local id=$1 n=0 off=4 k="$T/nk" v="$T/nv" p="$T/np"
    shift
    : >"$k"; : >"$v"; : >"$p"
    for pair in "$@"; do
        local h=${pair%%=*} s=${pair#*=}
        le64 "$h" >>"$k"
        { le32 $((${#s} + 1)); le32 "$off"; le32 "${#s}"; } >>"$v"
        { le32 "${#s}"; printf '%s' "$s"; } >>"$p"
        off=$((off + 4 + ${#s}))
        n=$((n + 1))
    done
    packet "$id" LWM1 "$n" "$k" "$v" "$p"
}

# ---- The method ----
# IL: ldarg.0; stloc.s 0x15; ldc.r4 1.0; ldc.r8 2.0; ldc.i4.s 42; ldc.i4 0x12345678;
# call 0x06000001; ldarg 0x0102; bge.s +6 (SuperPMI: bgt.s); ldind.i (ldind.u8); ldelem
# 0x02000003 (stelem); leave.s 0; 0x24 (unknown to SuperPMI); ret.
hex 02 13 15 22 00 00 80 3f 23 00 00 00 00 00 00 00 40 1f 2a 20 78 56 34 12 28 01 00 00 06 \
    fe 09 02 01 2f 06 4d a3 03 00 00 02 de 00 24 2a >"$T/il"
hex 20 01 11 08 11 >"$T/argsig" # the args signature blob, 5 bytes
for i in $(seq 0 29); do printf "\\x$(printf '%02x' "$i")"; done >"$T/longsig" # 30 bytes

FTN=4096 SCOPE=8192 CLS=12288 POINT=16384 ARGS=24576 MSIG=28672
{
    # CompileMethod (143): key 0; IL and the args blob in the pool (IL at 4, blob at 53).
    le32 0 >"$T/k"
    {
        le64 $FTN; le64 $SCOPE; le32 4; le32 45; le32 3; le32 0; le32 16; le32 0
        sig 32 0 8 0 1 2 0 0 $NONE $ARGS 53 5 $MSIG $SCOPE 100663297
        sig 0 0 0 0 0 0 $NONE 0 $NONE 0 $NONE 0 0 $SCOPE 285212674
        le32 0; le32 1
    } >"$T/v"
    { chunk "$T/il"; chunk "$T/argsig"; } >"$T/p"
    packet 143 LWM1 1 "$T/k" "$T/v" "$T/p"

    # SigInstHandleMap (184): seven class handles 0x5000, 0x5100 ... 0x5600.
    for i in 0 1 2 3 4 5 6; do le64 $((0x5000 + 0x100 * i)); done >"$T/v"
    : >"$T/k"; : >"$T/p"
    packet 184 DWM1 7 "$T/k" "$T/v" "$T/p"

    # GetJitFlags (154): DEBUG_INFO, TIER0, bits 31 and 32; two instruction-set words.
    le32 0 >"$T/k"
    { le32 4; le32 24; } >"$T/v"
    { le32 24; le64 $((0x184000010)); le64 $((0x7BFFFF)); le64 1; } >"$T/p"
    packet 154 LWM1 1 "$T/k" "$T/v" "$T/p"

    # GetArgType (140) and GetArgClass (139) for the argument; it is the value class Point.
    { le32 0; le32 1; le32 2; le32 0; le32 0; le32 $NONE; le64 $MSIG; le64 $SCOPE; le64 $ARGS; } >"$T/k"
    { le64 $POINT; le32 19; le32 0; } >"$T/v"
    : >"$T/p"
    packet 140 LWM1 1 "$T/k" "$T/v" "$T/p"
    { le32 2; le32 0; le32 0; le32 $NONE; le64 $MSIG; le64 $SCOPE; le64 $ARGS; } >"$T/k"
    { le64 $POINT; le32 0; } >"$T/v"
    packet 139 LWM1 1 "$T/k" "$T/v" "$T/p"

    # GetArgNext (29), GetMethodClass (71), GetMethodAttribs (70: none), GetArrayRank (32).
    le64 $ARGS >"$T/k"; le64 $((ARGS + 1)) >"$T/v"
    packet 29 LWM1 1 "$T/k" "$T/v" "$T/p"
    le64 $FTN >"$T/k"; le64 $CLS >"$T/v"
    packet 71 LWM1 1 "$T/k" "$T/v" "$T/p"
    le64 $FTN >"$T/k"; le32 0 >"$T/v"
    packet 70 LWM1 1 "$T/k" "$T/v" "$T/p"
    le64 $POINT >"$T/k"; le32 0 >"$T/v"
    packet 32 LWM1 1 "$T/k" "$T/v" "$T/p"

    # GetMethodSig (76): a 30-byte blob (25 shown), six method instantiation handles (5 shown).
    { le64 $FTN; le64 0; } >"$T/k"
    sig 32 0 14 0 1 0 $NONE 6 1 $ARGS 4 30 $MSIG $SCOPE 100663297 >"$T/v"
    chunk "$T/longsig" >"$T/p"
    packet 76 LWM1 1 "$T/k" "$T/v" "$T/p"

    # FindSig (25): one without a blob, one whose blob is not in the pool.
    { le64 $SCOPE; le32 285212674; le64 $((FTN + 1)); le64 $SCOPE; le32 285212675; le64 $((FTN + 1)); } >"$T/k"
    { sig 0 0 1 0 0 0 $NONE 0 $NONE 0 $NONE 0 0 $SCOPE 285212674
      sig 0 0 1 0 0 0 $NONE 0 $NONE 0 $NONE 3 0 $SCOPE 285212675; } >"$T/v"
    : >"$T/p"
    packet 25 LWM1 2 "$T/k" "$T/v" "$T/p"

    # GetMethodInfo (74): one call that succeeded (IL 02 2A in its pool), one that failed.
    { le64 $FTN; le64 $FTN; le64 $((0x8000)); le64 $((0x8001)); } >"$T/k"
    { le64 $FTN; le64 $SCOPE; le32 4; le32 2; le32 8; le32 0; le32 16; le32 0
      sig 0 0 1 0 0 0 $NONE 0 $NONE 0 $NONE 0 0 $SCOPE 0
      sig 0 0 0 0 0 0 $NONE 0 $NONE 0 $NONE 0 0 $SCOPE 0
      hex 01; le32 0
      zeros 208; hex 00; le32 $((0x80004005)); } >"$T/v"
    { le32 2; hex 02 2a; } >"$T/p"
    packet 74 LWM1 2 "$T/k" "$T/v" "$T/p"

    names 6 "$FTN=Scale"
    names 149 "$CLS=Geometry" "$POINT=Point"

    # CR ProcessName (121): dense, the command line.
    le32 4 >"$T/v"; : >"$T/k"
    { le32 9; printf 'test.exe\0'; } >"$T/p"
    packet 121 DWM1 1 "$T/k" "$T/v" "$T/p"
} >"$T/packets"
{
    hex 6d 63
    le32 "$(wc -c <"$T/packets")"
    cat "$T/packets"
    hex 34 32
} >"$T/d.mch"
ok_run "the hand-made context passes -integ" "$M" -integ --jit-ee B "$T/d.mch"

# ---- The verbs against their goldens ----
check() { # NAME GOLDEN VERB...: the verb's stdout is the golden file
    local name=$1 golden=$2
    shift 2
    ok_run "$name runs" "$M" "$@"
    if [ "${MCS_GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/out" "$G/$golden"; fi
    same "$name prints SuperPMI's text ($golden)" "$G/$golden" "$T/out"
}
check "-dump -simple" dump_text.dump.txt -dump -simple --jit-ee B "$T/d.mch"
check "-ildump" dump_text.ildump.txt -ildump --jit-ee B "$T/d.mch"
contains "-ildump reports the opcode SuperPMI does not know" "$T/err" \
    "unknown ilCode 0x24 at offset 43"
check "-jitflags" dump_text.jitflags.txt -jitflags --jit-ee B "$T/d.mch"

# The archive prints the same (it records B: no --jit-ee needed).
"$M" -convert --jit-ee B "$T/d.mch" "$T/d.mcz" >/dev/null 2>&1
ok_run "-dump -simple of the archive" "$M" -dump -simple "$T/d.mcz"
same "-dump: the archive prints the same" "$G/dump_text.dump.txt" "$T/out"

# Each verb's --help says how it differs from SuperPMI's.
for v in -dump -ildump; do
    ok_run "$v --help" "$M" "$v" --help
    contains "$v --help says where mcz differs" "$T/out" "Where mcz differs"
done

cli_done
