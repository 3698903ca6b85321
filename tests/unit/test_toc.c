/*
 * test_toc.c - the .mct table of contents (superpmi/SUPERPMI.md "The TOC (.mct)"): exact layout,
 * round trips, every truncation, flipped tags, lying counts, unterminated hashes, the
 * number-order check, and SuperPMI's paired-file lookup (a TOC beside its .mch, an .mch beside
 * an .mct named as input, an .exc).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../common/mcz_common.h"
#include "../../platform/platform.h"

static const mcz_toc_entry sample[] = {
    {0, 1, "0F60B52288C2088CC03239DB7A1C15CE"},
    {318, 2, "42FE75388DBE335244840743F9DCD896"},
    {0x123456789AB, 7, ""}, /* a context without an identity */
};
#define SAMPLE_COUNT 3u
#define SAMPLE_SIZE (8 + 48 * SAMPLE_COUNT + 4)

/* An encoded copy in a buffer of exactly its size, so a read past the end is caught. */
static uint8_t *sample_image(size_t *len)
{
    uint8_t *out;
    assert_int_equal(mcz_toc_encode(sample, SAMPLE_COUNT, &out, len), 0);
    assert_int_equal(*len, SAMPLE_SIZE);
    return out;
}

/* The streamed parts, concatenated, are the whole image. */
static void test_parts_are_the_image(void **state)
{
    (void)state;
    size_t len;
    uint8_t *image = sample_image(&len);
    uint8_t parts[SAMPLE_SIZE];
    memset(parts, 0xAA, sizeof parts); /* the padding must be written, not left */
    mcz_toc_header_encode(SAMPLE_COUNT, parts);
    for (uint32_t i = 0; i < SAMPLE_COUNT; i++)
        mcz_toc_element_encode(&sample[i], parts + MCZ_TOC_HEADER_SIZE + 48 * i);
    mcz_toc_trailer_encode(parts + SAMPLE_SIZE - MCZ_TOC_TRAILER_SIZE);
    assert_memory_equal(parts, image, SAMPLE_SIZE);
    free(image);
}

static void assert_entries(const mcz_toc_entry *got, const mcz_toc_entry *want, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(got[i].offset, want[i].offset);
        assert_int_equal(got[i].number, want[i].number);
        assert_memory_equal(got[i].hash, want[i].hash, sizeof got[i].hash);
    }
}

static int parse_copy(const uint8_t *image, size_t len, bool validate, uint32_t *count,
                      mcz_diag *d)
{
    uint8_t *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, image, len);
    mcz_toc_entry *e = NULL;
    int rc = mcz_toc_parse(copy, len, validate, &e, count, d);
    if (rc != 0)
        assert_null(e);
    free(e);
    free(copy);
    return rc;
}

static void test_layout(void **state)
{
    (void)state;
    size_t len;
    uint8_t *img = sample_image(&len);
    assert_memory_equal(img, "INDX", 4);
    assert_int_equal(mcz_get_le32(img + 4), 3);
    const uint8_t *el = img + 8 + 48; /* the second element */
    assert_int_equal(mcz_get_le64(el), 318);
    assert_int_equal(mcz_get_le32(el + 8), 2);
    assert_memory_equal(el + 12, "42FE75388DBE335244840743F9DCD896", 33); /* with its NUL */
    static const uint8_t pad[3] = {0};
    assert_memory_equal(el + 45, pad, 3);
    assert_int_equal(mcz_get_le64(img + 8 + 96), 0x123456789ABull);
    assert_memory_equal(img + len - 4, "INDX", 4);
    free(img);
}

static void test_round_trip(void **state)
{
    (void)state;
    size_t len, len2;
    uint8_t *img = sample_image(&len), *again;
    mcz_toc_entry *e;
    uint32_t n;
    assert_int_equal(mcz_toc_parse(img, len, true, &e, &n, NULL), 0);
    assert_int_equal(n, SAMPLE_COUNT);
    assert_entries(e, sample, SAMPLE_COUNT);
    assert_int_equal(mcz_toc_encode(e, n, &again, &len2), 0);
    assert_int_equal(len2, len);
    assert_memory_equal(again, img, len);
    free(again);
    free(e);
    free(img);
    /* an empty table */
    assert_int_equal(mcz_toc_encode(NULL, 0, &img, &len), 0);
    assert_int_equal(len, 12);
    assert_memory_equal(img, "INDX\0\0\0\0INDX", 12);
    e = (mcz_toc_entry *)1;
    assert_int_equal(mcz_toc_parse(img, len, true, &e, &n, NULL), 0);
    assert_int_equal(n, 0);
    assert_null(e);
    free(img);
}

/* SuperPMI leaves the pad bytes uninitialised and may leave bytes after a hash's NUL. */
static void test_foreign_bytes_ignored(void **state)
{
    (void)state;
    size_t len;
    uint8_t *img = sample_image(&len);
    memset(img + 8 + 45, 0xCD, 3);
    memcpy(img + 8 + 48 * 2 + 12, "AB\0garbage", 10);
    mcz_toc_entry *e;
    uint32_t n;
    assert_int_equal(mcz_toc_parse(img, len, true, &e, &n, NULL), 0);
    assert_entries(e, sample, 2);
    static const char want[33] = "AB";
    assert_memory_equal(e[2].hash, want, sizeof want);
    free(e);
    free(img);
}

static void test_every_truncation(void **state)
{
    (void)state;
    size_t len;
    uint8_t *img = sample_image(&len);
    for (size_t cut = 0; cut < len; cut++) {
        mcz_diag d;
        uint32_t n = 99;
        int rc = parse_copy(img, cut, false, &n, &d);
        assert_true(rc == MCZ_ETRUNCATED || rc == MCZ_ECORRUPT);
        assert_int_equal(n, 0);
        assert_int_equal(d.code, rc);
    }
    /* one byte too many */
    uint8_t *longer = calloc(1, len + 1);
    memcpy(longer, img, len);
    mcz_diag d;
    uint32_t n;
    assert_int_equal(parse_copy(longer, len + 1, false, &n, &d), MCZ_ECORRUPT);
    assert_non_null(strstr(d.message, "after the TOC's closing INDX"));
    free(longer);
    free(img);
}

static void test_flipped_tags(void **state)
{
    (void)state;
    size_t len;
    uint8_t *img = sample_image(&len);
    size_t at[8] = {0, 1, 2, 3, len - 4, len - 3, len - 2, len - 1};
    for (int i = 0; i < 8; i++) {
        img[at[i]] ^= 0x20;
        uint32_t n;
        mcz_diag d;
        assert_int_equal(parse_copy(img, len, false, &n, &d), MCZ_ECORRUPT);
        assert_int_equal(d.offset, at[i] < 4 ? 0 : (int64_t)len - 4);
        img[at[i]] ^= 0x20;
    }
    free(img);
}

static void test_lying_counts(void **state)
{
    (void)state;
    size_t len;
    uint8_t *img = sample_image(&len);
    static const uint32_t counts[] = {2, 4, 0x05555555, 0x7FFFFFFF, 0xFFFFFFFF};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        mcz_put_le32(img + 4, counts[i]);
        uint32_t n;
        mcz_diag d;
        int rc = parse_copy(img, len, false, &n, &d);
        assert_true(rc == MCZ_ETRUNCATED || rc == MCZ_ECORRUPT);
    }
    free(img);
}

static void test_unterminated_hash(void **state)
{
    (void)state;
    size_t len;
    uint8_t *img = sample_image(&len);
    memset(img + 8 + 48 + 12, 'F', 33);
    uint32_t n;
    mcz_diag d;
    assert_int_equal(parse_copy(img, len, false, &n, &d), MCZ_ECORRUPT);
    assert_int_equal(d.offset, 8 + 48 + 12);
    assert_non_null(strstr(d.message, "not NUL-terminated"));
    free(img);
}

static void test_number_order(void **state)
{
    (void)state;
    mcz_toc_entry e[3];
    memcpy(e, sample, sizeof e);
    static const int32_t bad[][3] = {{1, 1, 2}, {2, 1, 3}, {1, 5, 4}};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            e[j].number = bad[i][j];
        uint8_t *img;
        size_t len;
        uint32_t n;
        mcz_diag d;
        assert_int_equal(mcz_toc_encode(e, 3, &img, &len), 0);
        assert_int_equal(parse_copy(img, len, true, &n, &d), MCZ_ECORRUPT);
        assert_non_null(strstr(d.message, "not increasing"));
        assert_int_equal(parse_copy(img, len, false, &n, NULL), 0); /* -dumpToc reads it */
        assert_int_equal(n, 3);
        free(img);
    }
}

/* mcz_toc_check: only a table SuperPMI could have written for a file of that size passes. */
static void test_check_shape(void **state)
{
    (void)state;
    const mcz_toc_entry good[] = {{0, 1, ""}, {100, 2, ""}, {108, 3, ""}};
    mcz_diag d;
    assert_int_equal(mcz_toc_check(good, 3, 200, &d), MCZ_OK);
    assert_int_equal(mcz_toc_check(NULL, 0, 0, &d), MCZ_OK);
    assert_int_equal(mcz_toc_check(NULL, 0, 10, &d), MCZ_ECORRUPT);
    assert_int_equal(mcz_toc_check(good, 3, 115, &d), MCZ_ECORRUPT); /* 108 + 8 > 115 */
    assert_non_null(strstr(d.message, "outside the file"));
    mcz_toc_entry e[3];
    memcpy(e, good, sizeof e);
    e[0].offset = 100;
    e[1].offset = 0; /* two entries swapped, numbers kept */
    assert_int_equal(mcz_toc_check(e, 3, 200, &d), MCZ_ECORRUPT);
    assert_non_null(strstr(d.message, "not at 0"));
    memcpy(e, good, sizeof e);
    e[2].offset = 104; /* closer than a context's 8-byte frame */
    assert_int_equal(mcz_toc_check(e, 3, 200, &d), MCZ_ECORRUPT);
    assert_non_null(strstr(d.message, "not past context 2"));
    memcpy(e, good, sizeof e);
    e[2].number = 4;
    assert_int_equal(mcz_toc_check(e, 3, 200, &d), MCZ_ECORRUPT);
    e[2].number = 3;
    e[1].offset = INT64_MIN;
    assert_int_equal(mcz_toc_check(e, 3, 200, &d), MCZ_ECORRUPT);
    assert_int_equal(mcz_toc_check(NULL, 2, 200, &d), MCZ_EINVAL);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    mcz_toc_entry *e;
    uint32_t n;
    uint8_t *out;
    size_t len;
    assert_int_equal(mcz_toc_parse(NULL, 4, true, &e, &n, NULL), MCZ_EINVAL);
    assert_int_equal(mcz_toc_parse((const uint8_t *)"x", 1, true, NULL, &n, NULL), MCZ_EINVAL);
    assert_int_equal(mcz_toc_encode(NULL, 1, &out, &len), MCZ_EINVAL);
    assert_int_equal(mcz_toc_encode(sample, 1, NULL, &len), MCZ_EINVAL);
}

static void touch(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

/* path in dir, for the lookups below */
static const char *in_dir(char *buf, const char *dir, const char *name)
{
    snprintf(buf, 512, "%s/%s", dir, name);
    return buf;
}

/* SuperPMI's CheckForPairedFile rule, case by case. */
static void test_find(void **state)
{
    (void)state;
    char dir[] = "/tmp/mcz_test_toc_XXXXXX";
    assert_non_null(mcz_os_mkdtemp(dir));
    char mch[512], buf[512], want[512];
    in_dir(mch, dir, "a.mch");
    touch(dir, "a.mct");
    assert_int_equal(mcz_toc_find(mch, buf, sizeof buf), 0); /* the .mch itself must exist */
    assert_string_equal(buf, "");
    touch(dir, "a.mch");
    assert_int_equal(mcz_toc_find(mch, buf, sizeof buf), 1);
    assert_string_equal(buf, in_dir(want, dir, "a.mct"));
    touch(dir, "a.mch.mct"); /* preferred */
    assert_int_equal(mcz_toc_find(mch, buf, sizeof buf), 1);
    assert_string_equal(buf, in_dir(want, dir, "a.mch.mct"));
    assert_int_equal(mcz_toc_find(mch, buf, strlen(want)), MCZ_ELIMIT); /* no room for NUL */
    /* the .mch extension in any case (the added .mct is lower case); a directory is no TOC */
    in_dir(mch, dir, "B.MCH");
    touch(dir, "B.MCH");
    assert_int_equal(mcz_os_mkdir_private(in_dir(want, dir, "B.MCH.mct")), 0);
    assert_int_equal(mcz_toc_find(mch, buf, sizeof buf), 0);
    touch(dir, "B.MCT");
    assert_int_equal(mcz_toc_find(mch, buf, sizeof buf), 0); /* not B.MCT */
    touch(dir, "B.mct");
    assert_int_equal(mcz_toc_find(mch, buf, sizeof buf), 1);
    assert_string_equal(buf, in_dir(want, dir, "B.mct"));
    /* a file not named *.mch has no TOC, though X.mct and X.suffix.mct lie beside it */
    static const char *const unpaired[] = {"c.bin", "c", "c.mc", "c.mchx"};
    for (size_t i = 0; i < sizeof unpaired / sizeof *unpaired; i++) {
        char name[64];
        touch(dir, unpaired[i]);
        snprintf(name, sizeof name, "%s.mct", unpaired[i]);
        touch(dir, name);
        touch(dir, "c.mct");
        assert_int_equal(mcz_toc_find(in_dir(mch, dir, unpaired[i]), buf, sizeof buf), 0);
    }
    /* a directory is no .mch; a name whose only '.' starts it pairs with nothing */
    assert_int_equal(mcz_os_mkdir_private(in_dir(mch, dir, "d.mch")), 0);
    touch(dir, "d.mch.mct");
    assert_int_equal(mcz_toc_find(mch, buf, sizeof buf), 0);
    assert_int_equal(mcz_paired_find(".mch", ".mch", ".mct", buf, sizeof buf), 0);
    /* the other way: an .mct named as input finds its .mch (X.mct.mch, then X.mch) */
    assert_int_equal(mcz_paired_find(in_dir(mch, dir, "a.mct"), ".mct", ".mch", buf, sizeof buf),
                     1);
    assert_string_equal(buf, in_dir(want, dir, "a.mch"));
    touch(dir, "a.mct.mch");
    assert_int_equal(mcz_paired_find(mch, ".mct", ".mch", buf, sizeof buf), 1);
    assert_string_equal(buf, in_dir(want, dir, "a.mct.mch"));
    /* any suffix (the .exc lookup): X.suffix.exc, then X.exc */
    touch(dir, "e.bin");
    touch(dir, "e.exc");
    assert_int_equal(mcz_paired_find(in_dir(mch, dir, "e.bin"), NULL, ".exc", buf, sizeof buf), 1);
    assert_string_equal(buf, in_dir(want, dir, "e.exc"));
    assert_int_equal(mcz_toc_find(NULL, buf, sizeof buf), MCZ_EINVAL);
    assert_int_equal(mcz_paired_find(mch, ".mct", NULL, buf, sizeof buf), MCZ_EINVAL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_parts_are_the_image),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_foreign_bytes_ignored),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_flipped_tags),
        cmocka_unit_test(test_lying_counts),
        cmocka_unit_test(test_unterminated_hash),
        cmocka_unit_test(test_number_order),
        cmocka_unit_test(test_check_shape),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
