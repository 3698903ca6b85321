/*
 * writer_impl.h - internals shared by the files of the writer core: the writer's structure and
 * the hand-offs between the append path and the workers (writer.c), the queue (queue.c), the
 * dictionary decision (dictionary.c), the finished chunks' way out in number order (output.c,
 * to the mode's output, out.h), the collector's service thread and calls (collector.c), chunk
 * copies (chunk_copy.c), the chunks kept ready for appends (chunk_pool.c) and the signal
 * handlers (signal_dump.c). The core tests no mode: what differs between modes is the output.
 *
 * Locking: one mutex guards the queue, the counters and the state. Nothing slow runs under it
 * (no compression, no hashing, no I/O, no training, no copy of a context: an append copies after
 * releasing it, into room it reserved, chunk_pool.c), so an append waits for the mutex only as
 * long as another append's bookkeeping. File output, the retained list and checkpoints belong to
 * whoever holds the output token (output_busy, taken under the mutex): one thread at a time
 * writes, in chunk-number order, without the mutex. Debug builds check both contracts where a
 * function states them (MCZ_LOCK_HELD, MCZ_LOCK_FREE: lock.h; MCZ_WR_TOKEN_HELD).
 */
#ifndef MCZ_WRITER_IMPL_H
#define MCZ_WRITER_IMPL_H

#include <assert.h>
#include <stdatomic.h>
#include <zstd.h>

#include "../format/archive.h"
#include "../format/layout.h"
#include "../platform/threads.h"
#include "chunk.h"
#include "lock.h"
#include "out.h"
#include "writer_test.h"

/* Chunks kept ready for appends to open (chunk_pool.c). */
#define MCZ_WR_READY 2

typedef enum writer_state { WRITER_OPEN, WRITER_CLOSING } writer_state;

/* The file header and dictionary frame head, encoded once the dictionary is decided. */
#define WRITER_HEAD_MAX (MCZ_ARC_HEADER_SIZE + MCZ_ARC_DICT_HEAD)

struct mcz_writer {
    mcz_lock lock;
    mcz_cond work;           /* workers: a chunk to compress, a dictionary to train, closing */
    mcz_cond space;          /* appenders: the queue shrank */
    mcz_cond progress;    /* chunks were compressed or reached the output; the token is free */
    mcz_thread *threads;
    int thread_count, threads_started;
    writer_state state;
    mcz_diag error; /* sticky */

    /* Options, resolved. */
    mcz_full_policy when_full;
    uint32_t queue_limit;
    uint64_t max_bytes; /* 0: unbounded */
    uint32_t flush_contexts, flush_ms;
    int level;
    uint32_t chunk_size, dict_size;
    uint64_t train_bytes;
    uint64_t expected_bytes; /* the caller's estimate of all input; 0: unknown */
    mcz_codec codec;
    bool packets; /* chunks in the packet layout (FORMAT.md §4a) */
    uint32_t first_number;
    bool no_hashes; /* the index stores no identity and dedup columns */
    const mcz_jit_ee *jit_ee; /* the version the hashes use (the header records it) */

    /* Dictionary. */
    bool train_wanted;          /* decide now, on the first train_chunks queued chunks */
    uint32_t train_chunks;      /* the samples, fixed when the decision is asked for */
    bool training;              /* a thread is deciding it */
    atomic_bool dict_ready;     /* decided, head encoded; read by the fatal dump */
    void *dict;
    size_t dict_len;
    uint32_t dict_id;
    ZSTD_CDict *cdict;
    uint8_t head[WRITER_HEAD_MAX]; /* header frame (+ dictionary frame head); dict bytes follow */
    size_t head_len;
    uint8_t meta[MCZ_ARC_META_SIZE]; /* the metadata frame, after the dictionary (FORMAT.md §2a) */
    size_t meta_len;                 /* 0: nothing recorded, no frame */

    /* Queue: sealed chunks until they reach the output. */
    chunk *open;           /* being filled */
    chunk *head_chunk, *tail_chunk;
    chunk *todo;           /* first queued chunk no worker took yet */
    uint32_t in_flight;    /* chunks in the queue */
    uint64_t buffered_raw; /* raw bytes queued while the dictionary is pending */
    uint64_t next_number;
    bool paused;           /* test hook: workers take nothing */
    mcz_wr_test_write_fn test_write; /* test hook: called before each chunk write */
    void *test_write_arg;
    bool watching;         /* an idle worker looks for work every few ms (writer.c) */
    uint64_t watch_until;  /* ...until then */
    chunk *ready[MCZ_WR_READY]; /* the pool: chunks ready to be opened (chunk_pool.c) */
    unsigned ready_count;
    unsigned pool_making;  /* ready chunks workers are making */

    /* Output (output token). */
    bool output_busy;
    mcz_wr_out *out;   /* where the archive goes (out.h): the mode's implementation */
    char *path;
    uint32_t retained_chunks, retained_contexts; /* what the retained list holds */
    _Atomic(chunk *) retained_head; /* chunks in the output, oldest first */
    chunk *retained_tail;
    uint64_t chunks_out;       /* chunks that reached the output, in order */
    uint32_t out_next_number;  /* number after the last chunk output: an empty index's first */
    mcz_wr_spill spill;        /* the rows of stored chunks past a bound (spill.c) */

    /* Service thread (collector.c). */
    mcz_thread service;
    bool service_started;
    uint64_t service_wake;    /* when the sleeping service thread wakes; UINT64_MAX: awake or no
                               * deadline (a chunk opening posts wake unless due after this) */
    mcz_sem wake;              /* posted by appends, closing and the request signal */
    atomic_bool dump_wanted;  /* set by the request signal */
    atomic_int fatal_dumping; /* a fatal-signal dump reads the retained list: leave it be */
    atomic_int retaining;     /* the retained list is being changed (see output.c) */
    char *signal_path;

    mcz_writer_stats stats; /* retained_bytes, first/last_retained kept current */
};

/* The calling thread holds the output token (assertion; only its holder clears output_busy). */
#define MCZ_WR_TOKEN_HELD(w) assert((w)->output_busy)

/*
 * The files of the writer core call each other in one direction only, lowest first: base.c,
 * compress.c, chunk_pool.c, output.c (and the outputs, out.h), dictionary.c, queue.c,
 * collector.c, signal_dump.c, then writer.c and chunk_copy.c (the API).
 */

/* ---- base.c ---- */
int mcz_wr_set_error(mcz_writer *w, const mcz_diag *d);                     /* lock held */
int mcz_wr_fail(mcz_writer *w, int code, int64_t context, const char *what); /* lock held */
void mcz_wr_chunk_free(chunk *c);
uint64_t mcz_wr_now_ns(void);
uint64_t mcz_wr_thread_cpu_ns(void);
/* Gets a worker to look for work: wakes one unless the watcher will find it (lock held). */
void mcz_wr_wake_worker(mcz_writer *w);

/* ---- compress.c (no lock held) ---- */
/* The bytes c's data frame holds (*data, *len): its raw bytes, or their packet layout made in
 * scratch (the caller's, grown as needed and reused from chunk to chunk: one per worker, no
 * allocation per chunk). Off the append path. */
int mcz_wr_chunk_data(const mcz_writer *w, const chunk *c, mcz_arc_buffer *scratch,
                      const uint8_t **data, size_t *len, mcz_diag *d);
/* Sets cctx to compress chunks as every worker does (level, window, frame flags, w->cdict if set). */
int mcz_wr_setup_cctx(const mcz_writer *w, ZSTD_CCtx *cctx);
/* Allocates and fills c->identity and c->dedup (FORMAT.md §5) from raw, the c->count contexts
 * of c->lengths back to back. */
int mcz_wr_hash_contexts(const mcz_jit_ee *v, chunk *c, const uint8_t *raw, mcz_diag *d);
/* Hashes (unless no_hashes) and compresses a settled chunk: c->frames, frames_len, checksum. */
int mcz_wr_compress_chunk(const mcz_writer *w, ZSTD_CCtx *cctx, mcz_arc_buffer *scratch,
                          chunk *c, mcz_diag *d);

/* ---- queue.c (lock held) ---- */
/* Queues the open chunk; force asks for the dictionary decision now (flush). The caller
 * checked mcz_wr_queue_full. */
void mcz_wr_seal_open(mcz_writer *w, bool force);
/* True when a sealed chunk must wait (or be dropped): queue_chunks are queued and the
 * dictionary is no longer collecting samples. */
bool mcz_wr_queue_full(const mcz_writer *w);
/* Puts a chunk at the queue's tail (SEALED for the workers, or DONE for the output). */
void mcz_wr_enqueue(mcz_writer *w, chunk *c);

/* ---- writer.c ---- */
/* Appends one context; may_wait false makes a full queue MCZ_EDROPPED. */
int mcz_wr_append(mcz_writer *w, const void *mc, size_t size, uint32_t *number, bool may_wait);

/* Where the chunks begin: after the header, dictionary and metadata frames. */
#define MCZ_WR_DATA_START(w) ((uint64_t)(w)->head_len + (w)->dict_len + (w)->meta_len)

/* The raw buffer's capacity: a whole chunk at once, so no append grows it (up to 16 MiB). */
#define MCZ_WR_CHUNK_CAP(w) ((w)->chunk_size < (16u << 20) ? (w)->chunk_size : (16u << 20))

/* ---- chunk_pool.c ---- */
/* Fills the pool before any append (open, no other thread yet). */
int mcz_wr_pool_fill(mcz_writer *w, mcz_diag *d);
/* The chunk the next context goes into, taken from the pool (lock held). Made on the spot, with
 * its page faults to come in the appends, only when the pool is empty; NULL: out of memory. */
chunk *mcz_wr_pool_take(mcz_writer *w);
/* True when the pool lacks a chunk and a worker should make one (lock held). */
bool mcz_wr_pool_short(const mcz_writer *w);
/* Refills the pool from raw (a compressed chunk's buffer of cap bytes, or NULL), making a new
 * chunk when raw is not enough; frees what is not kept. Lock held, released meanwhile. */
void mcz_wr_pool_refill(mcz_writer *w, uint8_t *raw, size_t cap);
/* A chunk holding only mc, a context larger than a chunk: allocated and filled by the
 * appending thread before it takes the lock, as any copy of that size would be (no lock held);
 * NULL: out of memory. */
chunk *mcz_wr_chunk_alone(const void *mc, size_t size);
/* Frees the pool (closing). */
void mcz_wr_pool_free(mcz_writer *w);
/* Copies size bytes into c's raw buffer at dst, room an append reserved under the lock: the
 * copy runs without it (lock not held). */
void mcz_wr_chunk_copy_in(chunk *c, uint8_t *dst, const void *mc, size_t size);
/* Waits for the copies into c still running (any lock may be held: a copy needs none). */
void mcz_wr_chunk_wait_copies(chunk *c);
/* Makes a sealed chunk readable: waits for its copies, then derives c->lengths from the
 * contexts' own headers. For whoever reads its raw bytes first (a worker; no lock held). */
int mcz_wr_chunk_settle(chunk *c, mcz_diag *d);

/* ---- dictionary.c ---- */
/* Asks a worker to decide the dictionary now, on the chunks queued at this call (lock held). */
void mcz_wr_want_dict(mcz_writer *w);
/* The worker's job: trains on the chunks mcz_wr_want_dict fixed, then decides (lock held,
 * released while training). */
void mcz_wr_decide_dict(mcz_writer *w);
/* Decides the dictionary from dict/dict_len (may be none): digests it, encodes the head and
 * writes it to the output. Called by the one thread deciding (training flag or open),
 * without the lock; mcz_wr_publish_dict (lock held) then lets the chunks flow. */
int mcz_wr_prepare_dict(mcz_writer *w, mcz_diag *d);
void mcz_wr_publish_dict(mcz_writer *w);
/* Around a decision taken after open (lock held): begin marks it taken and takes the output
 * token, so the head reaches the file before any chunk; end publishes the dictionary (rc OK) or
 * makes d the sticky error, and gives the token back. */
void mcz_wr_dict_begin(mcz_writer *w);
void mcz_wr_dict_end(mcz_writer *w, int rc, const mcz_diag *d);
/* Asks for the dictionary decision and waits until it is made (lock held). */
int mcz_wr_dict_wait(mcz_writer *w);

/* ---- output.c ---- */
/* Writes every finished chunk at the queue's head unless another thread holds the output; lock
 * held (released while writing). */
void mcz_wr_pump_output(mcz_writer *w);
/* Takes / gives back the output token (lock held; acquire waits). Release pumps. */
void mcz_wr_output_acquire(mcz_writer *w);
void mcz_wr_output_release(mcz_writer *w);
/* Writes the head (header, dictionary and metadata frames) to the output. The thread deciding
 * the dictionary, with the output token or before any other thread runs. */
int mcz_wr_write_head(mcz_writer *w, mcz_diag *d);
/* The output's checkpoint, for an output that has them (out.h): a new index, or only a sync.
 * Output token held, lock not held. */
int mcz_wr_checkpoint(mcz_writer *w, bool index, mcz_diag *d);
/* Index and footer, or the whole archive, where the output puts it (close: no other thread
 * runs). */
int mcz_wr_finish(mcz_writer *w, mcz_diag *d);
/* A complete archive of the retained chunks to path, atomically. Output token held. */
int mcz_wr_dump_retained(mcz_writer *w, const char *path, mcz_diag *d);
/* The same, from a fatal-signal handler: async-signal-safe (platform/platform.h: create, write,
 * fsync, rename). */
void mcz_wr_dump_fatal(mcz_writer *w, const char *tmp_path, const char *path);
/* Frees the retained list (closing). */
void mcz_wr_free_retained(mcz_writer *w);

/* ---- collector.c ---- */
int mcz_wr_service_start(mcz_writer *w, mcz_diag *d);
void mcz_wr_service_stop(mcz_writer *w);
/* Seals the open chunk (waiting for room), asks for the dictionary, and waits until every chunk
 * sealed so far is in the output. */
int mcz_wr_flush_wait(mcz_writer *w);

/* rc as a diag: the writer's sticky error when it has one, else rc alone (lock not held). */
int mcz_wr_report(mcz_writer *w, int rc, mcz_diag *diag);

/* ---- signal_dump.c ---- */
/* Removes the handlers w installed, if any (closing). */
void mcz_wr_signals_remove(mcz_writer *w);

#endif /* MCZ_WRITER_IMPL_H */
