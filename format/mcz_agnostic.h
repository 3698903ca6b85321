/*
 * mcz_agnostic.h - byte layouts of the SuperPMI value structs mcz reads and writes
 * (agnostic.h in dotnet/runtime; every struct is #pragma pack(1), little-endian, handles
 * widened to u64). Field offsets are constants, read with mcz_get_le32/64 from mcz_common.h:
 * never overlay a C struct on file bytes.
 *
 * Shared by the library (identity, dumps) and by the corpus generator (bench/mchgen), so that a
 * layout is written down exactly once. Reference: ../shared/mch-format.md §4.
 */
#ifndef MCZ_AGNOSTIC_H
#define MCZ_AGNOSTIC_H

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

#endif /* MCZ_AGNOSTIC_H */
