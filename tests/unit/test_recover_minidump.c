/*
 * test_recover_minidump.c - recovery from a Windows full-memory minidump (FORMAT.md §13): the
 * writer's frames are searched in the memory the dump's Memory64ListStream lists, and there
 * only; a minidump without that stream, or whose directory, list or ranges leave the file, is
 * refused with an error, never read outside the file. The minidumps are made here by hand, in
 * the layout MiniDumpWriteDump writes (tests/collector/collector_win.c makes real ones under
 * Wine).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "archive_testlib.h"

static char dir[64];
static char dump_path[128];
static char out_path[128];

static int setup(void **state)
{
    (void)state;
    tl_tmpdir(dir, sizeof dir);
    snprintf(dump_path, sizeof dump_path, "%s/process.dmp", dir);
    snprintf(out_path, sizeof out_path, "%s/out.mcz", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tl_rmdir(dir);
    return 0;
}

/* The minidump's layout (offsets in the file). */
enum {
    MD_HEADER = 32,
    MD_DIR_AT = MD_HEADER, /* three directory entries of 12 bytes */
    MD_STREAMS = 3,
    MD_OTHER_AT = MD_DIR_AT + MD_STREAMS * 12, /* a stream that is not memory */
    MD_MEMORY64 = 9,
    MD_THREAD_LIST = 3,
    MD_RANGES = 2,
    MD_FILL = 100, /* bytes of other memory before and after the archive */
};

typedef struct minidump {
    uint8_t *bytes;
    size_t size;
    size_t list_at;   /* the Memory64ListStream */
    size_t memory_at; /* its base: the ranges' bytes */
} minidump;

static void put_entry(uint8_t *p, uint32_t type, uint32_t size, uint32_t at)
{
    mcz_put_le32(p, type);
    mcz_put_le32(p + 4, size);
    mcz_put_le32(p + 8, at);
}

/* A minidump whose memory (two ranges, cut inside the archive) holds `memory` between fillers,
 * and whose other stream, ahead of the memory in the file, holds `other`. */
static minidump make_minidump(const uint8_t *memory, size_t memory_len, const uint8_t *other,
                              size_t other_len)
{
    minidump m;
    size_t list_size = 16 + MD_RANGES * 16, mem_len = MD_FILL + memory_len + MD_FILL;
    m.list_at = MD_OTHER_AT + other_len;
    m.memory_at = m.list_at + list_size;
    m.size = m.memory_at + mem_len;
    m.bytes = calloc(1, m.size);
    assert_non_null(m.bytes);
    mcz_put_le32(m.bytes, 0x504D444Du); /* "MDMP" */
    mcz_put_le32(m.bytes + 4, 0xA793u);
    mcz_put_le32(m.bytes + 8, MD_STREAMS);
    mcz_put_le32(m.bytes + 12, MD_DIR_AT);
    put_entry(m.bytes + MD_DIR_AT, MD_THREAD_LIST, (uint32_t)other_len, MD_OTHER_AT);
    put_entry(m.bytes + MD_DIR_AT + 12, MD_MEMORY64, (uint32_t)list_size, (uint32_t)m.list_at);
    put_entry(m.bytes + MD_DIR_AT + 24, 0, 0, 0); /* an unused entry */
    memcpy(m.bytes + MD_OTHER_AT, other, other_len);
    uint8_t *list = m.bytes + m.list_at;
    size_t first = MD_FILL + memory_len / 2; /* the first range ends inside the archive */
    mcz_put_le64(list, MD_RANGES);
    mcz_put_le64(list + 8, m.memory_at);
    mcz_put_le64(list + 16, 0x7ff600000000ull);
    mcz_put_le64(list + 24, first);
    mcz_put_le64(list + 32, 0x7ff600000000ull + first);
    mcz_put_le64(list + 40, mem_len - first);
    memset(m.bytes + m.memory_at, 0xCC, mem_len);
    memcpy(m.bytes + m.memory_at + MD_FILL, memory, memory_len);
    return m;
}

/* An archive of corpus c written to the scratch directory, read back. */
static uint8_t *archive_of(const tl_corpus *c, size_t *size)
{
    char p[160];
    snprintf(p, sizeof p, "%s/archive.mcz", dir);
    mcz_writer_options o = tl_small_options(8192);
    assert_int_equal(tl_write(p, c, &o), MCZ_OK);
    uint8_t *bytes = tl_read(p, size);
    assert_non_null(bytes);
    assert_int_equal(remove(p), 0);
    return bytes;
}

/* The archive at p holds exactly corpus c, numbered from 1. */
static void check_holds(const char *p, const tl_corpus *c)
{
    mcz_diag d;
    mcz_reader *r = mcz_reader_open(p, &d);
    if (!r)
        fail_msg("%s: %s", p, d.message);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.contexts, c->n);
    assert_int_equal(info.first_number, 1);
    mcz_cursor *cur = mcz_cursor_create(r);
    for (uint32_t i = 0; i < c->n; i++) {
        mcz_mc mc;
        assert_int_equal(mcz_cursor_get(cur, i + 1, &mc, &d), MCZ_OK);
        assert_int_equal(mc.size, c->sizes[i]);
        assert_memory_equal(mc.bytes, c->bytes + c->offsets[i], mc.size);
    }
    assert_int_equal(mcz_reader_verify(r, NULL, NULL, &d), MCZ_OK);
    mcz_cursor_free(cur);
    mcz_reader_close(r);
}

/* Recovers dump_path (holding m); the result's code, the diag's message in d. */
static int recover(const minidump *m, mcz_recovery *report, mcz_diag *d)
{
    tl_save(dump_path, m->bytes, m->size);
    remove(out_path);
    return mcz_recover_report(dump_path, out_path, report, d);
}

/* The archive in the memory is what comes back, not the one in the other stream (ahead of it
 * in the file: a scan of the whole file would take its header first and keep its chunks). */
static void test_memory_searched_only(void **state)
{
    (void)state;
    tl_corpus in_memory, elsewhere;
    tl_corpus_make_seeded(&in_memory, 1, 120, 0);
    tl_corpus_make_seeded(&elsewhere, 1000, 60, 0);
    size_t mem_len, other_len;
    uint8_t *mem = archive_of(&in_memory, &mem_len);
    uint8_t *other = archive_of(&elsewhere, &other_len);
    minidump m = make_minidump(mem, mem_len, other, other_len);
    mcz_recovery report;
    mcz_diag d;
    int rc = recover(&m, &report, &d);
    if (rc != MCZ_OK)
        fail_msg("recovery: %s", d.message);
    assert_true(report.image);
    assert_int_equal(report.contexts, in_memory.n);
    check_holds(out_path, &in_memory);
    free(m.bytes);
    free(mem);
    free(other);
    tl_corpus_free(&in_memory);
    tl_corpus_free(&elsewhere);
}

/* Each damage is refused with its error and leaves no output. */
static void check_refused(const minidump *m, int want, const char *says)
{
    mcz_recovery report;
    mcz_diag d;
    assert_int_equal(recover(m, &report, &d), want);
    if (!strstr(d.message, says))
        fail_msg("\"%s\" does not say \"%s\"", d.message, says);
    struct stat sb;
    assert_int_not_equal(stat(out_path, &sb), 0);
}

static void test_damage_refused(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 40, 0);
    size_t len;
    uint8_t *arc = archive_of(&c, &len);
    minidump m = make_minidump(arc, len, (const uint8_t *)"other", 5);
    uint8_t *saved = tl_copy_of(m.bytes, m.size);
    uint8_t *list = m.bytes + m.list_at;
    struct {
        uint8_t *at;
        uint64_t value;
        bool wide;
        int want;
        const char *says;
    } edits[] = {
        {m.bytes + MD_DIR_AT + 12, 5, false, MCZ_EUNSUPPORTED, "MiniDumpWithFullMemory"},
        {m.bytes + 8, 0x20000000u, false, MCZ_ECORRUPT, "stream directory outside"},
        {m.bytes + 12, (uint64_t)m.size - 20, false, MCZ_ECORRUPT, "stream directory outside"},
        {m.bytes + MD_DIR_AT + 20, (uint64_t)m.size - 8, false, MCZ_ECORRUPT,
         "memory list outside"},
        {m.bytes + MD_DIR_AT + 16, 8, false, MCZ_ECORRUPT, "memory list outside"},
        {list, 3, true, MCZ_ECORRUPT, "more memory ranges"},
        {list, UINT64_MAX, true, MCZ_ECORRUPT, "more memory ranges"},
        {list + 24, UINT64_MAX, true, MCZ_ECORRUPT, "larger than the file"},
        {list + 40, UINT64_MAX - 50, true, MCZ_ECORRUPT, "larger than the file"},
        {list + 8, (uint64_t)m.memory_at + 1, true, MCZ_ECORRUPT, "beyond the end"},
        {list + 8, UINT64_MAX, true, MCZ_ECORRUPT, "beyond the end"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(m.bytes, saved, m.size);
        if (edits[i].wide)
            mcz_put_le64(edits[i].at, edits[i].value);
        else
            mcz_put_le32(edits[i].at, (uint32_t)edits[i].value);
        check_refused(&m, edits[i].want, edits[i].says);
    }
    memcpy(m.bytes, saved, m.size);
    minidump cut = m;
    cut.size = m.size - 1; /* the memory cut short by a byte: the ranges leave the file */
    check_refused(&cut, MCZ_ECORRUPT, "beyond the end");
    mcz_recovery report;
    mcz_diag d;
    assert_int_equal(recover(&m, &report, &d), MCZ_OK); /* the edits had teeth */
    check_holds(out_path, &c);
    free(saved);
    free(m.bytes);
    free(arc);
    tl_corpus_free(&c);
}

/* A minidump whose memory holds no writer: the image's own message. */
static void test_memory_without_writer(void **state)
{
    (void)state;
    static const uint8_t nothing[64];
    minidump m = make_minidump(nothing, sizeof nothing, nothing, sizeof nothing);
    check_refused(&m, MCZ_ECORRUPT, "no archive header");
    free(m.bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_memory_searched_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damage_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_without_writer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
