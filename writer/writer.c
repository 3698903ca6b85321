/*
 * writer.c - the streaming .mcz writer (format/FORMAT.md).
 *
 * Appends copy each context into the open chunk under one mutex and return. A chunk that reaches
 * the target is sealed and queued; a pool of worker threads (one ZSTD_CCtx each, one shared
 * ZSTD_CDict) computes its hashes and compresses it off the append path. The worker that finishes
 * the oldest queued chunk writes every finished chunk at the head of the queue, so chunks reach
 * the file in number order whatever order they finish in.
 *
 * Memory is bounded: at most MAX_IN_FLIGHT(threads) chunks are queued, and an append that would
 * exceed that waits. While a dictionary is to be trained, sealed chunks are kept (they are the
 * training samples) until train_bytes are buffered; then the dictionary is trained, the header
 * and dictionary are written, and the backlog drains.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zdict.h>
#include <zstd.h>

#include "archive.h"
#include "mcz_common.h"

/* Defaults; format/FORMAT.md §10 gives the figures behind them. */
#define DEFAULT_LEVEL 7
#define DEFAULT_CHUNK_SIZE (1u << 20)
#define DEFAULT_DICT_SIZE (128u << 10)
#define DEFAULT_TRAIN_BYTES (8ull << 20)
#define MAX_CHUNK_SIZE (1u << 30)
#define DICT_SHARE 64        /* the dictionary is at most 1/64 of the samples it comes from */
#define MIN_DICT_SIZE 1024u  /* below this a dictionary is not worth a frame */
#define MAX_THREADS 256
#define MAX_IN_FLIGHT(threads) (2 * (uint32_t)(threads) + 2)

typedef enum chunk_state { CHUNK_SEALED, CHUNK_BUSY, CHUNK_DONE } chunk_state;

/* One chunk from the first append into it to its write. */
typedef struct chunk {
    struct chunk *next; /* queue order = number order */
    chunk_state state;
    uint32_t first_number;
    uint32_t count, lengths_cap;
    uint32_t *lengths;
    uint8_t *raw;
    size_t raw_len, raw_cap;
    /* Filled by a worker. */
    uint8_t *frames; /* chunk header frame + zstd data frame */
    size_t frames_len;
    uint64_t checksum;
    mcz_hash128 *identity, *dedup;
} chunk;

typedef enum writer_state { WRITER_OPEN, WRITER_CLOSING } writer_state;

struct mcz_writer {
    pthread_mutex_t lock;
    pthread_cond_t work;  /* workers: a chunk to compress, or closing */
    pthread_cond_t space; /* appenders: the queue shrank */
    pthread_t *threads;
    int thread_count, threads_started;
    writer_state state;
    mcz_outfile *out;
    mcz_diag error; /* sticky */

    int level;
    uint32_t chunk_size, dict_size;
    uint64_t train_bytes;
    bool dict_ready; /* dictionary decided (trained, given or none); header written */
    void *dict;
    size_t dict_len;
    uint32_t dict_id;
    ZSTD_CDict *cdict;

    chunk *open;            /* being filled */
    chunk *head, *tail;     /* sealed chunks not yet written */
    chunk *todo;            /* first queued chunk no worker took yet */
    uint32_t in_flight;     /* chunks in the queue */
    uint64_t buffered_raw;  /* raw bytes queued while the dictionary is pending */
    uint64_t next_number;
    mcz_arc_table table;
};

static void chunk_free(chunk *c)
{
    if (!c)
        return;
    free(c->lengths);
    free(c->raw);
    free(c->frames);
    free(c->identity);
    free(c->dedup);
    free(c);
}

/* Records the first error (sticky) and wakes everyone so nothing waits on a dead writer. */
static int set_error(mcz_writer *w, const mcz_diag *d)
{
    if (w->error.code == MCZ_OK)
        w->error = *d;
    pthread_cond_broadcast(&w->space);
    pthread_cond_broadcast(&w->work);
    return w->error.code;
}

static int fail_locked(mcz_writer *w, int code, int64_t context, const char *what)
{
    mcz_diag d;
    mcz_fail(&d, code, -1, context, "%s", what);
    return set_error(w, &d);
}

/* ---- Output ---- */

static int write_bytes(mcz_writer *w, const void *data, size_t len)
{
    int rc = mcz_outfile_write(w->out, data, len);
    if (rc != MCZ_OK) {
        mcz_diag d;
        mcz_fail(&d, rc, (int64_t)mcz_outfile_tell(w->out), -1, "archive write failed");
        return set_error(w, &d);
    }
    return MCZ_OK;
}

/* Header and dictionary frames: written once, when the dictionary is decided. */
static int write_head(mcz_writer *w)
{
    mcz_arc_header h = {MCZ_ARC_VERSION, w->dict_len ? MCZ_ARC_FLAG_HAS_DICT : 0, w->level,
                        w->chunk_size, w->dict_id};
    uint8_t buf[MCZ_ARC_HEADER_SIZE];
    mcz_arc_header_encode(&h, buf);
    int rc = write_bytes(w, buf, sizeof buf);
    if (rc != MCZ_OK || !w->dict_len)
        return rc;
    uint8_t dh[MCZ_ARC_DICT_HEAD];
    mcz_arc_dict_encode_head(w->dict_id, w->dict, (uint32_t)w->dict_len, dh);
    rc = write_bytes(w, dh, sizeof dh);
    return rc == MCZ_OK ? write_bytes(w, w->dict, w->dict_len) : rc;
}

/* Writes c and records it in the index. */
static int write_chunk(mcz_writer *w, chunk *c)
{
    mcz_chunk_info info = {mcz_outfile_tell(w->out), (uint32_t)c->frames_len,
                           (uint32_t)c->raw_len, c->first_number, c->count, c->checksum};
    int rc = write_bytes(w, c->frames, c->frames_len);
    if (rc != MCZ_OK)
        return rc;
    rc = mcz_arc_table_add(&w->table, &info, c->lengths, c->identity, c->dedup);
    return rc == MCZ_OK ? MCZ_OK : fail_locked(w, rc, c->first_number, "index: out of memory");
}

/* Writes the finished chunks at the head of the queue (called with the lock held). */
static void drain_done(mcz_writer *w)
{
    while (w->head && w->head->state == CHUNK_DONE) {
        chunk *c = w->head;
        w->head = c->next;
        if (!w->head)
            w->tail = NULL;
        if (w->error.code == MCZ_OK)
            write_chunk(w, c);
        chunk_free(c);
        w->in_flight--;
        pthread_cond_broadcast(&w->space);
    }
}

/* ---- Compression (workers, no lock held) ---- */

/* Hashes of every context of c (FORMAT.md §5), computed off the append path. */
static int hash_contexts(chunk *c, mcz_diag *d)
{
    c->identity = malloc(c->count * sizeof *c->identity);
    c->dedup = malloc(c->count * sizeof *c->dedup);
    if (!c->identity || !c->dedup)
        return mcz_fail(d, MCZ_ENOMEM, -1, c->first_number, "out of memory");
    size_t off = 0;
    for (uint32_t i = 0; i < c->count; i++) {
        mcz_mc mc;
        int rc = mcz_mc_from_bytes(c->raw + off, c->lengths[i], c->first_number + i, off, &mc, d);
        if (rc != MCZ_OK)
            return rc;
        mcz_arc_context_hashes(&mc, &c->identity[i], &c->dedup[i]);
        off += c->lengths[i];
    }
    return MCZ_OK;
}

static int compress_chunk(ZSTD_CCtx *cctx, chunk *c, mcz_diag *d)
{
    int rc = hash_contexts(c, d);
    if (rc != MCZ_OK)
        return rc;
    c->checksum = mcz_arc_xxh3(c->raw, c->raw_len);
    size_t head = (size_t)mcz_arc_chunk_head_size(c->count);
    size_t bound = ZSTD_compressBound(c->raw_len);
    c->frames = malloc(head + bound);
    if (!c->frames)
        return mcz_fail(d, MCZ_ENOMEM, -1, c->first_number, "out of memory");
    size_t n = ZSTD_compress2(cctx, c->frames + head, bound, c->raw, c->raw_len);
    if (ZSTD_isError(n))
        return mcz_fail(d, MCZ_EZSTD, -1, c->first_number, "zstd: %s", ZSTD_getErrorName(n));
    if (head + n > UINT32_MAX)
        return mcz_fail(d, MCZ_ELIMIT, -1, c->first_number, "chunk too large");
    mcz_arc_chunk_head h = {c->first_number, c->count, (uint32_t)c->raw_len, (uint32_t)n,
                            c->checksum, NULL};
    mcz_arc_chunk_head_encode(&h, c->lengths, c->frames);
    c->frames_len = head + n;
    uint8_t *fitted = realloc(c->frames, c->frames_len);
    c->frames = fitted ? fitted : c->frames;
    free(c->raw); /* no longer needed: keep the queue's memory to the compressed bytes */
    c->raw = NULL;
    return MCZ_OK;
}

/* Frame parameters: content size, checksum and dictionary id always on (FORMAT.md §4). */
static int setup_cctx(const mcz_writer *w, ZSTD_CCtx *cctx)
{
    size_t r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, w->level);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 1);
    if (!ZSTD_isError(r) && w->cdict)
        r = ZSTD_CCtx_refCDict(cctx, w->cdict);
    return ZSTD_isError(r) ? MCZ_EZSTD : MCZ_OK;
}

/* Next chunk to compress, or NULL when the worker should exit (lock held). */
static chunk *take_work(mcz_writer *w)
{
    for (;;) {
        bool can_work = w->error.code == MCZ_OK && w->dict_ready && w->todo;
        if (can_work) {
            chunk *c = w->todo;
            w->todo = c->next;
            c->state = CHUNK_BUSY;
            return c;
        }
        if (w->state == WRITER_CLOSING)
            return NULL;
        pthread_cond_wait(&w->work, &w->lock);
    }
}

static void *worker_main(void *arg)
{
    mcz_writer *w = arg;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    bool configured = false;
    pthread_mutex_lock(&w->lock);
    if (!cctx)
        fail_locked(w, MCZ_ENOMEM, -1, "zstd: cannot create a compression context");
    chunk *c;
    while (cctx && (c = take_work(w)) != NULL) {
        pthread_mutex_unlock(&w->lock);
        mcz_diag d;
        mcz_diag_clear(&d);
        int rc = configured ? MCZ_OK : setup_cctx(w, cctx);
        if (rc != MCZ_OK)
            mcz_fail(&d, rc, -1, c->first_number, "zstd: cannot set compression parameters");
        else
            rc = compress_chunk(cctx, c, &d);
        configured = true;
        pthread_mutex_lock(&w->lock);
        if (rc != MCZ_OK)
            set_error(w, &d);
        c->state = CHUNK_DONE;
        drain_done(w);
    }
    pthread_mutex_unlock(&w->lock);
    ZSTD_freeCCtx(cctx);
    return NULL;
}

/* ---- Dictionary ---- */

/*
 * Trains from the queued chunks' contexts (lock held); no dictionary when training fails. The
 * capacity is capped at 1/DICT_SHARE of the samples: on a small input a large dictionary would
 * cost more than it saves (it is stored once, and pays only when many chunks share it).
 */
static int train_from_queue(mcz_writer *w)
{
    size_t n = 0, total = 0;
    for (chunk *c = w->head; c; c = c->next) {
        n += c->count;
        total += c->raw_len;
    }
    size_t cap = total / DICT_SHARE < w->dict_size ? total / DICT_SHARE : w->dict_size;
    if (cap < MIN_DICT_SIZE)
        return MCZ_OK;
    uint8_t *samples = malloc(total ? total : 1);
    size_t *sizes = malloc((n ? n : 1) * sizeof *sizes);
    if (!samples || !sizes) {
        free(samples);
        free(sizes);
        return fail_locked(w, MCZ_ENOMEM, -1, "dictionary training: out of memory");
    }
    size_t at = 0, k = 0;
    for (chunk *c = w->head; c; c = c->next) {
        memcpy(samples + at, c->raw, c->raw_len);
        at += c->raw_len;
        for (uint32_t i = 0; i < c->count; i++)
            sizes[k++] = c->lengths[i];
    }
    mcz_diag d;
    int rc = n > UINT32_MAX ? MCZ_ELIMIT
                            : mcz_dict_train(samples, sizes, (unsigned)n, cap, w->level,
                                             &w->dict, &w->dict_len, &d);
    free(samples);
    free(sizes);
    if (rc == MCZ_EUNSUPPORTED || rc == MCZ_ELIMIT)
        return MCZ_OK; /* go without: the dictionary would not have helped (zdict.h) */
    return rc == MCZ_OK ? MCZ_OK : set_error(w, &d);
}

/* Digests the dictionary, writes the header, and lets the workers start (lock held). */
static int dict_decided(mcz_writer *w)
{
    if (w->dict_len) {
        w->dict_id = ZDICT_getDictID(w->dict, w->dict_len);
        if (w->dict_id == 0)
            return fail_locked(w, MCZ_EDICT, -1, "the dictionary is not a zstd dictionary");
        w->cdict = ZSTD_createCDict(w->dict, w->dict_len, w->level);
        if (!w->cdict)
            return fail_locked(w, MCZ_EZSTD, -1, "zstd: cannot digest the dictionary");
    }
    int rc = write_head(w);
    if (rc != MCZ_OK)
        return rc;
    w->dict_ready = true;
    pthread_cond_broadcast(&w->work);
    return MCZ_OK;
}

/* ---- Chunks ---- */

/* Queues the open chunk; trains the dictionary once enough input is buffered (lock held). */
static int seal_open(mcz_writer *w)
{
    chunk *c = w->open;
    w->open = NULL;
    c->state = CHUNK_SEALED;
    if (w->tail)
        w->tail->next = c;
    else
        w->head = c;
    w->tail = c;
    if (!w->todo)
        w->todo = c;
    w->in_flight++;
    if (w->dict_ready) {
        pthread_cond_signal(&w->work);
        return MCZ_OK;
    }
    w->buffered_raw += c->raw_len;
    if (w->buffered_raw < w->train_bytes)
        return MCZ_OK;
    int rc = train_from_queue(w);
    return rc == MCZ_OK ? dict_decided(w) : rc;
}

static int grow_bytes(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return MCZ_OK;
    size_t next = *cap ? *cap : 65536;
    while (next < need)
        next = next > SIZE_MAX / 2 ? need : next * 2;
    uint8_t *bigger = realloc(*buf, next);
    if (!bigger)
        return MCZ_ENOMEM;
    *buf = bigger;
    *cap = next;
    return MCZ_OK;
}

/* Copies mc into the open chunk (lock held). */
static int add_to_open(mcz_writer *w, const void *mc, size_t size)
{
    if (!w->open) {
        w->open = calloc(1, sizeof *w->open);
        if (!w->open)
            return MCZ_ENOMEM;
        w->open->first_number = (uint32_t)w->next_number;
    }
    chunk *c = w->open;
    if (c->count == c->lengths_cap) {
        uint32_t cap = c->lengths_cap ? c->lengths_cap * 2 : 64;
        uint32_t *bigger = realloc(c->lengths, cap * sizeof *bigger);
        if (!bigger)
            return MCZ_ENOMEM;
        c->lengths = bigger;
        c->lengths_cap = cap;
    }
    if (grow_bytes(&c->raw, &c->raw_cap, c->raw_len + size) != MCZ_OK)
        return MCZ_ENOMEM;
    memcpy(c->raw + c->raw_len, mc, size);
    c->raw_len += size;
    c->lengths[c->count++] = (uint32_t)size;
    return MCZ_OK;
}

/* Waits for room in the queue and seals the open chunk when size would overfill it. */
static int make_room(mcz_writer *w, size_t size)
{
    for (;;) {
        if (w->error.code != MCZ_OK)
            return w->error.code;
        if (w->dict_ready && w->in_flight >= MAX_IN_FLIGHT(w->thread_count)) {
            pthread_cond_wait(&w->space, &w->lock);
            continue;
        }
        if (w->open && w->open->count > 0 && w->open->raw_len + size > w->chunk_size) {
            int rc = seal_open(w);
            if (rc != MCZ_OK)
                return rc;
            continue;
        }
        return MCZ_OK;
    }
}

int mcz_writer_append(mcz_writer *w, const void *mc, size_t size, uint32_t *number)
{
    if (!w || !mc)
        return MCZ_EINVAL;
    mcz_mc view;
    int rc = mcz_mc_from_bytes(mc, size, 0, 0, &view, NULL);
    if (rc != MCZ_OK)
        return rc; /* a bad context is refused; the writer stays usable */
    pthread_mutex_lock(&w->lock);
    if (w->state != WRITER_OPEN)
        rc = MCZ_ESTATE;
    else if (w->next_number > UINT32_MAX)
        rc = fail_locked(w, MCZ_ELIMIT, -1, "context numbers exhausted");
    else
        rc = make_room(w, size);
    if (rc == MCZ_OK && add_to_open(w, mc, size) != MCZ_OK)
        rc = fail_locked(w, MCZ_ENOMEM, (int64_t)w->next_number, "out of memory");
    if (rc == MCZ_OK && number)
        *number = (uint32_t)w->next_number;
    if (rc == MCZ_OK)
        w->next_number++;
    pthread_mutex_unlock(&w->lock);
    return rc;
}

/* ---- Open, close ---- */

static int resolve_options(mcz_writer *w, const mcz_writer_options *opt, mcz_diag *diag)
{
    w->level = opt->level ? opt->level : DEFAULT_LEVEL;
    w->chunk_size = opt->chunk_size ? opt->chunk_size : DEFAULT_CHUNK_SIZE;
    w->dict_size = opt->dict_size ? opt->dict_size : DEFAULT_DICT_SIZE;
    w->train_bytes = opt->train_bytes ? opt->train_bytes : DEFAULT_TRAIN_BYTES;
    w->next_number = opt->first_number ? opt->first_number : 1;
    w->table.first_number = (uint32_t)w->next_number;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    w->thread_count = opt->threads > 0 ? opt->threads : (cores > 0 ? (int)cores : 1);
    if (w->thread_count > MAX_THREADS)
        w->thread_count = MAX_THREADS;
    if (w->level < ZSTD_minCLevel() || w->level > ZSTD_maxCLevel() || opt->threads < 0 ||
        w->chunk_size > MAX_CHUNK_SIZE || (opt->dict && (!opt->dict_len || opt->no_dict)) ||
        opt->dict_len > UINT32_MAX)
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_writer_open: bad options");
    if (opt->dict) {
        w->dict = malloc(opt->dict_len);
        if (!w->dict)
            return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "out of memory");
        memcpy(w->dict, opt->dict, opt->dict_len);
        w->dict_len = opt->dict_len;
    }
    return MCZ_OK;
}

static int start_threads(mcz_writer *w, mcz_diag *diag)
{
    w->threads = calloc((size_t)w->thread_count, sizeof *w->threads);
    if (!w->threads)
        return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "out of memory");
    for (int i = 0; i < w->thread_count; i++) {
        if (pthread_create(&w->threads[i], NULL, worker_main, w) != 0)
            return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "cannot start compression threads");
        w->threads_started++;
    }
    return MCZ_OK;
}

/* Stops the workers and frees everything but the output file. */
static void writer_free(mcz_writer *w)
{
    pthread_mutex_lock(&w->lock);
    w->state = WRITER_CLOSING;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->lock);
    for (int i = 0; i < w->threads_started; i++)
        pthread_join(w->threads[i], NULL);
    free(w->threads);
    chunk_free(w->open);
    while (w->head) {
        chunk *c = w->head;
        w->head = c->next;
        chunk_free(c);
    }
    ZSTD_freeCDict(w->cdict);
    free(w->dict);
    mcz_arc_table_free(&w->table);
    pthread_cond_destroy(&w->work);
    pthread_cond_destroy(&w->space);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

mcz_writer *mcz_writer_open(const char *path, const mcz_writer_options *opt, mcz_diag *diag)
{
    static const mcz_writer_options defaults = MCZ_WRITER_OPTIONS_INIT;
    mcz_writer *w = calloc(1, sizeof *w);
    if (!w) {
        mcz_fail(diag, MCZ_ENOMEM, -1, -1, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->work, NULL);
    pthread_cond_init(&w->space, NULL);
    mcz_diag_clear(&w->error);
    opt = opt ? opt : &defaults;
    int rc = resolve_options(w, opt, diag);
    if (rc == MCZ_OK) {
        w->out = mcz_outfile_open(path, diag);
        rc = w->out ? MCZ_OK : MCZ_EIO;
    }
    if (rc == MCZ_OK && (opt->dict || opt->no_dict)) {
        pthread_mutex_lock(&w->lock);
        rc = dict_decided(w);
        pthread_mutex_unlock(&w->lock);
        if (rc != MCZ_OK && diag)
            *diag = w->error;
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
    pthread_mutex_lock(&w->lock);
    int rc = w->error.code;
    if (rc == MCZ_OK && w->state != WRITER_OPEN)
        rc = MCZ_ESTATE;
    if (rc == MCZ_OK && w->open && w->open->count > 0)
        rc = seal_open(w);
    if (rc == MCZ_OK && !w->dict_ready) {
        rc = w->head ? train_from_queue(w) : MCZ_OK;
        if (rc == MCZ_OK)
            rc = dict_decided(w);
    }
    w->state = WRITER_CLOSING;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->lock);
    return rc;
}

static int write_index(mcz_writer *w)
{
    uint8_t *frame, footer[MCZ_ARC_FOOTER_SIZE];
    size_t len;
    int rc = mcz_arc_table_encode(&w->table, mcz_outfile_tell(w->out), &frame, &len, footer);
    if (rc != MCZ_OK)
        return fail_locked(w, rc, -1, "cannot encode the index");
    rc = write_bytes(w, frame, len);
    free(frame);
    return rc == MCZ_OK ? write_bytes(w, footer, sizeof footer) : rc;
}

int mcz_writer_close(mcz_writer *w, mcz_diag *diag)
{
    if (!w)
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_writer_close: NULL writer");
    int rc = finish_input(w);
    for (int i = 0; i < w->threads_started; i++)
        pthread_join(w->threads[i], NULL);
    w->threads_started = 0;
    if (rc == MCZ_OK)
        rc = w->error.code;
    if (rc == MCZ_OK && w->head)
        rc = fail_locked(w, MCZ_ESTATE, -1, "chunks left unwritten");
    if (rc == MCZ_OK)
        rc = write_index(w);
    if (rc == MCZ_OK) {
        rc = mcz_outfile_commit(w->out, diag);
        w->out = NULL;
    } else if (diag && w->error.code != MCZ_OK) {
        *diag = w->error;
    } else {
        mcz_fail(diag, rc, -1, -1, "mcz_writer_close: %s", mcz_error_name(rc));
    }
    mcz_outfile_abort(w->out);
    w->out = NULL;
    writer_free(w);
    return rc;
}

void mcz_writer_abort(mcz_writer *w)
{
    if (!w)
        return;
    mcz_outfile_abort(w->out);
    w->out = NULL;
    writer_free(w);
}

const mcz_diag *mcz_writer_diag(const mcz_writer *w)
{
    return w ? &w->error : NULL;
}
