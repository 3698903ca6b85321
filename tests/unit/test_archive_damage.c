/*
 * test_archive_damage.c - hostile archives: truncation at every length, flipped bits in every
 * part, offsets and sizes pointing outside the file or overflowing, a swapped dictionary, a chunk
 * whose checksum fails; and recovery of truncated and damaged archives. A damaged archive must
 * give an error naming what and where, never wrong bytes. Each damaged image is an exact-size
 * heap copy, so the sanitizer build catches any read past its end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#define XXH_INLINE_ALL /* xxHash compiled in: no library (common/mcz_xxhash.h) */
#include <xxhash.h>

#include "../../reader/reader_impl.h"
#include "../../format/archive.h"
#include "archive_testlib.h"
#include "index_testlib.h"
#include "../../common/mcz_common.h"

static char dir[64];
static char path[128];
static char path2[128];
static tl_corpus corpus;
static uint8_t *image;     /* as written: its index compressed */
static size_t image_size;
static uint8_t *raw_image; /* the same with the raw index, which the edits below address */
static size_t raw_size;

static mcz_writer_options options(bool dict)
{
    mcz_writer_options o = tl_small_options(2048);
    o.no_dict = !dict;
    return o;
}

static int setup(void **state)
{
    (void)state;
    tl_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/a.mcz", dir);
    snprintf(path2, sizeof path2, "%s/b.mcz", dir);
    tl_corpus_make(&corpus, 60, 0);
    mcz_writer_options o = options(true);
    if (tl_write(path, &corpus, &o) != MCZ_OK)
        return -1;
    image = tl_read(path, &image_size);
    if (!image || (mcz_get_le32(image + mcz_get_le64(image + image_size - 40) + 32) &
                   MCZ_ARC_INDEX_COMPRESSED) == 0)
        return -1;
    raw_size = image_size;
    raw_image = tl_copy_of(image, image_size);
    tl_recode_index(&raw_image, &raw_size, true);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(image);
    free(raw_image);
    tl_corpus_free(&corpus);
    tl_rmdir(dir);
    return 0;
}

/* Opening must fail with a code and a message that says where. */
static void expect_rejected(const uint8_t *data, size_t len)
{
    uint8_t *p = tl_copy_of(data, len);
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_reader *r = mcz_reader_open_image(p, len, &d);
    if (r)
        fail_msg("damaged archive of %zu bytes was accepted", len);
    assert_true(d.code < 0);
    assert_true(d.message[0] != '\0');
    assert_true(d.offset >= 0);
    free(p);
}

/* Opens (must succeed) and reads every context: each read is an error or the right bytes.
 * Returns the number of failed reads; *verify_failed tells whether deep verification failed. */
static uint32_t read_all_checked(const uint8_t *data, size_t len, bool *verify_failed)
{
    uint8_t *p = tl_copy_of(data, len);
    mcz_diag d;
    mcz_reader *r = mcz_reader_open_image(p, len, &d);
    if (!r)
        fail_msg("open failed: %s", d.message);
    mcz_cursor *cur = mcz_cursor_create(r);
    uint32_t failed = 0;
    for (uint32_t i = 0; i < corpus.n; i++) {
        mcz_mc mc;
        mcz_diag_clear(&d);
        if (mcz_cursor_get(cur, i + 1, &mc, &d) != MCZ_OK) {
            if (!(d.code < 0 && d.message[0] && d.offset >= 0 && d.context >= 1))
                fail_msg("%d %lld %lld %s", d.code, (long long)d.offset, (long long)d.context,
                         d.message);
            assert_true(d.code < 0 && d.message[0] && d.offset >= 0 && d.context >= 1);
            failed++;
            continue;
        }
        assert_int_equal(mc.size, corpus.sizes[i]);
        assert_memory_equal(mc.bytes, corpus.bytes + corpus.offsets[i], mc.size);
    }
    if (failed)
        assert_int_not_equal(mcz_reader_verify(r, NULL, NULL, NULL), MCZ_OK);
    *verify_failed = mcz_reader_verify(r, NULL, NULL, NULL) != MCZ_OK;
    mcz_cursor_free(cur);
    mcz_reader_close(r);
    free(p);
    return failed;
}

static mcz_reader *open_copy(uint8_t **p)
{
    *p = tl_copy_of(image, image_size);
    mcz_reader *r = mcz_reader_open_image(*p, image_size, NULL);
    assert_non_null(r);
    return r;
}

static void test_pristine(void **state)
{
    (void)state;
    bool verify_failed;
    assert_int_equal(read_all_checked(image, image_size, &verify_failed), 0);
    assert_false(verify_failed);
    mcz_reader *r = mcz_reader_open(path, NULL);
    assert_non_null(r);
    assert_int_equal(mcz_reader_verify(r, NULL, NULL, NULL), MCZ_OK);
    mcz_reader_close(r);
}

static void test_truncation_every_length(void **state)
{
    (void)state;
    for (size_t len = 0; len < image_size; len++)
        expect_rejected(image, len);
    mcz_diag d;
    tl_save(path2, image, image_size - 1);
    assert_null(mcz_reader_open(path2, &d));
    assert_int_equal(d.code, MCZ_ETRUNCATED);
}

static void flip(uint8_t *p, size_t at, unsigned bit)
{
    p[at] ^= (uint8_t)(1u << bit);
}

static void test_flips_footer_index_header(void **state)
{
    (void)state;
    mcz_arc_footer f;
    assert_int_equal(mcz_arc_footer_decode(image, image_size, &f, NULL), MCZ_OK);
    uint8_t *p = tl_copy_of(image, image_size);
    for (size_t at = f.index_offset; at < image_size; at++) { /* index and footer */
        for (unsigned bit = 0; bit < 8; bit += at >= image_size - 56 ? 1 : 3) {
            flip(p, at, bit);
            expect_rejected(p, image_size);
            flip(p, at, bit);
        }
    }
    for (size_t at = 0; at < MCZ_ARC_HEADER_SIZE; at++) { /* header */
        for (unsigned bit = 0; bit < 8; bit++) {
            flip(p, at, bit);
            expect_rejected(p, image_size);
            flip(p, at, bit);
        }
    }
    mcz_reader *r = mcz_reader_open_image(p, image_size, NULL);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_not_equal(info.dict_size, 0);
    for (size_t at = MCZ_ARC_HEADER_SIZE; at < MCZ_ARC_HEADER_SIZE + MCZ_ARC_DICT_HEAD +
                                                   info.dict_size; at += 5) { /* dictionary */
        flip(p, at, (unsigned)at % 8);
        expect_rejected(p, image_size);
        flip(p, at, (unsigned)at % 8);
    }
    mcz_reader_close(r);
    free(p);
}

static void test_flips_in_chunks(void **state)
{
    (void)state;
    uint8_t *p;
    mcz_reader *r = open_copy(&p);
    mcz_chunk_info c;
    assert_int_equal(mcz_reader_chunk(r, 1, &c), MCZ_OK);
    mcz_reader_close(r);
    uint32_t detected = 0, verified = 0;
    for (uint64_t at = c.offset; at < c.offset + c.stored_size; at++) {
        flip(p, at, (unsigned)(at * 5) % 8);
        bool verify_failed;
        uint32_t failed = read_all_checked(p, image_size, &verify_failed);
        assert_true(failed == 0 || failed == c.count);
        detected += failed > 0;
        verified += verify_failed;
        if (at >= c.offset + c.stored_size - 4) /* zstd's checksum: reads skip it, verify not */
            assert_true(verify_failed);
        flip(p, at, (unsigned)(at * 5) % 8);
    }
    assert_true(detected > c.stored_size * 9 / 10); /* nearly every flip; the rest are harmless */
    assert_true(verified >= detected);
    free(p);
}

/* Applies an edit to a copy of the raw-index image, reseals it, and requires open to reject it. */
static void expect_edit_rejected(void (*edit)(uint8_t *p, uint64_t index, uint8_t *foot), int code)
{
    uint8_t *p = tl_copy_of(raw_image, raw_size);
    uint8_t *foot = p + raw_size - MCZ_ARC_FOOTER_SIZE;
    edit(p, mcz_get_le64(foot + 16), foot);
    tl_reseal(p, raw_size);
    mcz_diag d;
    mcz_reader *r = mcz_reader_open_image(p, raw_size, &d);
    if (r)
        fail_msg("edited archive accepted (expected %s)", mcz_error_name(code));
    assert_int_equal(d.code, code);
    free(p);
}

static uint8_t *chunk_entry(uint8_t *p, uint64_t index, uint32_t i)
{
    return p + index + MCZ_ARC_INDEX_HEAD + (size_t)MCZ_ARC_CHUNK_ENTRY * i;
}

static void edit_index_past_end(uint8_t *p, uint64_t index, uint8_t *foot)
{
    (void)p;
    mcz_put_le64(foot + 16, index + image_size);
}
static void edit_index_overflow(uint8_t *p, uint64_t index, uint8_t *foot)
{
    (void)p;
    (void)index;
    mcz_put_le64(foot + 16, UINT64_MAX - 5);
    mcz_put_le64(foot + 24, 64);
}
static void edit_huge_counts(uint8_t *p, uint64_t index, uint8_t *foot)
{
    (void)p;
    (void)index;
    mcz_put_le32(foot + 44, UINT32_MAX);
    mcz_put_le32(foot + 40, UINT32_MAX);
}
static void edit_version(uint8_t *p, uint64_t index, uint8_t *foot)
{
    (void)p;
    (void)index;
    mcz_put_le32(foot + 12, MCZ_ARC_VERSION + 1); /* a version after this build's */
}
static void edit_chunk_outside(uint8_t *p, uint64_t index, uint8_t *foot)
{
    (void)foot;
    mcz_put_le64(chunk_entry(p, index, 0), (uint64_t)image_size * 2);
}
static void edit_chunk_overflow(uint8_t *p, uint64_t index, uint8_t *foot)
{
    (void)foot;
    mcz_put_le64(chunk_entry(p, index, 2), UINT64_MAX - 3);
    mcz_put_le32(chunk_entry(p, index, 2) + 8, UINT32_MAX);
}
static void edit_raw_size(uint8_t *p, uint64_t index, uint8_t *foot)
{
    (void)foot;
    mcz_put_le32(chunk_entry(p, index, 1) + 12, UINT32_MAX);
}
static void edit_overlap(uint8_t *p, uint64_t index, uint8_t *foot)
{
    (void)foot;
    mcz_put_le64(chunk_entry(p, index, 1), mcz_get_le64(chunk_entry(p, index, 0)) + 8);
}
static void edit_numbers_back(uint8_t *p, uint64_t index, uint8_t *foot)
{
    (void)foot;
    mcz_put_le32(chunk_entry(p, index, 1) + 16, 1);
}
static void edit_number_overflow(uint8_t *p, uint64_t index, uint8_t *foot)
{
    uint32_t i = 0, k = mcz_get_le32(foot + 40);
    while (i < k && mcz_get_le32(chunk_entry(p, index, i) + 20) < 2)
        i++;
    assert_true(i < k);
    mcz_put_le32(chunk_entry(p, index, i) + 16, UINT32_MAX);
    if (i == 0)
        mcz_put_le32(p + index + 20, UINT32_MAX); /* the index's first number follows chunk 0 */
}
static void edit_context_length(uint8_t *p, uint64_t index, uint8_t *foot)
{
    uint32_t k = mcz_get_le32(foot + 40), n = mcz_get_le32(foot + 44);
    uint8_t *lengths = p + index + MCZ_ARC_INDEX_HEAD + (size_t)MCZ_ARC_CHUNK_ENTRY * k + 4 * n;
    mcz_put_le32(lengths + 4, UINT32_MAX);
}

static void test_hostile_offsets_and_sizes(void **state)
{
    (void)state;
    expect_edit_rejected(edit_index_past_end, MCZ_ECORRUPT);
    expect_edit_rejected(edit_index_overflow, MCZ_ECORRUPT);
    expect_edit_rejected(edit_huge_counts, MCZ_ECORRUPT);
    expect_edit_rejected(edit_version, MCZ_EVERSION);
    expect_edit_rejected(edit_chunk_outside, MCZ_ECORRUPT);
    expect_edit_rejected(edit_chunk_overflow, MCZ_ECORRUPT);
    expect_edit_rejected(edit_raw_size, MCZ_ECORRUPT);
    expect_edit_rejected(edit_overlap, MCZ_ECORRUPT);
    expect_edit_rejected(edit_numbers_back, MCZ_ECORRUPT);
    expect_edit_rejected(edit_number_overflow, MCZ_ECORRUPT);
    expect_edit_rejected(edit_context_length, MCZ_ECORRUPT);
}

/* A chunk whose raw checksum (in its header and the index, consistently) is wrong. */
static void test_chunk_checksum_fails(void **state)
{
    (void)state;
    uint8_t *p = tl_copy_of(raw_image, raw_size); /* the index entry is edited too */
    mcz_reader *r = mcz_reader_open_image(p, raw_size, NULL);
    assert_non_null(r);
    mcz_chunk_info c;
    assert_int_equal(mcz_reader_chunk(r, 2, &c), MCZ_OK);
    mcz_reader_close(r);
    uint8_t *h = p + c.offset;
    mcz_put_le64(h + 28, c.checksum ^ 1);
    size_t body = 36 + 4 * (size_t)c.count;
    mcz_put_le32(h + body, (uint32_t)XXH3_64bits(h, body));
    uint8_t *foot = p + raw_size - MCZ_ARC_FOOTER_SIZE;
    mcz_put_le64(chunk_entry(p, mcz_get_le64(foot + 16), 2) + 24, c.checksum ^ 1);
    tl_reseal(p, raw_size);
    r = mcz_reader_open_image(p, raw_size, NULL);
    assert_non_null(r);
    mcz_cursor *cur = mcz_cursor_create(r);
    mcz_diag d;
    const uint8_t *raw = NULL;
    assert_int_equal(mcz_cursor_chunk(cur, 2, &raw, NULL, &d), MCZ_ECHECKSUM);
    assert_null(raw);
    assert_int_equal(d.context, c.first_number);
    assert_true(d.offset > (int64_t)c.offset);
    mcz_mc mc;
    assert_int_equal(mcz_cursor_get(cur, c.first_number, &mc, NULL), MCZ_ECHECKSUM);
    assert_int_equal(mcz_cursor_chunk(cur, 1, NULL, NULL, NULL), MCZ_OK);
    assert_int_equal(mcz_reader_verify(r, NULL, NULL, &d), MCZ_ECHECKSUM);
    mcz_cursor_free(cur);
    mcz_reader_close(r);
    free(p);
}

/* Another archive's dictionary frame in place of this one's. */
static void test_wrong_dictionary(void **state)
{
    (void)state;
    tl_corpus other;
    tl_corpus_make_seeded(&other, 5000, 90, 0);
    mcz_writer_options o = options(true);
    o.level = 5;
    assert_int_equal(tl_write(path2, &other, &o), MCZ_OK);
    size_t other_size = 0;
    uint8_t *b = tl_read(path2, &other_size);
    mcz_arc_header ha, hb;
    assert_int_equal(mcz_arc_header_decode(image, image_size, &ha, NULL), MCZ_OK);
    assert_int_equal(mcz_arc_header_decode(b, other_size, &hb, NULL), MCZ_OK);
    mcz_arc_dict da, db;
    assert_int_equal(mcz_arc_dict_decode(image, image_size, 44, ha.dict_id, &da, NULL), MCZ_OK);
    assert_int_equal(mcz_arc_dict_decode(b, other_size, 44, hb.dict_id, &db, NULL), MCZ_OK);
    assert_int_not_equal(ha.dict_id, hb.dict_id);
    assert_int_equal(da.frame_size, db.frame_size); /* both filled their 1 KiB capacity */

    uint8_t *p = tl_copy_of(image, image_size);
    memcpy(p + 44, b + 44, db.frame_size);
    mcz_diag d;
    assert_null(mcz_reader_open_image(p, image_size, &d));
    assert_int_equal(d.code, MCZ_EDICT);
    ha.dict_id = hb.dict_id; /* the header agrees with the swapped dictionary */
    mcz_arc_header_encode(&ha, p);
    mcz_reader *r = mcz_reader_open_image(p, image_size, &d);
    assert_non_null(r);
    mcz_cursor *cur = mcz_cursor_create(r);
    mcz_mc mc;
    assert_int_equal(mcz_cursor_get(cur, 1, &mc, &d), MCZ_EDICT);
    assert_int_equal(d.context, 1);
    mcz_cursor_free(cur);
    mcz_reader_close(r);
    free(p);
    free(b);
    tl_corpus_free(&other);
}

/* The recovered archive at path2 holds exactly the chunks marked in keep, numbers intact. */
static void check_recovered(const bool *keep, uint32_t chunks)
{
    mcz_reader *orig = mcz_reader_open_image(image, image_size, NULL);
    mcz_reader *r = mcz_reader_open(path2, NULL);
    assert_non_null(r);
    assert_int_equal(mcz_reader_verify(r, NULL, NULL, NULL), MCZ_OK);
    mcz_cursor *cur = mcz_cursor_create(r);
    for (uint32_t i = 0; i < chunks; i++) {
        mcz_chunk_info c;
        assert_int_equal(mcz_reader_chunk(orig, i, &c), MCZ_OK);
        for (uint32_t n = c.first_number; n < c.first_number + c.count; n++) {
            mcz_mc mc;
            int rc = mcz_cursor_get(cur, n, &mc, NULL);
            assert_int_equal(rc, keep[i] ? MCZ_OK : MCZ_ENOTFOUND);
            if (rc == MCZ_OK)
                assert_memory_equal(mc.bytes, corpus.bytes + corpus.offsets[n - 1], mc.size);
        }
    }
    mcz_cursor_free(cur);
    mcz_reader_close(r);
    mcz_reader_close(orig);
}

static void test_recover_truncated(void **state)
{
    (void)state;
    mcz_reader *orig = mcz_reader_open_image(image, image_size, NULL);
    mcz_archive_info info;
    mcz_reader_get_info(orig, &info);
    uint32_t k = (uint32_t)info.chunks;
    bool *keep = calloc(k, sizeof *keep);
    for (size_t cut = 0; cut <= image_size; cut += cut < image_size - 200 ? 53 : 1) {
        tl_save(path, image, cut);
        uint64_t want = 0;
        for (uint32_t i = 0; i < k; i++) {
            mcz_chunk_info c;
            mcz_reader_chunk(orig, i, &c);
            keep[i] = c.offset + c.stored_size <= cut;
            want += keep[i] ? c.count : 0;
        }
        uint64_t kept = 99, lost = 99;
        mcz_diag d;
        unlink(path2);
        int rc = mcz_recover(path, path2, &kept, &lost, &d);
        if (want == 0) {
            assert_int_not_equal(rc, MCZ_OK);
            assert_int_equal(access(path2, F_OK), -1);
            continue;
        }
        if (rc != MCZ_OK)
            fail_msg("cut %zu: %s", cut, d.message);
        assert_int_equal(kept, want);
        if (cut == image_size)
            assert_int_equal(lost, 0);
        check_recovered(keep, k);
    }
    tl_save(path, image, image_size); /* the header itself damaged: nothing can be done */
    uint8_t *p = tl_copy_of(image, image_size);
    p[20] ^= 1;
    tl_save(path, p, image_size);
    assert_int_equal(mcz_recover(path, path2, NULL, NULL, NULL), MCZ_ECHECKSUM);
    free(p);
    free(keep);
    mcz_reader_close(orig);
}

/* A damaged chunk in the middle: the others come back with their numbers, the gap is counted. */
static void test_recover_damaged_middle(void **state)
{
    (void)state;
    mcz_reader *orig = mcz_reader_open_image(image, image_size, NULL);
    mcz_archive_info info;
    mcz_reader_get_info(orig, &info);
    uint32_t k = (uint32_t)info.chunks;
    bool *keep = malloc(k * sizeof *keep);
    for (uint32_t i = 0; i < k; i++)
        keep[i] = i != 3 && i != 4;
    uint8_t *p = tl_copy_of(image, image_size);
    mcz_chunk_info c3, c4;
    mcz_reader_chunk(orig, 3, &c3);
    mcz_reader_chunk(orig, 4, &c4);
    p[c3.offset + c3.stored_size - 3] ^= 0x10; /* data frame of chunk 3 */
    p[c4.offset + 14] ^= 0x01;                 /* header frame of chunk 4 */
    for (int trunc = 0; trunc < 2; trunc++) {  /* with the footer, then without */
        tl_save(path, p, trunc ? image_size - 30 : image_size);
        uint64_t kept, lost;
        mcz_diag d;
        if (mcz_recover(path, path2, &kept, &lost, &d) != MCZ_OK)
            fail_msg("recover: %s", d.message);
        assert_int_equal(kept, corpus.n - c3.count - c4.count);
        assert_int_equal(lost, c3.count + c4.count);
        check_recovered(keep, k);
    }
    free(p);
    free(keep);
    mcz_reader_close(orig);
}

/* An archive of xz chunks (FORMAT.md §4): every flipped bit of a chunk gives an error or the right
 * bytes, and a chunk whose tag claims the other codec (its header checksum resealed) is refused
 * before anything is decoded. */
static void test_xz_chunks(void **state)
{
    (void)state;
    mcz_writer_options o = options(false);
    o.codec = MCZ_CODEC_XZ;
    o.level = 1;
    assert_int_equal(tl_write(path2, &corpus, &o), MCZ_OK);
    size_t size = 0;
    uint8_t *xz = tl_read(path2, &size);
    assert_non_null(xz);
    bool verify_failed;
    assert_int_equal(read_all_checked(xz, size, &verify_failed), 0);
    assert_false(verify_failed);
    mcz_reader *r = mcz_reader_open_image(xz, size, NULL);
    assert_non_null(r);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.codec, MCZ_CODEC_XZ);
    mcz_chunk_info c;
    assert_int_equal(mcz_reader_chunk(r, 1, &c), MCZ_OK);
    mcz_reader_close(r);
    uint32_t detected = 0;
    for (uint64_t at = c.offset; at < c.offset + c.stored_size; at++) {
        flip(xz, at, (unsigned)(at * 3) % 8);
        uint32_t failed = read_all_checked(xz, size, &verify_failed);
        assert_true(failed == 0 || failed == c.count);
        detected += failed > 0;
        flip(xz, at, (unsigned)(at * 3) % 8);
    }
    assert_true(detected > c.stored_size * 9 / 10);
    size_t body = 36 + 4 * (size_t)c.count;
    mcz_put_le32(xz + c.offset + 8, MCZ_ARC_TAG_CHUNK); /* "MCZC": a zstd chunk */
    mcz_put_le32(xz + c.offset + body, (uint32_t)mcz_arc_xxh3(xz + c.offset, body));
    assert_int_equal(read_all_checked(xz, size, &verify_failed), c.count);
    free(xz);
}

/* Format version 4 compresses the index (FORMAT.md §5), version 3 adds the packet layout
 * (§4a), version 2 recorded the JIT-EE version in the header's word at 32. An archive relabelled
 * version 3 reads with its index raw, not compressed. An archive of plain chunks relabelled
 * version 2 reads (a
 * version-2 writer wrote those very chunk frames), but not with the PACKETS flag version 2 does
 * not have; one of version 1 (the word at 32 reserved, zero) reads, its stored hashes taken as
 * B's. tests/cli/test_mcs_layout.sh reads archives a version-2 build wrote. */
static void seal_header(uint8_t *p) { mcz_put_le64(p + 36, XXH3_64bits(p, 36)); }

/* Relabels the archive p[0, size) as format version v (header and footer, checksums sealed),
 * opens it (which must succeed) and verifies it in full. The caller closes the reader. */
static mcz_reader *open_as_version(uint8_t *p, size_t size, uint32_t v)
{
    mcz_put_le32(p + 12, v);
    seal_header(p);
    mcz_put_le32(p + size - MCZ_ARC_FOOTER_SIZE + 12, v);
    tl_reseal(p, size);
    mcz_diag d;
    mcz_reader *r = mcz_reader_open_image(p, size, &d);
    if (!r)
        fail_msg("version %u refused: %s", v, d.message);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.version, v);
    assert_int_equal(mcz_reader_layout(r), MCZ_LAYOUT_PLAIN);
    assert_int_equal(mcz_reader_verify(r, NULL, NULL, &d), MCZ_OK);
    return r;
}

static void test_older_versions_still_read(void **state)
{
    (void)state;
    assert_int_equal(mcz_get_le32(image + 12), 4);
    assert_int_equal(mcz_get_le32(image + image_size - MCZ_ARC_FOOTER_SIZE + 12), 4);
    assert_int_equal(mcz_get_le32(image + 16) & MCZ_ARC_FLAG_PACKETS, MCZ_ARC_FLAG_PACKETS);
    assert_int_equal(mcz_get_le32(image + 32), mcz_jit_ee_id(mcz_jit_ee_newest())); /* default */
    mcz_writer_options o = options(false);
    o.jit_ee = mcz_jit_ee_find("B");
    o.layout = MCZ_LAYOUT_PLAIN; /* versions 1 and 2 have plain chunks only */
    assert_int_equal(tl_write(path2, &corpus, &o), MCZ_OK);
    size_t size;
    uint8_t *p = tl_read(path2, &size);
    assert_int_equal(mcz_get_le32(p + 32), 2); /* B's number */
    assert_int_equal(mcz_get_le32(p + 16) & MCZ_ARC_FLAG_PACKETS, 0);
    mcz_reader *r = mcz_reader_open_image(p, size, NULL);
    assert_non_null(r);
    assert_ptr_equal(mcz_reader_jit_ee(r), o.jit_ee);
    mcz_reader_close(r);

    mcz_diag d;
    uint8_t *foot = p + size - MCZ_ARC_FOOTER_SIZE;
    mcz_put_le32(foot + 12, 3); /* version 3 has no COMPRESSED flag */
    tl_reseal(p, size);
    assert_null(mcz_reader_open_image(p, size, &d));
    assert_int_equal(d.code, MCZ_ECORRUPT);
    assert_int_equal(d.offset, (int64_t)mcz_get_le64(foot + 16) + 32);
    mcz_put_le32(foot + 12, 4);
    tl_reseal(p, size);
    tl_recode_index(&p, &size, true);
    mcz_reader_close(open_as_version(p, size, 3));
    mcz_reader_close(open_as_version(p, size, 2));
    mcz_put_le32(p + 16, mcz_get_le32(p + 16) | MCZ_ARC_FLAG_PACKETS);
    seal_header(p);
    assert_null(mcz_reader_open_image(p, size, &d));
    assert_int_equal(d.code, MCZ_ECORRUPT);
    mcz_put_le32(p + 16, mcz_get_le32(p + 16) & ~MCZ_ARC_FLAG_PACKETS);

    mcz_put_le32(p + 32, 0);
    r = open_as_version(p, size, 1);
    assert_null(mcz_reader_jit_ee(r));
    assert_ptr_equal(mcz_reader_hash_jit_ee(r), o.jit_ee);
    mcz_reader_close(r);

    mcz_put_le32(p + 32, 3); /* version 1 has no such field */
    seal_header(p);
    assert_null(mcz_reader_open_image(p, size, &d));
    assert_int_equal(d.code, MCZ_ECORRUPT);
    mcz_put_le32(p + 12, 2);
    mcz_put_le32(p + 32, 99); /* a JIT-EE version this build does not know */
    seal_header(p);
    assert_null(mcz_reader_open_image(p, size, &d));
    assert_int_equal(d.code, MCZ_EVERSION);
    assert_non_null(strstr(d.message, "JIT-EE version 99"));
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pristine),
        cmocka_unit_test(test_truncation_every_length),
        cmocka_unit_test(test_flips_footer_index_header),
        cmocka_unit_test(test_flips_in_chunks),
        cmocka_unit_test(test_hostile_offsets_and_sizes),
        cmocka_unit_test(test_chunk_checksum_fails),
        cmocka_unit_test(test_wrong_dictionary),
        cmocka_unit_test(test_xz_chunks),
        cmocka_unit_test(test_recover_truncated),
        cmocka_unit_test(test_recover_damaged_middle),
        cmocka_unit_test(test_older_versions_still_read),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
