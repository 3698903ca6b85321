/*
 * jitee.c - the JIT-EE versions mcz knows, as data: each version's packet table and write order
 * come from its X-macro list (jitee_B.h, jitee_C.h), with its GUID and its CorInfoType
 * numbering (superpmi/SUPERPMI.md "Packet tables per JIT-EE version"). Detection asks which
 * versions a context's packets agree with.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mcz_common.h"

#define PACKET_ID_COUNT 256
#define SPARSE false
#define DENSE true
#define MC false
#define CR true

struct mcz_jit_ee {
    uint32_t id;      /* stable number archives record (FORMAT.md, file header) */
    const char *name;
    const char *guid; /* NULL when no source read gives it */
    const char *description;
    const mcz_packet_info *table;      /* PACKET_ID_COUNT entries, name NULL for unknown ids */
    const uint8_t *order;              /* write order */
    size_t order_count;
    const int8_t *types;               /* raw CorInfoType -> MCZ_TYPE_*, -1 for none */
    size_t type_count;
};

#define MCZ_JITEE_PACKET(id, name, kind, part, key, value) [id] = {#name, part, kind, key, value},
static const mcz_packet_info table_B[PACKET_ID_COUNT] = {
#include "jitee_B.h"
};
static const mcz_packet_info table_C[PACKET_ID_COUNT] = {
#include "jitee_C.h"
};
#undef MCZ_JITEE_PACKET

#define MCZ_JITEE_PACKET(id, name, kind, part, key, value) id,
static const uint8_t order_B[] = {
#include "jitee_B.h"
};
static const uint8_t order_C[] = {
#include "jitee_C.h"
};
#undef MCZ_JITEE_PACKET

/* The ids mcz reads itself (the MCZ_PACKET_* enum) name the same packet in every version. */
#define MCZ_JITEE_PACKET(id, name, kind, part, key, value) B_##name = id,
enum {
#include "jitee_B.h"
};
#undef MCZ_JITEE_PACKET
#define MCZ_JITEE_PACKET(id, name, kind, part, key, value) C_##name = id,
enum {
#include "jitee_C.h"
};
#undef MCZ_JITEE_PACKET
#define SAME_ID(constant, name)                                                                  \
    _Static_assert((int)(constant) == (int)B_##name && (int)(constant) == (int)C_##name, \
                   #name " moved")
SAME_ID(MCZ_PACKET_GET_ARG_NEXT, GetArgNext);
SAME_ID(MCZ_PACKET_GET_METHOD_ATTRIBS, GetMethodAttribs);
SAME_ID(MCZ_PACKET_GET_METHOD_CLASS, GetMethodClass);
SAME_ID(MCZ_PACKET_GET_METHOD_SIG, GetMethodSig);
SAME_ID(MCZ_PACKET_GET_ARG_CLASS, GetArgClass);
SAME_ID(MCZ_PACKET_GET_ARG_TYPE, GetArgType);
SAME_ID(MCZ_PACKET_COMPILE_METHOD, CompileMethod);
SAME_ID(MCZ_PACKET_PRINT_CLASS_NAME, PrintClassName);
SAME_ID(MCZ_PACKET_PRINT_METHOD_NAME, PrintMethodName);
SAME_ID(MCZ_PACKET_GET_JIT_FLAGS, GetJitFlags);
SAME_ID(MCZ_PACKET_SIG_INST_HANDLE_MAP, SigInstHandleMap);
SAME_ID(MCZ_PACKET_GET_PGO_RESULTS, GetPgoInstrumentationResults);
SAME_ID(MCZ_PACKET_CR_PROCESS_NAME, CR_ProcessName);

/* B numbers CorInfoType as MCZ_TYPE_* does (corinfo.h of its era: ... DOUBLE 0x0F, STRING,
 * PTR, BYREF, VALUECLASS, CLASS, REFANY, VAR 0x16). */
static const int8_t types_B[] = {
    MCZ_TYPE_UNDEF,      MCZ_TYPE_VOID,   MCZ_TYPE_BOOL,      MCZ_TYPE_CHAR,
    MCZ_TYPE_BYTE,       MCZ_TYPE_UBYTE,  MCZ_TYPE_SHORT,     MCZ_TYPE_USHORT,
    MCZ_TYPE_INT,        MCZ_TYPE_UINT,   MCZ_TYPE_LONG,      MCZ_TYPE_ULONG,
    MCZ_TYPE_NATIVEINT,  MCZ_TYPE_NATIVEUINT, MCZ_TYPE_FLOAT, MCZ_TYPE_DOUBLE,
    MCZ_TYPE_STRING,     MCZ_TYPE_PTR,    MCZ_TYPE_BYREF,     MCZ_TYPE_VALUECLASS,
    MCZ_TYPE_CLASS,      MCZ_TYPE_REFANY, MCZ_TYPE_VAR,
};
/* C: STRING, REFANY and VAR removed, so PTR 0x10, BYREF 0x11, VALUECLASS 0x12, CLASS 0x13. */
static const int8_t types_C[] = {
    MCZ_TYPE_UNDEF,      MCZ_TYPE_VOID,   MCZ_TYPE_BOOL,      MCZ_TYPE_CHAR,
    MCZ_TYPE_BYTE,       MCZ_TYPE_UBYTE,  MCZ_TYPE_SHORT,     MCZ_TYPE_USHORT,
    MCZ_TYPE_INT,        MCZ_TYPE_UINT,   MCZ_TYPE_LONG,      MCZ_TYPE_ULONG,
    MCZ_TYPE_NATIVEINT,  MCZ_TYPE_NATIVEUINT, MCZ_TYPE_FLOAT, MCZ_TYPE_DOUBLE,
    MCZ_TYPE_PTR,        MCZ_TYPE_BYREF,  MCZ_TYPE_VALUECLASS, MCZ_TYPE_CLASS,
};

#define VERSION(id, tag, guid, text)                                                             \
    {id, #tag, guid, text, table_##tag, order_##tag, sizeof order_##tag, types_##tag,                \
     sizeof types_##tag}
/* Oldest first; the last is the newest. */
static const mcz_jit_ee versions[] = {
    VERSION(2, B, "28808a0e-5dc5-48bd-a7eb-27def284eff0",
            "snapshot B, dotnet/runtime main ~.NET 10/11 (ids up to 238)"),
    VERSION(3, C, NULL, "CorInfoType renumbered (PTR 0x10 ... CLASS 0x13), ids up to 238"),
};
#define VERSION_COUNT (sizeof versions / sizeof versions[0])
_Static_assert(VERSION_COUNT <= 32, "fits masks are 32 bits");

size_t mcz_jit_ee_count(void) { return VERSION_COUNT; }

const mcz_jit_ee *mcz_jit_ee_at(size_t i) { return i < VERSION_COUNT ? &versions[i] : NULL; }

const mcz_jit_ee *mcz_jit_ee_newest(void) { return &versions[VERSION_COUNT - 1]; }

static const mcz_jit_ee *or_newest(const mcz_jit_ee *v) { return v ? v : mcz_jit_ee_newest(); }

const mcz_jit_ee *mcz_jit_ee_find(const char *name_or_guid)
{
    if (!name_or_guid)
        return NULL;
    for (size_t i = 0; i < VERSION_COUNT; i++) {
        const mcz_jit_ee *v = &versions[i];
        if (strcmp(v->name, name_or_guid) == 0 ||
            (v->guid && strcasecmp(v->guid, name_or_guid) == 0))
            return v;
    }
    return NULL;
}

const char *mcz_jit_ee_name(const mcz_jit_ee *v) { return or_newest(v)->name; }

const char *mcz_jit_ee_guid(const mcz_jit_ee *v) { return or_newest(v)->guid; }

const char *mcz_jit_ee_description(const mcz_jit_ee *v) { return or_newest(v)->description; }

size_t mcz_jit_ee_index(const mcz_jit_ee *v) { return (size_t)(or_newest(v) - versions); }

uint32_t mcz_jit_ee_id(const mcz_jit_ee *v) { return or_newest(v)->id; }

const mcz_jit_ee *mcz_jit_ee_by_id(uint32_t id)
{
    for (size_t i = 0; i < VERSION_COUNT; i++)
        if (versions[i].id == id)
            return &versions[i];
    return NULL;
}

const mcz_packet_info *mcz_jit_ee_packet(const mcz_jit_ee *v, uint8_t id)
{
    const mcz_packet_info *info = &or_newest(v)->table[id];
    return info->name ? info : NULL;
}

const mcz_packet_info *mcz_packet_lookup(uint8_t id) { return mcz_jit_ee_packet(NULL, id); }

const char *mcz_packet_name(const mcz_jit_ee *v, uint8_t id, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return "";
    const mcz_packet_info *info = mcz_jit_ee_packet(v, id);
    if (info)
        snprintf(buf, cap, "%s", info->name);
    else
        snprintf(buf, cap, "unknown(%u)", (unsigned)id);
    return buf;
}

const uint8_t *mcz_jit_ee_write_order(const mcz_jit_ee *v, size_t *count)
{
    v = or_newest(v);
    if (count)
        *count = v->order_count;
    return v->order;
}

int mcz_jit_ee_type(const mcz_jit_ee *v, uint32_t raw)
{
    v = or_newest(v);
    raw &= MCZ_TYPE_MASK;
    return raw < v->type_count ? v->types[raw] : -1;
}

int mcz_jit_ee_type_raw(const mcz_jit_ee *v, int type)
{
    v = or_newest(v);
    for (size_t raw = 0; raw < v->type_count; raw++)
        if (v->types[raw] == type)
            return (int)raw;
    return -1;
}
