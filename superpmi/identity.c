/*
 * identity.c - SuperPMI's method identity (superpmi/SUPERPMI.md "Identity"): the text line that
 * MethodContext::dumpMethodIdentityInfoToBuffer builds from a context, and its MurmurHash3.
 *
 *   <full name> -- CallingConvention: <d>, CorInfoOptions: <d>, CorInfoRegionKind: <d>,
 *   JitFlags <016llx>, ISA Flags[ <016llX>]x2 ILCode Hash: <hash>[ Pgo Counters <u>, Count <u64>,
 *   Hash: <hash>]
 *
 * The values come from the replay lookups SuperPMI makes (repCompileMethod, repGetJitFlags,
 * CallUtils::GetMethodFullName, repGetPgoInstrumentationResults), reproduced with their quirks:
 * a duplicated packet means its last copy; generic instantiation indices in GetArgType keys are
 * recomputed as the first occurrence of the handle run (SpmiRecordsHelper::ContainsHandleMap);
 * names go through getFromPrinter's 256-byte first attempt. Where SuperPMI would throw, crash
 * or read past a buffer, this returns MCZ_EMISSING (a lookup finds nothing), MCZ_ECORRUPT
 * (bytes that cannot be right) or MCZ_EUNSUPPORTED (data this build cannot name), with a
 * message saying which packet, key or argument.
 *
 * Build parameters, as in the mcs SuperPMI ships for x64: 64-bit target (NATIVEINT prints as
 * "long") and CORJIT_FLAGS with two instruction-set words.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcz_agnostic.h"
#include "mcz_common.h"

#define IDENTITY_SIZE 0x10000u        /* METHOD_IDENTITY_INFO_SIZE, NUL included */
#define IDENTITY_NAME_RESERVE 0x400u  /* METHOD_IDENTITY_INFO_NON_NAME_RESERVE */
/* "<full name> -- " is cut to this many characters (what _snprintf_s(_TRUNCATE) leaves). */
#define IDENTITY_NAME_LIMIT (IDENTITY_SIZE - IDENTITY_NAME_RESERVE - 1)
#define ISA_WORDS 2u                  /* CORJIT_FLAGS' FlagsFieldCount */
#define JIT_FLAGS_SIZE (8u * (1u + ISA_WORDS))
#define PRINT_FIRST_BUFFER 256u       /* getFromPrinter's first buffer */
#define DD_A 0
#define DD_B 4

/* Text with a moving limit: bytes past the limit are dropped, as a truncating printf would. */
typedef struct text_sink {
    char *buf;
    size_t len;
    size_t limit;
} text_sink;

static void sink_put(text_sink *s, const char *str, size_t n)
{
    size_t room = s->limit - s->len;
    if (n > room)
        n = room;
    if (n == 0)
        return;
    memcpy(s->buf + s->len, str, n);
    s->len += n;
}

static void sink_puts(text_sink *s, const char *str)
{
    sink_put(s, str, strlen(str));
}

static void sink_printf(text_sink *s, const char *fmt, ...) MCZ_PRINTF(2, 3);
static void sink_printf(text_sink *s, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        sink_put(s, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Everything one identity computation looks at. */
typedef struct ident_ctx {
    const mcz_jit_ee *v;   /* names the packets and numbers CorInfoType */
    const mcz_mc *mc;
    mcz_diag *diag;
    mcz_map compile;       /* packet 143 */
    const uint8_t *info;   /* Agnostic_CORINFO_METHOD_INFO inside its only value */
    uint64_t *inst;        /* SigInstHandleMap (184) as an array, loaded when needed */
    uint32_t inst_count;
    bool inst_loaded;
    uint32_t class_inst_key; /* GetArgType key indices of the args signature */
    uint32_t meth_inst_key;
} ident_ctx;

static int ident_fail(const ident_ctx *c, int code, int64_t rel, const char *fmt, ...)
    MCZ_PRINTF(4, 5);
static int ident_fail(const ident_ctx *c, int code, int64_t rel, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int64_t at = (int64_t)c->mc->offset + (rel < 0 ? 0 : rel);
    return mcz_diag_set(c->diag, code, mcz_at_offset(at), mcz_in_context(c->mc->number), "%s", msg);
}

static const char *packet_label(const ident_ctx *c, uint8_t id, char *buf, size_t cap)
{
    char name[48];
    snprintf(buf, cap, "%s (%u)", mcz_packet_name(c->v, id, name, sizeof name), id);
    return buf;
}

/* ---- Packets and maps ---- */

/* The last packet with this id: SuperPMI's loader lets a repeated packet replace the earlier. */
static int packet_last(const ident_ctx *c, uint8_t id, mcz_packet *out)
{
    uint32_t pos = 0;
    mcz_packet p;
    int rc, found = 0;
    while ((rc = mcz_packet_next(c->mc, &pos, &p, c->diag)) == 1) {
        if (p.id == id) {
            *out = p;
            found = 1;
        }
    }
    return rc < 0 ? rc : found;
}

/*
 * Loads packet id's map and fixes its key/value split to what this file reads: key_size bytes
 * of key (0 for a dense map) and at least min_value bytes of value. Returns 1, 0 when the packet
 * is absent (m empty), or a negative code (m empty or partly filled).
 */
static int map_load(const ident_ctx *c, uint8_t id, uint32_t key_size, uint32_t min_value,
                    mcz_map *m)
{
    *m = (mcz_map){0};
    mcz_packet p;
    int rc = packet_last(c, id, &p);
    if (rc <= 0)
        return rc;
    mcz_diag local;
    mcz_diag_clear(&local);
    rc = mcz_map_parse(c->v, &p, m, &local);
    if (rc != MCZ_OK)
        return ident_fail(c, rc, local.offset, "%s", local.message);
    if (m->count == 0)
        return 1;
    char label[64];
    bool dense_form = m->dense || (key_size == 0 && m->key_size == 4); /* legacy dense keys */
    if (key_size == 0 ? !dense_form : m->dense || m->item_size < key_size + min_value)
        return ident_fail(c, MCZ_ECORRUPT, p.offset, "packet %s: items of %u bytes, expected %s",
                          packet_label(c, id, label, sizeof label), m->item_size,
                          key_size ? "a larger sparse map" : "a dense map");
    if (key_size != 0) {
        m->key_size = key_size;
        m->value_size = m->item_size - key_size;
    }
    return 1;
}

static const uint8_t *find_u64(const mcz_map *m, uint64_t key)
{
    uint8_t k[8];
    mcz_put_le64(k, key);
    return mcz_map_find(m, k, sizeof k);
}

static const uint8_t *find_u32(const mcz_map *m, uint32_t key)
{
    uint8_t k[4];
    mcz_put_le32(k, key);
    return mcz_map_find(m, k, sizeof k);
}

/* Loads a map that must exist, naming it in the error when it does not. */
static int map_require(const ident_ctx *c, uint8_t id, uint32_t key_size, uint32_t min_value,
                       mcz_map *m, const char *why)
{
    int rc = map_load(c, id, key_size, min_value, m);
    if (rc == 0) {
        char label[64];
        return ident_fail(c, MCZ_EMISSING, -1, "no %s packet%s",
                          packet_label(c, id, label, sizeof label), why);
    }
    return rc < 0 ? rc : MCZ_OK;
}

/* A pool buffer that must hold at least need bytes (DWORD -1 is allowed when need is 0). */
static int buffer_get(const ident_ctx *c, const mcz_map *m, uint32_t index, uint32_t need,
                      const char *what, const uint8_t **data)
{
    uint32_t len = 0;
    *data = NULL;
    if (index == MCZ_NULL_INDEX && need == 0)
        return MCZ_OK;
    if (mcz_map_buffer(m, index, data, &len) != MCZ_OK || len < need)
        return ident_fail(c, MCZ_ECORRUPT, -1,
                          "%s: pool index %u does not hold %u bytes (pool of %u)", what, index,
                          need, m->pool_size);
    return MCZ_OK;
}

/* ---- Generic instantiations (SigInstHandleMap) ---- */

/* Loads the dense map of u64 class handles once; why completes the message when it is absent. */
static int inst_load(ident_ctx *c, const char *why)
{
    if (c->inst_loaded)
        return MCZ_OK;
    mcz_map m;
    int rc = map_require(c, MCZ_PACKET_SIG_INST_HANDLE_MAP, 0, 8, &m, why);
    if (rc != MCZ_OK)
        return rc;
    if (m.count && (m.dense ? m.item_size : m.value_size) != 8)
        return ident_fail(c, MCZ_ECORRUPT, -1, "SigInstHandleMap items are %u bytes, not 8",
                          m.item_size);
    c->inst = malloc(((size_t)m.count + 1) * sizeof *c->inst); /* <= the packet's size */
    if (!c->inst)
        return ident_fail(c, MCZ_ENOMEM, -1, "out of memory");
    for (uint32_t i = 0; i < m.count; i++) {
        /* The legacy untagged form stores each index as a key (mcz_map_parse checked them). */
        uint32_t at = m.dense ? i : mcz_get_le32(mcz_map_key(&m, i));
        c->inst[at] = mcz_get_le64(mcz_map_value(&m, i));
    }
    c->inst_count = m.count;
    c->inst_loaded = true;
    return MCZ_OK;
}

/*
 * First position where run[0..n) occurs in the handle map, or -1 (ContainsHandleMap). Knuth-
 * Morris-Pratt, so a hostile map cannot make the search quadratic.
 */
static int inst_first(const ident_ctx *c, const uint64_t *run, uint32_t n, uint32_t *at)
{
    uint32_t *fail = malloc((size_t)n * sizeof *fail);
    if (!fail)
        return ident_fail(c, MCZ_ENOMEM, -1, "out of memory");
    fail[0] = 0;
    for (uint32_t i = 1, k = 0; i < n; i++) {
        while (k > 0 && run[i] != run[k])
            k = fail[k - 1];
        if (run[i] == run[k])
            k++;
        fail[i] = k;
    }
    *at = MCZ_NULL_INDEX;
    for (uint32_t i = 0, k = 0; i < c->inst_count; i++) {
        while (k > 0 && c->inst[i] != run[k])
            k = fail[k - 1];
        if (c->inst[i] == run[k])
            k++;
        if (k == n) {
            *at = i + 1 - n;
            break;
        }
    }
    free(fail);
    return MCZ_OK;
}

/*
 * One (count, index) pair of a stored signature: restores the handles as repCompileMethod does
 * (count > 0 needs the map and the run inside it) and returns the index a GetArgType key carries.
 */
static int inst_key(ident_ctx *c, const uint8_t *sig, unsigned count_at, unsigned index_at,
                    const char *what, uint32_t *key_index)
{
    uint32_t count = mcz_get_le32(sig + count_at);
    uint32_t stored = mcz_get_le32(sig + index_at);
    *key_index = MCZ_NULL_INDEX;
    if (count == 0)
        return MCZ_OK;
    char why[96];
    snprintf(why, sizeof why, ", but the %s have %u instantiation handles", what, count);
    int rc = inst_load(c, why);
    if (rc != MCZ_OK)
        return rc;
    if (stored > c->inst_count || count > c->inst_count - stored)
        return ident_fail(c, MCZ_ECORRUPT, -1,
                          "%s: instantiation run %u+%u lies outside SigInstHandleMap (%u items)",
                          what, stored, count, c->inst_count);
    return inst_first(c, c->inst + stored, count, key_index);
}

/* ---- CompileMethod and GetJitFlags ---- */

/* What repCompileMethod reads of one signature: its instantiations and its blob. */
static int sig_check(ident_ctx *c, const uint8_t *sig, const char *what, bool args)
{
    uint32_t class_key, meth_key;
    int rc = inst_key(c, sig, MCZ_SIG_CLASS_INST_COUNT, MCZ_SIG_CLASS_INST_INDEX, what, &class_key);
    if (rc == MCZ_OK)
        rc = inst_key(c, sig, MCZ_SIG_METH_INST_COUNT, MCZ_SIG_METH_INST_INDEX, what, &meth_key);
    if (rc != MCZ_OK)
        return rc;
    if (args) {
        c->class_inst_key = class_key;
        c->meth_inst_key = meth_key;
    }
    uint32_t blob = mcz_get_le32(sig + MCZ_SIG_PSIG_INDEX);
    const uint8_t *data;
    return blob == MCZ_NULL_INDEX ? MCZ_OK : buffer_get(c, &c->compile, blob, 0, what, &data);
}

static int compile_load(ident_ctx *c)
{
    int rc = map_require(c, MCZ_PACKET_COMPILE_METHOD, 4, MCZ_MI_SIZE, &c->compile,
                         ": the method being compiled is unknown");
    if (rc != MCZ_OK)
        return rc;
    c->info = find_u32(&c->compile, 0);
    if (!c->info)
        return ident_fail(c, MCZ_EMISSING, -1, "CompileMethod (143) has no entry for key 0");
    rc = sig_check(c, c->info + MCZ_MI_ARGS, "arguments", true);
    if (rc == MCZ_OK)
        rc = sig_check(c, c->info + MCZ_MI_LOCALS, "locals", false);
    if (rc != MCZ_OK)
        return rc;
    const uint8_t *il;
    return buffer_get(c, &c->compile, mcz_get_le32(c->info + MCZ_MI_IL_OFFSET),
                      mcz_get_le32(c->info + MCZ_MI_IL_SIZE), "IL code", &il);
}

/* CORJIT_FLAGS as repGetJitFlags copies it: the stored bytes over zeros, at most 24 of them. */
static int jit_flags_load(const ident_ctx *c, uint64_t words[1 + ISA_WORDS])
{
    mcz_map m;
    int rc = map_require(c, MCZ_PACKET_GET_JIT_FLAGS, 4, MCZ_DD_SIZE, &m, "");
    if (rc != MCZ_OK)
        return rc;
    const uint8_t *dd = find_u32(&m, 0);
    if (!dd)
        return ident_fail(c, MCZ_EMISSING, -1, "GetJitFlags (154) has no entry for key 0");
    uint32_t index = mcz_get_le32(dd + DD_A), size = mcz_get_le32(dd + DD_B);
    if (size > JIT_FLAGS_SIZE)
        return ident_fail(c, MCZ_EUNSUPPORTED, -1,
                          "GetJitFlags holds %u bytes of CORJIT_FLAGS; this build reads %u", size,
                          JIT_FLAGS_SIZE);
    const uint8_t *data;
    rc = buffer_get(c, &m, index, size, "GetJitFlags", &data);
    if (rc != MCZ_OK)
        return rc;
    uint8_t raw[JIT_FLAGS_SIZE] = {0};
    if (size)
        memcpy(raw, data, size);
    for (unsigned i = 0; i < 1 + ISA_WORDS; i++)
        words[i] = mcz_get_le64(raw + 8 * i);
    return MCZ_OK;
}

/* ---- The full name ---- */

/*
 * TypeUtils::GetCorInfoTypeName (typeutils.cpp) for a 64-bit target, of a raw CorInfoType as
 * c's version numbers it: B's STRING and VAR print as "ref" and REFANY as "struct"; NULL where
 * it throws (UNDEF, numbers the version does not have).
 */
static const char *type_name(const ident_ctx *c, uint32_t raw)
{
    static const char *const names[] = {
        [MCZ_TYPE_VOID] = "void",      [MCZ_TYPE_BOOL] = "bool",
        [MCZ_TYPE_CHAR] = "char",      [MCZ_TYPE_BYTE] = "byte",
        [MCZ_TYPE_UBYTE] = "ubyte",    [MCZ_TYPE_SHORT] = "short",
        [MCZ_TYPE_USHORT] = "ushort",  [MCZ_TYPE_INT] = "int",
        [MCZ_TYPE_UINT] = "uint",      [MCZ_TYPE_LONG] = "long",
        [MCZ_TYPE_ULONG] = "ulong",    [MCZ_TYPE_NATIVEINT] = "long",
        [MCZ_TYPE_NATIVEUINT] = "long", [MCZ_TYPE_FLOAT] = "float",
        [MCZ_TYPE_DOUBLE] = "double",  [MCZ_TYPE_STRING] = "ref",
        [MCZ_TYPE_PTR] = "ptr",        [MCZ_TYPE_BYREF] = "byref",
        [MCZ_TYPE_VALUECLASS] = "struct", [MCZ_TYPE_CLASS] = "ref",
        [MCZ_TYPE_REFANY] = "struct",  [MCZ_TYPE_VAR] = "ref",
    };
    if (raw > MCZ_TYPE_MASK)
        return NULL;
    int type = mcz_jit_ee_type(c->v, raw);
    return type >= 0 && (size_t)type < sizeof names / sizeof names[0] ? names[type] : NULL;
}

/*
 * A name printed through getFromPrinter over repPrint: a 256-byte attempt, then one of the
 * required size. Fails where repPrint throws: no entry, unknown required size, or a stored
 * string too short for the buffer asked.
 */
static int print_name(const ident_ctx *c, const mcz_map *m, const char *what, uint64_t handle,
                      text_sink *out)
{
    const uint8_t *res = find_u64(m, handle);
    if (!res)
        return ident_fail(c, MCZ_EMISSING, -1, "no %s entry for handle %016llX", what,
                          (unsigned long long)handle);
    uint32_t required = mcz_get_le32(res + MCZ_PR_REQUIRED_SIZE);
    uint32_t stored = mcz_get_le32(res + MCZ_PR_BUFFER_SIZE);
    if (required == MCZ_NULL_INDEX)
        return ident_fail(c, MCZ_EMISSING, -1, "%s entry for %016llX lacks its required size",
                          what, (unsigned long long)handle);
    bool full = (uint64_t)stored + 1 >= required;
    uint64_t asked = required <= PRINT_FIRST_BUFFER ? PRINT_FIRST_BUFFER : required;
    if (!full && asked > (uint64_t)stored + 1)
        return ident_fail(c, MCZ_EMISSING, -1,
                          "%s entry for %016llX holds %u of the %u bytes of its name", what,
                          (unsigned long long)handle, stored, required);
    uint32_t n = asked - 1 < stored ? (uint32_t)(asked - 1) : stored;
    const uint8_t *text = NULL;
    if (n > 0) {
        int rc = buffer_get(c, m, mcz_get_le32(res + MCZ_PR_BUFFER), n, what, &text);
        if (rc != MCZ_OK)
            return rc;
        const uint8_t *nul = memchr(text, '\0', n); /* std::string stops there */
        if (nul)
            n = (uint32_t)(nul - text);
    }
    sink_put(out, (const char *)text, n);
    return MCZ_OK;
}

static int names_append(const ident_ctx *c, uint64_t ftn, text_sink *out)
{
    mcz_map classes, class_names, method_names;
    int rc = map_require(c, MCZ_PACKET_GET_METHOD_CLASS, 8, 8, &classes, "");
    if (rc != MCZ_OK)
        return rc;
    const uint8_t *cls = find_u64(&classes, ftn);
    if (!cls)
        return ident_fail(c, MCZ_EMISSING, -1, "no GetMethodClass entry for method %016llX",
                          (unsigned long long)ftn);
    rc = map_require(c, MCZ_PACKET_PRINT_CLASS_NAME, 8, MCZ_PR_SIZE, &class_names, "");
    if (rc == MCZ_OK)
        rc = print_name(c, &class_names, "PrintClassName", mcz_get_le64(cls), out);
    if (rc != MCZ_OK)
        return rc;
    sink_puts(out, ":");
    rc = map_require(c, MCZ_PACKET_PRINT_METHOD_NAME, 8, MCZ_PR_SIZE, &method_names, "");
    return rc == MCZ_OK ? print_name(c, &method_names, "PrintMethodName", ftn, out) : rc;
}

/* The GetArgType key for the argument at handle arg of the method's own signature
 * (superpmi/SUPERPMI.md "Identity": the argument types). */
static void arg_type_key(const ident_ctx *c, const uint8_t *sig, uint64_t arg,
                         uint8_t key[MCZ_AT_KEY_SIZE])
{
    memset(key, 0, MCZ_AT_KEY_SIZE);
    mcz_put_le32(key + MCZ_AT_KEY_FLAGS, mcz_get_le32(sig + MCZ_SIG_FLAGS));
    mcz_put_le32(key + MCZ_AT_KEY_NUM_ARGS, mcz_get_le32(sig + MCZ_SIG_NUM_ARGS));
    mcz_put_le32(key + MCZ_AT_KEY_CLASS_INST_COUNT, mcz_get_le32(sig + MCZ_SIG_CLASS_INST_COUNT));
    mcz_put_le32(key + MCZ_AT_KEY_CLASS_INST_INDEX, c->class_inst_key);
    mcz_put_le32(key + MCZ_AT_KEY_METH_INST_COUNT, mcz_get_le32(sig + MCZ_SIG_METH_INST_COUNT));
    mcz_put_le32(key + MCZ_AT_KEY_METH_INST_INDEX, c->meth_inst_key);
    mcz_put_le64(key + MCZ_AT_KEY_METHOD_SIGNATURE, mcz_get_le64(sig + MCZ_SIG_METHOD_SIGNATURE));
    mcz_put_le64(key + MCZ_AT_KEY_SCOPE, mcz_get_le64(sig + MCZ_SIG_SCOPE));
    mcz_put_le64(key + MCZ_AT_KEY_ARGS, arg);
}

/*
 * "<type>,<type>..." through GetArgType and GetArgNext. The walk may stop early once the text is
 * past the name limit and more steps were taken than GetArgNext has keys: the handle sequence has
 * then entered a cycle whose every step already succeeded, so the rest can neither fail nor show.
 */
static int args_append(const ident_ctx *c, text_sink *out)
{
    const uint8_t *sig = c->info + MCZ_MI_ARGS;
    uint32_t num_args = mcz_get_le32(sig + MCZ_SIG_NUM_ARGS);
    if (num_args == 0)
        return MCZ_OK;
    char why[64];
    snprintf(why, sizeof why, " for a method with %u arguments", num_args);
    mcz_map types = {0}, next = {0};
    int rc = map_require(c, MCZ_PACKET_GET_ARG_TYPE, MCZ_AT_KEY_SIZE, MCZ_AT_VALUE_SIZE, &types,
                         why);
    if (rc == MCZ_OK)
        rc = map_require(c, MCZ_PACKET_GET_ARG_NEXT, 8, 8, &next, why);
    uint64_t arg = mcz_get_le64(sig + MCZ_SIG_ARGS);
    for (uint32_t i = 0; rc == MCZ_OK && i < num_args; i++) {
        if (out->len == out->limit && i > next.count)
            break;
        uint8_t key[MCZ_AT_KEY_SIZE];
        arg_type_key(c, sig, arg, key);
        const uint8_t *value = mcz_map_find(&types, key, sizeof key);
        if (!value)
            return ident_fail(c, MCZ_EMISSING, -1,
                              "no GetArgType entry for argument %u (handle %016llX)", i,
                              (unsigned long long)arg);
        uint32_t type = mcz_get_le32(value + MCZ_AT_VALUE_RESULT) & MCZ_TYPE_MASK;
        const char *name = type_name(c, type);
        if (!name)
            return ident_fail(c, MCZ_EUNSUPPORTED, -1, "argument %u has CorInfoType 0x%x", i,
                              type);
        if (i > 0)
            sink_puts(out, ",");
        sink_puts(out, name);
        const uint8_t *following = find_u64(&next, arg);
        if (!following)
            return ident_fail(c, MCZ_EMISSING, -1,
                              "no GetArgNext entry for argument %u (handle %016llX)", i,
                              (unsigned long long)arg);
        arg = mcz_get_le64(following);
    }
    return rc;
}

/* CallUtils::GetMethodFullName. */
static int full_name_append(const ident_ctx *c, bool ignore_method_name, text_sink *out)
{
    uint64_t ftn = mcz_get_le64(c->info + MCZ_MI_FTN);
    if ((ftn & 1) && (ftn >> 2) != 0) /* GetHelperNum: odd handles encode JIT helpers */
        return ident_fail(c, MCZ_EUNSUPPORTED, -1,
                          "method handle %016llX denotes JIT helper %llu; helper names are per "
                          "runtime version and not known to this build",
                          (unsigned long long)ftn, (unsigned long long)(ftn >> 2));
    int rc = MCZ_OK;
    if (ignore_method_name)
        sink_puts(out, "CLASS:METHOD");
    else
        rc = names_append(c, ftn, out);
    if (rc != MCZ_OK)
        return rc;
    sink_puts(out, "(");
    rc = args_append(c, out);
    if (rc != MCZ_OK)
        return rc;
    sink_puts(out, ")");
    const uint8_t *sig = c->info + MCZ_MI_ARGS;
    uint32_t ret = mcz_get_le32(sig + MCZ_SIG_RET_TYPE);
    if (ret != MCZ_TYPE_VOID) { /* VOID is 1 in every version's numbering */
        const char *name = type_name(c, ret);
        if (!name)
            return ident_fail(c, MCZ_EUNSUPPORTED, -1, "return type has CorInfoType 0x%x", ret);
        sink_puts(out, ":");
        sink_puts(out, name);
    }
    uint32_t conv = mcz_get_le32(sig + MCZ_SIG_CALL_CONV);
    if ((conv & MCZ_CALLCONV_HASTHIS) && !(conv & MCZ_CALLCONV_EXPLICITTHIS))
        sink_puts(out, ":this");
    return MCZ_OK;
}

/* ---- Hashes of the IL and of the PGO counters ---- */

static void hash_append(text_sink *out, const char *label, const uint8_t *data, size_t len)
{
    mcz_hash128 h;
    char hex[33];
    mcz_murmur3_128(data, len, &h);
    mcz_hash_hex(&h, hex);
    sink_puts(out, label);
    sink_puts(out, hex);
}

static int il_hash_append(const ident_ctx *c, text_sink *out)
{
    uint32_t size = mcz_get_le32(c->info + MCZ_MI_IL_SIZE);
    const uint8_t *il;
    int rc = buffer_get(c, &c->compile, mcz_get_le32(c->info + MCZ_MI_IL_OFFSET), size,
                        "IL code", &il);
    if (rc == MCZ_OK)
        hash_append(out, " ILCode Hash: ", il, size);
    return rc;
}

/* Byte width of a counter kind the PGO fingerprint sums, or 0 for kinds it skips. */
static unsigned pgo_counter_size(uint32_t kind)
{
    switch (kind) {
    case MCZ_PGO_KIND_BB_INT_COUNT:
    case MCZ_PGO_KIND_EDGE_INT_COUNT:
        return 4;
    case MCZ_PGO_KIND_BB_LONG_COUNT:
    case MCZ_PGO_KIND_EDGE_LONG_COUNT:
        return 8;
    default:
        return 0;
    }
}

typedef struct pgo_view {
    const uint8_t *schema; /* count * MCZ_PGOS_SIZE bytes */
    uint32_t count;
    const uint8_t *data;
    uint32_t data_len;
    int32_t result;
} pgo_view;

/* repGetPgoInstrumentationResults: the schema is copied whatever the result says. */
static int pgo_view_load(const ident_ctx *c, const mcz_map *m, const uint8_t *v, pgo_view *pv)
{
    pv->schema = NULL;
    pv->count = mcz_get_le32(v + MCZ_PGO_COUNT_SCHEMA_ITEMS);
    pv->result = (int32_t)mcz_get_le32(v + MCZ_PGO_RESULT);
    uint32_t data_index = mcz_get_le32(v + MCZ_PGO_DATA_INDEX);
    pv->data = NULL;
    pv->data_len = 0;
    if (data_index != MCZ_NULL_INDEX &&
        mcz_map_buffer(m, data_index, &pv->data, &pv->data_len) != MCZ_OK)
        return ident_fail(c, MCZ_ECORRUPT, -1, "PGO data: bad pool index %u", data_index);
    if ((uint64_t)pv->count * MCZ_PGOS_SIZE > UINT32_MAX)
        return ident_fail(c, MCZ_ECORRUPT, -1, "PGO schema of %u items", pv->count);
    return buffer_get(c, m, mcz_get_le32(v + MCZ_PGO_SCHEMA_INDEX), pv->count * MCZ_PGOS_SIZE,
                      "PGO schema", &pv->schema);
}

static int pgo_append(const ident_ctx *c, uint64_t ftn, text_sink *out)
{
    mcz_map m;
    int rc = map_load(c, MCZ_PACKET_GET_PGO_RESULTS, 8, MCZ_PGO_RESULT + 4, &m);
    const uint8_t *v = rc == 1 ? find_u64(&m, ftn) : NULL;
    if (!v)
        return rc < 0 ? rc : MCZ_OK;
    pgo_view pv;
    rc = pgo_view_load(c, &m, v, &pv);
    if (rc != MCZ_OK || pv.result < 0)
        return rc;
    uint64_t min = UINT64_MAX, max = 0, total = 0;
    assert(pv.schema || pv.count == 0); /* buffer_get gives NULL only for 0 bytes */
    for (uint32_t i = 0; i < pv.count; i++) {
        const uint8_t *item = pv.schema + (size_t)i * MCZ_PGOS_SIZE;
        uint64_t start = mcz_get_le64(item + MCZ_PGOS_OFFSET);
        unsigned size = pgo_counter_size(mcz_get_le32(item + MCZ_PGOS_KIND));
        if (size == 0)
            continue;
        if (!pv.data || !mcz_fits(pv.data_len, start, size))
            return ident_fail(c, MCZ_ECORRUPT, -1,
                              "PGO schema item %u: counter at %llu outside the %u data bytes", i,
                              (unsigned long long)start, pv.data_len);
        total += size == 4 ? mcz_get_le32(pv.data + start) : mcz_get_le64(pv.data + start);
        min = start < min ? start : min;
        max = start + size > max ? start + size : max;
    }
    if (min < max) {
        sink_printf(out, " Pgo Counters %u, Count %llu", pv.count, (unsigned long long)total);
        hash_append(out, ", Hash: ", pv.data + min, (size_t)(max - min));
    }
    return MCZ_OK;
}

/* ---- The identity ---- */

static int64_t identity_build(const mcz_jit_ee *v, const mcz_mc *mc, bool ignore_method_name,
                              char *buf, mcz_diag *diag)
{
    ident_ctx c = {.v = v, .mc = mc, .diag = diag};
    text_sink out = {buf, 0, IDENTITY_NAME_LIMIT};
    uint64_t flags[1 + ISA_WORDS] = {0};
    int rc = compile_load(&c);
    if (rc == MCZ_OK)
        rc = jit_flags_load(&c, flags);
    if (rc == MCZ_OK)
        rc = full_name_append(&c, ignore_method_name, &out);
    if (rc == MCZ_OK) {
        sink_puts(&out, " -- ");
        out.limit = IDENTITY_SIZE - 1;
        const uint8_t *info = c.info;
        sink_printf(&out,
                    "CallingConvention: %d, CorInfoOptions: %d, CorInfoRegionKind: %d, "
                    "JitFlags %016llx, ISA Flags",
                    (int)mcz_get_le32(info + MCZ_MI_ARGS + MCZ_SIG_CALL_CONV),
                    (int)mcz_get_le32(info + MCZ_MI_OPTIONS),
                    (int)mcz_get_le32(info + MCZ_MI_REGION_KIND), (unsigned long long)flags[0]);
        for (unsigned i = ISA_WORDS; i > 0; i--)
            sink_printf(&out, " %016llX", (unsigned long long)flags[i]);
        rc = il_hash_append(&c, &out);
    }
    if (rc == MCZ_OK)
        rc = pgo_append(&c, mcz_get_le64(c.info + MCZ_MI_FTN), &out);
    free(c.inst);
    if (rc != MCZ_OK)
        return rc;
    buf[out.len] = '\0';
    return (int64_t)out.len;
}

int64_t mcz_mc_identity(const mcz_jit_ee *v, const mcz_mc *mc, bool ignore_method_name, char *buf,
                        size_t cap, mcz_diag *diag)
{
    if (!mc || !mc->bytes || (!buf && cap))
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_mc_identity: NULL argument");
    char *text = malloc(IDENTITY_SIZE);
    if (!text)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, mcz_in_context(mc->number),
                            "out of memory");
    int64_t len = identity_build(v, mc, ignore_method_name, text, diag);
    if (len >= 0 && cap > 0) {
        size_t n = (size_t)len < cap - 1 ? (size_t)len : cap - 1;
        memcpy(buf, text, n);
        buf[n] = '\0';
    }
    free(text);
    return len;
}

int mcz_mc_identity_hash(const mcz_jit_ee *v, const mcz_mc *mc, bool ignore_method_name,
                         mcz_hash128 *out, mcz_diag *diag)
{
    if (!mc || !mc->bytes || !out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_mc_identity_hash: NULL argument");
    char *text = malloc(IDENTITY_SIZE);
    if (!text)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, mcz_in_context(mc->number),
                            "out of memory");
    int64_t len = identity_build(v, mc, ignore_method_name, text, diag);
    if (len >= 0)
        mcz_murmur3_128(text, (size_t)len, out);
    free(text);
    return len < 0 ? (int)len : MCZ_OK;
}
