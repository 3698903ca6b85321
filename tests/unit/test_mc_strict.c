/*
 * test_mc_strict.c - mcz_mc_check_strict on contexts built with the builder, then damaged one
 * way each: a packet id flipped to another known id, an unknown id, a pool chunk running past
 * its pool, IL and name pool indexes out of range or inside a chunk, unsorted and repeated keys,
 * a packet id twice; the lookup given by the caller is the one used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../common/mcz_common.h"

#define PACKET_HEADER 5u  /* id, size */
#define MAP_ITEMS 12u     /* tag, count, pool length: where the keys start */
#define UNKNOWN_ID 250    /* no table has it */
#define IL_SIZE 2u

/* A sound context: CompileMethod (IL 02 2A), GetJitFlags, PrintMethodName, and GetArgNext
 * with three keys. Copied into a buffer the tests may damage. */
typedef struct built {
    uint8_t bytes[4096];
    size_t size;
    mcz_mc mc;
} built;

static void put_compile_method(mcz_mc_builder *b)
{
    static const uint8_t il[IL_SIZE] = {0x02, 0x2A};
    uint8_t key[4] = {0}, value[MCZ_CM_SIZE] = {0};
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_COMPILE_METHOD, false, 4, MCZ_CM_SIZE), 0);
    mcz_put_le32(value + MCZ_MI_IL_OFFSET, mcz_mc_builder_buffer(b, il, IL_SIZE));
    mcz_put_le32(value + MCZ_MI_IL_SIZE, IL_SIZE);
    mcz_put_le32(value + MCZ_MI_ARGS + MCZ_SIG_PSIG_INDEX, MCZ_NULL_INDEX);
    mcz_put_le32(value + MCZ_MI_LOCALS + MCZ_SIG_PSIG_INDEX, MCZ_NULL_INDEX);
    assert_int_equal(mcz_mc_builder_add(b, key, value), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

static void put_jit_flags(mcz_mc_builder *b, uint8_t id)
{
    static const uint8_t flags[24] = {0};
    uint8_t key[4] = {0}, value[MCZ_DD_SIZE];
    assert_int_equal(mcz_mc_builder_begin(b, id, false, 4, MCZ_DD_SIZE), 0);
    mcz_put_le32(value, mcz_mc_builder_buffer(b, flags, sizeof flags));
    mcz_put_le32(value + 4, sizeof flags);
    assert_int_equal(mcz_mc_builder_add(b, key, value), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

static void put_method_name(mcz_mc_builder *b)
{
    uint8_t key[8] = {0}, value[MCZ_PR_SIZE];
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_PRINT_METHOD_NAME, false, 8, MCZ_PR_SIZE),
                     0);
    mcz_put_le32(value + MCZ_PR_REQUIRED_SIZE, 5);
    mcz_put_le32(value + MCZ_PR_BUFFER, mcz_mc_builder_buffer(b, "Main", 4));
    mcz_put_le32(value + MCZ_PR_BUFFER_SIZE, 4);
    assert_int_equal(mcz_mc_builder_add(b, key, value), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

static void put_arg_next(mcz_mc_builder *b)
{
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_GET_ARG_NEXT, false, 8, 8), 0);
    for (uint64_t k = 1; k <= 3; k++) {
        uint8_t key[8], value[8];
        mcz_put_le64(key, k);
        mcz_put_le64(value, k + 1);
        assert_int_equal(mcz_mc_builder_add(b, key, value), 0);
    }
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

/* The sound context, with an extra packet when extra is not 0 (a second GetJitFlags-shaped
 * map under that id). */
static void build(built *out, uint8_t extra)
{
    mcz_mc_builder *b = mcz_mc_builder_create();
    assert_non_null(b);
    put_compile_method(b);
    put_jit_flags(b, MCZ_PACKET_GET_JIT_FLAGS);
    put_method_name(b);
    put_arg_next(b);
    if (extra)
        put_jit_flags(b, extra);
    const uint8_t *bytes;
    assert_int_equal(mcz_mc_builder_finish(b, &bytes, &out->size), 0);
    assert_true(out->size <= sizeof out->bytes);
    memcpy(out->bytes, bytes, out->size);
    mcz_mc_builder_free(b);
    assert_int_equal(mcz_mc_from_bytes(out->bytes, out->size, 7, 1000, &out->mc, NULL), 0);
}

/* Offset in the context of packet id's map (its tag). */
static size_t map_at(const built *c, uint8_t id)
{
    mcz_packet p;
    assert_int_equal(mcz_packet_find(&c->mc, id, &p, NULL), 1);
    return p.offset + PACKET_HEADER;
}

/* Offset of the first value of packet id's map, whose keys have key_size bytes. */
static size_t value_at(const built *c, uint8_t id, uint32_t key_size)
{
    size_t map = map_at(c, id);
    uint32_t count = mcz_get_le32(c->bytes + map + 4);
    return map + MAP_ITEMS + (size_t)count * key_size;
}

/* Offset of packet id's pool. */
static size_t pool_at(const built *c, uint8_t id, uint32_t item_size)
{
    size_t map = map_at(c, id);
    uint32_t count = mcz_get_le32(c->bytes + map + 4);
    return map + MAP_ITEMS + (size_t)count * item_size;
}

/* Checks c strictly with the build's table: the code, and the message must hold each of
 * the texts given (NULL-terminated). */
static void expect(const built *c, int code, ...)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_strict_report r;
    assert_int_equal(mcz_mc_check_strict(NULL, &c->mc, &r, &d), code);
    va_list ap;
    va_start(ap, code);
    for (const char *text; (text = va_arg(ap, const char *)) != NULL;)
        if (!strstr(d.message, text))
            fail_msg("'%s' not in '%s'", text, d.message);
    va_end(ap);
    if (code != MCZ_OK)
        assert_int_equal(d.context, 7);
}

static void test_sound_context_passes(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    mcz_strict_report r;
    memset(&r, 0xAA, sizeof r);
    assert_int_equal(mcz_mc_check_strict(NULL, &c.mc, &r, NULL), MCZ_OK);
    assert_int_equal(r.unknown_count, 0);
    for (int id = 0; id < 256; id++)
        assert_false(r.unknown[id]);
    assert_int_equal(mcz_mc_check_strict(NULL, &c.mc, NULL, NULL), MCZ_OK);
    assert_int_equal(mcz_strict_unknown_fail(&c.mc, &r, NULL), MCZ_OK);
}

/* GetJitFlags (154, 4 + 8) flipped to GetArgType (140, 48 + 16): the sizes name the packet. */
static void test_flipped_id_to_another_known_id(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    c.bytes[map_at(&c, MCZ_PACKET_GET_JIT_FLAGS) - PACKET_HEADER] = MCZ_PACKET_GET_ARG_TYPE;
    expect(&c, MCZ_ECORRUPT, "packet GetArgType", "items of 12 bytes", "key 48",
           "value 16", NULL);
}

/* GetJitFlags flipped to PGO results (187: key 8, value 28 or 24): 12-byte items cannot be. */
static void test_flipped_id_to_a_version_dependent_size(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    c.bytes[map_at(&c, MCZ_PACKET_GET_JIT_FLAGS) - PACKET_HEADER] = MCZ_PACKET_GET_PGO_RESULTS;
    expect(&c, MCZ_ECORRUPT, "packet GetPgoInstrumentationResults", "items of 12 bytes", NULL);
}

static void test_unknown_id_is_reported_not_judged(void **state)
{
    (void)state;
    built c;
    build(&c, UNKNOWN_ID);
    mcz_strict_report r;
    mcz_diag d;
    mcz_diag_clear(&d);
    assert_int_equal(mcz_mc_check_strict(NULL, &c.mc, &r, &d), MCZ_OK);
    assert_int_equal(r.unknown_count, 1);
    assert_true(r.unknown[UNKNOWN_ID]);
    assert_int_equal(mcz_strict_unknown_fail(&c.mc, &r, &d), MCZ_EUNSUPPORTED);
    assert_non_null(strstr(d.message, "unknown(250)"));
    assert_int_equal(d.context, 7);
}

/* The pool of an unknown packet is still walked: its chunks are the format's, not a version's. */
static void test_unknown_id_pool_is_walked(void **state)
{
    (void)state;
    built c;
    build(&c, UNKNOWN_ID);
    size_t pool = pool_at(&c, UNKNOWN_ID, 12);
    mcz_put_le32(c.bytes + pool, 25); /* 24 bytes of flags follow, not 25 */
    expect(&c, MCZ_ECORRUPT, "packet unknown(250)", "pool chunk at 0 of 25 bytes",
           "pool of 28 bytes", NULL);
}

static void test_pool_chunk_past_the_pool(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t pool = pool_at(&c, MCZ_PACKET_COMPILE_METHOD, 4 + MCZ_CM_SIZE);
    mcz_put_le32(c.bytes + pool, 3); /* the IL chunk holds 2 bytes, the pool 6 */
    expect(&c, MCZ_ECORRUPT, "packet CompileMethod", "runs past the pool of 6 bytes", NULL);
}

static void test_pool_chunk_header_cut(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t pool = pool_at(&c, MCZ_PACKET_PRINT_METHOD_NAME, 8 + MCZ_PR_SIZE);
    mcz_put_le32(c.bytes + pool, 1); /* "Main" (4) becomes a 1-byte chunk and 3 stray bytes */
    expect(&c, MCZ_ECORRUPT, "packet PrintMethodName", "chunk header at 5 runs past", NULL);
}

static void test_il_index_out_of_range(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t value = value_at(&c, MCZ_PACKET_COMPILE_METHOD, 4);
    mcz_put_le32(c.bytes + value + MCZ_MI_IL_OFFSET, 400);
    expect(&c, MCZ_ECORRUPT, "packet CompileMethod", "pool index 400", "byte 16 of the item",
           NULL);
}

static void test_il_index_inside_a_chunk(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t value = value_at(&c, MCZ_PACKET_COMPILE_METHOD, 4);
    mcz_put_le32(c.bytes + value + MCZ_MI_IL_OFFSET, 5);
    expect(&c, MCZ_ECORRUPT, "pool index 5", "not the start of a pool chunk", NULL);
    mcz_put_le32(c.bytes + value + MCZ_MI_IL_OFFSET, 0); /* the chunk's header, not its data */
    expect(&c, MCZ_ECORRUPT, "pool index 0", NULL);
}

static void test_il_size_past_its_chunk(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t value = value_at(&c, MCZ_PACKET_COMPILE_METHOD, 4);
    mcz_put_le32(c.bytes + value + MCZ_MI_IL_SIZE, IL_SIZE + 1);
    expect(&c, MCZ_ECORRUPT, "3 bytes wanted from a pool chunk of 2", NULL);
}

static void test_signature_index_not_at_a_chunk(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t value = value_at(&c, MCZ_PACKET_COMPILE_METHOD, 4);
    mcz_put_le32(c.bytes + value + MCZ_MI_ARGS + MCZ_SIG_PSIG_INDEX, 0);
    mcz_put_le32(c.bytes + value + MCZ_MI_ARGS + MCZ_SIG_CB_SIG, 2);
    expect(&c, MCZ_ECORRUPT, "pool index 0", "byte 96 of the item", NULL);
}

/* A call that threw is recorded with its whole value zeroed (recGetCallInfo, recGetMethodInfo):
 * index 0 with length 0 is read by nobody, and passes. */
static void test_zeroed_record_of_a_failed_call_passes(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t value = value_at(&c, MCZ_PACKET_COMPILE_METHOD, 4);
    mcz_put_le32(c.bytes + value + MCZ_MI_ARGS + MCZ_SIG_PSIG_INDEX, 0);
    mcz_put_le32(c.bytes + value + MCZ_MI_ARGS + MCZ_SIG_CB_SIG, 0);
    assert_int_equal(mcz_mc_check_strict(NULL, &c.mc, NULL, NULL), MCZ_OK);
}

static void test_name_index_out_of_range(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t value = value_at(&c, MCZ_PACKET_PRINT_METHOD_NAME, 8);
    mcz_put_le32(c.bytes + value + MCZ_PR_BUFFER, 8);
    expect(&c, MCZ_ECORRUPT, "packet PrintMethodName", "pool index 8", NULL);
}

static void test_null_indexes_pass(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t value = value_at(&c, MCZ_PACKET_PRINT_METHOD_NAME, 8);
    mcz_put_le32(c.bytes + value + MCZ_PR_BUFFER, MCZ_NULL_INDEX);
    expect(&c, MCZ_OK, "", NULL);
}

static void test_unsorted_keys(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t keys = map_at(&c, MCZ_PACKET_GET_ARG_NEXT) + MAP_ITEMS;
    uint8_t first[8];
    memcpy(first, c.bytes + keys, 8); /* keys 1, 2, 3 become 2, 1, 3 */
    memcpy(c.bytes + keys, c.bytes + keys + 8, 8);
    memcpy(c.bytes + keys + 8, first, 8);
    expect(&c, MCZ_ECORRUPT, "packet GetArgNext", "key 1 sorts before key 0", NULL);
}

static void test_duplicate_keys(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t keys = map_at(&c, MCZ_PACKET_GET_ARG_NEXT) + MAP_ITEMS;
    memcpy(c.bytes + keys + 16, c.bytes + keys + 8, 8); /* keys 1, 2, 2 */
    expect(&c, MCZ_ECORRUPT, "packet GetArgNext", "key 2 repeats key 1", NULL);
}

/* memcmp order, not numeric: 0x100 before 0x01 is sound. */
static void test_memcmp_order_is_the_order(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    size_t keys = map_at(&c, MCZ_PACKET_GET_ARG_NEXT) + MAP_ITEMS;
    mcz_put_le64(c.bytes + keys, 0x100);
    mcz_put_le64(c.bytes + keys + 8, 0x01);
    mcz_put_le64(c.bytes + keys + 16, 0x02);
    expect(&c, MCZ_OK, "", NULL);
}

static void test_duplicate_packet_id(void **state)
{
    (void)state;
    built c;
    build(&c, MCZ_PACKET_GET_JIT_FLAGS);
    expect(&c, MCZ_ECORRUPT, "packet GetJitFlags appears twice", NULL);
}

/* The table checked against is the JIT-EE version given: CR_AllocMem's value is 56 bytes in B
 * and 52 in C (Agnostic_AllocMemDetails lost its flag), so one context passes one and fails
 * the other, naming the packet, the size found and the sizes expected. */
static void test_version_given_is_used(void **state)
{
    (void)state;
    mcz_mc_builder *b = mcz_mc_builder_create();
    put_compile_method(b);
    put_jit_flags(b, MCZ_PACKET_GET_JIT_FLAGS);
    uint8_t key[4] = {0}, value[56];
    memset(value, 0xFF, sizeof value); /* every pool index -1: none */
    assert_int_equal(mcz_mc_builder_begin(b, 115 /* CR_AllocMem */, false, 4, sizeof value), 0);
    assert_int_equal(mcz_mc_builder_add(b, key, value), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
    const uint8_t *bytes;
    size_t size;
    assert_int_equal(mcz_mc_builder_finish(b, &bytes, &size), 0);
    mcz_mc mc;
    assert_int_equal(mcz_mc_from_bytes(bytes, size, 1, 0, &mc, NULL), 0);
    mcz_diag d;
    mcz_diag_clear(&d);
    if (mcz_mc_check_strict(mcz_jit_ee_find("B"), &mc, NULL, &d) != MCZ_OK)
        fail_msg("B: %s", d.message);
    assert_int_equal(mcz_mc_check_strict(mcz_jit_ee_find("C"), &mc, NULL, &d), MCZ_ECORRUPT);
    assert_non_null(strstr(d.message, "CR_AllocMem"));
    assert_non_null(strstr(d.message, "60"));
    assert_non_null(strstr(d.message, "value 52"));
    mcz_mc_builder_free(b);
}

/* Framing damage is still mcz_mc_check's, with its code. */
static void test_framing_first(void **state)
{
    (void)state;
    built c;
    build(&c, 0);
    c.bytes[map_at(&c, MCZ_PACKET_GET_ARG_NEXT) - PACKET_HEADER - 1] ^= 0xFF; /* a canary */
    expect(&c, MCZ_ECORRUPT, "bad canary", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sound_context_passes),
        cmocka_unit_test(test_flipped_id_to_another_known_id),
        cmocka_unit_test(test_flipped_id_to_a_version_dependent_size),
        cmocka_unit_test(test_unknown_id_is_reported_not_judged),
        cmocka_unit_test(test_unknown_id_pool_is_walked),
        cmocka_unit_test(test_pool_chunk_past_the_pool),
        cmocka_unit_test(test_pool_chunk_header_cut),
        cmocka_unit_test(test_il_index_out_of_range),
        cmocka_unit_test(test_il_index_inside_a_chunk),
        cmocka_unit_test(test_il_size_past_its_chunk),
        cmocka_unit_test(test_signature_index_not_at_a_chunk),
        cmocka_unit_test(test_zeroed_record_of_a_failed_call_passes),
        cmocka_unit_test(test_name_index_out_of_range),
        cmocka_unit_test(test_null_indexes_pass),
        cmocka_unit_test(test_unsorted_keys),
        cmocka_unit_test(test_duplicate_keys),
        cmocka_unit_test(test_memcmp_order_is_the_order),
        cmocka_unit_test(test_duplicate_packet_id),
        cmocka_unit_test(test_version_given_is_used),
        cmocka_unit_test(test_framing_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
