/*
 * test_archive_nohashes.c - archives whose index stores no hashes (index flag NO_HASHES,
 * FORMAT.md §5): written and read back in every writer mode, 32 bytes smaller per context than
 * the same archive with hashes and otherwise identical; the table encoder and the streaming
 * encoder agree; chunk copies between the two kinds; reserved flag bits and forged sizes
 * rejected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "../../reader/reader_impl.h"
#include "../../format/archive.h"
#include "archive_testlib.h"
#include "index_testlib.h"
#include "../../common/mcz_common.h"

/* The version these tests' contexts are written in (their CorInfoType numbering). */
#define VB mcz_jit_ee_find("B")

#define CONTEXTS 80u

static char dir[64];
static char with_path[128], without_path[128], out_path[128];
static tl_corpus corpus;
static uint8_t *with_image, *without_image; /* the corpus with and without hashes */
static size_t with_size, without_size;

static mcz_writer_options options(bool no_hashes)
{
    mcz_writer_options o = tl_small_options(4096);
    o.no_hashes = no_hashes;
    return o;
}

static int setup(void **state)
{
    (void)state;
    tl_tmpdir(dir, sizeof dir);
    snprintf(with_path, sizeof with_path, "%s/with.mcz", dir);
    snprintf(without_path, sizeof without_path, "%s/without.mcz", dir);
    snprintf(out_path, sizeof out_path, "%s/out.mcz", dir);
    tl_corpus_make(&corpus, CONTEXTS, 0);
    mcz_writer_options with = options(false), without = options(true);
    if (tl_write(with_path, &corpus, &with) != MCZ_OK ||
        tl_write(without_path, &corpus, &without) != MCZ_OK)
        return -1;
    with_image = tl_read(with_path, &with_size);
    without_image = tl_read(without_path, &without_size);
    return with_image && without_image ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(with_image);
    free(without_image);
    tl_corpus_free(&corpus);
    tl_rmdir(dir);
    return 0;
}

static uint8_t *footer_of(uint8_t *p, size_t size)
{
    return p + size - MCZ_ARC_FOOTER_SIZE;
}

static uint64_t index_offset_of(const uint8_t *p, size_t size)
{
    return mcz_get_le64(p + size - MCZ_ARC_FOOTER_SIZE + 16);
}

/* Every context of r equals the corpus'; the hashes are the computed ones, or absent. */
static void check_contents(const mcz_reader *r, bool hashes)
{
    mcz_cursor *cur = mcz_cursor_create(r);
    assert_non_null(cur);
    for (uint32_t i = 0; i < corpus.n; i++) {
        mcz_mc mc;
        assert_int_equal(mcz_cursor_get(cur, i + 1, &mc, NULL), MCZ_OK);
        assert_int_equal(mc.size, corpus.sizes[i]);
        assert_memory_equal(mc.bytes, corpus.bytes + corpus.offsets[i], mc.size);
        mcz_hash128 identity, dedup, want_identity, want_dedup;
        mcz_arc_context_hashes(NULL, &mc, &want_identity, &want_dedup);
        mcz_context_info ci;
        assert_int_equal(mcz_reader_context(r, i, &ci), MCZ_OK);
        assert_int_equal(ci.hashes, hashes);
        assert_int_equal(ci.size, corpus.sizes[i]);
        assert_int_equal(ci.mch_offset, corpus.offsets[i]);
        if (hashes) {
            assert_int_equal(mcz_reader_hashes(r, i + 1, &identity, &dedup), MCZ_OK);
            assert_memory_equal(identity.bytes, want_identity.bytes, 16);
            assert_memory_equal(dedup.bytes, want_dedup.bytes, 16);
            assert_memory_equal(ci.dedup.bytes, want_dedup.bytes, 16);
        } else {
            assert_int_equal(mcz_reader_hashes(r, i + 1, &identity, &dedup), MCZ_EMISSING);
            assert_true(mcz_hash_is_zero(&ci.identity) && mcz_hash_is_zero(&ci.dedup));
        }
    }
    mcz_cursor_free(cur);
}

static mcz_reader *open_checked(const char *p, bool hashes)
{
    mcz_diag d;
    mcz_reader *r = mcz_reader_open(p, &d);
    if (!r)
        fail_msg("open %s: %s", p, d.message);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.hashes, hashes);
    assert_int_equal(info.contexts, corpus.n);
    assert_int_equal(info.raw_bytes, corpus.size);
    check_contents(r, hashes);
    assert_int_equal(mcz_reader_verify(r, NULL, NULL, &d), MCZ_OK);
    return r;
}

static void test_both_ways(void **state)
{
    (void)state;
    mcz_reader *with = open_checked(with_path, true);
    mcz_reader *without = open_checked(without_path, false);
    assert_true(with_size > without_size);
    /* Everything before the index is the same: only the index differs. */
    uint64_t index = index_offset_of(with_image, with_size);
    assert_int_equal(index, index_offset_of(without_image, without_size));
    assert_memory_equal(with_image, without_image, index);
    assert_int_equal(mcz_get_le32(with_image + index + 32), MCZ_ARC_INDEX_COMPRESSED);
    assert_int_equal(mcz_get_le32(without_image + index + 32),
                     MCZ_ARC_INDEX_NO_HASHES | MCZ_ARC_INDEX_COMPRESSED);
    /* In the raw form the hash columns are exactly 32 bytes a context. */
    size_t raw_with_size = with_size, raw_without_size = without_size;
    uint8_t *raw_with = tl_copy_of(with_image, with_size);
    uint8_t *raw_without = tl_copy_of(without_image, without_size);
    tl_recode_index(&raw_with, &raw_with_size, true);
    tl_recode_index(&raw_without, &raw_without_size, true);
    assert_int_equal(raw_with_size - raw_without_size, 32 * (size_t)CONTEXTS);
    assert_int_equal(mcz_get_le32(raw_without + index + 32), MCZ_ARC_INDEX_NO_HASHES);
    assert_int_equal(raw_without_size - index - MCZ_ARC_FOOTER_SIZE,
                     mcz_arc_index_size(without->index.chunk_count, CONTEXTS, false));
    assert_int_equal(mcz_arc_index_size(3, 5, true) - mcz_arc_index_size(3, 5, false), 32 * 5);
    free(raw_with);
    free(raw_without);
    mcz_reader_close(with);
    mcz_reader_close(without);
}

/* A table rebuilt from r's index and encoded gives back r's index frame and footer. */
static void check_table_encoding(const uint8_t *image, size_t size, const mcz_reader *r)
{
    mcz_arc_table t = {0};
    assert_int_equal(tl_table_of_index(&r->index, &t), MCZ_OK);
    uint64_t at = index_offset_of(image, size);
    uint8_t *frame, footer[MCZ_ARC_FOOTER_SIZE];
    size_t frame_len;
    assert_int_equal(mcz_arc_table_encode(&t, at, &frame, &frame_len, footer), MCZ_OK);
    assert_int_equal(at + frame_len + MCZ_ARC_FOOTER_SIZE, size);
    assert_memory_equal(frame, image + at, frame_len);
    assert_memory_equal(footer, image + at + frame_len, MCZ_ARC_FOOTER_SIZE);
    assert_true(t.no_hashes ? !t.identity && !t.dedup : t.identity && t.dedup);
    free(frame);
    mcz_arc_table_free(&t);
}

static void test_table_matches_stream(void **state)
{
    (void)state;
    mcz_reader *with = mcz_reader_open_image(with_image, with_size, NULL);
    mcz_reader *without = mcz_reader_open_image(without_image, without_size, NULL);
    assert_non_null(with);
    assert_non_null(without);
    check_table_encoding(with_image, with_size, with);
    check_table_encoding(without_image, without_size, without);
    mcz_reader_close(with);
    mcz_reader_close(without);
}

/* The collector modes stream their index too (checkpoints, dumps). */
static void test_collector_modes(void **state)
{
    (void)state;
    mcz_writer_mode modes[] = {MCZ_WRITE_LIVE, MCZ_WRITE_MEMORY};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        mcz_writer_options o = options(true);
        o.mode = modes[m];
        o.no_dict = true;
        assert_int_equal(tl_write(out_path, &corpus, &o), MCZ_OK);
        mcz_reader_close(open_checked(out_path, false));
    }
}

/* Copies every chunk of src into a new archive written with no_hashes; the caller's hashes
 * are those src stores, or NULL when it stores none. */
static void copy_chunks(const char *src, bool no_hashes)
{
    mcz_reader *r = mcz_reader_open(src, NULL);
    assert_non_null(r);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    mcz_writer_options o = options(no_hashes);
    mcz_reader_dict(r, &o.dict, &o.dict_len);
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(out_path, &o, &d);
    assert_non_null(w);
    for (uint64_t i = 0; i < info.chunks; i++) {
        mcz_chunk_info c;
        const uint8_t *frames;
        size_t len;
        assert_int_equal(mcz_reader_chunk(r, i, &c), MCZ_OK);
        assert_int_equal(mcz_reader_chunk_frames(r, i, &frames, &len, NULL), MCZ_OK);
        mcz_hash128 *identity = calloc(c.count, sizeof *identity);
        mcz_hash128 *dedup = calloc(c.count, sizeof *dedup);
        assert_true(identity && dedup);
        for (uint32_t k = 0; info.hashes && k < c.count; k++)
            assert_int_equal(mcz_reader_hashes(r, c.first_number + k, &identity[k], &dedup[k]),
                             MCZ_OK);
        assert_int_equal(mcz_writer_append_compressed(w, frames, len,
                                                      info.hashes ? identity : NULL,
                                                      info.hashes ? dedup : NULL, c.count, &d),
                         MCZ_OK);
        free(identity);
        free(dedup);
    }
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    mcz_reader_close(r);
}

static void expect_same_file(const char *p, const uint8_t *image, size_t size)
{
    size_t got_size;
    uint8_t *got = tl_read(p, &got_size);
    assert_non_null(got);
    assert_int_equal(got_size, size);
    assert_memory_equal(got, image, size);
    free(got);
}

static void test_chunk_copies(void **state)
{
    (void)state;
    copy_chunks(without_path, false); /* hashes computed from the decoded chunks */
    mcz_reader_close(open_checked(out_path, true));
    expect_same_file(out_path, with_image, with_size);
    copy_chunks(with_path, true); /* the given hashes ignored */
    mcz_reader_close(open_checked(out_path, false));
    expect_same_file(out_path, without_image, without_size);
    copy_chunks(without_path, true);
    expect_same_file(out_path, without_image, without_size);
}

/* ---- Hostile indexes ---- */

/* An edited, resealed copy of image must be refused with code. */
static void expect_rejected(const uint8_t *image, size_t size,
                            void (*edit)(uint8_t *p, size_t size, uint64_t index), int code)
{
    uint8_t *p = tl_copy_of(image, size);
    edit(p, size, index_offset_of(p, size));
    tl_reseal(p, size);
    mcz_diag d;
    mcz_reader *r = mcz_reader_open_image(p, size, &d);
    if (r)
        fail_msg("edited archive accepted (expected %s)", mcz_error_name(code));
    assert_int_equal(d.code, code);
    free(p);
}

static void set_flags(uint8_t *p, uint64_t index, uint32_t flags)
{
    mcz_put_le32(p + index + 32, flags);
}
static void edit_flag_bit2(uint8_t *p, size_t size, uint64_t index)
{
    (void)size;
    set_flags(p, index, mcz_get_le32(p + index + 32) | 4u);
}
static void edit_flag_bit31(uint8_t *p, size_t size, uint64_t index)
{
    (void)size;
    set_flags(p, index, mcz_get_le32(p + index + 32) | 0x80000000u);
}
static void edit_flag_toggled(uint8_t *p, size_t size, uint64_t index)
{
    (void)size;
    set_flags(p, index, mcz_get_le32(p + index + 32) ^ MCZ_ARC_INDEX_NO_HASHES);
}

static void test_reserved_flag_bits(void **state)
{
    (void)state;
    expect_rejected(with_image, with_size, edit_flag_bit2, MCZ_ECORRUPT);
    expect_rejected(with_image, with_size, edit_flag_bit31, MCZ_ECORRUPT);
    expect_rejected(without_image, without_size, edit_flag_bit2, MCZ_ECORRUPT);
    expect_rejected(without_image, without_size, edit_flag_bit31, MCZ_ECORRUPT);
}

/* Hashed index relabelled NO_HASHES with 5N contexts: 8 x 5N = 40 x N, so the size agrees and
 * the tables must catch it (the chunk counts no longer sum to N). */
static void edit_relabel_five_n(uint8_t *p, size_t size, uint64_t index)
{
    uint32_t n = mcz_get_le32(p + index + 16);
    set_flags(p, index, MCZ_ARC_INDEX_NO_HASHES);
    mcz_put_le32(p + index + 16, 5 * n);
    mcz_put_le32(footer_of(p, size) + 44, 5 * n);
}
/* Counts at their maximum: the size check refuses them before anything is allocated. */
static void edit_huge_counts(uint8_t *p, size_t size, uint64_t index)
{
    (void)index;
    mcz_put_le32(footer_of(p, size) + 40, UINT32_MAX);
    mcz_put_le32(footer_of(p, size) + 44, UINT32_MAX);
}
/* The footer claims an index of fewer bytes than its fixed head, ending at the footer. */
static void edit_tiny_index(uint8_t *p, size_t size, uint64_t index)
{
    (void)index;
    uint64_t end = size - MCZ_ARC_FOOTER_SIZE;
    mcz_put_le64(footer_of(p, size) + 16, end - 20);
    mcz_put_le64(footer_of(p, size) + 24, 20);
}
/* One context more in the footer: the hash-less size moves by 8 bytes, not 40. */
static void edit_one_more_context(uint8_t *p, size_t size, uint64_t index)
{
    (void)index;
    uint8_t *foot = footer_of(p, size);
    mcz_put_le32(foot + 44, mcz_get_le32(foot + 44) + 1);
    mcz_put_le64(foot + 16, mcz_get_le64(foot + 16) - 8);
    mcz_put_le64(foot + 24, mcz_get_le64(foot + 24) + 8);
}

/* Each forgery on the index as written (compressed) and in its raw form, whose sizes the
 * forgeries were designed against. */
static void test_forged_sizes(void **state)
{
    (void)state;
    for (int raw = 0; raw < 2; raw++) {
        size_t with_len = with_size, without_len = without_size;
        uint8_t *with = tl_copy_of(with_image, with_size);
        uint8_t *without = tl_copy_of(without_image, without_size);
        tl_recode_index(&with, &with_len, raw);
        tl_recode_index(&without, &without_len, raw);
        expect_rejected(with, with_len, edit_flag_toggled, MCZ_ECORRUPT);
        expect_rejected(without, without_len, edit_flag_toggled, MCZ_ECORRUPT);
        expect_rejected(with, with_len, edit_relabel_five_n, MCZ_ECORRUPT);
        expect_rejected(without, without_len, edit_huge_counts, MCZ_ECORRUPT);
        expect_rejected(without, without_len, edit_tiny_index, MCZ_ECORRUPT);
        expect_rejected(without, without_len, edit_one_more_context, MCZ_ECORRUPT);
        free(with);
        free(without);
    }
}

/* Every truncation of the hash-less archive is refused; so is every flipped bit of its index
 * and footer. */
static void test_damage(void **state)
{
    (void)state;
    for (size_t len = 0; len < without_size; len++) {
        uint8_t *p = tl_copy_of(without_image, len);
        assert_null(mcz_reader_open_image(p, len, NULL));
        free(p);
    }
    uint8_t *p = tl_copy_of(without_image, without_size);
    for (uint64_t at = index_offset_of(p, without_size); at < without_size; at++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            p[at] ^= (uint8_t)(1u << bit);
            mcz_reader *r = mcz_reader_open_image(p, without_size, NULL);
            if (r)
                fail_msg("flipped bit %u at %llu accepted", bit, (unsigned long long)at);
            p[at] ^= (uint8_t)(1u << bit);
        }
    }
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_ways),
        cmocka_unit_test(test_table_matches_stream),
        cmocka_unit_test(test_collector_modes),
        cmocka_unit_test(test_chunk_copies),
        cmocka_unit_test(test_reserved_flag_bits),
        cmocka_unit_test(test_forged_sizes),
        cmocka_unit_test(test_damage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
