/*
 * writer.c - the streaming .mcz writer (format/FORMAT.md): the append path, the compression
 * workers, open and close. The top of the writer core: it calls the other files, none calls it.
 *
 * An append reserves room for its context in the open chunk under one mutex and copies it there
 * without the mutex (chunk_pool.c), into a buffer made ready beforehand: no allocation, no page
 * fault, no wake-up in the common case. A chunk that reaches the target is sealed and queued; a
 * pool of worker threads (one ZSTD_CCtx each, one shared ZSTD_CDict) computes its hashes
 * (unless no_hashes) and compresses it off the append path.
 * Finished chunks leave the queue in number order through output.c, whatever order they
 * finish in.
 *
 * Memory is bounded: at most queue_limit chunks are queued, and a chunk that would exceed that
 * waits (MCZ_FULL_BLOCK) or its context is refused (MCZ_FULL_DROP). The dictionary is decided
 * on a worker too (dictionary.c), never on an appending thread.
 */
#include <assert.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "../platform/platform.h"
#include "mcz_common.h"
#include "writer_impl.h"

/* Defaults; format/FORMAT.md §10 and §12 give the reasons, bench/FIGURES.md §5 the figures. */
#define DEFAULT_LEVEL 12                     /* conversion (ATOMIC): ratio first */
#define DEFAULT_CHUNK_SIZE (2u << 20)
#define XZ_LEVEL_MIN 1
#define XZ_LEVEL_MAX 9
/* cold storage: the ratio is all (bench/FIGURES.md §5) */
#define XZ_DEFAULT_LEVEL 9
#define COLLECTOR_LEVEL 7                    /* LIVE, MEMORY: the JIT's process pays the CPU */
#define COLLECTOR_CHUNK_SIZE (1u << 20)
#define DEFAULT_DICT_SIZE (128u << 10)
#define DEFAULT_TRAIN_BYTES (8ull << 20)
#define COLLECTOR_TRAIN_BYTES (2ull << 20) /* LIVE, MEMORY: nothing reaches the output before */
#define DEFAULT_MEMORY_MAX_BYTES (64ull << 20)
#define DEFAULT_CHECKPOINT_MS 1000u
#define MAX_CHUNK_SIZE (1u << 30)
#define MAX_THREADS 256
#define MAX_IN_FLIGHT(threads) (2 * (uint32_t)(threads) + 2)
#define WATCH_NS 5000000u                    /* the watcher looks for work every 5 ms... */
#define WATCH_IDLE_NS 1000000000u            /* ...for 1 s after the last work it found */

/* ---- Workers ---- */

typedef enum job { JOB_NONE, JOB_TRAIN, JOB_CHUNK, JOB_READY } job;

/* First queued chunk no worker took yet (verbatim copies arrive DONE and are skipped). */
static chunk *next_todo(mcz_writer *w)
{
    while (w->todo && w->todo->state != CHUNK_SEALED)
        w->todo = w->todo->next;
    return w->todo;
}

/* The job to do now, JOB_NONE when there is none (lock held). */
static job find_work(mcz_writer *w, chunk **out)
{
    MCZ_LOCK_HELD(&w->lock);
    bool ready = atomic_load(&w->dict_ready);
    if (w->error.code != MCZ_OK || w->paused)
        return JOB_NONE;
    if (w->train_wanted && !w->training && !ready)
        return JOB_TRAIN;
    if (mcz_wr_pool_short(w))
        return JOB_READY; /* before the next append needs it */
    if (ready && next_todo(w)) {
        *out = w->todo;
        w->todo = w->todo->next;
        (*out)->state = CHUNK_BUSY;
        return JOB_CHUNK;
    }
    return JOB_NONE;
}

/* Waits for work: as the watcher (below) while work came within WATCH_IDLE_NS and no other
 * worker watches, else until woken (lock held). */
static void wait_for_work(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    uint64_t now = mcz_wr_now_ns();
    if (w->watching || now >= w->watch_until) {
        mcz_lock_wait(&w->lock, &w->work);
        return;
    }
    w->watching = true;
    mcz_lock_wait_until(&w->lock, &w->work, now + WATCH_NS);
    w->watching = false;
}

/*
 * Next job; JOB_NONE when the worker should exit (lock held). While chunks keep coming one idle
 * worker, the watcher, looks for work every WATCH_NS instead of waiting to be woken, so that an
 * append that seals a chunk or takes a ready one wakes nobody (mcz_wr_wake_worker): a wake-up
 * is a system call on the appending thread, and the worker woken may take that thread's core
 * for a whole time slice. A compression starts at most WATCH_NS late; WATCH_IDLE_NS without
 * work the watcher sleeps like the others, and appends wake a worker again.
 */
static job take_work(mcz_writer *w, chunk **out)
{
    MCZ_LOCK_HELD(&w->lock);
    for (;;) {
        job j = find_work(w, out);
        if (j != JOB_NONE) {
            w->watch_until = mcz_wr_now_ns() + WATCH_IDLE_NS;
            if (!w->watching && w->threads_started > 1)
                mcz_cond_signal(&w->work); /* an idle worker takes over the watch */
            return j;
        }
        bool work_ahead = w->training || next_todo(w) != NULL;
        if (w->state == WRITER_CLOSING && (w->error.code != MCZ_OK || !work_ahead))
            return JOB_NONE;
        wait_for_work(w);
    }
}


/* Compresses c (lock held, released meanwhile) and hands it to the output. */
static void run_chunk(mcz_writer *w, ZSTD_CCtx *cctx, mcz_arc_buffer *scratch, bool *configured,
                      chunk *c)
{
    mcz_lock_drop(&w->lock);
    uint64_t cpu = mcz_wr_thread_cpu_ns();
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = *configured ? MCZ_OK : mcz_wr_setup_cctx(w, cctx);
    if (rc != MCZ_OK)
        mcz_diag_set(&d, rc, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                     "zstd: cannot set compression parameters");
    else
        rc = mcz_wr_chunk_settle(c, &d);
    if (rc == MCZ_OK)
        rc = mcz_wr_compress_chunk(w, cctx, scratch, c, &d);
    *configured = true;
    uint8_t *raw = c->raw; /* the data frame holds the bytes now */
    size_t raw_cap = c->raw_cap;
    c->raw = NULL;
    cpu = mcz_wr_thread_cpu_ns() - cpu;
    mcz_lock_take(&w->lock);
    w->stats.compress_cpu_ns += cpu;
    if (rc != MCZ_OK)
        mcz_wr_set_error(w, &d);
    c->state = CHUNK_DONE;
    mcz_cond_broadcast(&w->progress); /* for a held output (writer_test.h) */
    mcz_wr_pool_refill(w, raw, raw_cap); /* the buffer's pages are mapped: the next chunk's */
    mcz_wr_pump_output(w);
}

static void *worker_main(void *arg)
{
    mcz_writer *w = arg;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    mcz_arc_buffer scratch = {NULL, 0}; /* this worker's packet layouts */
    bool configured = false;
    mcz_lock_take(&w->lock);
    if (!cctx)
        mcz_wr_fail(w, MCZ_ENOMEM, -1, "zstd: cannot create a compression context");
    chunk *c = NULL;
    for (job j; cctx && (j = take_work(w, &c)) != JOB_NONE;) {
        if (j == JOB_TRAIN)
            mcz_wr_decide_dict(w);
        else if (j == JOB_READY)
            mcz_wr_pool_refill(w, NULL, 0);
        else
            run_chunk(w, cctx, &scratch, &configured, c);
    }
    mcz_lock_drop(&w->lock);
    ZSTD_freeCCtx(cctx);
    free(scratch.bytes);
    return NULL;
}


/* Opens the next chunk: alone when given, else one from the pool. The service thread is woken
 * only when it would sleep past this chunk's flush_ms (lock held). */
static int open_chunk(mcz_writer *w, chunk *alone)
{
    MCZ_LOCK_HELD(&w->lock);
    w->open = alone ? alone : mcz_wr_pool_take(w);
    if (!w->open)
        return MCZ_ENOMEM;
    w->open->first_number = (uint32_t)w->next_number;
    if (w->flush_ms) {
        w->open->opened_ns = mcz_wr_now_ns();
        if (w->open->opened_ns + (uint64_t)w->flush_ms * 1000000u < w->service_wake)
            mcz_sem_post(&w->wake);
    }
    return MCZ_OK;
}

/* Room for size bytes at the open chunk's end, for the caller to copy into without the lock
 * (lock held). The buffer holds a whole chunk; only a context larger than the room left in a
 * chunk of more than 16 MiB grows it, once the copies into it are done. */
static uint8_t *reserve_in_open(mcz_writer *w, size_t size)
{
    MCZ_LOCK_HELD(&w->lock);
    if (!w->open && open_chunk(w, NULL) != MCZ_OK)
        return NULL;
    chunk *c = w->open;
    if (c->raw_len + size > c->raw_cap) {
        mcz_wr_chunk_wait_copies(c);
        size_t cap = c->raw_cap;
        while (cap < c->raw_len + size)
            cap = cap > SIZE_MAX / 2 ? c->raw_len + size : cap * 2;
        uint8_t *bigger = realloc(c->raw, cap);
        if (!bigger)
            return NULL;
        c->raw = bigger;
        c->raw_cap = cap;
    }
    uint8_t *dst = c->raw + c->raw_len;
    c->raw_len += size;
    c->count++;
    atomic_fetch_add_explicit(&c->copying, 1, memory_order_relaxed);
    return dst;
}

/* The open chunk is complete: size more bytes would overfill it, or it holds flush_contexts. */
static bool open_complete(const mcz_writer *w, size_t size)
{
    const chunk *c = w->open;
    return c && c->count > 0 &&
           (c->raw_len + size > w->chunk_size ||
            (w->flush_contexts && c->count >= w->flush_contexts));
}

/* Seals the open chunk when it is complete, waiting for room in the queue when may_wait, else
 * refusing with MCZ_EDROPPED. */
static int make_room(mcz_writer *w, size_t size, bool may_wait)
{
    MCZ_LOCK_HELD(&w->lock);
    for (;;) {
        if (w->error.code != MCZ_OK)
            return w->error.code;
        if (w->state != WRITER_OPEN)
            return MCZ_ESTATE; /* closed while this append waited */
        if (!open_complete(w, size))
            return MCZ_OK;
        if (!mcz_wr_queue_full(w)) {
            mcz_wr_seal_open(w, false);
            continue;
        }
        if (!may_wait)
            return MCZ_EDROPPED;
        mcz_lock_wait(&w->lock, &w->space);
    }
}

/* Takes one checked context: reserves its room in the open chunk, *dst in *into for the caller
 * to copy into, or opens alone, the chunk holding it already (lock held). */
static int accept_context(mcz_writer *w, size_t size, uint32_t *number, bool may_wait,
                          chunk *alone, chunk **into, uint8_t **dst)
{
    if (w->state != WRITER_OPEN)
        return MCZ_ESTATE;
    if (w->next_number > UINT32_MAX)
        return mcz_wr_fail(w, MCZ_ELIMIT, -1, "context numbers exhausted");
    int rc = make_room(w, size, may_wait);
    if (rc == MCZ_EDROPPED)
        w->stats.dropped_full++;
    if (rc != MCZ_OK)
        return rc;
    if (alone) {
        assert(!w->open); /* make_room sealed it: size is more than a chunk */
        open_chunk(w, alone);
    } else if (!(*dst = reserve_in_open(w, size)))
        return mcz_wr_fail(w, MCZ_ENOMEM, (int64_t)w->next_number, "out of memory");
    *into = w->open;
    if (number)
        *number = (uint32_t)w->next_number;
    w->next_number++;
    w->stats.appended++;
    w->stats.raw_bytes += size;
    if (open_complete(w, 0) && !mcz_wr_queue_full(w))
        mcz_wr_seal_open(w, false); /* flush_contexts: off to compression at once */
    return MCZ_OK;
}

int mcz_wr_append(mcz_writer *w, const void *mc, size_t size, uint32_t *number, bool may_wait)
{
    MCZ_LOCK_FREE(&w->lock);
    if (!w || !mc)
        return MCZ_EINVAL;
    mcz_mc view;
    int rc = mcz_mc_from_bytes(mc, size, 0, 0, &view, NULL);
    if (rc != MCZ_OK)
        return rc; /* a bad context is refused; the writer stays usable */
    /* A context larger than a chunk gets a chunk of its own, allocated and filled here, without
     * the lock, so that no other append waits for that copy or its page faults. */
    chunk *alone = NULL;
    if (size > w->chunk_size && !(alone = mcz_wr_chunk_alone(mc, size))) {
        mcz_lock_take(&w->lock);
        rc = mcz_wr_fail(w, MCZ_ENOMEM, (int64_t)w->next_number, "out of memory");
        mcz_lock_drop(&w->lock);
        return rc;
    }
    chunk *c = NULL;
    uint8_t *dst = NULL;
    mcz_lock_take(&w->lock);
    rc = accept_context(w, size, number, may_wait, alone, &c, &dst);
    mcz_lock_drop(&w->lock);
    if (rc == MCZ_OK && !alone)
        mcz_wr_chunk_copy_in(c, dst, mc, size); /* sealed meanwhile or not, c waits for it */
    else if (rc != MCZ_OK)
        mcz_wr_chunk_free(alone);
    return rc;
}

int mcz_writer_append(mcz_writer *w, const void *mc, size_t size, uint32_t *number)
{
    return mcz_wr_append(w, mc, size, number, !w || w->when_full == MCZ_FULL_BLOCK);
}

/* ---- Open, close ---- */

/* What a mode (include/mcz.h mcz_writer_mode) means to the writer: its output (out.h) and its
 * defaults. The one place the writer looks at the mode.
 * A collector built for size leaves modes out (bench/COLLECTOR.md measures what that saves):
 * MCZ_NO_LIVE, MCZ_NO_MEMORY (the rolling buffer); a mode left out has no output here, so its
 * code is not linked, and mcz_writer_open refuses it (MCZ_EUNSUPPORTED). */
#ifdef MCZ_NO_LIVE
#define OUT_LIVE NULL
#else
#define OUT_LIVE mcz_wr_out_live
#endif
#ifdef MCZ_NO_MEMORY
#define OUT_MEMORY NULL
#else
#define OUT_MEMORY mcz_wr_out_memory
#endif
typedef struct mode_kind {
    mcz_wr_out_open_fn open;
    bool collector;              /* a collector's defaults: level, chunk size, training */
    bool bounded;                /* max_bytes applies */
    uint64_t default_max_bytes;  /* 0: unbounded */
    const char *unnamed;         /* the output's name when path is NULL; NULL: path required */
} mode_kind;

static const mode_kind *mode_kind_of(const mcz_writer_options *opt)
{
    static const mode_kind atomic = {mcz_wr_out_atomic, false, false, 0, NULL};
    static const mode_kind live = {OUT_LIVE, true, true, 0, NULL};
    static const mode_kind memory = {OUT_MEMORY, true, true, DEFAULT_MEMORY_MAX_BYTES, NULL};
    static const mode_kind stream = {mcz_wr_out_stream, true, false, 0, "(stream)"};
    switch (opt->mode) {
    case MCZ_WRITE_ATOMIC:
        return &atomic;
    case MCZ_WRITE_LIVE:
        return &live;
    case MCZ_WRITE_MEMORY:
        return &memory;
    case MCZ_WRITE_STREAM:
        return &stream;
    }
    return NULL;
}

static bool options_valid(const mcz_writer *w, const mcz_writer_options *opt,
                          const mode_kind *kind)
{
    bool level_ok = w->codec == MCZ_CODEC_XZ
                        ? w->level >= XZ_LEVEL_MIN && w->level <= XZ_LEVEL_MAX && !opt->dict
                        : w->codec == MCZ_CODEC_ZSTD && w->level >= ZSTD_minCLevel() &&
                              w->level <= ZSTD_maxCLevel();
    bool layout_ok = opt->layout == MCZ_LAYOUT_DEFAULT || opt->layout == MCZ_LAYOUT_PLAIN ||
                     opt->layout == MCZ_LAYOUT_PACKETS;
    return level_ok && layout_ok && opt->threads >= 0 &&
           w->chunk_size <= MAX_CHUNK_SIZE && !(opt->dict && (!opt->dict_len || opt->no_dict)) &&
           opt->dict_len <= UINT32_MAX &&
           (opt->when_full == MCZ_FULL_BLOCK || opt->when_full == MCZ_FULL_DROP) &&
           (kind->bounded || opt->max_bytes == 0);
}

static void resolve_collector_options(mcz_writer *w, const mcz_writer_options *opt,
                                      const mode_kind *kind)
{
    w->when_full = opt->when_full;
    w->queue_limit = opt->queue_chunks ? opt->queue_chunks : MAX_IN_FLIGHT(w->thread_count);
    w->max_bytes = opt->max_bytes ? opt->max_bytes : kind->default_max_bytes;
    w->flush_contexts = opt->flush_contexts;
    w->flush_ms = opt->flush_ms;
    w->train_bytes = opt->train_bytes ? opt->train_bytes
                     : kind->collector ? COLLECTOR_TRAIN_BYTES
                                       : DEFAULT_TRAIN_BYTES;
    w->expected_bytes = opt->expected_bytes;
}

static int resolve_options(mcz_writer *w, const mcz_writer_options *opt, const mode_kind *kind,
                           mcz_diag *diag)
{
    bool collector = kind->collector;
    w->codec = opt->codec == MCZ_CODEC_DEFAULT ? MCZ_CODEC_ZSTD : opt->codec;
    w->packets = opt->layout != MCZ_LAYOUT_PLAIN;
    w->level = opt->level                   ? opt->level
               : opt->codec == MCZ_CODEC_XZ ? XZ_DEFAULT_LEVEL
               : collector                  ? COLLECTOR_LEVEL
                                            : DEFAULT_LEVEL;
    w->chunk_size = opt->chunk_size ? opt->chunk_size
                    : collector     ? COLLECTOR_CHUNK_SIZE
                                    : DEFAULT_CHUNK_SIZE;
    w->dict_size = opt->dict_size ? opt->dict_size : DEFAULT_DICT_SIZE;
    w->next_number = opt->first_number ? opt->first_number : 1;
    w->first_number = (uint32_t)w->next_number;
    w->no_hashes = opt->no_hashes;
    w->jit_ee = opt->jit_ee ? opt->jit_ee : mcz_jit_ee_newest();
    w->out_next_number = w->first_number;
    w->thread_count = opt->threads > 0 ? opt->threads : mcz_os_cores();
    if (w->thread_count > MAX_THREADS)
        w->thread_count = MAX_THREADS;
    resolve_collector_options(w, opt, kind);
    if (w->codec == MCZ_CODEC_XZ && !MCZ_HAVE_XZ)
        return mcz_diag_set(diag, MCZ_EUNSUPPORTED, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_open: " MCZ_NO_XZ_REASON);
    if (!options_valid(w, opt, kind))
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_open: bad options");
    mcz_arc_meta meta;
    int rc = mcz_arc_meta_from_text(opt->jit_ee_guid, opt->target_os, opt->target_arch, &meta,
                                    diag);
    if (rc != MCZ_OK)
        return rc;
    if (!mcz_arc_meta_empty(&meta)) {
        mcz_arc_meta_encode(&meta, w->meta);
        w->meta_len = MCZ_ARC_META_SIZE;
    }
    if (opt->dict) {
        w->dict = malloc(opt->dict_len);
        if (!w->dict)
            return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        memcpy(w->dict, opt->dict, opt->dict_len);
        w->dict_len = opt->dict_len;
    }
    return MCZ_OK;
}

static int start_threads(mcz_writer *w, mcz_diag *diag)
{
    w->threads = calloc((size_t)w->thread_count, sizeof *w->threads);
    if (!w->threads)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    for (int i = 0; i < w->thread_count; i++) {
        if (mcz_thread_create(&w->threads[i], worker_main, w) != 0)
            return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                "cannot start compression threads");
        w->threads_started++;
    }
    return mcz_wr_service_start(w, diag);
}

/* Tells every thread to finish (lock held). */
static void begin_closing(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    w->state = WRITER_CLOSING;
    mcz_cond_broadcast(&w->work);
    mcz_cond_broadcast(&w->space);
    mcz_cond_broadcast(&w->progress);
    mcz_sem_post(&w->wake);
}

static void join_threads(mcz_writer *w)
{
    for (int i = 0; i < w->threads_started; i++)
        mcz_thread_join(&w->threads[i]);
    w->threads_started = 0;
    mcz_wr_service_stop(w);
}

/* Stops the threads and frees everything; the output file is the caller's business. */
static void writer_free(mcz_writer *w)
{
    mcz_wr_signals_remove(w);
    mcz_lock_take(&w->lock);
    w->paused = false;
    begin_closing(w);
    mcz_lock_drop(&w->lock);
    join_threads(w);
    free(w->threads);
    mcz_wr_chunk_free(w->open);
    while (w->head_chunk) {
        chunk *c = w->head_chunk;
        w->head_chunk = c->next;
        mcz_wr_chunk_free(c);
    }
    mcz_wr_free_retained(w);
    mcz_wr_spill_close(&w->spill);
    mcz_wr_pool_free(w);
    if (w->out)
        w->out->ops->free(w->out);
    ZSTD_freeCDict(w->cdict);
    memset(w->head, 0, sizeof w->head); /* no header of a closed writer in a later core dump */
    memset(w->meta, 0, sizeof w->meta);
    free(w->dict);
    free(w->path);
    free(w->signal_path);
    mcz_sem_destroy(&w->wake);
    mcz_cond_destroy(&w->work);
    mcz_cond_destroy(&w->space);
    mcz_cond_destroy(&w->progress);
    mcz_lock_destroy(&w->lock);
    free(w);
}

static mcz_writer *writer_create(mcz_diag *diag)
{
    mcz_writer *w = calloc(1, sizeof *w);
    if (!w) {
        mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        return NULL;
    }
    mcz_lock_init(&w->lock);
    mcz_cond_init(&w->work);
    mcz_cond_init(&w->space);
    mcz_cond_init(&w->progress);
    if (mcz_sem_init(&w->wake, 0) != 0) {
        mcz_cond_destroy(&w->work);
        mcz_cond_destroy(&w->space);
        mcz_cond_destroy(&w->progress);
        mcz_lock_destroy(&w->lock);
        free(w);
        mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                     "cannot make the writer's semaphore");
        return NULL;
    }
    atomic_init(&w->dict_ready, false);
    atomic_init(&w->retained_head, NULL);
    atomic_init(&w->dump_wanted, false);
    atomic_init(&w->fatal_dumping, 0);
    atomic_init(&w->retaining, 0);
    w->service_wake = UINT64_MAX;
    mcz_wr_spill_init(&w->spill, false);
    mcz_diag_clear(&w->error);
    return w;
}

/* Opens the mode's output (out.h) under path (a stream may have none). */
static int open_output(mcz_writer *w, const char *path, const mcz_writer_options *opt,
                       const mode_kind *kind, mcz_diag *diag)
{
    if (!path)
        path = kind->unnamed;
    if (!path)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_open: NULL path");
    w->path = strdup(path);
    if (!w->path)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    mcz_wr_out_args args = {w->path, opt->stream_fd, w->max_bytes, !w->no_hashes,
                            opt->checkpoint_ms ? opt->checkpoint_ms : DEFAULT_CHECKPOINT_MS};
    w->out = kind->open(&args, diag);
    if (w->out)
        mcz_wr_spill_init(&w->spill, (w->out->ops->flags & MCZ_WR_OUT_SPILLS) != 0);
    return w->out ? MCZ_OK : (diag && diag->code != MCZ_OK ? diag->code : MCZ_EIO);
}

/* The caller's options as this library's struct: the fields it knows of, the rest zero. */
static int caller_options(const mcz_writer_options *given, mcz_writer_options *out,
                          mcz_diag *diag)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    if (!given)
        return MCZ_OK;
    if (given->struct_size < offsetof(mcz_writer_options, level) + sizeof given->level ||
        given->struct_size > sizeof *out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_open: options with struct_size %u (this library: %zu; "
                            "start from MCZ_WRITER_OPTIONS_INIT)",
                            (unsigned)given->struct_size, sizeof *out);
    memcpy(out, given, given->struct_size);
    return MCZ_OK;
}

mcz_writer *mcz_writer_open(const char *path, const mcz_writer_options *given, mcz_diag *diag)
{
    mcz_writer_options options;
    if (caller_options(given, &options, diag) != MCZ_OK)
        return NULL;
    const mcz_writer_options *opt = &options;
    mcz_writer *w = writer_create(diag);
    if (!w)
        return NULL;
    const mode_kind *kind = mode_kind_of(opt);
    int rc = !kind ? mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                  "mcz_writer_open: bad options")
             : !kind->open ? mcz_diag_set(diag, MCZ_EUNSUPPORTED, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                          "mcz_writer_open: this build of mcz leaves the mode "
                                          "out (MCZ_NO_LIVE, MCZ_NO_MEMORY)")
                           : resolve_options(w, opt, kind, diag);
    if (rc == MCZ_OK)
        rc = open_output(w, path, opt, kind, diag);
    if (rc == MCZ_OK)
        rc = mcz_wr_pool_fill(w, diag);
    if (rc == MCZ_OK && (opt->dict || opt->no_dict || opt->codec == MCZ_CODEC_XZ)) {
        rc = mcz_wr_prepare_dict(w, diag); /* no other thread yet */
        mcz_lock_take(&w->lock);
        if (rc == MCZ_OK)
            mcz_wr_publish_dict(w);
        mcz_lock_drop(&w->lock);
    }
    if (rc == MCZ_OK)
        rc = start_threads(w, diag);
    if (rc != MCZ_OK) {
        mcz_writer_abort(w);
        return NULL;
    }
    return w;
}

/* Seals the last chunk and settles the dictionary; the workers then finish the queue. */
static int finish_input(mcz_writer *w)
{
    mcz_lock_take(&w->lock);
    int rc = w->error.code;
    if (rc == MCZ_OK && w->state != WRITER_OPEN)
        rc = MCZ_ESTATE;
    if (rc == MCZ_OK && w->open && w->open->count > 0)
        mcz_wr_seal_open(w, true); /* past the queue bound by one at most: the end is near */
    mcz_wr_want_dict(w);
    begin_closing(w);
    mcz_lock_drop(&w->lock);
    return rc;
}

int mcz_writer_close(mcz_writer *w, mcz_diag *diag)
{
    if (!w)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_close: NULL writer");
    mcz_wr_signals_remove(w);
    int rc = finish_input(w);
    join_threads(w);
    mcz_lock_take(&w->lock);
    mcz_wr_pump_output(w);
    if (rc == MCZ_OK)
        rc = w->error.code;
    if (rc == MCZ_OK && w->head_chunk && atomic_load(&w->out->lost))
        rc = mcz_wr_set_error(w, &w->out->lost_error);
    if (rc == MCZ_OK && w->head_chunk)
        rc = mcz_wr_fail(w, MCZ_ESTATE, -1, "chunks left unwritten");
    mcz_lock_drop(&w->lock);
    if (rc == MCZ_OK)
        rc = mcz_wr_finish(w, diag);
    else if (diag && w->error.code != MCZ_OK)
        *diag = w->error;
    else
        mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "mcz_writer_close: %s",
                     mcz_error_name(rc));
    writer_free(w);
    return rc;
}

/* The threads stop at once (the sticky error); the output is freed unfinished (out.h: a
 * temporary file is removed, a LIVE file is left as it is, FORMAT.md §12). */
void mcz_writer_abort(mcz_writer *w)
{
    if (!w)
        return;
    mcz_lock_take(&w->lock);
    mcz_wr_fail(w, MCZ_ESTATE, -1, "the writer was aborted");
    mcz_lock_drop(&w->lock);
    writer_free(w);
}

const mcz_diag *mcz_writer_diag(const mcz_writer *w)
{
    return w ? &w->error : NULL;
}
