/*
 * test_meta.c - the collection metadata (FORMAT.md §2a): the GUID and target texts and their
 * canonical forms, the frame's round trip, the writer recording it (and nothing when given
 * nothing) in every mode, the reader giving it back, every bit flipped in the frame, frames
 * forged behind a valid checksum, a cut frame, and recovery carrying it (from an archive and
 * from a memory image).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "../../format/archive.h"
#include "../../reader/reader_impl.h"
#include "archive_testlib.h"
#include "../../platform/platform.h"

#define GUID_UPPER "28808A0E-5DC5-48BD-A7EB-27DEF284EFF0"
#define GUID_LOWER "28808a0e-5dc5-48bd-a7eb-27def284eff0"

static char dir[64];
static char path[128], plain_path[128], out_path[128];
static tl_corpus corpus;

static mcz_writer_options options(void)
{
    mcz_writer_options o = tl_small_options(4096);
    o.no_dict = true;
    return o;
}

static int setup(void **state)
{
    (void)state;
    tl_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/a.mcz", dir);
    snprintf(plain_path, sizeof plain_path, "%s/plain.mcz", dir);
    snprintf(out_path, sizeof out_path, "%s/out.mcz", dir);
    tl_corpus_make(&corpus, 40, 0);
    mcz_writer_options o = options();
    o.jit_ee_guid = GUID_UPPER;
    o.target_os = "Linux";
    o.target_arch = "x64";
    if (tl_write(path, &corpus, &o) != MCZ_OK)
        return -1;
    o = options();
    return tl_write(plain_path, &corpus, &o) == MCZ_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tl_corpus_free(&corpus);
    tl_rmdir(dir);
    return 0;
}

static void test_guid_text(void **state)
{
    (void)state;
    char out[MCZ_GUID_TEXT_SIZE];
    assert_int_equal(mcz_guid_canonical(GUID_UPPER, out), MCZ_OK);
    assert_string_equal(out, GUID_LOWER);
    assert_int_equal(mcz_guid_canonical(GUID_LOWER, out), MCZ_OK);
    assert_string_equal(out, GUID_LOWER);
    static const char *const bad[] = {
        "", "28808a0e", GUID_LOWER "0", "{" GUID_LOWER "}", "28808a0e-5dc5-48bd-a7eb-27def284eff",
        "28808a0e5dc5-48bd-a7eb-27def284eff0a", "28808a0e-5dc5-48bd-a7eb-27def284effg",
        "28808a0e 5dc5-48bd-a7eb-27def284eff0", "28808a0e-5dc5-48bd-a7eb-27def284eff0\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(mcz_guid_canonical(bad[i], out), MCZ_EINVAL);
        assert_string_equal(out, "");
    }
    assert_int_equal(mcz_guid_canonical(NULL, out), MCZ_EINVAL);
}

static void test_target_text(void **state)
{
    (void)state;
    char out[MCZ_TARGET_TEXT_SIZE];
    assert_int_equal(mcz_target_canonical("LoongArch64", out), MCZ_OK);
    assert_string_equal(out, "loongarch64");
    assert_int_equal(mcz_target_canonical("a_b_c_d_e_f_g_h1", out), MCZ_OK); /* 16 */
    static const char *const bad[] = {"", "x64 ", "linux/x64", "a_b_c_d_e_f_g_h12", "é"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(mcz_target_canonical(bad[i], out), MCZ_EINVAL);
}

static void test_frame_round_trip(void **state)
{
    (void)state;
    mcz_arc_meta m, back;
    uint8_t frame[MCZ_ARC_META_SIZE];
    uint64_t size;
    assert_int_equal(mcz_arc_meta_from_text(NULL, "osx", NULL, &m, NULL), MCZ_OK);
    assert_false(mcz_arc_meta_empty(&m));
    mcz_arc_meta_encode(&m, frame);
    assert_int_equal(mcz_arc_meta_decode(frame, sizeof frame, 0, UINT64_MAX, &back, &size, NULL), MCZ_OK);
    assert_int_equal(size, MCZ_ARC_META_SIZE);
    assert_string_equal(back.guid, "");
    assert_string_equal(back.os, "osx");
    assert_string_equal(back.arch, "");
    assert_int_equal(mcz_arc_meta_from_text(NULL, NULL, NULL, &m, NULL), MCZ_OK);
    assert_true(mcz_arc_meta_empty(&m));
    mcz_diag d;
    assert_int_equal(mcz_arc_meta_from_text("x", NULL, NULL, &m, &d), MCZ_EINVAL);
    assert_non_null(strstr(d.message, "JIT-EE GUID 'x'"));
}

static void test_writer_records_and_reader_reads(void **state)
{
    (void)state;
    mcz_reader *r = mcz_reader_open(path, NULL);
    assert_non_null(r);
    assert_string_equal(mcz_reader_jit_ee_guid(r), GUID_LOWER);
    const char *os, *arch;
    mcz_reader_target(r, &os, &arch);
    assert_string_equal(os, "linux");
    assert_string_equal(arch, "x64");
    assert_int_equal(mcz_reader_verify(r, NULL, NULL, NULL), MCZ_OK);
    mcz_reader_close(r);

    /* Given nothing, no frame: the chunks are the other archive's, byte for byte, behind the
     * header alone. (The compressed index holds the chunks' places, 92 bytes apart between the
     * two, so its size may differ by a byte or two, and so may the files': seen on s390x.) */
    size_t with = 0, without = 0;
    uint8_t *a = tl_read(path, &with), *b = tl_read(plain_path, &without);
    assert_true(with > without);
    assert_non_null(mcz_os_memmem(a + MCZ_ARC_HEADER_SIZE, MCZ_ARC_META_SIZE, "MCZM", 4)); /* the frame */
    assert_memory_equal(a + MCZ_ARC_HEADER_SIZE + MCZ_ARC_META_SIZE, b + MCZ_ARC_HEADER_SIZE,
                        mcz_get_le64(b + without - 40) - MCZ_ARC_HEADER_SIZE); /* the chunks */
    assert_null(mcz_os_memmem(b, without, "MCZM", 4));
    r = mcz_reader_open(plain_path, NULL);
    assert_null(mcz_reader_jit_ee_guid(r));
    mcz_reader_target(r, &os, &arch);
    assert_null(os);
    assert_null(arch);
    mcz_reader_close(r);
    free(a);
    free(b);
}

static void test_writer_refuses_bad_texts(void **state)
{
    (void)state;
    mcz_writer_options o = options();
    o.jit_ee_guid = "28808a0e-5dc5-48bd-a7eb";
    mcz_diag d;
    assert_null(mcz_writer_open(out_path, &o, &d));
    assert_int_equal(d.code, MCZ_EINVAL);
    assert_non_null(strstr(d.message, "JIT-EE GUID"));
    o = options();
    o.target_arch = "arm 64";
    assert_null(mcz_writer_open(out_path, &o, &d));
    assert_non_null(strstr(d.message, "target architecture"));
    assert_int_equal(access(out_path, F_OK), -1);
}

/* The archive at path, its frame at MCZ_ARC_HEADER_SIZE (no dictionary). */
static uint8_t *archive(size_t *size)
{
    uint8_t *p = tl_read(path, size);
    assert_non_null(p);
    assert_memory_equal(p + MCZ_ARC_HEADER_SIZE + 8, "MCZM", 4);
    return p;
}

static int open_code(const uint8_t *image, size_t size, mcz_diag *d)
{
    uint8_t *p = tl_copy_of(image, size);
    mcz_diag_clear(d);
    mcz_reader *r = mcz_reader_open_image(p, size, d);
    int rc = r ? MCZ_OK : d->code;
    mcz_reader_close(r);
    free(p);
    return rc;
}

static void test_every_bit_flipped(void **state)
{
    (void)state;
    size_t size;
    uint8_t *p = archive(&size);
    for (size_t at = MCZ_ARC_HEADER_SIZE; at < MCZ_ARC_HEADER_SIZE + MCZ_ARC_META_SIZE; at++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            p[at] ^= (uint8_t)(1u << bit);
            mcz_diag d;
            int rc = open_code(p, size, &d);
            if (rc == MCZ_OK)
                fail_msg("a flip of bit %u at %zu passed", bit, at);
            assert_true(d.offset >= MCZ_ARC_HEADER_SIZE);
            p[at] ^= (uint8_t)(1u << bit);
        }
    }
    free(p);
}

/* Rewrites len bytes at frame offset at, then the frame's checksum: a forgery. */
static void forge(uint8_t *p, size_t at, const void *bytes, size_t len)
{
    uint8_t *frame = p + MCZ_ARC_HEADER_SIZE;
    memcpy(frame + at, bytes, len);
    mcz_put_le64(frame + 84, mcz_arc_xxh3(frame, 84));
}

static void expect_forged(const uint8_t *p, size_t size, int code, const char *text)
{
    mcz_diag d;
    assert_int_equal(open_code(p, size, &d), code);
    if (!strstr(d.message, text))
        fail_msg("'%s' lacks '%s'", d.message, text);
}

static void test_forged_frames(void **state)
{
    (void)state;
    size_t size;
    uint8_t *clean = archive(&size), *p = tl_copy_of(clean, size);
    static const uint8_t zero4[4] = {0}, flags8[4] = {8, 0, 0, 0}, flags1[4] = {1, 0, 0, 0};
    forge(p, 12, zero4, 4);
    expect_forged(p, size, MCZ_ECORRUPT, "metadata: bad flags 0x0");
    memcpy(p, clean, size);
    forge(p, 12, flags8, 4); /* a reserved bit */
    expect_forged(p, size, MCZ_ECORRUPT, "metadata: bad flags 0x8");
    memcpy(p, clean, size);
    forge(p, 16, "28808A0E", 8); /* upper case is not the stored form */
    expect_forged(p, size, MCZ_ECORRUPT, "JIT-EE GUID field");
    memcpy(p, clean, size);
    forge(p, 16 + 8, "+", 1);
    expect_forged(p, size, MCZ_ECORRUPT, "JIT-EE GUID field");
    memcpy(p, clean, size);
    forge(p, 52 + 6, "x", 1); /* "linux" then a byte after its NUL */
    expect_forged(p, size, MCZ_ECORRUPT, "target field");
    memcpy(p, clean, size);
    forge(p, 12, flags1, 4); /* GUID only: the target fields must then be zeros */
    expect_forged(p, size, MCZ_ECORRUPT, "target field");
    memcpy(p, clean, size);
    forge(p, 52, "Linux", 5);
    expect_forged(p, size, MCZ_ECORRUPT, "target field");
    memcpy(p, clean, size);
    forge(p, 8, "MCZW", 4); /* another tag where the frame belongs */
    expect_forged(p, size, MCZ_ECORRUPT, "unknown tag");
    memcpy(p, clean, size);
    forge(p, 8, "MCZC", 4); /* a chunk's tag where the index places no chunk */
    expect_forged(p, size, MCZ_ECORRUPT, "an mcz frame the index does not know");
    memcpy(p, clean, size);
    forge(p, 0, zero4, 4); /* the tag without the magic */
    expect_forged(p, size, MCZ_ECORRUPT, "bad frame magic or tag");
    /* Cut: a frame that says it is shorter (the bytes after it are then no chunk). */
    memcpy(p, clean, size);
    static const uint8_t short_payload[4] = {40, 0, 0, 0};
    forge(p, 4, short_payload, 4);
    expect_forged(p, size, MCZ_ECORRUPT, "metadata: frame of 40 bytes, expected 84");
    /* Cut: the file ends inside the frame. */
    mcz_arc_meta m;
    uint64_t frame_size;
    mcz_diag d;
    assert_int_equal(mcz_arc_meta_decode(clean, MCZ_ARC_HEADER_SIZE + 50, MCZ_ARC_HEADER_SIZE,
                                         UINT64_MAX, &m, &frame_size, &d),
                     MCZ_ETRUNCATED);
    assert_int_equal(d.offset, MCZ_ARC_HEADER_SIZE);
    free(p);
    free(clean);
}

static void test_recovery_carries_the_frame(void **state)
{
    (void)state;
    size_t size;
    uint8_t *p = archive(&size);
    char cut[160];
    snprintf(cut, sizeof cut, "%s/cut.mcz", dir);
    tl_save(cut, p, size - 100); /* the footer and part of the index are gone */
    mcz_recovery rep;
    assert_int_equal(mcz_recover_report(cut, out_path, &rep, NULL), MCZ_OK);
    mcz_reader *r = mcz_reader_open(out_path, NULL);
    assert_non_null(r);
    assert_string_equal(mcz_reader_jit_ee_guid(r), GUID_LOWER);
    mcz_reader_close(r);
    p[MCZ_ARC_HEADER_SIZE + 20] ^= 1; /* a damaged frame is left out, the chunks kept */
    tl_save(cut, p, size - 100);
    assert_int_equal(mcz_recover_report(cut, out_path, &rep, NULL), MCZ_OK);
    r = mcz_reader_open(out_path, NULL);
    assert_non_null(r);
    assert_null(mcz_reader_jit_ee_guid(r));
    assert_int_equal(rep.contexts, corpus.n);
    mcz_reader_close(r);
    free(p);
}

/* Writes the corpus in mode (rolling at max_bytes when not 0; dict: with a dictionary) with the
 * GUID and reads it back: the record survives checkpoints, holes, dumps and the stream. */
static void check_mode(mcz_writer_mode mode, uint64_t max_bytes, bool dict)
{
    mcz_writer_options o = options();
    o.mode = mode;
    o.max_bytes = max_bytes;
    o.no_dict = !dict;
    o.jit_ee_guid = GUID_UPPER;
    o.target_arch = "arm64";
    int fd = -1;
    if (mode == MCZ_WRITE_STREAM) {
        fd = mcz_os_open(out_path, MCZ_OS_OPEN_WRITE | MCZ_OS_OPEN_CREATE | MCZ_OS_OPEN_TRUNCATE, 0666);
        assert_true(fd >= 0);
        o.stream_fd = fd;
    }
    assert_int_equal(tl_write(mode == MCZ_WRITE_STREAM ? NULL : out_path, &corpus, &o), MCZ_OK);
    if (fd >= 0)
        close(fd);
    mcz_diag d;
    mcz_reader *r = mcz_reader_open(out_path, &d);
    if (!r)
        fail_msg("mode %d: %s", (int)mode, d.message);
    assert_string_equal(mcz_reader_jit_ee_guid(r), GUID_LOWER);
    const char *os, *arch;
    mcz_reader_target(r, &os, &arch);
    assert_null(os);
    assert_string_equal(arch, "arm64");
    assert_int_equal(mcz_reader_verify(r, NULL, NULL, NULL), MCZ_OK);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_true(max_bytes ? info.first_number > 1 : info.contexts == corpus.n);
    mcz_reader_close(r);
}

static void test_every_mode(void **state)
{
    (void)state;
    check_mode(MCZ_WRITE_LIVE, 0, false);
    check_mode(MCZ_WRITE_LIVE, 0, true);
    check_mode(MCZ_WRITE_LIVE, 6000, false); /* holes punched after the frame, never into it */
    check_mode(MCZ_WRITE_MEMORY, 6000, true);
    check_mode(MCZ_WRITE_STREAM, 0, true);
}

/* A memory image (here an archive behind foreign bytes): the frame is found where it lies. */
static void test_image_recovery_finds_the_frame(void **state)
{
    (void)state;
    size_t size;
    uint8_t *p = archive(&size), *image = malloc(size + 4096);
    memset(image, 0x5A, 4096);
    memcpy(image + 4096, p, size);
    char img[160];
    snprintf(img, sizeof img, "%s/image.bin", dir);
    tl_save(img, image, size + 4096);
    mcz_recovery rep;
    assert_int_equal(mcz_recover_report(img, out_path, &rep, NULL), MCZ_OK);
    assert_true(rep.image);
    mcz_reader *r = mcz_reader_open(out_path, NULL);
    assert_non_null(r);
    assert_string_equal(mcz_reader_jit_ee_guid(r), GUID_LOWER);
    mcz_reader_close(r);
    free(image);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guid_text),
        cmocka_unit_test(test_target_text),
        cmocka_unit_test(test_frame_round_trip),
        cmocka_unit_test(test_writer_records_and_reader_reads),
        cmocka_unit_test(test_writer_refuses_bad_texts),
        cmocka_unit_test(test_every_bit_flipped),
        cmocka_unit_test(test_forged_frames),
        cmocka_unit_test(test_recovery_carries_the_frame),
        cmocka_unit_test(test_every_mode),
        cmocka_unit_test(test_image_recovery_finds_the_frame),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
