/*
 * test_identity.c - the method identity string and hash (superpmi/SUPERPMI.md "Identity"): the
 * hash vectors, a worked example, instance and generic methods (first-occurrence instantiation
 * indices), names, PGO, the name-length limit, argument cycles, and every way a context
 * can lack what the identity needs (clear errors, never a crash).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mcz_agnostic.h"
#include "../../common/mcz_common.h"

/* The version these tests' contexts are written in (their CorInfoType numbering). */
#define VB mcz_jit_ee_find("B")

#define FTN 0x00007FF800001000ull
#define CLS 0x00007FF800002000ull
#define SCOPE 0x00007FF810000000ull
#define MSIG 0x00007FF800003000ull
#define ARG0 0x00007FF800004000ull /* argument i has handle ARG0 + 8 * i */
#define ARG_END 0x00007FF800005000ull
#define TYPE_C 0x00007FF800006000ull

#define ZERO_TAIL                                                                           \
    " -- CallingConvention: 0, CorInfoOptions: 0, CorInfoRegionKind: 0, JitFlags "        \
    "0000000000000000, ISA Flags 0000000000000000 0000000000000000 ILCode Hash: "          \
    "3D2EE4B9EEC5F7F6B49E0ADC603ABDFA"

static const uint8_t il_ldarg_ret[] = {0x02, 0x2A};
static char text[0x10000];

/* What a test context describes; zero fields mean "static, no generics, IL 02 2A". */
typedef struct method {
    uint64_t ftn;
    uint32_t call_conv;
    uint32_t ret_type;
    uint32_t num_args;
    uint32_t arg_types[4];
    uint32_t class_inst_count, class_inst_index;
    uint32_t meth_inst_count, meth_inst_index;
    uint32_t key_class_index, key_meth_index; /* what the GetArgType keys carry */
    uint32_t options, region_kind;
} method;

static method int_m_int(void)
{
    method m = {.ftn = FTN, .ret_type = MCZ_TYPE_INT, .num_args = 1,
                .arg_types = {MCZ_TYPE_INT}, .class_inst_index = MCZ_NULL_INDEX,
                .meth_inst_index = MCZ_NULL_INDEX, .key_class_index = MCZ_NULL_INDEX,
                .key_meth_index = MCZ_NULL_INDEX};
    return m;
}

/* ---- Building contexts ---- */

static void put_sig(uint8_t *sig, const method *m, uint32_t blob)
{
    memset(sig, 0, MCZ_SIG_SIZE);
    mcz_put_le32(sig + MCZ_SIG_CALL_CONV, m->call_conv);
    mcz_put_le32(sig + MCZ_SIG_RET_TYPE, m->ret_type);
    mcz_put_le32(sig + MCZ_SIG_NUM_ARGS, m->num_args);
    mcz_put_le32(sig + MCZ_SIG_CLASS_INST_COUNT, m->class_inst_count);
    mcz_put_le32(sig + MCZ_SIG_CLASS_INST_INDEX, m->class_inst_index);
    mcz_put_le32(sig + MCZ_SIG_METH_INST_COUNT, m->meth_inst_count);
    mcz_put_le32(sig + MCZ_SIG_METH_INST_INDEX, m->meth_inst_index);
    mcz_put_le64(sig + MCZ_SIG_ARGS, m->num_args ? ARG0 : 0);
    mcz_put_le32(sig + MCZ_SIG_PSIG_INDEX, blob);
    mcz_put_le32(sig + MCZ_SIG_CB_SIG, blob == MCZ_NULL_INDEX ? 0 : 4);
    mcz_put_le64(sig + MCZ_SIG_METHOD_SIGNATURE, MSIG);
    mcz_put_le64(sig + MCZ_SIG_SCOPE, SCOPE);
}

static void add_compile_method(mcz_mc_builder *b, const method *m, const uint8_t *il,
                               uint32_t il_size)
{
    static const uint8_t blob[] = {0x00, 0x01, 0x08, 0x08};
    uint8_t key[4] = {0}, v[MCZ_CM_SIZE] = {0}, locals[MCZ_SIG_SIZE];
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_COMPILE_METHOD, false, 4, MCZ_CM_SIZE), 0);
    uint32_t il_index = mcz_mc_builder_buffer(b, il, il_size);
    uint32_t blob_index = mcz_mc_builder_buffer(b, blob, sizeof blob);
    mcz_put_le64(v + MCZ_MI_FTN, m->ftn);
    mcz_put_le64(v + MCZ_MI_SCOPE, SCOPE);
    mcz_put_le32(v + MCZ_MI_IL_OFFSET, il_index);
    mcz_put_le32(v + MCZ_MI_IL_SIZE, il_size);
    mcz_put_le32(v + MCZ_MI_MAX_STACK, 8);
    mcz_put_le32(v + MCZ_MI_OPTIONS, m->options);
    mcz_put_le32(v + MCZ_MI_REGION_KIND, m->region_kind);
    put_sig(v + MCZ_MI_ARGS, m, blob_index);
    method none = {.class_inst_index = MCZ_NULL_INDEX, .meth_inst_index = MCZ_NULL_INDEX};
    put_sig(locals, &none, MCZ_NULL_INDEX);
    memcpy(v + MCZ_MI_LOCALS, locals, sizeof locals);
    mcz_put_le32(v + MCZ_CM_FLAGS, 0xFFFFFFFFu);
    mcz_put_le32(v + MCZ_CM_OS, 1);
    assert_int_equal(mcz_mc_builder_add(b, key, v), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

static void add_jit_flags(mcz_mc_builder *b, const uint64_t words[3], uint32_t size)
{
    uint8_t raw[32] = {0}, key[4] = {0}, dd[8];
    for (int i = 0; i < 3; i++)
        mcz_put_le64(raw + 8 * i, words[i]);
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_GET_JIT_FLAGS, false, 4, 8), 0);
    mcz_put_le32(dd, mcz_mc_builder_buffer(b, raw, size));
    mcz_put_le32(dd + 4, size);
    assert_int_equal(mcz_mc_builder_add(b, key, dd), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

static void add_u64_map(mcz_mc_builder *b, uint8_t id, const uint64_t *keys,
                        const uint64_t *values, size_t n)
{
    assert_int_equal(mcz_mc_builder_begin(b, id, false, 8, 8), 0);
    for (size_t i = 0; i < n; i++) {
        uint8_t k[8], v[8];
        mcz_put_le64(k, keys[i]);
        mcz_put_le64(v, values[i]);
        assert_int_equal(mcz_mc_builder_add(b, k, v), 0);
    }
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

static void arg_key(uint8_t key[MCZ_AT_KEY_SIZE], const method *m, uint64_t arg)
{
    memset(key, 0, MCZ_AT_KEY_SIZE);
    mcz_put_le32(key + MCZ_AT_KEY_NUM_ARGS, m->num_args);
    mcz_put_le32(key + MCZ_AT_KEY_CLASS_INST_COUNT, m->class_inst_count);
    mcz_put_le32(key + MCZ_AT_KEY_CLASS_INST_INDEX, m->key_class_index);
    mcz_put_le32(key + MCZ_AT_KEY_METH_INST_COUNT, m->meth_inst_count);
    mcz_put_le32(key + MCZ_AT_KEY_METH_INST_INDEX, m->key_meth_index);
    mcz_put_le64(key + MCZ_AT_KEY_METHOD_SIGNATURE, MSIG);
    mcz_put_le64(key + MCZ_AT_KEY_SCOPE, SCOPE);
    mcz_put_le64(key + MCZ_AT_KEY_ARGS, arg);
}

/* GetArgType for the first `types` arguments, GetArgNext for the first `nexts`. */
static void add_args(mcz_mc_builder *b, const method *m, uint32_t types, uint32_t nexts)
{
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_GET_ARG_TYPE, false, MCZ_AT_KEY_SIZE,
                                          MCZ_AT_VALUE_SIZE), 0);
    for (uint32_t i = 0; i < types; i++) {
        uint8_t key[MCZ_AT_KEY_SIZE], v[MCZ_AT_VALUE_SIZE] = {0};
        arg_key(key, m, ARG0 + 8 * i);
        mcz_put_le32(v + MCZ_AT_VALUE_RESULT, m->arg_types[i]);
        assert_int_equal(mcz_mc_builder_add(b, key, v), 0);
    }
    assert_int_equal(mcz_mc_builder_end(b), 0);
    uint64_t keys[4], values[4];
    for (uint32_t i = 0; i < nexts; i++) {
        keys[i] = ARG0 + 8 * i;
        values[i] = i + 1 < m->num_args ? ARG0 + 8 * (i + 1) : ARG_END;
    }
    add_u64_map(b, MCZ_PACKET_GET_ARG_NEXT, keys, values, nexts);
}

static void add_print(mcz_mc_builder *b, uint8_t id, uint64_t handle, const char *name,
                      uint32_t stored, uint32_t required)
{
    uint8_t k[8], v[MCZ_PR_SIZE];
    assert_int_equal(mcz_mc_builder_begin(b, id, false, 8, MCZ_PR_SIZE), 0);
    mcz_put_le64(k, handle);
    mcz_put_le32(v + MCZ_PR_REQUIRED_SIZE, required);
    mcz_put_le32(v + MCZ_PR_BUFFER, mcz_mc_builder_buffer(b, name, stored));
    mcz_put_le32(v + MCZ_PR_BUFFER_SIZE, stored);
    assert_int_equal(mcz_mc_builder_add(b, k, v), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

static void add_names(mcz_mc_builder *b, const char *class_name, const char *method_name)
{
    uint64_t ftn = FTN, cls = CLS;
    add_u64_map(b, MCZ_PACKET_GET_METHOD_CLASS, &ftn, &cls, 1);
    uint32_t n = (uint32_t)strlen(class_name);
    add_print(b, MCZ_PACKET_PRINT_CLASS_NAME, CLS, class_name, n, n + 1);
    n = (uint32_t)strlen(method_name);
    add_print(b, MCZ_PACKET_PRINT_METHOD_NAME, FTN, method_name, n, n + 1);
}

/* CompileMethod, 24 zero bytes of jit flags and complete argument packets. */
static void add_method(mcz_mc_builder *b, const method *m)
{
    static const uint64_t zero[3];
    add_compile_method(b, m, il_ldarg_ret, sizeof il_ldarg_ret);
    add_jit_flags(b, zero, 24);
    if (m->num_args)
        add_args(b, m, m->num_args, m->num_args);
}

static mcz_mc finish(mcz_mc_builder *b)
{
    const uint8_t *bytes;
    size_t size;
    mcz_mc mc;
    assert_int_equal(mcz_mc_builder_finish(b, &bytes, &size), 0);
    assert_int_equal(mcz_mc_from_bytes(bytes, size, 7, 1000, &mc, NULL), 0);
    assert_int_equal(mcz_mc_check(&mc, NULL), 0);
    return mc;
}

/* ---- Checking ---- */

static void expect_identity(const mcz_mc *mc, bool ignore, const char *want)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    int64_t n = mcz_mc_identity(VB, mc, ignore, text, sizeof text, &d);
    if (n < 0)
        print_message("unexpected error: %s\n", d.message);
    assert_int_equal(n, (int64_t)strlen(want));
    assert_string_equal(text, want);
}

static void expect_hash(const mcz_mc *mc, bool ignore, const char *want)
{
    mcz_hash128 h;
    char hex[33];
    assert_int_equal(mcz_mc_identity_hash(VB, mc, ignore, &h, NULL), 0);
    mcz_hash_hex(&h, hex);
    assert_string_equal(hex, want);
}

static void expect_error(const mcz_mc *mc, bool ignore, int code, const char *in_message)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_hash128 h;
    assert_int_equal(mcz_mc_identity(VB, mc, ignore, text, sizeof text, &d), code);
    assert_int_equal(d.code, code);
    assert_int_equal(d.context, mc->number);
    if (!strstr(d.message, in_message))
        fail_msg("message '%s' lacks '%s'", d.message, in_message);
    assert_int_equal(mcz_mc_identity_hash(VB, mc, ignore, &h, NULL), code);
}

static void hex_of(const void *data, size_t len, char hex[33])
{
    mcz_hash128 h;
    mcz_murmur3_128(data, len, &h);
    mcz_hash_hex(&h, hex);
}

/* ---- Tests ---- */

static void test_hash_vectors(void **state)
{
    (void)state;
    char hex[33];
    hex_of("", 0, hex);
    assert_string_equal(hex, "00000000000000000000000000000000");
    hex_of("hello", 5, hex);
    assert_string_equal(hex, "029BBD41B3A7D8CB191DAE486A901E5B");
    static const char fox[] = "The quick brown fox jumps over the lazy dog";
    hex_of(fox, sizeof fox - 1, hex);
    assert_string_equal(hex, "6C1B07BC7BBC4BE347939AC4A93C437A");
    hex_of(il_ldarg_ret, sizeof il_ldarg_ret, hex);
    assert_string_equal(hex, "3D2EE4B9EEC5F7F6B49E0ADC603ABDFA");
    /* the example line of superpmi/SUPERPMI.md "Identity", as a one-ISA-word mcs would build it */
    static const char one_word[] =
        "CLASS:METHOD(int):int -- CallingConvention: 0, CorInfoOptions: 0, CorInfoRegionKind: 0, "
        "JitFlags 0000000000000000, ISA Flags 0000000000000000 ILCode Hash: "
        "3D2EE4B9EEC5F7F6B49E0ADC603ABDFA";
    hex_of(one_word, sizeof one_word - 1, hex);
    assert_string_equal(hex, "42FE75388DBE335244840743F9DCD896");
    mcz_hash128 zero = {{0}}, h;
    assert_true(mcz_hash_is_zero(&zero));
    mcz_murmur3_128("hello", 5, &h);
    assert_false(mcz_hash_is_zero(&h));
}

static void test_spec_example(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    add_method(b, &m);
    mcz_mc mc = finish(b);
    expect_identity(&mc, true, "CLASS:METHOD(int):int" ZERO_TAIL);
    expect_hash(&mc, true, "0F60B52288C2088CC03239DB7A1C15CE");
    /* a 16-byte CORJIT_FLAGS leaves the second ISA word zero: same identity */
    static const uint64_t zero[3];
    mcz_mc_builder_reset(b);
    add_compile_method(b, &m, il_ldarg_ret, sizeof il_ldarg_ret);
    add_jit_flags(b, zero, 16);
    add_args(b, &m, 1, 1);
    mc = finish(b);
    expect_hash(&mc, true, "0F60B52288C2088CC03239DB7A1C15CE");
    mcz_mc_builder_free(b);
}

static void test_flags_and_fields(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    m.options = 0x10;
    m.region_kind = 3;
    m.call_conv = 0x80000005u; /* printed with %d */
    static const uint64_t flags[3] = {0x1234000000000010ull, 0xAB, 0xCD00000000000001ull};
    add_compile_method(b, &m, il_ldarg_ret, sizeof il_ldarg_ret);
    add_jit_flags(b, flags, 24);
    add_args(b, &m, 1, 1);
    mcz_mc mc = finish(b);
    expect_identity(&mc, true,
                    "CLASS:METHOD(int):int -- CallingConvention: -2147483643, CorInfoOptions: 16, "
                    "CorInfoRegionKind: 3, JitFlags 1234000000000010, ISA Flags CD00000000000001 "
                    "00000000000000AB ILCode Hash: 3D2EE4B9EEC5F7F6B49E0ADC603ABDFA");
    /* 12 bytes: the first ISA word is cut to its low half, the second reads 0 */
    mcz_mc_builder_reset(b);
    add_compile_method(b, &m, il_ldarg_ret, sizeof il_ldarg_ret);
    add_jit_flags(b, flags, 12);
    add_args(b, &m, 1, 1);
    mc = finish(b);
    mcz_mc_identity(VB, &mc, true, text, sizeof text, NULL);
    assert_non_null(strstr(text, "ISA Flags 0000000000000000 00000000000000AB ILCode"));
    mcz_mc_builder_free(b);
}

static void test_instance_void_and_types(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    m.call_conv = MCZ_CALLCONV_HASTHIS;
    m.ret_type = MCZ_TYPE_VOID;
    m.num_args = 4;
    m.arg_types[0] = MCZ_TYPE_CLASS | MCZ_TYPE_PINNED;
    m.arg_types[1] = MCZ_TYPE_NATIVEINT;
    m.arg_types[2] = MCZ_TYPE_VALUECLASS;
    m.arg_types[3] = MCZ_TYPE_BYREF;
    add_method(b, &m);
    mcz_mc mc = finish(b);
    static const char want[] = "CLASS:METHOD(ref,long,struct,byref):this -- "
                               "CallingConvention: 32, CorInfoOptions: 0, ";
    mcz_mc_identity(VB, &mc, true, text, sizeof text, NULL);
    assert_int_equal(strncmp(text, want, sizeof want - 1), 0);
    /* an explicit this is part of the argument list: no ":this" */
    mcz_mc_builder_reset(b);
    m.call_conv = MCZ_CALLCONV_HASTHIS | MCZ_CALLCONV_EXPLICITTHIS;
    m.ret_type = MCZ_TYPE_DOUBLE;
    add_method(b, &m);
    mc = finish(b);
    mcz_mc_identity(VB, &mc, true, text, sizeof text, NULL);
    assert_int_equal(strncmp(text, "CLASS:METHOD(ref,long,struct,byref):double -- ", 46), 0);
    mcz_mc_builder_free(b);
}

/* Every CorInfoType TypeUtils names, and the ones it refuses. */
static void test_type_names(void **state)
{
    (void)state;
    static const struct {
        uint32_t type;
        const char *name;
    } named[] = {
        {MCZ_TYPE_BOOL, "bool"},     {MCZ_TYPE_CHAR, "char"},      {MCZ_TYPE_BYTE, "byte"},
        {MCZ_TYPE_UBYTE, "ubyte"},   {MCZ_TYPE_SHORT, "short"},    {MCZ_TYPE_USHORT, "ushort"},
        {MCZ_TYPE_UINT, "uint"},     {MCZ_TYPE_LONG, "long"},      {MCZ_TYPE_ULONG, "ulong"},
        {MCZ_TYPE_NATIVEUINT, "long"}, {MCZ_TYPE_FLOAT, "float"},  {MCZ_TYPE_DOUBLE, "double"},
        {MCZ_TYPE_STRING, "ref"},    {MCZ_TYPE_PTR, "ptr"},        {MCZ_TYPE_REFANY, "struct"},
        {MCZ_TYPE_VAR, "ref"},
    };
    mcz_mc_builder *b = mcz_mc_builder_create();
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        method m = int_m_int();
        m.arg_types[0] = named[i].type;
        m.ret_type = named[i].type;
        mcz_mc_builder_reset(b);
        add_method(b, &m);
        mcz_mc mc = finish(b);
        char want[64];
        snprintf(want, sizeof want, "CLASS:METHOD(%s):%s -- ", named[i].name, named[i].name);
        assert_true(mcz_mc_identity(VB, &mc, true, text, sizeof text, NULL) > 0);
        assert_int_equal(strncmp(text, want, strlen(want)), 0);
    }
    static const uint32_t refused[] = {MCZ_TYPE_UNDEF, MCZ_TYPE_VAR + 1, 0x3F};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        method m = int_m_int();
        m.arg_types[0] = refused[i];
        mcz_mc_builder_reset(b);
        add_method(b, &m);
        mcz_mc mc = finish(b);
        expect_error(&mc, true, MCZ_EUNSUPPORTED, "argument 0 has CorInfoType");
        m = int_m_int();
        m.ret_type = refused[i] | 0x40; /* the return type is not stripped */
        mcz_mc_builder_reset(b);
        add_method(b, &m);
        mc = finish(b);
        expect_error(&mc, true, MCZ_EUNSUPPORTED, "return type has CorInfoType");
    }
    mcz_mc_builder_free(b);
}

static void add_inst_map(mcz_mc_builder *b, const uint64_t *handles, size_t n)
{
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_SIG_INST_HANDLE_MAP, true, 0, 8), 0);
    for (size_t i = 0; i < n; i++) {
        uint8_t v[8];
        mcz_put_le64(v, handles[i]);
        assert_int_equal(mcz_mc_builder_add(b, NULL, v), 0);
    }
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

/* First-occurrence instantiation indices: class inst [C] at 0, method inst [C,C] appended at 1;
 * the key carries index 0. */
static void test_generic_first_occurrence(void **state)
{
    (void)state;
    static const uint64_t ccc[] = {TYPE_C, TYPE_C, TYPE_C};
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    m.call_conv = MCZ_CALLCONV_GENERIC;
    m.class_inst_count = 1;
    m.class_inst_index = 0;
    m.meth_inst_count = 2;
    m.meth_inst_index = 1;
    m.key_class_index = 0;
    m.key_meth_index = 0;
    add_method(b, &m);
    add_inst_map(b, ccc, 3);
    mcz_mc mc = finish(b);
    mcz_diag d;
    assert_true(mcz_mc_identity(VB, &mc, true, text, sizeof text, &d) > 0);
    assert_int_equal(strncmp(text, "CLASS:METHOD(int):int -- CallingConvention: 16, ", 48), 0);
    /* keys that copied the stored index are not what SuperPMI looks up */
    m.key_meth_index = 1;
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    add_inst_map(b, ccc, 3);
    mc = finish(b);
    expect_error(&mc, true, MCZ_EMISSING, "no GetArgType entry for argument 0");
    /* a run that is found only where it is stored: [A, B, C] with method inst [B, C] at 1 */
    static const uint64_t abc[] = {TYPE_C + 8, TYPE_C + 16, TYPE_C + 24};
    m.class_inst_count = 0;
    m.class_inst_index = MCZ_NULL_INDEX;
    m.key_class_index = MCZ_NULL_INDEX;
    m.key_meth_index = 1;
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    add_inst_map(b, abc, 3);
    mc = finish(b);
    assert_true(mcz_mc_identity(VB, &mc, true, text, sizeof text, NULL) > 0);
    /* a partial match before the real one: [C, X, C, C] with run [C, C] stored at 2 */
    static const uint64_t cxcc[] = {TYPE_C, TYPE_C + 8, TYPE_C, TYPE_C};
    m.meth_inst_index = 2;
    m.key_meth_index = 2;
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    add_inst_map(b, cxcc, 4);
    mc = finish(b);
    assert_true(mcz_mc_identity(VB, &mc, true, text, sizeof text, NULL) > 0);
    mcz_mc_builder_free(b);
}

/* An untagged SigInstHandleMap (the legacy form: u32 keys in any order, then u64 values). */
static void test_generic_legacy_map(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    m.meth_inst_count = 1;
    m.meth_inst_index = 1;
    m.key_meth_index = 0; /* map [C, C, X] by index: the run [C] first occurs at 0 */
    add_method(b, &m);
    const uint8_t *bytes;
    size_t size;
    assert_int_equal(mcz_mc_builder_finish(b, &bytes, &size), 0);
    /* stored out of order: read by position the map would be [X, C, C], giving key index 1 */
    static const uint32_t keys[3] = {2, 0, 1};
    static const uint64_t values[3] = {TYPE_C + 8, TYPE_C, TYPE_C};
    enum { MAP = 8 + 3 * 4 + 3 * 8, PACKET = 5 + MAP + 1 };
    uint8_t *grown = malloc(size + PACKET);
    memcpy(grown, bytes, size - 2);
    uint8_t *p = grown + size - 2;
    p[0] = MCZ_PACKET_SIG_INST_HANDLE_MAP;
    mcz_put_le32(p + 1, MAP);
    mcz_put_le32(p + 5, 3); /* count, then pool length 0 */
    mcz_put_le32(p + 9, 0);
    for (int i = 0; i < 3; i++) {
        mcz_put_le32(p + 13 + 4 * i, keys[i]);
        mcz_put_le64(p + 25 + 8 * i, values[i]);
    }
    p[5 + MAP] = 0x42;
    memcpy(p + PACKET, "42", 2);
    mcz_put_le32(grown + 2, mcz_get_le32(grown + 2) + PACKET);
    mcz_mc mc;
    assert_int_equal(mcz_mc_from_bytes(grown, size + PACKET, 1, 0, &mc, NULL), 0);
    assert_int_equal(mcz_mc_check(&mc, NULL), 0);
    assert_true(mcz_mc_identity(VB, &mc, true, text, sizeof text, NULL) > 0);
    assert_int_equal(strncmp(text, "CLASS:METHOD(int):int -- ", 25), 0);
    free(grown);
    mcz_mc_builder_free(b);
}

static void test_generic_bad_map(void **state)
{
    (void)state;
    static const uint64_t c1[] = {TYPE_C};
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    m.meth_inst_count = 2;
    m.meth_inst_index = 0;
    m.key_meth_index = 0;
    add_method(b, &m); /* no SigInstHandleMap at all */
    mcz_mc mc = finish(b);
    expect_error(&mc, true, MCZ_EMISSING, "SigInstHandleMap");
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    add_inst_map(b, c1, 1); /* run of 2 at 0 does not fit a map of 1 */
    mc = finish(b);
    expect_error(&mc, true, MCZ_ECORRUPT, "outside SigInstHandleMap");
    m.meth_inst_index = 0xFFFFFFFFu; /* index + count wraps */
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    add_inst_map(b, c1, 1);
    mc = finish(b);
    expect_error(&mc, true, MCZ_ECORRUPT, "outside SigInstHandleMap");
    mcz_mc_builder_free(b);
}

static void test_names(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    add_method(b, &m);
    add_names(b, "System.Collections.Generic.List`1[System.Int32]", "Add");
    mcz_mc mc = finish(b);
    expect_identity(&mc, false, "System.Collections.Generic.List`1[System.Int32]:Add(int):int"
                    ZERO_TAIL);
    expect_identity(&mc, true, "CLASS:METHOD(int):int" ZERO_TAIL);
    /* names absent */
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    mc = finish(b);
    expect_error(&mc, false, MCZ_EMISSING, "no GetMethodClass (71) packet");
    uint64_t ftn = FTN, cls = CLS;
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    add_u64_map(b, MCZ_PACKET_GET_METHOD_CLASS, &ftn, &cls, 1);
    mc = finish(b);
    expect_error(&mc, false, MCZ_EMISSING, "no PrintClassName (149) packet");
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    add_u64_map(b, MCZ_PACKET_GET_METHOD_CLASS, &ftn, &cls, 1);
    add_print(b, MCZ_PACKET_PRINT_CLASS_NAME, CLS, "C", 1, 2);
    add_print(b, MCZ_PACKET_PRINT_METHOD_NAME, FTN + 8, "M", 1, 2); /* another method's */
    mc = finish(b);
    expect_error(&mc, false, MCZ_EMISSING, "no PrintMethodName entry for handle 00007FF800001000");
    mcz_mc_builder_free(b);
}

/* getFromPrinter: long names, unknown required sizes, truncated records, embedded NULs. */
static void test_print_records(void **state)
{
    (void)state;
    char long_name[301];
    memset(long_name, 'N', 300);
    long_name[300] = '\0';
    uint64_t ftn = FTN, cls = CLS;
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    struct {
        const char *name;
        uint32_t stored, required;
        int code;
        const char *shown;
    } cases[] = {
        {long_name, 300, 301, 0, long_name},
        {long_name, 300, 0xFFFFFFFFu, MCZ_EMISSING, "lacks its required size"},
        {long_name, 100, 301, MCZ_EMISSING, "holds 100 of the 301 bytes"},
        {long_name, 10, 200, MCZ_EMISSING, "holds 10 of the 200 bytes"},
        {long_name, 300, 200, 0, NULL}, /* the first 255 bytes */
        {"ab\0cd", 5, 6, 0, "ab"},
        {"", 0, 1, 0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mcz_mc_builder_reset(b);
        add_method(b, &m);
        add_u64_map(b, MCZ_PACKET_GET_METHOD_CLASS, &ftn, &cls, 1);
        add_print(b, MCZ_PACKET_PRINT_CLASS_NAME, CLS, cases[i].name, cases[i].stored,
                  cases[i].required);
        add_print(b, MCZ_PACKET_PRINT_METHOD_NAME, FTN, "M", 1, 2);
        mcz_mc mc = finish(b);
        if (cases[i].code) {
            expect_error(&mc, false, cases[i].code, cases[i].shown);
            continue;
        }
        assert_true(mcz_mc_identity(VB, &mc, false, text, sizeof text, NULL) > 0);
        size_t shown = cases[i].shown ? strlen(cases[i].shown) : 255;
        assert_memory_equal(text, cases[i].name, shown);
        assert_int_equal(strncmp(text + shown, ":M(int):int -- ", 15), 0);
    }
    mcz_mc_builder_free(b);
}

static void add_pgo(mcz_mc_builder *b, uint64_t ftn, int32_t result, const uint8_t *data,
                    uint32_t data_len)
{
    static const struct {
        uint64_t offset;
        uint32_t kind;
    } schema[] = {
        {0, MCZ_PGO_KIND_BB_INT_COUNT},
        {8, MCZ_PGO_KIND_EDGE_LONG_COUNT},
        {16, MCZ_PGO_KIND_HANDLE_HISTOGRAM_TYPES}, /* not a counter: skipped */
        {4, MCZ_PGO_KIND_EDGE_INT_COUNT},
    };
    uint8_t raw[4 * MCZ_PGOS_SIZE] = {0}, k[8], v[MCZ_PGO_SIZE] = {0};
    for (int i = 0; i < 4; i++) {
        mcz_put_le64(raw + i * MCZ_PGOS_SIZE + MCZ_PGOS_OFFSET, schema[i].offset);
        mcz_put_le32(raw + i * MCZ_PGOS_SIZE + MCZ_PGOS_KIND, schema[i].kind);
        mcz_put_le32(raw + i * MCZ_PGOS_SIZE + MCZ_PGOS_COUNT, 1);
    }
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_GET_PGO_RESULTS, false, 8,
                                          MCZ_PGO_SIZE), 0);
    mcz_put_le64(k, ftn);
    mcz_put_le32(v + MCZ_PGO_COUNT_SCHEMA_ITEMS, 4);
    mcz_put_le32(v + MCZ_PGO_SCHEMA_INDEX, mcz_mc_builder_buffer(b, raw, sizeof raw));
    mcz_put_le32(v + MCZ_PGO_DATA_INDEX, mcz_mc_builder_buffer(b, data, data_len));
    mcz_put_le32(v + MCZ_PGO_DATA_BYTE_COUNT, data_len);
    mcz_put_le32(v + MCZ_PGO_RESULT, (uint32_t)result);
    mcz_put_le32(v + MCZ_PGO_SOURCE, 2);
    assert_int_equal(mcz_mc_builder_add(b, k, v), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

static void test_pgo_suffix(void **state)
{
    (void)state;
    uint8_t data[24] = {0};
    mcz_put_le32(data + 0, 5);            /* block count */
    mcz_put_le32(data + 4, 100);          /* edge int count */
    mcz_put_le64(data + 8, 1ull << 40);   /* edge long count */
    mcz_put_le64(data + 16, 0xDEADBEEF);  /* type handle: not counted */
    char hash[33], want[512];
    hex_of(data, 16, hash);
    snprintf(want, sizeof want,
             "CLASS:METHOD(int):int" ZERO_TAIL " Pgo Counters 4, Count %llu, Hash: %s",
             (unsigned long long)(105 + (1ull << 40)), hash);
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    add_method(b, &m);
    add_pgo(b, FTN, 0, data, sizeof data);
    mcz_mc mc = finish(b);
    expect_identity(&mc, true, want);
    /* a failed HRESULT, or another method's entry: no suffix */
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    add_pgo(b, FTN, (int32_t)0x80004005u, data, sizeof data);
    mc = finish(b);
    expect_identity(&mc, true, "CLASS:METHOD(int):int" ZERO_TAIL);
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    add_pgo(b, FTN + 8, 0, data, sizeof data);
    mc = finish(b);
    expect_identity(&mc, true, "CLASS:METHOD(int):int" ZERO_TAIL);
    /* counters past the recorded data */
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    add_pgo(b, FTN, 0, data, 12);
    mc = finish(b);
    expect_error(&mc, true, MCZ_ECORRUPT, "outside the 12 data bytes");
    mcz_mc_builder_free(b);
}

/* The name is cut so that "<name> -- " keeps 0xFBFF characters; the rest always fits. */
static void test_name_limit(void **state)
{
    (void)state;
    size_t n = 70000;
    char *name = malloc(n + 1);
    assert_non_null(name);
    memset(name, 'x', n);
    name[n] = '\0';
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    add_method(b, &m);
    add_names(b, name, "M");
    mcz_mc mc = finish(b);
    int64_t len = mcz_mc_identity(VB, &mc, false, text, sizeof text, NULL);
    static const char tail[] = "CallingConvention: 0, CorInfoOptions: 0";
    assert_int_equal(len, 0xFBFF + strlen(strstr(ZERO_TAIL, "Calling")));
    assert_int_equal(strspn(text, "x"), 0xFBFF);
    assert_int_equal(strncmp(text + 0xFBFF, tail, sizeof tail - 1), 0);
    /* a small buffer gets a truncated copy; the length is the full one */
    char small[10];
    assert_int_equal(mcz_mc_identity(VB, &mc, false, small, sizeof small, NULL), len);
    assert_string_equal(small, "xxxxxxxxx");
    assert_int_equal(mcz_mc_identity(VB, &mc, false, NULL, 0, NULL), len);
    free(name);
    mcz_mc_builder_free(b);
}

/* numArgs 0xFFFFFFFF over a one-handle cycle: ends at the name limit, quickly. */
static void test_argument_cycle(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    m.num_args = 0xFFFFFFFFu;
    static const uint64_t zero[3];
    add_compile_method(b, &m, il_ldarg_ret, sizeof il_ldarg_ret);
    add_jit_flags(b, zero, 24);
    add_args(b, &m, 1, 0);
    uint64_t self = ARG0;
    add_u64_map(b, MCZ_PACKET_GET_ARG_NEXT, &self, &self, 1);
    mcz_mc mc = finish(b);
    int64_t len = mcz_mc_identity(VB, &mc, true, text, sizeof text, NULL);
    assert_true(len > 0xFBFF);
    assert_int_equal(strncmp(text, "CLASS:METHOD(int,int,int,", 25), 0);
    assert_int_equal(strncmp(text + 0xFBFF, "CallingConvention", 17), 0);
    /* a chain that ends: the walk must still fail at the first missing step */
    m.num_args = 3;
    mcz_mc_builder_reset(b);
    add_compile_method(b, &m, il_ldarg_ret, sizeof il_ldarg_ret);
    add_jit_flags(b, zero, 24);
    m.arg_types[1] = m.arg_types[2] = MCZ_TYPE_INT;
    add_args(b, &m, 3, 2);
    mc = finish(b);
    expect_error(&mc, true, MCZ_EMISSING, "no GetArgNext entry for argument 2");
    mcz_mc_builder_reset(b);
    add_compile_method(b, &m, il_ldarg_ret, sizeof il_ldarg_ret);
    add_jit_flags(b, zero, 24);
    add_args(b, &m, 1, 3);
    mc = finish(b);
    expect_error(&mc, true, MCZ_EMISSING, "no GetArgType entry for argument 1");
    mcz_mc_builder_free(b);
}

/* The minimal context (superpmi/SUPERPMI.md "A minimal context"): passes container checks, lacks
 * the argument packets. */
static const uint8_t minimal_mc[] = {
    0x6d, 0x63, 0x36, 0x01, 0x00, 0x00, 0x8f, 0xf6, 0x00, 0x00, 0x00, 0x4c,
    0x57, 0x4d, 0x31, 0x01, 0x00, 0x00, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0xf8, 0x7f, 0x00, 0x00, 0x10,
    0x00, 0x00, 0x00, 0xf8, 0x7f, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00,
    0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x03, 0x20, 0x00, 0x00, 0xf8,
    0x7f, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00,
    0x20, 0x00, 0x00, 0xf8, 0x7f, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0xf8,
    0x7f, 0x00, 0x00, 0x01, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00,
    0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0xf8,
    0x7f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x2a, 0x04, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x08, 0x08, 0x42, 0x9a, 0x34, 0x00, 0x00, 0x00, 0x4c,
    0x57, 0x4d, 0x31, 0x01, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x18,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x42, 0x34, 0x32,
};

static void test_minimal_context(void **state)
{
    (void)state;
    assert_int_equal(sizeof minimal_mc, 318);
    mcz_mc mc;
    assert_int_equal(mcz_mc_from_bytes(minimal_mc, sizeof minimal_mc, 3, 0, &mc, NULL), 0);
    expect_error(&mc, true, MCZ_EMISSING, "no GetArgType (140) packet for a method with 1 arg");
    expect_error(&mc, false, MCZ_EMISSING, "no GetMethodClass (71) packet");
    mcz_diag d;
    mcz_mc_identity(VB, &mc, true, text, sizeof text, &d);
    /* the context is data; the message does not repeat it */
    assert_string_equal(d.message, "no GetArgType (140) packet for a method with 1 arguments");
    assert_int_equal(d.context, 3);
}

/* The minimal context's bytes plus the two argument packets it lacks give the example hash of
 * superpmi/SUPERPMI.md "Identity". */
static void test_minimal_context_completed(void **state)
{
    (void)state;
    mcz_mc mc;
    assert_int_equal(mcz_mc_from_bytes(minimal_mc, sizeof minimal_mc, 1, 0, &mc, NULL), 0);
    mcz_mc_builder *b = mcz_mc_builder_create();
    uint32_t pos = 0;
    mcz_packet p;
    while (mcz_packet_next(&mc, &pos, &p, NULL) == 1) {
        mcz_map m;
        assert_int_equal(mcz_map_parse(VB, &p, &m, NULL), 0);
        assert_int_equal(mcz_mc_builder_put_map(b, p.id, &m), 0);
    }
    const uint8_t *sig = minimal_mc + 0x1B + MCZ_MI_ARGS; /* the CompileMethod value's args */
    uint8_t key[MCZ_AT_KEY_SIZE] = {0}, v[MCZ_AT_VALUE_SIZE] = {0};
    mcz_put_le32(key + MCZ_AT_KEY_NUM_ARGS, 1);
    mcz_put_le32(key + MCZ_AT_KEY_CLASS_INST_INDEX, MCZ_NULL_INDEX);
    mcz_put_le32(key + MCZ_AT_KEY_METH_INST_INDEX, MCZ_NULL_INDEX);
    memcpy(key + MCZ_AT_KEY_METHOD_SIGNATURE, sig + MCZ_SIG_METHOD_SIGNATURE, 8);
    memcpy(key + MCZ_AT_KEY_SCOPE, sig + MCZ_SIG_SCOPE, 8);
    memcpy(key + MCZ_AT_KEY_ARGS, sig + MCZ_SIG_ARGS, 8);
    mcz_put_le32(v + MCZ_AT_VALUE_RESULT, MCZ_TYPE_INT);
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_GET_ARG_TYPE, false, MCZ_AT_KEY_SIZE,
                                          MCZ_AT_VALUE_SIZE), 0);
    assert_int_equal(mcz_mc_builder_add(b, key, v), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
    uint64_t arg = mcz_get_le64(sig + MCZ_SIG_ARGS), end = 0;
    add_u64_map(b, MCZ_PACKET_GET_ARG_NEXT, &arg, &end, 1);
    mc = finish(b);
    expect_identity(&mc, true, "CLASS:METHOD(int):int" ZERO_TAIL);
    expect_hash(&mc, true, "0F60B52288C2088CC03239DB7A1C15CE");
    mcz_mc_builder_free(b);
}

static void test_missing_and_corrupt(void **state)
{
    (void)state;
    static const uint8_t empty_mc[] = {0x6D, 0x63, 0, 0, 0, 0, 0x34, 0x32};
    mcz_mc mc;
    assert_int_equal(mcz_mc_from_bytes(empty_mc, sizeof empty_mc, 1, 0, &mc, NULL), 0);
    expect_error(&mc, true, MCZ_EMISSING, "no CompileMethod (143) packet");
    static const uint64_t zero[3];
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    add_compile_method(b, &m, il_ldarg_ret, sizeof il_ldarg_ret);
    mc = finish(b);
    expect_error(&mc, true, MCZ_EMISSING, "no GetJitFlags (154) packet");
    mcz_mc_builder_reset(b);
    add_compile_method(b, &m, il_ldarg_ret, sizeof il_ldarg_ret);
    add_jit_flags(b, zero, 32);
    mc = finish(b);
    expect_error(&mc, true, MCZ_EUNSUPPORTED, "holds 32 bytes of CORJIT_FLAGS");
    /* an odd method handle is a JIT helper */
    m.ftn = (42 << 2) | 1;
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    mc = finish(b);
    expect_error(&mc, true, MCZ_EUNSUPPORTED, "JIT helper 42");
    mcz_mc_builder_free(b);
}

/* Hand-damaged bytes: IL past its chunk, a bad pool index, a duplicated packet. */
static void test_damaged_bytes(void **state)
{
    (void)state;
    uint8_t bytes[sizeof minimal_mc];
    mcz_mc mc;
    memcpy(bytes, minimal_mc, sizeof bytes);
    bytes[0x2F] = 3; /* ILCodeSize 3 in a 2-byte chunk */
    assert_int_equal(mcz_mc_from_bytes(bytes, sizeof bytes, 1, 0, &mc, NULL), 0);
    expect_error(&mc, true, MCZ_ECORRUPT, "IL code: pool index 4 does not hold 3 bytes");
    memcpy(bytes, minimal_mc, sizeof bytes);
    bytes[0x7B] = 0xF0; /* args pSig_Index far past the pool */
    assert_int_equal(mcz_mc_from_bytes(bytes, sizeof bytes, 1, 0, &mc, NULL), 0);
    expect_error(&mc, true, MCZ_ECORRUPT, "arguments: pool index 240");
    memcpy(bytes, minimal_mc, sizeof bytes);
    bytes[0x117] = 0x20; /* jit flags at pool index 32 of a 28-byte pool */
    assert_int_equal(mcz_mc_from_bytes(bytes, sizeof bytes, 1, 0, &mc, NULL), 0);
    expect_error(&mc, true, MCZ_ECORRUPT, "GetJitFlags: pool index 32");
}

/* A repeated packet: SuperPMI's loader keeps the last copy. */
static void test_last_packet_wins(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = int_m_int();
    static const uint64_t zero[3];
    static const uint8_t other_il[] = {0x00, 0x2A};
    add_compile_method(b, &m, other_il, sizeof other_il);
    add_method(b, &m);
    mcz_mc mc = finish(b);
    expect_hash(&mc, true, "0F60B52288C2088CC03239DB7A1C15CE");
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    add_jit_flags(b, zero, 32); /* the last GetJitFlags is the one read */
    mc = finish(b);
    expect_error(&mc, true, MCZ_EUNSUPPORTED, "holds 32 bytes");
    mcz_mc_builder_free(b);
}


/* ---- JIT-EE versions (superpmi/SUPERPMI.md "Packet tables per JIT-EE version") ---- */

#define VC mcz_jit_ee_find("C")

/* A static method returning a class, with a struct, a byref, a class and a pointer argument,
 * its CorInfoTypes numbered as version v numbers them. */
static method typed_method(const mcz_jit_ee *v)
{
    method m = int_m_int();
    m.ret_type = (uint32_t)mcz_jit_ee_type_raw(v, MCZ_TYPE_CLASS);
    m.num_args = 4;
    m.arg_types[0] = (uint32_t)mcz_jit_ee_type_raw(v, MCZ_TYPE_VALUECLASS);
    m.arg_types[1] = (uint32_t)mcz_jit_ee_type_raw(v, MCZ_TYPE_BYREF);
    m.arg_types[2] = (uint32_t)mcz_jit_ee_type_raw(v, MCZ_TYPE_CLASS);
    m.arg_types[3] = (uint32_t)mcz_jit_ee_type_raw(v, MCZ_TYPE_PTR);
    return m;
}

static void expect_identity_in(const mcz_jit_ee *v, const mcz_mc *mc, bool ignore,
                               const char *want, const char *want_hash)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    int64_t n = mcz_mc_identity(v, mc, ignore, text, sizeof text, &d);
    if (n < 0)
        print_message("unexpected error: %s\n", d.message);
    assert_string_equal(text, want);
    char hex[33], line_hex[33];
    mcz_hash128 h;
    assert_int_equal(mcz_mc_identity_hash(v, mc, ignore, &h, NULL), 0);
    mcz_hash_hex(&h, hex);
    hex_of(want, strlen(want), line_hex); /* the hash is of the line, as hash.cpp takes it */
    assert_string_equal(hex, line_hex);
    assert_string_equal(hex, want_hash);
}

/* typeutils.cpp names ref/struct/byref/ptr alike in both versions; what differs is the
 * numbering: B's VALUECLASS is 0x13, BYREF 0x12, CLASS 0x14, PTR 0x11; C's 0x12, 0x11, 0x13,
 * 0x10. */
static void test_versions_name_their_own_numbering(void **state)
{
    (void)state;
    static const char want[] = "CLASS:METHOD(struct,byref,ref,ptr):ref" ZERO_TAIL;
    assert_int_equal(mcz_jit_ee_type_raw(VB, MCZ_TYPE_CLASS), 0x14);
    assert_int_equal(mcz_jit_ee_type_raw(VC, MCZ_TYPE_CLASS), 0x13);
    mcz_mc_builder *b = mcz_mc_builder_create();
    const mcz_jit_ee *versions[] = {VB, VC};
    for (size_t i = 0; i < 2; i++) {
        method m = typed_method(versions[i]);
        mcz_mc_builder_reset(b);
        add_method(b, &m);
        mcz_mc mc = finish(b);
        expect_identity_in(versions[i], &mc, true, want, "5DE9A808C66C4DE5A5A133C2DBDBFF7A");
    }
    mcz_mc_builder_free(b);
}

/* The same bytes read with the other version's numbering: what a reader that knew only B made
 * of a newer collection ("ref" arguments named "struct"), and the reverse. */
static void test_versions_misread_each_other(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    method m = typed_method(VC);
    add_method(b, &m);
    mcz_mc mc = finish(b);
    mcz_mc_identity(VB, &mc, true, text, sizeof text, NULL);
    static const char misread[] = "CLASS:METHOD(byref,ptr,struct,ref):struct -- ";
    assert_int_equal(strncmp(text, misread, sizeof misread - 1), 0);
    m = typed_method(VB);
    mcz_mc_builder_reset(b);
    add_method(b, &m);
    mc = finish(b);
    mcz_diag d;
    assert_int_equal(mcz_mc_identity(VC, &mc, true, text, sizeof text, &d), MCZ_EUNSUPPORTED);
    assert_non_null(strstr(d.message, "argument 2 has CorInfoType 0x14"));
    mcz_mc_builder_free(b);
}

/* Holder:Make<T>(T):T for T a class from the method instantiation: the GetArgType key carries
 * the first SigInstHandleMap position of the method instantiation [TYPE_C] (0), the argument
 * and the return are CLASS in the version's numbering, and the names come from the name
 * packets. */
static void test_versions_generic_method_instantiation(void **state)
{
    (void)state;
    static const uint64_t inst[] = {TYPE_C};
    static const char want[] =
        "Holder:Make(ref):ref -- CallingConvention: 16, CorInfoOptions: 0, CorInfoRegionKind: 0, "
        "JitFlags 0000000000000000, ISA Flags 0000000000000000 0000000000000000 ILCode Hash: "
        "3D2EE4B9EEC5F7F6B49E0ADC603ABDFA";
    mcz_mc_builder *b = mcz_mc_builder_create();
    const mcz_jit_ee *versions[] = {VB, VC};
    for (size_t i = 0; i < 2; i++) {
        const mcz_jit_ee *v = versions[i];
        method m = int_m_int();
        m.call_conv = MCZ_CALLCONV_GENERIC;
        m.meth_inst_count = 1;
        m.meth_inst_index = 0;
        m.key_meth_index = 0;
        m.ret_type = (uint32_t)mcz_jit_ee_type_raw(v, MCZ_TYPE_CLASS);
        m.arg_types[0] = (uint32_t)mcz_jit_ee_type_raw(v, MCZ_TYPE_CLASS);
        mcz_mc_builder_reset(b);
        add_method(b, &m);
        add_inst_map(b, inst, 1);
        add_names(b, "Holder", "Make");
        mcz_mc mc = finish(b);
        expect_identity_in(v, &mc, false, want, "0680A2968D5A1D9FF28F01D29DBE67E6");
        /* without names, as -removeDup keys it */
        mcz_mc_identity(v, &mc, true, text, sizeof text, NULL);
        assert_int_equal(strncmp(text, "CLASS:METHOD(ref):ref -- CallingConvention: 16,", 47), 0);
        assert_ptr_equal(mcz_jit_ee_detect(&mc), i == 0 ? VB : NULL); /* 0x14 is B's alone */
    }
    mcz_mc_builder_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_vectors),
        cmocka_unit_test(test_spec_example),
        cmocka_unit_test(test_flags_and_fields),
        cmocka_unit_test(test_instance_void_and_types),
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_generic_first_occurrence),
        cmocka_unit_test(test_generic_legacy_map),
        cmocka_unit_test(test_generic_bad_map),
        cmocka_unit_test(test_versions_name_their_own_numbering),
        cmocka_unit_test(test_versions_misread_each_other),
        cmocka_unit_test(test_versions_generic_method_instantiation),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_print_records),
        cmocka_unit_test(test_pgo_suffix),
        cmocka_unit_test(test_name_limit),
        cmocka_unit_test(test_argument_cycle),
        cmocka_unit_test(test_minimal_context),
        cmocka_unit_test(test_minimal_context_completed),
        cmocka_unit_test(test_missing_and_corrupt),
        cmocka_unit_test(test_damaged_bytes),
        cmocka_unit_test(test_last_packet_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
