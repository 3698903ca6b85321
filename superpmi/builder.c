/*
 * builder.c - serializes method contexts as SuperPMI's MethodContext::saveToFile does
 * (superpmi/SUPERPMI.md "Write order", "Maps", "The buffer pool"): one packet per non-empty map,
 * in the order added; each map tagged, sparse keys sorted by memcmp with the first value for a
 * key kept, pool buffers deduplicated as LightWeightMap::AddBuffer does.
 */
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"
#include "mcz_xxhash.h"

#define MC_HEADER_SIZE 6u
#define MAP_HEADER_SIZE 12u /* tag, count, pool length */
#define PACKET_OVERHEAD 6u  /* id, u32 size, canary */
#define NULL_INDEX 0xFFFFFFFFu

typedef enum builder_state {
    BUILDING, /* between maps */
    MAP_OPEN,
    FINISHED, /* the context is complete; only reset continues */
    FAILED    /* sticky error until reset */
} builder_state;

/* A growable byte array; grows geometrically. */
typedef struct byte_buf {
    uint8_t *data;
    size_t len, cap;
} byte_buf;

/*
 * Finds pool chunks by content in O(1), giving the answer of AddBuffer's linear scan: every chunk
 * the builder adds is unique, so "the first identical chunk" is "the identical chunk". Slots of
 * an older map are recognised by their generation, so opening a map costs nothing.
 */
typedef struct pool_slot {
    uint32_t index; /* the chunk's pool index (its data offset) */
    uint32_t generation;
} pool_slot;

typedef struct pool_index {
    pool_slot *slots;
    size_t cap;  /* a power of two, or 0 */
    size_t used; /* slots of the current generation */
    uint32_t generation;
} pool_index;

struct mcz_mc_builder {
    builder_state state;
    int error;
    byte_buf mc;     /* the context: header, packets, and after finish the trailer */
    /* the open map */
    uint8_t id;
    bool dense;
    uint32_t key_size, value_size, count;
    byte_buf keys;   /* sparse: count keys, sorted by memcmp */
    byte_buf values; /* count values, parallel to keys */
    byte_buf pool;
    pool_index index;
};

static int buf_reserve(byte_buf *b, size_t more)
{
    if (more <= b->cap - b->len)
        return MCZ_OK;
    if (more > SIZE_MAX / 2 - b->len)
        return MCZ_ENOMEM;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < more)
        cap *= 2;
    uint8_t *grown = realloc(b->data, cap);
    if (!grown)
        return MCZ_ENOMEM;
    b->data = grown;
    b->cap = cap;
    return MCZ_OK;
}

static int buf_append(byte_buf *b, const void *data, size_t len)
{
    int rc = buf_reserve(b, len);
    if (rc == MCZ_OK && len) {
        memcpy(b->data + b->len, data, len);
        b->len += len;
    }
    return rc;
}

static int buf_append_le32(byte_buf *b, uint32_t v)
{
    uint8_t le[4];
    mcz_put_le32(le, v);
    return buf_append(b, le, sizeof le);
}

/* Inserts len bytes at offset at (at <= b->len). */
static int buf_insert(byte_buf *b, size_t at, const void *data, size_t len)
{
    int rc = buf_reserve(b, len);
    if (rc != MCZ_OK)
        return rc;
    memmove(b->data + at + len, b->data + at, b->len - at);
    memcpy(b->data + at, data, len);
    b->len += len;
    return MCZ_OK;
}

static void buf_free(byte_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* Records the first failure; every later call reports it until reset. */
static int builder_fail(mcz_mc_builder *b, int code)
{
    if (b->state != FAILED) {
        b->state = FAILED;
        b->error = code;
    }
    return b->error;
}

static int builder_expect(mcz_mc_builder *b, builder_state want)
{
    if (!b)
        return MCZ_EINVAL;
    if (b->state == FAILED)
        return b->error;
    return b->state == want ? MCZ_OK : builder_fail(b, MCZ_ESTATE);
}

mcz_mc_builder *mcz_mc_builder_create(void)
{
    mcz_mc_builder *b = calloc(1, sizeof *b);
    if (b)
        mcz_mc_builder_reset(b);
    return b;
}

void mcz_mc_builder_free(mcz_mc_builder *b)
{
    if (!b)
        return;
    buf_free(&b->mc);
    buf_free(&b->keys);
    buf_free(&b->values);
    buf_free(&b->pool);
    free(b->index.slots);
    free(b);
}

static const uint8_t mc_header[MC_HEADER_SIZE] = {'m', 'c', 0, 0, 0, 0};

void mcz_mc_builder_reset(mcz_mc_builder *b)
{
    if (!b)
        return;
    b->mc.len = 0;
    b->keys.len = b->values.len = b->pool.len = 0;
    b->count = 0;
    b->error = MCZ_OK;
    b->state = BUILDING;
    if (buf_append(&b->mc, mc_header, sizeof mc_header) != MCZ_OK)
        builder_fail(b, MCZ_ENOMEM);
}

/* Starts an empty index for a new map. */
static void pool_index_clear(pool_index *x)
{
    x->used = 0;
    if (++x->generation == 0) { /* wrapped: stale slots could look current */
        if (x->slots)
            memset(x->slots, 0, x->cap * sizeof *x->slots);
        x->generation = 1;
    }
}

static bool slot_live(const pool_index *x, size_t i)
{
    return x->slots[i].generation == x->generation;
}

/* The slot holding this content, or the empty slot where it belongs. */
static size_t pool_index_probe(const pool_index *x, const byte_buf *pool, const void *data,
                               uint32_t len)
{
    size_t mask = x->cap - 1;
    size_t i = (size_t)XXH3_64bits(data, len) & mask;
    while (slot_live(x, i)) {
        uint32_t at = x->slots[i].index;
        if (mcz_get_le32(pool->data + at - 4) == len && memcmp(pool->data + at, data, len) == 0)
            return i;
        i = (i + 1) & mask;
    }
    return i;
}

/* Keeps the table at most half full. */
static int pool_index_grow(pool_index *x, const byte_buf *pool)
{
    if (x->cap != 0 && x->used < x->cap / 2)
        return MCZ_OK;
    pool_index bigger = {NULL, x->cap ? x->cap * 2 : 64, 0, 1};
    bigger.slots = calloc(bigger.cap, sizeof *bigger.slots);
    if (!bigger.slots)
        return MCZ_ENOMEM;
    for (size_t i = 0; i < x->cap; i++) {
        if (!slot_live(x, i))
            continue;
        uint32_t at = x->slots[i].index;
        uint32_t len = mcz_get_le32(pool->data + at - 4);
        size_t j = pool_index_probe(&bigger, pool, pool->data + at, len);
        bigger.slots[j] = (pool_slot){at, bigger.generation};
        bigger.used++;
    }
    free(x->slots);
    *x = bigger;
    return MCZ_OK;
}

int mcz_mc_builder_begin(mcz_mc_builder *b, uint8_t id, bool dense, uint32_t key_size,
                         uint32_t value_size)
{
    int rc = builder_expect(b, BUILDING);
    if (rc != MCZ_OK)
        return rc;
    if (dense != (key_size == 0) || value_size == 0)
        return builder_fail(b, MCZ_EINVAL);
    b->id = id;
    b->dense = dense;
    b->key_size = key_size;
    b->value_size = value_size;
    b->count = 0;
    b->keys.len = b->values.len = b->pool.len = 0;
    pool_index_clear(&b->index);
    b->state = MAP_OPEN;
    return MCZ_OK;
}

uint32_t mcz_mc_builder_buffer(mcz_mc_builder *b, const void *data, uint32_t len)
{
    if (builder_expect(b, MAP_OPEN) != MCZ_OK)
        return NULL_INDEX;
    if (!data || len == 0)
        return NULL_INDEX;
    if (pool_index_grow(&b->index, &b->pool) != MCZ_OK) {
        builder_fail(b, MCZ_ENOMEM);
        return NULL_INDEX;
    }
    size_t slot = pool_index_probe(&b->index, &b->pool, data, len);
    if (slot_live(&b->index, slot))
        return b->index.slots[slot].index;
    if ((uint64_t)b->pool.len + 4 + len > MCZ_MC_MAX_SIZE) {
        builder_fail(b, MCZ_ELIMIT);
        return NULL_INDEX;
    }
    if (buf_append_le32(&b->pool, len) != MCZ_OK || buf_append(&b->pool, data, len) != MCZ_OK) {
        builder_fail(b, MCZ_ENOMEM);
        return NULL_INDEX;
    }
    uint32_t index = (uint32_t)(b->pool.len - len);
    b->index.slots[slot] = (pool_slot){index, b->index.generation};
    b->index.used++;
    return index;
}

/* Index of the first key not less than key (memcmp order); *equal when it is the same key. */
static uint32_t key_lower_bound(const mcz_mc_builder *b, const void *key, bool *equal)
{
    uint32_t lo = 0, hi = b->count;
    *equal = false;
    if (hi > 0) { /* keys usually arrive in order: try the end first */
        int last = memcmp(b->keys.data + (size_t)(hi - 1) * b->key_size, key, b->key_size);
        if (last < 0)
            return hi;
        *equal = last == 0;
        if (*equal)
            return hi - 1;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int res = memcmp(b->keys.data + (size_t)mid * b->key_size, key, b->key_size);
        if (res == 0) {
            *equal = true;
            return mid;
        }
        if (res < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int mcz_mc_builder_add(mcz_mc_builder *b, const void *key, const void *value)
{
    int rc = builder_expect(b, MAP_OPEN);
    if (rc != MCZ_OK)
        return rc;
    if (!value || (!b->dense && !key))
        return builder_fail(b, MCZ_EINVAL);
    if (b->count == UINT32_MAX)
        return builder_fail(b, MCZ_ELIMIT);
    if (b->dense) {
        rc = buf_append(&b->values, value, b->value_size);
    } else {
        bool equal;
        uint32_t at = key_lower_bound(b, key, &equal);
        if (equal)
            return MCZ_OK; /* the first value for a key wins, as in LightWeightMap::Add */
        rc = buf_insert(&b->keys, (size_t)at * b->key_size, key, b->key_size);
        if (rc == MCZ_OK)
            rc = buf_insert(&b->values, (size_t)at * b->value_size, value, b->value_size);
    }
    if (rc != MCZ_OK)
        return builder_fail(b, rc);
    b->count++;
    return MCZ_OK;
}

/* A map ready to serialize: items are keys then values (sparse) or values (dense). */
typedef struct map_parts {
    bool dense;
    uint32_t count;
    const uint8_t *keys;
    size_t keys_len;
    const uint8_t *values;
    size_t values_len;
    const uint8_t *pool;
    uint32_t pool_size;
} map_parts;

/* Appends one packet holding a map: id, size, tag, count, pool length, items, pool, canary. */
static int packet_append(mcz_mc_builder *b, uint8_t id, const map_parts *m)
{
    uint64_t map_size = (uint64_t)MAP_HEADER_SIZE + m->keys_len + m->values_len + m->pool_size;
    if (b->mc.len - MC_HEADER_SIZE + PACKET_OVERHEAD + map_size >
        MCZ_MC_MAX_SIZE - MCZ_MC_OVERHEAD)
        return builder_fail(b, MCZ_ELIMIT);
    int rc = buf_reserve(&b->mc, PACKET_OVERHEAD + (size_t)map_size);
    if (rc != MCZ_OK)
        return builder_fail(b, rc);
    uint8_t head[5 + MAP_HEADER_SIZE];
    head[0] = id;
    mcz_put_le32(head + 1, (uint32_t)map_size);
    memcpy(head + 5, m->dense ? "DWM1" : "LWM1", 4);
    mcz_put_le32(head + 9, m->count);
    mcz_put_le32(head + 13, m->pool_size);
    static const uint8_t canary = 0x42;
    /* cannot fail: the space is reserved */
    buf_append(&b->mc, head, sizeof head);
    buf_append(&b->mc, m->keys, m->keys_len);
    buf_append(&b->mc, m->values, m->values_len);
    buf_append(&b->mc, m->pool, m->pool_size);
    buf_append(&b->mc, &canary, 1);
    return MCZ_OK;
}

int mcz_mc_builder_end(mcz_mc_builder *b)
{
    int rc = builder_expect(b, MAP_OPEN);
    if (rc != MCZ_OK)
        return rc;
    b->state = BUILDING;
    if (b->count == 0)
        return MCZ_OK; /* saveToFile never writes an empty map */
    map_parts parts = {b->dense,     b->count,      b->keys.data,   b->keys.len,
                       b->values.data, b->values.len, b->pool.data, (uint32_t)b->pool.len};
    return packet_append(b, b->id, &parts);
}

/* The legacy untagged dense form (u32 key before each value) becomes DWM1, values by key. */
static int put_legacy_dense(mcz_mc_builder *b, uint8_t id, const mcz_map *m)
{
    size_t values_len = (size_t)m->count * m->value_size;
    b->values.len = 0;
    int rc = buf_reserve(&b->values, values_len);
    if (rc != MCZ_OK)
        return builder_fail(b, rc);
    memset(b->values.data, 0, values_len);
    for (uint32_t i = 0; i < m->count; i++) {
        uint32_t key = mcz_get_le32(mcz_map_key(m, i));
        if (key >= m->count)
            return builder_fail(b, MCZ_ECORRUPT);
        memcpy(b->values.data + (size_t)key * m->value_size, mcz_map_value(m, i),
               m->value_size);
    }
    map_parts parts = {true, m->count, NULL, 0, b->values.data, values_len, m->pool,
                       m->pool_size};
    return packet_append(b, id, &parts);
}

int mcz_mc_builder_put_map(mcz_mc_builder *b, uint8_t id, const mcz_map *m)
{
    int rc = builder_expect(b, BUILDING);
    if (rc != MCZ_OK)
        return rc;
    if (!m || (m->count && (!m->items || m->item_size == 0 || (m->pool_size && !m->pool))))
        return builder_fail(b, MCZ_EINVAL);
    if (m->count == 0)
        return MCZ_OK; /* as saveToFile: empty maps are not written */
    const mcz_packet_info *info = mcz_packet_lookup(id);
    if (!m->tagged && !m->dense && info && info->dense && m->key_size == 4)
        return put_legacy_dense(b, id, m);
    /* a parsed map's keys and values are one contiguous run */
    map_parts parts = {m->dense, m->count, NULL, 0, m->items, (size_t)m->count * m->item_size,
                       m->pool, m->pool_size};
    return packet_append(b, id, &parts);
}

int mcz_mc_builder_finish(mcz_mc_builder *b, const uint8_t **bytes, size_t *size)
{
    int rc = builder_expect(b, BUILDING);
    if (rc != MCZ_OK)
        return rc;
    if (!bytes || !size)
        return builder_fail(b, MCZ_EINVAL);
    static const uint8_t trailer[2] = {'4', '2'};
    rc = buf_append(&b->mc, trailer, sizeof trailer);
    if (rc != MCZ_OK)
        return builder_fail(b, rc);
    mcz_put_le32(b->mc.data + 2, (uint32_t)(b->mc.len - MCZ_MC_OVERHEAD));
    b->state = FINISHED;
    *bytes = b->mc.data;
    *size = b->mc.len;
    return MCZ_OK;
}
