/*
 * output.c - where finished chunks go, in number order, in each mode (FORMAT.md §12):
 *
 *   ATOMIC  appended to the temporary file; the index is written once, at close.
 *   LIVE    written into the file at path as they come, each over the previous index; a
 *           checkpoint writes index and footer after the last chunk and cuts the file there, so
 *           the file is a complete archive at every checkpoint. Chunks discarded by max_bytes
 *           become a hole (FALLOC_FL_PUNCH_HOLE): disk use stays bounded, offsets stay valid.
 *   MEMORY  kept compressed in the retained list (the ring), oldest discarded past max_bytes,
 *           written out as a whole archive by a dump.
 *   STREAM  sent to the caller's descriptor as they come, after the head; index and footer at
 *           close. A failed send closes the stream for good: the chunk goes back to the queue's
 *           head and the output stops, so the queue fills and appends meet the full policy.
 *
 * Every chunk that reaches the output joins the retained list with its index rows, so an index
 * is encoded from the list at a checkpoint, a close or a dump: compressed (mcz_arc_index_write,
 * FORMAT.md §5) except in a dump from a fatal-signal handler, which may not allocate and
 * streams the raw form (mcz_arc_index_stream). The list is changed only by the holder of the
 * output token, under the lock; its links are atomics so that handler can walk it without
 * either, and a handshake keeps it still while the handler does (begin_retaining).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mcz_common.h"
#include "writer_impl.h"

#define COPY_BUFFER 65536 /* LIVE dumps copy chunks from the file through this buffer */
#define HOLE_BLOCK 4096   /* file system block size, for punching holes */

/* ---- Plain I/O (async-signal-safe) ---- */

/* Writes all of data: at off with pwrite, or at the file position when off is negative. */
static int write_fully(int fd, const void *data, size_t len, int64_t off)
{
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return MCZ_EIO;
        p += n;
        len -= (size_t)n;
        off = off < 0 ? off : off + n;
    }
    return MCZ_OK;
}

static int live_failure(const mcz_writer *w, mcz_diag *d, uint64_t off, const char *what)
{
    return mcz_fail(d, MCZ_EIO, (int64_t)off, -1, "%s: %s failed: %s", w->path, what,
                    strerror(errno));
}

/* Writing `what` to the ATOMIC temporary file failed with rc: an I/O error says its errno (the
 * outfile records its failure with no call in between that sets errno), e.g. a full disk. */
static int atomic_failure(const mcz_writer *w, mcz_diag *d, int rc, int64_t off, int64_t number,
                          const char *what)
{
    const char *why = rc == MCZ_EIO ? strerror(errno) : mcz_error_name(rc);
    return mcz_fail(d, rc, off, number, "%s: %s failed: %s", w->path, what, why);
}

/* ---- Streams: never a SIGPIPE ---- */

/* One write to a pipe or file with SIGPIPE blocked in this thread; a SIGPIPE this write raised
 * (pending now, none before) is consumed before the mask is restored, so it never reaches the
 * process's handler or default action. A write the reader left in the middle of raises it too,
 * and returns the bytes it wrote, not EPIPE: the next write gets EPIPE. */
static ssize_t write_nosigpipe(int fd, const void *p, size_t len)
{
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE) == 1;
    ssize_t n = write(fd, p, len);
    int saved = errno;
    sigpending(&pending);
    if (!was_pending && sigismember(&pending, SIGPIPE) == 1) {
        struct timespec none = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &none) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return n;
}

/* Sends all of data to the stream, waiting for room when the descriptor is non-blocking. */
static int stream_send(const mcz_writer *w, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t n = w->stream_socket ? send(w->stream_fd, p, len, MSG_NOSIGNAL)
                                     : write_nosigpipe(w->stream_fd, p, len);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pf = {w->stream_fd, POLLOUT, 0};
            if (poll(&pf, 1, -1) >= 0 || errno == EINTR)
                continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return MCZ_EIO;
        p += n;
        len -= (size_t)n;
    }
    return MCZ_OK;
}

/* A send failed: the stream is closed for good (output token held, or no other thread). */
static void stream_lost(mcz_writer *w, uint64_t off)
{
    mcz_fail(&w->stream_error, MCZ_EIO, (int64_t)off, -1, "%s: the stream's receiver is gone: %s",
             w->path, strerror(errno));
    atomic_store(&w->stream_gone, true);
}

int mcz_wr_open_stream(mcz_writer *w, mcz_diag *d)
{
    struct stat st;
    if (w->stream_fd < 0 || fstat(w->stream_fd, &st) != 0)
        return mcz_fail(d, MCZ_EINVAL, -1, -1, "%s: stream_fd %d is no open descriptor", w->path,
                        w->stream_fd);
    w->stream_socket = S_ISSOCK(st.st_mode);
    return MCZ_OK;
}

/* ---- Sinks for the streaming encoder ---- */

typedef struct file_sink {
    int fd;
    uint64_t at; /* pwrite position; unused by fd_write */
    uint64_t written;
} file_sink;

static int fd_write(void *arg, const void *bytes, size_t len)
{
    file_sink *s = arg;
    s->written += len;
    return write_fully(s->fd, bytes, len, -1);
}

static int fd_pwrite(void *arg, const void *bytes, size_t len)
{
    file_sink *s = arg;
    int rc = write_fully(s->fd, bytes, len, (int64_t)s->at);
    s->at += len;
    s->written += len;
    return rc;
}

static int outfile_sink(void *arg, const void *bytes, size_t len)
{
    return mcz_outfile_write(arg, bytes, len);
}

/* ---- Opening, the head ---- */

int mcz_wr_open_live(mcz_writer *w, mcz_diag *d)
{
    w->fd = open(w->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (w->fd < 0)
        return mcz_fail(d, MCZ_EIO, -1, -1, "%s: cannot create: %s", w->path, strerror(errno));
    /* A rolling LIVE file needs holes; without them its disk use would not be bounded. */
    if (w->max_bytes && fallocate(w->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 1) != 0)
        return mcz_fail(d, MCZ_EUNSUPPORTED, -1, -1,
                        "%s: max_bytes needs a file system that can punch holes: %s", w->path,
                        strerror(errno));
    return MCZ_OK;
}

int mcz_wr_write_head(mcz_writer *w, mcz_diag *d)
{
    if (w->mode == MCZ_WRITE_STREAM) {
        if (stream_send(w, w->head, w->head_len) != MCZ_OK ||
            stream_send(w, w->dict, w->dict_len) != MCZ_OK ||
            stream_send(w, w->meta, w->meta_len) != MCZ_OK)
            stream_lost(w, 0); /* not the writer's error: the chunks stay queued */
        w->end = MCZ_WR_DATA_START(w);
        return MCZ_OK;
    }
    if (w->mode == MCZ_WRITE_LIVE) {
        if (write_fully(w->fd, w->head, w->head_len, 0) != MCZ_OK ||
            write_fully(w->fd, w->dict, w->dict_len, (int64_t)w->head_len) != MCZ_OK ||
            write_fully(w->fd, w->meta, w->meta_len, (int64_t)(w->head_len + w->dict_len)) !=
                MCZ_OK)
            return live_failure(w, d, 0, "write");
        w->end = w->punched = MCZ_WR_DATA_START(w);
        return MCZ_OK;
    }
    int rc = mcz_outfile_write(w->out, w->head, w->head_len);
    if (rc == MCZ_OK)
        rc = mcz_outfile_write(w->out, w->dict, w->dict_len);
    if (rc == MCZ_OK)
        rc = mcz_outfile_write(w->out, w->meta, w->meta_len);
    return rc == MCZ_OK ? MCZ_OK : atomic_failure(w, d, rc, 0, -1, "archive write");
}

/* ---- The retained list ---- */

static uint32_t retained_count(chunk *first)
{
    uint32_t k = 0;
    for (chunk *c = first; c; c = atomic_load_explicit(&c->retained_next, memory_order_acquire))
        k++;
    return k;
}

/* Index rows of the retained chunks; relocated: laid back to back from data_start (a dump),
 * else at their file offsets (a checkpoint or the ATOMIC index). */
typedef struct retained_walk {
    chunk *first, *at;
    uint64_t data_start, pos;
    bool relocate;
} retained_walk;

static void retained_rows(void *arg, uint32_t i, mcz_arc_rows *out)
{
    retained_walk *k = arg;
    if (i == 0) {
        k->at = k->first;
        k->pos = k->data_start;
    } else {
        k->pos += k->at->frames_len;
        k->at = atomic_load_explicit(&k->at->retained_next, memory_order_acquire);
    }
    const chunk *c = k->at;
    mcz_chunk_info info = {k->relocate ? k->pos : c->offset, (uint32_t)c->frames_len,
                           (uint32_t)c->raw_len, c->first_number, c->count, c->checksum};
    out->info = info;
    out->lengths = c->lengths;
    out->identity = c->identity;
    out->dedup = c->dedup;
}

/* Appends c to the retained list (lock and token held); the release store publishes its
 * finished fields to a fatal-signal dump. */
static void retain(mcz_writer *w, chunk *c)
{
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

/* Frees discarded chunks, after punching their bytes out of a LIVE file (token held, lock not
 * held). Once a fatal-signal dump has started nothing is freed: should it have stopped waiting
 * for this change (begin_retaining), it may be walking them. */
static int release_discarded(mcz_writer *w, chunk *gone, mcz_diag *d)
{
    int rc = MCZ_OK;
    if (gone && w->mode == MCZ_WRITE_LIVE) {
        const chunk *last = gone;
        while (last->next)
            last = last->next;
        /* From the start of the block holding the hole's end, so a block that chunks smaller
         * than a block left partly punched is freed too; never into the header, dictionary
         * and metadata. */
        uint64_t end = last->offset + last->frames_len, data_start = MCZ_WR_DATA_START(w);
        uint64_t from = w->punched - w->punched % HOLE_BLOCK;
        from = from < data_start ? data_start : from;
        if (fallocate(w->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
                      (off_t)(end - from)) != 0)
            rc = live_failure(w, d, from, "punching a hole");
        w->punched = end;
    }
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

/* Puts c's frames in the file (ATOMIC, LIVE); a MEMORY chunk stays as it is. Token held. */
static int store_chunk(mcz_writer *w, chunk *c, mcz_diag *d)
{
    if (w->mode == MCZ_WRITE_MEMORY)
        return MCZ_OK;
    if (w->mode == MCZ_WRITE_LIVE) {
        c->offset = w->end;
        if (write_fully(w->fd, c->frames, c->frames_len, (int64_t)c->offset) != MCZ_OK)
            return live_failure(w, d, c->offset, "write");
        w->end += c->frames_len;
    } else if (w->mode == MCZ_WRITE_STREAM) {
        c->offset = w->end;
        if (stream_send(w, c->frames, c->frames_len) != MCZ_OK) {
            stream_lost(w, c->offset);
            return MCZ_EIO;
        }
        w->end += c->frames_len;
    } else {
        c->offset = mcz_outfile_tell(w->out);
        int rc = mcz_outfile_write(w->out, c->frames, c->frames_len);
        if (rc != MCZ_OK)
            return atomic_failure(w, d, rc, (int64_t)c->offset, c->first_number, "archive write");
    }
    free(c->frames); /* in the file now: the index rows are all the writer keeps */
    c->frames = NULL;
    return MCZ_OK;
}

/* Detaches the finished chunk at the queue's head (lock held). */
static chunk *take_head(mcz_writer *w)
{
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
    atomic_fetch_add(&w->retaining, 1);
    return atomic_load(&w->fatal_dumping) > 0;
}

/* The test hook (writer_test.h), then c's frames into the file. Token held, lock not held. */
static int write_chunk(mcz_writer *w, chunk *c, uint64_t index, mcz_diag *d)
{
    mcz_wr_test_write_fn hook = w->test_write;
    int rc = hook ? hook(w, index, w->test_write_arg) : MCZ_OK;
    if (rc != MCZ_OK)
        return mcz_fail(d, rc, -1, c->first_number, "the test hook stopped chunk write %llu",
                        (unsigned long long)index);
    return store_chunk(w, c, d);
}

/* Records c as in the output and trims the retained list to max_bytes; returns the chunks
 * discarded (lock and token held). */
static chunk *record_chunk(mcz_writer *w, chunk *c)
{
    uint64_t written = w->mode == MCZ_WRITE_MEMORY ? 0 : c->frames_len;
    bool frozen = begin_retaining(w);
    if (!frozen)
        retain(w, c); /* else leaked: the process is dying */
    w->in_flight--;
    w->chunks_out++;
    w->stats.written_bytes += written;
    chunk *gone = frozen ? NULL : trim_retained(w);
    if (w->mode == MCZ_WRITE_LIVE) {
        w->dirty = w->unsynced = true;
        w->since_index += written;
        w->chunk_ns = mcz_wr_now_ns();
        w->index_bytes = mcz_arc_index_size(w->retained_chunks, w->retained_contexts,
                                            !w->no_hashes);
    }
    update_retained_range(w);
    atomic_fetch_sub(&w->retaining, 1);
    return gone;
}

/* A chunk that did not reach the file (its write failed, or the writer had failed before) is
 * freed, not retained: nothing refers to it, and no older chunk is discarded for it (lock held).
 * The sticky error ends the writer. */
static void drop_unwritten(mcz_writer *w, chunk *c, const mcz_diag *d)
{
    w->in_flight--;
    if (d->code != MCZ_OK)
        mcz_wr_set_error(w, d);
    mcz_wr_chunk_free(c);
}

/* STREAM: a chunk the receiver did not take goes back to the queue's head, still counted in
 * the queue, so the queue stays full from then on (lock held). */
static void requeue_head(mcz_writer *w, chunk *c)
{
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
    int rc = w->error.code; /* a failed writer writes nothing more */
    uint64_t index = w->chunks_out;
    pthread_mutex_unlock(&w->lock);
    mcz_diag d;
    mcz_diag_clear(&d);
    if (rc == MCZ_OK)
        rc = write_chunk(w, c, index, &d);
    pthread_mutex_lock(&w->lock);
    pthread_cond_broadcast(&w->space);
    pthread_cond_broadcast(&w->progress);
    if (rc != MCZ_OK && atomic_load(&w->stream_gone)) {
        requeue_head(w, c);
        return;
    }
    if (rc != MCZ_OK) {
        drop_unwritten(w, c, &d);
        return;
    }
    chunk *gone = record_chunk(w, c);
    pthread_mutex_unlock(&w->lock);
    rc = release_discarded(w, gone, &d);
    if (w->mode == MCZ_WRITE_LIVE)
        sem_post(&w->wake); /* the service thread checkpoints: workers go on compressing */
    pthread_mutex_lock(&w->lock);
    if (rc != MCZ_OK)
        mcz_wr_set_error(w, &d);
}

void mcz_wr_pump_output(mcz_writer *w)
{
    while (!w->output_busy && !atomic_load(&w->stream_gone) && w->head_chunk &&
           w->head_chunk->state == CHUNK_DONE) {
        w->output_busy = true;
        output_chunk(w, take_head(w));
        w->output_busy = false;
        pthread_cond_broadcast(&w->progress);
    }
}

void mcz_wr_output_acquire(mcz_writer *w)
{
    while (w->output_busy)
        pthread_cond_wait(&w->progress, &w->lock);
    w->output_busy = true;
}

void mcz_wr_output_release(mcz_writer *w)
{
    w->output_busy = false;
    pthread_cond_broadcast(&w->progress);
    mcz_wr_pump_output(w);
}

/* ---- Index and footer ---- */

/* An index that could not be encoded (ELIMIT, ENOMEM), as opposed to one the output refused. */
static int index_failure(const mcz_writer *w, mcz_diag *d, int rc)
{
    const char *why = rc == MCZ_ELIMIT ? "the index outgrew the format" : "no memory for the index";
    return mcz_fail(d, rc, (int64_t)w->end, -1, "%s: %s", w->path, why);
}

int mcz_wr_checkpoint(mcz_writer *w, mcz_diag *d)
{
    chunk *first = atomic_load(&w->retained_head);
    retained_walk walk = {first, NULL, 0, 0, false};
    file_sink sink = {w->fd, w->end, 0};
    int rc = mcz_arc_index_write(retained_count(first), w->out_next_number, !w->no_hashes,
                                 retained_rows, &walk, w->end, fd_pwrite, &sink);
    if (rc == MCZ_ELIMIT || rc == MCZ_ENOMEM)
        return index_failure(w, d, rc);
    if (rc != MCZ_OK)
        return live_failure(w, d, w->end, "index write");
    if (ftruncate(w->fd, (off_t)(w->end + sink.written)) != 0)
        return live_failure(w, d, w->end, "truncate");
    if (fdatasync(w->fd) != 0)
        return live_failure(w, d, w->end, "fdatasync");
    pthread_mutex_lock(&w->lock);
    w->stats.checkpoints++;
    w->stats.written_bytes += sink.written;
    w->dirty = w->unsynced = false;
    w->since_index = 0;
    w->checkpoint_ns = mcz_wr_now_ns();
    pthread_mutex_unlock(&w->lock);
    return MCZ_OK;
}

int mcz_wr_sync(mcz_writer *w, mcz_diag *d)
{
    if (fdatasync(w->fd) != 0)
        return live_failure(w, d, w->end, "fdatasync");
    pthread_mutex_lock(&w->lock);
    w->unsynced = false;
    w->checkpoint_ns = mcz_wr_now_ns();
    pthread_mutex_unlock(&w->lock);
    return MCZ_OK;
}

/* Close's sink: no other thread runs, so the statistics are updated without the lock. */
static int stream_sink(void *arg, const void *bytes, size_t len)
{
    mcz_writer *w = arg;
    w->stats.written_bytes += len;
    return stream_send(w, bytes, len);
}

int mcz_wr_stream_end(mcz_writer *w, mcz_diag *d)
{
    if (atomic_load(&w->stream_gone)) {
        *d = w->stream_error;
        return d->code;
    }
    chunk *first = atomic_load(&w->retained_head);
    retained_walk walk = {first, NULL, 0, 0, false};
    int rc = mcz_arc_index_write(retained_count(first), w->out_next_number, !w->no_hashes,
                                 retained_rows, &walk, w->end, stream_sink, w);
    if (rc == MCZ_ELIMIT || rc == MCZ_ENOMEM)
        return index_failure(w, d, rc);
    if (rc != MCZ_OK) {
        stream_lost(w, w->end);
        *d = w->stream_error;
        return d->code;
    }
    return MCZ_OK;
}

int mcz_wr_write_index(mcz_writer *w, mcz_diag *d)
{
    chunk *first = atomic_load(&w->retained_head);
    retained_walk walk = {first, NULL, 0, 0, false};
    uint64_t at = mcz_outfile_tell(w->out);
    int rc = mcz_arc_index_write(retained_count(first), w->out_next_number, !w->no_hashes,
                                 retained_rows, &walk, at, outfile_sink, w->out);
    if (rc != MCZ_OK)
        return atomic_failure(w, d, rc, (int64_t)at, -1, "index write");
    w->stats.written_bytes += mcz_outfile_tell(w->out) - at;
    return MCZ_OK;
}

/* ---- Whole archives from the retained list ---- */

/* A LIVE chunk read back from the file (never from a signal handler: it allocates). */
static int copy_from_file(const mcz_writer *w, const chunk *c, mcz_arc_sink_fn sink, void *arg)
{
    uint8_t *buf = malloc(COPY_BUFFER);
    int rc = buf ? MCZ_OK : MCZ_ENOMEM;
    for (size_t done = 0; rc == MCZ_OK && done < c->frames_len;) {
        size_t want = c->frames_len - done < COPY_BUFFER ? c->frames_len - done : COPY_BUFFER;
        ssize_t n = pread(w->fd, buf, want, (off_t)(c->offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        rc = n > 0 ? sink(arg, buf, (size_t)n) : MCZ_EIO;
        done += n > 0 ? (size_t)n : 0;
    }
    free(buf);
    return rc;
}

/* A chunk's stored bytes: from memory (MEMORY), or read back from the file (LIVE). */
static int emit_chunk(const mcz_writer *w, const chunk *c, mcz_arc_sink_fn sink, void *arg)
{
    return c->frames ? sink(arg, c->frames, c->frames_len) : copy_from_file(w, c, sink, arg);
}

/* An index encoder: mcz_arc_index_write (compressed) or mcz_arc_index_stream (raw, no
 * allocation). */
typedef int (*index_encoder)(uint32_t, uint32_t, bool, mcz_arc_rows_fn, void *, uint64_t,
                             mcz_arc_sink_fn, void *);

/*
 * Header, dictionary, metadata, the k chunks from first laid back to back, index (through encode),
 * footer. No allocation and no lock with mcz_arc_index_stream: async-signal-safe when sink is
 * and the chunks are in memory.
 */
static int emit_archive(const mcz_writer *w, chunk *first, uint32_t k, uint32_t empty_first,
                        index_encoder encode, mcz_arc_sink_fn sink, void *arg)
{
    int rc = sink(arg, w->head, w->head_len);
    if (rc == MCZ_OK && w->dict_len)
        rc = sink(arg, w->dict, w->dict_len);
    if (rc == MCZ_OK && w->meta_len)
        rc = sink(arg, w->meta, w->meta_len);
    uint64_t data_start = MCZ_WR_DATA_START(w), end = data_start;
    const chunk *c = first;
    for (uint32_t i = 0; i < k && rc == MCZ_OK; i++) {
        rc = emit_chunk(w, c, sink, arg);
        end += c->frames_len;
        c = atomic_load_explicit(&c->retained_next, memory_order_acquire);
    }
    retained_walk walk = {first, NULL, data_start, 0, true};
    if (rc != MCZ_OK)
        return rc;
    return encode(k, empty_first, !w->no_hashes, retained_rows, &walk, end, sink, arg);
}

int mcz_wr_dump_retained(mcz_writer *w, const char *path, mcz_diag *d)
{
    mcz_outfile *out = mcz_outfile_open(path, d);
    if (!out)
        return d ? d->code : MCZ_EIO;
    chunk *first = atomic_load(&w->retained_head);
    int rc = emit_archive(w, first, retained_count(first), w->out_next_number,
                          mcz_arc_index_write, outfile_sink, out);
    if (rc != MCZ_OK) {
        mcz_outfile_abort(out);
        return mcz_fail(d, rc, -1, -1, "%s: dump failed: %s", path, mcz_error_name(rc));
    }
    return mcz_outfile_commit(out, d);
}

/* Waits, briefly, for a change of the retained list that began before the dump to end (see
 * begin_retaining). Bounded: the change may belong to the thread that crashed. */
static void wait_retaining(mcz_writer *w)
{
    struct timespec pause = {0, 100000}; /* 0.1 ms, at most 100 times */
    for (int i = 0; i < 100 && atomic_load(&w->retaining) > 0; i++)
        nanosleep(&pause, NULL);
}

void mcz_wr_dump_fatal(mcz_writer *w, const char *tmp_path, const char *path)
{
    atomic_fetch_add(&w->fatal_dumping, 1);
    wait_retaining(w);
    if (!atomic_load(&w->dict_ready))
        return; /* nothing was compressed yet */
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return;
    chunk *first = atomic_load(&w->retained_head);
    file_sink sink = {fd, 0, 0};
    int rc = emit_archive(w, first, retained_count(first), w->first_number,
                          mcz_arc_index_stream, fd_write, &sink); /* raw: may not allocate */
    if (rc == MCZ_OK)
        rc = fsync(fd) == 0 ? MCZ_OK : MCZ_EIO;
    close(fd);
    if (rc == MCZ_OK)
        rename(tmp_path, path); /* else the partial file stays for mcz_recover */
}

/* ---- Test hooks (writer_test.h) ---- */

void mcz_wr_test_on_write(mcz_writer *w, mcz_wr_test_write_fn fn, void *arg)
{
    pthread_mutex_lock(&w->lock);
    w->test_write = fn;
    w->test_write_arg = arg;
    pthread_mutex_unlock(&w->lock);
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
    pthread_mutex_lock(&w->lock);
    if (held) {
        mcz_wr_output_acquire(w);
    } else {
        while (w->error.code == MCZ_OK && !queue_compressed(w))
            pthread_cond_wait(&w->progress, &w->lock);
        mcz_wr_output_release(w);
    }
    pthread_mutex_unlock(&w->lock);
}
