/*
 * output.c - finished chunks leave the queue in number order, whatever order they finish in,
 * for the writer's output (out.h: a temporary renamed at the end, a LIVE file, memory, or a
 * stream; the output decides what storing a chunk means). One thread at a time writes: the
 * holder of the output token, without the lock.
 *
 * Every chunk that reaches the output joins the retained list with its index rows (in memory,
 * or past a bound in a temporary file when the index is written only at close: spill.c), so an
 * index is encoded from the list at a checkpoint, a close or a dump (retained.c): compressed
 * (mcz_arc_index_write, FORMAT.md §5) except in a dump from a fatal-signal handler, which may
 * not allocate and streams the raw form (mcz_arc_index_stream). The list is changed only by the
 * holder of the output token, under the lock; its links are atomics so that handler can walk it
 * without either, and a handshake keeps it still while the handler does (begin_retaining).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/platform.h"
#include "mcz_common.h"
#include "writer_impl.h"

/* ---- What an index or a dump describes ---- */

static mcz_wr_head writer_head(const mcz_writer *w)
{
    mcz_wr_head h = {w->head, w->head_len, w->dict, w->dict_len, w->meta, w->meta_len};
    return h;
}

/* The retained list now, with next_number an empty index's first number. */
static mcz_wr_list retained_list(mcz_writer *w, uint32_t next_number)
{
    chunk *first = atomic_load(&w->retained_head);
    mcz_wr_list l = {first, mcz_wr_list_count(first), next_number, !w->no_hashes, &w->spill};
    return l;
}

int mcz_wr_write_head(mcz_writer *w, mcz_diag *d)
{
    mcz_wr_head h = writer_head(w);
    return w->out->ops->begin(w->out, &h, d);
}

/* ---- The retained list ---- */

/* Appends c to the retained list (lock and token held); the release store publishes its
 * finished fields to a fatal-signal dump. */
static void retain(mcz_writer *w, chunk *c)
{
    MCZ_WR_TOKEN_HELD(w);
    MCZ_LOCK_HELD(&w->lock);
    atomic_store_explicit(&c->retained_next, NULL, memory_order_relaxed);
    if (w->retained_tail)
        atomic_store_explicit(&w->retained_tail->retained_next, c, memory_order_release);
    else
        atomic_store_explicit(&w->retained_head, c, memory_order_release);
    w->retained_tail = c;
    w->stats.retained_bytes += c->frames_len;
    w->retained_chunks++;
    w->retained_contexts += c->count;
    w->out_next_number = c->first_number + c->count;
}

/* Unlinks the oldest chunks until the retained bytes fit max_bytes (lock and token held);
 * returns them chained through ->next. An unlinked chunk keeps its retained_next. */
static chunk *trim_retained(mcz_writer *w)
{
    MCZ_WR_TOKEN_HELD(w);
    MCZ_LOCK_HELD(&w->lock);
    chunk *gone = NULL, **link = &gone;
    while (w->max_bytes && w->stats.retained_bytes > w->max_bytes) {
        chunk *c = atomic_load(&w->retained_head);
        atomic_store(&w->retained_head, atomic_load(&c->retained_next));
        if (w->retained_tail == c)
            w->retained_tail = NULL;
        w->stats.retained_bytes -= c->frames_len;
        w->retained_chunks--;
        w->retained_contexts -= c->count;
        w->stats.chunks_dropped++;
        w->stats.dropped_rolling += c->count;
        c->next = NULL;
        *link = c;
        link = &c->next;
    }
    return gone;
}

static void update_retained_range(mcz_writer *w)
{
    const chunk *first = atomic_load(&w->retained_head), *last = w->retained_tail;
    w->stats.first_retained = first ? first->first_number : 0;
    w->stats.last_retained = last ? last->first_number + last->count - 1 : 0;
}

/* Frees discarded chunks, after the output reclaimed their room (a LIVE file punches them out).
 * Token held, lock not held. Once a fatal-signal dump has started nothing is freed: should it
 * have stopped waiting for this change (begin_retaining), it may be walking them. */
static int release_discarded(mcz_writer *w, chunk *gone, mcz_diag *d)
{
    MCZ_LOCK_FREE(&w->lock);
    int rc = MCZ_OK;
    if (gone && w->out->ops->discard)
        rc = w->out->ops->discard(w->out, gone, d);
    while (gone) {
        chunk *c = gone;
        gone = c->next;
        if (atomic_load(&w->fatal_dumping) == 0)
            mcz_wr_chunk_free(c);
    }
    return rc;
}

void mcz_wr_free_retained(mcz_writer *w)
{
    chunk *c = atomic_load(&w->retained_head);
    while (c) {
        chunk *next = atomic_load(&c->retained_next);
        mcz_wr_chunk_free(c);
        c = next;
    }
    atomic_store(&w->retained_head, NULL);
    w->retained_tail = NULL;
}

/* ---- Chunks into the output ---- */

/* Gives c to the output; one that keeps chunks in memory keeps its frames, else the index rows
 * are all the writer keeps, and past a bound not even those (spill.c). Token held, lock not
 * held. */
static int store_chunk(mcz_writer *w, chunk *c, mcz_diag *d)
{
    MCZ_WR_TOKEN_HELD(w);
    MCZ_LOCK_FREE(&w->lock);
    int rc = w->out->ops->chunk(w->out, c, d);
    if (rc == MCZ_OK && !(w->out->ops->flags & MCZ_WR_OUT_IN_MEMORY)) {
        free(c->frames);
        c->frames = NULL;
    }
    if (rc == MCZ_OK)
        rc = mcz_wr_spill_chunk(&w->spill, c, !w->no_hashes, w->path, d);
    return rc;
}

/* Detaches the finished chunk at the queue's head (lock held). */
static chunk *take_head(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    chunk *c = w->head_chunk;
    assert(c && c->state == CHUNK_DONE);
    w->head_chunk = c->next;
    if (!w->head_chunk)
        w->tail_chunk = NULL;
    c->next = NULL;
    w->todo = w->head_chunk; /* next_todo skips what workers hold */
    return c;
}

/*
 * Starts a change of the retained list (lock held); true when the list is frozen instead: a
 * fatal-signal dump has begun. With fatal_dumping, a Dekker handshake (both sides write their
 * flag, then read the other's, sequentially consistent): either this change sees the dump and
 * leaves the list alone, or the dump sees the change and waits for its end
 * (mcz_wr_dump_fatal). So the dump holds every chunk the statistics ever called retained, and
 * what it reads never changes under it.
 */
static bool begin_retaining(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    atomic_fetch_add(&w->retaining, 1);
    return atomic_load(&w->fatal_dumping) > 0;
}

/* The test hook (writer_test.h), then c's frames into the file. Token held, lock not held. */
static int write_chunk(mcz_writer *w, chunk *c, uint64_t index, mcz_diag *d)
{
    MCZ_WR_TOKEN_HELD(w);
    MCZ_LOCK_FREE(&w->lock);
    mcz_wr_test_write_fn hook = w->test_write;
    int rc = hook ? hook(w, index, w->test_write_arg) : MCZ_OK;
    if (rc != MCZ_OK)
        return mcz_diag_set(d, rc, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                            "the test hook stopped chunk write %llu", (unsigned long long)index);
    return store_chunk(w, c, d);
}

/* Records c as in the output and trims the retained list to max_bytes; returns the chunks
 * discarded (lock and token held). */
static chunk *record_chunk(mcz_writer *w, chunk *c)
{
    MCZ_LOCK_HELD(&w->lock);
    uint64_t written = w->out->ops->flags & MCZ_WR_OUT_IN_MEMORY ? 0 : c->frames_len;
    bool frozen = begin_retaining(w);
    if (!frozen)
        retain(w, c); /* else leaked: the process is dying */
    w->in_flight--;
    w->chunks_out++;
    w->stats.written_bytes += written;
    chunk *gone = frozen ? NULL : trim_retained(w);
    if (w->out->ops->wrote)
        w->out->ops->wrote(w->out, written, w->retained_chunks, w->retained_contexts,
                           mcz_wr_now_ns());
    update_retained_range(w);
    atomic_fetch_sub(&w->retaining, 1);
    return gone;
}

/* A chunk that did not reach the file (its write failed, or the writer had failed before) is
 * freed, not retained: nothing refers to it, and no older chunk is discarded for it (lock held).
 * The sticky error ends the writer. */
static void drop_unwritten(mcz_writer *w, chunk *c, const mcz_diag *d)
{
    MCZ_LOCK_HELD(&w->lock);
    w->in_flight--;
    if (d->code != MCZ_OK)
        mcz_wr_set_error(w, d);
    mcz_wr_chunk_free(c);
}

/* STREAM: a chunk the receiver did not take goes back to the queue's head, still counted in
 * the queue, so the queue stays full from then on (lock held). */
static void requeue_head(mcz_writer *w, chunk *c)
{
    MCZ_LOCK_HELD(&w->lock);
    c->next = w->head_chunk;
    w->head_chunk = c;
    if (!w->tail_chunk)
        w->tail_chunk = c;
    w->todo = w->head_chunk;
}

/*
 * Writes c, records it, and discards (LIVE: punches out) what max_bytes no longer keeps, all
 * before the next chunk is written: the chunks before the newest never exceed the bound, at any
 * moment (FORMAT.md §12). Token held; called and returning with the lock held.
 */
static void output_chunk(mcz_writer *w, chunk *c)
{
    MCZ_WR_TOKEN_HELD(w);
    MCZ_LOCK_HELD(&w->lock);
    int rc = w->error.code; /* a failed writer writes nothing more */
    uint64_t index = w->chunks_out;
    mcz_lock_drop(&w->lock);
    mcz_diag d;
    mcz_diag_clear(&d);
    if (rc == MCZ_OK)
        rc = write_chunk(w, c, index, &d);
    mcz_lock_take(&w->lock);
    mcz_cond_broadcast(&w->space);
    mcz_cond_broadcast(&w->progress);
    if (rc != MCZ_OK && atomic_load(&w->out->lost)) {
        requeue_head(w, c);
        return;
    }
    if (rc != MCZ_OK) {
        drop_unwritten(w, c, &d);
        return;
    }
    chunk *gone = record_chunk(w, c);
    mcz_lock_drop(&w->lock);
    rc = release_discarded(w, gone, &d);
    if (w->out->ops->checkpoint)
        mcz_sem_post(&w->wake); /* the service thread checkpoints: workers go on compressing */
    mcz_lock_take(&w->lock);
    if (rc != MCZ_OK)
        mcz_wr_set_error(w, &d);
}

void mcz_wr_pump_output(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    while (!w->output_busy && !atomic_load(&w->out->lost) && w->head_chunk &&
           w->head_chunk->state == CHUNK_DONE) {
        w->output_busy = true;
        output_chunk(w, take_head(w));
        w->output_busy = false;
        mcz_cond_broadcast(&w->progress);
    }
}

void mcz_wr_output_acquire(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    while (w->output_busy)
        mcz_lock_wait(&w->lock, &w->progress);
    w->output_busy = true;
}

void mcz_wr_output_release(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    w->output_busy = false;
    mcz_cond_broadcast(&w->progress);
    mcz_wr_pump_output(w);
}

/* ---- Checkpoints, the end, dumps ---- */

int mcz_wr_checkpoint(mcz_writer *w, bool index, mcz_diag *d)
{
    MCZ_LOCK_FREE(&w->lock);
    assert(w->output_busy && w->out->ops->checkpoint);
    mcz_wr_list l = retained_list(w, w->out_next_number);
    uint64_t written = 0;
    int rc = w->out->ops->checkpoint(w->out, index, &l, &written, d);
    if (rc != MCZ_OK)
        return rc;
    mcz_lock_take(&w->lock);
    if (index) {
        w->stats.checkpoints++;
        w->stats.written_bytes += written;
    }
    w->out->ops->checkpointed(w->out, index, mcz_wr_now_ns());
    mcz_lock_drop(&w->lock);
    return MCZ_OK;
}

int mcz_wr_finish(mcz_writer *w, mcz_diag *d)
{
    mcz_wr_head h = writer_head(w);
    mcz_wr_list l = retained_list(w, w->out_next_number);
    uint64_t written = 0;
    int rc = w->out->ops->finish(w->out, &h, &l, &written, d);
    w->stats.written_bytes += written; /* no other thread runs */
    return rc;
}

int mcz_wr_dump_retained(mcz_writer *w, const char *path, mcz_diag *d)
{
    MCZ_LOCK_FREE(&w->lock);
    assert(w->output_busy);
    mcz_wr_head h = writer_head(w);
    mcz_wr_list l = retained_list(w, w->out_next_number);
    return mcz_wr_archive_to(path, &h, &l, w->out, d);
}

/* Waits, briefly, for a change of the retained list that began before the dump to end (see
 * begin_retaining). Bounded: the change may belong to the thread that crashed. */
static void wait_retaining(mcz_writer *w)
{
    for (int i = 0; i < 100 && atomic_load(&w->retaining) > 0; i++)
        mcz_os_nap(100000); /* 0.1 ms, at most 100 times */
}

/* A dump's sink in a signal handler: plain writes to a descriptor. */
static int fd_sink(void *arg, const void *bytes, size_t len)
{
    return mcz_os_write_all(*(const int *)arg, bytes, len);
}

void mcz_wr_dump_fatal(mcz_writer *w, const char *tmp_path, const char *path)
{
    atomic_fetch_add(&w->fatal_dumping, 1);
    wait_retaining(w);
    if (!atomic_load(&w->dict_ready))
        return; /* nothing was compressed yet */
    int fd = mcz_outfile_raw_open(tmp_path);
    if (fd < 0)
        return;
    mcz_wr_head h = writer_head(w);
    mcz_wr_list l = retained_list(w, w->first_number);
    if (mcz_wr_archive_emit(&h, &l, NULL, true, fd_sink, &fd) == MCZ_OK) /* raw: no allocation */
        mcz_outfile_raw_commit(fd, tmp_path, path);
    else
        mcz_os_close(fd); /* the partial file stays for mcz_recover */
}

/* ---- Test hooks (writer_test.h) ---- */

void mcz_wr_test_on_write(mcz_writer *w, mcz_wr_test_write_fn fn, void *arg)
{
    mcz_lock_take(&w->lock);
    w->test_write = fn;
    w->test_write_arg = arg;
    mcz_lock_drop(&w->lock);
}

uint64_t mcz_wr_test_spilled(const mcz_writer *w)
{
    MCZ_WR_TOKEN_HELD(w);
    return w->spill.size;
}

static bool queue_compressed(const mcz_writer *w)
{
    for (const chunk *c = w->head_chunk; c; c = c->next)
        if (c->state != CHUNK_DONE)
            return false;
    return true;
}

void mcz_wr_test_hold_output(mcz_writer *w, bool held)
{
    mcz_lock_take(&w->lock);
    if (held) {
        mcz_wr_output_acquire(w);
    } else {
        while (w->error.code == MCZ_OK && !queue_compressed(w))
            mcz_lock_wait(&w->lock, &w->progress);
        mcz_wr_output_release(w);
    }
    mcz_lock_drop(&w->lock);
}
