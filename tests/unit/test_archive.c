/*
 * test_archive.c - .mcz round trips: write, read back every context by number and by chunk,
 * compare with the input; determinism; dictionary given, trained and absent; edge cases.
 */
#include <errno.h>
#ifndef _WIN32
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "../../format/archive.h"
#include "archive_testlib.h"
#include "../../writer/writer_test.h"
#include "../../tools/tool.h" /* mcz_os_setenv: POSIX and Windows */

/* The version these tests' contexts are written in (their CorInfoType numbering). */
#define VB mcz_jit_ee_find("B")

static char dir[64];
static char path[128];
static char path2[128];

static int setup(void **state)
{
    (void)state;
    tl_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/a.mcz", dir);
    snprintf(path2, sizeof path2, "%s/b.mcz", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tl_rmdir(dir);
    return 0;
}

static mcz_writer_options small_chunks(uint32_t chunk_size, int threads)
{
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.level = 3;
    o.chunk_size = chunk_size;
    o.threads = threads;
    o.train_bytes = 256 << 10;
    o.dict_size = 4096;
    return o;
}

/* Every context by number (in a scattered order) equals corpus context numbers[i]. */
static void check_by_number(mcz_reader *r, const tl_corpus *c, const uint32_t *numbers)
{
    mcz_cursor *cur = mcz_cursor_create(r);
    assert_non_null(cur);
    for (uint32_t k = 0; k < c->n; k++) {
        uint32_t i = (uint32_t)(((uint64_t)k * 7919) % c->n);
        mcz_mc mc;
        mcz_diag d;
        assert_int_equal(mcz_cursor_get(cur, numbers[i], &mc, &d), MCZ_OK);
        assert_int_equal(mc.number, numbers[i]);
        assert_int_equal(mc.size, c->sizes[i]);
        assert_memory_equal(mc.bytes, c->bytes + c->offsets[i], mc.size);
        mcz_hash128 identity, dedup, want_identity, want_dedup;
        assert_int_equal(mcz_reader_hashes(r, numbers[i], &identity, &dedup), MCZ_OK);
        mcz_arc_context_hashes(NULL, &mc, &want_identity, &want_dedup);
        assert_memory_equal(identity.bytes, want_identity.bytes, 16);
        assert_memory_equal(dedup.bytes, want_dedup.bytes, 16);
    }
    mcz_cursor_free(cur);
}

/* The chunks decoded in order and laid end to end give the input MCH (export). */
static void check_export(mcz_reader *r, const tl_corpus *c)
{
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    mcz_cursor *cur = mcz_cursor_create(r);
    size_t at = 0;
    for (uint64_t i = 0; i < info.chunks; i++) {
        const uint8_t *raw;
        size_t len;
        assert_int_equal(mcz_cursor_chunk(cur, i, &raw, &len, NULL), MCZ_OK);
        assert_true(at + len <= c->size);
        assert_memory_equal(raw, c->bytes + at, len);
        at += len;
    }
    assert_int_equal(at, c->size);
    mcz_cursor_free(cur);
}

/* Opens path and checks it holds corpus c as numbers first, first+1, ... */
static mcz_reader *check_archive(const char *p, const tl_corpus *c, uint32_t first)
{
    mcz_diag d;
    mcz_reader *r = mcz_reader_open(p, &d);
    if (!r)
        fail_msg("open: %s", d.message);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.version, 4);
    assert_int_equal(info.contexts, c->n);
    assert_int_equal(info.raw_bytes, c->size);
    assert_int_equal(info.first_number, first);
    assert_int_equal(info.last_number, first + c->n - 1);
    uint32_t *numbers = malloc((c->n + 1) * sizeof *numbers);
    for (uint32_t i = 0; i < c->n; i++)
        numbers[i] = first + i;
    check_by_number(r, c, numbers);
    free(numbers);
    check_export(r, c);
    assert_int_equal(mcz_reader_chunk_of(r, first - 1), MCZ_ENOTFOUND);
    assert_int_equal(mcz_reader_chunk_of(r, first + c->n), MCZ_ENOTFOUND);
    assert_int_equal(mcz_reader_verify(r, NULL, NULL, &d), MCZ_OK);
    return r;
}

static void test_roundtrip_single_thread(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 400, 0);
    mcz_writer_options o = small_chunks(16 << 10, 1);
    assert_int_equal(tl_write(path, &c, &o), MCZ_OK);
    mcz_reader *r = check_archive(path, &c, 1);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_true(info.chunks > 5);
    assert_int_equal(info.level, 3);
    assert_int_equal(info.chunk_size, 16 << 10);
    assert_true(info.file_bytes < c.size);
    mcz_reader_close(r);
    tl_corpus_free(&c);
}

static void progress_count(void *arg, uint64_t done, uint64_t total)
{
    uint64_t *calls = arg;
    assert_true(done <= total);
    ++*calls;
}

static void test_roundtrip_threads(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 600, 50);
    mcz_writer_options o = small_chunks(8 << 10, 3);
    mcz_writer *w = mcz_writer_open(path, &o, NULL);
    assert_non_null(w);
    uint32_t *numbers = calloc(c.n, sizeof *numbers);
    assert_int_equal(tl_append_concurrently(w, &c, NULL), MCZ_OK);
    assert_int_equal(mcz_writer_close(w, NULL), MCZ_OK);

    mcz_reader *r = mcz_reader_open(path, NULL);
    assert_non_null(r);
    mcz_cursor *cur = mcz_cursor_create(r);
    for (uint32_t i = 0; i < c.n; i++) { /* find which number each input got */
        bool found = false;
        for (uint32_t n = 1; n <= c.n && !found; n++) {
            mcz_mc mc;
            assert_int_equal(mcz_cursor_get(cur, n, &mc, NULL), MCZ_OK);
            found = mc.size == c.sizes[i] && !memcmp(mc.bytes, c.bytes + c.offsets[i], mc.size);
            numbers[i] = n;
        }
        assert_true(found);
    }
    mcz_cursor_free(cur);
    check_by_number(r, &c, numbers);
    uint64_t calls = 0;
    assert_int_equal(mcz_reader_verify(r, progress_count, &calls, NULL), MCZ_OK);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(calls, info.chunks);
    mcz_reader_close(r);
    free(numbers);
    tl_corpus_free(&c);
}

/* Writes the corpus with the workers held still until every context is queued: the dictionary
 * job waits behind all the chunks (a worker slower than the appender, taken to the extreme). */
static int write_workers_late(const char *p, const tl_corpus *c, const mcz_writer_options *o)
{
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(p, o, &d);
    if (!w)
        return d.code;
    mcz_wr_test_pause(w, true);
    for (uint32_t i = 0; i < c->n; i++)
        assert_int_equal(mcz_writer_append(w, c->bytes + c->offsets[i], c->sizes[i], NULL),
                         MCZ_OK);
    mcz_wr_test_pause(w, false);
    return mcz_writer_close(w, &d);
}

static void assert_same_file(const char *a, const char *b)
{
    size_t la, lb;
    uint8_t *da = tl_read(a, &la), *db = tl_read(b, &lb);
    assert_non_null(da);
    assert_non_null(db);
    assert_int_equal(la, lb);
    assert_memory_equal(da, db, la);
    free(da);
    free(db);
}

/*
 * Same input and options give the same bytes, whatever the threads and their timing: the
 * dictionary is trained on the chunks that first reach train_bytes, not on what happens to be
 * queued when a worker takes the job. The input is four times train_bytes, so the training
 * decision falls mid-input; the queue holds it all, so late workers see every chunk queued.
 */
static void test_determinism(void **state)
{
    (void)state;
    enum { RUNS = 6 };
    tl_corpus c;
    tl_corpus_make(&c, 300, 40);
    mcz_writer_options o = small_chunks(12 << 10, 1);
    o.queue_chunks = 256;
    assert_true(c.size > 4 * o.train_bytes && c.size / (12 << 10) < o.queue_chunks);
    assert_int_equal(tl_write(path, &c, &o), MCZ_OK);
    mcz_reader *r = mcz_reader_open(path, NULL);
    assert_non_null(r);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_not_equal(info.dict_id, 0); /* trained: the decision these runs must agree on */
    mcz_reader_close(r);
    for (int run = 0; run < RUNS; run++) {
        o.threads = 1 + run % 2;
        int rc = run < 2 ? write_workers_late(path2, &c, &o) : tl_write(path2, &c, &o);
        assert_int_equal(rc, MCZ_OK);
        assert_same_file(path, path2);
    }
    tl_corpus_free(&c);
}

/* A context larger than the target gets a chunk of its own; other chunks stay under it. */
static void test_context_bigger_than_chunk(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 60, 7);
    mcz_writer_options o = small_chunks(4096, 2);
    assert_int_equal(tl_write(path, &c, &o), MCZ_OK);
    mcz_reader *r = check_archive(path, &c, 1);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    uint32_t big = 0;
    for (uint64_t i = 0; i < info.chunks; i++) {
        mcz_chunk_info ci;
        assert_int_equal(mcz_reader_chunk(r, i, &ci), MCZ_OK);
        if (ci.raw_size > 4096)
            assert_int_equal(ci.count, 1);
        big += ci.raw_size >= 40000;
    }
    assert_int_equal(big, 60 / 7);
    mcz_reader_close(r);
    tl_corpus_free(&c);
}

static void test_empty_archive(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 0, 0);
    mcz_writer_options o = small_chunks(0, 0);
    o.first_number = 42;
    assert_int_equal(tl_write(path, &c, &o), MCZ_OK);
    mcz_reader *r = mcz_reader_open(path, NULL);
    assert_non_null(r);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.contexts, 0);
    assert_int_equal(info.chunks, 0);
    assert_int_equal(info.first_number, 42);
    assert_int_equal(info.dict_id, 0);
    mcz_cursor *cur = mcz_cursor_create(r);
    mcz_mc mc;
    assert_int_equal(mcz_cursor_get(cur, 42, &mc, NULL), MCZ_ENOTFOUND);
    assert_int_equal(mcz_cursor_chunk(cur, 0, NULL, NULL, NULL), MCZ_ENOTFOUND);
    assert_int_equal(mcz_reader_verify(r, NULL, NULL, NULL), MCZ_OK);
    mcz_cursor_free(cur);
    mcz_reader_close(r);
    tl_corpus_free(&c);
}

static void test_first_number(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 50, 0);
    mcz_writer_options o = small_chunks(4096, 2);
    o.first_number = 1000;
    assert_int_equal(tl_write(path, &c, &o), MCZ_OK);
    mcz_reader_close(check_archive(path, &c, 1000));
    o.first_number = UINT32_MAX - 10; /* numbers run out after 11 contexts */
    mcz_writer *w = mcz_writer_open(path2, &o, NULL);
    uint32_t i = 0, number;
    while (mcz_writer_append(w, c.bytes + c.offsets[i], c.sizes[i], &number) == MCZ_OK)
        i++;
    assert_int_equal(i, 11);
    assert_int_equal(mcz_writer_diag(w)->code, MCZ_ELIMIT);
    assert_int_equal(mcz_writer_close(w, NULL), MCZ_ELIMIT);
    assert_int_equal(access(path2, F_OK), -1);
    tl_corpus_free(&c);
}

static void test_dictionary_modes(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 300, 0);
    mcz_writer_options o = small_chunks(8192, 2);
    assert_int_equal(tl_write(path, &c, &o), MCZ_OK); /* trained */
    mcz_reader *trained = check_archive(path, &c, 1);
    mcz_archive_info info;
    mcz_reader_get_info(trained, &info);
    assert_int_not_equal(info.dict_id, 0);
    assert_true(info.dict_size > 0 && info.dict_size <= 4096);
    const void *dict;
    size_t dict_len;
    mcz_reader_dict(trained, &dict, &dict_len);
    assert_int_equal(dict_len, info.dict_size);

    mcz_writer_options given = small_chunks(8192, 2); /* given: --dict-from */
    given.dict = dict;
    given.dict_len = dict_len;
    assert_int_equal(tl_write(path2, &c, &given), MCZ_OK);
    mcz_reader *r = check_archive(path2, &c, 1);
    mcz_archive_info info2;
    mcz_reader_get_info(r, &info2);
    assert_int_equal(info2.dict_id, info.dict_id);
    mcz_reader_close(r);
    mcz_reader_close(trained);

    o.no_dict = true; /* none */
    assert_int_equal(tl_write(path, &c, &o), MCZ_OK);
    r = check_archive(path, &c, 1);
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.dict_id, 0);
    mcz_reader_dict(r, &dict, &dict_len);
    assert_null(dict);
    mcz_reader_close(r);
    tl_corpus_free(&c);

    tl_corpus_make(&c, 2, 0); /* too little to train on: no dictionary, still an archive */
    o.no_dict = false;
    assert_int_equal(tl_write(path, &c, &o), MCZ_OK);
    r = check_archive(path, &c, 1);
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.dict_id, 0);
    mcz_reader_close(r);
    tl_corpus_free(&c);
}

/* A caller built when the options ended before no_hashes: the fields it knows of apply, the
 * rest take their defaults, whatever lies in memory after its struct. */
static void test_options_from_an_older_caller(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 40, 0);
    struct {
        mcz_writer_options o;
        uint8_t beyond[8];
    } old;
    memset(&old, 0xA5, sizeof old);
    old.o = small_chunks(4096, 1);
    old.o.struct_size = (uint32_t)offsetof(mcz_writer_options, no_hashes);
    memset(&old.o.no_hashes, 0xA5, sizeof old.o - offsetof(mcz_writer_options, no_hashes));
    assert_int_equal(tl_write(path, &c, &old.o), 0);
    mcz_reader *r = mcz_reader_open(path, NULL);
    assert_non_null(r);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.contexts, c.n);
    assert_true(info.hashes); /* no_hashes was beyond the caller's struct: its default */
    mcz_reader_close(r);
    tl_corpus_free(&c);
}

/* xz chunks (MCZ_CODEC_XZ): the same contexts back, the codec recorded, no dictionary; two
 * threads give the bytes one gives; a zstd chunk is not copied into an xz archive (MCZ_EDICT),
 * and an xz writer refuses a dictionary and levels outside 1-9. */
static void test_xz_codec(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 300, 40);
    mcz_writer_options o = small_chunks(16 << 10, 1);
    o.codec = MCZ_CODEC_XZ;
    o.level = 2;
    assert_int_equal(tl_write(path, &c, &o), MCZ_OK);
    o.threads = 2;
    assert_int_equal(tl_write(path2, &c, &o), MCZ_OK);
    assert_same_file(path, path2);
    mcz_reader *r = check_archive(path, &c, 1);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.codec, MCZ_CODEC_XZ);
    assert_int_equal(info.level, 2);
    assert_int_equal(info.dict_id, 0);
    assert_true(info.file_bytes < c.size);
    mcz_reader_close(r);

    mcz_writer_options z = small_chunks(16 << 10, 1);
    z.no_dict = true;
    assert_int_equal(tl_write(path2, &c, &z), MCZ_OK);
    r = mcz_reader_open(path2, NULL);
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.codec, MCZ_CODEC_ZSTD);
    const uint8_t *frames;
    size_t len;
    assert_int_equal(mcz_reader_chunk_frames(r, 0, &frames, &len, NULL), MCZ_OK);
    mcz_writer *w = mcz_writer_open(path, &o, NULL);
    assert_non_null(w);
    mcz_diag d;
    assert_int_equal(mcz_writer_append_compressed(w, frames, len, NULL, NULL, 0, &d), MCZ_EDICT);
    mcz_writer_abort(w);
    mcz_reader_close(r);

    mcz_writer_options bad = o;
    bad.level = 10;
    assert_null(mcz_writer_open(path, &bad, &d));
    assert_int_equal(d.code, MCZ_EINVAL);
    bad.level = 9;
    bad.dict = c.bytes;
    bad.dict_len = 4096;
    assert_null(mcz_writer_open(path, &bad, &d));
    assert_int_equal(d.code, MCZ_EINVAL);
    bad = o;
    bad.codec = (mcz_codec)7;
    assert_null(mcz_writer_open(path, &bad, &d));
    tl_corpus_free(&c);
}

/* The largest mcz_wr_test_spilled seen before a chunk write. */
static int watch_spill(mcz_writer *w, uint64_t index, void *arg)
{
    (void)index;
    uint64_t *spilled = arg;
    uint64_t now = mcz_wr_test_spilled(w);
    *spilled = now > *spilled ? now : *spilled;
    return MCZ_OK;
}

/* Writes c to p with the rows held in memory up to bound bytes (MCZ_INDEX_SPILL_MIN, "": the
 * default); *spilled: the row bytes in the temporary file before the last chunk's write. */
static int write_spilling(const char *p, const tl_corpus *c, const mcz_writer_options *o,
                          const char *bound, uint64_t *spilled, mcz_diag *d)
{
    assert_int_equal(mcz_os_setenv("MCZ_INDEX_SPILL_MIN", bound), 0);
    mcz_writer *w = mcz_writer_open(p, o, d);
    assert_int_equal(mcz_os_setenv("MCZ_INDEX_SPILL_MIN", ""), 0); /* read at open */
    assert_non_null(w);
    *spilled = 0;
    mcz_wr_test_on_write(w, watch_spill, spilled);
    int rc = MCZ_OK; /* a failed writer refuses appends; close says why */
    for (uint32_t i = 0; i < c->n && rc == MCZ_OK; i++)
        rc = mcz_writer_append(w, c->bytes + c->offsets[i], c->sizes[i], NULL);
    int closed = mcz_writer_close(w, d);
    return closed != MCZ_OK ? closed : rc;
}

/*
 * Past MCZ_INDEX_SPILL_MIN bytes, the index rows of the chunks written go to a temporary file
 * and are read back at close: the archive is the one written with every row in memory, with
 * and without the hash columns, whether all chunks spill or only those past a few.
 */
static void test_index_rows_spilled(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 600, 40);
    for (int hashes = 0; hashes < 2; hashes++) {
        mcz_writer_options o = small_chunks(8 << 10, 2);
        o.no_hashes = !hashes;
        uint64_t per_context = hashes ? 36 : 4, spilled;
        mcz_diag d;
        assert_int_equal(write_spilling(path, &c, &o, "1000000000", &spilled, &d), MCZ_OK);
        assert_int_equal(spilled, 0);
        mcz_reader *r = mcz_reader_open(path, &d);
        assert_non_null(r);
        mcz_archive_info info;
        mcz_reader_get_info(r, &info);
        mcz_reader_close(r);
        assert_true(info.chunks > 20);
        char few[32]; /* the rows of 40 contexts */
        snprintf(few, sizeof few, "%llu", (unsigned long long)(40 * per_context));
        const char *bounds[] = {"0", few};
        for (int b = 0; b < 2; b++) {
            assert_int_equal(write_spilling(path2, &c, &o, bounds[b], &spilled, &d), MCZ_OK);
            assert_same_file(path, path2);
            /* every chunk but the last (0), or all but the first few (40 contexts), spilled */
            assert_true(spilled > (c.n / 2) * per_context);
            assert_true(spilled < c.n * per_context);
            assert_int_equal(spilled % per_context, 0);
        }
        if (hashes)
            mcz_reader_close(check_archive(path2, &c, 1));
    }
    tl_corpus_free(&c);
}

/* A temporary file the rows cannot go to fails the writer at close, naming the directory, and
 * leaves no archive: the temporary directory (TMPDIR; on Windows TEMP) names a directory that
 * does not exist. */
static void test_index_rows_spill_fails(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 200, 40);
    mcz_writer_options o = small_chunks(8 << 10, 1);
    char missing[160];
    snprintf(missing, sizeof missing, "%s/no-such-dir", dir);
    static const char *const names[] = {"TMPDIR", "TEMP"};
    char *saved[2];
    for (int i = 0; i < 2; i++) {
        const char *value = getenv(names[i]);
        saved[i] = value ? strdup(value) : NULL;
        assert_int_equal(mcz_os_setenv(names[i], missing), 0);
    }
    uint64_t spilled;
    mcz_diag d;
    int rc = write_spilling(path, &c, &o, "0", &spilled, &d);
    for (int i = 0; i < 2; i++) { /* "": the system's default */
        assert_int_equal(mcz_os_setenv(names[i], saved[i] ? saved[i] : ""), 0);
        free(saved[i]);
    }
    assert_int_equal(rc, MCZ_EIO);
    assert_non_null(strstr(d.message, missing));
    assert_non_null(strstr(d.message, "index rows"));
    assert_non_null(strstr(d.message, strerror(ENOENT)));
    assert_int_not_equal(access(path, F_OK), 0);
    tl_corpus_free(&c);
}

#ifndef _WIN32
/*
 * The compressed index is built in the rows' temporary file after them: a file that takes the
 * rows but not the frame fails the writer at close with the same report. A STREAM writer to
 * /dev/null writes no other file, so a file size limit of exactly the rows' bytes (36 a context:
 * every chunk spilled) stops the frame alone (EFBIG, SIGXFSZ ignored).
 */
static void test_index_frame_spill_fails(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 200, 40);
    mcz_writer_options o = small_chunks(8 << 10, 1);
    o.mode = MCZ_WRITE_STREAM;
    o.stream_fd = open("/dev/null", O_WRONLY);
    assert_true(o.stream_fd >= 0);
    assert_int_equal(mcz_os_setenv("MCZ_INDEX_SPILL_MIN", "0"), 0);
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(NULL, &o, &d);
    assert_int_equal(mcz_os_setenv("MCZ_INDEX_SPILL_MIN", ""), 0);
    assert_non_null(w);
    for (uint32_t i = 0; i < c.n; i++)
        assert_int_equal(mcz_writer_append(w, c.bytes + c.offsets[i], c.sizes[i], NULL), MCZ_OK);
    struct rlimit saved, rows = {36 * (rlim_t)c.n, 0};
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
    rows.rlim_max = saved.rlim_max;
    void (*previous)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &rows), 0);
    int rc = mcz_writer_close(w, &d);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
    signal(SIGXFSZ, previous);
    close(o.stream_fd);
    assert_int_equal(rc, MCZ_EIO);
    assert_non_null(strstr(d.message, "index rows"));
    assert_non_null(strstr(d.message, strerror(EFBIG)));
    tl_corpus_free(&c);
}
#endif

static void test_writer_misuse(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 20, 0);
    mcz_writer_options o = small_chunks(4096, 1);
    mcz_writer *w = mcz_writer_open(path2, &o, NULL);
    assert_non_null(w);
    static const uint8_t junk[] = "not a method context";
    assert_int_not_equal(mcz_writer_append(w, junk, sizeof junk, NULL), MCZ_OK);
    uint8_t *bad = malloc(c.sizes[0]);
    memcpy(bad, c.bytes, c.sizes[0]);
    bad[c.sizes[0] - 1] = 'X'; /* trailer */
    assert_int_not_equal(mcz_writer_append(w, bad, c.sizes[0], NULL), MCZ_OK);
    free(bad);
    for (uint32_t i = 0; i < c.n; i++)
        assert_int_equal(mcz_writer_append(w, c.bytes + c.offsets[i], c.sizes[i], NULL), MCZ_OK);
    assert_int_equal(access(path2, F_OK), -1); /* nothing at the path before close */
    mcz_writer_abort(w);
    assert_int_equal(access(path2, F_OK), -1);

    mcz_writer_options bad_opt = small_chunks(4096, 1);
    bad_opt.level = 99;
    mcz_diag d;
    assert_null(mcz_writer_open(path2, &bad_opt, &d));
    assert_int_equal(d.code, MCZ_EINVAL);
    assert_null(mcz_writer_open("/nonexistent-dir/x.mcz", NULL, &d));
    assert_int_not_equal(d.code, MCZ_OK);
    mcz_writer_options no_size = small_chunks(4096, 1);
    no_size.struct_size = 0; /* not from MCZ_WRITER_OPTIONS_INIT */
    assert_null(mcz_writer_open(path2, &no_size, &d));
    assert_int_equal(d.code, MCZ_EINVAL);
    no_size.struct_size = sizeof no_size + 8; /* from a newer library than this one */
    assert_null(mcz_writer_open(path2, &no_size, &d));
    assert_int_equal(d.code, MCZ_EINVAL);
    mcz_writer_abort(NULL);
    mcz_reader_close(NULL);
    mcz_cursor_free(NULL);
    tl_corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_roundtrip_single_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roundtrip_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_determinism, setup, teardown),
        cmocka_unit_test_setup_teardown(test_context_bigger_than_chunk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_archive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_number, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dictionary_modes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writer_misuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_rows_spilled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_rows_spill_fails, setup, teardown),
#ifndef _WIN32
        cmocka_unit_test_setup_teardown(test_index_frame_spill_fails, setup, teardown),
#endif
        cmocka_unit_test_setup_teardown(test_xz_codec, setup, teardown),
        cmocka_unit_test_setup_teardown(test_options_from_an_older_caller, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
