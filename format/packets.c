/*
 * packets.c - the packet table: snapshot B of the SuperPMI packet list (format/SUPERPMI.md
 * "Packet tables per JIT-EE version"), the newest JIT-EE interface seen (ids up to 238), as
 * data. Key and value sizes come from the type
 * names: DD 8, DDD 12, DLD 12, DLDL 16, DLDD 16, DLDDD 20, and the agnostic.h structs whose
 * packed sizes are known; 0 where a size is not known or differs between runtime versions
 * (CompileMethod 216/212, GetPgoInstrumentationResults 28/24, GetMethodInfo's key), which then
 * goes unchecked. Retired and enum-only ids are absent: SuperPMI cannot read them either.
 */
#include <stdio.h>

#include "mcz_common.h"

#define PACKET_ID_COUNT 256

static const mcz_packet_info packet_table[PACKET_ID_COUNT] = {
    [2] = {"AsCorInfoType", false, false, 8, 4},
    [3] = {"CanAccessClass", false, false, 0, 0},
    [5] = {"CanCast", false, false, 16, 4},
    [6] = {"PrintMethodName", false, false, 8, 12},
    [9] = {"CanInline", false, false, 16, 8},
    [10] = {"PrintFieldName", false, false, 8, 12},
    [12] = {"CanTailCall", false, false, 0, 4},
    [15] = {"ConstructStringLiteral", false, false, 12, 12},
    [16] = {"EmbedClassHandle", false, false, 8, 16},
    [17] = {"EmbedFieldHandle", false, false, 8, 16},
    [18] = {"EmbedGenericHandle", false, false, 0, 0},
    [19] = {"EmbedMethodHandle", false, false, 8, 16},
    [20] = {"EmbedModuleHandle", false, false, 8, 16},
    [21] = {"EmptyStringLiteral", false, true, 0, 12},
    [22] = {"ErrorList", false, true, 0, 4},
    [23] = {"FindCallSiteSig", false, false, 20, 84},
    [25] = {"FindSig", false, false, 20, 84},
    [27] = {"GetAddrOfCaptureThreadGlobal", false, false, 4, 16},
    [29] = {"GetArgNext", false, false, 8, 8},
    [31] = {"GetArrayInitializationData", false, false, 12, 8},
    [32] = {"GetArrayRank", false, false, 8, 4},
    [34] = {"GetBoundaries", false, false, 8, 12},
    [35] = {"GetBoxHelper", false, false, 8, 4},
    [36] = {"GetBuiltinClass", false, false, 4, 8},
    [37] = {"GetCallInfo", false, false, 0, 0},
    [38] = {"GetCastingHelper", false, false, 12, 4},
    [39] = {"GetChildType", false, false, 8, 12},
    [40] = {"GetClassAlignmentRequirement", false, false, 12, 4},
    [41] = {"GetClassAttribs", false, false, 8, 4},
    [43] = {"GetClassGClayout", false, false, 8, 12},
    [44] = {"GetClassModuleIdForStatics", false, false, 8, 24},
    [46] = {"GetClassNumInstanceFields", false, false, 8, 4},
    [47] = {"GetClassSize", false, false, 8, 4},
    [48] = {"GetCookieForPInvokeCalliSig", false, false, 0, 16},
    [49] = {"GetDelegateCtor", false, false, 24, 40},
    [50] = {"GetEEInfo", false, false, 4, 0},
    [51] = {"GetEHinfo", false, false, 12, 24},
    [53] = {"GetFieldClass", false, false, 8, 8},
    [54] = {"GetFieldInClass", false, false, 12, 8},
    [55] = {"GetFieldInfo", false, false, 0, 0},
    [57] = {"GetFieldOffset", false, false, 8, 4},
    [58] = {"GetFieldThreadLocalStoreID", false, false, 8, 12},
    [59] = {"GetFieldType", false, false, 16, 12},
    [60] = {"GetFunctionEntryPoint", false, false, 12, 12},
    [61] = {"GetFunctionFixedEntryPoint", false, false, 8, 12},
    [62] = {"GetGSCookie", false, false, 4, 16},
    [66] = {"GetArrayIntrinsicID", false, false, 8, 4},
    [68] = {"GetJustMyCodeHandle", false, false, 8, 16},
    [69] = {"GetLocationOfThisType", false, false, 8, 10},
    [70] = {"GetMethodAttribs", false, false, 8, 4},
    [71] = {"GetMethodClass", false, false, 8, 8},
    [72] = {"GetMethodDefFromMethod", false, false, 8, 4},
    [73] = {"GetMethodHash", false, false, 8, 4},
    [74] = {"GetMethodInfo", false, false, 0, 213},
    [76] = {"GetMethodSig", false, false, 16, 84},
    [78] = {"GetMethodVTableOffset", false, false, 8, 12},
    [79] = {"GetNewArrHelper", false, false, 8, 4},
    [80] = {"GetNewHelper", false, false, 8, 12},
    [81] = {"GetParentType", false, false, 8, 8},
    [83] = {"GetProfilingHandle", false, false, 4, 16},
    [84] = {"GetRelocTypeHint", false, false, 8, 4},
    [86] = {"GetSharedCCtorHelper", false, false, 8, 4},
    [88] = {"GetThreadTLSIndex", false, false, 4, 12},
    [89] = {"GetTokenTypeAsHandle", false, false, 0, 8},
    [90] = {"GetTypeForBox", false, false, 8, 8},
    [91] = {"GetTypeForPrimitiveValueClass", false, false, 8, 4},
    [92] = {"GetUnBoxHelper", false, false, 8, 4},
    [94] = {"GetUnmanagedCallConv", false, false, 24, 8},
    [95] = {"GetVarArgsHandle", false, false, 0, 16},
    [96] = {"GetVars", false, false, 8, 12},
    [97] = {"InitClass", false, false, 24, 4},
    [101] = {"IsSDArray", false, false, 8, 4},
    [105] = {"IsValueClass", false, false, 8, 4},
    [108] = {"PInvokeMarshalingRequired", false, false, 24, 4},
    [109] = {"ResolveToken", false, false, 24, 0},
    [111] = {"SatisfiesMethodConstraints", false, false, 16, 4},
    [112] = {"DoesFieldBelongToClass", false, false, 16, 4},
    [114] = {"CR_AllocGCInfo", true, false, 4, 12},
    [115] = {"CR_AllocMem", true, false, 4, 56},
    [116] = {"CR_CallLog", true, true, 0, 4},
    [117] = {"CR_ClassMustBeLoadedBeforeCodeIsRun", true, true, 0, 8},
    [118] = {"CR_CompileMethod", true, false, 4, 16},
    [119] = {"CR_MessageLog", true, true, 0, 4},
    [120] = {"CR_MethodMustBeLoadedBeforeCodeIsRun", true, true, 0, 8},
    [121] = {"CR_ProcessName", true, true, 0, 4},
    [122] = {"CR_RecordRelocation", true, true, 0, 0},
    [123] = {"CR_ReportFatalError", true, true, 0, 4},
    [124] = {"CR_ReportInliningDecision", true, true, 0, 24},
    [125] = {"CR_ReportTailCallDecision", true, true, 0, 0},
    [126] = {"CR_SetBoundaries", true, false, 4, 0},
    [127] = {"CR_SetEHcount", true, false, 4, 4},
    [128] = {"CR_SetEHinfo", true, false, 4, 24},
    [129] = {"CR_SetMethodAttribs", true, false, 8, 4},
    [130] = {"CR_SetVars", true, false, 4, 0},
    [132] = {"CR_AllocUnwindInfo", true, true, 0, 0},
    [133] = {"CR_ReserveUnwindInfo", true, true, 0, 0},
    [137] = {"IsFieldStatic", false, false, 8, 4},
    [138] = {"CR_AssertLog", true, true, 0, 4},
    [139] = {"GetArgClass", false, false, 40, 12},
    [140] = {"GetArgType", false, false, 48, 16},
    [142] = {"CheckMethodModifier", false, false, 16, 4},
    [143] = {"CompileMethod", false, false, 4, 0},
    [148] = {"IsIntrinsicType", false, false, 8, 4},
    [149] = {"PrintClassName", false, false, 8, 12},
    [150] = {"GetReadyToRunHelper", false, false, 0, 0},
    [151] = {"GetIntConfigValue", false, false, 8, 4},
    [152] = {"GetStringConfigValue", false, false, 4, 4},
    [153] = {"GetAddressOfPInvokeTarget", false, false, 8, 12},
    [154] = {"GetJitFlags", false, false, 4, 8},
    [155] = {"IsDelegateCreationAllowed", false, false, 16, 4},
    [156] = {"GetSystemVAmd64PassStructInRegisterDescriptor", false, false, 8, 0},
    [157] = {"GetReadyToRunDelegateCtorHelper", false, false, 0, 0},
    [159] = {"GetHFAType", false, false, 8, 4},
    [160] = {"ResolveVirtualMethod", false, false, 0, 0},
    [161] = {"GetMethodNameFromMetadata", false, false, 20, 16},
    [162] = {"GetDefaultEqualityComparerClass", false, false, 8, 8},
    [163] = {"CompareTypesForCast", false, false, 16, 4},
    [164] = {"CompareTypesForEquality", false, false, 16, 4},
    [165] = {"GetUnboxedEntry", false, false, 8, 12},
    [166] = {"GetClassNameFromMetadata", false, false, 12, 8},
    [167] = {"GetTypeInstantiationArgument", false, false, 12, 8},
    [168] = {"GetTypeForPrimitiveNumericClass", false, false, 8, 4},
    [169] = {"ConvertPInvokeCalliToCall", false, false, 12, 8},
    [170] = {"GetHeapClassSize", false, false, 8, 4},
    [171] = {"CanAllocateOnStack", false, false, 8, 4},
    [172] = {"GetStaticFieldCurrentClass", false, false, 12, 9},
    [174] = {"IsMoreSpecificType", false, false, 16, 4},
    [175] = {"GetStringLiteral", false, false, 20, 8},
    [176] = {"CR_SetPatchpointInfo", true, false, 4, 0},
    [177] = {"GetOSRInfo", false, false, 4, 8},
    [178] = {"GetTailCallHelpers", false, false, 0, 0},
    [179] = {"CR_RecordCallSiteWithSignature", true, false, 4, 92},
    [180] = {"CR_RecordCallSiteWithoutSignature", true, false, 4, 8},
    [183] = {"GetExpectedTargetArchitecture", false, false, 4, 4},
    [184] = {"SigInstHandleMap", false, true, 0, 8},
    [185] = {"CR_CrSigInstHandleMap", true, true, 0, 8},
    [186] = {"AllocPgoInstrumentationBySchema", false, false, 8, 20},
    [187] = {"GetPgoInstrumentationResults", false, false, 8, 0},
    [188] = {"GetDefaultComparerClass", false, false, 8, 8},
    [192] = {"IsIntrinsic", false, false, 8, 4},
    [193] = {"UpdateEntryPointForTailCall", false, false, 12, 12},
    [195] = {"GetExactClasses", false, false, 12, 8},
    [196] = {"GetRuntimeTypePointer", false, false, 8, 8},
    [197] = {"PrintObjectDescription", false, false, 8, 12},
    [198] = {"GetStaticFieldContent", false, false, 20, 8},
    [199] = {"GetObjectType", false, false, 8, 8},
    [200] = {"IsObjectImmutable", false, false, 8, 4},
    [201] = {"ExpandRawHandleIntrinsic", false, false, 0, 0},
    [202] = {"GetArrayOrStringLength", false, false, 8, 4},
    [203] = {"IsEnum", false, false, 8, 12},
    [204] = {"GetStringChar", false, false, 12, 8},
    [205] = {"GetIsClassInitedFlagAddress", false, false, 8, 20},
    [206] = {"GetStaticBaseAddress", false, false, 12, 16},
    [207] = {"GetThreadLocalFieldInfo", false, false, 12, 4},
    [208] = {"GetThreadLocalStaticBlocksInfo", false, false, 4, 0},
    [209] = {"GetThreadLocalStaticInfo_NativeAOT", false, false, 8, 0},
    [211] = {"GetObjectContent", false, false, 16, 8},
    [212] = {"GetTypeLayout", false, false, 8, 12},
    [213] = {"HaveSameMethodDefinition", false, false, 16, 4},
    [214] = {"NotifyMethodInfoUsage", false, false, 8, 4},
    [215] = {"IsExactType", false, false, 8, 4},
    [216] = {"GetSwiftLowering", false, false, 8, 0},
    [217] = {"IsNullableType", false, false, 8, 4},
    [218] = {"GetClassStaticDynamicInfo", false, false, 8, 12},
    [219] = {"GetClassThreadStaticDynamicInfo", false, false, 8, 12},
    [220] = {"IsGenericType", false, false, 8, 4},
    [222] = {"GetTypeDefinition", false, false, 8, 8},
    [223] = {"GetFpStructLowering", false, false, 8, 0},
    [224] = {"GetSpecialCopyHelper", false, false, 8, 8},
    [225] = {"GetClassAssemblyName", false, false, 8, 4},
    [226] = {"GetSZArrayHelperEnumeratorClass", false, false, 8, 8},
    [227] = {"GetMethodInstantiationArgument", false, false, 12, 8},
    [228] = {"GetInstantiatedEntry", false, false, 8, 0},
    [229] = {"NotifyInstructionSetUsage", false, false, 8, 4},
    [230] = {"GetAsyncInfo", false, false, 4, 0},
    [231] = {"GetAsyncResumptionStub", false, false, 4, 16},
    [232] = {"GetCookieForInterpreterCalliSig", false, false, 0, 16},
    [233] = {"GetHelperFtn", false, false, 4, 0},
    [234] = {"GetContinuationType", false, false, 0, 8},
    [235] = {"GetWasmTypeSymbol", false, false, 0, 8},
    [236] = {"GetWasmLowering", false, false, 8, 4},
    [237] = {"GetAsyncOtherVariant", false, false, 8, 12},
    [238] = {"GetPInvokeHelpers", false, false, 8, 8},
};

/* Snapshot B's lwmlist.h order, then crlwmlist.h order: saveToFile's layout (format/SUPERPMI.md
 * "Write order"). */
static const uint8_t write_order[] = {
    186, 187, 2, 3, 5, 9, 12, 142, 163, 164, 143, 15, 169, 16, 17, 18, 19, 20, 207, 208, 209, 21,
    22, 23, 25, 153, 27, 139, 29, 140, 195, 31, 32, 66, 34, 35, 36, 37, 38, 39, 40, 41, 218, 219,
    43, 44, 205, 206, 166, 167, 227, 46, 47, 170, 171, 48, 232, 188, 162, 226, 49, 50, 230, 51,
    198, 211, 172, 53, 54, 212, 55, 57, 58, 59, 60, 61, 62, 233, 159, 151, 154, 68, 69, 192, 214,
    229, 70, 225, 71, 72, 73, 74, 213, 222, 161, 76, 78, 79, 80, 177, 81, 83, 150, 157, 84, 183,
    86, 152, 156, 216, 223, 236, 178, 231, 234, 193, 224, 88, 89, 90, 91, 168, 165, 228, 237, 92,
    196, 200, 204, 199, 95, 96, 97, 155, 137, 202, 201, 148, 101, 175, 197, 149, 10, 6, 105, 174,
    215, 220, 217, 203, 108, 109, 160, 111, 94, 112, 184, 235, 238, 114, 115, 132, 138, 116, 117,
    118, 119, 120, 121, 179, 180, 122, 123, 124, 125, 133, 126, 127, 128, 129, 130, 176, 185,
};

const mcz_packet_info *mcz_packet_lookup(uint8_t id)
{
    const mcz_packet_info *info = &packet_table[id];
    return info->name ? info : NULL;
}

const char *mcz_packet_name(uint8_t id, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return "";
    const mcz_packet_info *info = mcz_packet_lookup(id);
    if (info)
        snprintf(buf, cap, "%s", info->name);
    else
        snprintf(buf, cap, "unknown(%u)", (unsigned)id);
    return buf;
}

const char *mcz_packet_table_version(void)
{
    return "JIT-EE snapshot B, dotnet/runtime main ~.NET 10/11 (ids up to 238)";
}

const uint8_t *mcz_packet_write_order(size_t *count)
{
    if (count)
        *count = sizeof write_order;
    return write_order;
}
