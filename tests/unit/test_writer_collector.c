/*
 * test_writer_collector.c - the writer as a collector (FORMAT.md §12): the full-queue policies,
 * rolling bounds, LIVE checkpoints and recovery after truncation at many offsets, MEMORY dumps
 * by call and by signal (a request signal and a fatal one), chunk copies, flush intervals,
 * streams and statistics.
 *
 * On Windows too (make test-windows, under Wine): the crashing collectors run in a process of
 * their own, which Windows starts as this program again ("--child NAME DIR", see main) where
 * POSIX forks; a request signal is refused there (Windows sends a process none); a rolling LIVE
 * file needs holes, which Wine's files refuse to punch (the writer then refuses to open, which
 * is checked, and those tests are skipped).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#ifdef _WIN32
#include <process.h>
#define REQUEST_SIGNAL SIGINT /* any number: Windows refuses every request signal */
#else
#include <sys/wait.h>
#define REQUEST_SIGNAL SIGUSR1
#endif

#include <cmocka.h>

#include "../../format/archive.h"
#include "archive_testlib.h"
#include "../../writer/writer_test.h"
#include "../../tools/tool.h" /* mcz_os_setenv: POSIX and Windows */

static char dir[64];
static char path[128];
static char path2[128];
static char path3[128];

static int setup(void **state)
{
    (void)state;
    tl_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/a.mcz", dir);
    snprintf(path2, sizeof path2, "%s/b.mcz", dir);
    snprintf(path3, sizeof path3, "%s/c.mcz", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tl_rmdir(dir);
    return 0;
}

/* Small chunks without a dictionary: the queue bound applies from the first chunk. */
static mcz_writer_options collector(mcz_writer_mode mode, uint32_t chunk_size)
{
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.mode = mode;
    o.level = 1;
    o.chunk_size = chunk_size;
    o.threads = 1;
    o.no_dict = true;
    return o;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* Polls stats until last_retained reaches want; a generous bound keeps a broken writer from
 * hanging the test (behaviour, not timing: the bound is never the thing tested). */
static void wait_retained(mcz_writer *w, uint32_t want)
{
    mcz_writer_stats st;
    for (int i = 0; i < 2000; i++) {
        mcz_writer_get_stats(w, &st);
        if (st.last_retained >= want)
            return;
        sleep_ms(5);
    }
    fail_msg("the writer never retained context %u (last %u)", want, st.last_retained);
}

static int append_context(mcz_writer *w, const tl_corpus *c, uint32_t i)
{
    return mcz_writer_append(w, c->bytes + c->offsets[i], c->sizes[i], NULL);
}

/* The archive at p holds exactly the numbers [first, last], number n being corpus context
 * source[n - first]; returns its info. */
static mcz_archive_info check_holds(const char *p, const tl_corpus *c, uint32_t first,
                                    uint32_t last, const uint32_t *source)
{
    mcz_diag d;
    mcz_reader *r = mcz_reader_open(p, &d);
    if (!r)
        fail_msg("%s: %s", p, d.message);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.contexts, last - first + 1);
    assert_int_equal(info.first_number, first);
    assert_int_equal(info.last_number, last);
    mcz_cursor *cur = mcz_cursor_create(r);
    for (uint32_t n = first; n <= last; n++) {
        mcz_mc mc;
        assert_int_equal(mcz_cursor_get(cur, n, &mc, &d), MCZ_OK);
        uint32_t i = source ? source[n - first] : n - 1;
        assert_int_equal(mc.size, c->sizes[i]);
        assert_memory_equal(mc.bytes, c->bytes + c->offsets[i], mc.size);
    }
    assert_int_equal(mcz_reader_verify(r, NULL, NULL, &d), MCZ_OK);
    mcz_cursor_free(cur);
    mcz_reader_close(r);
    return info;
}

/* ---- Full queue ---- */

/* DROP: with the workers held still and a one-chunk queue, appends keep returning (the test
 * would hang otherwise), refuse what does not fit with MCZ_EDROPPED, and count it. */
static void check_drop(bool dict_pending, uint32_t max_peak)
{
    tl_corpus c;
    tl_corpus_make(&c, 400, 0);
    mcz_writer_options o = collector(MCZ_WRITE_MEMORY, 4096);
    o.when_full = MCZ_FULL_DROP;
    o.queue_chunks = 1;
    if (dict_pending) { /* training wanted after one chunk, but no worker can train */
        o.no_dict = false;
        o.train_bytes = 4096;
    }
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    assert_non_null(w);
    mcz_wr_test_pause(w, true);
    uint32_t *accepted = calloc(c.n, sizeof *accepted), kept = 0, dropped = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        int rc = append_context(w, &c, i);
        if (rc == MCZ_OK)
            accepted[kept++] = i;
        else if (rc == MCZ_EDROPPED)
            dropped++;
        else
            fail_msg("append: %s", mcz_error_name(rc));
    }
    mcz_writer_stats st;
    mcz_writer_get_stats(w, &st);
    assert_true(dropped > 0);
    assert_int_equal(st.dropped_full, dropped);
    assert_int_equal(st.appended, kept);
    assert_true(st.queue_peak <= max_peak);
    mcz_wr_test_pause(w, false);
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    check_holds(path, &c, 1, kept, accepted); /* numbers stay consecutive: drops take none */
    free(accepted);
    tl_corpus_free(&c);
}

static void test_drop_when_full(void **state)
{
    (void)state;
    check_drop(false, 1);
}

static void test_drop_while_dictionary_pending(void **state)
{
    (void)state;
    check_drop(true, 2); /* the samples, up to train_bytes, then nothing more */
}

/* BLOCK loses nothing through the same one-chunk queue. */
static void test_block_when_full(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 300, 0);
    mcz_writer_options o = collector(MCZ_WRITE_ATOMIC, 4096);
    o.queue_chunks = 1;
    assert_int_equal(tl_write(path, &c, &o), MCZ_OK);
    check_holds(path, &c, 1, c.n, NULL);
    tl_corpus_free(&c);
}

/* ---- Rolling ---- */

/* Sum of the chunks' stored sizes. */
static uint64_t stored_bytes(const char *p)
{
    mcz_reader *r = mcz_reader_open(p, NULL);
    assert_non_null(r);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < info.chunks; i++) {
        mcz_chunk_info ch;
        assert_int_equal(mcz_reader_chunk(r, i, &ch), MCZ_OK);
        sum += ch.stored_size;
    }
    mcz_reader_close(r);
    return sum;
}

/* A rolling LIVE file needs holes (FORMAT.md §12): where the file system cannot punch them
 * (Wine's files, platform/os_win32.c), the writer refuses to open, with MCZ_EUNSUPPORTED, and the
 * test that needs them is skipped. */
static void need_holes(void)
{
#ifdef _WIN32
    mcz_writer_options o = collector(MCZ_WRITE_LIVE, 8192);
    o.max_bytes = 40000;
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    if (!w) {
        assert_int_equal(d.code, MCZ_EUNSUPPORTED);
        print_message("skipped: %s\n", d.message);
        skip();
    }
    mcz_writer_abort(w);
    remove(path);
#endif
}

/* The bound holds at every moment the statistics are read, the oldest go first, and the
 * archive says which numbers it still holds. */
static void check_rolling(mcz_writer_mode mode)
{
    tl_corpus c;
    tl_corpus_make(&c, 600, 0);
    const uint64_t bound = 40000;
    mcz_writer_options o = collector(mode, 8192);
    o.max_bytes = bound;
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    assert_non_null(w);
    mcz_writer_stats st;
    for (uint32_t i = 0; i < c.n; i++) {
        assert_int_equal(append_context(w, &c, i), MCZ_OK);
        mcz_writer_get_stats(w, &st);
        assert_true(st.retained_bytes <= bound);
    }
    assert_int_equal(mcz_writer_flush(w), MCZ_OK);
    mcz_writer_get_stats(w, &st);
    assert_true(st.chunks_dropped > 0);
    assert_int_equal(st.last_retained, c.n);
    assert_int_equal(st.dropped_rolling, st.first_retained - 1);
    uint32_t first = st.first_retained;
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    mcz_archive_info info = check_holds(path, &c, first, c.n, NULL);
    assert_true(info.first_number > 1);
    assert_true(stored_bytes(path) <= bound);
    tl_corpus_free(&c);
}

static void test_rolling_memory(void **state)
{
    (void)state;
    check_rolling(MCZ_WRITE_MEMORY);
}

/* LIVE: the discarded chunks are holes, so the blocks the file occupies stay near the bound
 * while its apparent size grows; mcz_recover finds the retained chunks across the hole. */
static void test_rolling_live(void **state)
{
    (void)state;
    need_holes();
    check_rolling(MCZ_WRITE_LIVE);
#ifndef _WIN32 /* Windows' stat has no allocation size */
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true((uint64_t)sb.st_blocks * 512 < (uint64_t)sb.st_size / 2);
#endif
    /* No footer: recovery walks the file, zeros included. */
    size_t size = 0;
    uint8_t *bytes = tl_read(path, &size);
    tl_save(path2, bytes, size - MCZ_ARC_FOOTER_SIZE);
    free(bytes);
    uint64_t kept, lost;
    mcz_diag d;
    assert_int_equal(mcz_recover(path2, path3, &kept, &lost, &d), MCZ_OK);
    mcz_reader *r = mcz_reader_open(path, NULL), *rec = mcz_reader_open(path3, NULL);
    mcz_archive_info a, b;
    mcz_reader_get_info(r, &a);
    mcz_reader_get_info(rec, &b);
    assert_int_equal(kept, a.contexts);
    assert_int_equal(b.first_number, a.first_number);
    assert_int_equal(b.last_number, a.last_number);
    mcz_reader_close(r);
    mcz_reader_close(rec);
}

/* Chunk bytes a crash now would leave in the LIVE file at p: what mcz_recover finds there (0
 * when it finds nothing); *last: the highest number found. */
static uint64_t recoverable_bytes(const char *p, uint32_t *last)
{
    uint64_t kept, lost;
    *last = 0;
    if (mcz_recover(p, path3, &kept, &lost, NULL) != MCZ_OK)
        return 0;
    mcz_reader *r = mcz_reader_open(path3, NULL);
    assert_non_null(r);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    *last = info.last_number;
    mcz_reader_close(r);
    return stored_bytes(path3);
}

/* What the write hook saw. It may run on a writer thread, so it asserts nothing: the test does,
 * afterwards. */
typedef struct write_watch {
    uint64_t bound, stop_at; /* stop_at: the write the hook fails, as a crash there would */
    uint64_t writes, over, lost, peak; /* calls; those finding the bound broken, chunks missing */
    mcz_writer_stats at_stop;
} write_watch;

/* Before each chunk write the file holds every chunk output so far (stats.last_retained) and,
 * the newest having been trimmed for, at most max_bytes of chunks. */
static int watch_write(mcz_writer *w, uint64_t index, void *arg)
{
    write_watch *ww = arg;
    mcz_writer_stats st;
    mcz_writer_get_stats(w, &st);
    uint32_t last;
    uint64_t bytes = recoverable_bytes(path, &last);
    ww->writes++;
    ww->over += bytes > ww->bound || st.retained_bytes > ww->bound;
    ww->lost += last != st.last_retained;
    ww->peak = bytes > ww->peak ? bytes : ww->peak;
    if (index != ww->stop_at)
        return MCZ_OK;
    ww->at_stop = st;
    return MCZ_EIO;
}

/*
 * A rolling LIVE writer handed many finished chunks at once: the output is held while they are
 * compressed, then written in one go. Each must be trimmed for before the next is written.
 * Returns the writer, every chunk sealed so far written (or the write stop_at failed).
 */
static mcz_writer *write_in_one_go(const tl_corpus *c, write_watch *ww, uint64_t *held)
{
    mcz_writer_options o = collector(MCZ_WRITE_LIVE, 8192);
    o.threads = 2;
    o.max_bytes = ww->bound;
    o.queue_chunks = 64;
    o.checkpoint_ms = 60000; /* no checkpoint between the writes: only what the test does */
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    assert_non_null(w);
    mcz_wr_test_on_write(w, watch_write, ww);
    mcz_wr_test_hold_output(w, true);
    for (uint32_t i = 0; i < c->n; i++)
        assert_int_equal(append_context(w, c, i), MCZ_OK);
    mcz_writer_stats st;
    mcz_writer_get_stats(w, &st);
    *held = st.chunks_sealed;
    assert_true(*held > 10 && *held < o.queue_chunks && ww->writes == 0);
    mcz_wr_test_hold_output(w, false);
    return w;
}

static void test_rolling_live_chunks_at_once(void **state)
{
    (void)state;
    need_holes();
    tl_corpus c;
    tl_corpus_make(&c, 160, 0);
    write_watch ww = {.bound = 12000, .stop_at = UINT64_MAX};
    uint64_t held;
    mcz_writer *w = write_in_one_go(&c, &ww, &held);
    assert_int_equal(ww.writes, held); /* in one go, from this thread */
    mcz_writer_stats st;
    mcz_writer_get_stats(w, &st);
    assert_true(st.chunks_dropped > 2);
    mcz_diag d;
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    assert_int_equal(ww.over, 0);
    assert_int_equal(ww.lost, 0);
    assert_true(ww.peak > ww.bound / 2); /* the files seen held chunks: the check had teeth */
    tl_corpus_free(&c);
}

/* A crash at a chosen write of such a run (the hook fails it): the file then holds, within the
 * bound, exactly the chunks retained at that moment. */
static void test_rolling_live_crash_at_write(void **state)
{
    (void)state;
    need_holes();
    tl_corpus c;
    tl_corpus_make(&c, 160, 0);
    write_watch ww = {.bound = 12000, .stop_at = 30};
    uint64_t held;
    mcz_writer *w = write_in_one_go(&c, &ww, &held);
    assert_int_equal(ww.writes, ww.stop_at + 1);
    assert_int_equal(mcz_writer_diag(w)->code, MCZ_EIO);
    mcz_writer_abort(w); /* a LIVE file stays as it is */
    uint32_t last;
    assert_true(recoverable_bytes(path, &last) <= ww.bound);
    assert_int_equal(last, ww.at_stop.last_retained);
    mcz_archive_info info = check_holds(path3, &c, ww.at_stop.first_retained, last, NULL);
    assert_true(info.first_number > 1);
    assert_int_equal(ww.over, 0);
    tl_corpus_free(&c);
}

/* ---- LIVE ---- */

/* Recovery from the first cut bytes of a LIVE file gives back exactly the chunks that lie whole
 * below the cut (per the reference reader of the whole file). */
static void check_cut(const uint8_t *bytes, uint64_t cut, const mcz_reader *whole,
                      const tl_corpus *c)
{
    tl_save(path2, bytes, (size_t)cut);
    mcz_archive_info info;
    mcz_reader_get_info(whole, &info);
    uint32_t last_whole = 0;
    for (uint64_t i = 0; i < info.chunks; i++) {
        mcz_chunk_info ch;
        mcz_reader_chunk(whole, i, &ch);
        if (ch.offset + ch.stored_size <= cut)
            last_whole = ch.first_number + ch.count - 1;
    }
    uint64_t kept = 0, lost = 0;
    mcz_diag d;
    int rc = mcz_recover(path2, path3, &kept, &lost, &d);
    if (last_whole == 0) {
        assert_int_not_equal(rc, MCZ_OK);
        return;
    }
    if (rc != MCZ_OK)
        fail_msg("cut at %llu: %s", (unsigned long long)cut, d.message);
    assert_int_equal(kept, last_whole);
    check_holds(path3, c, 1, last_whole, NULL);
}

static void test_live_checkpoint_and_recover(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 200, 0);
    mcz_writer_options o = collector(MCZ_WRITE_LIVE, 6000);
    o.no_dict = false;
    o.train_bytes = 64 << 10; /* a real dictionary frame before the first chunk */
    o.dict_size = 4096;
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    assert_non_null(w);
    for (uint32_t i = 0; i < c.n; i++)
        assert_int_equal(append_context(w, &c, i), MCZ_OK);
    assert_int_equal(mcz_writer_flush(w), MCZ_OK);
    mcz_writer_stats st;
    mcz_writer_get_stats(w, &st);
    assert_true(st.checkpoints >= 1);
    /* The file as it is now is a complete archive, written where it will stay. */
    check_holds(path, &c, 1, c.n, NULL);
    size_t size = 0;
    uint8_t *bytes = tl_read(path, &size);
    assert_true(st.written_bytes >= size);
    mcz_reader *whole = mcz_reader_open(path, &d);
    assert_non_null(whole);
    for (uint64_t cut = 0; cut < size; cut += size / 97 + 1)
        check_cut(bytes, cut, whole, &c);
    for (uint64_t i = 0; i < 4; i++) { /* exactly at, and one byte short of, chunk ends */
        mcz_chunk_info ch;
        assert_int_equal(mcz_reader_chunk(whole, i, &ch), MCZ_OK);
        check_cut(bytes, ch.offset + ch.stored_size, whole, &c);
        check_cut(bytes, ch.offset + ch.stored_size - 1, whole, &c);
    }
    mcz_reader_close(whole);
    free(bytes);
    assert_int_equal(mcz_writer_dump(w, path3, &d), MCZ_OK); /* chunks read back from the file */
    check_holds(path3, &c, 1, c.n, NULL);
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    check_holds(path, &c, 1, c.n, NULL);
    tl_corpus_free(&c);
}

/* Chunks written after the last checkpoint lie over the old index; the stale bytes behind them
 * (old index, old footer) do not stop recovery, which gives back every written chunk. */
static void test_live_stale_tail(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 120, 0);
    mcz_writer_options o = collector(MCZ_WRITE_LIVE, 1 << 20);
    o.flush_contexts = 2;        /* small chunks, each shorter than the index it overwrites */
    o.checkpoint_ms = 100000000; /* only flush checkpoints */
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    assert_non_null(w);
    for (uint32_t i = 0; i < 100; i++)
        assert_int_equal(append_context(w, &c, i), MCZ_OK);
    assert_int_equal(mcz_writer_flush(w), MCZ_OK);
    for (uint32_t i = 100; i < 102; i++)
        assert_int_equal(append_context(w, &c, i), MCZ_OK);
    wait_retained(w, 102);
    size_t size = 0;
    uint8_t *bytes = tl_read(path, &size);
    tl_save(path2, bytes, size);
    free(bytes);
    uint64_t kept, lost;
    assert_int_equal(mcz_recover(path2, path3, &kept, &lost, &d), MCZ_OK);
    assert_int_equal(kept, 102);
    check_holds(path3, &c, 1, 102, NULL);
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    check_holds(path, &c, 1, 102, NULL);
    tl_corpus_free(&c);
}

/* flush_ms seals a chunk that nothing else would seal (and decides the pending dictionary);
 * checkpoint_ms then makes the file an archive that holds it, without any call. */
static void test_flush_interval(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 3, 0);
    mcz_writer_options o = collector(MCZ_WRITE_LIVE, 1 << 20);
    o.no_dict = false; /* the dictionary would wait for 2 MiB */
    o.flush_ms = 20;
    o.checkpoint_ms = 10;
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    assert_non_null(w);
    for (uint32_t i = 0; i < c.n; i++)
        assert_int_equal(append_context(w, &c, i), MCZ_OK);
    wait_retained(w, 3);
    mcz_archive_info info = {0};
    for (int i = 0; i < 2000 && info.contexts < 3; i++) {
        mcz_reader *r = mcz_reader_open(path, NULL);
        if (r)
            mcz_reader_get_info(r, &info);
        mcz_reader_close(r);
        sleep_ms(5);
    }
    assert_int_equal(info.contexts, 3);
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    tl_corpus_free(&c);
}

/* flush_contexts caps every chunk's count. */
static void test_flush_contexts(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 23, 0);
    mcz_writer_options o = collector(MCZ_WRITE_ATOMIC, 1 << 20);
    o.flush_contexts = 5;
    assert_int_equal(tl_write(path, &c, &o), MCZ_OK);
    mcz_reader *r = mcz_reader_open(path, NULL);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(info.chunks, 5);
    for (uint64_t i = 0; i < info.chunks; i++) {
        mcz_chunk_info ch;
        mcz_reader_chunk(r, i, &ch);
        assert_int_equal(ch.count, i < 4 ? 5 : 3);
    }
    mcz_reader_close(r);
    tl_corpus_free(&c);
}

/* ---- Concurrent appends ---- */

/* Appends copy outside the lock, into room each reserved: with threads racing the seals (every
 * third context, flush_contexts), the dictionary samples, and contexts larger than a chunk (the
 * buffer grows once the copies into it are done), every number still holds the very context
 * its append was given it for. */
static void test_concurrent_numbers(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 800, 40);
    mcz_writer_options o = collector(MCZ_WRITE_LIVE, 4096);
    o.threads = 2;
    o.no_dict = false;
    o.train_bytes = 16 << 10;
    o.dict_size = 1024;
    o.flush_contexts = 3;
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    assert_non_null(w);
    uint32_t *source = calloc(c.n, sizeof *source);
    assert_int_equal(tl_append_concurrently(w, &c, source), MCZ_OK);
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    check_holds(path, &c, 1, c.n, source);
    free(source);
    tl_corpus_free(&c);
}

/* ---- MEMORY dumps ---- */

static void test_memory_dump_call(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 150, 0);
    mcz_writer_options o = collector(MCZ_WRITE_MEMORY, 8192);
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    assert_non_null(w);
    for (uint32_t i = 0; i < 100; i++)
        assert_int_equal(append_context(w, &c, i), MCZ_OK);
    assert_int_equal(mcz_writer_dump(w, path2, &d), MCZ_OK);
    check_holds(path2, &c, 1, 100, NULL); /* the open chunk was sealed for it */
    for (uint32_t i = 100; i < c.n; i++)
        assert_int_equal(append_context(w, &c, i), MCZ_OK);
    assert_int_equal(mcz_writer_dump(w, path2, &d), MCZ_OK);
    check_holds(path2, &c, 1, c.n, NULL);
    struct stat sb;
    assert_int_not_equal(stat(path, &sb), 0); /* nothing at path before close */
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    check_holds(path, &c, 1, c.n, NULL);
    tl_corpus_free(&c);
}

#ifndef _WIN32
static void test_memory_dump_request_signal(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 80, 0);
    mcz_writer_options o = collector(MCZ_WRITE_MEMORY, 8192);
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    assert_non_null(w);
    assert_int_equal(mcz_writer_dump_on_signal(w, path2, SIGUSR1, false, &d), MCZ_OK);
    mcz_writer *other = mcz_writer_open(path3, &o, &d);
    assert_int_equal(mcz_writer_dump_on_signal(other, path3, SIGUSR2, false, &d), MCZ_ESTATE);
    mcz_writer_abort(other);
    for (uint32_t i = 0; i < c.n; i++)
        assert_int_equal(append_context(w, &c, i), MCZ_OK);
    assert_int_equal(raise(SIGUSR1), 0);
    struct stat sb;
    for (int i = 0; i < 2000 && stat(path2, &sb) != 0; i++)
        sleep_ms(5);
    check_holds(path2, &c, 1, c.n, NULL);
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    struct sigaction now;
    sigaction(SIGUSR1, NULL, &now);
    assert_true(now.sa_handler == SIG_DFL); /* close gave the signal back */
    tl_corpus_free(&c);
}
#else
/* Windows sends a process no signal to ask for something: a request signal is refused, saying
 * so, and leaves the handlers free for the next writer. */
static void test_memory_dump_request_signal(void **state)
{
    (void)state;
    mcz_writer_options o = collector(MCZ_WRITE_MEMORY, 8192);
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    assert_non_null(w);
    assert_int_equal(mcz_writer_dump_on_signal(w, path2, REQUEST_SIGNAL, true, &d),
                     MCZ_EUNSUPPORTED);
    assert_non_null(strstr(d.message, "no request signals"));
    mcz_writer *other = mcz_writer_open(path3, &o, &d);
    assert_int_equal(mcz_writer_dump_on_signal(other, path3, 0, true, &d), MCZ_OK);
    assert_int_equal(mcz_writer_close(other, &d), MCZ_OK);
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
}
#endif

/* ---- Streams ---- */

/* A STREAM writer's descriptor (here a file) receives a whole archive by close; a receiver cut
 * off halfway holds a prefix from which mcz_recover gives back the chunks it holds whole. */
static void test_stream(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 200, 0);
    mcz_writer_options o = collector(MCZ_WRITE_STREAM, 8192);
    o.no_dict = false;
    o.train_bytes = 32 << 10;
    o.dict_size = 2048;
    o.stream_fd = mcz_os_open(path, MCZ_OS_OPEN_WRITE | MCZ_OS_OPEN_CREATE | MCZ_OS_OPEN_TRUNCATE, 0644);
    assert_true(o.stream_fd >= 0);
    assert_int_equal(tl_write(NULL, &c, &o), MCZ_OK);
    assert_int_equal(close(o.stream_fd), 0);
    check_holds(path, &c, 1, c.n, NULL);
    size_t size = 0;
    uint8_t *bytes = tl_read(path, &size);
    tl_save(path2, bytes, size / 2);
    uint64_t kept = 0, lost = 0;
    mcz_diag d;
    assert_int_equal(mcz_recover(path2, path3, &kept, &lost, &d), MCZ_OK);
    assert_true(kept > 0 && kept < c.n);
    check_holds(path3, &c, 1, (uint32_t)kept, NULL);
    free(bytes);
    /* Every chunk's index rows spilled to a temporary file (writer/spill.c): the same archive. */
    assert_int_equal(mcz_os_setenv("MCZ_INDEX_SPILL_MIN", "0"), 0);
    o.stream_fd = mcz_os_open(path2, MCZ_OS_OPEN_WRITE | MCZ_OS_OPEN_CREATE | MCZ_OS_OPEN_TRUNCATE, 0644);
    assert_true(o.stream_fd >= 0);
    assert_int_equal(tl_write(NULL, &c, &o), MCZ_OK);
    assert_int_equal(mcz_os_setenv("MCZ_INDEX_SPILL_MIN", ""), 0);
    assert_int_equal(close(o.stream_fd), 0);
    check_holds(path2, &c, 1, c.n, NULL);
    tl_corpus_free(&c);
}

#ifndef _WIN32
/* A STREAM writer whose receiver is gone before the first byte (a pipe with no reader): the
 * first chunk goes back to the queue's head and stays there, so with a one-chunk queue the
 * queue is full for good. Appends under DROP keep returning; flush and close fail with
 * MCZ_EIO instead of waiting for room that never comes (they once waited forever: alarm turns
 * such a hang into this test's failure). */
static void test_stream_receiver_gone(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 400, 0);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(close(fds[0]), 0);
    mcz_writer_options o = collector(MCZ_WRITE_STREAM, 4096);
    o.when_full = MCZ_FULL_DROP;
    o.queue_chunks = 1;
    o.stream_fd = fds[1];
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(NULL, &o, &d);
    assert_non_null(w);
    alarm(120);
    uint32_t dropped = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        int rc = append_context(w, &c, i);
        if (rc == MCZ_EDROPPED)
            dropped++;
        else if (rc != MCZ_OK)
            fail_msg("append: %s", mcz_error_name(rc));
    }
    assert_true(dropped > 0);
    assert_int_equal(mcz_writer_flush(w), MCZ_EIO);
    assert_int_equal(mcz_writer_close(w, &d), MCZ_EIO);
    alarm(0);
    assert_int_equal(close(fds[1]), 0);
    tl_corpus_free(&c);
}
#endif

/* ---- Fatal faults, in a process of their own ---- */

/* How a crashing collector dies. */
typedef enum { DIE_ABORT, DIE_ACCESS_VIOLATION } fault;
static const char *const fault_names[] = {"abort", "access-violation"};

static void fault_now(fault how)
{
    if (how == DIE_ABORT)
        abort();
    volatile uintptr_t nowhere = 16; /* a store the compiler cannot prove wrong */
    *(volatile int *)nowhere = 1;
}

/* The child: a MEMORY collector with the fatal dump to path2 appends a corpus, has it compressed,
 * and dies. Exits 3 to 5 when it cannot get that far. */
static void crashing_collector(fault how)
{
    tl_corpus c;
    tl_corpus_make(&c, 120, 0);
    mcz_writer_options o = collector(MCZ_WRITE_MEMORY, 8192);
    o.no_dict = false;
    o.train_bytes = 32 << 10;
    o.dict_size = 2048;
    mcz_writer *w = mcz_writer_open(path, &o, NULL);
    if (!w || mcz_writer_dump_on_signal(w, path2, 0, true, NULL) != MCZ_OK)
        _exit(3);
    for (uint32_t i = 0; i < c.n; i++)
        if (append_context(w, &c, i) != MCZ_OK)
            _exit(4);
    if (mcz_writer_flush(w) != MCZ_OK)
        _exit(5);
    fault_now(how);
    _exit(6);
}

#ifdef _WIN32
static const char *self; /* argv[0] */

/* How the child ended: its exit code (for a process an exception ended, the exception's code). */
static int died_of(fault how)
{
    const char *args[] = {self, "--child", fault_names[how], dir, NULL};
    intptr_t code = _spawnv(_P_WAIT, self, args);
    assert_int_not_equal(code, -1);
    return (int)code;
}

static void check_death(fault how, int code)
{
    /* abort: the C runtime's exit code 3; an access violation: STATUS_ACCESS_VIOLATION. */
    assert_int_equal(code, how == DIE_ABORT ? 3 : (int)0xC0000005u);
}
#else
static int died_of(fault how)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL); /* cmocka's handler would go on with the tests in the child */
        crashing_collector(how);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void check_death(fault how, int status)
{
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), how == DIE_ABORT ? SIGABRT : SIGSEGV);
}
#endif

/* A process dying of a fault leaves a complete archive of what its writer had compressed, then
 * dies of the fault as it would have anyway. */
static void check_fatal_dump(fault how)
{
    check_death(how, died_of(how));
    tl_corpus c;
    tl_corpus_make(&c, 120, 0);
    check_holds(path2, &c, 1, c.n, NULL);
    struct stat sb;
    assert_int_not_equal(stat(path, &sb), 0); /* the writer never closed */
    tl_corpus_free(&c);
}

static void test_memory_dump_fatal_signal(void **state)
{
    (void)state;
    check_fatal_dump(DIE_ABORT);
}

static void test_memory_dump_access_violation(void **state)
{
    (void)state;
    check_fatal_dump(DIE_ACCESS_VIOLATION);
}

static void test_signal_misuse(void **state)
{
    (void)state;
    mcz_writer_options o = collector(MCZ_WRITE_LIVE, 8192);
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    assert_int_equal(mcz_writer_dump_on_signal(w, path2, 0, true, &d), MCZ_ESTATE);
    mcz_writer_abort(w);
    o.mode = MCZ_WRITE_ATOMIC;
    w = mcz_writer_open(path, &o, &d);
    assert_int_equal(mcz_writer_dump_on_signal(w, path2, REQUEST_SIGNAL, false, &d), MCZ_ESTATE);
    assert_int_equal(mcz_writer_dump(w, path2, &d), MCZ_ESTATE);
    mcz_writer_abort(w);
    o.max_bytes = 1000; /* rolling needs LIVE or MEMORY */
    assert_null(mcz_writer_open(path, &o, &d));
    assert_int_equal(d.code, MCZ_EINVAL);
}

/* ---- Chunk copies ---- */

static void source_archive(const char *p, const tl_corpus *c, bool dict)
{
    mcz_writer_options o = collector(MCZ_WRITE_ATOMIC, 16384);
    o.no_dict = !dict;
    o.layout = MCZ_LAYOUT_PLAIN; /* its dictionary pays on 16 KiB chunks; copies keep the layout */
    o.train_bytes = 64 << 10;
    o.dict_size = 4096;
    assert_int_equal(tl_write(p, c, &o), MCZ_OK);
}

/* Chunk i of an archive as stored, with its contexts' stored hashes (stored_chunk_free). */
typedef struct stored_chunk {
    const uint8_t *frames;
    size_t len;
    mcz_chunk_info info;
    mcz_hash128 *identity, *dedup;
} stored_chunk;

static stored_chunk stored_chunk_get(const mcz_reader *r, uint64_t i)
{
    stored_chunk s;
    assert_int_equal(mcz_reader_chunk(r, i, &s.info), MCZ_OK);
    assert_int_equal(mcz_reader_chunk_frames(r, i, &s.frames, &s.len, NULL), MCZ_OK);
    s.identity = calloc(s.info.count, sizeof *s.identity);
    s.dedup = calloc(s.info.count, sizeof *s.dedup);
    assert_true(s.identity && s.dedup);
    for (uint32_t k = 0; k < s.info.count; k++)
        assert_int_equal(mcz_reader_hashes(r, s.info.first_number + k, &s.identity[k],
                                           &s.dedup[k]),
                         MCZ_OK);
    return s;
}

static void stored_chunk_free(stored_chunk *s)
{
    free(s->identity);
    free(s->dedup);
}

static int append_stored(mcz_writer *w, const stored_chunk *s, mcz_diag *d)
{
    return mcz_writer_append_compressed(w, s->frames, s->len, s->identity, s->dedup,
                                        s->info.count, d);
}

/* What a caller does on MCZ_EDICT: the chunk's contexts decoded and appended one by one. */
static void append_decoded(mcz_writer *w, const mcz_reader *r, const mcz_chunk_info *ch)
{
    mcz_cursor *cursor = mcz_cursor_create(r);
    assert_non_null(cursor);
    for (uint32_t k = 0; k < ch->count; k++) {
        mcz_mc mc;
        assert_int_equal(mcz_cursor_get(cursor, ch->first_number + k, &mc, NULL), MCZ_OK);
        assert_int_equal(mcz_writer_append(w, mc.bytes, mc.size, NULL), MCZ_OK);
    }
    mcz_cursor_free(cursor);
}

/* Appends chunk i of r compressed, or decoded when the writer refuses it with MCZ_EDICT (which
 * must then have appended nothing); returns whether it was copied. */
static bool copy_chunk(mcz_writer *w, const mcz_reader *r, uint64_t i)
{
    mcz_diag d;
    mcz_writer_stats before, after;
    mcz_writer_get_stats(w, &before);
    stored_chunk s = stored_chunk_get(r, i);
    int rc = append_stored(w, &s, &d);
    mcz_writer_get_stats(w, &after);
    if (rc == MCZ_EDICT) {
        assert_int_equal(after.appended, before.appended);
        append_decoded(w, r, &s.info);
    } else if (rc != MCZ_OK) {
        fail_msg("chunk %llu: %s", (unsigned long long)i, d.message);
    } else {
        assert_int_equal(after.appended, before.appended + s.info.count);
    }
    stored_chunk_free(&s);
    return rc == MCZ_OK;
}

/* Copies every chunk of src after `before` contexts of c appended one by one; returns how many
 * copies were verbatim. */
static uint32_t copy_chunks(const char *src, const char *dst, const mcz_writer_options *o,
                            const tl_corpus *c, uint32_t before)
{
    mcz_diag d;
    mcz_reader *r = mcz_reader_open(src, &d);
    assert_non_null(r);
    mcz_writer *w = mcz_writer_open(dst, o, &d);
    assert_non_null(w);
    for (uint32_t i = 0; i < before; i++)
        assert_int_equal(append_context(w, c, i), MCZ_OK);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    uint32_t verbatim_count = 0;
    for (uint64_t i = 0; i < info.chunks; i++)
        verbatim_count += copy_chunk(w, r, i);
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    mcz_reader_close(r);
    return verbatim_count;
}

/* The data frame of chunk i of archive p. */
static void data_frame(mcz_reader *r, uint64_t i, const uint8_t **frame, size_t *len)
{
    mcz_chunk_info ch;
    assert_int_equal(mcz_reader_chunk(r, i, &ch), MCZ_OK);
    const uint8_t *frames;
    assert_int_equal(mcz_reader_chunk_frames(r, i, &frames, len, NULL), MCZ_OK);
    size_t head = (size_t)mcz_arc_chunk_head_size(ch.count);
    *frame = frames + head;
    *len -= head;
}

static void test_append_chunk_verbatim(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 200, 0);
    source_archive(path, &c, true);
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.threads = 1;
    mcz_reader *src = mcz_reader_open(path, NULL);
    mcz_archive_info si;
    mcz_reader_get_info(src, &si);
    assert_true(si.dict_id != 0);
    mcz_reader_dict(src, &o.dict, &o.dict_len); /* the source's dictionary, as mcs does */
    assert_int_equal(copy_chunks(path, path2, &o, &c, 0), si.chunks);
    check_holds(path2, &c, 1, c.n, NULL);
    mcz_reader *dst = mcz_reader_open(path2, NULL);
    mcz_archive_info di;
    mcz_reader_get_info(dst, &di);
    assert_int_equal(di.dict_id, si.dict_id);
    for (uint64_t i = 0; i < si.chunks; i++) { /* data frames byte for byte */
        const uint8_t *a, *b;
        size_t alen, blen;
        data_frame(src, i, &a, &alen);
        data_frame(dst, i, &b, &blen);
        assert_int_equal(alen, blen);
        assert_memory_equal(a, b, alen);
    }
    mcz_reader_close(dst);
    mcz_reader_close(src);
    tl_corpus_free(&c);
}

/* Contexts appended first take the first numbers; the copies follow, renumbered. */
static void test_append_chunk_renumbers(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 100, 0);
    source_archive(path, &c, false);
    mcz_writer_options o = collector(MCZ_WRITE_ATOMIC, 16384);
    uint32_t *source = malloc((c.n + 30) * sizeof *source);
    for (uint32_t n = 0; n < c.n + 30; n++)
        source[n] = n < 30 ? n : n - 30;
    mcz_reader *r = mcz_reader_open(path, NULL);
    mcz_archive_info si;
    mcz_reader_get_info(r, &si);
    mcz_reader_close(r);
    assert_int_equal(copy_chunks(path, path2, &o, &c, 30), si.chunks);
    check_holds(path2, &c, 1, c.n + 30, source);
    free(source);
    tl_corpus_free(&c);
}

/* Another dictionary: the contexts are decoded and appended, the result is the same. */
static void test_append_chunk_fallback(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 150, 0);
    source_archive(path, &c, true);
    mcz_writer_options o = collector(MCZ_WRITE_ATOMIC, 16384); /* no dictionary at all */
    assert_int_equal(copy_chunks(path, path2, &o, &c, 0), 0);
    check_holds(path2, &c, 1, c.n, NULL);
    tl_corpus_free(&c);
}

/* A damaged source chunk is an error naming its first context at an offset inside it, and
 * nothing of it is copied; the writer goes on. */
static void test_append_chunk_damaged(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 100, 0);
    source_archive(path, &c, false);
    mcz_reader *r = mcz_reader_open(path, NULL);
    mcz_chunk_info ch;
    assert_int_equal(mcz_reader_chunk(r, 1, &ch), MCZ_OK);
    mcz_reader_close(r);
    size_t size = 0;
    uint8_t *bytes = tl_read(path, &size);
    bytes[ch.offset + ch.stored_size - 20] ^= 0x55; /* inside the data frame */
    tl_save(path3, bytes, size);
    free(bytes);
    r = mcz_reader_open(path3, NULL);
    assert_non_null(r);
    mcz_writer_options o = collector(MCZ_WRITE_ATOMIC, 16384);
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path2, &o, &d);
    stored_chunk good = stored_chunk_get(r, 0), bad = stored_chunk_get(r, 1);
    assert_int_equal(append_stored(w, &good, &d), MCZ_OK);
    mcz_diag_clear(&d);
    assert_int_not_equal(append_stored(w, &bad, &d), MCZ_OK);
    assert_int_equal(d.context, ch.first_number);
    assert_true(d.offset >= 0 && d.offset < (int64_t)ch.stored_size);
    mcz_writer_stats st;
    mcz_writer_get_stats(w, &st);
    assert_int_equal(st.appended, good.info.count);
    stored_chunk_free(&bad);
    stored_chunk_free(&good);
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    mcz_reader_close(r);
    check_holds(path2, &c, 1, ch.first_number - 1, NULL);
    tl_corpus_free(&c);
}

/* The frames are checked against the caller's count and must hold the chunk alone; refusals
 * append nothing and leave the writer usable. */
static void test_append_compressed_misuse(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 60, 0);
    source_archive(path, &c, false);
    mcz_reader *r = mcz_reader_open(path, NULL);
    assert_non_null(r);
    mcz_writer_options o = collector(MCZ_WRITE_ATOMIC, 16384);
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path2, &o, &d);
    stored_chunk s = stored_chunk_get(r, 0);
    assert_true(s.info.count > 1);
    assert_int_equal(mcz_writer_append_compressed(w, s.frames, s.len, s.identity, s.dedup,
                                                  s.info.count - 1, &d),
                     MCZ_EINVAL);
    assert_int_equal(mcz_writer_append_compressed(w, s.frames, s.len + 1, s.identity, s.dedup,
                                                  s.info.count, &d),
                     MCZ_ECORRUPT); /* the next chunk's first byte is no part of this one */
    assert_int_equal(mcz_writer_append_compressed(w, s.frames, s.len - 1, s.identity, s.dedup,
                                                  s.info.count, &d),
                     MCZ_ETRUNCATED);
    assert_int_equal(mcz_writer_append_compressed(w, NULL, s.len, s.identity, s.dedup,
                                                  s.info.count, &d),
                     MCZ_EINVAL);
    mcz_writer_stats st;
    mcz_writer_get_stats(w, &st);
    assert_int_equal(st.appended, 0);
    assert_int_equal(append_stored(w, &s, &d), MCZ_OK);
    stored_chunk_free(&s);
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    mcz_reader_close(r);
    tl_corpus_free(&c);
}

/* ---- Statistics ---- */

static void test_stats(void **state)
{
    (void)state;
    tl_corpus c;
    tl_corpus_make(&c, 300, 0);
    mcz_writer_options o = collector(MCZ_WRITE_LIVE, 8192);
    o.threads = 2;
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    uint64_t raw = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        assert_int_equal(append_context(w, &c, i), MCZ_OK);
        raw += c.sizes[i];
    }
    assert_int_equal(mcz_writer_flush(w), MCZ_OK);
    mcz_writer_stats st;
    mcz_writer_get_stats(w, &st);
    assert_int_equal(st.appended, c.n);
    assert_int_equal(st.raw_bytes, raw);
    assert_int_equal(st.dropped_full, 0);
    assert_int_equal(st.dropped_rolling, 0);
    assert_int_equal(st.chunks_dropped, 0);
    assert_int_equal(st.first_retained, 1);
    assert_int_equal(st.last_retained, c.n);
#ifndef _WIN32 /* Windows counts thread times in scheduler ticks (Wine: 10 ms), which so short a
                * run may not reach */
    assert_true(st.compress_cpu_ns > 0);
#endif
    assert_true(st.queue_peak >= 1 && st.queue_peak <= 2 * 2 + 2);
    assert_true(st.checkpoints >= 1);
    mcz_reader *r = mcz_reader_open(path, NULL);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    assert_int_equal(st.chunks_sealed, info.chunks);
    mcz_reader_close(r);
    assert_int_equal(st.retained_bytes, stored_bytes(path));
    assert_int_equal(mcz_writer_close(w, &d), MCZ_OK);
    tl_corpus_free(&c);
}

/* The LIVE checkpoint rule, case by case. */
static void test_live_checkpoint_rule(void **state)
{
    (void)state;
    const uint64_t ms = 1000000u, period = 100 * ms;
    uint64_t wake;
    mcz_wr_live_clock clean = {false, false, period, 0, 0, 0, 0};
    assert_int_equal(mcz_wr_live_decide(&clean, 5000 * ms, &wake), MCZ_WR_LIVE_WAIT);
    assert_true(wake == UINT64_MAX); /* nothing to do until a chunk is written */

    /* The first index comes at once: it makes the file an archive. */
    mcz_wr_live_clock first = {true, true, period, 0, 0, 500, 0};
    assert_int_equal(mcz_wr_live_decide(&first, 150 * ms, &wake), MCZ_WR_LIVE_INDEX);

    /* Within a period of the last index or sync: wait for the period's end. */
    mcz_wr_live_clock c = {true, true, period, 1000 * ms, 1050 * ms, 0, 5000};
    assert_int_equal(mcz_wr_live_decide(&c, 1060 * ms, &wake), MCZ_WR_LIVE_WAIT);
    assert_true(wake == 1100 * ms);
    /* Enough chunk bytes since the last index (20000 >= 4 x 5000): a new index. */
    c.since_index = 20000;
    assert_int_equal(mcz_wr_live_decide(&c, 1100 * ms, &wake), MCZ_WR_LIVE_INDEX);

    /* Fewer chunk bytes than that while chunks keep coming: only a sync, and a look again when
     * chunks would have stopped for a period. */
    c.since_index = 19999;
    c.chunk_ns = 1090 * ms;
    assert_int_equal(mcz_wr_live_decide(&c, 1100 * ms, &wake), MCZ_WR_LIVE_SYNC);
    assert_true(wake == 1190 * ms);
    c.unsynced = false;
    c.last_ns = 1100 * ms;
    assert_int_equal(mcz_wr_live_decide(&c, 1150 * ms, &wake), MCZ_WR_LIVE_WAIT);
    assert_true(wake == 1200 * ms);
    assert_int_equal(mcz_wr_live_decide(&c, 1200 * ms, &wake), MCZ_WR_LIVE_INDEX); /* quiet */
}

/* A long simulated run: chunks of 2000 bytes every 10 ms, each adding 72 index bytes (two
 * contexts of 40 and one chunk entry of 32): the index rewrites cost at most a quarter of the
 * chunks' bytes, every written chunk is synced within two periods, and the file ends complete. */
static void test_live_checkpoint_cost(void **state)
{
    (void)state;
    const uint64_t ms = 1000000u;
    mcz_wr_live_clock c = {false, false, 100 * ms, 0, 0, 0, 0};
    uint64_t chunk_bytes = 0, index_written = 0, index_size = 64, unsynced_since = 0;
    uint64_t checkpoints = 0, syncs = 0, end = 600000 * ms; /* 10 minutes */
    for (uint64_t now = 0; now <= end + 300 * ms; now += ms) {
        if (now <= end && now % (10 * ms) == 0) {
            if (!c.unsynced)
                unsynced_since = now;
            c.dirty = c.unsynced = true;
            c.chunk_ns = now;
            c.since_index += 2000;
            chunk_bytes += 2000;
            index_size += 72;
            c.index_bytes = index_size;
        }
        uint64_t wake;
        mcz_wr_live_step step = mcz_wr_live_decide(&c, now, &wake);
        if (step == MCZ_WR_LIVE_INDEX) {
            index_written += index_size;
            c.since_index = 0;
            c.dirty = false;
            checkpoints++;
        } else if (step == MCZ_WR_LIVE_SYNC) {
            syncs++;
        }
        if (step != MCZ_WR_LIVE_WAIT) {
            assert_true(now - unsynced_since <= 200 * ms);
            c.unsynced = false;
            c.last_ns = now;
        }
    }
    assert_false(c.dirty); /* the index came after the last chunk */
    assert_true(index_written <= chunk_bytes / MCZ_WR_INDEX_SHARE + index_size);
    assert_true(checkpoints > 10 && syncs > checkpoints);
    /* Rewriting the index at every period would have cost some 50 times as much. */
    assert_true(index_written * 25 < (end / (100 * ms)) * (index_size / 2));
}

/* "--child NAME DIR": the crashing collector NAME, in the scratch directory DIR of the test that
 * started it (Windows: what POSIX forks for). */
static bool run_child(int argc, char **argv)
{
    if (argc != 4 || strcmp(argv[1], "--child") != 0)
        return false;
    snprintf(dir, sizeof dir, "%s", argv[3]);
    snprintf(path, sizeof path, "%s/a.mcz", dir);
    snprintf(path2, sizeof path2, "%s/b.mcz", dir);
    for (size_t i = 0; i < sizeof fault_names / sizeof fault_names[0]; i++)
        if (strcmp(argv[2], fault_names[i]) == 0)
            crashing_collector((fault)i);
    return true;
}

int main(int argc, char **argv)
{
    if (run_child(argc, argv))
        return 2; /* no such child */
#ifdef _WIN32
    self = argv[0];
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_drop_when_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drop_while_dictionary_pending, setup, teardown),
        cmocka_unit_test_setup_teardown(test_block_when_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rolling_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rolling_live, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rolling_live_chunks_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rolling_live_crash_at_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_live_checkpoint_and_recover, setup, teardown),
        cmocka_unit_test_setup_teardown(test_live_stale_tail, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flush_interval, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flush_contexts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream, setup, teardown),
#ifndef _WIN32
        cmocka_unit_test_setup_teardown(test_stream_receiver_gone, setup, teardown),
#endif
        cmocka_unit_test_setup_teardown(test_memory_dump_call, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_dump_request_signal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_dump_fatal_signal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_dump_access_violation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signal_misuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append_chunk_verbatim, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append_chunk_renumbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append_chunk_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append_chunk_damaged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append_compressed_misuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stats, setup, teardown),
        cmocka_unit_test(test_live_checkpoint_rule),
        cmocka_unit_test(test_live_checkpoint_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
