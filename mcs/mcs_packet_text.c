/* mcs_packet_text.c - SuperPMI's per-packet dump texts (mcs_packet_text.h). */
#include <inttypes.h>
#include <string.h>

#include "mcs_packet_text.h"
#include "mcz_agnostic.h"

/* What a printer reads: the item's map (its pool) and the context's SigInstHandleMap. */
typedef struct dump_ctx {
    FILE *f;
    const char *name; /* the packet's */
    const mcz_jit_ee *v; /* the collection's: its CorInfoType numbering */
    const mcz_mc *mc;
    const mcz_map *map;
    mcz_map inst;
    bool have_inst;
} dump_ctx;

/* ============================================================================================ */
/* SpmiDumpHelper's pieces                                                                      */
/* ============================================================================================ */

enum {
    HANDLES_SHOWN_MAX = 5, /* FormatHandleArray: maxHandleArrayDisplayElems */
    SIG_BYTES_SHOWN_MAX = 25 /* DumpPSig: maxSigDisplayBytes */
};

/* FormatHandleArray: "{H1 H2 ...}" from SigInstHandleMap, at most five, " ..." when more. */
static void print_handles(const dump_ctx *c, uint32_t count, uint32_t start)
{
    uint32_t shown = count < HANDLES_SHOWN_MAX ? count : HANDLES_SHOWN_MAX;
    fputc('{', c->f);
    for (uint32_t i = 0; i < shown; i++) {
        bool inside = c->have_inst && start < c->inst.count && i < c->inst.count - start;
        if (!inside) {
            fprintf(c->f, "%s%s", i ? " " : "", MCS_UNKNOWN);
            break;
        }
        fprintf(c->f, "%s%016" PRIX64, i ? " " : "",
                mcz_get_le64(mcz_map_value(&c->inst, start + i)));
    }
    if (shown < count)
        fputs(" ...", c->f);
    fputc('}', c->f);
}

/* FormatAgnostic_CORINFO_SIG_INST_Element: "PREFIXcc-N ci-I {handles}". */
static void print_inst(const dump_ctx *c, const char *prefix, const char *count_name,
                       const char *index_name, const uint8_t *count_at, const uint8_t *index_at)
{
    uint32_t count = mcz_get_le32(count_at), index = mcz_get_le32(index_at);
    fprintf(c->f, "%s%s-%" PRIu32 " %s-%" PRIu32 " ", prefix, count_name, count, index_name, index);
    print_handles(c, count, index);
}

/* DumpPSig: "cbSig-N, si-IIIIIIII" and the first bytes of the blob. */
static void print_psig(const dump_ctx *c, uint32_t index, uint32_t cb)
{
    const uint8_t *sig;
    uint32_t len;
    fprintf(c->f, "cbSig-%" PRIu32 ", si-%08" PRIX32, cb, index);
    if (cb == 0) {
        fputs(" (SIG SIZE ZERO)", c->f);
        return;
    }
    if (mcz_map_buffer(c->map, index, &sig, &len) != MCZ_OK) {
        fputs(" (NO SIG FOUND)", c->f);
        return;
    }
    uint32_t shown = cb < SIG_BYTES_SHOWN_MAX ? cb : SIG_BYTES_SHOWN_MAX;
    fputs(" sig-{", c->f);
    for (uint32_t i = 0; i < shown && i < len; i++)
        fprintf(c->f, "%s%02X", i ? " " : "", sig[i]);
    if (shown < cb)
        fputs("...", c->f);
    fputc('}', c->f);
}

/* DumpAgnostic_CORINFO_SIG_INFO. */
static void print_sig(const dump_ctx *c, const uint8_t *s)
{
    fprintf(c->f,
            "{callConv-%08" PRIX32 " retTypeClass-%016" PRIX64 " retTypeSigClass-%016" PRIX64
            " retType-%08" PRIX32 "(",
            mcz_get_le32(s + MCZ_SIG_CALL_CONV), mcz_get_le64(s + MCZ_SIG_RET_TYPE_CLASS),
            mcz_get_le64(s + MCZ_SIG_RET_TYPE_SIG_CLASS), mcz_get_le32(s + MCZ_SIG_RET_TYPE));
    mcs_print_prim(c->f, c->v, c->mc, mcz_get_le32(s + MCZ_SIG_RET_TYPE), mcz_get_le64(s + MCZ_SIG_RET_TYPE_CLASS));
    fprintf(c->f, ") flg-%08" PRIX32 " na-%" PRIu32, mcz_get_le32(s + MCZ_SIG_FLAGS),
            mcz_get_le32(s + MCZ_SIG_NUM_ARGS));
    print_inst(c, " ", "cc", "ci", s + MCZ_SIG_CLASS_INST_COUNT, s + MCZ_SIG_CLASS_INST_INDEX);
    print_inst(c, " ", "mc", "mi", s + MCZ_SIG_METH_INST_COUNT, s + MCZ_SIG_METH_INST_INDEX);
    fprintf(c->f, " args-%016" PRIX64 " sig-", mcz_get_le64(s + MCZ_SIG_ARGS));
    print_psig(c, mcz_get_le32(s + MCZ_SIG_PSIG_INDEX), mcz_get_le32(s + MCZ_SIG_CB_SIG));
    fprintf(c->f, " msig-%016" PRIX64 " scp-%016" PRIX64 " tok-%08" PRIX32 "}",
            mcz_get_le64(s + MCZ_SIG_METHOD_SIGNATURE), mcz_get_le64(s + MCZ_SIG_SCOPE),
            mcz_get_le32(s + MCZ_SIG_TOKEN));
}

/* toString(CorInfoTypeWithMod): "pinned " only for a pinned byref or class. */
static void print_type_with_mod(const dump_ctx *c, uint32_t with_mod, uint64_t cls)
{
    uint32_t type = with_mod & MCZ_TYPE_MASK;
    int named = mcz_jit_ee_type(c->v, type);
    if ((with_mod & MCZ_TYPE_PINNED) && (named == MCZ_TYPE_BYREF || named == MCZ_TYPE_CLASS))
        fputs("pinned ", c->f);
    mcs_print_prim(c->f, c->v, c->mc, type, cls);
}

/* ============================================================================================ */
/* The packets                                                                                  */
/* ============================================================================================ */

/* The METHOD_INFO fields CompileMethod and GetMethodInfo print alike, but for the options:
 * decimal in one, eight hex digits in the other. */
static void print_method_info(const dump_ctx *c, const uint8_t *mi, bool options_hex)
{
    fprintf(c->f,
            "ftn-%016" PRIX64 " scp-%016" PRIX64 " ilo-%" PRIu32 " ils-%" PRIu32 " ms-%" PRIu32
            " ehc-%" PRIu32 " ",
            mcz_get_le64(mi + MCZ_MI_FTN), mcz_get_le64(mi + MCZ_MI_SCOPE),
            mcz_get_le32(mi + MCZ_MI_IL_OFFSET), mcz_get_le32(mi + MCZ_MI_IL_SIZE),
            mcz_get_le32(mi + MCZ_MI_MAX_STACK), mcz_get_le32(mi + MCZ_MI_EH_COUNT));
    uint32_t options = mcz_get_le32(mi + MCZ_MI_OPTIONS);
    if (options_hex)
        fprintf(c->f, "opt-%08" PRIX32, options);
    else
        fprintf(c->f, "opt-%" PRIu32, options);
    fprintf(c->f, " rk-%" PRIu32 " args-", mcz_get_le32(mi + MCZ_MI_REGION_KIND));
    print_sig(c, mi + MCZ_MI_ARGS);
    fputs(" locals-", c->f);
    print_sig(c, mi + MCZ_MI_LOCALS);
}

/* dmpCompileMethod (a 212-byte value predates the os field). */
static void print_compile_method(const dump_ctx *c, const uint8_t *k, const uint8_t *v,
                                 uint32_t value_size)
{
    fprintf(c->f, "CompileMethod key %" PRIu32 ", value ", mcz_get_le32(k));
    print_method_info(c, v, false);
    fprintf(c->f, " flg-%08" PRIX32 " os-", mcz_get_le32(v + MCZ_CM_FLAGS));
    if (value_size >= MCZ_CM_SIZE)
        fprintf(c->f, "%" PRIu32, mcz_get_le32(v + MCZ_CM_OS));
    else
        fputs(MCS_UNKNOWN, c->f);
}

/* Agnostic_GetMethodInfo: METHOD_INFO, bool result, u32 exceptionCode. */
enum { GMI_RESULT = MCZ_MI_SIZE, GMI_EXCEPTION = MCZ_MI_SIZE + 1, GMI_SIZE = MCZ_MI_SIZE + 5 };

/* dmpGetMethodInfo: the method info only when the call succeeded. */
static void print_get_method_info(const dump_ctx *c, const uint8_t *k, const uint8_t *v,
                                  uint32_t value_size)
{
    (void)value_size;
    fprintf(c->f, "GetMethodInfo key ftn-%016" PRIX64 " ctx-%016" PRIX64 ", value res-%u ",
            mcz_get_le64(k), mcz_get_le64(k + 8), v[GMI_RESULT]);
    if (v[GMI_RESULT]) {
        print_method_info(c, v, true);
        fputc(' ', c->f);
    }
    fprintf(c->f, "excp-%08" PRIX32, mcz_get_le32(v + GMI_EXCEPTION));
}

enum { JIT_FLAGS_ISA_WORDS = 2 }; /* the instruction-set words of x64's CORJIT_FLAGS */

/* dmpGetJitFlags: the stored CORJIT_FLAGS (bytes not stored read as zeros), then the name of
 * every set flag bit. */
static void print_jit_flags(const dump_ctx *c, const uint8_t *k, const uint8_t *v,
                            uint32_t value_size)
{
    (void)value_size;
    uint8_t flags[8 * (1 + JIT_FLAGS_ISA_WORDS)] = {0};
    const uint8_t *raw;
    uint32_t len;
    fprintf(c->f, "GetJitFlags key %" PRIu32 " sizeInBytes-%" PRIu32, mcz_get_le32(k),
            mcz_get_le32(v + MCS_DD_B));
    if (mcz_map_buffer(c->map, mcz_get_le32(v + MCS_DD_A), &raw, &len) != MCZ_OK) {
        fputs(" jitFlags-" MCS_UNKNOWN, c->f);
        return;
    }
    memcpy(flags, raw, len < sizeof flags ? len : sizeof flags);
    uint64_t jit = mcz_get_le64(flags);
    fprintf(c->f, " jitFlags-%016" PRIX64 " instructionSetFlags-", jit);
    for (int w = JIT_FLAGS_ISA_WORDS; w >= 1; w--)
        fprintf(c->f, "%016" PRIX64, mcz_get_le64(flags + 8 * w));
    fputs(" (", c->f);
    for (unsigned b = 0; b < 64; b++) {
        if (!(jit >> b & 1))
            continue;
        const char *name = mcs_jit_flag_name(b);
        fprintf(c->f, name ? " CORJIT_FLAG_%s" : " <unknown>", name);
    }
    fputs(" )", c->f);
}

/* dmpGetMethodSig: key DLDL (ftn, memberParent). */
static void print_get_method_sig(const dump_ctx *c, const uint8_t *k, const uint8_t *v,
                                 uint32_t value_size)
{
    (void)value_size;
    fprintf(c->f, "GetMethodSig key ftn-%016" PRIX64 " prt-%016" PRIX64 ", value-", mcz_get_le64(k),
            mcz_get_le64(k + 8));
    print_sig(c, v);
}

/* dmpFindSig: key Agnostic_FindSig (u64 module, u32 sigTOK, u64 context). */
static void print_find_sig(const dump_ctx *c, const uint8_t *k, const uint8_t *v,
                           uint32_t value_size)
{
    (void)value_size;
    fprintf(c->f, "FindSig key module-%016" PRIX64 " sigTOK-%08" PRIX32 " context-%016" PRIX64
            ", value-", mcz_get_le64(k), mcz_get_le32(k + 8), mcz_get_le64(k + 12));
    print_sig(c, v);
}

/* dmpGetArgType. */
static void print_get_arg_type(const dump_ctx *c, const uint8_t *k, const uint8_t *v,
                               uint32_t value_size)
{
    (void)value_size;
    fprintf(c->f, "GetArgType key flg-%08" PRIX32 " na-%" PRIu32 " ", mcz_get_le32(k + MCZ_AT_KEY_FLAGS),
            mcz_get_le32(k + MCZ_AT_KEY_NUM_ARGS));
    print_inst(c, "", "cc", "ci", k + MCZ_AT_KEY_CLASS_INST_COUNT, k + MCZ_AT_KEY_CLASS_INST_INDEX);
    fputc(' ', c->f);
    print_inst(c, "", "mc", "mi", k + MCZ_AT_KEY_METH_INST_COUNT, k + MCZ_AT_KEY_METH_INST_INDEX);
    fprintf(c->f, " msig-%016" PRIX64 " scp-%016" PRIX64 " arg-%016" PRIX64,
            mcz_get_le64(k + MCZ_AT_KEY_METHOD_SIGNATURE), mcz_get_le64(k + MCZ_AT_KEY_SCOPE),
            mcz_get_le64(k + MCZ_AT_KEY_ARGS));
    uint32_t result = mcz_get_le32(v + MCZ_AT_VALUE_RESULT);
    uint64_t cls = mcz_get_le64(v + MCZ_AT_VALUE_VC_TYPE_RET);
    fprintf(c->f, ", value result(cit)-%" PRIu32 "(", result);
    print_type_with_mod(c, result, cls);
    fprintf(c->f, ") vcType-%016" PRIX64 " excp-%08" PRIX32, cls,
            mcz_get_le32(v + MCZ_AT_VALUE_EXCEPTION));
}

/* dmpGetArgClass. */
static void print_get_arg_class(const dump_ctx *c, const uint8_t *k, const uint8_t *v,
                                uint32_t value_size)
{
    (void)value_size;
    fputs("GetArgClass key ", c->f);
    print_inst(c, "", "cc", "ci", k + MCZ_AC_KEY_CLASS_INST_COUNT, k + MCZ_AC_KEY_CLASS_INST_INDEX);
    fputc(' ', c->f);
    print_inst(c, "", "mc", "mi", k + MCZ_AC_KEY_METH_INST_COUNT, k + MCZ_AC_KEY_METH_INST_INDEX);
    fprintf(c->f, " msig-%016" PRIX64 " scp-%016" PRIX64 " args-%016" PRIX64
            ", value %016" PRIX64 " excp-%08" PRIX32,
            mcz_get_le64(k + MCZ_AC_KEY_METHOD_SIGNATURE), mcz_get_le64(k + MCZ_AC_KEY_SCOPE),
            mcz_get_le64(k + MCZ_AC_KEY_ARGS), mcz_get_le64(v + MCZ_AC_VALUE_CLASS),
            mcz_get_le32(v + MCZ_AC_VALUE_EXCEPTION));
}

/* dmpPrint, shared by PrintMethodName, PrintClassName, PrintFieldName and
 * PrintObjectDescription: the sizes, not the string. */
static void print_print_result(const dump_ctx *c, const uint8_t *k, const uint8_t *v,
                               uint32_t value_size)
{
    (void)value_size;
    fprintf(c->f, "%s key hnd-%016" PRIX64 ", stringBufferSize-%" PRIu32
            ", requiredBufferSize-%" PRIu32, c->name, mcz_get_le64(k), mcz_get_le32(v + MCZ_PR_BUFFER_SIZE),
            mcz_get_le32(v + MCZ_PR_REQUIRED_SIZE));
}

typedef void (*item_printer)(const dump_ctx *c, const uint8_t *key, const uint8_t *value,
                             uint32_t value_size);

/* Packets with their own printer: key size, value size (and an older value size, or 0). */
static const struct {
    const char *name;
    uint32_t key_size, value_size, old_value_size;
    item_printer print;
} layouts[] = {
    {"CompileMethod", 4, MCZ_CM_SIZE, MCZ_CM_SIZE_NO_OS, print_compile_method},
    {"GetMethodInfo", 16, GMI_SIZE, 0, print_get_method_info},
    {"GetJitFlags", 4, MCZ_DD_SIZE, 0, print_jit_flags},
    {"GetMethodSig", 16, MCZ_SIG_SIZE, 0, print_get_method_sig},
    {"FindSig", 20, MCZ_SIG_SIZE, 0, print_find_sig},
    {"GetArgType", MCZ_AT_KEY_SIZE, MCZ_AT_VALUE_SIZE, 0, print_get_arg_type},
    {"GetArgClass", MCZ_AC_KEY_SIZE, MCZ_AC_VALUE_SIZE, 0, print_get_arg_class},
    {"PrintMethodName", 8, MCZ_PR_SIZE, 0, print_print_result},
    {"PrintClassName", 8, MCZ_PR_SIZE, 0, print_print_result},
    {"PrintFieldName", 8, MCZ_PR_SIZE, 0, print_print_result},
    {"PrintObjectDescription", 8, MCZ_PR_SIZE, 0, print_print_result},
};

/* ============================================================================================ */
/* Packets of one handle (or number) and one value                                              */
/* ============================================================================================ */

/* How a scalar prints: its size follows from the format. */
typedef enum scalar { U32_DEC, U32_SIGNED, U32_HEX, U64_HEX } scalar;

static uint32_t scalar_size(scalar s)
{
    return s == U64_HEX ? 8 : 4;
}

static void print_scalar(FILE *f, scalar s, const uint8_t *p)
{
    switch (s) {
    case U32_DEC: fprintf(f, "%" PRIu32, mcz_get_le32(p)); break;
    case U32_SIGNED: fprintf(f, "%" PRId32, (int32_t)mcz_get_le32(p)); break;
    case U32_HEX: fprintf(f, "%08" PRIX32, mcz_get_le32(p)); break;
    case U64_HEX: fprintf(f, "%016" PRIX64, mcz_get_le64(p)); break;
    }
}

/* "BEFORE_KEY<key>BEFORE_VALUE<value>AFTER", as each dmp function's format string has it. A
 * dense map's key is the item's index, a u32 printed with `key`'s format. */
static const struct {
    const char *name, *before_key;
    scalar key;
    const char *before_value;
    scalar value;
    const char *after;
} scalars[] = {
    {"GetMethodClass", "GetMethodClass key ", U64_HEX, ", value ", U64_HEX, ""},
    {"GetArgNext", "GetArgNext key ", U64_HEX, ", value ", U64_HEX, ""},
    {"IsIntrinsic", "IsIntrinsic key ftn-", U64_HEX, ", value res-", U32_DEC, ""},
    {"NotifyMethodInfoUsage", "NotifyMethodInfoUsage key ftn-", U64_HEX, ", value res-", U32_DEC,
     ""},
    {"IsIntrinsicType", "IsIntrinsicType key mth-", U64_HEX, ", value intr-", U32_DEC, ""},
    {"IsValueClass", "IsValueClass key cls-", U64_HEX, ", value res-", U32_DEC, ""},
    {"GetClassSize", "GetClassSize key ", U64_HEX, ", value ", U32_DEC, ""},
    {"GetHeapClassSize", "GetHeapClassSize key ", U64_HEX, ", value ", U32_DEC, ""},
    {"CanAllocateOnStack", "CanAllocateOnStack key ", U64_HEX, ", value ", U32_DEC, ""},
    {"GetClassNumInstanceFields", "GetClassNumInstanceFields key cls-", U64_HEX, ", value res-",
     U32_DEC, ""},
    {"GetNewArrHelper", "GetNewArrHelper key cls-", U64_HEX, ", value res-", U32_DEC, ""},
    {"GetSharedCCtorHelper", "GetSharedCCtorHelper key cls-", U64_HEX, ", value res-", U32_DEC, ""},
    {"GetTypeForBox", "GetTypeForBox key cls-", U64_HEX, ", value res-", U64_HEX, ""},
    {"GetBoxHelper", "GetBoxHelper key cls-", U64_HEX, ", value res-", U32_DEC, ""},
    {"GetBuiltinClass", "GetBuiltinClass key cls-", U32_HEX, ", value cls-", U64_HEX, ""},
    {"GetParentType", "GetParentType key cls-", U64_HEX, ", value cls-", U64_HEX, ""},
    {"IsSDArray", "IsSDArray key cls-", U64_HEX, ", value res-", U32_DEC, ""},
    {"GetFieldClass", "GetFieldClass key ", U64_HEX, ", value ", U64_HEX, ""},
    {"GetFieldOffset", "GetFieldOffset key FLD-", U64_HEX, ", value ", U32_HEX, ""},
    {"GetUnBoxHelper", "GetUnBoxHelper key cls-", U64_HEX, ", value res-", U32_DEC, ""},
    {"GetRuntimeTypePointer", "GetRuntimeTypePointer key cls-", U64_HEX, ", value res-", U64_HEX,
     ""},
    {"IsObjectImmutable", "IsObjectImmutable key obj-", U64_HEX, ", value res-", U32_DEC, ""},
    {"GetObjectType", "GetObjectType key obj-", U64_HEX, ", value res-", U64_HEX, ""},
    {"GetTypeDefinition", "GetTypeDefinition key cls-", U64_HEX, ", value cls-", U64_HEX, ""},
    {"GetDefaultComparerClass", "GetDefaultComparerClass key cls-", U64_HEX, ", value cls-",
     U64_HEX, ""},
    {"GetDefaultEqualityComparerClass", "GetDefaultEqualityComparerClass key cls-", U64_HEX,
     ", value cls-", U64_HEX, ""},
    {"IsExactType", "IsExactType key cls-", U64_HEX, ", value res-", U32_DEC, ""},
    {"IsGenericType", "IsGenericType key cls-", U64_HEX, ", value res-", U32_SIGNED, ""},
    {"IsNullableType", "IsNullableType key cls-", U64_HEX, ", value res-", U32_SIGNED, ""},
    {"GetArrayRank", "GetArrayRank key ", U64_HEX, ", value ", U32_DEC, ""},
    {"GetArrayIntrinsicID", "GetArrayIntrinsicID key ", U64_HEX, ", value ", U32_DEC, ""},
    {"IsFieldStatic", "IsFieldStatic key ", U64_HEX, ", value ", U32_DEC, ""},
    {"GetArrayOrStringLength", "GetArrayOrStringLength key ", U64_HEX, ", value ", U32_DEC, ""},
    {"GetMethodDefFromMethod", "GetMethodDefFromMethod key ftn-", U64_HEX, ", value res-", U32_DEC,
     ""},
    {"GetHFAType", "GetHFAType key ", U64_HEX, ", value ", U32_DEC, " "},
    {"GetSpecialCopyHelper", "getSpecialCopyHelper key ", U64_HEX, ", value ", U64_HEX, ""},
    {"CanValueClassInstancePointerEscape", "CanValueClassInstancePointerEscape key ftn-", U64_HEX,
     ", value res-", U32_DEC, ""},
    {"SigInstHandleMap", "SigInstHandleMap key ", U32_DEC, ", value ", U64_HEX, ""},
};

/* ============================================================================================ */

/* Key i and value i of a sparse map: all keys come first, then all values. */
static void item_at(const mcz_map *m, uint32_t i, uint32_t key_size, const uint8_t **key,
                    const uint8_t **value)
{
    *key = m->items + (size_t)i * key_size;
    *value = m->items + (size_t)m->count * key_size + (size_t)i * (m->item_size - key_size);
}

static bool print_layout(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, size_t l,
                         const mcz_map *m, uint32_t i)
{
    uint32_t key_size = layouts[l].key_size, value_size = m->item_size - key_size;
    if (m->item_size < key_size ||
        (value_size != layouts[l].value_size && value_size != layouts[l].old_value_size))
        return false;
    dump_ctx c = {.f = f, .name = layouts[l].name, .v = v, .mc = mc, .map = m};
    c.have_inst = mcs_map_of(mc, MCZ_PACKET_SIG_INST_HANDLE_MAP, &c.inst, NULL) == 1 &&
                  c.inst.dense && c.inst.item_size == 8;
    const uint8_t *key, *value;
    item_at(m, i, key_size, &key, &value);
    layouts[l].print(&c, key, value, value_size);
    return true;
}

static bool print_scalars(FILE *f, size_t s, const mcz_map *m, uint32_t i)
{
    uint32_t key_size = m->dense ? 0 : scalar_size(scalars[s].key);
    if (m->item_size != key_size + scalar_size(scalars[s].value) ||
        (m->dense && scalar_size(scalars[s].key) != 4))
        return false;
    uint8_t index[4];
    const uint8_t *key, *value;
    item_at(m, i, key_size, &key, &value);
    if (m->dense) {
        key = index;
        for (int b = 0; b < 4; b++)
            index[b] = (uint8_t)(i >> (8 * b));
    }
    fputs(scalars[s].before_key, f);
    print_scalar(f, scalars[s].key, key);
    fputs(scalars[s].before_value, f);
    print_scalar(f, scalars[s].value, value);
    fputs(scalars[s].after, f);
    return true;
}

bool mcs_packet_text(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, const char *name,
                     const mcz_map *m, uint32_t i)
{
    if (i >= m->count)
        return false;
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
        if (strcmp(layouts[l].name, name) == 0)
            return !m->dense && print_layout(f, v, mc, l, m, i);
    for (size_t s = 0; s < sizeof scalars / sizeof scalars[0]; s++)
        if (strcmp(scalars[s].name, name) == 0)
            return print_scalars(f, s, m, i);
    return false;
}
