/*
 * mch.c - the legacy SuperPMI container: method contexts, packets and maps (superpmi/SUPERPMI.md
 * "The container" and "Maps"), read in place from a buffer (typically an mmap) with every
 * length checked before use.
 */
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"

#define MC_HEADER_SIZE 6u  /* 'm' 'c' u32 totalLen */
#define PACKET_HEADER_SIZE 5u /* u8 id, u32 size */
#define PACKET_CANARY 0x42u
#define MAP_TAG_SIZE 4u
#define NULL_INDEX 0xFFFFFFFFu

static const uint8_t mc_magic[2] = {'m', 'c'};
static const uint8_t mc_trailer[2] = {'4', '2'};
static const uint8_t lwm_tag[MAP_TAG_SIZE] = {'L', 'W', 'M', '1'};
static const uint8_t dwm_tag[MAP_TAG_SIZE] = {'D', 'W', 'M', '1'};

/* ---- Container ---- */

/*
 * Validates the context starting at bytes[0] with `avail` bytes available. base is the file
 * offset of bytes[0] (for messages). Returns the context's size or a negative code.
 */
static int64_t container_check(const uint8_t *bytes, size_t avail, uint64_t base, uint32_t number,
                               mcz_diag *diag)
{
    size_t have_magic = avail < sizeof mc_magic ? avail : sizeof mc_magic;
    if (memcmp(bytes, mc_magic, have_magic) != 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)base),
                            mcz_in_context(number), "bad magic (expected 'mc')");
    if (avail < MC_HEADER_SIZE)
        return mcz_diag_set(diag, MCZ_ETRUNCATED, mcz_at_offset((int64_t)base),
                            mcz_in_context(number), "header truncated (%zu of 6 bytes)", avail);
    uint32_t total_len = mcz_get_le32(bytes + 2);
    if (total_len > MCZ_MC_MAX_SIZE - MCZ_MC_OVERHEAD)
        return mcz_diag_set(diag, MCZ_ELIMIT, mcz_at_offset((int64_t)base + 2),
                            mcz_in_context(number), "length %u exceeds the limit of %u bytes",
                            total_len, MCZ_MC_MAX_SIZE);
    if (!mcz_fits(avail, MC_HEADER_SIZE, (size_t)total_len + sizeof mc_trailer))
        /* The context's start, as its .mct entry records it: where a salvage cuts. */
        return mcz_diag_set(diag, MCZ_ETRUNCATED, mcz_at_offset((int64_t)base),
                            mcz_in_context(number),
                            "cut short: %zu of its %llu bytes are in the file", avail,
                            (unsigned long long)total_len + MCZ_MC_OVERHEAD);
    const uint8_t *trailer = bytes + MC_HEADER_SIZE + total_len;
    if (memcmp(trailer, mc_trailer, sizeof mc_trailer) != 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT,
                            mcz_at_offset((int64_t)(base + MC_HEADER_SIZE + total_len)),
                            mcz_in_context(number), "bad end canary (expected '42')");
    return (int64_t)total_len + MCZ_MC_OVERHEAD;
}

int mcz_mch_next(const uint8_t *buf, size_t len, uint64_t *pos, uint32_t *number, mcz_mc *out,
                 mcz_diag *diag)
{
    if ((!buf && len) || !pos || !number || !out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_mch_next: NULL argument");
    if (*pos == len)
        return 0;
    if (*pos > len)
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset((int64_t)*pos), MCZ_NO_CONTEXT,
                            "position %llu past the end (%zu)", (unsigned long long)*pos, len);
    if (*number == UINT32_MAX)
        return mcz_diag_set(diag, MCZ_ELIMIT, mcz_at_offset((int64_t)*pos), MCZ_NO_CONTEXT,
                            "too many contexts");
    uint32_t next = *number + 1;
    size_t at = (size_t)*pos;
    int64_t size = container_check(buf + at, len - at, *pos, next, diag);
    if (size < 0)
        return (int)size;
    out->bytes = buf + at;
    out->size = (size_t)size;
    out->offset = *pos;
    out->number = next;
    *pos += (uint64_t)size;
    *number = next;
    return 1;
}

int mcz_mc_from_bytes(const uint8_t *bytes, size_t size, uint32_t number, uint64_t offset,
                      mcz_mc *out, mcz_diag *diag)
{
    if (!bytes || !out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, mcz_in_context(number),
                            "mcz_mc_from_bytes: NULL argument");
    if (size == 0)
        return mcz_diag_set(diag, MCZ_ETRUNCATED, mcz_at_offset((int64_t)offset),
                            mcz_in_context(number), "empty");
    int64_t got = container_check(bytes, size, offset, number, diag);
    if (got < 0)
        return (int)got;
    if ((size_t)got != size)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)offset + got),
                            mcz_in_context(number), "%zu bytes follow the trailer",
                            size - (size_t)got);
    out->bytes = bytes;
    out->size = size;
    out->offset = offset;
    out->number = number;
    return MCZ_OK;
}

/* ---- Packets ---- */

/* Checks what a packet walk relies on, for views the caller may have filled by hand. */
static int mc_view_check(const mcz_mc *mc, mcz_diag *diag)
{
    if (!mc || !mc->bytes)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "NULL context");
    int64_t size = container_check(mc->bytes, mc->size, mc->offset, mc->number, diag);
    if (size < 0)
        return (int)size;
    if ((size_t)size != mc->size)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)mc->offset),
                            mcz_in_context(mc->number), "size %zu disagrees with its length field",
                            mc->size);
    return MCZ_OK;
}

int mcz_packet_next(const mcz_mc *mc, uint32_t *pos, mcz_packet *out, mcz_diag *diag)
{
    if (!mc || !mc->bytes || mc->size < MCZ_MC_OVERHEAD || !pos || !out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_packet_next: bad argument");
    size_t area_len = mc->size - MCZ_MC_OVERHEAD;
    const uint8_t *area = mc->bytes + MC_HEADER_SIZE;
    int64_t where = (int64_t)(mc->offset + MC_HEADER_SIZE + *pos);
    if (*pos == area_len)
        return 0;
    if (*pos > area_len)
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset(where), mcz_in_context(mc->number),
                            "packet position past the end");
    if (!mcz_fits(area_len, *pos, PACKET_HEADER_SIZE))
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(where), mcz_in_context(mc->number),
                            "packet header overruns the packet area");
    uint8_t id = area[*pos];
    uint32_t size = mcz_get_le32(area + *pos + 1);
    size_t data_at = (size_t)*pos + PACKET_HEADER_SIZE;
    if (!mcz_fits(area_len, data_at, (size_t)size + 1)) {
        char name[48];
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(where + 1),
                            mcz_in_context(mc->number),
                            "packet %s of %u bytes overruns the packet area",
                            mcz_packet_name(NULL, id, name, sizeof name), size);
    }
    if (area[data_at + size] != PACKET_CANARY) {
        char name[48];
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(where + PACKET_HEADER_SIZE + size),
                            mcz_in_context(mc->number), "packet %s: bad canary",
                            mcz_packet_name(NULL, id, name, sizeof name));
    }
    out->id = id;
    out->size = size;
    out->data = area + data_at;
    out->offset = (uint32_t)(MC_HEADER_SIZE + *pos);
    *pos = (uint32_t)(data_at + size + 1);
    return 1;
}

int mcz_packet_find(const mcz_mc *mc, uint8_t id, mcz_packet *out, mcz_diag *diag)
{
    uint32_t pos = 0;
    mcz_packet p;
    int rc;
    while ((rc = mcz_packet_next(mc, &pos, &p, diag)) == 1) {
        if (p.id == id) {
            if (out)
                *out = p;
            return 1;
        }
    }
    return rc;
}

/* ---- Maps ---- */

/* Where the map's fields start and what kind it is, from its tag and the packet table. */
typedef struct map_layout {
    uint32_t header;     /* bytes before numItems: 4 when tagged, else 0 */
    bool tagged;
    bool dense;          /* keys implicit */
    bool legacy_dense;   /* untagged payload in a dense packet: u32 keys stored */
} map_layout;

static int map_fail(const mcz_jit_ee *v, const mcz_packet *p, mcz_diag *diag, int code,
                    uint32_t at, const char *what)
{
    char name[48];
    return mcz_diag_set(diag, code, mcz_at_offset((int64_t)p->offset + PACKET_HEADER_SIZE + at),
                        MCZ_NO_CONTEXT, "packet %s: %s",
                        mcz_packet_name(v, p->id, name, sizeof name), what);
}

static int map_layout_of(const mcz_jit_ee *v, const mcz_packet *p, map_layout *lay, mcz_diag *diag)
{
    const mcz_packet_info *info = mcz_jit_ee_packet(v, p->id);
    bool has_tag = p->size >= MAP_TAG_SIZE;
    bool lwm = has_tag && memcmp(p->data, lwm_tag, MAP_TAG_SIZE) == 0;
    bool dwm = has_tag && memcmp(p->data, dwm_tag, MAP_TAG_SIZE) == 0;
    lay->tagged = lwm || dwm;
    lay->header = lay->tagged ? MAP_TAG_SIZE : 0;
    lay->dense = dwm;
    lay->legacy_dense = false;
    if (!info)
        return MCZ_OK;
    /* SuperPMI reads a foreign tag as a huge item count, which then fails its size check. */
    if (info->dense && lwm)
        return map_fail(v, p, diag, MCZ_ECORRUPT, 0, "LWM1 map in a dense packet");
    if (!info->dense && dwm)
        return map_fail(v, p, diag, MCZ_ECORRUPT, 0, "DWM1 map in a sparse packet");
    lay->legacy_dense = info->dense && !dwm;
    return MCZ_OK;
}

/* The legacy dense form stores u32 keys that must be exactly 0..count-1 in some order. */
static int legacy_dense_keys_check(const mcz_jit_ee *v, const mcz_packet *p, const mcz_map *m, mcz_diag *diag)
{
    uint8_t *seen = calloc((size_t)m->count / 8 + 1, 1);
    if (!seen)
        return map_fail(v, p, diag, MCZ_ENOMEM, 0, "out of memory");
    int rc = MCZ_OK;
    for (uint32_t i = 0; i < m->count && rc == MCZ_OK; i++) {
        uint32_t key = mcz_get_le32(m->items + (size_t)i * 4);
        if (key >= m->count || (seen[key / 8] >> (key % 8)) & 1)
            rc = map_fail(v, p, diag, MCZ_ECORRUPT, 8 + i * 4,
                          "legacy dense map: key out of range or repeated");
        else
            seen[key / 8] |= (uint8_t)(1u << (key % 8));
    }
    free(seen);
    return rc;
}

/*
 * Splits item_size into key and value sizes from the packet table: a known key size gives the
 * value size and vice versa; when both are known they must add up, else the split stays unknown.
 */
static void map_split(const mcz_jit_ee *v, const mcz_packet *p, const map_layout *lay, mcz_map *m)
{
    const mcz_packet_info *info = mcz_jit_ee_packet(v, p->id);
    m->key_size = 0;
    m->value_size = 0;
    if (lay->dense) {
        m->value_size = m->item_size;
        return;
    }
    uint32_t key_size = lay->legacy_dense ? 4 : (info ? info->key_size : 0);
    uint32_t value_size = info && !lay->legacy_dense ? info->value_size : 0;
    if (key_size == 0 && value_size != 0 && value_size < m->item_size)
        key_size = m->item_size - value_size;
    if (key_size == 0 || key_size >= m->item_size)
        return;
    if (value_size != 0 && key_size + value_size != m->item_size)
        return;
    m->key_size = key_size;
    m->value_size = m->item_size - key_size;
}

int mcz_map_parse(const mcz_jit_ee *v, const mcz_packet *p, mcz_map *out, mcz_diag *diag)
{
    if (!p || !p->data || !out) /* a packet's data, even of 0 bytes, points into its context */
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_map_parse: NULL argument");
    memset(out, 0, sizeof *out);
    map_layout lay;
    int rc = map_layout_of(v, p, &lay, diag);
    if (rc != MCZ_OK)
        return rc;
    uint32_t at = lay.header;
    if (!mcz_fits(p->size, at, 4))
        return map_fail(v, p, diag, MCZ_ECORRUPT, at, "map truncated before its item count");
    uint32_t count = mcz_get_le32(p->data + at);
    at += 4;
    if (count == 0) {
        if (at != p->size)
            return map_fail(v, p, diag, MCZ_ECORRUPT, at, "bytes after an empty map");
    } else {
        if (!mcz_fits(p->size, at, 4))
            return map_fail(v, p, diag, MCZ_ECORRUPT, at, "map truncated before its pool length");
        uint32_t pool_size = mcz_get_le32(p->data + at);
        at += 4;
        if (!mcz_fits(p->size, at, pool_size))
            return map_fail(v, p, diag, MCZ_ECORRUPT, at - 4, "pool length past the packet");
        uint32_t items_len = p->size - at - pool_size;
        if (items_len == 0 || items_len % count != 0)
            return map_fail(v, p, diag, MCZ_ECORRUPT, lay.header,
                            "item count does not divide the item bytes");
        out->items = p->data + at;
        out->pool = p->data + at + items_len;
        out->pool_size = pool_size;
        out->item_size = items_len / count;
    }
    out->tagged = lay.tagged;
    out->dense = lay.dense;
    out->count = count;
    map_split(v, p, &lay, out);
    if (lay.legacy_dense && count > 0) {
        if (out->key_size != 4)
            return map_fail(v, p, diag, MCZ_ECORRUPT, 0, "legacy dense map: bad item size");
        return legacy_dense_keys_check(v, p, out, diag);
    }
    return MCZ_OK;
}

const uint8_t *mcz_map_key(const mcz_map *m, uint32_t i)
{
    if (!m || m->dense || m->key_size == 0 || i >= m->count)
        return NULL;
    return m->items + (size_t)i * m->key_size;
}

const uint8_t *mcz_map_value(const mcz_map *m, uint32_t i)
{
    if (!m || i >= m->count)
        return NULL;
    if (m->dense)
        return m->items + (size_t)i * m->item_size;
    if (m->key_size == 0)
        return NULL;
    return m->items + (size_t)m->count * m->key_size + (size_t)i * m->value_size;
}

/* LightWeightMap::GetIndex: the same probes, so the same answer on unsorted input. */
static int64_t map_index_of(const mcz_map *m, const void *key)
{
    int64_t first = 0, last = (int64_t)m->count - 1;
    while (first <= last) {
        int64_t mid = (first + last) / 2;
        int res = memcmp(m->items + (size_t)mid * m->key_size, key, m->key_size);
        if (res == 0)
            return mid;
        if (res > 0)
            last = mid - 1;
        else
            first = mid + 1;
    }
    return -1;
}

const uint8_t *mcz_map_find(const mcz_map *m, const void *key, uint32_t key_size)
{
    if (!m || !key)
        return NULL;
    if (m->dense) /* DenseLightWeightMap keys are u32 indices */
        return key_size == 4 ? mcz_map_value(m, mcz_get_le32(key)) : NULL;
    if (m->key_size == 0 || key_size != m->key_size)
        return NULL;
    int64_t i = map_index_of(m, key);
    return i < 0 ? NULL : mcz_map_value(m, (uint32_t)i);
}

int mcz_map_buffer(const mcz_map *m, uint32_t index, const uint8_t **data, uint32_t *len)
{
    if (!m)
        return MCZ_EINVAL;
    if (index == NULL_INDEX)
        return MCZ_EMISSING;
    if (index < 4 || !mcz_fits(m->pool_size, index - 4, 4))
        return MCZ_ECORRUPT;
    uint32_t chunk_len = mcz_get_le32(m->pool + index - 4);
    if (!mcz_fits(m->pool_size, index, chunk_len))
        return MCZ_ECORRUPT;
    if (data)
        *data = m->pool + index;
    if (len)
        *len = chunk_len;
    return MCZ_OK;
}

/* ---- Deep check ---- */

/* Moves a map-level diagnostic (offset relative to the context) into file terms. */
static int map_diag_rebase(const mcz_mc *mc, int rc, mcz_diag *local, mcz_diag *diag)
{
    int64_t offset = local->offset < 0 ? -1 : (int64_t)mc->offset + local->offset;
    return mcz_diag_set(diag, rc, mcz_at_offset(offset), mcz_in_context(mc->number), "%s",
                        local->message);
}

/* Item size the packet table implies for this map, or 0 when it does not say. */
static uint32_t expected_item_size(const mcz_packet_info *info, const mcz_map *m)
{
    if (info->dense) /* the untagged legacy form stores a u32 key before each value */
        return info->value_size == 0 ? 0 : info->value_size + (m->tagged ? 0 : 4);
    if (info->key_size == 0 || info->value_size == 0)
        return 0;
    return info->key_size + info->value_size;
}

/* MCZ_OK when every map v knows has the item size v's table gives. */
static int map_sizes_check(const mcz_jit_ee *v, const mcz_mc *mc, const mcz_packet *p,
                           const mcz_map *m, mcz_diag *diag)
{
    const mcz_packet_info *info = mcz_jit_ee_packet(v, p->id);
    if (!info || m->count == 0)
        return MCZ_OK;
    uint32_t expected = expected_item_size(info, m);
    bool ok = expected != 0 ? m->item_size == expected
                            : info->dense || m->key_size != 0 ||
                                  (info->key_size == 0 && info->value_size == 0);
    if (ok)
        return MCZ_OK;
    char name[48];
    return mcz_diag_set(diag, MCZ_EVERSION, mcz_at_offset((int64_t)(mc->offset + p->offset)),
                        mcz_in_context(mc->number),
                        "packet %s: items of %u bytes where JIT-EE version %s has key "
                        "%u + value %u (another JIT-EE version?)",
                        mcz_packet_name(v, p->id, name, sizeof name), m->item_size,
                        mcz_jit_ee_name(v), info->key_size, info->value_size);
}

/* Walks every packet of mc, parsing its map as v reads it; per_map (optional) sees each. */
static int mc_walk_maps(const mcz_jit_ee *v, const mcz_mc *mc,
                        int (*per_map)(const mcz_jit_ee *, const mcz_mc *, const mcz_packet *,
                                       const mcz_map *, mcz_diag *),
                        mcz_diag *diag)
{
    int rc = mc_view_check(mc, diag);
    if (rc != MCZ_OK)
        return rc;
    uint32_t pos = 0;
    mcz_packet p;
    while ((rc = mcz_packet_next(mc, &pos, &p, diag)) == 1) {
        mcz_map m;
        mcz_diag local;
        mcz_diag_clear(&local);
        rc = mcz_map_parse(v, &p, &m, &local);
        if (rc != MCZ_OK)
            return map_diag_rebase(mc, rc, &local, diag);
        if (per_map && (rc = per_map(v, mc, &p, &m, diag)) != MCZ_OK)
            return rc;
    }
    return rc;
}

int mcz_mc_check(const mcz_mc *mc, mcz_diag *diag)
{
    return mc_walk_maps(NULL, mc, NULL, diag);
}

int mcz_mc_check_table(const mcz_jit_ee *v, const mcz_mc *mc, mcz_diag *diag)
{
    return mc_walk_maps(v, mc, map_sizes_check, diag);
}

/* ---- Which versions a context agrees with ---- */

/* Whether a raw CorInfoType stored at value + at names a type in v. */
static bool type_fits(const mcz_jit_ee *v, const mcz_map *m, uint32_t i, uint32_t at)
{
    const uint8_t *value = mcz_map_value(m, i);
    return !value || m->value_size < at + 4 || mcz_jit_ee_type(v, mcz_get_le32(value + at)) >= 0;
}

/* A packet fits v when v names its id (or no version does), its items have v's sizes, and the
 * CorInfoTypes the identity reads (argument types, the method's return type) exist in v. */
static int fits_check(const mcz_jit_ee *v, const mcz_mc *mc, const mcz_packet *p,
                      const mcz_map *m, mcz_diag *diag)
{
    if (!mcz_jit_ee_packet(v, p->id)) {
        for (size_t i = 0; i < mcz_jit_ee_count(); i++)
            if (mcz_jit_ee_packet(mcz_jit_ee_at(i), p->id))
                return MCZ_EVERSION;
        return MCZ_OK;
    }
    int rc = map_sizes_check(v, mc, p, m, diag);
    for (uint32_t i = 0; rc == MCZ_OK && i < m->count; i++) {
        bool ok = true;
        if (p->id == MCZ_PACKET_GET_ARG_TYPE)
            ok = type_fits(v, m, i, MCZ_AT_VALUE_RESULT);
        else if (p->id == MCZ_PACKET_COMPILE_METHOD)
            ok = type_fits(v, m, i, MCZ_CM_INFO + MCZ_MI_ARGS + MCZ_SIG_RET_TYPE);
        if (!ok)
            rc = MCZ_EVERSION;
    }
    return rc;
}

uint32_t mcz_jit_ee_fits(const mcz_mc *mc)
{
    uint32_t mask = 0;
    for (size_t i = 0; i < mcz_jit_ee_count(); i++)
        if (mc_walk_maps(mcz_jit_ee_at(i), mc, fits_check, NULL) == MCZ_OK)
            mask |= 1u << i;
    return mask;
}

const mcz_jit_ee *mcz_jit_ee_from_fits(uint32_t fits)
{
    for (size_t i = 0; i < mcz_jit_ee_count(); i++)
        if (fits == 1u << i)
            return mcz_jit_ee_at(i);
    return NULL;
}

const mcz_jit_ee *mcz_jit_ee_detect(const mcz_mc *mc)
{
    return mcz_jit_ee_from_fits(mcz_jit_ee_fits(mc));
}

void mcz_jit_ee_vote(uint32_t *fits, const mcz_mc *mc)
{
    uint32_t one = mcz_jit_ee_fits(mc);
    if (one != 0) /* a context no version reads (damage) says nothing about the version */
        *fits &= one;
}

uint32_t mcz_jit_ee_fits_all(void)
{
    return (uint32_t)((1ull << mcz_jit_ee_count()) - 1);
}

const mcz_jit_ee *mcz_jit_ee_detect_mch(const uint8_t *buf, size_t len, uint32_t *fits)
{
    uint32_t mask = mcz_jit_ee_fits_all();
    uint64_t pos = 0;
    uint32_t number = 0;
    mcz_mc mc;
    while (number < MCZ_JIT_EE_DETECT_CONTEXTS && pos < MCZ_JIT_EE_DETECT_BYTES &&
           mcz_mch_next(buf, len, &pos, &number, &mc, NULL) == 1)
        mcz_jit_ee_vote(&mask, &mc);
    if (fits)
        *fits = mask;
    return mcz_jit_ee_from_fits(mask);
}
