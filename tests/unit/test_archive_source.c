/*
 * test_archive_source.c - mcz_source over an archive and over an MCH (with a valid .mct, a wrong
 * one, none, and damage): the same contexts in the same order, by iteration and by number; and
 * walks over large files keep their resident memory flat (mcz_file_drop_behind).
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

/* This process's resident pages of mapped files, in KiB (RssFile in /proc/self/status). */
static long rss_file_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    assert_non_null(f);
    char line[256];
    long kib = -1;
    while (kib < 0 && fgets(line, sizeof line, f))
        if (sscanf(line, "RssFile: %ld kB", &kib) != 1)
            kib = -1;
    fclose(f);
    assert_true(kib >= 0);
    return kib;
}

/* An MCH of at least `mib` MiB: the corpus over and over (valid containers, numbered in turn). */
static void write_big_mch(const char *path, size_t mib, uint32_t *contexts)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    size_t size = 0;
    *contexts = 0;
    for (; size < mib << 20; size += corpus.size, *contexts += corpus.n)
        assert_int_equal(fwrite(corpus.bytes, 1, corpus.size, f), corpus.size);
    assert_int_equal(fclose(f), 0);
}

/* Dropping what a walk left behind: the pages leave memory, the bytes stay readable. */
static void test_drop_behind(void **state)
{
    (void)state;
    uint32_t contexts;
    write_big_mch(mch, 32, &contexts);
    mcz_file f;
    assert_int_equal(mcz_file_map(mch, &f, NULL), MCZ_OK);
    uint64_t sum = 0;
    for (size_t i = 0; i < f.size; i += 512)
        sum += f.data[i];
    long before = rss_file_kib();
    assert_true(before >= 30 << 10);
    uint64_t dropped = 0;
    mcz_file_drop_behind(&f, &dropped, 4u << 20); /* less than a batch: nothing yet */
    assert_int_equal(dropped, 0);
    mcz_file_drop_behind(&f, &dropped, f.size);
    assert_true(dropped > f.size - 4096 && dropped <= f.size);
    assert_true(before - rss_file_kib() >= 28 << 10);
    uint64_t again = 0;
    for (size_t i = 0; i < f.size; i += 512)
        again += f.data[i];
    assert_int_equal(again, sum);
    for (size_t at = 0; at < f.size; at += corpus.size)
        assert_memory_equal(f.data + at, corpus.bytes, corpus.size);
    mcz_file_drop_behind(&f, &dropped, f.size + 1); /* past the end: ignored */
    mcz_file_unmap(&f);
    tl_save(mch, corpus.bytes, corpus.size);
}

/* A walk over an MCH far larger than the batch keeps few of its pages resident, by iteration
 * and by numbers in order (the scan that finds them included). */
static void test_walk_memory_stays_flat(void **state)
{
    (void)state;
    uint32_t contexts;
    write_big_mch(mch, 48, &contexts);
    unlink(mct);
    long base = rss_file_kib();
    mcz_source *s = mcz_source_open(mch, NULL);
    assert_non_null(s);
    mcz_mc mc;
    uint32_t n = 0;
    uint64_t sum = 0;
    while (mcz_source_next(s, &mc, NULL) == 1) {
        for (size_t i = 0; i < mc.size; i += 256) /* a consumer reads every page */
            sum += mc.bytes[i];
        n++;
    }
    assert_int_equal(n, contexts);
    assert_true(sum > 0);
    assert_true(rss_file_kib() - base < 16 << 10);
    for (uint32_t k = 1; k <= contexts; k += 7)
        assert_int_equal(mcz_source_get(s, k, &mc, NULL), MCZ_OK);
    assert_true(rss_file_kib() - base < 16 << 10);
    mcz_source_close(s);
    tl_save(mch, corpus.bytes, corpus.size);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_archive_source),
        cmocka_unit_test(test_drop_behind),
        cmocka_unit_test(test_walk_memory_stays_flat),
        cmocka_unit_test(test_mch_source),
        cmocka_unit_test(test_damaged_mch),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
