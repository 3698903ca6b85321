/*
 * test_murmur3.c - superpmi/hash.c's MurmurHash3 x64 128 (mcz_murmur3_128, no library) held
 * to the reference: the digest of its hashes of every length of the first blocks and their
 * tails, at every alignment, must be the one the reference (Debian's libmurmurhash) gave, and
 * single inputs give the reference's hashes (the fox is the published test vector).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../common/mcz_common.h"

/* Every length of the first blocks and their tails, at each alignment, then longer inputs. */
#define MAX_SHORT 300u
#define ALIGNMENTS 8u
static const size_t long_lengths[] = {1024, 4095, 4096, 65537, 1u << 20};
#define BUFFER_SIZE ((1u << 20) + ALIGNMENTS)

/* The digest libmurmurhash gives over the inputs below, as 32 hex digits of mcz_hash_hex:
 * computed on Linux by the reference, so that the Windows build is held to it too. */
static const char expected_digest[] = "124A003DBF6BE2DCFDCFC6A948A26704";

static uint8_t *random_bytes(void)
{
    uint8_t *buf = test_malloc(BUFFER_SIZE);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < BUFFER_SIZE; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (uint8_t)(x >> 24);
    }
    return buf;
}

/* Appends the hash of one input to the running digest input. */
static void check_one(const uint8_t *data, size_t len, uint8_t *all, size_t *used)
{
    mcz_hash128 h;
    mcz_murmur3_128(data, len, &h);
    memcpy(all + *used, h.bytes, sizeof h.bytes);
    *used += sizeof h.bytes;
}

static void test_digest_of_reference(void **state)
{
    (void)state;
    uint8_t *buf = random_bytes();
    size_t count = (MAX_SHORT + 1) * ALIGNMENTS + sizeof long_lengths / sizeof long_lengths[0];
    uint8_t *all = test_malloc(count * 16);
    size_t used = 0;
    for (size_t align = 0; align < ALIGNMENTS; align++)
        for (size_t len = 0; len <= MAX_SHORT; len++)
            check_one(buf + align, len, all, &used);
    for (size_t i = 0; i < sizeof long_lengths / sizeof long_lengths[0]; i++)
        check_one(buf + 1, long_lengths[i], all, &used);
    assert_int_equal(used, count * 16);

    mcz_hash128 digest;
    mcz_murmur3_128(all, used, &digest);
    char hex[33];
    mcz_hash_hex(&digest, hex);
    assert_string_equal(hex, expected_digest);
    test_free(all);
    test_free(buf);
}

/* The hash of nothing is zero (the finalisation of zero state and zero length). */
static void test_empty_input(void **state)
{
    (void)state;
    mcz_hash128 h;
    mcz_murmur3_128("", 0, &h);
    assert_true(mcz_hash_is_zero(&h));
}

/* The reference's h1 and h2 for single inputs: a tail alone, a block alone, a block and a
 * one-byte tail. */
static const struct {
    const char *text;
    uint64_t h1, h2;
} vectors[] = {
    {"a", 0x85555565f6597889ull, 0xe6b53a48510e895aull},
    {"hello", 0xcbd8a7b341bd9b02ull, 0x5b1e906a48ae1d19ull},
    {"The quick brown fox jumps over the lazy dog", 0xe34bbc7bbc071b6cull, 0x7a433ca9c49a9347ull},
    {"0123456789abcdef", 0x4be06d94cf4ad1a7ull, 0x87c35b5c63a708daull},
    {"0123456789abcdefX", 0xcdebd2acb570d6f7ull, 0x8f72119782104b27ull},
};

static void test_reference_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        mcz_hash128 h;
        mcz_murmur3_128(vectors[i].text, strlen(vectors[i].text), &h);
        assert_int_equal(mcz_get_le64(h.bytes), vectors[i].h1);
        assert_int_equal(mcz_get_le64(h.bytes + 8), vectors[i].h2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digest_of_reference),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_reference_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
