/*
 * test_layout.c - the packet layout of a chunk (format/layout.c, FORMAT.md §4a): round trips of
 * builder contexts and of contexts that do not parse as packets (kept verbatim), the grouping of
 * each id's keys, values and pools across contexts, the encoder's bound, and hostile layouts:
 * every truncation, every byte flipped, wrong counts and sizes, each an error or (never
 * silently) other bytes; then whole MCZP chunks decoded with every check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "archive_testlib.h"
#include "../../format/archive.h"
#include "../../format/layout.h"
#include "../../platform/platform.h"

#define AS_COR_INFO_TYPE 2 /* a sparse packet with 8-byte keys and 4-byte values (both versions) */
#define GET_METHOD_NAME 99 /* a packet with a pool (its values index buffers) */
#define GET_CALL_INFO 37   /* a sparse packet whose key size the tables leave open */
#define CALL_INFO_KEY 140
#define CALL_INFO_VALUE 288

/* A chunk under test: contexts back to back and their lengths. */
typedef struct test_chunk {
    uint8_t bytes[1 << 16];
    size_t size;
    uint32_t lengths[64];
    uint32_t count;
} test_chunk;

static void add_context(test_chunk *c, const void *mc, size_t len)
{
    assert_true(len <= sizeof c->bytes - c->size && c->count < 64);
    memcpy(c->bytes + c->size, mc, len);
    c->size += len;
    c->lengths[c->count++] = (uint32_t)len;
}

/* Context i: an AsCorInfoType map of 1 + i % 4 items (keys i*100 + k) and a map with a pool. */
static void add_builder_context(test_chunk *c, mcz_mc_builder *b, uint32_t i)
{
    mcz_mc_builder_reset(b);
    assert_int_equal(mcz_mc_builder_begin(b, AS_COR_INFO_TYPE, false, 8, 4), MCZ_OK);
    for (uint32_t k = 0; k <= i % 4; k++) {
        uint64_t key = (uint64_t)i * 100 + k;
        uint32_t value = 7 + k;
        assert_int_equal(mcz_mc_builder_add(b, &key, &value), MCZ_OK);
    }
    assert_int_equal(mcz_mc_builder_end(b), MCZ_OK);
    assert_int_equal(mcz_mc_builder_begin(b, GET_METHOD_NAME, false, 8, 4), MCZ_OK);
    char name[32];
    int n = snprintf(name, sizeof name, "Method%u", i);
    uint32_t index = mcz_mc_builder_buffer(b, name, (uint32_t)n);
    uint64_t key = 0x7f0000 + i;
    assert_int_equal(mcz_mc_builder_add(b, &key, &index), MCZ_OK);
    assert_int_equal(mcz_mc_builder_end(b), MCZ_OK);
    const uint8_t *mc;
    size_t len;
    assert_int_equal(mcz_mc_builder_finish(b, &mc, &len), MCZ_OK);
    add_context(c, mc, len);
}

/* A context "mc" L packets "42" from one packet's parts (size as given, not checked). */
static size_t raw_context(uint8_t *out, uint8_t id, uint32_t size, const void *payload,
                          size_t payload_len, uint8_t canary)
{
    size_t at = 6;
    out[at++] = id;
    mcz_put_le32(out + at, size);
    at += 4;
    memcpy(out + at, payload, payload_len);
    at += payload_len;
    out[at++] = canary;
    mcz_put_le32(out + 2, (uint32_t)(at - 6));
    out[0] = 'm';
    out[1] = 'c';
    out[at++] = '4';
    out[at++] = '2';
    return at;
}

static void encode(const test_chunk *c, uint8_t **layout, size_t *len)
{
    size_t cap = (size_t)mcz_layout_bound(c->size, c->count);
    *layout = malloc(cap);
    assert_non_null(*layout);
    assert_int_equal(mcz_layout_encode(c->bytes, c->lengths, c->count, NULL, *layout, cap, len),
                     MCZ_OK);
    assert_true(*len <= cap);
}

/* Decodes into a buffer of exactly raw_size bytes (so a sanitizer sees any write past it). */
static int decode(const uint8_t *layout, size_t len, uint32_t count, size_t raw_size,
                  uint8_t **out, mcz_diag *d)
{
    uint8_t *copy = tl_copy_of(layout, len);
    *out = malloc(raw_size ? raw_size : 1);
    assert_non_null(*out);
    int rc = mcz_layout_decode(copy, len, count, *out, raw_size, d);
    free(copy);
    return rc;
}

static void round_trip(const test_chunk *c)
{
    uint8_t *layout, *back;
    size_t len;
    encode(c, &layout, &len);
    mcz_diag d;
    mcz_diag_clear(&d);
    if (decode(layout, len, c->count, c->size, &back, &d) != MCZ_OK)
        fail_msg("decode: %s", d.message);
    assert_memory_equal(back, c->bytes, c->size);
    free(back);
    free(layout);
}

static void builder_chunk(test_chunk *c, uint32_t contexts)
{
    memset(c, 0, sizeof *c);
    mcz_mc_builder *b = mcz_mc_builder_create();
    for (uint32_t i = 0; i < contexts; i++)
        add_builder_context(c, b, i);
    mcz_mc_builder_free(b);
}

static void test_round_trip_builder_contexts(void **state)
{
    (void)state;
    test_chunk *c = malloc(sizeof *c);
    builder_chunk(c, 40);
    round_trip(c);
    tl_corpus corpus; /* unknown ids: no key sizes, items kept as values */
    tl_corpus_make(&corpus, 30, 0);
    memset(c, 0, sizeof *c);
    for (uint32_t i = 0; i < corpus.n && c->size + corpus.sizes[i] <= sizeof c->bytes; i++)
        add_context(c, corpus.bytes + corpus.offsets[i], corpus.sizes[i]);
    round_trip(c);
    tl_corpus_free(&corpus);
    free(c);
}

/* The keys of every context's AsCorInfoType map lie together in the layout, in context order;
 * so do the pools' names. */
static void test_streams_group_by_id(void **state)
{
    (void)state;
    test_chunk *c = malloc(sizeof *c);
    builder_chunk(c, 3);
    uint8_t keys[6 * 8], *at = keys; /* contexts 0, 1, 2: 1, 2, 3 keys */
    for (uint32_t i = 0; i < 3; i++)
        for (uint32_t k = 0; k <= i; k++, at += 8) {
            uint64_t key = (uint64_t)i * 100 + k;
            memcpy(at, &key, 8);
        }
    uint8_t *layout;
    size_t len;
    encode(c, &layout, &len);
    assert_non_null(mcz_os_memmem(layout, len, keys, sizeof keys));
    assert_non_null(mcz_os_memmem(layout, len, "Method0\x07\0\0\0Method1\x07\0\0\0Method2", 29));
    free(layout);
    free(c);
}

/* 24 contexts, each a GetCallInfo map of 4 items of pseudo-random bytes, its keys in the rising
 * memcmp order the builder (as SuperPMI) keeps; unless `rising`, the first and last keys are
 * then swapped in the bytes. */
static void call_info_chunk(test_chunk *c, bool rising)
{
    memset(c, 0, sizeof *c);
    mcz_mc_builder *b = mcz_mc_builder_create();
    uint32_t s = 12345;
    for (uint32_t i = 0; i < 24; i++) {
        mcz_mc_builder_reset(b);
        assert_int_equal(mcz_mc_builder_begin(b, GET_CALL_INFO, false, CALL_INFO_KEY,
                                              CALL_INFO_VALUE), MCZ_OK);
        for (uint32_t k = 0; k < 4; k++) {
            uint8_t key[CALL_INFO_KEY], value[CALL_INFO_VALUE];
            for (size_t j = 0; j < sizeof key; j++)
                key[j] = (uint8_t)((s = s * 1103515245u + 12345u) >> 16);
            for (size_t j = 0; j < sizeof value; j++)
                value[j] = (uint8_t)((s = s * 1103515245u + 12345u) >> 16);
            key[0] = (uint8_t)(0x10 + 0x40 * k);
            assert_int_equal(mcz_mc_builder_add(b, key, value), MCZ_OK);
        }
        assert_int_equal(mcz_mc_builder_end(b), MCZ_OK);
        const uint8_t *mc;
        size_t len;
        assert_int_equal(mcz_mc_builder_finish(b, &mc, &len), MCZ_OK);
        uint8_t *keys = c->bytes + c->size + 6 + 5 + 12; /* mc, L; id, size; the map's head */
        add_context(c, mc, len);
        for (size_t j = 0; !rising && j < CALL_INFO_KEY; j++) {
            uint8_t t = keys[j];
            keys[j] = keys[3 * CALL_INFO_KEY + j];
            keys[3 * CALL_INFO_KEY + j] = t;
        }
    }
    mcz_mc_builder_free(b);
}

/* The key and record sizes the layout's table records for id (0: none; the record size is 0
 * in a table of the version-3 form, without SIZES). */
static void recorded_sizes(const uint8_t *layout, uint8_t id, uint32_t *key, uint32_t *record)
{
    uint32_t word = mcz_get_le32(layout), entries = word & 0xFFFF;
    size_t entry = word & 0x10000 ? 9 : 5;
    *key = *record = 0;
    for (uint32_t e = 0; e < entries; e++) {
        const uint8_t *p = layout + 4 + entry * e;
        if (p[0] == id) {
            *key = mcz_get_le32(p + 1);
            *record = entry == 9 ? mcz_get_le32(p + 5) : 0;
        }
    }
}

static uint32_t recorded_key_size(const uint8_t *layout, uint8_t id)
{
    uint32_t key, record;
    recorded_sizes(layout, id, &key, &record);
    return key;
}

static uint32_t recorded_record_size(const uint8_t *layout, uint8_t id)
{
    uint32_t key, record;
    recorded_sizes(layout, id, &key, &record);
    return record;
}

/* GetCallInfo's key size is in neither table: the encoder finds it from the order SuperPMI
 * keeps keys in, records it, and the chunk still comes back exactly; keys that do not rise are
 * left unsplit. */
static void test_key_size_learned(void **state)
{
    (void)state;
    test_chunk *c = malloc(sizeof *c);
    const mcz_packet_info *info = mcz_jit_ee_packet(NULL, GET_CALL_INFO);
    assert_true(info && info->key_size == 0); /* else this test proves nothing */
    for (int rising = 1; rising >= 0; rising--) {
        call_info_chunk(c, rising);
        uint8_t *layout;
        size_t len;
        encode(c, &layout, &len);
        assert_int_equal(recorded_key_size(layout, GET_CALL_INFO), rising ? CALL_INFO_KEY : 0);
        free(layout);
        round_trip(c);
    }
    free(c);
}

/* Every packet of an id a map of one record size: the table says so (version 4) and the
 * framing leaves their sizes out, 4 bytes a packet; one empty map (tag and a zero count, as
 * SuperPMI writes it) keeps that id's sizes in the framing. Both come back exactly. */
static void test_sizes_implied(void **state)
{
    (void)state;
    test_chunk *c = malloc(sizeof *c);
    builder_chunk(c, 12); /* 12 contexts, each an AsCorInfoType and a GetMethodName map */
    uint8_t *layout;
    size_t len;
    encode(c, &layout, &len);
    assert_int_equal(mcz_get_le32(layout), 0x10000 | 2);
    assert_int_equal(recorded_record_size(layout, AS_COR_INFO_TYPE), 8 + 4);
    assert_int_equal(recorded_record_size(layout, GET_METHOD_NAME), 8 + 4);
    size_t framing = 12 * 5 + 24 * (1 + 12); /* contexts' kind and length; packets' id, head */
    size_t streams = c->size - 12 * 8 - 24 * 6 - 24 * 12; /* less mc, L, 42; id, size, canary */
    assert_int_equal(len, 4 + 2 * 9 + framing + streams);
    free(layout);
    round_trip(c);

    uint8_t empty[32];
    add_context(c, empty, raw_context(empty, AS_COR_INFO_TYPE, 8, "LWM1\0\0\0\0", 8, 0x42));
    encode(c, &layout, &len);
    assert_int_equal(recorded_record_size(layout, AS_COR_INFO_TYPE), 0);
    assert_int_equal(recorded_record_size(layout, GET_METHOD_NAME), 8 + 4);
    free(layout);
    round_trip(c);
    free(c);
}

/* Contexts that are no packet sequence (and maps that are odd) still come back exactly. */
static void test_round_trip_odd_contexts(void **state)
{
    (void)state;
    test_chunk *c = malloc(sizeof *c);
    memset(c, 0, sizeof *c);
    uint8_t mc[512], payload[64] = {'L', 'W', 'M', '1'};
    add_context(c, (const uint8_t[]){'m', 'c', 0, 0, 0, 0, '4', '2'}, 8); /* no packets */
    add_context(c, mc, raw_context(mc, 5, 8, payload, 8, 0x42));          /* empty map, S < 12 */
    add_context(c, mc, raw_context(mc, 5, 3, payload, 3, 0x42));          /* S < 12, no map */
    mcz_put_le32(payload + 4, 2);
    mcz_put_le32(payload + 8, 999); /* pool larger than the payload */
    add_context(c, mc, raw_context(mc, AS_COR_INFO_TYPE, 40, payload, 40, 0x42));
    mcz_put_le32(payload + 4, 1000); /* items * key size > the items' bytes */
    mcz_put_le32(payload + 8, 4);
    add_context(c, mc, raw_context(mc, AS_COR_INFO_TYPE, 40, payload, 40, 0x42));
    add_context(c, mc, raw_context(mc, 7, 20, payload, 20, 0x41)); /* bad canary: verbatim */
    size_t n = raw_context(mc, 7, 20, payload, 20, 0x42);
    mc[n - 1] = '3'; /* bad trailer */
    add_context(c, mc, n);
    n = raw_context(mc, 7, 20, payload, 20, 0x42);
    mcz_put_le32(mc + 7, 21); /* the packet runs past its context */
    add_context(c, mc, n);
    n = raw_context(mc, 7, 20, payload, 20, 0x42);
    mc[n++] = 'x'; /* bytes after the trailer: L is not the length - 8 */
    add_context(c, mc, n);
    add_context(c, "no context at all", 17);
    add_context(c, "mc", 2); /* shorter than a context */
    round_trip(c);
    for (uint32_t i = 0; i < c->count; i++) { /* each alone too */
        test_chunk *one = malloc(sizeof *one);
        memset(one, 0, sizeof *one);
        size_t off = 0;
        for (uint32_t j = 0; j < i; j++)
            off += c->lengths[j];
        add_context(one, c->bytes + off, c->lengths[i]);
        round_trip(one);
        free(one);
    }
    free(c);
}

static void test_encode_bound(void **state)
{
    (void)state;
    test_chunk *c = malloc(sizeof *c);
    builder_chunk(c, 10);
    size_t cap = (size_t)mcz_layout_bound(c->size, c->count), len;
    uint8_t *out = malloc(cap);
    assert_int_equal(mcz_layout_encode(c->bytes, c->lengths, c->count, NULL, out, cap - 1, &len),
                     MCZ_EINVAL);
    /* a chunk of verbatim contexts takes its bytes plus 5 per context and the empty table */
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 10; i++)
        add_context(c, "0123456789", 10);
    assert_int_equal(mcz_layout_encode(c->bytes, c->lengths, c->count, NULL, out, cap, &len),
                     MCZ_OK);
    assert_int_equal(len, 4 + 10 * (5 + 10));
    free(out);
    free(c);
}

/* Every truncation, every byte changed, and wrong counts or sizes: an error (ECORRUPT, saying
 * where), or other bytes the chunk's XXH3 then rejects; never a write past the raw size. */
static void test_hostile_layouts(void **state)
{
    (void)state;
    test_chunk *c = malloc(sizeof *c);
    builder_chunk(c, 12);
    add_context(c, "verbatim bytes", 14);
    uint8_t *layout, *back;
    size_t len;
    encode(c, &layout, &len);
    mcz_diag d;
    for (size_t cut = 0; cut < len; cut++) {
        mcz_diag_clear(&d);
        assert_int_equal(decode(layout, cut, c->count, c->size, &back, &d), MCZ_ECORRUPT);
        assert_true(d.message[0] != '\0' && d.offset >= 0 && (size_t)d.offset <= len);
        free(back);
    }
    uint32_t rejected = 0;
    for (size_t at = 0; at < len; at++) {
        uint8_t *bad = tl_copy_of(layout, len);
        bad[at] ^= (uint8_t)(1u << (at % 8));
        int rc = decode(bad, len, c->count, c->size, &back, NULL);
        assert_true(rc == MCZ_OK || rc == MCZ_ECORRUPT);
        if (rc == MCZ_OK)
            assert_memory_not_equal(back, c->bytes, c->size); /* XXH3 catches it */
        rejected += rc != MCZ_OK;
        free(back);
        free(bad);
    }
    assert_true(rejected > 0);
    assert_int_equal(decode(layout, len, c->count - 1, c->size, &back, NULL), MCZ_ECORRUPT);
    free(back);
    assert_int_equal(decode(layout, len, c->count + 1, c->size, &back, NULL), MCZ_ECORRUPT);
    free(back);
    assert_int_equal(decode(layout, len, c->count, c->size - 1, &back, NULL), MCZ_ECORRUPT);
    free(back);
    assert_int_equal(decode(layout, len, c->count, c->size + 1, &back, NULL), MCZ_ECORRUPT);
    free(back);
    assert_int_equal(decode(layout, len, UINT32_MAX, c->size, &back, NULL), MCZ_ECORRUPT);
    free(back);
    uint8_t table[4 + 10] = {2, 0, 0, 0, 9, 8, 0, 0, 0, 9, 8, 0, 0, 0}; /* an id twice */
    assert_int_equal(decode(table, sizeof table, 0, 0, &back, NULL), MCZ_ECORRUPT);
    free(back);
    mcz_put_le32(table, 257); /* more entries than ids */
    assert_int_equal(decode(table, sizeof table, 0, 0, &back, NULL), MCZ_ECORRUPT);
    free(back);
    free(layout);
    free(c);
}

/* An MCZP chunk (header frame + zstd frame of the layout) in a buffer of its own. */
static uint8_t *packet_chunk(const test_chunk *c, const uint8_t *layout, size_t len,
                             size_t *size)
{
    size_t head = (size_t)mcz_arc_chunk_head_size(c->count), bound = ZSTD_compressBound(len);
    uint8_t *frames = malloc(head + bound);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    size_t n = ZSTD_compress2(cctx, frames + head, bound, layout, len);
    assert_false(ZSTD_isError(n));
    ZSTD_freeCCtx(cctx);
    mcz_arc_chunk_head h = {1, c->count, (uint32_t)c->size, (uint32_t)n,
                            mcz_arc_xxh3(c->bytes, c->size), NULL, MCZ_CODEC_ZSTD, true};
    mcz_arc_chunk_head_encode(&h, c->lengths, frames);
    *size = head + n;
    return frames;
}

/* Whole chunks: a layout damaged under a sound zstd frame is an error (the layout's own
 * checks, or the raw XXH3), never other bytes; a layout frame larger than its bound is refused
 * before anything is allocated. */
static void test_damaged_layout_in_a_chunk(void **state)
{
    (void)state;
    test_chunk *c = malloc(sizeof *c);
    builder_chunk(c, 12);
    uint8_t *layout;
    size_t len, size;
    encode(c, &layout, &len);
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    mcz_arc_buffer buf = {NULL, 0};
    mcz_arc_chunk_head h;
    uint8_t *frames = packet_chunk(c, layout, len, &size);
    assert_int_equal(mcz_arc_decode_chunk(frames, size, 0, dctx, NULL, 0, &buf, &h, NULL), MCZ_OK);
    assert_true(h.packets);
    assert_memory_equal(buf.bytes, c->bytes, c->size);
    free(frames);
    for (size_t at = 0; at < len; at += 3) {
        layout[at] ^= 0x10;
        frames = packet_chunk(c, layout, len, &size);
        mcz_diag d;
        mcz_diag_clear(&d);
        int rc = mcz_arc_decode_chunk(frames, size, 0, dctx, NULL, 0, &buf, &h, &d);
        assert_true(rc == MCZ_ECORRUPT || rc == MCZ_ECHECKSUM);
        assert_true(d.context >= 1 && d.offset >= 0);
        free(frames);
        layout[at] ^= 0x10;
    }
    uint8_t *big = calloc(1, (size_t)mcz_layout_bound(c->size, c->count) + 1);
    frames = packet_chunk(c, big, (size_t)mcz_layout_bound(c->size, c->count) + 1, &size);
    mcz_diag d;
    assert_int_equal(mcz_arc_decode_chunk(frames, size, 0, dctx, NULL, 0, &buf, &h, &d),
                     MCZ_ECORRUPT);
    assert_non_null(strstr(d.message, "content size"));
    free(frames);
    free(big);
    free(buf.bytes);
    ZSTD_freeDCtx(dctx);
    free(layout);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_builder_contexts),
        cmocka_unit_test(test_streams_group_by_id),
        cmocka_unit_test(test_key_size_learned),
        cmocka_unit_test(test_sizes_implied),
        cmocka_unit_test(test_round_trip_odd_contexts),
        cmocka_unit_test(test_encode_bound),
        cmocka_unit_test(test_hostile_layouts),
        cmocka_unit_test(test_damaged_layout_in_a_chunk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
