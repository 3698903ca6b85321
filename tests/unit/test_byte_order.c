/*
 * test_byte_order.c - the archive's bytes do not depend on the machine that writes them: the
 * frames' encoders give the byte tables of FORMAT.md (every integer little-endian) on any host,
 * and the hashes the format stores are of bytes, not of the host's integers. Each expected byte
 * string is written out from FORMAT.md, not taken from the code; the values have a different
 * byte in every position, so a field stored in the host's order (or at the wrong width) shows
 * on a big-endian machine (make test-s390x runs this file under qemu-user).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "../../format/archive.h"

static void test_le_helpers(void **state)
{
    (void)state;
    uint8_t b[8];
    mcz_put_le16(b, 0x0102);
    assert_memory_equal(b, "\x02\x01", 2);
    mcz_put_le32(b, 0x01020304u);
    assert_memory_equal(b, "\x04\x03\x02\x01", 4);
    mcz_put_le64(b, 0x0102030405060708u);
    assert_memory_equal(b, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
    static const uint8_t in[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    assert_int_equal(mcz_get_le16(in), 0x2211);
    assert_int_equal(mcz_get_le32(in), 0x44332211u);
    assert_true(mcz_get_le64(in) == 0x8877665544332211u);
}

/* XXH3-64 of the empty input, seed 0 (xxHash's published value), and of bytes whose host-order
 * reading would differ: what the header, chunk and footer checksums are. */
static void test_xxh3_of_bytes(void **state)
{
    (void)state;
    assert_true(mcz_arc_xxh3("", 0) == 0x2D06800538D394C2u);
    uint64_t a = mcz_arc_xxh3("\x01\x02\x03\x04", 4), b = mcz_arc_xxh3("\x04\x03\x02\x01", 4);
    assert_true(a != b);
}

/* SuperPMI's MurmurHash3 x64 128 (seed 0) of a published test string, stored h1 then h2, each
 * little-endian: the identity hash of the .mct and of the index. */
static void test_murmur3_bytes(void **state)
{
    (void)state;
    static const char fox[] = "The quick brown fox jumps over the lazy dog";
    mcz_hash128 h;
    mcz_murmur3_128(fox, strlen(fox), &h);
    static const uint8_t want[16] = {0x6c, 0x1b, 0x07, 0xbc, 0x7b, 0xbc, 0x4b, 0xe3,
                                     0x47, 0x93, 0x9a, 0xc4, 0xa9, 0x3c, 0x43, 0x7a};
    assert_memory_equal(h.bytes, want, 16);
}

/* The checksum field: the low bytes of XXH3-64 of everything before it, little-endian. */
static void assert_checksum_at(const uint8_t *frame, size_t at, size_t width)
{
    uint64_t x = mcz_arc_xxh3(frame, at);
    for (size_t i = 0; i < width; i++)
        assert_int_equal(frame[at + i], (uint8_t)(x >> (8 * i)));
}

static void test_header_bytes(void **state)
{
    (void)state;
    const mcz_arc_header h = {.version = 4, .flags = 0x05, .level = -7, .chunk_size = 0x00100000u,
                              .dict_id = 0xA1B2C3D4u, .jit_ee = 3};
    uint8_t out[MCZ_ARC_HEADER_SIZE];
    mcz_arc_header_encode(&h, out);
    static const uint8_t want[36] = {
        0x5C, 0x2A, 0x4D, 0x18, 36,   0,    0,    0,    'M',  'C',  'Z',  'H',
        4,    0,    0,    0,    0x05, 0,    0,    0,    0xF9, 0xFF, 0xFF, 0xFF,
        0x00, 0x00, 0x10, 0x00, 0xD4, 0xC3, 0xB2, 0xA1, 3,    0,    0,    0};
    assert_memory_equal(out, want, sizeof want);
    assert_checksum_at(out, 36, 8);

    mcz_arc_header back;
    mcz_diag d;
    mcz_diag_clear(&d);
    assert_int_equal(mcz_arc_header_decode(out, sizeof out, &back, &d), MCZ_OK);
    assert_int_equal(back.level, -7);
    assert_int_equal(back.chunk_size, h.chunk_size);
    assert_int_equal(back.dict_id, h.dict_id);
    assert_int_equal(back.flags, h.flags);
}

static void test_chunk_head_bytes(void **state)
{
    (void)state;
    const uint32_t lengths[2] = {0x01020304u, 0x0A0B0C0Du};
    const mcz_arc_chunk_head h = {.first_number = 0x11223344u, .count = 2,
                                  .raw_size = 0x0A0B0C0Du + 0x01020304u, .data_size = 0x55667788u,
                                  .checksum = 0x0102030405060708u, .codec = MCZ_CODEC_ZSTD};
    uint8_t out[MCZ_ARC_CHUNK_HEAD + 8];
    assert_int_equal(mcz_arc_chunk_head_size(2), sizeof out);
    mcz_arc_chunk_head_encode(&h, lengths, out);
    static const uint8_t want[44] = {
        0x5C, 0x2A, 0x4D, 0x18, 40,   0,    0,    0,    'M',  'C',  'Z',  'C',
        0x44, 0x33, 0x22, 0x11, 2,    0,    0,    0,    0x11, 0x0F, 0x0D, 0x0B,
        0x88, 0x77, 0x66, 0x55, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
        0x04, 0x03, 0x02, 0x01, 0x0D, 0x0C, 0x0B, 0x0A};
    assert_memory_equal(out, want, sizeof want);
    assert_checksum_at(out, 44, 4);
}

static void test_footer_bytes(void **state)
{
    (void)state;
    const mcz_arc_footer f = {.version = 4, .index_offset = 0x0000000102030405u,
                              .index_size = 0x00000000A0B0C0D0u,
                              .index_checksum = 0xF1E2D3C4B5A69788u, .chunk_count = 0x1234,
                              .context_count = 0x00ABCDEFu};
    uint8_t out[MCZ_ARC_FOOTER_SIZE];
    mcz_arc_footer_encode(&f, out);
    static const uint8_t want[48] = {
        0x5C, 0x2A, 0x4D, 0x18, 48,   0,    0,    0,    'M',  'C',  'Z',  'F',
        4,    0,    0,    0,    0x05, 0x04, 0x03, 0x02, 0x01, 0x00, 0x00, 0x00,
        0xD0, 0xC0, 0xB0, 0xA0, 0x00, 0x00, 0x00, 0x00, 0x88, 0x97, 0xA6, 0xB5,
        0xC4, 0xD3, 0xE2, 0xF1, 0x34, 0x12, 0,    0,    0xEF, 0xCD, 0xAB, 0x00};
    assert_memory_equal(out, want, sizeof want);
    assert_checksum_at(out, 48, 4);
    assert_memory_equal(out + 52, "MCZ~", 4);

}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_le_helpers),     cmocka_unit_test(test_xxh3_of_bytes),
        cmocka_unit_test(test_murmur3_bytes),  cmocka_unit_test(test_header_bytes),
        cmocka_unit_test(test_chunk_head_bytes), cmocka_unit_test(test_footer_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
