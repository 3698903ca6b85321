/*
 * test_builder.c - the context builder: key order and first-wins, AddBuffer's deduplication,
 * dense maps, dropped empty maps, misuse, sticky errors, reuse and growth.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../common/mcz_common.h"

/* The version these tests' contexts are written in (their CorInfoType numbering). */
#define VB mcz_jit_ee_find("B")

#define NULL_INDEX 0xFFFFFFFFu

/* Finishes b and parses its only packet's map, which must have this id. */
static void finish_single_map(mcz_mc_builder *b, uint8_t id, mcz_mc *mc, mcz_map *m)
{
    const uint8_t *bytes;
    size_t size;
    mcz_packet p;
    uint32_t pos = 0;
    assert_int_equal(mcz_mc_builder_finish(b, &bytes, &size), 0);
    assert_int_equal(mcz_mc_from_bytes(bytes, size, 1, 0, mc, NULL), 0);
    assert_int_equal(mcz_mc_check(mc, NULL), 0);
    assert_int_equal(mcz_packet_next(mc, &pos, &p, NULL), 1);
    assert_int_equal(p.id, id);
    assert_int_equal(mcz_packet_next(mc, &pos, &p, NULL), 0);
    assert_int_equal(mcz_map_parse(VB, &p, m, NULL), 0);
}

static void test_keys_sorted_by_memcmp_first_wins(void **state)
{
    (void)state;
    /* memcmp order over little-endian bytes: 0x100 sorts before 0x01 */
    static const uint64_t keys[] = {0x01, 0x100, 0x02, 0x01, 0xFF00000000000000ull, 0x200};
    mcz_mc_builder *b = mcz_mc_builder_create();
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_GET_ARG_NEXT, false, 8, 8), 0);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        uint8_t k[8], v[8];
        mcz_put_le64(k, keys[i]);
        mcz_put_le64(v, 1000 + i);
        assert_int_equal(mcz_mc_builder_add(b, k, v), 0);
    }
    assert_int_equal(mcz_mc_builder_end(b), 0);
    mcz_mc mc;
    mcz_map m;
    finish_single_map(b, MCZ_PACKET_GET_ARG_NEXT, &mc, &m);
    assert_true(m.tagged);
    assert_memory_equal(mc.bytes + 11, "LWM1", 4);
    assert_int_equal(m.count, 5);
    static const uint64_t sorted[] = {0xFF00000000000000ull, 0x100, 0x200, 0x01, 0x02};
    for (uint32_t i = 0; i < m.count; i++)
        assert_int_equal(mcz_get_le64(mcz_map_key(&m, i)), sorted[i]);
    uint8_t k[8];
    mcz_put_le64(k, 0x01);
    assert_int_equal(mcz_get_le64(mcz_map_find(&m, k, 8)), 1000); /* not 1003 */
    mcz_put_le64(k, 0x200);
    assert_int_equal(mcz_get_le64(mcz_map_find(&m, k, 8)), 1005);
    mcz_put_le64(k, 0x03);
    assert_null(mcz_map_find(&m, k, 8));
    assert_null(mcz_map_find(&m, k, 4)); /* wrong key size */
    mcz_mc_builder_free(b);
}

static void test_buffer_dedup_like_add_buffer(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    assert_int_equal(mcz_mc_builder_begin(b, 250, false, 4, 4), 0);
    assert_int_equal(mcz_mc_builder_buffer(b, "abc", 0), NULL_INDEX);
    assert_int_equal(mcz_mc_builder_buffer(b, NULL, 5), NULL_INDEX);
    assert_int_equal(mcz_mc_builder_buffer(b, "abc", 4), 4);
    assert_int_equal(mcz_mc_builder_buffer(b, "xy", 2), 12);
    assert_int_equal(mcz_mc_builder_buffer(b, "abc", 4), 4);  /* same bytes: same chunk */
    assert_int_equal(mcz_mc_builder_buffer(b, "abc", 3), 18); /* same prefix, other length */
    assert_int_equal(mcz_mc_builder_buffer(b, "xy", 2), 12);
    uint8_t key[4] = {0}, value[4];
    mcz_put_le32(value, 18);
    assert_int_equal(mcz_mc_builder_add(b, key, value), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
    mcz_mc mc;
    mcz_map m;
    finish_single_map(b, 250, &mc, &m);
    assert_int_equal(m.pool_size, 4 + 4 + 4 + 2 + 4 + 3);
    assert_int_equal(m.key_size, 0); /* unknown id: the split is not known */
    const uint8_t *data;
    uint32_t len;
    assert_int_equal(mcz_map_buffer(&m, 18, &data, &len), 0);
    assert_int_equal(len, 3);
    assert_memory_equal(data, "abc", 3);
    mcz_mc_builder_free(b);
}

/* Pools are per map: a buffer of an earlier map or context is not found in a new one. */
static void test_buffer_dedup_is_per_map(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    for (int round = 0; round < 2; round++) {
        mcz_mc_builder_reset(b);
        for (uint8_t id = 1; id <= 3; id++) {
            assert_int_equal(mcz_mc_builder_begin(b, id, false, 4, 4), 0);
            assert_int_equal(mcz_mc_builder_buffer(b, "first", 5), 4);
            for (uint32_t i = 0; i < 500; i++) { /* enough to grow the index several times */
                uint8_t blob[4];
                mcz_put_le32(blob, i);
                assert_int_equal(mcz_mc_builder_buffer(b, blob, 4), 13 + i * 8);
            }
            assert_int_equal(mcz_mc_builder_buffer(b, "first", 5), 4);
            assert_int_equal(mcz_mc_builder_end(b), 0);
        }
    }
    mcz_mc_builder_free(b);
}

static void test_dense_and_empty_maps(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_GET_ARG_TYPE, false, 48, 16), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0); /* empty: dropped */
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_SIG_INST_HANDLE_MAP, true, 0, 8), 0);
    for (uint64_t i = 0; i < 3; i++) {
        uint8_t v[8];
        mcz_put_le64(v, 0x50 - i);
        assert_int_equal(mcz_mc_builder_add(b, NULL, v), 0);
    }
    assert_int_equal(mcz_mc_builder_end(b), 0);
    mcz_mc mc;
    mcz_map m;
    finish_single_map(b, MCZ_PACKET_SIG_INST_HANDLE_MAP, &mc, &m);
    assert_true(m.dense && m.tagged);
    assert_memory_equal(mc.bytes + 11, "DWM1", 4);
    assert_int_equal(m.count, 3);
    assert_int_equal(mcz_get_le64(mcz_map_value(&m, 2)), 0x4E);
    uint8_t index[4];
    mcz_put_le32(index, 1);
    assert_int_equal(mcz_get_le64(mcz_map_find(&m, index, 4)), 0x4F);
    mcz_put_le32(index, 3);
    assert_null(mcz_map_find(&m, index, 4));
    assert_null(mcz_map_key(&m, 0));

    /* a context with no maps at all is the 8-byte empty context */
    mcz_mc_builder_reset(b);
    const uint8_t *bytes;
    size_t size;
    assert_int_equal(mcz_mc_builder_finish(b, &bytes, &size), 0);
    assert_int_equal(size, 8);
    assert_memory_equal(bytes, "mc\0\0\0\0" "42", 8);
    mcz_mc_builder_free(b);
}

static void test_misuse_is_sticky_until_reset(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    const uint8_t *bytes;
    size_t size;
    uint8_t k[4] = {0};
    assert_int_equal(mcz_mc_builder_add(b, k, k), MCZ_ESTATE); /* no map open */
    assert_int_equal(mcz_mc_builder_finish(b, &bytes, &size), MCZ_ESTATE);
    mcz_mc_builder_reset(b);
    assert_int_equal(mcz_mc_builder_begin(b, 1, true, 4, 4), MCZ_EINVAL); /* dense with a key */
    mcz_mc_builder_reset(b);
    assert_int_equal(mcz_mc_builder_begin(b, 1, false, 4, 0), MCZ_EINVAL);
    mcz_mc_builder_reset(b);
    assert_int_equal(mcz_mc_builder_begin(b, 1, false, 4, 4), 0);
    assert_int_equal(mcz_mc_builder_begin(b, 2, false, 4, 4), MCZ_ESTATE);
    assert_int_equal(mcz_mc_builder_end(b), MCZ_ESTATE); /* sticky */
    assert_int_equal(mcz_mc_builder_buffer(b, "a", 1), NULL_INDEX);
    mcz_mc_builder_reset(b);
    assert_int_equal(mcz_mc_builder_begin(b, 1, false, 4, 4), 0);
    assert_int_equal(mcz_mc_builder_add(b, NULL, k), MCZ_EINVAL); /* sparse needs a key */
    mcz_mc_builder_reset(b);
    assert_int_equal(mcz_mc_builder_begin(b, 1, false, 4, 4), 0);
    assert_int_equal(mcz_mc_builder_finish(b, &bytes, &size), MCZ_ESTATE); /* map open */
    mcz_mc_builder_reset(b);
    assert_int_equal(mcz_mc_builder_finish(b, &bytes, &size), 0);
    assert_int_equal(mcz_mc_builder_begin(b, 1, false, 4, 4), MCZ_ESTATE); /* finished */
    mcz_mc_builder_free(b);
    mcz_mc_builder_free(NULL);
}

/* One context of n u32 -> u32 items with a pool buffer each, keys added in reverse. */
static void build_big(mcz_mc_builder *b, uint32_t n, const uint8_t **bytes, size_t *size)
{
    mcz_mc_builder_reset(b);
    assert_int_equal(mcz_mc_builder_begin(b, 250, false, 4, 4), 0);
    for (uint32_t i = n; i-- > 0;) {
        uint8_t k[4], v[4], blob[8];
        mcz_put_le32(k, i);
        mcz_put_le64(blob, i % 1000);
        mcz_put_le32(v, mcz_mc_builder_buffer(b, blob, sizeof blob));
        assert_int_equal(mcz_mc_builder_add(b, k, v), 0);
    }
    assert_int_equal(mcz_mc_builder_end(b), 0);
    assert_int_equal(mcz_mc_builder_finish(b, bytes, size), 0);
}

static void test_reuse_and_growth(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    const uint8_t *bytes;
    size_t size;
    build_big(b, 3000, &bytes, &size);
    uint8_t *first = malloc(size);
    assert_non_null(first);
    memcpy(first, bytes, size);
    size_t first_size = size;
    build_big(b, 10, &bytes, &size);
    assert_true(size < first_size);
    build_big(b, 3000, &bytes, &size); /* same input, same bytes: deterministic */
    assert_int_equal(size, first_size);
    assert_memory_equal(bytes, first, size);

    mcz_mc mc;
    mcz_packet p;
    mcz_map m;
    assert_int_equal(mcz_mc_from_bytes(first, first_size, 1, 0, &mc, NULL), 0);
    assert_int_equal(mcz_packet_find(&mc, 250, &p, NULL), 1);
    assert_int_equal(mcz_map_parse(VB, &p, &m, NULL), 0);
    assert_int_equal(m.count, 3000);
    assert_int_equal(m.pool_size, 1000 * 12); /* deduplicated */
    free(first);
    mcz_mc_builder_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_sorted_by_memcmp_first_wins),
        cmocka_unit_test(test_buffer_dedup_like_add_buffer),
        cmocka_unit_test(test_buffer_dedup_is_per_map),
        cmocka_unit_test(test_dense_and_empty_maps),
        cmocka_unit_test(test_misuse_is_sticky_until_reset),
        cmocka_unit_test(test_reuse_and_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
