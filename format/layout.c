/*
 * layout.c - the packet layout of a chunk (format/FORMAT.md §4a). Both directions walk the same
 * structure twice: a first pass measures every stream (so the streams' places are known without
 * a scratch buffer), a second one moves the bytes. The encoder parses the raw contexts; the
 * decoder parses the framing, which is hostile: every read is bounds-checked against the
 * layout's size and every write against the raw size, in both passes alike.
 */
#include <string.h>

#include "layout.h"
#include "mcz_common.h"

#define HEAD_MAX 12u      /* a map's tag, item count and pool size: kept in the framing */
#define CONTEXT_FRAMING 5u /* kind, length */
#define PACKET_FRAMING 5u  /* id, size */
#define KIND_PACKETS 0u
#define KIND_VERBATIM 1u
#define KEY_ENTRY 5u       /* key-size table entry: id, key size */
#define SIZED_ENTRY 9u     /* the same with SIZES: id, key size, record size */
#define TABLE_SIZES 0x10000u /* table word: entries carry record sizes (version 4) */
#define TABLE_COUNT 0xFFFFu  /* table word: the entry count */
#define IDS 256u

static const uint8_t mc_magic[2] = {'m', 'c'};
static const uint8_t mc_trailer[2] = {'4', '2'};
#define PACKET_CANARY 0x42u

uint64_t mcz_layout_bound(uint64_t raw_size, uint32_t count)
{
    return raw_size + (uint64_t)CONTEXT_FRAMING * count + 4 + SIZED_ENTRY * IDS;
}

/* Where a packet's payload goes (FORMAT.md §4a): its first min(size, 12) bytes into the
 * framing; when those are a map head (tag, n items, pool size P) whose pool fits, the pool to
 * the id's pool stream and the items before it to the id's keys (n × key size, when the table
 * gives a key size and the items hold that much) and values streams; otherwise the rest to the
 * values stream. Depends only on the size, the head and the key size, which the decoder has
 * before it moves the rest. */
typedef struct payload_split {
    uint32_t head, keys, values, pool;
} payload_split;

static payload_split split_payload(uint32_t size, const uint8_t *head, uint32_t key_size)
{
    payload_split s = {size < HEAD_MAX ? size : HEAD_MAX, 0, 0, 0};
    if (size < HEAD_MAX)
        return s;
    uint32_t rest = size - HEAD_MAX;
    uint32_t items = mcz_get_le32(head + 4), pool = mcz_get_le32(head + 8);
    if (pool > rest) {
        s.values = rest;
        return s;
    }
    s.pool = pool;
    rest -= pool;
    if (key_size != 0 && items != 0 && (uint64_t)items * key_size <= rest)
        s.keys = items * key_size;
    s.values = rest - s.keys;
    return s;
}

/* The stream positions during a walk: offsets inside the layout. In a measuring pass they all
 * start at 0 and end at each stream's size. */
typedef struct streams {
    uint64_t framing, verbatim;
    uint64_t keys[IDS], values[IDS], pools[IDS];
} streams;

/* Places the streams back to back after the key table and framing, in the order of §4a, from
 * their measured sizes; returns the layout's total size. */
static uint64_t place_streams(const streams *size, uint64_t table, streams *at)
{
    uint64_t off = table;
    at->framing = off;
    off += size->framing;
    at->verbatim = off;
    off += size->verbatim;
    for (unsigned id = 0; id < IDS; id++) {
        at->keys[id] = off;
        off += size->keys[id];
    }
    for (unsigned id = 0; id < IDS; id++) {
        at->values[id] = off;
        off += size->values[id];
    }
    for (unsigned id = 0; id < IDS; id++) {
        at->pools[id] = off;
        off += size->pools[id];
    }
    return off;
}

/* ---- Encoding ---- */

bool mcz_layout_context_parses(const uint8_t *m, uint32_t len)
{
    if (len < MCZ_MC_OVERHEAD || memcmp(m, mc_magic, 2) != 0 ||
        memcmp(m + len - 2, mc_trailer, 2) != 0 || mcz_get_le32(m + 2) != len - MCZ_MC_OVERHEAD)
        return false;
    const uint8_t *p = m + 6, *end = m + len - 2;
    while (p < end) {
        if ((size_t)(end - p) < PACKET_FRAMING + 1)
            return false;
        uint32_t size = mcz_get_le32(p + 1);
        if (size > (size_t)(end - p) - PACKET_FRAMING - 1 || p[PACKET_FRAMING + size] != PACKET_CANARY)
            return false;
        p += PACKET_FRAMING + size + 1;
    }
    return true;
}

static void put(uint8_t *out, uint64_t *at, const void *src, size_t n)
{
    if (out && n)
        memcpy(out + *at, src, n);
    *at += n;
}

static void put_u8(uint8_t *out, uint64_t *at, uint8_t v)
{
    put(out, at, &v, 1);
}

static void put_u32(uint8_t *out, uint64_t *at, uint32_t v)
{
    uint8_t b[4];
    mcz_put_le32(b, v);
    put(out, at, b, 4);
}

/* One pass of the encoder over the contexts: writes at `at` when out is set, else measures.
 * seen collects the ids present. */
static void encode_walk(const uint8_t *raw, const uint32_t *lengths, uint32_t count,
                        const uint32_t key_size[IDS], const uint32_t record_size[IDS],
                        uint8_t *out, streams *at, bool seen[IDS])
{
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *m = raw;
        uint32_t len = lengths[i];
        raw += len;
        if (!mcz_layout_context_parses(m, len)) {
            put_u8(out, &at->framing, KIND_VERBATIM);
            put_u32(out, &at->framing, len);
            put(out, &at->verbatim, m, len);
            continue;
        }
        put_u8(out, &at->framing, KIND_PACKETS);
        put_u32(out, &at->framing, len - MCZ_MC_OVERHEAD);
        for (const uint8_t *p = m + 6, *end = m + len - 2; p < end;) {
            uint8_t id = p[0];
            uint32_t size = mcz_get_le32(p + 1);
            const uint8_t *payload = p + PACKET_FRAMING;
            payload_split s = split_payload(size, payload, key_size[id]);
            seen[id] = true;
            if (record_size[id]) { /* the size follows from the head */
                put_u8(out, &at->framing, id);
                put(out, &at->framing, payload, s.head);
            } else {
                put(out, &at->framing, p, PACKET_FRAMING + s.head);
            }
            payload += s.head;
            put(out, &at->keys[id], payload, s.keys);
            payload += s.keys;
            put(out, &at->values[id], payload, s.values);
            payload += s.values;
            put(out, &at->pools[id], payload, s.pool);
            p += PACKET_FRAMING + size + 1;
        }
    }
}

/* Writes the table of the key and record sizes the chunk's ids use: the version-3 form (key
 * sizes only) when no id has its sizes implied, else entries with both (SIZES). Ids without
 * either are left out, and their sizes set to 0: the decoder knows no others. */
static void encode_table(uint32_t key_size[IDS], uint32_t record_size[IDS], const bool seen[IDS],
                         uint8_t *out, uint64_t *pos)
{
    uint32_t entries = 0;
    bool sized = false;
    for (unsigned id = 0; id < IDS; id++) {
        if (!seen[id])
            key_size[id] = record_size[id] = 0;
        entries += key_size[id] != 0 || record_size[id] != 0;
        sized = sized || record_size[id] != 0;
    }
    put_u32(out, pos, entries | (sized ? TABLE_SIZES : 0));
    for (unsigned id = 0; id < IDS; id++) {
        if (key_size[id] == 0 && record_size[id] == 0)
            continue;
        put_u8(out, pos, (uint8_t)id);
        put_u32(out, pos, key_size[id]);
        if (sized)
            put_u32(out, pos, record_size[id]);
    }
}

int mcz_layout_encode(const uint8_t *raw, const uint32_t *lengths, uint32_t count,
                      const mcz_jit_ee *v, uint8_t *out, size_t cap, size_t *out_len)
{
    uint32_t key_size[IDS], record_size[IDS];
    uint64_t raw_size = 0;
    for (unsigned id = 0; id < IDS; id++) {
        const mcz_packet_info *info = mcz_jit_ee_packet(v, (uint8_t)id);
        key_size[id] = info && !info->dense ? info->key_size : 0;
    }
    for (uint32_t i = 0; i < count; i++)
        raw_size += lengths[i];
    if (cap < mcz_layout_bound(raw_size, count))
        return MCZ_EINVAL;
    mcz_layout_learn(raw, lengths, count, v, key_size, record_size);
    for (unsigned id = 0; id < IDS; id++)
        if (record_size[id] != 0 && key_size[id] > record_size[id])
            key_size[id] = 0; /* it splits nothing, and the decoder refuses it */

    streams size = {0}, at;
    bool seen[IDS] = {false};
    encode_walk(raw, lengths, count, key_size, record_size, NULL, &size, seen);
    uint64_t table = 0;
    encode_table(key_size, record_size, seen, NULL, &table);
    *out_len = (size_t)place_streams(&size, table, &at);
    uint64_t pos = 0;
    encode_table(key_size, record_size, seen, out, &pos);
    encode_walk(raw, lengths, count, key_size, record_size, out, &at, seen);
    return MCZ_OK;
}

/* ---- Decoding ---- */

/* The decoder's view of the layout: hostile bytes, their size, and what it reports with. */
typedef struct reader {
    const uint8_t *in;
    uint64_t len;
    uint32_t context; /* index in the chunk, for messages */
    mcz_diag *diag;
} reader;

static int corrupt(const reader *r, uint64_t off, const char *what)
{
    return mcz_diag_set(r->diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off),
                        mcz_in_context(r->context), "packet layout, context %u of the chunk: %s",
                        r->context, what);
}

/* n framing bytes at *at, which must lie inside the layout. */
static const uint8_t *take(const reader *r, uint64_t *at, uint64_t n)
{
    if (*at > r->len || n > r->len - *at)
        return NULL;
    const uint8_t *p = r->in + *at;
    *at += n;
    return p;
}

/* Moves n bytes of a stream at *from to the output at *to (when out is set). The measuring
 * pass has proved every stream lies inside the layout before out is ever set. */
static void move(const reader *r, uint64_t *from, uint8_t *out, uint64_t *to, uint64_t n)
{
    if (out && n)
        memcpy(out + *to, r->in + *from, (size_t)n);
    *from += n;
    *to += n;
}

static void out_bytes(uint8_t *out, uint64_t *to, const void *src, size_t n)
{
    if (out)
        memcpy(out + *to, src, n);
    *to += n;
}

/* The sizes the layout's table gives each id: key (0: no split) and record (0: every packet's
 * size in the framing; else implied by its head). */
typedef struct id_sizes {
    uint32_t key[IDS], record[IDS];
} id_sizes;

/* One packet's id, size and head from the framing at at->framing, into *id, *size and *head
 * (its first min(size, 12) bytes); the packet must fit the `room` bytes left in its context. */
static int take_packet(const reader *r, const id_sizes *sizes, uint64_t room, streams *at,
                       uint8_t *id, uint32_t *size, const uint8_t **head)
{
    uint64_t where = at->framing;
    const uint8_t *f = take(r, &at->framing, 1);
    if (!f)
        return corrupt(r, where, "framing ends inside a packet header");
    *id = f[0];
    uint64_t packet_size;
    if (sizes->record[*id]) {
        if (!(*head = take(r, &at->framing, HEAD_MAX)))
            return corrupt(r, where, "framing ends inside a map head");
        packet_size = HEAD_MAX + (uint64_t)mcz_get_le32(*head + 4) * sizes->record[*id] +
                      mcz_get_le32(*head + 8);
    } else {
        if (!(f = take(r, &at->framing, 4)))
            return corrupt(r, where, "framing ends inside a packet header");
        packet_size = mcz_get_le32(f);
    }
    if (room < PACKET_FRAMING + 1 || packet_size > room - PACKET_FRAMING - 1)
        return corrupt(r, where, "a packet runs past its context");
    *size = (uint32_t)packet_size;
    if (!sizes->record[*id] && !(*head = take(r, &at->framing, *size < HEAD_MAX ? *size : HEAD_MAX)))
        return corrupt(r, where, "framing ends inside a map head");
    return MCZ_OK;
}

/* The packets of one context, framing at at->framing, into out at *to (packet area of len
 * bytes). */
static int decode_packets(const reader *r, const id_sizes *sizes, uint32_t len, streams *at,
                          uint8_t *out, uint64_t *to)
{
    uint64_t used = 0;
    while (used < len) {
        uint8_t id = 0;
        uint32_t size = 0;
        const uint8_t *head = NULL;
        int rc = take_packet(r, sizes, len - used, at, &id, &size, &head);
        if (rc != MCZ_OK)
            return rc;
        uint32_t head_len = size < HEAD_MAX ? size : HEAD_MAX;
        payload_split s = split_payload(size, head, sizes->key[id]);
        uint8_t framing[PACKET_FRAMING] = {id};
        mcz_put_le32(framing + 1, size);
        out_bytes(out, to, framing, PACKET_FRAMING);
        out_bytes(out, to, head, head_len);
        move(r, &at->keys[id], out, to, s.keys);
        move(r, &at->values[id], out, to, s.values);
        move(r, &at->pools[id], out, to, s.pool);
        if (out)
            out[*to] = PACKET_CANARY;
        (*to)++;
        used += PACKET_FRAMING + (uint64_t)size + 1;
    }
    return MCZ_OK;
}

/* One pass of the decoder over the framing of count contexts: measures the streams (out NULL)
 * or moves the bytes. Every context must fit in the raw size. */
static int decode_walk(reader *r, uint32_t count, const id_sizes *sizes, uint64_t raw_size,
                       streams *at, uint8_t *out)
{
    uint64_t to = 0;
    for (uint32_t i = 0; i < count; i++) {
        r->context = i;
        uint64_t where = at->framing;
        const uint8_t *f = take(r, &at->framing, CONTEXT_FRAMING);
        if (!f)
            return corrupt(r, where, "framing ends before the context");
        uint32_t len = mcz_get_le32(f + 1);
        if (f[0] == KIND_VERBATIM) {
            if (len > raw_size - to)
                return corrupt(r, where, "a verbatim context runs past the raw size");
            move(r, &at->verbatim, out, &to, len);
            continue;
        }
        if (f[0] != KIND_PACKETS)
            return corrupt(r, where, "unknown context kind");
        if (raw_size - to < MCZ_MC_OVERHEAD || len > raw_size - to - MCZ_MC_OVERHEAD)
            return corrupt(r, where, "a context runs past the raw size");
        uint8_t head[6];
        memcpy(head, mc_magic, 2);
        mcz_put_le32(head + 2, len);
        out_bytes(out, &to, head, sizeof head);
        int rc = decode_packets(r, sizes, len, at, out, &to);
        if (rc != MCZ_OK)
            return rc;
        out_bytes(out, &to, mc_trailer, 2);
    }
    if (to != raw_size)
        return corrupt(r, at->framing, "the contexts do not fill the raw size");
    return MCZ_OK;
}

/* The table at the layout's start into sizes; *table receives its size. */
static int decode_table(reader *r, id_sizes *sizes, uint64_t *table)
{
    uint64_t at = 0;
    const uint8_t *p = take(r, &at, 4);
    if (!p)
        return corrupt(r, 0, "no key-size table");
    uint32_t word = mcz_get_le32(p), entries = word & TABLE_COUNT;
    bool sized = word & TABLE_SIZES;
    if ((word & ~(TABLE_COUNT | TABLE_SIZES)) != 0 || entries > IDS)
        return corrupt(r, 0, "more key sizes than packet ids, or reserved bits set");
    int last = -1;
    for (uint32_t e = 0; e < entries; e++) {
        uint64_t where = at;
        p = take(r, &at, sized ? SIZED_ENTRY : KEY_ENTRY);
        if (!p)
            return corrupt(r, where, "the key-size table runs past the layout");
        uint32_t key = mcz_get_le32(p + 1), record = sized ? mcz_get_le32(p + 5) : 0;
        if ((int)p[0] <= last || (key == 0 && record == 0) || (record != 0 && key > record))
            return corrupt(r, where, "key-size table out of order, an entry of zeros, or a key "
                                     "larger than its record");
        last = p[0];
        sizes->key[p[0]] = key;
        sizes->record[p[0]] = record;
    }
    *table = at;
    return MCZ_OK;
}

int mcz_layout_decode(const uint8_t *in, size_t in_len, uint32_t count, uint8_t *out,
                      size_t raw_size, mcz_diag *diag)
{
    reader r = {in, in_len, 0, diag};
    id_sizes sizes = {{0}, {0}};
    uint64_t table = 0;
    int rc = decode_table(&r, &sizes, &table);
    if (rc != MCZ_OK)
        return rc;
    /* Measure: the framing is read from right after the table, the streams from 0. */
    streams size = {0}, at;
    size.framing = table;
    rc = decode_walk(&r, count, &sizes, raw_size, &size, NULL);
    if (rc != MCZ_OK)
        return rc;
    size.framing -= table;
    if (place_streams(&size, table, &at) != in_len)
        return corrupt(&r, in_len, "the streams do not fill the layout");
    return decode_walk(&r, count, &sizes, raw_size, &at, out);
}
