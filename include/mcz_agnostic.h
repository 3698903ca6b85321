/*
 * mcz_agnostic.h - byte layouts of the SuperPMI value structs mcz reads and writes
 * (agnostic.h in dotnet/runtime; every struct is #pragma pack(1), little-endian, handles
 * widened to u64). Field offsets are constants, read with the mcz_get_le16/32/64 accessors
 * below: never overlay a C struct on file bytes.
 *
 * Shared by the library (identity, dumps) and by the corpus generator (bench/mchgen), so that a
 * layout is written down exactly once.
 */
#ifndef MCZ_AGNOSTIC_H
#define MCZ_AGNOSTIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Little-endian access; never memcpy a struct to or from disk. */
static inline uint16_t mcz_get_le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static inline uint32_t mcz_get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t mcz_get_le64(const uint8_t *p)
{
    return (uint64_t)mcz_get_le32(p) | ((uint64_t)mcz_get_le32(p + 4) << 32);
}

static inline void mcz_put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void mcz_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void mcz_put_le64(uint8_t *p, uint64_t v)
{
    mcz_put_le32(p, (uint32_t)v);
    mcz_put_le32(p + 4, (uint32_t)(v >> 32));
}


/* True when [off, off+len) lies inside a buffer of `size` bytes. Written so it cannot overflow. */
static inline bool mcz_fits(size_t size, size_t off, size_t len)
{
    return off <= size && len <= size - off;
}

#define MCZ_NULL_INDEX 0xFFFFFFFFu /* "no pool buffer" */

/* Composite key/value types: DD, DLD, DLDL, DLDD. */
enum {
    MCZ_DD_SIZE = 8,    /* u32 A @0, u32 B @4 */
    MCZ_DLD_SIZE = 12,  /* u64 A @0, u32 B @8 */
    MCZ_DLDL_SIZE = 16, /* u64 A @0, u64 B @8 */
    MCZ_DLDD_SIZE = 16  /* u64 A @0, u32 B @8, u32 C @12 */
};

/* Agnostic_CORINFO_SIG_INFO (84 bytes). */
enum {
    MCZ_SIG_CALL_CONV = 0,             /* u32 */
    MCZ_SIG_RET_TYPE_CLASS = 4,        /* u64 */
    MCZ_SIG_RET_TYPE_SIG_CLASS = 12,   /* u64 */
    MCZ_SIG_RET_TYPE = 20,             /* u32 CorInfoType */
    MCZ_SIG_FLAGS = 24,                /* u32 */
    MCZ_SIG_NUM_ARGS = 28,             /* u32 */
    MCZ_SIG_CLASS_INST_COUNT = 32,     /* u32 */
    MCZ_SIG_CLASS_INST_INDEX = 36,     /* u32 index into SigInstHandleMap (184) or -1 */
    MCZ_SIG_METH_INST_COUNT = 40,      /* u32 */
    MCZ_SIG_METH_INST_INDEX = 44,      /* u32 */
    MCZ_SIG_ARGS = 48,                 /* u64 first arg-list handle */
    MCZ_SIG_PSIG_INDEX = 56,           /* u32 pool index of the ECMA signature blob */
    MCZ_SIG_CB_SIG = 60,               /* u32 */
    MCZ_SIG_METHOD_SIGNATURE = 64,     /* u64 */
    MCZ_SIG_SCOPE = 72,                /* u64 */
    MCZ_SIG_TOKEN = 80,                /* u32 */
    MCZ_SIG_SIZE = 84
};

/* Agnostic_CORINFO_METHOD_INFO (208 bytes). */
enum {
    MCZ_MI_FTN = 0,          /* u64 */
    MCZ_MI_SCOPE = 8,        /* u64 */
    MCZ_MI_IL_OFFSET = 16,   /* u32 pool index of the IL bytes */
    MCZ_MI_IL_SIZE = 20,     /* u32 */
    MCZ_MI_MAX_STACK = 24,   /* u32 */
    MCZ_MI_EH_COUNT = 28,    /* u32 */
    MCZ_MI_OPTIONS = 32,     /* u32 CorInfoOptions */
    MCZ_MI_REGION_KIND = 36, /* u32 */
    MCZ_MI_ARGS = 40,        /* SIG_INFO */
    MCZ_MI_LOCALS = 124,     /* SIG_INFO */
    MCZ_MI_SIZE = 208
};

/* Packet 143 CompileMethod: key u32 0 -> Agnostic_CompileMethod (216; 212 in pre-`os` files). */
enum {
    MCZ_CM_INFO = 0,   /* METHOD_INFO */
    MCZ_CM_FLAGS = 208, /* u32 */
    MCZ_CM_OS = 212,    /* u32 CORINFO_OS */
    MCZ_CM_SIZE = 216,
    MCZ_CM_SIZE_NO_OS = 212
};

/* Packet 154 GetJitFlags: key u32 0 -> DD {A = pool index of CORJIT_FLAGS, B = its length}. */

/* Agnostic_PrintResult (12): PrintMethodName (6), PrintClassName (149). Strings without NUL. */
enum {
    MCZ_PR_REQUIRED_SIZE = 0, /* u32, incl. NUL; -1 unknown */
    MCZ_PR_BUFFER = 4,        /* u32 pool index, -1 none */
    MCZ_PR_BUFFER_SIZE = 8,   /* u32 bytes stored */
    MCZ_PR_SIZE = 12
};

/* Agnostic_GetArgType_Key (48) -> Agnostic_GetArgType_Value (16), packet 140. */
enum {
    MCZ_AT_KEY_FLAGS = 0,
    MCZ_AT_KEY_NUM_ARGS = 4,
    MCZ_AT_KEY_CLASS_INST_COUNT = 8,
    MCZ_AT_KEY_CLASS_INST_INDEX = 12,
    MCZ_AT_KEY_METH_INST_COUNT = 16,
    MCZ_AT_KEY_METH_INST_INDEX = 20,
    MCZ_AT_KEY_METHOD_SIGNATURE = 24, /* u64 */
    MCZ_AT_KEY_SCOPE = 32,            /* u64 */
    MCZ_AT_KEY_ARGS = 40,             /* u64 current arg handle */
    MCZ_AT_KEY_SIZE = 48,
    MCZ_AT_VALUE_VC_TYPE_RET = 0, /* u64 */
    MCZ_AT_VALUE_RESULT = 8,      /* u32 CorInfoTypeWithMod */
    MCZ_AT_VALUE_EXCEPTION = 12,  /* u32 */
    MCZ_AT_VALUE_SIZE = 16
};

/* Agnostic_GetArgClass_Key (40) -> Agnostic_GetArgClass_Value (12), packet 139. */
enum {
    MCZ_AC_KEY_CLASS_INST_COUNT = 0,
    MCZ_AC_KEY_CLASS_INST_INDEX = 4,
    MCZ_AC_KEY_METH_INST_COUNT = 8,
    MCZ_AC_KEY_METH_INST_INDEX = 12,
    MCZ_AC_KEY_METHOD_SIGNATURE = 16, /* u64 */
    MCZ_AC_KEY_SCOPE = 24,            /* u64 */
    MCZ_AC_KEY_ARGS = 32,             /* u64 */
    MCZ_AC_KEY_SIZE = 40,
    MCZ_AC_VALUE_CLASS = 0,     /* u64 */
    MCZ_AC_VALUE_EXCEPTION = 8, /* u32 */
    MCZ_AC_VALUE_SIZE = 12
};

/* Agnostic_GetPgoInstrumentationResults (28 in current runtimes, 24 without dynamicPgo), 187. */
enum {
    MCZ_PGO_COUNT_SCHEMA_ITEMS = 0,
    MCZ_PGO_SCHEMA_INDEX = 4,
    MCZ_PGO_DATA_INDEX = 8,
    MCZ_PGO_DATA_BYTE_COUNT = 12,
    MCZ_PGO_RESULT = 16, /* HRESULT: >= 0 succeeded */
    MCZ_PGO_SOURCE = 20,
    MCZ_PGO_DYNAMIC = 24,
    MCZ_PGO_SIZE = 28,
    MCZ_PGO_SIZE_OLD = 24,
    /* Agnostic_PgoInstrumentationSchema (24) */
    MCZ_PGOS_OFFSET = 0, /* u64 */
    MCZ_PGOS_KIND = 8,
    MCZ_PGOS_IL_OFFSET = 12,
    MCZ_PGOS_COUNT = 16,
    MCZ_PGOS_OTHER = 20,
    MCZ_PGOS_SIZE = 24
};

/* Instrumentation kinds counted by the identity's PGO suffix. */
enum {
    MCZ_PGO_KIND_BB_INT_COUNT = 0x41,
    MCZ_PGO_KIND_BB_LONG_COUNT = 0x42,
    MCZ_PGO_KIND_HANDLE_HISTOGRAM_TYPES = 0xC3,
    MCZ_PGO_KIND_HANDLE_HISTOGRAM_METHODS = 0xC4,
    MCZ_PGO_KIND_EDGE_INT_COUNT = 0x181,
    MCZ_PGO_KIND_EDGE_LONG_COUNT = 0x182,
    MCZ_PGO_KIND_LIKELY_CLASS = 0x1C3,
    MCZ_PGO_KIND_LIKELY_METHOD = 0x1C4
};

/* CR CompileMethod (118): key u32 0 -> Agnostic_CompileMethodResults (16). */
enum {
    MCZ_CMR_NATIVE_ENTRY = 0, /* u64 */
    MCZ_CMR_NATIVE_SIZE = 8,  /* u32 */
    MCZ_CMR_RESULT = 12,      /* u32 CorJitResult */
    MCZ_CMR_SIZE = 16
};

/* CorInfoType (low 6 bits of CorInfoTypeWithMod; 0x40 = pinned). */
enum {
    MCZ_TYPE_UNDEF = 0, MCZ_TYPE_VOID, MCZ_TYPE_BOOL, MCZ_TYPE_CHAR, MCZ_TYPE_BYTE, MCZ_TYPE_UBYTE,
    MCZ_TYPE_SHORT, MCZ_TYPE_USHORT, MCZ_TYPE_INT, MCZ_TYPE_UINT, MCZ_TYPE_LONG, MCZ_TYPE_ULONG,
    MCZ_TYPE_NATIVEINT, MCZ_TYPE_NATIVEUINT, MCZ_TYPE_FLOAT, MCZ_TYPE_DOUBLE, MCZ_TYPE_STRING,
    MCZ_TYPE_PTR, MCZ_TYPE_BYREF, MCZ_TYPE_VALUECLASS, MCZ_TYPE_CLASS, MCZ_TYPE_REFANY,
    MCZ_TYPE_VAR,
    MCZ_TYPE_MASK = 0x3F,
    MCZ_TYPE_PINNED = 0x40
};

/* CorInfoCallConv flag bits used by the identity string. */
enum {
    MCZ_CALLCONV_GENERIC = 0x10,
    MCZ_CALLCONV_HASTHIS = 0x20,
    MCZ_CALLCONV_EXPLICITTHIS = 0x40
};

/* ---- Layouts the corpus generator writes (agnostic.h; CORINFO_ACCESS_ALLOWED_MAX_ARGS 4,
 * CORINFO_MAXINDIRECTIONS 4). ---- */

/* Agnostic_CORINFO_RESOLVED_TOKENin (24), RESOLVED_TOKENout (40); Agnostic_CORINFO_RESOLVED_TOKEN
 * is the two back to back (64). ResolveToken (109): TOKENin -> ResolveTokenValue (TOKENout, u32
 * exceptionCode). */
enum {
    MCZ_RTI_CONTEXT = 0, /* u64 */
    MCZ_RTI_SCOPE = 8,   /* u64 module handle */
    MCZ_RTI_TOKEN = 16,  /* u32 */
    MCZ_RTI_TYPE = 20,   /* u32 CorInfoTokenKind */
    MCZ_RTI_SIZE = 24,
    MCZ_RTO_CLASS = 0,             /* u64 */
    MCZ_RTO_METHOD = 8,            /* u64 */
    MCZ_RTO_FIELD = 16,            /* u64 */
    MCZ_RTO_TYPE_SPEC_INDEX = 24,  /* u32 pool index */
    MCZ_RTO_TYPE_SPEC_SIZE = 28,   /* u32 */
    MCZ_RTO_METHOD_SPEC_INDEX = 32,
    MCZ_RTO_METHOD_SPEC_SIZE = 36,
    MCZ_RTO_SIZE = 40,
    MCZ_RT_SIZE = 64,              /* in then out */
    MCZ_RTV_EXCEPTION = 40,        /* ResolveTokenValue: TOKENout then u32 */
    MCZ_RTV_SIZE = 44
};

/* Agnostic_CORINFO_HELPER_DESC (56), CONST_LOOKUP (12), LOOKUP (84: kind 10, runtime lookup 62,
 * const lookup 12). */
enum {
    MCZ_HELPER_DESC_NUM = 0,  /* u32 helperNum */
    MCZ_HELPER_DESC_ARGS = 4, /* u32 numArgs, then 4 x {u64 constant, u32 argType} */
    MCZ_HELPER_DESC_SIZE = 56,
    MCZ_CONST_LOOKUP_ACCESS = 0, /* u32 accessType */
    MCZ_CONST_LOOKUP_HANDLE = 4, /* u64 */
    MCZ_CONST_LOOKUP_SIZE = 12,
    MCZ_LOOKUP_NEEDS_RUNTIME = 0, /* u32 */
    MCZ_LOOKUP_CONST = 72,        /* the const-lookup view */
    MCZ_LOOKUP_SIZE = 84
};

/* GetCallInfo (37): Agnostic_GetCallInfo (token, constrained token, u64 caller, u32 flags) ->
 * Agnostic_CORINFO_CALL_INFO (288). */
enum {
    MCZ_GCI_KEY_TOKEN = 0,
    MCZ_GCI_KEY_CONSTRAINED = 64,
    MCZ_GCI_KEY_CALLER = 128, /* u64 */
    MCZ_GCI_KEY_FLAGS = 136,  /* u32 */
    MCZ_GCI_KEY_SIZE = 140,
    MCZ_CI_METHOD = 0,          /* u64 */
    MCZ_CI_METHOD_FLAGS = 8,    /* u32 */
    MCZ_CI_CLASS_FLAGS = 12,    /* u32 */
    MCZ_CI_SIG = 16,            /* SIG_INFO */
    MCZ_CI_ACCESS_ALLOWED = 100,
    MCZ_CI_CALLOUT_HELPER = 104, /* HELPER_DESC */
    MCZ_CI_THIS_TRANSFORM = 160,
    MCZ_CI_KIND = 164,
    MCZ_CI_NULL_CHECK = 168,
    MCZ_CI_CONTEXT = 172,        /* u64 */
    MCZ_CI_EXACT_CONTEXT = 180,
    MCZ_CI_STUB_LOOKUP = 184,    /* LOOKUP */
    MCZ_CI_INST_PARAM = 268,     /* CONST_LOOKUP */
    MCZ_CI_WRAPPER_DELEGATE = 280,
    MCZ_CI_EXCEPTION = 284,
    MCZ_CI_SIZE = 288
};

/* GetFieldInfo (55): Agnostic_GetFieldInfo (token, u64 caller, u32 flags) ->
 * Agnostic_CORINFO_FIELD_INFO (100). */
enum {
    MCZ_GFI_KEY_TOKEN = 0,
    MCZ_GFI_KEY_CALLER = 64,
    MCZ_GFI_KEY_FLAGS = 72,
    MCZ_GFI_KEY_SIZE = 76,
    MCZ_FI_ACCESSOR = 0,
    MCZ_FI_FLAGS = 4,
    MCZ_FI_HELPER = 8,
    MCZ_FI_OFFSET = 12,
    MCZ_FI_TYPE = 16,        /* u32 CorInfoType */
    MCZ_FI_STRUCT_TYPE = 20, /* u64 */
    MCZ_FI_ACCESS_ALLOWED = 28,
    MCZ_FI_CALLOUT_HELPER = 32, /* HELPER_DESC */
    MCZ_FI_LOOKUP = 88,         /* CONST_LOOKUP */
    MCZ_FI_SIZE = 100
};

/* GetEEInfo (50): u32 0 -> Agnostic_CORINFO_EE_INFO (76): nine u32 of the inlined call frame,
 * then ten u32 (thread frame ... osType). */
enum {
    MCZ_EE_FRAME_INFO = 0,
    MCZ_EE_THREAD_FRAME = 36,
    MCZ_EE_OS_PAGE_SIZE = 60,
    MCZ_EE_TARGET_ABI = 68,
    MCZ_EE_OS_TYPE = 72,
    MCZ_EE_SIZE = 76
};

/* CanInline (9): DLDL {caller, callee} -> Agnostic_CanInline (u32 result, u32 exceptionCode). */
enum { MCZ_CAN_INLINE_RESULT = 0, MCZ_CAN_INLINE_EXCEPTION = 4, MCZ_CAN_INLINE_SIZE = 8 };

/* GetMethodInfo (74): DLDL {ftn, context} -> METHOD_INFO, bool result, u32 exceptionCode. */
enum { MCZ_GMI_RESULT = 208, MCZ_GMI_EXCEPTION = 209, MCZ_GMI_SIZE = 213 };

/* GetMethodNameFromMetadata (161): TOKENin (20) -> TOKENout (16), string pool indices. */
enum {
    MCZ_MNI_FTN = 0,
    MCZ_MNI_CLASS_NAME = 8,
    MCZ_MNI_NAMESPACE = 12,
    MCZ_MNI_MAX_ENCLOSING = 16,
    MCZ_MNI_SIZE = 20,
    MCZ_MNO_METHOD_NAME = 0,
    MCZ_MNO_CLASS_NAME = 4,
    MCZ_MNO_NAMESPACE = 8,
    MCZ_MNO_ENCLOSING = 12,
    MCZ_MNO_SIZE = 16
};

/* GetIntConfigValue (151): Agnostic_ConfigIntInfo {u32 name pool index, u32 default} -> u32. */
enum { MCZ_CFG_NAME = 0, MCZ_CFG_DEFAULT = 4, MCZ_CFG_SIZE = 8 };

/* InitClass (97): Agnostic_InitClass {u64 field, u64 method, u64 context} -> u32. */
enum { MCZ_IC_FIELD = 0, MCZ_IC_METHOD = 8, MCZ_IC_CONTEXT = 16, MCZ_IC_SIZE = 24 };

/* CR AllocMem (115): u32 0 -> Agnostic_AllocMemDetails (56); CR AllocGCInfo (114): u32 0 ->
 * {u64 size, u32 pool index of the GC info}. */
enum {
    MCZ_AM_HOT_SIZE = 0,
    MCZ_AM_COLD_SIZE = 4,
    MCZ_AM_RODATA_SIZE = 8,
    MCZ_AM_XCPTNS = 12,
    MCZ_AM_FLAG = 16,
    MCZ_AM_HOT_INDEX = 20,
    MCZ_AM_COLD_INDEX = 24,
    MCZ_AM_RODATA_INDEX = 28,
    MCZ_AM_HOT_BLOCK = 32, /* u64 */
    MCZ_AM_COLD_BLOCK = 40,
    MCZ_AM_RODATA_BLOCK = 48,
    MCZ_AM_SIZE = 56,
    MCZ_GC_SIZE_FIELD = 0, /* u64 */
    MCZ_GC_INDEX = 8,
    MCZ_GC_SIZE = 12
};

/* ResolveVirtualMethod (160): Agnostic_ResolveVirtualMethodKey (92) ->
 * Agnostic_ResolveVirtualMethodResult (151). */
enum {
    MCZ_RVM_KEY_METHOD = 0,     /* u64 virtual method */
    MCZ_RVM_KEY_OBJ_CLASS = 8,  /* u64 */
    MCZ_RVM_KEY_CONTEXT = 16,   /* u64 */
    MCZ_RVM_KEY_HAS_TOKEN = 24, /* u32 */
    MCZ_RVM_KEY_TOKEN = 28,     /* RESOLVED_TOKEN */
    MCZ_RVM_KEY_SIZE = 92,
    MCZ_RVM_RETURN = 0,         /* bool */
    MCZ_RVM_DEVIRTUALIZED = 1,  /* u64 */
    MCZ_RVM_INSTANTIATING = 9,  /* bool */
    MCZ_RVM_ARRAY_INTERFACE = 10, /* bool */
    MCZ_RVM_EXACT_CONTEXT = 11, /* u64 */
    MCZ_RVM_DETAIL = 19,        /* u32 */
    MCZ_RVM_TOKEN = 23,         /* RESOLVED_TOKEN */
    MCZ_RVM_UNBOXED_TOKEN = 87, /* RESOLVED_TOKEN */
    MCZ_RVM_SIZE = 151
};

/* GetHelperFtn (233): u32 CorInfoHelpFunc -> Agnostic_GetHelperFtn. The layout was not read
 * from a source; this is the generator's plausible one: a CONST_LOOKUP (the entry point) and
 * the helper's method handle (u64, 0 for native helpers). */
enum {
    MCZ_HELPER_FTN_LOOKUP = 0, /* CONST_LOOKUP */
    MCZ_HELPER_FTN_METHOD = 12, /* u64 */
    MCZ_HELPER_FTN_SIZE = 20
};

/* CanAccessClass (3): Agnostic_CanAccessClassIn (token, u64 caller) ->
 * Agnostic_CanAccessClassOut (HELPER_DESC, u32 result). */
enum {
    MCZ_CAC_KEY_TOKEN = 0,
    MCZ_CAC_KEY_CALLER = 64,
    MCZ_CAC_KEY_SIZE = 72,
    MCZ_CAC_HELPER = 0,
    MCZ_CAC_RESULT = 56,
    MCZ_CAC_SIZE = 60
};

#endif /* MCZ_AGNOSTIC_H */
