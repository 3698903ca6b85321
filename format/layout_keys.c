/*
 * layout_keys.c - what the packet layout (format/FORMAT.md §4a) learns from a chunk's maps: the
 * key sizes it splits them with, and the record sizes that make their packet sizes implied. A map's items are its n keys followed by its n values; the layout
 * puts the first n·K bytes in the id's keys stream, so K decides how well like meets like. The
 * packet table leaves K at 0 where the key's size changed between JIT-EE versions or is not
 * known (GetCallInfo, GetFieldInfo, CanAccessClass, ...: some of a collection's largest maps),
 * knows nothing of ids newer than itself, and may be wrong for a version it was not written
 * from. Learning K from the chunk costs nothing in the format: the layout records the key
 * sizes it used, and the decoder needs no table. A wrong K costs ratio, never correctness, so
 * the choice may be heuristic; it is deterministic (the same chunk gives the same layout).
 * A map's packet size is 12 + n·R + P (head, n items of R bytes, pool): when every packet of an
 * id in the chunk is such a map with one R, the layout records R and leaves the sizes out.
 */
#include <stdlib.h>
#include <string.h>

#include "layout.h"

#define IDS 256u
#define HEAD 12u               /* a map's tag, item count and pool size */
#define ITEMS_MIN 4096u        /* an id with fewer item bytes in the chunk is left unsplit */
#define MAPS_MAX 64u           /* maps of an id the order test looks at */
#define PAIRS_MIN 32u          /* adjacent item pairs the test needs before it decides */

/* One id's maps holding two items or more (the first MAPS_MAX), for the order test. */
typedef struct map_ref {
    const uint8_t *items;
    uint32_t n;
} map_ref;

/* What the chunk's packets of one id say about their items. */
typedef struct id_items {
    uint32_t record; /* bytes per item (key + value), when every map of the id agrees */
    bool dense;      /* DWM1 maps: no keys to split */
    bool mixed;      /* the id's packets disagree, or are not all maps: not split */
    bool unsized;    /* a packet's size is not 12 + n·record + pool: sizes stay in the framing */
    uint64_t bytes;  /* item bytes of the id in the chunk */
    uint64_t pairs;  /* adjacent item pairs in maps[] */
    uint32_t count;  /* maps in maps[] */
    map_ref *maps;   /* MAPS_MAX of them */
} id_items;

/* A packet's items when its payload is a map head whose pool fits and whose items divide
 * evenly: *n items of *record bytes at *items. False otherwise. */
static bool map_items(const uint8_t *payload, uint32_t size, uint32_t *n, uint32_t *record,
                      const uint8_t **items)
{
    if (size < HEAD)
        return false;
    uint32_t count = mcz_get_le32(payload + 4), pool = mcz_get_le32(payload + 8);
    if (count == 0 || pool > size - HEAD || (size - HEAD - pool) % count != 0)
        return false;
    *n = count;
    *record = (size - HEAD - pool) / count;
    *items = payload + HEAD;
    return true;
}

static void survey_packet(id_items *it, const uint8_t *payload, uint32_t size)
{
    uint32_t n, record;
    const uint8_t *items;
    if (it->mixed)
        return;
    if (size >= 8 && mcz_get_le32(payload + 4) == 0) {
        /* An empty map says nothing of the items; its size follows from a head only when it
         * has one (SuperPMI writes the tag and the zero count alone). */
        it->unsized |= size < HEAD || size - HEAD != mcz_get_le32(payload + 8);
        return;
    }
    if (!map_items(payload, size, &n, &record, &items) || (it->record && it->record != record)) {
        it->mixed = it->unsized = true;
        return;
    }
    it->record = record;
    it->bytes += (uint64_t)n * record;
    if (n >= 2 && it->count < MAPS_MAX) {
        it->maps[it->count++] = (map_ref){items, n};
        it->pairs += n - 1;
    }
}

/* Surveys every packet of every context that parses as packets. */
static void survey(const uint8_t *raw, const uint32_t *lengths, uint32_t count, id_items *ids)
{
    for (uint32_t i = 0; i < count; raw += lengths[i], i++) {
        if (!mcz_layout_context_parses(raw, lengths[i]))
            continue;
        for (const uint8_t *p = raw + 6, *end = raw + lengths[i] - 2; p < end;) {
            uint32_t size = mcz_get_le32(p + 1);
            survey_packet(&ids[p[0]], p + 5, size);
            p += 5 + size + 1;
        }
    }
}

/* True when, cut into k-byte records, the first n·k item bytes of every map rise strictly. */
static bool keys_rise(const id_items *it, uint32_t k)
{
    for (uint32_t i = 0; i < it->count; i++)
        for (uint32_t j = 1; j < it->maps[i].n; j++) {
            const uint8_t *key = it->maps[i].items + (size_t)j * k;
            if (memcmp(key - k, key, k) >= 0)
                return false;
        }
    return true;
}

/*
 * The key size of one id whose maps all hold items of it->record bytes. SuperPMI's
 * LightWeightMap keeps its keys in strictly rising memcmp order (it inserts by a binary search
 * with memcmp, and never holds a key twice), so the first n·K bytes of every map, cut into
 * K-byte records, rise strictly; cut at another size they set a key's bytes against another
 * part of it or of its neighbour, and seldom rise across every pair. In order, the first size
 * whose records rise in every map: the table's (`table`, 0 when it gives none), the record less
 * the table's value size (`value`), the smallest that rises (a multiple of the key's rises too).
 * With fewer than PAIRS_MIN pairs to judge by, a rise proves nothing: the table's sizes stand.
 */
static uint32_t key_size_of(const id_items *it, uint32_t table, uint32_t value)
{
    uint32_t from_value = value != 0 && it->record > value ? it->record - value : 0;
    if (it->pairs < PAIRS_MIN)
        return table ? table : from_value;
    if (table && table < it->record && keys_rise(it, table))
        return table;
    if (from_value && keys_rise(it, from_value))
        return from_value;
    for (uint32_t k = 1; k < it->record; k++)
        if (keys_rise(it, k))
            return k;
    return table;
}

void mcz_layout_learn(const uint8_t *raw, const uint32_t *lengths, uint32_t count,
                      const mcz_jit_ee *v, uint32_t key_size[256], uint32_t record_size[256])
{
    memset(record_size, 0, IDS * sizeof *record_size);
    id_items *ids = calloc(IDS, sizeof *ids);
    map_ref *maps = malloc((size_t)IDS * MAPS_MAX * sizeof *maps);
    if (!ids || !maps) {
        free(ids);
        free(maps);
        return; /* no memory: the table's key sizes stand, and every size stays in the framing */
    }
    for (unsigned id = 0; id < IDS; id++) {
        const mcz_packet_info *info = mcz_jit_ee_packet(v, (uint8_t)id);
        ids[id].dense = info && info->dense;
        ids[id].maps = maps + (size_t)id * MAPS_MAX;
    }
    survey(raw, lengths, count, ids);
    for (unsigned id = 0; id < IDS; id++) {
        const id_items *it = &ids[id];
        if (!it->unsized)
            record_size[id] = it->record;
        if (it->dense || it->mixed || it->record < 2 || it->bytes < ITEMS_MIN)
            continue;
        const mcz_packet_info *info = mcz_jit_ee_packet(v, (uint8_t)id);
        key_size[id] = key_size_of(it, key_size[id], info ? info->value_size : 0);
    }
    free(ids);
    free(maps);
}
