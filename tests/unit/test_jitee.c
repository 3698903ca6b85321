/*
 * test_jitee.c - the JIT-EE versions mcz knows (superpmi/SUPERPMI.md "Packet tables per JIT-EE
 * version"): lookup by name and GUID, the tables' differences, CorInfoType numbering, and
 * detection from a context's packets (entry sizes, ids one version lacks, type numbers).
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

#define VB mcz_jit_ee_find("B")
#define VC mcz_jit_ee_find("C")

static void test_lookup(void **state)
{
    (void)state;
    assert_int_equal(mcz_jit_ee_count(), 2);
    assert_ptr_equal(mcz_jit_ee_at(0), VB);
    assert_ptr_equal(mcz_jit_ee_at(1), VC);
    assert_null(mcz_jit_ee_at(2));
    assert_ptr_equal(mcz_jit_ee_newest(), VC);
    assert_ptr_equal(mcz_jit_ee_find("28808a0e-5dc5-48bd-a7eb-27def284eff0"), VB);
    assert_ptr_equal(mcz_jit_ee_find("28808A0E-5DC5-48BD-A7EB-27DEF284EFF0"), VB);
    assert_null(mcz_jit_ee_find("b")); /* names are exact */
    assert_null(mcz_jit_ee_find("A"));
    assert_null(mcz_jit_ee_find(""));
    assert_null(mcz_jit_ee_find(NULL));
    assert_string_equal(mcz_jit_ee_guid(VB), "28808a0e-5dc5-48bd-a7eb-27def284eff0");
    assert_string_equal(mcz_jit_ee_name(NULL), "C");
    assert_int_equal(mcz_jit_ee_id(VB), 2);
    assert_int_equal(mcz_jit_ee_id(VC), 3);
    assert_ptr_equal(mcz_jit_ee_by_id(2), VB);
    assert_null(mcz_jit_ee_by_id(0));
    assert_int_equal(mcz_jit_ee_index(VC), 1);
}

/* An open point the sources leave: no jiteeversionguid.h of C's era was found, and its new
 * maps (CanValueClassInstancePointerEscape, GetWasmWellKnownGlobals, GetAwaitReturnCallResult,
 * GetAwaitAwaiterInContinuationCall) have no id in any methodcontext.h read. */
static void test_open_point_C_guid_and_new_map_ids_unknown(void **state)
{
    (void)state;
    assert_null(mcz_jit_ee_guid(VC));
    for (unsigned id = 239; id < 256; id++) {
        assert_null(mcz_jit_ee_packet(VB, (uint8_t)id));
        assert_null(mcz_jit_ee_packet(VC, (uint8_t)id));
    }
    char name[32];
    assert_string_equal(mcz_packet_name(VC, 239, name, sizeof name), "unknown(239)");
}

static void test_tables_differ(void **state)
{
    (void)state;
    assert_string_equal(mcz_jit_ee_packet(VB, 48)->name, "GetCookieForPInvokeCalliSig");
    assert_null(mcz_jit_ee_packet(VC, 48));
    assert_int_equal(mcz_jit_ee_packet(VB, 69)->value_size, 10); /* LOOKUP_KIND */
    assert_int_equal(mcz_jit_ee_packet(VC, 69)->value_size, 8);
    assert_int_equal(mcz_jit_ee_packet(VB, 115)->value_size, 56); /* AllocMemDetails */
    assert_int_equal(mcz_jit_ee_packet(VC, 115)->value_size, 52);
    assert_ptr_equal(mcz_packet_lookup(115), mcz_jit_ee_packet(VC, 115));
    size_t nb, nc;
    mcz_jit_ee_write_order(VB, &nb);
    const uint8_t *order = mcz_jit_ee_write_order(VC, &nc);
    assert_int_equal(nc, nb - 1);
    for (size_t i = 0; i < nc; i++) {
        assert_non_null(mcz_jit_ee_packet(VC, order[i]));
        /* dense or sparse is a property of the id in every version (the builder relies on it) */
        assert_int_equal(mcz_jit_ee_packet(VC, order[i])->dense,
                         mcz_jit_ee_packet(VB, order[i])->dense);
    }
}

static void test_type_numbering(void **state)
{
    (void)state;
    for (uint32_t raw = 0; raw <= MCZ_TYPE_DOUBLE; raw++) {
        assert_int_equal(mcz_jit_ee_type(VB, raw), (int)raw);
        assert_int_equal(mcz_jit_ee_type(VC, raw), (int)raw);
    }
    assert_int_equal(mcz_jit_ee_type(VB, 0x10), MCZ_TYPE_STRING);
    assert_int_equal(mcz_jit_ee_type(VB, 0x14), MCZ_TYPE_CLASS);
    assert_int_equal(mcz_jit_ee_type(VB, 0x16), MCZ_TYPE_VAR);
    assert_int_equal(mcz_jit_ee_type(VB, 0x17), -1);
    assert_int_equal(mcz_jit_ee_type(VC, 0x10), MCZ_TYPE_PTR);
    assert_int_equal(mcz_jit_ee_type(VC, 0x11), MCZ_TYPE_BYREF);
    assert_int_equal(mcz_jit_ee_type(VC, 0x12), MCZ_TYPE_VALUECLASS);
    assert_int_equal(mcz_jit_ee_type(VC, 0x13), MCZ_TYPE_CLASS);
    assert_int_equal(mcz_jit_ee_type(VC, 0x14), -1);
    assert_int_equal(mcz_jit_ee_type(VC, 0x13 | MCZ_TYPE_PINNED), MCZ_TYPE_CLASS);
    assert_int_equal(mcz_jit_ee_type_raw(VC, MCZ_TYPE_STRING), -1);
    assert_int_equal(mcz_jit_ee_type_raw(VC, MCZ_TYPE_REFANY), -1);
    assert_int_equal(mcz_jit_ee_type_raw(VB, MCZ_TYPE_REFANY), 0x15);
}

/* ---- Detection ---- */

static mcz_mc_builder *b;
static uint8_t image[4096];
static size_t image_len;

/* One packet of one item: key bytes, value bytes. */
static void add_item(uint8_t id, uint32_t key_size, uint32_t value_size, uint32_t value_u32)
{
    uint8_t key[64] = {0}, value[64] = {0};
    mcz_put_le32(value, value_u32);
    assert_int_equal(mcz_mc_builder_begin(b, id, false, key_size, value_size), 0);
    assert_int_equal(mcz_mc_builder_add(b, key, value), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

/* An argument type (GetArgType) with this raw CorInfoType. */
static void add_arg_type(uint32_t raw)
{
    uint8_t key[MCZ_AT_KEY_SIZE] = {0}, value[MCZ_AT_VALUE_SIZE] = {0};
    mcz_put_le32(value + MCZ_AT_VALUE_RESULT, raw);
    assert_int_equal(mcz_mc_builder_begin(b, MCZ_PACKET_GET_ARG_TYPE, false, MCZ_AT_KEY_SIZE,
                                          MCZ_AT_VALUE_SIZE), 0);
    assert_int_equal(mcz_mc_builder_add(b, key, value), 0);
    assert_int_equal(mcz_mc_builder_end(b), 0);
}

/* Finishes the builder's context, appends it to image and returns its view there. */
static mcz_mc finish(void)
{
    const uint8_t *bytes;
    size_t size;
    assert_int_equal(mcz_mc_builder_finish(b, &bytes, &size), 0);
    assert_true(image_len + size <= sizeof image);
    memcpy(image + image_len, bytes, size);
    mcz_mc mc;
    assert_int_equal(mcz_mc_from_bytes(image + image_len, size, 1, image_len, &mc, NULL), 0);
    image_len += size;
    mcz_mc_builder_reset(b);
    return mc;
}

static int setup(void **state)
{
    (void)state;
    b = mcz_mc_builder_create();
    image_len = 0;
    return b ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    mcz_mc_builder_free(b);
    return 0;
}

#define BIT(v) (1u << mcz_jit_ee_index(v))

static void test_detect_each_version(void **state)
{
    (void)state;
    add_item(115, 4, 56, 0); /* CR_AllocMem, B's 56 bytes */
    mcz_mc mc = finish();
    assert_int_equal(mcz_jit_ee_fits(&mc), BIT(VB));
    assert_ptr_equal(mcz_jit_ee_detect(&mc), VB);
    add_item(115, 4, 52, 0);
    mc = finish();
    assert_ptr_equal(mcz_jit_ee_detect(&mc), VC);
    add_item(69, 8, 10, 0); /* GetLocationOfThisType */
    mc = finish();
    assert_ptr_equal(mcz_jit_ee_detect(&mc), VB);
    add_item(69, 8, 8, 0);
    mc = finish();
    assert_ptr_equal(mcz_jit_ee_detect(&mc), VC);
    add_item(48, 24, 16, 0); /* GetCookieForPInvokeCalliSig: retired after B */
    mc = finish();
    assert_ptr_equal(mcz_jit_ee_detect(&mc), VB);
    add_arg_type(0x14); /* CLASS in B, nothing in C */
    mc = finish();
    assert_ptr_equal(mcz_jit_ee_detect(&mc), VB);
    add_arg_type(0x14 | MCZ_TYPE_PINNED);
    mc = finish();
    assert_ptr_equal(mcz_jit_ee_detect(&mc), VB);
}

static void test_detect_undecided(void **state)
{
    (void)state;
    add_arg_type(0x13); /* VALUECLASS in B, CLASS in C: both read it */
    mcz_mc mc = finish();
    assert_int_equal(mcz_jit_ee_fits(&mc), mcz_jit_ee_fits_all());
    assert_null(mcz_jit_ee_detect(&mc));
    add_item(250, 8, 8, 0); /* an id no version knows says nothing */
    mc = finish();
    assert_null(mcz_jit_ee_detect(&mc));
    add_item(115, 4, 48, 0); /* sizes no version has: fits none */
    mc = finish();
    assert_int_equal(mcz_jit_ee_fits(&mc), 0);
    assert_null(mcz_jit_ee_detect(&mc));
    uint32_t fits = 0;
    assert_null(mcz_jit_ee_detect_mch(image, image_len, &fits));
    assert_int_equal(fits, mcz_jit_ee_fits_all()); /* the misfit is skipped, not a vote */
}

static void test_detect_collection(void **state)
{
    (void)state;
    add_arg_type(0x13);
    finish();
    add_item(115, 4, 52, 0);
    finish();
    uint32_t fits = 0;
    assert_ptr_equal(mcz_jit_ee_detect_mch(image, image_len, &fits), VC);
    assert_int_equal(fits, BIT(VC));
    add_item(115, 4, 56, 0); /* then a context only B reads: the collection contradicts itself */
    finish();
    assert_null(mcz_jit_ee_detect_mch(image, image_len, &fits));
    assert_int_equal(fits, 0);
    assert_null(mcz_jit_ee_detect_mch(image, 3, NULL)); /* damage stops the vote quietly */
    assert_null(mcz_jit_ee_detect_mch(NULL, 0, NULL));
}

/* A known packet whose sizes are another version's is MCZ_EVERSION for that version only. */
static void test_check_table_per_version(void **state)
{
    (void)state;
    add_item(115, 4, 56, 0);
    mcz_mc mc = finish();
    mcz_diag d;
    assert_int_equal(mcz_mc_check_table(VB, &mc, &d), MCZ_OK);
    assert_int_equal(mcz_mc_check_table(VC, &mc, &d), MCZ_EVERSION);
    assert_non_null(strstr(d.message, "CR_AllocMem"));
    assert_non_null(strstr(d.message, "version C"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_open_point_C_guid_and_new_map_ids_unknown),
        cmocka_unit_test(test_tables_differ),
        cmocka_unit_test(test_type_numbering),
        cmocka_unit_test_setup_teardown(test_detect_each_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_detect_undecided, setup, teardown),
        cmocka_unit_test_setup_teardown(test_detect_collection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_table_per_version, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
