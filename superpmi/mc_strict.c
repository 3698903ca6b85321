/*
 * mc_strict.c - the strict check of one context (superpmi/SUPERPMI.md "Strict checks"): on
 * top of mcz_mc_check's framing, every packet id at most once, known ids with their table's
 * key and value sizes, every pool walked as its chunks, sparse keys strictly increasing in
 * memcmp order, and the pool indexes of the value layouts mcz_agnostic.h describes pointing at
 * chunk starts. Unknown ids are reported, not judged.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"

#define PACKET_HEADER_SIZE 5u /* u8 id, u32 size */
#define MAP_COUNTS_SIZE 8u    /* u32 numItems, u32 bufferLength */
#define CHUNK_HEADER_SIZE 4u  /* u32 length before each pool buffer */
#define NO_LENGTH 0xFFFFu     /* a pool field without a length field beside it */
#define MAX_POOL_FIELDS 4

/* One u32 field holding a pool index, and the u32 field giving the length the reader takes
 * from that buffer (NO_LENGTH: none). */
typedef struct pool_field {
    uint16_t index;
    uint16_t length;
} pool_field;

/* The pool indexes of one packet's known layout. size: the key or value size the layout has
 * (0: any size of at least min_size); sizes: value sizes the versions use when the packet
 * table leaves it open (0-terminated). */
typedef struct pool_layout {
    uint8_t id;
    bool in_key;
    uint32_t size;
    uint32_t min_size;
    uint32_t sizes[3];
    pool_field fields[MAX_POOL_FIELDS];
} pool_layout;

#define SIG(base) {(base) + MCZ_SIG_PSIG_INDEX, (base) + MCZ_SIG_CB_SIG}
#define METHOD_INFO_FIELDS                                                                   \
    {{MCZ_MI_IL_OFFSET, MCZ_MI_IL_SIZE}, SIG(MCZ_MI_ARGS), SIG(MCZ_MI_LOCALS)}

static const pool_layout layouts[] = {
    {MCZ_PACKET_COMPILE_METHOD, false, 0, MCZ_MI_SIZE, {MCZ_CM_SIZE, MCZ_CM_SIZE_NO_OS},
     METHOD_INFO_FIELDS},
    {74 /* GetMethodInfo */, false, MCZ_GMI_SIZE, 0, {0}, METHOD_INFO_FIELDS},
    {MCZ_PACKET_GET_METHOD_SIG, false, MCZ_SIG_SIZE, 0, {0}, {SIG(0)}},
    {25 /* FindSig */, false, MCZ_SIG_SIZE, 0, {0}, {SIG(0)}},
    {23 /* FindCallSiteSig */, false, MCZ_SIG_SIZE, 0, {0}, {SIG(0)}},
    {37 /* GetCallInfo */, false, MCZ_CI_SIZE, 0, {0}, {SIG(MCZ_CI_SIG)}},
    {MCZ_PACKET_PRINT_METHOD_NAME, false, MCZ_PR_SIZE, 0, {0},
     {{MCZ_PR_BUFFER, MCZ_PR_BUFFER_SIZE}}},
    {10 /* PrintFieldName */, false, MCZ_PR_SIZE, 0, {0}, {{MCZ_PR_BUFFER, MCZ_PR_BUFFER_SIZE}}},
    {MCZ_PACKET_PRINT_CLASS_NAME, false, MCZ_PR_SIZE, 0, {0},
     {{MCZ_PR_BUFFER, MCZ_PR_BUFFER_SIZE}}},
    {MCZ_PACKET_GET_JIT_FLAGS, false, MCZ_DD_SIZE, 0, {0}, {{0, 4}}},
    {MCZ_PACKET_GET_PGO_RESULTS, false, 0, MCZ_PGO_SIZE_OLD, {MCZ_PGO_SIZE, MCZ_PGO_SIZE_OLD},
     {{MCZ_PGO_SCHEMA_INDEX, NO_LENGTH}, {MCZ_PGO_DATA_INDEX, MCZ_PGO_DATA_BYTE_COUNT}}},
    {109 /* ResolveToken */, false, MCZ_RTV_SIZE, 0, {0},
     {{MCZ_RTO_TYPE_SPEC_INDEX, MCZ_RTO_TYPE_SPEC_SIZE},
      {MCZ_RTO_METHOD_SPEC_INDEX, MCZ_RTO_METHOD_SPEC_SIZE}}},
    {161 /* GetMethodNameFromMetadata */, false, MCZ_MNO_SIZE, 0, {0},
     {{MCZ_MNO_METHOD_NAME, NO_LENGTH}, {MCZ_MNO_CLASS_NAME, NO_LENGTH},
      {MCZ_MNO_NAMESPACE, NO_LENGTH}, {MCZ_MNO_ENCLOSING, NO_LENGTH}}},
    {151 /* GetIntConfigValue */, true, MCZ_CFG_SIZE, 0, {0}, {{MCZ_CFG_NAME, NO_LENGTH}}},
    {22 /* ErrorList */, false, 4, 0, {0}, {{0, NO_LENGTH}}},
    {114 /* CR_AllocGCInfo */, false, MCZ_GC_SIZE, 0, {0}, {{MCZ_GC_INDEX, NO_LENGTH}}},
    {115 /* CR_AllocMem */, false, MCZ_AM_SIZE, 0, {0},
     {{MCZ_AM_HOT_INDEX, MCZ_AM_HOT_SIZE}, {MCZ_AM_COLD_INDEX, MCZ_AM_COLD_SIZE},
      {MCZ_AM_RODATA_INDEX, MCZ_AM_RODATA_SIZE}}},
};

static const pool_layout *layout_of(uint8_t id)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].id == id)
            return &layouts[i];
    return NULL;
}

/* One context's walk. */
typedef struct strict_walk {
    const mcz_mc *mc;
    const mcz_jit_ee *v; /* whose packet table: NULL, the newest */
    mcz_diag *diag;
    uint8_t *starts;     /* bit per pool offset: a chunk's data starts there */
    size_t starts_bytes; /* capacity of starts */
} strict_walk;

/* The one place the packet table is asked. */
static const mcz_packet_info *table_entry(const strict_walk *w, uint8_t id)
{
    return mcz_jit_ee_packet(w->v, id);
}

/* A map's items as this walk splits them: key i at keys + i * key_size, value i at
 * values + i * value_size; key_size 0 when keys are implicit or the split is unknown. */
typedef struct map_items {
    const mcz_packet *p;
    const char *name;
    mcz_map m;
    uint32_t key_size, value_size;
    bool split;          /* key_size/value_size known */
    const uint8_t *keys, *values;
} map_items;

static int packet_fail(const strict_walk *w, const map_items *it, int64_t at, const char *fmt,
                       ...) MCZ_PRINTF(4, 5);

/* Fails naming the context and the packet; at is the offset from the packet's id byte. */
static int packet_fail(const strict_walk *w, const map_items *it, int64_t at, const char *fmt,
                       ...)
{
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return mcz_diag_set(w->diag, MCZ_ECORRUPT,
                        mcz_at_offset((int64_t)(w->mc->offset + it->p->offset) + at),
                        mcz_in_context(w->mc->number), "packet %s: %s", it->name, text);
}

/* Offset of the map's pool from the packet's id byte. */
static int64_t pool_at(const map_items *it)
{
    return (int64_t)(it->m.pool - it->p->data) + PACKET_HEADER_SIZE;
}

/* ---- Pool ---- */

/* Walks the pool as u32-length-prefixed chunks that fill it exactly, marking where each
 * chunk's data starts. */
static int pool_walk(strict_walk *w, const map_items *it)
{
    uint32_t size = it->m.pool_size;
    size_t need = (size_t)size / 8 + 1;
    if (need > w->starts_bytes) {
        uint8_t *grown = realloc(w->starts, need);
        if (!grown)
            return mcz_diag_set(w->diag, MCZ_ENOMEM, MCZ_NO_OFFSET, mcz_in_context(w->mc->number),
                                "out of memory");
        w->starts = grown;
        w->starts_bytes = need;
    }
    memset(w->starts, 0, need);
    for (uint32_t at = 0; at < size;) {
        if (size - at < CHUNK_HEADER_SIZE)
            return packet_fail(w, it, pool_at(it) + at,
                               "pool chunk header at %u runs past the pool of %u bytes", at,
                               size);
        uint32_t len = mcz_get_le32(it->m.pool + at);
        if (len > size - at - CHUNK_HEADER_SIZE)
            return packet_fail(w, it, pool_at(it) + at,
                               "pool chunk at %u of %u bytes runs past the pool of %u bytes",
                               at, len, size);
        at += CHUNK_HEADER_SIZE;
        w->starts[at / 8] |= (uint8_t)(1u << (at % 8));
        at += len;
    }
    return MCZ_OK;
}

static bool chunk_starts_at(const strict_walk *w, const map_items *it, uint32_t index)
{
    return index < it->m.pool_size && (w->starts[index / 8] >> (index % 8)) & 1;
}

/* ---- Sizes ---- */

/* The value sizes a packet may have: the table's, else the known layout's alternatives. */
static bool value_size_allowed(const mcz_packet_info *info, const pool_layout *lay, uint32_t v)
{
    if (info->value_size != 0)
        return v == info->value_size;
    if (!lay || lay->in_key || lay->sizes[0] == 0)
        return v != 0;
    for (int i = 0; i < 3 && lay->sizes[i] != 0; i++)
        if (v == lay->sizes[i])
            return true;
    return false;
}

static int size_fail(const strict_walk *w, const map_items *it, const mcz_packet_info *info)
{
    char text[200], key[16] = "any", value[16] = "any";
    if (info->key_size)
        snprintf(key, sizeof key, "%u", info->key_size);
    if (info->value_size)
        snprintf(value, sizeof value, "%u", info->value_size);
    if (info->dense)
        snprintf(text, sizeof text, "items of %u bytes where a value has %s bytes%s",
                 it->m.item_size, value, it->m.dense ? "" : " (after a u32 key)");
    else
        snprintf(text, sizeof text, "items of %u bytes where key %s + value %s are expected",
                 it->m.item_size, key, value);
    return mcz_diag_set(w->diag, MCZ_ECORRUPT,
                        mcz_at_offset((int64_t)(w->mc->offset + it->p->offset)),
                        mcz_in_context(w->mc->number), "packet %s: %s (another JIT-EE version?)",
                        it->name, text);
}

/* Splits the items by the table (and the known layout), failing when they cannot have the
 * sizes the table gives. */
static int sizes_check(const strict_walk *w, map_items *it, const mcz_packet_info *info)
{
    const mcz_map *m = &it->m;
    if (m->tagged && m->dense != info->dense)
        return packet_fail(w, it, PACKET_HEADER_SIZE,
                           m->dense ? "DWM1 map in a sparse packet"
                                    : "LWM1 map in a dense packet");
    uint32_t stored_key = info->dense ? (m->dense ? 0 : 4) : info->key_size;
    const pool_layout *lay = layout_of(it->p->id);
    if (info->dense || stored_key != 0) {
        if (stored_key >= m->item_size ||
            !value_size_allowed(info, lay, m->item_size - stored_key))
            return size_fail(w, it, info);
        it->key_size = stored_key;
    } else if (info->value_size != 0) {
        if (info->value_size >= m->item_size)
            return size_fail(w, it, info);
        it->key_size = m->item_size - info->value_size;
    } else {
        return MCZ_OK; /* neither size known: nothing to split by */
    }
    it->value_size = m->item_size - it->key_size;
    it->split = true;
    it->keys = m->items;
    it->values = m->items + (size_t)m->count * it->key_size;
    return MCZ_OK;
}

/* ---- Keys ---- */

/* Sparse keys strictly increasing by memcmp: SuperPMI binary-searches them. */
static int keys_check(const strict_walk *w, const map_items *it, bool dense)
{
    if (dense || !it->split || it->key_size == 0)
        return MCZ_OK;
    for (uint32_t i = 1; i < it->m.count; i++) {
        const uint8_t *prev = it->keys + (size_t)(i - 1) * it->key_size;
        int order = memcmp(prev, prev + it->key_size, it->key_size);
        if (order < 0)
            continue;
        int64_t at = (int64_t)(prev + it->key_size - it->p->data) + PACKET_HEADER_SIZE;
        return packet_fail(w, it, at,
                           order == 0 ? "key %u repeats key %u"
                                      : "key %u sorts before key %u (memcmp order)",
                           i, i - 1);
    }
    return MCZ_OK;
}

/* ---- Pool indexes of known layouts ---- */

static int field_check(const strict_walk *w, const map_items *it, const uint8_t *item,
                       pool_field f, uint32_t item_no)
{
    uint32_t index = mcz_get_le32(item + f.index);
    int64_t at = (int64_t)(item + f.index - it->p->data) + PACKET_HEADER_SIZE;
    if (index == MCZ_NULL_INDEX)
        return MCZ_OK;
    /* A buffer of no bytes is never read, whatever its index: SuperPMI zeroes the whole value
     * of a call that threw (recGetCallInfo, recGetMethodInfo), leaving index 0, length 0. */
    if (f.length != NO_LENGTH && mcz_get_le32(item + f.length) == 0)
        return MCZ_OK;
    if (index >= it->m.pool_size)
        return packet_fail(w, it, at,
                           "item %u: pool index %u (at byte %u of the item) past the pool of "
                           "%u bytes", item_no, index, f.index, it->m.pool_size);
    if (!chunk_starts_at(w, it, index))
        return packet_fail(w, it, at,
                           "item %u: pool index %u (at byte %u of the item) is not the start "
                           "of a pool chunk", item_no, index, f.index);
    if (f.length == NO_LENGTH)
        return MCZ_OK;
    uint32_t want = mcz_get_le32(item + f.length);
    uint32_t have = mcz_get_le32(it->m.pool + index - CHUNK_HEADER_SIZE);
    if (want > have)
        return packet_fail(w, it, at, "item %u: %u bytes wanted from a pool chunk of %u",
                           item_no, want, have);
    return MCZ_OK;
}

static int layout_check(const strict_walk *w, const map_items *it)
{
    const pool_layout *lay = layout_of(it->p->id);
    if (!lay || !it->split)
        return MCZ_OK;
    uint32_t size = lay->in_key ? it->key_size : it->value_size;
    if (lay->size != 0 ? size != lay->size : size < lay->min_size)
        return MCZ_OK; /* another layout: its fields are not known */
    const uint8_t *base = lay->in_key ? it->keys : it->values;
    int rc = MCZ_OK;
    for (uint32_t i = 0; i < it->m.count && rc == MCZ_OK; i++)
        for (int f = 0; f < MAX_POOL_FIELDS && rc == MCZ_OK; f++)
            if (lay->fields[f].index != 0 || lay->fields[f].length != 0)
                rc = field_check(w, it, base + (size_t)i * size, lay->fields[f], i);
    return rc;
}

/* ---- The walk ---- */

static int packet_check(strict_walk *w, const mcz_packet *p, mcz_strict_report *report)
{
    char name[48];
    map_items it = {.p = p, .name = mcz_packet_name(w->v, p->id, name, sizeof name)};
    int rc = mcz_map_parse(w->v, p, &it.m, NULL);
    if (rc != MCZ_OK) /* mcz_mc_check passed: cannot happen */
        return packet_fail(w, &it, PACKET_HEADER_SIZE, "map does not parse");
    const mcz_packet_info *info = table_entry(w, p->id);
    if (info && info->name)
        it.name = info->name;
    if (it.m.count == 0)
        return MCZ_OK;
    if ((rc = pool_walk(w, &it)) != MCZ_OK)
        return rc;
    if (!info) {
        if (!report->unknown[p->id])
            report->unknown_count++;
        report->unknown[p->id] = true;
        return MCZ_OK;
    }
    if ((rc = sizes_check(w, &it, info)) != MCZ_OK ||
        (rc = keys_check(w, &it, info->dense)) != MCZ_OK)
        return rc;
    return layout_check(w, &it);
}

int mcz_mc_check_strict(const mcz_jit_ee *v, const mcz_mc *mc, mcz_strict_report *report,
                        mcz_diag *diag)
{
    mcz_strict_report ignored;
    if (!report)
        report = &ignored;
    memset(report, 0, sizeof *report);
    int rc = mcz_mc_check(mc, diag);
    if (rc != MCZ_OK)
        return rc;
    strict_walk w = {.mc = mc, .v = v, .diag = diag};
    bool seen[256] = {false};
    uint32_t pos = 0;
    mcz_packet p;
    while (rc == MCZ_OK && (rc = mcz_packet_next(mc, &pos, &p, diag)) == 1) {
        if (seen[p.id]) {
            char name[48];
            const mcz_packet_info *info = table_entry(&w, p.id);
            rc = mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)(mc->offset + p.offset)),
                              mcz_in_context(mc->number),
                              "packet %s appears twice (SuperPMI keeps only the last)",
                              info && info->name ? info->name
                                                 : mcz_packet_name(v, p.id, name, sizeof name));
            break;
        }
        seen[p.id] = true;
        rc = packet_check(&w, &p, report);
    }
    free(w.starts);
    return rc;
}

int mcz_strict_unknown_fail(const mcz_mc *mc, const mcz_strict_report *report, mcz_diag *diag)
{
    if (!mc || !report || report->unknown_count == 0)
        return MCZ_OK;
    char list[200] = "";
    size_t used = 0;
    for (unsigned id = 0; id < 256 && used < sizeof list - 16; id++)
        if (report->unknown[id])
            used += (size_t)snprintf(list + used, sizeof list - used, "%sunknown(%u)",
                                     used ? ", " : "", id);
    return mcz_diag_set(diag, MCZ_EUNSUPPORTED, mcz_at_offset((int64_t)mc->offset),
                        mcz_in_context(mc->number), "packets the packet table does not know: %s",
                        list);
}
