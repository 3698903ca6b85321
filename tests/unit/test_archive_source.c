/*
 * test_archive_source.c - mcz_source over an archive and over an MCH (with a valid .mct, a wrong
 * one, none, and damage): the same contexts in the same order, by iteration and by number.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "archive_testlib.h"

static char dir[64];
static char mch[128], mct[128], mcz[128];
static tl_corpus corpus;

static int setup(void **state)
{
    (void)state;
    tl_tmpdir(dir, sizeof dir);
    snprintf(mch, sizeof mch, "%s/c.mch", dir);
    snprintf(mct, sizeof mct, "%s/c.mch.mct", dir);
    snprintf(mcz, sizeof mcz, "%s/c.mcz", dir);
    tl_corpus_make(&corpus, 120, 0);
    tl_save(mch, corpus.bytes, corpus.size);
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.chunk_size = 8192;
    o.threads = 2;
    return tl_write(mcz, &corpus, &o) == MCZ_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tl_corpus_free(&corpus);
    tl_rmdir(dir);
    return 0;
}

static void expect_context(const mcz_mc *mc, uint32_t number)
{
    assert_int_equal(mc->number, number);
    assert_int_equal(mc->size, corpus.sizes[number - 1]);
    assert_memory_equal(mc->bytes, corpus.bytes + corpus.offsets[number - 1], mc->size);
    assert_int_equal(mc->offset, corpus.offsets[number - 1]); /* the offset in the MCH */
}

/* Iteration, then scattered random access, then absent numbers. */
static void check_source(const char *p, bool archive)
{
    mcz_diag d;
    mcz_source *s = mcz_source_open(p, &d);
    if (!s)
        fail_msg("%s: %s", p, d.message);
    assert_int_equal(mcz_source_archive(s) != NULL, archive);
    mcz_mc mc;
    uint32_t n = 0;
    int rc;
    while ((rc = mcz_source_next(s, &mc, &d)) == 1)
        expect_context(&mc, ++n);
    assert_int_equal(rc, 0);
    assert_int_equal(n, corpus.n);
    for (uint32_t k = 0; k < corpus.n; k++) {
        uint32_t number = 1 + (uint32_t)(((uint64_t)k * 37) % corpus.n);
        assert_int_equal(mcz_source_get(s, number, &mc, &d), MCZ_OK);
        expect_context(&mc, number);
    }
    assert_int_equal(mcz_source_get(s, 0, &mc, NULL), MCZ_ENOTFOUND);
    assert_int_equal(mcz_source_get(s, corpus.n + 1, &mc, NULL), MCZ_ENOTFOUND);
    mcz_source_close(s);
}

static void write_toc(int64_t shift)
{
    mcz_toc_entry *e = calloc(corpus.n, sizeof *e);
    for (uint32_t i = 0; i < corpus.n; i++) {
        e[i].offset = (int64_t)corpus.offsets[i] + shift;
        e[i].number = (int32_t)i + 1;
    }
    uint8_t *img;
    size_t len;
    assert_int_equal(mcz_toc_encode(e, corpus.n, &img, &len), MCZ_OK);
    tl_save(mct, img, len);
    free(img);
    free(e);
}

static void test_archive_source(void **state)
{
    (void)state;
    check_source(mcz, true);
}

static void test_mch_source(void **state)
{
    (void)state;
    unlink(mct);
    check_source(mch, false); /* by scanning */
    write_toc(0);
    check_source(mch, false); /* through the .mct */
    write_toc(3);
    check_source(mch, false); /* a .mct that does not match: ignored */
    unlink(mct);
}

static void test_damaged_mch(void **state)
{
    (void)state;
    uint8_t *bad = malloc(corpus.size);
    memcpy(bad, corpus.bytes, corpus.size);
    bad[corpus.offsets[29] + corpus.sizes[29] - 1] = 'X'; /* trailer of context 30 */
    tl_save(mch, bad, corpus.size);
    free(bad);
    mcz_source *s = mcz_source_open(mch, NULL);
    assert_non_null(s);
    mcz_mc mc;
    mcz_diag d;
    uint32_t n = 0;
    int rc;
    while ((rc = mcz_source_next(s, &mc, &d)) == 1)
        n++;
    assert_true(rc < 0);
    assert_int_equal(n, 29);
    assert_int_equal(d.context, 30);
    mcz_source_close(s);
    s = mcz_source_open(mch, NULL);
    assert_int_equal(mcz_source_get(s, 12, &mc, NULL), MCZ_OK);
    assert_true(mcz_source_get(s, 40, &mc, &d) < 0);
    assert_int_not_equal(d.code, MCZ_ENOTFOUND);
    mcz_source_close(s);
    tl_save(mch, corpus.bytes, corpus.size);
    mcz_source_close(NULL);
    assert_null(mcz_source_open("/nonexistent/x.mch", &d));
    assert_int_equal(d.code, MCZ_EIO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_archive_source),
        cmocka_unit_test(test_mch_source),
        cmocka_unit_test(test_damaged_mch),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
