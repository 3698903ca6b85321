/*
 * test_frames.c - the frame parser (mcz_frame_parser): archives of every kind (dictionary or
 * none, xz, metadata, no hashes, plain layout, empty) pushed whole, a byte at a time and in
 * uneven pieces give the same events, each the archive's own bytes; every prefix ends cleanly
 * with what it held and the torn rest counted; every byte of an archive damaged is refused
 * exactly when the file reader (open and verify) refuses it; a version or flag it does not
 * know, bytes after the footer, a stream that is no archive; the failure is sticky.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "../../format/archive.h"
#include "../../reader/reader_impl.h"
#include "archive_testlib.h"

#define MAX_EVENTS 256

typedef struct parsed {
    int rc;
    mcz_diag diag;
    size_t n;
    mcz_frame_event ev[MAX_EVENTS];
    uint64_t hash[MAX_EVENTS]; /* XXH3 of each event's bytes */
    mcz_frame_event end;
} parsed;

typedef struct archive {
    const char *name;
    uint8_t *bytes;
    size_t size;
} archive;

enum { DICT, NODICT, XZ, META, NOHASH, PLAIN, EMPTY, ARCHIVES };
static archive archives[ARCHIVES];
static char dir[64];
static tl_corpus corpus;
static parsed whole, other; /* large: static */

static int write_one(int which, const char *name, mcz_writer_options o, uint32_t contexts)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s.mcz", dir, name);
    tl_corpus c = corpus;
    c.n = contexts;
    if (tl_write(path, &c, &o) != MCZ_OK)
        return -1;
    archives[which].name = name;
    archives[which].bytes = tl_read(path, &archives[which].size);
    return archives[which].bytes ? 0 : -1;
}

static int setup(void **state)
{
    (void)state;
    tl_tmpdir(dir, sizeof dir);
    tl_corpus_make(&corpus, 120, 0);
    mcz_writer_options o = tl_small_options(4096);
    int rc = write_one(DICT, "dict", o, corpus.n);
    o.no_dict = true;
    rc |= write_one(NODICT, "nodict", o, corpus.n);
    mcz_writer_options x = o;
    x.codec = MCZ_CODEC_XZ;
    x.level = 1;
    rc |= write_one(XZ, "xz", x, 40);
    mcz_writer_options m = o;
    m.jit_ee_guid = "28808a0e-5dc5-48bd-a7eb-27def284eff0";
    m.target_os = "linux";
    m.target_arch = "x64";
    rc |= write_one(META, "meta", m, 40);
    mcz_writer_options h = o;
    h.no_hashes = true;
    rc |= write_one(NOHASH, "nohash", h, 40);
    mcz_writer_options l = o;
    l.layout = MCZ_LAYOUT_PLAIN;
    rc |= write_one(PLAIN, "plain", l, 40);
    rc |= write_one(EMPTY, "empty", o, 0);
    return rc;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < ARCHIVES; i++)
        free(archives[i].bytes);
    tl_corpus_free(&corpus);
    tl_rmdir(dir);
    return 0;
}

/* Pushes bytes[0, size) in pieces of `piece` bytes (0: all at once; -1: uneven, 1 to 97). */
static void parse(const uint8_t *bytes, size_t size, int piece, parsed *out)
{
    memset(out, 0, sizeof *out);
    mcz_frame_parser *p = mcz_frame_parser_create();
    assert_non_null(p);
    size_t at = 0;
    uint32_t uneven = 1;
    for (;;) {
        size_t len = size - at;
        if (piece < 0)
            uneven = uneven % 97 + 13;
        size_t cut = piece > 0 ? (size_t)piece : piece < 0 ? uneven % 97 + 1 : len;
        len = cut < len ? cut : len;
        size_t used;
        mcz_frame_event ev;
        out->rc = mcz_frame_parser_push(p, bytes + at, len, &used, &ev, &out->diag);
        if (out->rc != MCZ_OK)
            break;
        at += used;
        if (ev.kind == MCZ_FRAME_NONE) {
            assert_int_equal(used, len);
            if (at == size)
                break;
            continue;
        }
        assert_true(out->n < MAX_EVENTS);
        out->hash[out->n] = XXH3_64bits(ev.bytes, ev.size);
        out->ev[out->n++] = ev;
    }
    if (out->rc == MCZ_OK)
        out->rc = mcz_frame_parser_end(p, &out->end, &out->diag);
    mcz_frame_parser_free(p);
}

static void assert_same(const parsed *a, const parsed *b)
{
    assert_int_equal(a->rc, b->rc);
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->ev[i].kind, b->ev[i].kind);
        assert_int_equal(a->ev[i].offset, b->ev[i].offset);
        assert_int_equal(a->ev[i].size, b->ev[i].size);
        assert_int_equal(a->ev[i].first_number, b->ev[i].first_number);
        assert_int_equal(a->hash[i], b->hash[i]);
    }
    assert_int_equal(a->end.complete, b->end.complete);
    assert_int_equal(a->end.torn, b->end.torn);
}

static bool reader_takes(const uint8_t *bytes, size_t size)
{
    mcz_reader *r = mcz_reader_open_image(bytes, size, NULL);
    bool ok = r && mcz_reader_verify(r, NULL, NULL, NULL) == MCZ_OK;
    mcz_reader_close(r);
    return ok;
}

/* Each archive whole: its frames in order, each its own bytes, as the reader sees them. */
static void test_events_are_the_archive(void **state)
{
    (void)state;
    for (int a = 0; a < ARCHIVES; a++) {
        const archive *ar = &archives[a];
        parse(ar->bytes, ar->size, 0, &whole);
        assert_int_equal(whole.rc, MCZ_OK);
        assert_true(whole.end.complete);
        assert_int_equal(whole.end.torn, 0);
        assert_int_equal(whole.ev[0].kind, MCZ_FRAME_HEADER);
        assert_int_equal(whole.ev[whole.n - 1].kind, MCZ_FRAME_FOOTER);
        assert_int_equal(whole.ev[whole.n - 2].kind, MCZ_FRAME_INDEX);
        uint64_t next = 0, chunks = 0;
        for (size_t i = 0; i < whole.n; i++) {
            const mcz_frame_event *ev = &whole.ev[i];
            assert_int_equal(ev->offset, next); /* back to back from 0 */
            assert_int_equal(whole.hash[i], XXH3_64bits(ar->bytes + ev->offset, ev->size));
            next += ev->size;
            chunks += ev->kind == MCZ_FRAME_CHUNK;
        }
        assert_int_equal(next, ar->size);
        mcz_reader *r = mcz_reader_open_image(ar->bytes, ar->size, NULL);
        assert_non_null(r);
        mcz_archive_info info;
        mcz_reader_get_info(r, &info);
        assert_int_equal(chunks, info.chunks);
        assert_int_equal(whole.end.context_count, info.contexts);
        mcz_reader_close(r);
        bool has_dict = a == DICT, has_meta = a == META;
        assert_int_equal(whole.ev[1].kind, has_dict   ? MCZ_FRAME_DICT
                                           : has_meta ? MCZ_FRAME_META
                                           : a == EMPTY ? MCZ_FRAME_INDEX
                                                        : MCZ_FRAME_CHUNK);
        if (has_meta)
            assert_string_equal(whole.ev[whole.n - 1].jit_ee_guid,
                                "28808a0e-5dc5-48bd-a7eb-27def284eff0");
        assert_int_equal(whole.ev[0].codec, a == XZ ? MCZ_CODEC_XZ : MCZ_CODEC_ZSTD);
    }
}

/* A byte at a time, 7 at a time and uneven pieces equal all at once. */
static void test_pieces_equal_whole(void **state)
{
    (void)state;
    static const int pieces[] = {1, 7, -1};
    for (int a = 0; a < ARCHIVES; a++) {
        parse(archives[a].bytes, archives[a].size, 0, &whole);
        for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
            parse(archives[a].bytes, archives[a].size, pieces[k], &other);
            assert_same(&whole, &other);
        }
    }
}

/* Every frame boundary, and a byte past it: a clean prefix; the frame begun is torn. */
static void test_prefixes(void **state)
{
    (void)state;
    for (int a = 0; a < ARCHIVES; a++) {
        const archive *ar = &archives[a];
        parse(ar->bytes, ar->size, 0, &whole);
        size_t frames = whole.n;
        mcz_frame_event ev[MAX_EVENTS];
        memcpy(ev, whole.ev, sizeof ev);
        for (size_t i = 0; i < frames; i++) {
            uint64_t cut = ev[i].offset; /* everything before frame i */
            for (uint64_t extra = 0; extra < 2; extra++) {
                parse(ar->bytes, (size_t)(cut + extra), 0, &other);
                assert_int_equal(other.rc, MCZ_OK);
                assert_false(other.end.complete);
                /* the footer's index is dropped with the footer */
                uint64_t pending = ev[i].kind == MCZ_FRAME_FOOTER ? ev[i - 1].size : 0;
                assert_int_equal(other.end.torn, extra + pending);
                size_t expect = i - (ev[i].kind == MCZ_FRAME_FOOTER);
                assert_int_equal(other.n, expect);
            }
        }
    }
}

/* Bit flips across an archive: the parser refuses exactly what the file reader refuses. */
static void test_damage_as_the_reader(void **state)
{
    (void)state;
    for (int a = 0; a < ARCHIVES; a++) {
        const archive *ar = &archives[a];
        uint8_t *copy = tl_copy_of(ar->bytes, ar->size);
        size_t stride = ar->size > 4000 ? 13 : 1, refused = 0, torn = 0;
        for (size_t at = 0; at < ar->size; at += stride) {
            uint8_t bit = (uint8_t)(1u << (at % 8));
            copy[at] ^= bit;
            parse(copy, ar->size, 0, &whole);
            bool parser_ok = whole.rc == MCZ_OK && whole.end.complete;
            bool reader_ok = reader_takes(copy, ar->size);
            if (parser_ok != reader_ok)
                fail_msg("%s: byte %zu bit 0x%x: parser %s (%s), reader %s", ar->name, at, bit,
                         parser_ok ? "takes" : "refuses", whole.diag.message,
                         reader_ok ? "takes" : "refuses");
            refused += !parser_ok;
            if (whole.rc != MCZ_OK) {
                assert_true(whole.diag.offset >= 0 && (size_t)whole.diag.offset <= ar->size);
                assert_true(whole.diag.message[0] != '\0');
            } else if (!parser_ok) {
                /* a size made larger: the stream ends inside that frame, as a cut one does */
                assert_true(whole.end.torn > 0);
                torn++;
            }
            copy[at] ^= bit;
        }
        assert_true(refused > torn);
        free(copy);
    }
}

/* The header resealed with a version after this build's, and with a flag it does not know. */
static void test_unknown_version_and_flag(void **state)
{
    (void)state;
    const archive *ar = &archives[NODICT];
    uint8_t *copy = tl_copy_of(ar->bytes, ar->size);
    mcz_put_le32(copy + 12, MCZ_ARC_VERSION + 1);
    mcz_put_le64(copy + 36, XXH3_64bits(copy, 36));
    parse(copy, ar->size, 1, &whole);
    assert_int_equal(whole.rc, MCZ_EVERSION);
    assert_int_equal(whole.diag.offset, 12);
    assert_false(reader_takes(copy, ar->size));
    memcpy(copy, ar->bytes, MCZ_ARC_HEADER_SIZE);
    mcz_put_le32(copy + 16, mcz_get_le32(copy + 16) | 0x100u);
    mcz_put_le64(copy + 36, XXH3_64bits(copy, 36));
    parse(copy, ar->size, 0, &whole);
    assert_int_equal(whole.rc, MCZ_ECORRUPT);
    assert_int_equal(whole.diag.offset, 16);
    assert_false(reader_takes(copy, ar->size));
    free(copy);
}

/* Bytes after the footer, a stream that is no archive, and a failure that stays. */
static void test_refusals_are_sticky(void **state)
{
    (void)state;
    const archive *ar = &archives[NODICT];
    uint8_t *longer = malloc(ar->size + 1);
    memcpy(longer, ar->bytes, ar->size);
    longer[ar->size] = 0;
    parse(longer, ar->size + 1, 0, &whole);
    assert_int_equal(whole.rc, MCZ_ECORRUPT);
    assert_int_equal(whole.diag.offset, ar->size);
    free(longer);

    mcz_frame_parser *p = mcz_frame_parser_create();
    size_t used;
    mcz_frame_event ev;
    mcz_diag d;
    static const char text[] = "hello, this is no archive";
    assert_int_equal(mcz_frame_parser_push(p, text, sizeof text, &used, &ev, &d), MCZ_ECORRUPT);
    assert_int_equal(d.offset, 0);
    assert_non_null(strstr(d.message, "archive header"));
    assert_int_equal(mcz_frame_parser_push(p, ar->bytes, ar->size, &used, &ev, &d),
                     MCZ_ECORRUPT);
    assert_int_equal(used, 0);
    assert_int_equal(mcz_frame_parser_end(p, &ev, &d), MCZ_ECORRUPT);
    mcz_frame_parser_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_are_the_archive),
        cmocka_unit_test(test_pieces_equal_whole),
        cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_damage_as_the_reader),
        cmocka_unit_test(test_unknown_version_and_flag),
        cmocka_unit_test(test_refusals_are_sticky),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
