/*
 * test_archive_index.c - the compressed index (FORMAT.md §5, format version 4): written by the
 * writers with and without hashes, read back to the same columns as its raw form (the offsets
 * rebuilt from the lengths); the raw form still read; and hostile compressed indexes (every bit
 * flipped with the footer's checksum recomputed, a frame cut short or followed by bytes, a wrong
 * decoded size, forged counts, lengths that do not tile their chunk, a frame without its content
 * size) refused with MCZ_ECORRUPT at the index, never a crash. Each image is an exact-size heap
 * copy, so the sanitizer build catches any read past its end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <zstd.h>

#include "../../tools/tool.h" /* mcz_os_setenv: POSIX and Windows */
#include "../../reader/reader_impl.h"
#include "../../format/archive.h"
#include "archive_testlib.h"
#include "index_testlib.h"
#include "../../common/mcz_common.h"

static char dir[64];
static char path[128];
static tl_corpus corpus;

/* An archive as written (index compressed) and the same with its index raw. */
typedef struct pair {
    uint8_t *packed, *raw;
    size_t packed_size, raw_size;
    uint64_t index; /* where the index starts in both */
} pair;

static pair with, without; /* with and without hashes */

static void pair_make(pair *p, bool no_hashes, uint32_t chunk_size)
{
    mcz_writer_options o = tl_small_options(chunk_size);
    o.no_hashes = no_hashes;
    assert_int_equal(tl_write(path, &corpus, &o), MCZ_OK);
    p->packed = tl_read(path, &p->packed_size);
    assert_non_null(p->packed);
    p->raw_size = p->packed_size;
    p->raw = tl_copy_of(p->packed, p->packed_size);
    tl_recode_index(&p->raw, &p->raw_size, true);
    p->index = mcz_get_le64(p->packed + p->packed_size - MCZ_ARC_FOOTER_SIZE + 16);
}

static void pair_free(pair *p)
{
    free(p->packed);
    free(p->raw);
}

static int setup(void **state)
{
    (void)state;
    assert_int_equal(mcz_os_setenv("MCZ_INDEX_STREAM_MIN", "0"), 0); /* every reader streams its hash columns */
    tl_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/a.mcz", dir);
    tl_corpus_make(&corpus, 40, 0);
    pair_make(&with, false, 2048);
    pair_make(&without, true, 2048);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    pair_free(&with);
    pair_free(&without);
    tl_corpus_free(&corpus);
    tl_rmdir(dir);
    return 0;
}

static uint32_t index_flags(const uint8_t *image, uint64_t index)
{
    return mcz_get_le32(image + index + 32);
}

/* ---- Round trips ---- */

/* mcz_reader_context_with(r, pos, parts) gives all's place and the hashes parts names, the
 * others zero; a mask beyond MCZ_CONTEXT_ALL is refused. */
static void expect_parts(const mcz_reader *r, uint64_t pos, unsigned parts,
                         const mcz_context_info *all)
{
    static const uint8_t zero[16];
    mcz_context_info z;
    assert_int_equal(mcz_reader_context_with(r, pos, parts, &z), MCZ_OK);
    assert_int_equal(z.number, all->number);
    assert_int_equal(z.size, all->size);
    assert_int_equal(z.chunk, all->chunk);
    assert_int_equal(z.mch_offset, all->mch_offset);
    assert_int_equal(z.hashes, all->hashes);
    assert_memory_equal(z.identity.bytes, parts & MCZ_CONTEXT_IDENTITY ? all->identity.bytes : zero,
                        16);
    assert_memory_equal(z.dedup.bytes, parts & MCZ_CONTEXT_DEDUP ? all->dedup.bytes : zero, 16);
    assert_int_equal(mcz_reader_context_with(r, pos, MCZ_CONTEXT_ALL + 1, &z), MCZ_EINVAL);
}

/* The stored hashes of every context of r (its index lean or whole) in the order of step:
 * forward, backward, and jumping both ways, so the lean index's streams start again. */
static void expect_same_hashes(const mcz_reader *a, const mcz_reader *b, uint32_t step)
{
    uint32_t n = a->index.context_count;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t pos = (uint64_t)k * step % n;
        mcz_context_info x, y;
        assert_int_equal(mcz_reader_context(a, pos, &x), MCZ_OK);
        assert_int_equal(mcz_reader_context(b, pos, &y), MCZ_OK);
        assert_int_equal(x.hashes, y.hashes);
        assert_int_equal(x.number, y.number);
        assert_int_equal(x.size, y.size);
        assert_int_equal(x.mch_offset, y.mch_offset); /* rebuilt from the lengths, or stored */
        assert_memory_equal(x.identity.bytes, y.identity.bytes, 16);
        assert_memory_equal(x.dedup.bytes, y.dedup.bytes, 16);
        mcz_hash128 dedup;
        if (x.hashes) {
            assert_int_equal(mcz_reader_hashes(a, x.number, NULL, &dedup), MCZ_OK);
            assert_memory_equal(dedup.bytes, y.dedup.bytes, 16);
        }
        expect_parts(a, pos, k % 4, &x);
    }
}

/* The two readers present the same columns, offsets included; a reader's lean index holds no
 * per-context column, and serves the same lengths and hashes from its frame. */
static void expect_same_readers(const mcz_reader *a, const mcz_reader *b)
{
    static const uint32_t steps[] = {1, 39, 7, 13};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        expect_same_hashes(a, b, steps[i]);
    assert_null(a->index.identity);
    assert_null(a->index.lengths);
    assert_null(a->index.offsets);
    assert_non_null(a->index.packed);
}

/* The two indexes present the same columns (those both hold). */
static void expect_same_index(const mcz_arc_index *a, const mcz_arc_index *b)
{
    assert_int_equal(a->chunk_count, b->chunk_count);
    assert_int_equal(a->context_count, b->context_count);
    assert_int_equal(a->first_number, b->first_number);
    assert_int_equal(a->raw_bytes, b->raw_bytes);
    assert_int_equal(a->has_hashes, b->has_hashes);
    size_t n = a->context_count;
    assert_memory_equal(a->chunks, b->chunks, (size_t)MCZ_ARC_CHUNK_ENTRY * a->chunk_count);
    if (a->offsets && b->offsets)
        assert_memory_equal(a->offsets, b->offsets, 4 * n);
    if (a->lengths && b->lengths)
        assert_memory_equal(a->lengths, b->lengths, 4 * n);
    if (a->has_hashes && a->identity && b->identity) {
        assert_memory_equal(a->identity, b->identity, 16 * n);
        assert_memory_equal(a->dedup, b->dedup, 16 * n);
    }
}

static void check_pair(const pair *p, bool hashes)
{
    assert_int_equal(index_flags(p->packed, p->index),
                     MCZ_ARC_INDEX_COMPRESSED | (hashes ? 0 : MCZ_ARC_INDEX_NO_HASHES));
    assert_int_equal(index_flags(p->raw, p->index), hashes ? 0 : MCZ_ARC_INDEX_NO_HASHES);
    assert_true(p->packed_size < p->raw_size);
    assert_memory_equal(p->packed, p->raw, p->index); /* only the index differs */
    mcz_diag d;
    mcz_reader *a = mcz_reader_open_image(p->packed, p->packed_size, &d);
    if (!a)
        fail_msg("compressed index refused: %s", d.message);
    mcz_reader *b = mcz_reader_open_image(p->raw, p->raw_size, &d);
    if (!b)
        fail_msg("raw index refused: %s", d.message);
    expect_same_index(&a->index, &b->index);
    expect_same_readers(a, b);
    mcz_arc_footer f;
    mcz_arc_index whole;
    assert_int_equal(mcz_arc_footer_decode(p->packed, p->packed_size, &f, NULL), MCZ_OK);
    assert_int_equal(mcz_arc_index_decode(p->packed, p->packed_size, &f, MCZ_ARC_HEADER_SIZE,
                                          &whole, NULL), MCZ_OK);
    expect_same_index(&whole, &b->index); /* the whole decode keeps the per-context columns */
    assert_true(whole.lengths && !whole.offsets && (!hashes || whole.identity));
    mcz_arc_index_free(&whole);
    assert_non_null(a->index.owned);
    assert_null(b->index.owned);
    assert_int_equal(mcz_reader_verify(a, NULL, NULL, &d), MCZ_OK);
    assert_int_equal(mcz_reader_verify(b, NULL, NULL, &d), MCZ_OK);
    mcz_archive_info info;
    mcz_reader_get_info(b, &info);
    assert_int_equal(info.version, 4); /* the raw form is version 4 too */
    mcz_reader_close(a);
    mcz_reader_close(b);
}

static void test_round_trip(void **state)
{
    (void)state;
    check_pair(&with, true);
    check_pair(&without, false);
    /* Compressing the raw form again gives back what the writer wrote, byte for byte. */
    size_t size = with.raw_size;
    uint8_t *again = tl_copy_of(with.raw, with.raw_size);
    tl_recode_index(&again, &size, false);
    assert_int_equal(size, with.packed_size);
    assert_memory_equal(again, with.packed, size);
    free(again);
}

/* An index that compression does not make smaller (no contexts at all) stays raw. */
static void test_small_index_stays_raw(void **state)
{
    (void)state;
    tl_corpus empty = {0};
    mcz_writer_options o = tl_small_options(2048);
    o.no_dict = true;
    assert_int_equal(tl_write(path, &empty, &o), MCZ_OK);
    size_t size = 0;
    uint8_t *p = tl_read(path, &size);
    assert_non_null(p);
    uint64_t index = mcz_get_le64(p + size - MCZ_ARC_FOOTER_SIZE + 16);
    assert_int_equal(index_flags(p, index), 0);
    assert_int_equal(size - index - MCZ_ARC_FOOTER_SIZE, MCZ_ARC_INDEX_HEAD);
    mcz_reader *r = mcz_reader_open_image(p, size, NULL);
    assert_non_null(r);
    mcz_reader_close(r);
    free(p);
}

/* ---- Hostile compressed indexes ---- */

/* Must be refused: MCZ_ECORRUPT (or code), reported inside the index frame. */
static void expect_refused(const uint8_t *image, size_t size, uint64_t index, int code)
{
    uint8_t *p = tl_copy_of(image, size);
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_reader *r = mcz_reader_open_image(p, size, &d);
    if (r)
        fail_msg("hostile index accepted (expected %s)", mcz_error_name(code));
    assert_int_equal(d.code, code);
    assert_true(d.offset >= (int64_t)index);
    assert_true(d.message[0] != '\0');
    free(p);
}

/* Whether two decoded indexes present the same columns. */
static bool same_index(const mcz_arc_index *a, const mcz_arc_index *b)
{
    size_t n = a->context_count, k = a->chunk_count;
    return a->chunk_count == b->chunk_count && a->context_count == b->context_count &&
           a->first_number == b->first_number && a->raw_bytes == b->raw_bytes &&
           a->has_hashes == b->has_hashes &&
           !memcmp(a->chunks, b->chunks, (size_t)MCZ_ARC_CHUNK_ENTRY * k) &&
           (!a->offsets || !memcmp(a->offsets, b->offsets, 4 * n)) &&
           !memcmp(a->lengths, b->lengths, 4 * n) &&
           (!a->has_hashes || (!memcmp(a->identity, b->identity, 16 * n) &&
                               !memcmp(a->dedup, b->dedup, 16 * n)));
}

/* Whether two images decode (whole: hash columns included) to the same columns. */
static bool same_decoded(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size)
{
    mcz_arc_footer fa, fb;
    mcz_arc_index x, y;
    if (mcz_arc_footer_decode(a, a_size, &fa, NULL) != MCZ_OK ||
        mcz_arc_footer_decode(b, b_size, &fb, NULL) != MCZ_OK ||
        mcz_arc_index_decode(a, a_size, &fa, MCZ_ARC_HEADER_SIZE, &x, NULL) != MCZ_OK)
        return false;
    bool decoded = mcz_arc_index_decode(b, b_size, &fb, MCZ_ARC_HEADER_SIZE, &y, NULL) == MCZ_OK;
    bool same = decoded && same_index(&x, &y);
    if (decoded)
        mcz_arc_index_free(&y);
    mcz_arc_index_free(&x);
    return same;
}

/* Every bit of the index frame flipped, the footer's checksum recomputed so that the decoder's
 * own checks must catch it. A flip may go unnoticed at open where it changes nothing decoded (a
 * zstd frame header bit zstd ignores) or where open checks nothing (a hash byte): then deep
 * verification, which recomputes the hashes, must fail. */
static void flip_every_bit(const pair *pr)
{
    const size_t end = pr->packed_size - MCZ_ARC_FOOTER_SIZE;
    mcz_reader *orig = mcz_reader_open_image(pr->packed, pr->packed_size, NULL);
    assert_non_null(orig);
    uint8_t *p = tl_copy_of(pr->packed, pr->packed_size);
    uint32_t opened = 0, same = 0;
    for (size_t at = pr->index; at < end; at++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            p[at] ^= (uint8_t)(1u << bit);
            tl_reseal(p, pr->packed_size);
            mcz_diag d;
            mcz_reader *r = mcz_reader_open_image(p, pr->packed_size, &d);
            if (r && same_decoded(p, pr->packed_size, pr->packed, pr->packed_size)) {
                same++;
            } else if (r) {
                opened++;
                assert_int_not_equal(mcz_reader_verify(r, NULL, NULL, NULL), MCZ_OK);
            } else {
                assert_true(d.code < 0 && d.offset >= 0 && d.message[0]);
            }
            mcz_reader_close(r);
            p[at] ^= (uint8_t)(1u << bit);
        }
    }
    tl_reseal(p, pr->packed_size);
    assert_memory_equal(p, pr->packed, pr->packed_size);
    /* %u alone: on Windows cmocka's print_message is checked as msvcrt's printf (no %zu) */
    print_message("%u flips: %u change nothing decoded, %u open and fail verification\n",
                  (unsigned)((end - (size_t)pr->index) * 8), same, opened);
    mcz_reader_close(orig);
    free(p);
}

static void test_every_bit_flipped(void **state)
{
    (void)state;
    flip_every_bit(&with);
    flip_every_bit(&without);
}

/* The image with its index frame replaced by head (the raw frame's fixed head, flags and
 * payload size adjusted), the decoded size `decoded` and the zstd bytes z[0, z_len); the footer
 * re-encoded to match. */
static uint8_t *with_frame(const pair *pr, uint64_t decoded, const uint8_t *z, size_t z_len,
                           size_t *size)
{
    size_t frame = MCZ_ARC_INDEX_PACKED_HEAD + z_len;
    *size = (size_t)pr->index + frame + MCZ_ARC_FOOTER_SIZE;
    uint8_t *p = malloc(*size);
    assert_non_null(p);
    memcpy(p, pr->raw, (size_t)pr->index + MCZ_ARC_INDEX_HEAD);
    uint8_t *h = p + pr->index;
    mcz_put_le32(h + 4, (uint32_t)(frame - MCZ_ARC_FRAME_HEAD));
    mcz_put_le32(h + 32, mcz_get_le32(h + 32) | MCZ_ARC_INDEX_COMPRESSED);
    mcz_put_le64(h + 36, decoded);
    memcpy(h + MCZ_ARC_INDEX_PACKED_HEAD, z, z_len);
    mcz_arc_footer f = {MCZ_ARC_VERSION, pr->index, frame, 0, mcz_get_le32(h + 12),
                        mcz_get_le32(h + 16)};
    mcz_arc_footer_encode(&f, p + *size - MCZ_ARC_FOOTER_SIZE);
    tl_reseal(p, *size);
    return p;
}

/* The columns a compressed index holds, taken from the raw frame (malloc'ed). */
static uint8_t *columns_of(const pair *pr, size_t *len)
{
    const uint8_t *raw = pr->raw + pr->index;
    size_t frame = pr->raw_size - (size_t)pr->index - MCZ_ARC_FOOTER_SIZE;
    size_t table = (size_t)MCZ_ARC_CHUNK_ENTRY * mcz_get_le32(raw + 12);
    size_t offsets = 4 * (size_t)mcz_get_le32(raw + 16);
    *len = frame - MCZ_ARC_INDEX_HEAD - offsets;
    uint8_t *c = malloc(*len);
    assert_non_null(c);
    memcpy(c, raw + MCZ_ARC_INDEX_HEAD, table);
    memcpy(c + table, raw + MCZ_ARC_INDEX_HEAD + table + offsets, *len - table);
    return c;
}

/* cols[0, len) compressed, with or without the content size in the frame header. */
static uint8_t *compress(const uint8_t *cols, size_t len, bool content_size, size_t *z_len)
{
    size_t cap = ZSTD_compressBound(len);
    uint8_t *z = malloc(cap);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert_non_null(z);
    assert_non_null(cctx);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, content_size);
    *z_len = ZSTD_compress2(cctx, z, cap, cols, len);
    assert_false(ZSTD_isError(*z_len));
    ZSTD_freeCCtx(cctx);
    return z;
}

/* Compresses pr's columns after edit, frames them claiming decoded + delta bytes (with z_cut
 * bytes of the zstd frame cut off, or -z_cut bytes of garbage after it), and expects refusal. */
typedef struct forgery {
    void (*edit)(uint8_t *cols, const pair *pr);
    int64_t delta;
    int z_cut;
    bool no_content_size;
} forgery;

static void expect_forgery_refused(const pair *pr, const forgery *f)
{
    size_t len, z_len, size;
    uint8_t *cols = columns_of(pr, &len);
    if (f->edit)
        f->edit(cols, pr);
    uint8_t *z = compress(cols, len, !f->no_content_size, &z_len);
    if (f->z_cut < 0) {
        size_t extra = (size_t)-f->z_cut;
        z = realloc(z, z_len + extra);
        assert_non_null(z);
        memset(z + z_len, 0, extra);
        z_len += extra;
    } else {
        z_len -= (size_t)f->z_cut;
    }
    uint8_t *p = with_frame(pr, (uint64_t)((int64_t)len + f->delta), z, z_len, &size);
    expect_refused(p, size, pr->index, MCZ_ECORRUPT);
    free(p);
    free(z);
    free(cols);
}

static uint8_t *lengths_of(uint8_t *cols, const pair *pr)
{
    return cols + (size_t)MCZ_ARC_CHUNK_ENTRY * mcz_get_le32(pr->raw + pr->index + 12);
}
static void edit_length_plus_one(uint8_t *cols, const pair *pr)
{
    uint8_t *l = lengths_of(cols, pr) + 4;
    mcz_put_le32(l, mcz_get_le32(l) + 1); /* chunk 0's lengths no longer sum to its raw size */
}
static void edit_lengths_swapped_across(uint8_t *cols, const pair *pr)
{
    uint32_t first = mcz_get_le32(cols + 20); /* chunk 0's count */
    uint8_t *l = lengths_of(cols, pr) + 4 * (size_t)(first - 1);
    mcz_put_le32(l, mcz_get_le32(l) + 8);      /* the last of chunk 0 takes 8 bytes */
    mcz_put_le32(l + 4, mcz_get_le32(l + 4) - 8); /* from the first of chunk 1: sum unchanged */
}
static void edit_length_huge(uint8_t *cols, const pair *pr)
{
    mcz_put_le32(lengths_of(cols, pr), UINT32_MAX);
}
static void edit_count_past_n(uint8_t *cols, const pair *pr)
{
    mcz_put_le32(cols + 20, mcz_get_le32(pr->raw + pr->index + 16) + 7);
}

static void test_forged_frames(void **state)
{
    (void)state;
    const forgery forgeries[] = {
        {NULL, 0, 0, false},                      /* the control: accepted */
        {NULL, 1, 0, false},                      /* decoded size one too many */
        {NULL, -1, 0, false},                     /* one too few */
        {NULL, INT64_MAX / 2, 0, false},          /* huge: refused before allocating */
        {NULL, 0, 1, false},                      /* frame cut short */
        {NULL, 0, -3, false},                     /* bytes after the frame */
        {NULL, 0, 0, true},                       /* no content size */
        {edit_length_plus_one, 0, 0, false},
        {edit_lengths_swapped_across, 0, 0, false},
        {edit_length_huge, 0, 0, false},
        {edit_count_past_n, 0, 0, false},
    };
    const pair *pairs[] = {&with, &without};
    for (size_t k = 0; k < 2; k++) {
        size_t len, z_len, size;
        uint8_t *cols = columns_of(pairs[k], &len);
        uint8_t *z = compress(cols, len, true, &z_len);
        uint8_t *p = with_frame(pairs[k], len, z, z_len, &size);
        mcz_reader *r = mcz_reader_open_image(p, size, NULL);
        assert_non_null(r); /* the control: an index built here, not by the writer, reads */
        assert_int_equal(mcz_reader_verify(r, NULL, NULL, NULL), MCZ_OK);
        mcz_reader_close(r);
        free(p);
        free(z);
        free(cols);
        for (size_t i = 1; i < sizeof forgeries / sizeof forgeries[0]; i++)
            expect_forgery_refused(pairs[k], &forgeries[i]);
    }
}

/* A length damaged in a compressed index (its checksum recomputed) is refused with the same
 * error whether the reader holds the lengths whole or streams them from the frame at open. */
static void test_lengths_damage_same_error(void **state)
{
    (void)state;
    void (*edits[])(uint8_t *, const pair *) = {edit_length_plus_one, edit_lengths_swapped_across,
                                                edit_length_huge};
    const pair *pairs[] = {&with, &without};
    for (size_t k = 0; k < 2; k++) {
        for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
            size_t len, z_len, size;
            uint8_t *cols = columns_of(pairs[k], &len);
            edits[e](cols, pairs[k]);
            uint8_t *z = compress(cols, len, true, &z_len);
            uint8_t *p = with_frame(pairs[k], len, z, z_len, &size);
            mcz_diag held, streamed;
            assert_int_equal(mcz_os_setenv("MCZ_INDEX_STREAM_MIN", "18446744073709551615"), 0);
            assert_null(mcz_reader_open_image(p, size, &held));
            assert_int_equal(mcz_os_setenv("MCZ_INDEX_STREAM_MIN", "0"), 0);
            assert_null(mcz_reader_open_image(p, size, &streamed));
            assert_int_equal(held.code, MCZ_ECORRUPT);
            assert_int_equal(streamed.code, held.code);
            assert_int_equal(streamed.offset, held.offset);
            assert_int_equal(streamed.context, held.context);
            assert_string_equal(streamed.message, held.message);
            free(p);
            free(z);
            free(cols);
        }
    }
}

/* Each context of a (a lean index) and b (the same archive, raw index) at positions visited
 * with step from the last one, through the index and through a cursor. A stream's window
 * begins at the read that fills it, so each step back past the start is read behind it. */
static void expect_same_places(const mcz_reader *a, const mcz_reader *b, uint32_t step)
{
    uint32_t n = a->index.context_count;
    mcz_cursor *cur = mcz_cursor_create(a);
    assert_non_null(cur);
    for (uint32_t k = 0; k < n; k++) {
        uint64_t pos = ((uint64_t)k * step + n - 1) % n;
        mcz_context_info x, y;
        assert_int_equal(mcz_reader_context(a, pos, &x), MCZ_OK);
        assert_int_equal(mcz_reader_context(b, pos, &y), MCZ_OK);
        assert_int_equal(x.size, y.size);
        assert_int_equal(x.mch_offset, y.mch_offset);
        assert_int_equal(x.mch_offset, corpus.offsets[x.number - 1]);
        mcz_mc mc;
        assert_int_equal(mcz_cursor_get(cur, x.number, &mc, NULL), MCZ_OK);
        assert_int_equal(mc.size, corpus.sizes[x.number - 1]);
        assert_memory_equal(mc.bytes, corpus.bytes + corpus.offsets[x.number - 1], mc.size);
    }
    mcz_cursor_free(cur);
}

/* A lean index read in order keeps its lengths in the frame; read out of order (by position
 * and by chunk, through a cursor), its stream starts again, then the lengths are decoded whole
 * once, the answers the same throughout. */
static void test_lean_out_of_order(void **state)
{
    (void)state;
    mcz_reader *a = mcz_reader_open_image(with.packed, with.packed_size, NULL);
    mcz_reader *b = mcz_reader_open_image(with.raw, with.raw_size, NULL);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(a->index.packed);
    expect_same_places(a, b, 1); /* the last, then all in order: one read behind */
    expect_same_places(a, b, 7); /* the window now holds all 40 lengths */
    assert_false(mcz_rd_column_whole(a, MCZ_ARC_COL_LENGTHS));
    assert_false(mcz_rd_column_whole(a, MCZ_ARC_COL_IDENTITY));
    mcz_reader_close(a);
    a = mcz_reader_open_image(with.packed, with.packed_size, NULL);
    assert_non_null(a);
    expect_same_places(a, b, a->index.context_count - 1); /* backwards: 35 chunks, 40 contexts */
    assert_true(mcz_rd_column_whole(a, MCZ_ARC_COL_LENGTHS));
    assert_true(mcz_rd_column_whole(a, MCZ_ARC_COL_IDENTITY));
    expect_same_places(a, b, 13);
    mcz_reader_close(a);
    mcz_reader_close(b);
}

/* A frame with zstd's content checksum after its last block (writers write none, but the
 * format does not forbid it) opens held whole and streamed alike, a lean open decoding the
 * frame to its end; a damaged checksum is refused both ways. */
static void test_frame_with_checksum(void **state)
{
    (void)state;
    size_t len, z_len, size;
    uint8_t *cols = columns_of(&with, &len);
    size_t cap = ZSTD_compressBound(len);
    uint8_t *z = malloc(cap);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert_non_null(z);
    assert_non_null(cctx);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    z_len = ZSTD_compress2(cctx, z, cap, cols, len);
    assert_false(ZSTD_isError(z_len));
    ZSTD_freeCCtx(cctx);
    for (int damaged = 0; damaged < 2; damaged++) {
        z[z_len - 1] ^= (uint8_t)damaged; /* the checksum's last byte */
        uint8_t *p = with_frame(&with, len, z, z_len, &size);
        const char *bounds[] = {"18446744073709551615", "0"}; /* held whole, streamed */
        for (int b = 0; b < 2; b++) {
            assert_int_equal(mcz_os_setenv("MCZ_INDEX_STREAM_MIN", bounds[b]), 0);
            mcz_diag d;
            mcz_reader *r = mcz_reader_open_image(p, size, &d);
            assert_int_equal(r != NULL, !damaged);
            if (r)
                assert_int_equal(r->index.packed != NULL, b == 1);
            else
                assert_int_equal(d.code, MCZ_ECORRUPT);
            mcz_reader_close(r);
        }
        free(p);
    }
    free(z);
    free(cols);
}

/* Counts the size of the file cannot hold, with a decoded size that agrees with them: refused
 * on the file size, before a buffer for them is allocated. */
static void test_counts_bounded_by_file(void **state)
{
    (void)state;
    const uint32_t counts[][2] = {{1, 1u << 28}, {1u << 26, 1}, {UINT32_MAX, UINT32_MAX}};
    for (size_t i = 0; i < 3; i++) {
        uint8_t *p = tl_copy_of(with.packed, with.packed_size);
        uint8_t *h = p + with.index, *foot = p + with.packed_size - MCZ_ARC_FOOTER_SIZE;
        uint64_t k = counts[i][0], n = counts[i][1];
        mcz_put_le32(h + 12, (uint32_t)k);
        mcz_put_le32(h + 16, (uint32_t)n);
        mcz_put_le64(h + 36, 32 * k + 36 * n);
        mcz_put_le32(foot + 40, (uint32_t)k);
        mcz_put_le32(foot + 44, (uint32_t)n);
        tl_reseal(p, with.packed_size);
        expect_refused(p, with.packed_size, with.index, MCZ_ECORRUPT);
        free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_small_index_stays_raw),
        cmocka_unit_test(test_every_bit_flipped),
        cmocka_unit_test(test_forged_frames),
        cmocka_unit_test(test_counts_bounded_by_file),
        cmocka_unit_test(test_lengths_damage_same_error),
        cmocka_unit_test(test_lean_out_of_order),
        cmocka_unit_test(test_frame_with_checksum),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
