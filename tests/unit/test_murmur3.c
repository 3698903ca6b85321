/*
 * test_murmur3.c - superpmi/hash.c's own MurmurHash3 x64 128 (the one the Windows build uses,
 * without libmurmurhash) against mcz_murmur3_128: on Linux that is libmurmurhash, the reference,
 * and the two must agree on every input; on Windows it is the own one, and the digest of all
 * the hashes must be the one libmurmurhash gave on Linux.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../common/mcz_common.h"

/* superpmi/hash.c, internal. */
void mcz_murmur3_128_own(const void *data, size_t len, uint64_t h[2]);

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

/* Hashes one input both ways, asserts them equal, and appends the library's hash to the
 * running digest input. */
static void check_one(const uint8_t *data, size_t len, uint8_t *all, size_t *used)
{
    mcz_hash128 lib;
    mcz_murmur3_128(data, len, &lib);
    uint64_t own[2];
    mcz_murmur3_128_own(data, len, own);
    assert_int_equal(mcz_get_le64(lib.bytes), own[0]);
    assert_int_equal(mcz_get_le64(lib.bytes + 8), own[1]);
    memcpy(all + *used, lib.bytes, sizeof lib.bytes);
    *used += sizeof lib.bytes;
}

static void test_own_equals_library(void **state)
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
    uint64_t h[2];
    mcz_murmur3_128_own("", 0, h);
    assert_int_equal(h[0], 0);
    assert_int_equal(h[1], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_equals_library),
        cmocka_unit_test(test_empty_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
