/*
 * test_mch.c - the legacy MCH reader: the minimal 318-byte context (a CompileMethod and a
 * GetJitFlags packet; superpmi/SUPERPMI.md "A minimal context") built with the builder and
 * compared byte for byte, parsed back, walked in multi-context buffers, re-serialized
 * map by map, and fed every truncation, every single-bit flip and assorted hostile lengths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mcz_agnostic.h"
#include "../../common/mcz_common.h"

/* The version these tests' contexts are written in (their CorInfoType numbering). */
#define VB mcz_jit_ee_find("B")

/* The 318-byte minimal context: CompileMethod (143) and GetJitFlags (154), as
 * superpmi/SUPERPMI.md "A minimal context" prints it. */
static const uint8_t golden[318] = {
    0x6d, 0x63, 0x36, 0x01, 0x00, 0x00, 0x8f, 0xf6, 0x00, 0x00, 0x00, 0x4c, 0x57, 0x4d, 0x31, 0x01,
    0x00, 0x00, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0xf8,
    0x7f, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0xf8, 0x7f, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff,
    0xff, 0xff, 0xff, 0x03, 0x20, 0x00, 0x00, 0xf8, 0x7f, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x04,
    0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0xf8, 0x7f, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0xf8,
    0x7f, 0x00, 0x00, 0x01, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00,
    0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff,
    0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
    0x00, 0x00, 0x00, 0xf8, 0x7f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x2a, 0x04, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08,
    0x08, 0x42, 0x9a, 0x34, 0x00, 0x00, 0x00, 0x4c, 0x57, 0x4d, 0x31, 0x01, 0x00, 0x00, 0x00, 0x1c,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x18,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x42, 0x34, 0x32,
};

#define GOLDEN_FTN 0x00007FF800001000ull
#define GOLDEN_SCOPE 0x00007FF800000010ull

static void put_sig(uint8_t *sig, uint32_t ret_type, uint32_t num_args, uint64_t args,
                    uint32_t sig_index, uint32_t cb_sig, uint64_t method_signature,
                    uint32_t token)
{
    mcz_put_le32(sig + MCZ_SIG_RET_TYPE, ret_type);
    mcz_put_le32(sig + MCZ_SIG_NUM_ARGS, num_args);
    mcz_put_le32(sig + MCZ_SIG_CLASS_INST_INDEX, MCZ_NULL_INDEX);
    mcz_put_le32(sig + MCZ_SIG_METH_INST_INDEX, MCZ_NULL_INDEX);
    mcz_put_le64(sig + MCZ_SIG_ARGS, args);
    mcz_put_le32(sig + MCZ_SIG_PSIG_INDEX, sig_index);
    mcz_put_le32(sig + MCZ_SIG_CB_SIG, cb_sig);
    mcz_put_le64(sig + MCZ_SIG_METHOD_SIGNATURE, method_signature);
    mcz_put_le64(sig + MCZ_SIG_SCOPE, GOLDEN_SCOPE);
    mcz_put_le32(sig + MCZ_SIG_TOKEN, token);
}

/* Builds the minimal context from its fields with the builder; returns the builder holding the
 * bytes. */
static mcz_mc_builder *build_minimal(const uint8_t **bytes, size_t *size)
{
    static const uint8_t il[] = {0x02, 0x2A};
    static const uint8_t args_sig[] = {0x00, 0x01, 0x08, 0x08};
    static const uint8_t jit_flags[24] = {0};
    uint8_t key[4] = {0}, cm[MCZ_CM_SIZE] = {0}, dd[MCZ_DD_SIZE];
    mcz_mc_builder *b = mcz_mc_builder_create();
    assert_non_null(b);

    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_COMPILE_METHOD, false, 4, MCZ_CM_SIZE), 0);
    uint32_t il_index = mcz_mc_builder_buffer(b, il, sizeof il);
    uint32_t sig_index = mcz_mc_builder_buffer(b, args_sig, sizeof args_sig);
    assert_int_equal(il_index, 4);
    assert_int_equal(sig_index, 10);
    mcz_put_le64(cm + MCZ_MI_FTN, GOLDEN_FTN);
    mcz_put_le64(cm + MCZ_MI_SCOPE, GOLDEN_SCOPE);
    mcz_put_le32(cm + MCZ_MI_IL_OFFSET, il_index);
    mcz_put_le32(cm + MCZ_MI_IL_SIZE, sizeof il);
    mcz_put_le32(cm + MCZ_MI_MAX_STACK, 8);
    put_sig(cm + MCZ_MI_ARGS, MCZ_TYPE_INT, 1, 0x00007FF800002003ull, sig_index,
            sizeof args_sig, 0x00007FF800002000ull, 0x06000001);
    put_sig(cm + MCZ_MI_LOCALS, 0, 0, 0, MCZ_NULL_INDEX, 0, 0, 0);
    mcz_put_le32(cm + MCZ_CM_OS, 1);
    assert_int_equal(mcz_mc_builder_add(b, key, cm), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);

    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_GET_JIT_FLAGS, false, 4, MCZ_DD_SIZE), 0);
    mcz_put_le32(dd, mcz_mc_builder_buffer(b, jit_flags, sizeof jit_flags));
    mcz_put_le32(dd + 4, sizeof jit_flags);
    assert_int_equal(mcz_mc_builder_add(b, key, dd), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
    assert_int_equal(mcz_mc_builder_finish(b, bytes, size), 0);
    return b;
}

static void test_golden_minimal_context(void **state)
{
    (void)state;
    const uint8_t *bytes;
    size_t size;
    mcz_mc_builder *b = build_minimal(&bytes, &size);
    assert_int_equal(size, sizeof golden);
    assert_memory_equal(bytes, golden, sizeof golden);
    mcz_mc_builder_free(b);
}

static void open_golden(mcz_mc *mc)
{
    mcz_diag d;
    assert_int_equal(mcz_mc_from_bytes(golden, sizeof golden, 1, 0, mc, &d), 0);
}

static void test_parse_minimal_context(void **state)
{
    (void)state;
    mcz_mc mc;
    mcz_packet p;
    mcz_map m;
    const uint8_t *data;
    uint32_t len;
    open_golden(&mc);
    assert_int_equal(mcz_mc_check(&mc, NULL), 0);

    assert_int_equal(mcz_packet_find(&mc, MCZ_PACKET_COMPILE_METHOD, &p, NULL), 1);
    assert_int_equal(p.offset, 6);
    assert_int_equal(p.size, 0xF6);
    assert_int_equal(mcz_map_parse(VB, &p, &m, NULL), 0);
    assert_true(m.tagged);
    assert_false(m.dense);
    assert_int_equal(m.count, 1);
    assert_int_equal(m.key_size, 4);
    assert_int_equal(m.value_size, MCZ_CM_SIZE);
    assert_int_equal(m.pool_size, 14);
    static const uint8_t zero_key[4] = {0};
    const uint8_t *cm = mcz_map_find(&m, zero_key, 4);
    assert_ptr_equal(cm, golden + 0x1B);
    assert_int_equal(mcz_get_le64(cm + MCZ_MI_FTN), GOLDEN_FTN);
    assert_int_equal(mcz_map_buffer(&m, mcz_get_le32(cm + MCZ_MI_IL_OFFSET), &data, &len), 0);
    assert_int_equal(len, 2);
    assert_memory_equal(data, "\x02\x2a", 2);
    assert_int_equal(mcz_map_buffer(&m, 10, &data, &len), 0);
    assert_int_equal(len, 4);
    assert_memory_equal(data, "\x00\x01\x08\x08", 4);

    assert_int_equal(mcz_packet_find(&mc, MCZ_PACKET_GET_JIT_FLAGS, &p, NULL), 1);
    assert_int_equal(mcz_map_parse(VB, &p, &m, NULL), 0);
    assert_int_equal(m.key_size, 4);
    assert_int_equal(m.value_size, MCZ_DD_SIZE);
    assert_int_equal(mcz_get_le32(mcz_map_value(&m, 0) + 4), 24);
    assert_int_equal(mcz_packet_find(&mc, MCZ_PACKET_GET_METHOD_SIG, &p, NULL), 0);
}

/* n copies of the golden context back to back (malloc'ed). */
static uint8_t *golden_copies(unsigned n, size_t *len)
{
    uint8_t *buf = malloc(sizeof golden * n);
    assert_non_null(buf);
    for (unsigned i = 0; i < n; i++)
        memcpy(buf + i * sizeof golden, golden, sizeof golden);
    *len = sizeof golden * n;
    return buf;
}

static void test_walk_numbers_and_offsets(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = golden_copies(3, &len);
    uint64_t pos = 0;
    uint32_t number = 0;
    mcz_mc mc;
    for (uint32_t i = 1; i <= 3; i++) {
        assert_int_equal(mcz_mch_next(buf, len, &pos, &number, &mc, NULL), 1);
        assert_int_equal(mc.number, i);
        assert_int_equal(number, i);
        assert_int_equal(mc.offset, (i - 1) * sizeof golden);
        assert_int_equal(mc.size, sizeof golden);
        assert_ptr_equal(mc.bytes, buf + mc.offset);
    }
    assert_int_equal(mcz_mch_next(buf, len, &pos, &number, &mc, NULL), 0);
    assert_int_equal(pos, len);

    /* damage the third context's trailer: the diag names context 3 and the trailer's offset */
    buf[3 * sizeof golden - 1] = 'X';
    pos = 0;
    number = 0;
    mcz_diag d;
    mcz_diag_clear(&d);
    assert_int_equal(mcz_mch_next(buf, len, &pos, &number, &mc, &d), 1);
    assert_int_equal(mcz_mch_next(buf, len, &pos, &number, &mc, &d), 1);
    assert_int_equal(mcz_mch_next(buf, len, &pos, &number, &mc, &d), MCZ_ECORRUPT);
    assert_int_equal(d.code, MCZ_ECORRUPT);
    assert_int_equal(d.context, 3);
    assert_int_equal(d.offset, 3 * sizeof golden - 2);
    free(buf);
}

static void test_reserialize_identity(void **state)
{
    (void)state;
    mcz_mc mc;
    open_golden(&mc);
    mcz_mc_builder *b = mcz_mc_builder_create();
    assert_non_null(b);
    uint32_t pos = 0;
    mcz_packet p;
    mcz_map m;
    while (mcz_packet_next(&mc, &pos, &p, NULL) == 1) {
        assert_int_equal(mcz_map_parse(VB, &p, &m, NULL), 0);
        assert_int_equal(mcz_mc_builder_put_map(b, p.id, &m), 0);
    }
    const uint8_t *bytes;
    size_t size;
    assert_int_equal(mcz_mc_builder_finish(b, &bytes, &size), 0);
    assert_int_equal(size, sizeof golden);
    assert_memory_equal(bytes, golden, sizeof golden);
    mcz_mc_builder_free(b);
}

/* Follows every 4-byte-aligned u32 of each value as a pool index, as value structs hold them. */
static void follow_value_indices(const mcz_map *m)
{
    for (uint32_t i = 0; i < m->count; i++) {
        const uint8_t *value = mcz_map_value(m, i);
        uint32_t value_size = m->dense ? m->item_size : m->value_size;
        for (uint32_t at = 0; value && at + 4 <= value_size; at += 4) {
            const uint8_t *data;
            uint32_t len;
            if (mcz_map_buffer(m, mcz_get_le32(value + at), &data, &len) == MCZ_OK)
                assert_true(data >= m->pool && data + len <= m->pool + m->pool_size);
        }
        const uint8_t *key = mcz_map_key(m, i);
        const uint8_t *found = key ? mcz_map_find(m, key, m->key_size) : NULL;
        if (found) /* keys need not be sorted: a miss is possible, a stray pointer not */
            assert_true(found >= m->items &&
                        found + m->value_size <= m->items + (size_t)m->count * m->item_size);
    }
}

/* Everything a reader does to one context; returns the deep check's result. Must never crash
 * or read out of bounds, whatever the bytes. */
static int exercise_context(const mcz_mc *mc)
{
    int rc = mcz_mc_check(mc, NULL);
    uint32_t pos = 0;
    mcz_packet p;
    while (mcz_packet_next(mc, &pos, &p, NULL) == 1) {
        mcz_map m;
        if (mcz_map_parse(VB, &p, &m, NULL) == MCZ_OK)
            follow_value_indices(&m);
    }
    return rc;
}

/* Walks buf to its end or first error; returns that result and the contexts seen. */
static int walk_all(const uint8_t *buf, size_t len, uint32_t *seen, mcz_diag *d)
{
    uint64_t pos = 0;
    uint32_t number = 0;
    mcz_mc mc;
    int rc;
    while ((rc = mcz_mch_next(buf, len, &pos, &number, &mc, d)) == 1)
        exercise_context(&mc);
    *seen = number;
    return rc;
}

static void test_truncation_at_every_length(void **state)
{
    (void)state;
    size_t full;
    uint8_t *two = golden_copies(2, &full);
    for (size_t len = 0; len < full; len++) {
        /* a fresh allocation of exactly len bytes lets the sanitizer see any overread */
        uint8_t *cut = malloc(len ? len : 1);
        assert_non_null(cut);
        memcpy(cut, two, len);
        uint32_t seen;
        mcz_diag d;
        mcz_diag_clear(&d);
        int rc = walk_all(cut, len, &seen, &d);
        if (len == 0 || len == sizeof golden) {
            assert_int_equal(rc, 0);
            assert_int_equal(seen, len ? 1 : 0);
        } else {
            uint32_t broken = len < sizeof golden ? 1 : 2;
            assert_int_equal(rc, MCZ_ETRUNCATED);
            assert_int_equal(seen, broken - 1);
            assert_int_equal(d.context, broken);
            assert_true(d.offset >= (int64_t)((broken - 1) * sizeof golden));
        }
        mcz_mc one;
        if (len != sizeof golden)
            assert_true(mcz_mc_from_bytes(cut, len, 1, 0, &one, NULL) < 0);
        free(cut);
    }
    free(two);
}

static void test_every_bit_flip(void **state)
{
    (void)state;
    uint8_t *flipped = malloc(sizeof golden);
    assert_non_null(flipped);
    unsigned valid = 0;
    for (size_t bit = 0; bit < sizeof golden * 8; bit++) {
        memcpy(flipped, golden, sizeof golden);
        flipped[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        uint32_t seen;
        int rc = walk_all(flipped, sizeof golden, &seen, NULL);
        assert_true(rc == 0 || rc == MCZ_ECORRUPT || rc == MCZ_ETRUNCATED || rc == MCZ_ELIMIT);
        size_t byte = bit / 8;
        if (byte < 2 || byte >= sizeof golden - 2)
            assert_int_equal(rc, MCZ_ECORRUPT); /* magic, trailer */
        mcz_mc mc;
        if (mcz_mc_from_bytes(flipped, sizeof golden, 1, 0, &mc, NULL) == 0 &&
            exercise_context(&mc) == 0)
            valid++;
    }
    /* flips inside values and pool bytes leave a well-formed context */
    assert_true(valid > 0 && valid < sizeof golden * 8);
    free(flipped);
}

static void test_huge_total_len(void **state)
{
    (void)state;
    uint8_t buf[sizeof golden];
    memcpy(buf, golden, sizeof buf);
    mcz_put_le32(buf + 2, 0xFFFFFFF8u); /* a 4 GiB context */
    uint64_t pos = 0;
    uint32_t number = 0;
    mcz_mc mc;
    mcz_diag d;
    assert_int_equal(mcz_mch_next(buf, sizeof buf, &pos, &number, &mc, &d), MCZ_ELIMIT);
    assert_int_equal(d.context, 1);
    assert_int_equal(d.offset, 2);
    assert_int_equal(pos, 0);
    mcz_put_le32(buf + 2, (uint32_t)sizeof buf - 7); /* one byte past the end */
    assert_int_equal(mcz_mch_next(buf, sizeof buf, &pos, &number, &mc, &d), MCZ_ETRUNCATED);
}

/* A context with one packet whose payload is the given map bytes. */
static size_t wrap_packet(uint8_t *out, size_t cap, uint8_t id, const uint8_t *map, uint32_t len)
{
    assert_true(len + 14 <= cap);
    out[0] = 'm';
    out[1] = 'c';
    mcz_put_le32(out + 2, len + 6);
    out[6] = id;
    mcz_put_le32(out + 7, len);
    memcpy(out + 11, map, len);
    out[11 + len] = 0x42;
    out[12 + len] = '4';
    out[13 + len] = '2';
    return len + 14;
}

typedef int (*context_check_fn)(const mcz_mc *, mcz_diag *);

/* Runs `check` on a context whose one packet holds the given map bytes. */
static int check_map_with(context_check_fn check, uint8_t id, const uint8_t *map, uint32_t len,
                          mcz_diag *d)
{
    uint8_t buf[256];
    size_t size = wrap_packet(buf, sizeof buf, id, map, len);
    mcz_mc mc;
    assert_int_equal(mcz_mc_from_bytes(buf, size, 7, 1000, &mc, NULL), 0);
    exercise_context(&mc);
    return check(&mc, d);
}

static int check_map_bytes(uint8_t id, const uint8_t *map, uint32_t len, mcz_diag *d)
{
    return check_map_with(mcz_mc_check, id, map, len, d);
}

/* Like check_map_bytes, with the sizes of this build's packet table enforced. */
static int check_table_B(const mcz_mc *mc, mcz_diag *d)
{
    return mcz_mc_check_table(VB, mc, d);
}

static int check_map_table(uint8_t id, const uint8_t *map, uint32_t len, mcz_diag *d)
{
    return check_map_with(check_table_B, id, map, len, d);
}

static void test_map_counts_that_overflow(void **state)
{
    (void)state;
    /* LWM1, count, pool 0, 8 item bytes: counts whose item size cannot fill the packet */
    static const uint32_t counts[] = {0x80000000u, 0x40000001u, 0xFFFFFFFFu, 3, 16};
    uint8_t map[20] = {'L', 'W', 'M', '1'};
    mcz_put_le32(map + 8, 0);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        mcz_put_le32(map + 4, counts[i]);
        mcz_diag d;
        assert_int_equal(check_map_bytes(29, map, sizeof map, &d), MCZ_ECORRUPT);
        assert_int_equal(d.context, 7);
        assert_true(d.offset >= 1000 + 11);
        assert_non_null(strstr(d.message, "GetArgNext"));
    }
    mcz_put_le32(map + 4, 1); /* 1 item of 8 bytes: GetArgNext is u64 -> u64, 16 */
    mcz_diag d;
    assert_int_equal(check_map_bytes(29, map, sizeof map, &d), 0); /* framing is sound */
    assert_int_equal(check_map_table(29, map, sizeof map, &d), MCZ_EVERSION);
    assert_non_null(strstr(d.message, "GetArgNext"));
    assert_int_equal(check_map_table(250, map, sizeof map, &d), 0);
    assert_int_equal(check_map_bytes(250, map, sizeof map, &d), 0); /* unknown ids: not checked */
    mcz_put_le32(map + 8, 0xFFFFFFF0u); /* pool larger than the packet */
    assert_int_equal(check_map_bytes(250, map, sizeof map, &d), MCZ_ECORRUPT);
    static const uint8_t empty_map[] = {'L', 'W', 'M', '1', 0, 0, 0, 0};
    assert_int_equal(check_map_bytes(29, empty_map, sizeof empty_map, &d), 0);
    static const uint8_t empty_with_tail[] = {'L', 'W', 'M', '1', 0, 0, 0, 0, 0};
    assert_int_equal(check_map_bytes(29, empty_with_tail, sizeof empty_with_tail, &d),
                     MCZ_ECORRUPT);
    assert_int_equal(check_map_bytes(29, empty_map, 3, &d), MCZ_ECORRUPT);
}

static void test_pool_index_past_the_pool(void **state)
{
    (void)state;
    mcz_mc mc;
    mcz_packet p;
    mcz_map m;
    open_golden(&mc);
    assert_int_equal(mcz_packet_find(&mc, MCZ_PACKET_COMPILE_METHOD, &p, NULL), 1);
    assert_int_equal(mcz_map_parse(VB, &p, &m, NULL), 0);
    const uint8_t *data = NULL;
    uint32_t len = 0;
    assert_int_equal(mcz_map_buffer(&m, MCZ_NULL_INDEX, &data, &len), MCZ_EMISSING);
    for (uint32_t index = 0; index < 4; index++)
        assert_int_equal(mcz_map_buffer(&m, index, &data, &len), MCZ_ECORRUPT);
    assert_int_equal(mcz_map_buffer(&m, m.pool_size + 1, &data, &len), MCZ_ECORRUPT);
    assert_int_equal(mcz_map_buffer(&m, m.pool_size + 4, &data, &len), MCZ_ECORRUPT);
    assert_int_equal(mcz_map_buffer(&m, 0xFFFFFFFEu, &data, &len), MCZ_ECORRUPT);
    /* index 6 reads the length field from IL bytes 02 2A + "04 00": a chunk past the pool */
    assert_int_equal(mcz_map_buffer(&m, 8, &data, &len), MCZ_ECORRUPT);
    assert_int_equal(mcz_map_buffer(&m, 10, &data, &len), MCZ_OK);
}

static void test_packet_errors(void **state)
{
    (void)state;
    uint8_t buf[sizeof golden + 3];
    mcz_mc mc;
    mcz_diag d;
    memcpy(buf, golden, sizeof golden);
    buf[6 + 5 + 0xF6] = 0x41; /* first packet's canary */
    assert_int_equal(mcz_mc_from_bytes(buf, sizeof golden, 1, 0, &mc, NULL), 0);
    assert_int_equal(mcz_mc_check(&mc, &d), MCZ_ECORRUPT);
    assert_int_equal(d.offset, 6 + 5 + 0xF6);
    assert_non_null(strstr(d.message, "CompileMethod"));

    /* three stray bytes after the last packet: it no longer ends at totalLen */
    memcpy(buf, golden, sizeof golden - 2);
    memcpy(buf + sizeof golden - 2, "\x9a\x00\x00" "42", 5);
    mcz_put_le32(buf + 2, 0x136 + 3);
    assert_int_equal(mcz_mc_from_bytes(buf, sizeof buf, 1, 0, &mc, NULL), 0);
    assert_int_equal(mcz_mc_check(&mc, &d), MCZ_ECORRUPT);
    assert_int_equal(mcz_packet_find(&mc, 200, NULL, NULL), MCZ_ECORRUPT);

    /* a context that does not fill its buffer, and an empty buffer */
    assert_int_equal(mcz_mc_from_bytes(golden, sizeof golden - 1, 1, 0, &mc, NULL),
                     MCZ_ETRUNCATED);
    memcpy(buf, golden, sizeof golden);
    assert_int_equal(mcz_mc_from_bytes(buf, sizeof golden + 1, 1, 0, &mc, &d), MCZ_ECORRUPT);
    assert_int_equal(mcz_mc_from_bytes(buf, 0, 1, 0, &mc, NULL), MCZ_ETRUNCATED);
    uint64_t pos = 0;
    uint32_t number = 0;
    assert_int_equal(mcz_mch_next(buf, 0, &pos, &number, &mc, NULL), 0);
    assert_int_equal(mcz_mch_next(NULL, 0, &pos, &number, &mc, NULL), 0);

    /* a context with no packets is legal */
    static const uint8_t bare[] = {'m', 'c', 0, 0, 0, 0, '4', '2'};
    assert_int_equal(mcz_mc_from_bytes(bare, sizeof bare, 1, 0, &mc, NULL), 0);
    assert_int_equal(mcz_mc_check(&mc, NULL), 0);
    assert_int_equal(mcz_packet_find(&mc, MCZ_PACKET_COMPILE_METHOD, NULL, NULL), 0);
}

static void test_legacy_untagged_maps(void **state)
{
    (void)state;
    /* GetArgNext (u64 -> u64) without its tag: count 1, pool 0, key, value */
    uint8_t sparse[8 + 16] = {1, 0, 0, 0, 0, 0, 0, 0};
    mcz_put_le64(sparse + 8, 0x10);
    mcz_put_le64(sparse + 16, 0x20);
    uint8_t buf[256];
    size_t size = wrap_packet(buf, sizeof buf, MCZ_PACKET_GET_ARG_NEXT, sparse, sizeof sparse);
    mcz_mc mc;
    mcz_packet p;
    mcz_map m;
    assert_int_equal(mcz_mc_from_bytes(buf, size, 1, 0, &mc, NULL), 0);
    assert_int_equal(mcz_mc_check(&mc, NULL), 0);
    assert_int_equal(mcz_packet_find(&mc, MCZ_PACKET_GET_ARG_NEXT, &p, NULL), 1);
    assert_int_equal(mcz_map_parse(VB, &p, &m, NULL), 0);
    assert_false(m.tagged);
    assert_int_equal(m.key_size, 8);
    uint8_t key[8];
    mcz_put_le64(key, 0x10);
    assert_int_equal(mcz_get_le64(mcz_map_find(&m, key, 8)), 0x20);

    /* SigInstHandleMap (dense u64) in the legacy form: u32 keys 1, 0 then values A, B */
    uint8_t dense[8 + 8 + 16] = {2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    mcz_put_le64(dense + 16, 0xA);
    mcz_put_le64(dense + 24, 0xB);
    size = wrap_packet(buf, sizeof buf, MCZ_PACKET_SIG_INST_HANDLE_MAP, dense, sizeof dense);
    assert_int_equal(mcz_mc_from_bytes(buf, size, 1, 0, &mc, NULL), 0);
    assert_int_equal(mcz_mc_check(&mc, NULL), 0);
    assert_int_equal(mcz_packet_find(&mc, MCZ_PACKET_SIG_INST_HANDLE_MAP, &p, NULL), 1);
    assert_int_equal(mcz_map_parse(VB, &p, &m, NULL), 0);
    mcz_mc_builder *b = mcz_mc_builder_create();
    assert_int_equal(mcz_mc_builder_put_map(b, p.id, &m), 0);
    const uint8_t *out;
    size_t out_size;
    assert_int_equal(mcz_mc_builder_finish(b, &out, &out_size), 0);
    assert_int_equal(mcz_mc_from_bytes(out, out_size, 1, 0, &mc, NULL), 0);
    assert_int_equal(mcz_packet_find(&mc, MCZ_PACKET_SIG_INST_HANDLE_MAP, &p, NULL), 1);
    assert_int_equal(mcz_map_parse(VB, &p, &m, NULL), 0);
    assert_true(m.tagged && m.dense);
    assert_int_equal(mcz_get_le64(mcz_map_value(&m, 0)), 0xB); /* key 0 */
    assert_int_equal(mcz_get_le64(mcz_map_value(&m, 1)), 0xA);
    mcz_mc_builder_free(b);

    /* a repeated or out-of-range legacy key is corrupt */
    mcz_put_le32(dense + 12, 1);
    mcz_diag d;
    assert_int_equal(check_map_bytes(MCZ_PACKET_SIG_INST_HANDLE_MAP, dense, sizeof dense, &d),
                     MCZ_ECORRUPT);
    mcz_put_le32(dense + 12, 2);
    assert_int_equal(check_map_bytes(MCZ_PACKET_SIG_INST_HANDLE_MAP, dense, sizeof dense, &d),
                     MCZ_ECORRUPT);
}

static void test_foreign_tags(void **state)
{
    (void)state;
    /* DWM1 in a sparse packet and LWM1 in a dense one: SuperPMI misreads both */
    uint8_t map[12 + 8] = {'D', 'W', 'M', '1', 1, 0, 0, 0, 0, 0, 0, 0};
    mcz_diag d;
    assert_int_equal(check_map_bytes(MCZ_PACKET_GET_ARG_NEXT, map, sizeof map, &d),
                     MCZ_ECORRUPT);
    assert_int_equal(check_map_bytes(MCZ_PACKET_SIG_INST_HANDLE_MAP, map, sizeof map, &d), 0);
    memcpy(map, "LWM1", 4);
    assert_int_equal(check_map_bytes(MCZ_PACKET_SIG_INST_HANDLE_MAP, map, sizeof map, &d),
                     MCZ_ECORRUPT);
}

static void test_random_bytes(void **state)
{
    (void)state;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    uint8_t *buf = malloc(4096);
    assert_non_null(buf);
    for (int round = 0; round < 2000; round++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size_t len = (size_t)(seed >> 33) % 4096;
        for (size_t i = 0; i < len; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            buf[i] = (uint8_t)(seed >> 56);
        }
        if (round % 2 && len >= 6) { /* half the inputs get a plausible header */
            buf[0] = 'm';
            buf[1] = 'c';
            mcz_put_le32(buf + 2, (uint32_t)(len - 8));
            buf[len - 2] = '4';
            buf[len - 1] = '2';
        }
        uint32_t seen;
        walk_all(buf, len, &seen, NULL);
    }
    free(buf);
}

static void test_packet_table(void **state)
{
    (void)state;
    char name[48];
    assert_string_equal(mcz_packet_name(VB, MCZ_PACKET_COMPILE_METHOD, name, sizeof name),
                        "CompileMethod");
    assert_string_equal(mcz_packet_name(VB, 250, name, sizeof name), "unknown(250)");
    assert_string_equal(mcz_packet_name(VB, 1, name, sizeof name), "unknown(1)"); /* retired */
    assert_null(mcz_packet_lookup(7)); /* enum-only */
    const mcz_packet_info *info = mcz_packet_lookup(MCZ_PACKET_GET_ARG_TYPE);
    assert_non_null(info);
    assert_int_equal(info->key_size, MCZ_AT_KEY_SIZE);
    assert_int_equal(info->value_size, MCZ_AT_VALUE_SIZE);
    info = mcz_packet_lookup(MCZ_PACKET_SIG_INST_HANDLE_MAP);
    assert_true(info->dense);
    assert_int_equal(info->value_size, 8);
    info = mcz_packet_lookup(MCZ_PACKET_CR_PROCESS_NAME);
    assert_true(info->compile_result && info->dense);
    assert_non_null(strstr(mcz_jit_ee_description(VB), "238"));

    size_t count;
    const uint8_t *order = mcz_jit_ee_write_order(VB, &count);
    assert_int_equal(count, 159 + 24);
    assert_int_equal(order[0], 186);
    assert_int_equal(order[158], 238);
    assert_int_equal(order[159], 114);
    bool seen[256] = {false};
    for (size_t i = 0; i < count; i++) {
        assert_false(seen[order[i]]);
        seen[order[i]] = true;
        assert_non_null(mcz_jit_ee_packet(VB, order[i]));
        assert_int_equal(mcz_jit_ee_packet(VB, order[i])->compile_result, i >= 159);
    }
    for (unsigned id = 0; id < 256; id++) /* every table entry has its place in the order */
        assert_true(seen[id] == (mcz_jit_ee_packet(VB, (uint8_t)id) != NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_minimal_context),
        cmocka_unit_test(test_parse_minimal_context),
        cmocka_unit_test(test_walk_numbers_and_offsets),
        cmocka_unit_test(test_reserialize_identity),
        cmocka_unit_test(test_truncation_at_every_length),
        cmocka_unit_test(test_every_bit_flip),
        cmocka_unit_test(test_huge_total_len),
        cmocka_unit_test(test_map_counts_that_overflow),
        cmocka_unit_test(test_pool_index_past_the_pool),
        cmocka_unit_test(test_packet_errors),
        cmocka_unit_test(test_legacy_untagged_maps),
        cmocka_unit_test(test_foreign_tags),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_packet_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
