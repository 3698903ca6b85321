/* mcs_context.c - SuperPMI's replay lookups, as the printing verbs need them (mcs_context.h). */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_context.h"
#include "mcz_agnostic.h"

#define PRIM_DEPTH_MAX 8 /* array element types nested deeper than this print as unknown */
#define INST_SEARCH_BUDGET (1u << 26) /* handles compared while looking for a run */

/* ============================================================================================ */
/* Maps                                                                                         */
/* ============================================================================================ */

int mcs_map_of(const mcz_mc *mc, uint8_t id, mcz_map *out, mcz_diag *d)
{
    uint32_t pos = 0;
    mcz_packet p, last;
    int rc, found = 0;
    while ((rc = mcz_packet_next(mc, &pos, &p, d)) == 1) {
        if (p.id == id) {
            last = p;
            found = 1;
        }
    }
    if (rc < 0)
        return rc;
    if (!found)
        return 0;
    rc = mcz_map_parse(NULL, &last, out, d); /* the sizes mcs reads agree in every version */
    if (rc != MCZ_OK && d && d->offset >= 0)
        d->offset += (int64_t)mc->offset; /* the parser's offsets are relative to the context */
    return rc == MCZ_OK ? 1 : rc;
}

const uint8_t *mcs_find_u32(const mcz_map *m, uint32_t key)
{
    uint8_t k[4];
    mcz_put_le32(k, key);
    return mcz_map_find(m, k, sizeof k);
}

const uint8_t *mcs_find_u64(const mcz_map *m, uint64_t key)
{
    uint8_t k[8];
    mcz_put_le64(k, key);
    return mcz_map_find(m, k, sizeof k);
}

/* A value of at least min bytes for a u64 key of packet id, or NULL. */
static const uint8_t *lookup_u64(const mcz_mc *mc, uint8_t id, uint64_t key, uint32_t min,
                                 mcz_map *m)
{
    if (mcs_map_of(mc, id, m, NULL) != 1 || m->value_size < min)
        return NULL;
    return mcs_find_u64(m, key);
}

/* ============================================================================================ */
/* CompileMethod and the JIT flags                                                              */
/* ============================================================================================ */

int mcs_method_load(const mcz_mc *mc, mcs_method *m, mcz_diag *d)
{
    int rc = mcs_map_of(mc, MCZ_PACKET_COMPILE_METHOD, &m->map, d);
    if (rc <= 0)
        return rc;
    /* The table leaves the value size open (212 or 216 bytes): the key is a u32. */
    if (m->map.dense || m->map.item_size < 4 + MCZ_CM_SIZE_NO_OS)
        return 0;
    m->map.key_size = 4;
    m->map.value_size = m->map.item_size - 4;
    m->info = mcs_find_u32(&m->map, 0);
    m->has_os = m->map.value_size >= MCZ_CM_SIZE;
    return m->info ? 1 : 0;
}

bool mcs_method_il(const mcs_method *m, const uint8_t **il, uint32_t *size)
{
    uint32_t len = 0;
    *size = mcz_get_le32(m->info + MCZ_MI_IL_SIZE);
    *il = NULL;
    if (*size == 0)
        return true;
    return mcz_map_buffer(&m->map, mcz_get_le32(m->info + MCZ_MI_IL_OFFSET), il, &len) == MCZ_OK &&
           len >= *size;
}

/* The PGO pseudo-flags mcs ORs in (EXTRA_JIT_FLAGS). */
enum {
    EXTRA_HAS_PGO = 63,
    EXTRA_HAS_EDGE_PROFILE = 62,
    EXTRA_HAS_CLASS_PROFILE = 61,
    EXTRA_HAS_LIKELY_CLASS = 60,
    EXTRA_HAS_STATIC_PROFILE = 59,
    EXTRA_HAS_DYNAMIC_PROFILE = 58,
    EXTRA_HAS_METHOD_PROFILE = 57,
    EXTRA_HAS_LIKELY_METHOD = 56
};

enum { PGO_SOURCE_STATIC = 1, PGO_SOURCE_DYNAMIC = 2 };

static uint64_t bit(unsigned n)
{
    return (uint64_t)1 << n;
}

static uint64_t pgo_kind_flag(uint32_t kind)
{
    switch (kind) {
    case MCZ_PGO_KIND_EDGE_INT_COUNT:
    case MCZ_PGO_KIND_EDGE_LONG_COUNT: return bit(EXTRA_HAS_EDGE_PROFILE);
    case MCZ_PGO_KIND_HANDLE_HISTOGRAM_TYPES: return bit(EXTRA_HAS_CLASS_PROFILE);
    case MCZ_PGO_KIND_HANDLE_HISTOGRAM_METHODS: return bit(EXTRA_HAS_METHOD_PROFILE);
    case MCZ_PGO_KIND_LIKELY_CLASS: return bit(EXTRA_HAS_LIKELY_CLASS);
    case MCZ_PGO_KIND_LIKELY_METHOD: return bit(EXTRA_HAS_LIKELY_METHOD);
    default: return 0;
    }
}

/* MethodContext::hasPgoData for the method being compiled: its pseudo-flags, 0 without data. */
static uint64_t pgo_flags(const mcz_mc *mc)
{
    mcs_method method;
    mcz_map m;
    if (mcs_method_load(mc, &method, NULL) != 1)
        return 0;
    const uint8_t *v = lookup_u64(mc, MCZ_PACKET_GET_PGO_RESULTS,
                                  mcz_get_le64(method.info + MCZ_MI_FTN), MCZ_PGO_SOURCE + 4, &m);
    if (!v || (int32_t)mcz_get_le32(v + MCZ_PGO_RESULT) < 0)
        return 0;
    uint64_t flags = bit(EXTRA_HAS_PGO);
    uint32_t count = mcz_get_le32(v + MCZ_PGO_COUNT_SCHEMA_ITEMS), len = 0;
    const uint8_t *schema = NULL;
    if (mcz_map_buffer(&m, mcz_get_le32(v + MCZ_PGO_SCHEMA_INDEX), &schema, &len) == MCZ_OK) {
        for (uint32_t i = 0; i < count && (uint64_t)(i + 1) * MCZ_PGOS_SIZE <= len; i++)
            flags |= pgo_kind_flag(
                mcz_get_le32(schema + (size_t)i * MCZ_PGOS_SIZE + MCZ_PGOS_KIND));
    }
    uint32_t source = mcz_get_le32(v + MCZ_PGO_SOURCE);
    if (source == PGO_SOURCE_STATIC)
        flags |= bit(EXTRA_HAS_STATIC_PROFILE);
    else if (source == PGO_SOURCE_DYNAMIC)
        flags |= bit(EXTRA_HAS_DYNAMIC_PROFILE);
    return flags;
}

int mcs_jit_flags(const mcz_mc *mc, uint64_t *flags, mcz_diag *d)
{
    mcz_map m;
    int rc = mcs_map_of(mc, MCZ_PACKET_GET_JIT_FLAGS, &m, d);
    if (rc <= 0)
        return rc;
    const uint8_t *dd = m.value_size >= MCZ_DD_SIZE ? mcs_find_u32(&m, 0) : NULL;
    const uint8_t *raw = NULL;
    uint32_t len = 0;
    if (!dd)
        return 0;
    /* repGetJitFlags copies the stored bytes over zeros: fewer than 8 leave high bits clear. */
    uint8_t word[8] = {0};
    uint32_t size = mcz_get_le32(dd + MCS_DD_B);
    if (size && mcz_map_buffer(&m, mcz_get_le32(dd + MCS_DD_A), &raw, &len) == MCZ_OK)
        memcpy(word, raw, size < len ? (size < 8 ? size : 8) : (len < 8 ? len : 8));
    *flags = mcz_get_le64(word) | pgo_flags(mc);
    return 1;
}

/* SpmiDumpHelper::DumpJitFlags' names, in its order: CORJIT_FLAGS bits, then mcs's PGO
 * pseudo-flags (EXTRA_JIT_FLAGS, never stored in a file). */
static const struct { const char *name; unsigned bit; } jit_flag_names[] = {
    {"SPEED_OPT", 0}, {"SIZE_OPT", 1}, {"DEBUG_CODE", 2}, {"DEBUG_EnC", 3},
    {"DEBUG_INFO", 4}, {"MIN_OPT", 5}, {"ENABLE_CFG", 6}, {"OSR", 7}, {"ALT_JIT", 8},
    {"FROZEN_ALLOC_ALLOWED", 9}, {"PORTABLE_ENTRY_POINTS", 10}, {"AOT", 11},
    {"PROF_ENTERLEAVE", 12}, {"PROF_NO_PINVOKE_INLINE", 13}, {"ASYNC", 14}, {"RELOC", 15},
    {"IL_STUB", 16}, {"PROCSPLIT", 17}, {"BBINSTR", 18}, {"BBINSTR_IF_LOOPS", 19},
    {"BBOPT", 20}, {"FRAMED", 21}, {"PUBLISH_SECRET_PARAM", 22},
    {"USE_PINVOKE_HELPERS", 23}, {"REVERSE_PINVOKE", 24}, {"TRACK_TRANSITIONS", 25},
    {"TIER0", 26}, {"TIER1", 27}, {"NO_INLINING", 28}, {"RELATIVE_CODE_RELOCS", 29},
    {"SOFTFP_ABI", 30}, {"USE_DISPATCH_HELPERS", 31},
    {"DYNAMIC_ISA_CHECKS", 32}, {"HAS_PGO", EXTRA_HAS_PGO},
    {"HAS_EDGE_PROFILE", EXTRA_HAS_EDGE_PROFILE},
    {"HAS_CLASS_PROFILE", EXTRA_HAS_CLASS_PROFILE},
    {"HAS_METHOD_PROFILE", EXTRA_HAS_METHOD_PROFILE},
    {"HAS_LIKELY_CLASS", EXTRA_HAS_LIKELY_CLASS},
    {"HAS_LIKELY_METHOD", EXTRA_HAS_LIKELY_METHOD},
    {"HAS_STATIC_PROFILE", EXTRA_HAS_STATIC_PROFILE},
    {"HAS_DYNAMIC_PROFILE", EXTRA_HAS_DYNAMIC_PROFILE},
};

const char *mcs_jit_flag_name(unsigned n)
{
    for (size_t i = 0; i < sizeof jit_flag_names / sizeof jit_flag_names[0]; i++)
        if (jit_flag_names[i].bit == n && n < EXTRA_HAS_LIKELY_METHOD)
            return jit_flag_names[i].name;
    return NULL;
}

void mcs_jit_flags_text(uint64_t flags, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof jit_flag_names / sizeof jit_flag_names[0]; i++) {
        if (!(flags & bit(jit_flag_names[i].bit)))
            continue;
        flags &= ~bit(jit_flag_names[i].bit);
        int n = snprintf(buf + len, cap - len, " %s", jit_flag_names[i].name);
        len += n > 0 && (size_t)n < cap - len ? (size_t)n : 0;
    }
    if (flags)
        snprintf(buf + len, cap - len, " Unknown jit flags-%016" PRIX64, flags);
}

/* ============================================================================================ */
/* Names and types                                                                              */
/* ============================================================================================ */

/* repPrint into a 256-byte buffer: min(255, stored) bytes of the stored string. */
bool mcs_print_name(const mcz_mc *mc, uint8_t id, uint64_t handle, char buf[MCS_NAME_SIZE])
{
    mcz_map m;
    const uint8_t *res = lookup_u64(mc, id, handle, MCZ_PR_SIZE, &m);
    const uint8_t *text = NULL;
    uint32_t stored = res ? mcz_get_le32(res + MCZ_PR_BUFFER_SIZE) : 0, len = 0;
    if (res && stored > 0 &&
        (mcz_map_buffer(&m, mcz_get_le32(res + MCZ_PR_BUFFER), &text, &len) != MCZ_OK ||
         len < stored))
        res = NULL;
    if (!res) {
        snprintf(buf, MCS_NAME_SIZE, "%s", MCS_UNKNOWN);
        return false;
    }
    size_t n = stored < MCS_NAME_SIZE - 1 ? stored : MCS_NAME_SIZE - 1;
    if (n)
        memcpy(buf, text, n);
    buf[n] = '\0';
    return true;
}

bool mcs_method_class_name(const mcz_mc *mc, uint64_t ftn, char buf[MCS_NAME_SIZE])
{
    mcz_map m;
    const uint8_t *cls = lookup_u64(mc, MCZ_PACKET_GET_METHOD_CLASS, ftn, 8, &m);
    if (!cls) {
        snprintf(buf, MCS_NAME_SIZE, "%s", MCS_UNKNOWN);
        return false;
    }
    return mcs_print_name(mc, MCZ_PACKET_PRINT_CLASS_NAME, mcz_get_le64(cls), buf);
}

enum {
    ATTR_STATIC = 0x8,
    ATTR_CONSTRUCTOR = 0x00800000,
    ATTR_DONT_INLINE = 0x10000000
};

/* DumpAttributeToConsoleBare: at most one attribute, the first that applies. */
void mcs_print_attributes(FILE *f, const mcz_mc *mc, uint64_t ftn)
{
    mcz_map m;
    const uint8_t *v = mcs_map_of(mc, MCZ_PACKET_GET_METHOD_ATTRIBS, &m, NULL) == 1 &&
                               m.value_size >= 4 ? mcs_find_u64(&m, ftn) : NULL;
    if (!v) {
        fputs(MCS_UNKNOWN " ", f);
        return;
    }
    uint32_t attr = mcz_get_le32(v);
    if (attr & ATTR_STATIC)
        fputs("static ", f);
    else if (attr & ATTR_DONT_INLINE)
        fputs("$dontInline  ", f);
    else if (attr & ATTR_CONSTRUCTOR)
        fputs("$constructor ", f);
}

enum { PACKET_GET_ARRAY_RANK = 32, PACKET_GET_CHILD_TYPE = 39 };

static void print_class(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, const char *kind,
                        uint64_t cls, int depth);

/* The body of DumpPrimToConsoleBare for a raw CorInfoType as v numbers it; depth bounds the
 * element-type recursion of arrays. */
static void print_prim(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, uint32_t raw,
                       uint64_t cls, int depth)
{
    static const char *const names[] = {
        [MCZ_TYPE_VOID] = "void", [MCZ_TYPE_BOOL] = "bool", [MCZ_TYPE_CHAR] = "char",
        [MCZ_TYPE_BYTE] = "int8", [MCZ_TYPE_UBYTE] = "unsigned int8",
        [MCZ_TYPE_SHORT] = "int16", [MCZ_TYPE_USHORT] = "unsigned int16",
        [MCZ_TYPE_INT] = "int32", [MCZ_TYPE_UINT] = "unsigned int32",
        [MCZ_TYPE_LONG] = "int64", [MCZ_TYPE_ULONG] = "unsigned int64",
        [MCZ_TYPE_NATIVEINT] = "native int", [MCZ_TYPE_NATIVEUINT] = "native unsigned int",
        [MCZ_TYPE_FLOAT] = "float32", [MCZ_TYPE_DOUBLE] = "float64", [MCZ_TYPE_PTR] = "ptr",
        [MCZ_TYPE_BYREF] = "byref", [MCZ_TYPE_REFANY] = "refany", [MCZ_TYPE_VAR] = "var",
    };
    int type = raw <= MCZ_TYPE_MASK ? mcz_jit_ee_type(v, raw) : -1;
    if (type == MCZ_TYPE_VALUECLASS || type == MCZ_TYPE_CLASS)
        print_class(f, v, mc, type == MCZ_TYPE_CLASS ? "class" : "valueclass", cls, depth);
    else if (type >= 0 && (size_t)type < sizeof names / sizeof names[0] && names[type])
        fputs(names[type], f);
    else
        fputs(MCS_UNKNOWN, f);
}

/* An array (GetArrayRank > 0) prints as its element type and "[,,]"; any other class as
 * "class NAME" / "valueclass NAME". */
static void print_class(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, const char *kind,
                        uint64_t cls, int depth)
{
    mcz_map m;
    const uint8_t *rank = lookup_u64(mc, PACKET_GET_ARRAY_RANK, cls, 4, &m);
    if (!rank || depth >= PRIM_DEPTH_MAX) {
        fputs(MCS_UNKNOWN, f);
        return;
    }
    uint32_t r = mcz_get_le32(rank);
    if (r == 0) {
        char name[MCS_NAME_SIZE];
        mcs_print_name(mc, MCZ_PACKET_PRINT_CLASS_NAME, cls, name);
        fprintf(f, "%s %s", kind, name);
        return;
    }
    const uint8_t *child = lookup_u64(mc, PACKET_GET_CHILD_TYPE, cls, MCZ_DLD_SIZE, &m);
    if (child)
        print_prim(f, v, mc, mcz_get_le32(child + 8), mcz_get_le64(child), depth + 1);
    else
        fputs(MCS_UNKNOWN, f);
    fputc('[', f);
    for (uint32_t i = 1; i < r && i < MCS_NAME_SIZE; i++)
        fputc(',', f);
    fputc(']', f);
}

void mcs_print_prim(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, uint32_t type, uint64_t cls)
{
    print_prim(f, v, mc, type, cls, 0);
}

/* SigInstHandleMap (184) as a view: dense u64 class handles. */
static bool inst_map(const mcz_mc *mc, mcz_map *m)
{
    return mcs_map_of(mc, MCZ_PACKET_SIG_INST_HANDLE_MAP, m, NULL) == 1 && m->dense &&
           m->item_size == 8;
}

void mcs_print_inst(FILE *f, const mcz_mc *mc, uint32_t count, uint32_t index)
{
    if (count == 0)
        return;
    mcz_map m;
    if (!inst_map(mc, &m) || index > m.count || count > m.count - index) {
        fprintf(f, "[%s]", MCS_UNKNOWN);
        return;
    }
    fputc('[', f);
    for (uint32_t i = 0; i < count; i++) {
        char name[MCS_NAME_SIZE];
        mcs_print_name(mc, MCZ_PACKET_PRINT_CLASS_NAME, mcz_get_le64(mcz_map_value(&m, index + i)),
                       name);
        fprintf(f, "%s%s", i ? ", " : "", name);
    }
    fputc(']', f);
}

/*
 * The index a GetArgType/GetArgClass key carries for a stored (count, index) pair: the first
 * position of the handle run in SigInstHandleMap (SpmiRecordsHelper::ContainsHandleMap), not the
 * stored index. MCZ_NULL_INDEX for an empty or unreadable run.
 */
static uint32_t inst_key_index(const mcz_mc *mc, const uint8_t *sig, unsigned count_at,
                               unsigned index_at)
{
    uint32_t count = mcz_get_le32(sig + count_at), stored = mcz_get_le32(sig + index_at);
    mcz_map m;
    if (count == 0 || !inst_map(mc, &m) || stored > m.count || count > m.count - stored)
        return MCZ_NULL_INDEX;
    size_t run = (size_t)count * 8;
    const uint8_t *want = m.items + (size_t)stored * 8;
    /* A plain search, with a bound on its work so that a hostile map cannot make it
     * quadratic; past the bound the stored index stands (it is where the run is). */
    uint64_t budget = INST_SEARCH_BUDGET;
    for (uint32_t at = 0; at < stored && budget >= count; at++, budget -= count)
        if (memcmp(m.items + (size_t)at * 8, want, run) == 0)
            return at;
    return stored;
}

/* A GetArgClass key is the tail of the GetArgType key for the same argument. */
_Static_assert(MCZ_AT_KEY_SIZE - MCZ_AT_KEY_CLASS_INST_COUNT == MCZ_AC_KEY_SIZE &&
                   MCZ_AT_KEY_ARGS - MCZ_AT_KEY_CLASS_INST_COUNT == MCZ_AC_KEY_ARGS,
               "GetArgClass key = GetArgType key from classInstCount on");

/* The GetArgType key's fields that come from the signature; the arg handle is set per
 * argument. */
static void arg_key_init(const mcz_mc *mc, const uint8_t *sig, uint8_t key[MCZ_AT_KEY_SIZE])
{
    memset(key, 0, MCZ_AT_KEY_SIZE);
    static const struct { unsigned at, from; } copied[] = {
        {MCZ_AT_KEY_FLAGS, MCZ_SIG_FLAGS},
        {MCZ_AT_KEY_NUM_ARGS, MCZ_SIG_NUM_ARGS},
        {MCZ_AT_KEY_CLASS_INST_COUNT, MCZ_SIG_CLASS_INST_COUNT},
        {MCZ_AT_KEY_METH_INST_COUNT, MCZ_SIG_METH_INST_COUNT}};
    for (size_t i = 0; i < sizeof copied / sizeof copied[0]; i++)
        memcpy(key + copied[i].at, sig + copied[i].from, 4);
    memcpy(key + MCZ_AT_KEY_METHOD_SIGNATURE, sig + MCZ_SIG_METHOD_SIGNATURE, 8);
    memcpy(key + MCZ_AT_KEY_SCOPE, sig + MCZ_SIG_SCOPE, 8);
    mcz_put_le32(key + MCZ_AT_KEY_CLASS_INST_INDEX,
             inst_key_index(mc, sig, MCZ_SIG_CLASS_INST_COUNT, MCZ_SIG_CLASS_INST_INDEX));
    mcz_put_le32(key + MCZ_AT_KEY_METH_INST_INDEX,
             inst_key_index(mc, sig, MCZ_SIG_METH_INST_COUNT, MCZ_SIG_METH_INST_INDEX));
}

/* One argument: "pinned " and its type. false when its GetArgType entry is missing. */
static bool print_arg(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc,
                      uint8_t key[MCZ_AT_KEY_SIZE], uint64_t arg)
{
    mcz_map types, classes;
    mcz_put_le64(key + MCZ_AT_KEY_ARGS, arg);
    const uint8_t *value = mcs_map_of(mc, MCZ_PACKET_GET_ARG_TYPE, &types, NULL) == 1
                               ? mcz_map_find(&types, key, MCZ_AT_KEY_SIZE) : NULL;
    if (!value || types.value_size < MCZ_AT_VALUE_SIZE)
        return false;
    uint32_t with_mod = mcz_get_le32(value + MCZ_AT_VALUE_RESULT);
    uint32_t type = with_mod & MCZ_TYPE_MASK;
    uint64_t cls = mcz_get_le64(value + MCZ_AT_VALUE_VC_TYPE_RET);
    if (mcz_jit_ee_type(v, type) == MCZ_TYPE_CLASS) {
        const uint8_t *c = mcs_map_of(mc, MCZ_PACKET_GET_ARG_CLASS, &classes, NULL) == 1
                               ? mcz_map_find(&classes, key + MCZ_AT_KEY_CLASS_INST_COUNT,
                                             MCZ_AC_KEY_SIZE) : NULL;
        cls = c && classes.value_size >= MCZ_AC_VALUE_SIZE ? mcz_get_le64(c + MCZ_AC_VALUE_CLASS)
                                                            : 0;
        if (!c) {
            fputs(MCS_UNKNOWN, f);
            return true;
        }
    }
    if (with_mod & MCZ_TYPE_PINNED)
        fputs("pinned ", f);
    print_prim(f, v, mc, type, cls, 0);
    return true;
}

void mcs_print_sig_args(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, const uint8_t *sig)
{
    uint32_t num_args = mcz_get_le32(sig + MCZ_SIG_NUM_ARGS);
    uint64_t arg = mcz_get_le64(sig + MCZ_SIG_ARGS);
    uint8_t key[MCZ_AT_KEY_SIZE];
    arg_key_init(mc, sig, key);
    mcz_map next;
    bool have_next = mcs_map_of(mc, MCZ_PACKET_GET_ARG_NEXT, &next, NULL) == 1;
    uint32_t i;
    for (i = 0; i < num_args; i++) {
        if (i > 0)
            fputs(", ", f);
        if (!print_arg(f, v, mc, key, arg)) {
            fputs(MCS_UNKNOWN, f);
            break;
        }
        const uint8_t *following = have_next ? mcs_find_u64(&next, arg) : NULL;
        if (!following)
            break;
        arg = mcz_get_le64(following);
    }
    /* Without an entry the walk cannot go on: say how many arguments are left. */
    if (i + 1 < num_args)
        fprintf(f, ", <%" PRIu32 " more>", num_args - i - 1);
}

const char *mcs_process_name(const mcz_mc *mc, char *buf, size_t cap)
{
    mcz_map m;
    const uint8_t *text = NULL;
    uint32_t len = 0;
    if (mcs_map_of(mc, MCZ_PACKET_CR_PROCESS_NAME, &m, NULL) != 1 || m.count == 0 ||
        m.item_size != 4 || !m.dense ||
        mcz_map_buffer(&m, mcz_get_le32(mcz_map_value(&m, 0)), &text, &len) != MCZ_OK)
        return NULL;
    size_t n = strnlen((const char *)text, len);
    n = n < cap - 1 ? n : cap - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return buf;
}

/* ============================================================================================ */
/* Thin contexts                                                                                */
/* ============================================================================================ */

/* Appends the last packet with this id (as SuperPMI keeps it) unless it is a compile result. */
static int thin_put(const mcz_jit_ee *v, mcz_mc_builder *b, const mcz_mc *mc, uint8_t id,
                    mcz_diag *d)
{
    const mcz_packet_info *info = mcz_jit_ee_packet(v, id);
    if (info && info->compile_result)
        return MCZ_OK;
    mcz_map m;
    int rc = mcs_map_of(mc, id, &m, d);
    if (rc <= 0)
        return rc;
    rc = mcz_mc_builder_put_map(b, id, &m);
    if (rc != MCZ_OK)
        mcz_diag_set(d, rc, MCZ_NO_OFFSET, mcz_in_context(mc->number),
                     "re-serializing packet %u: %s", id, mcz_error_name(rc));
    return rc;
}

int mcs_thin(const mcz_jit_ee *v, mcz_mc_builder *b, const mcz_mc *mc, mcz_mc *out,
             mcz_diag *d)
{
    bool present[256] = {false};
    uint32_t pos = 0;
    mcz_packet p;
    int rc;
    while ((rc = mcz_packet_next(mc, &pos, &p, d)) == 1)
        present[p.id] = true;
    if (rc < 0)
        return rc;
    mcz_mc_builder_reset(b);
    size_t count;
    const uint8_t *order = mcz_jit_ee_write_order(v, &count);
    bool listed[256] = {false};
    for (size_t i = 0; i < count && rc == MCZ_OK; i++) {
        listed[order[i]] = true;
        if (present[order[i]])
            rc = thin_put(v, b, mc, order[i], d);
    }
    for (unsigned id = 0; id < 256 && rc == MCZ_OK; id++)
        if (present[id] && !listed[id])
            rc = thin_put(v, b, mc, (uint8_t)id, d);
    const uint8_t *bytes;
    size_t size;
    if (rc == MCZ_OK)
        rc = mcz_mc_builder_finish(b, &bytes, &size);
    if (rc == MCZ_OK)
        rc = mcz_mc_from_bytes(bytes, size, mc->number, mc->offset, out, d);
    return rc;
}

int mcs_output_put_checked(mcs_output *o, mcz_mc_builder *thin, const mcs_input *in,
                           const mcz_mc *mc)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_mc thinned;
    int rc = mcz_mc_check(mc, &d);
    if (rc == MCZ_OK && thin)
        rc = mcs_thin(in->jit_ee, thin, mc, &thinned, &d);
    if (rc != MCZ_OK) {
        if (d.code == MCZ_OK)
            d.code = rc;
        mcs_input_context_error(in, mc, &d);
        return -1;
    }
    return mcs_output_put(o, thin ? &thinned : mc);
}

/* ============================================================================================ */
/* Verb plumbing                                                                                */
/* ============================================================================================ */

int mcs_parse_ranged(mcs_run *run, int argc, char **argv, const mcs_usage *u, void *args, int files,
                     const char **pos, mcz_list *list)
{
    const char *operands[8];
    memset(list, 0, sizeof *list);
    int count = mcs_parse_args(run, argc, argv, u, args, operands, files, files + 1);
    if (count < 0)
        return MCS_EXIT_USAGE;
    int first = count - files;
    if (first == 1) {
        int rc = mcs_parse_list(run, operands[0], list);
        if (rc != MCS_EXIT_OK)
            return rc;
    }
    for (int i = 0; i < files; i++)
        pos[i] = operands[first + i];
    return MCS_EXIT_OK;
}

int mcs_input_next_listed(mcs_input *in, const mcz_list *list, mcz_mc *mc)
{
    uint32_t last = list->count ? list->ranges[list->count - 1].last : UINT32_MAX;
    int rc;
    while ((rc = mcs_input_next(in, mc)) > 0) {
        if (mc->number > last)
            return 0;
        if (!list->count || mcz_list_contains(list, mc->number))
            return 1;
    }
    return rc;
}

int mcs_input_check_context(const mcs_input *in, const mcz_mc *mc)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    if (mcz_mc_check(mc, &d) == MCZ_OK)
        return 0;
    mcs_input_context_error(in, mc, &d);
    return -1;
}

int mcs_input_next_checked(mcs_input *in, const mcz_list *list, mcz_mc *mc)
{
    int rc = mcs_input_next_listed(in, list, mc);
    return rc > 0 && mcs_input_check_context(in, mc) != 0 ? -1 : rc;
}

const mcs_option mcs_list_verb_options[] = {
    {.name = "thin", .type = MCS_OPT_FLAG, MCS_FIELD(mcs_list_verb_args, thin),
     .help = "re-serialize the contexts written without their compile results\n"
             "(CR_* packets), each deep-checked first"},
    MCS_COMPRESS_OPTIONS(mcs_list_verb_args, compress),
    MCS_OPTIONS_END};

int mcs_parse_list_verb(mcs_run *run, int argc, char **argv, const mcs_usage *u, const char *pos[3],
                        mcz_list *list, mcz_mc_builder **thin, mcz_writer_options *opt)
{
    assert(u->options == mcs_list_verb_options);
    mcs_list_verb_args a = {0};
    *thin = NULL;
    memset(list, 0, sizeof *list);
    if (mcs_parse_args(run, argc, argv, u, &a, pos, 3, 3) < 0 ||
        mcs_compress_parse(u, &a.compress, pos[2], opt) != 0)
        return MCS_EXIT_USAGE;
    int rc = mcs_parse_list(run, pos[0], list);
    if (rc == MCS_EXIT_OK && a.thin && !(*thin = mcz_mc_builder_create())) {
        tool_error("out of memory");
        mcz_list_free(list);
        rc = MCS_EXIT_FAIL;
    }
    return rc;
}

/* The strict check -integ runs (tool_check_context): 0, or -1 after reporting the damage. */
static int input_check_sound(const mcs_input *in, const mcz_mc *mc)
{
    static tool_check check; /* unknown ids pass, as in -integ; the counts are not shown */
    check.jit_ee = mcs_input_jit_ee(in);
    mcz_diag d;
    mcz_diag_clear(&d);
    if (tool_check_context(&check, mc, NULL, &d) == MCZ_OK)
        return 0;
    mcs_input_context_error(in, mc, &d);
    return -1;
}

/* The numbers in held: [*lo, *hi], every one of them when *dense (an MCH file numbers its
 * contexts 1..N; an archive holds first_number..last_number, gaps possible). */
static void held_numbers(mcs_input *in, uint64_t *lo, uint64_t *hi, uint64_t *count, bool *dense)
{
    if (in->archive) {
        mcz_archive_info info;
        mcz_reader_get_info(in->archive, &info);
        *lo = info.contexts ? info.first_number : 1;
        *hi = info.contexts ? info.last_number : 0;
        *count = info.contexts;
        *dense = !info.contexts || info.contexts == *hi - *lo + 1;
        return;
    }
    /* The largest n that mcz_source_get finds: the offsets found on the way are kept. */
    uint64_t found = 0, step = 1;
    mcz_mc mc;
    while (found + step <= UINT32_MAX &&
           mcz_source_get(in->source, (uint32_t)(found + step), &mc, NULL) == MCZ_OK) {
        found += step;
        step *= 2;
    }
    for (; step > 1; step /= 2)
        if (found + step / 2 <= UINT32_MAX &&
            mcz_source_get(in->source, (uint32_t)(found + step / 2), &mc, NULL) == MCZ_OK)
            found += step / 2;
    *lo = 1;
    *hi = *count = found;
    *dense = true;
}

static bool holds(const mcs_input *in, uint64_t number, uint64_t lo, uint64_t hi, bool dense)
{
    if (number < lo || number > hi)
        return false;
    return dense || mcz_reader_chunk_of(in->archive, (uint32_t)number) >= 0;
}

int mcs_list_check_held(mcs_input *in, const mcz_list *list)
{
    uint64_t lo, hi, count, missing = 0, first_missing = 0;
    bool dense;
    held_numbers(in, &lo, &hi, &count, &dense);
    for (size_t i = 0; i < list->count; i++) {
        uint64_t a = list->ranges[i].first, b = list->ranges[i].last;
        /* The numbers below lo and above hi are missing whole; those between, one by one
         * only in an archive with gaps. */
        for (uint64_t n = a; n <= b; n++) {
            if (holds(in, n, lo, hi, dense))
                continue;
            first_missing = first_missing ? first_missing : n;
            if (n < lo || n > hi || !dense) {
                uint64_t end = n < lo ? (b < lo ? b : lo - 1) : n > hi ? b : n;
                missing += end - n + 1;
                n = end;
            }
        }
    }
    if (!missing)
        return 0;
    char held[96];
    if (count)
        snprintf(held, sizeof held, "%" PRIu64 " contexts, numbers %" PRIu64 "-%" PRIu64, count,
                 lo, hi);
    else
        snprintf(held, sizeof held, "no context");
    if (missing == 1)
        tool_error("%s: no context %" PRIu64 ": the file holds %s", in->path, first_missing,
                   held);
    else
        tool_error("%s: %" PRIu64 " listed contexts are not in the file, the first %" PRIu64
                   ": it holds %s", in->path, missing, first_missing, held);
    return -1;
}

static int for_each_context(mcs_run *run, const char *path, const mcz_list *list, const char *what,
                            bool sound, mcs_context_fn fn, void *arg, uint64_t *count)
{
    mcs_input in;
    if (mcs_input_open(run, &in, path) != 0)
        return -1;
    tool_progress progress;
    tool_progress_start(&progress, what, in.contexts, in.raw_bytes);
    uint64_t done = 0;
    mcz_mc mc;
    int rc = 0;
    while (!mcs_stdout_failed() && (rc = mcs_input_next_checked(&in, list, &mc)) > 0) {
        if ((sound && input_check_sound(&in, &mc) != 0) || fn(arg, &in, &mc) != 0) {
            rc = -1;
            break;
        }
        tool_progress_update(&progress, ++done, in.read_bytes);
    }
    tool_progress_end(&progress);
    /* Fewer than listed: some listed number is not held (unless stdout closed first). */
    if (rc == 0 && list && list->count && done < mcz_list_size(list) && !mcs_stdout_failed())
        rc = mcs_list_check_held(&in, list);
    mcs_input_close(&in);
    if (count)
        *count = done;
    return rc < 0 ? -1 : 0;
}

int mcs_for_each_context(mcs_run *run, const char *path, const mcz_list *list, const char *what,
                         mcs_context_fn fn, void *arg, uint64_t *count)
{
    return for_each_context(run, path, list, what, false, fn, arg, count);
}

int mcs_for_each_sound_context(mcs_run *run, const char *path, const mcz_list *list,
                               const char *what, mcs_context_fn fn, void *arg, uint64_t *count)
{
    return for_each_context(run, path, list, what, true, fn, arg, count);
}

static long text_write(void *cookie, const char *buf, size_t size)
{
    return mcz_outfile_write(cookie, buf, size) == MCZ_OK ? (long)size : -1;
}

int mcs_text_open(mcs_run *run, mcs_text_out *t, const char *path)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    t->run = run;
    t->path = path;
    t->stream = NULL;
    t->file = NULL;
    if (mcs_output_check(path) != 0)
        return -1;
    t->file = mcz_outfile_open(path, &d);
    if (!t->file) {
        mcs_error_diag(run, path, &d);
        return -1;
    }
    t->stream = mcz_os_stream_open(text_write, t->file);
    if (!t->stream) {
        tool_error("%s: out of memory", path);
        mcz_outfile_abort(t->file);
        return -1;
    }
    return 0;
}

int mcs_text_commit(mcs_text_out *t)
{
    mcz_os_stream_close(t->stream); /* a write failure is sticky in the outfile: commit says it */
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = mcz_outfile_commit(t->file, &d);
    if (rc != MCZ_OK) {
        if (d.code == MCZ_OK)
            d.code = rc;
        mcs_output_error(t->run, t->path, tool_display_name(t->path, true), &d);
    }
    return rc == MCZ_OK ? 0 : -1;
}

void mcs_text_abort(mcs_text_out *t)
{
    if (t->stream)
        mcz_os_stream_close(t->stream);
    mcz_outfile_abort(t->file);
    t->stream = NULL;
    t->file = NULL;
}
