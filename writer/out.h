/*
 * out.h - where a writer's archive goes: one interface, one small implementation per mode
 * (FORMAT.md §12), picked once when the writer opens:
 *
 *   out_atomic.c  ATOMIC  a temporary file renamed over the name at the end (io/outfile.c)
 *   out_live.c    LIVE    the file itself, a complete archive at every checkpoint
 *   out_memory.c  MEMORY  nothing until a dump: the chunks stay in memory
 *   out_stream.c  STREAM  the caller's descriptor, a pipe or a socket
 *
 * The writer core (writer.c, output.c, ...) calls an output only through its ops, in the order
 * begin, chunk (and discard) any number of times, then finish; free always, last. Every call
 * runs with the writer's output token held (or, at open and close, with no other thread
 * running), and with its lock not held but for those marked "lock held": one thread at a time,
 * so an output needs no lock of its own. An output reads the retained
 * list (the chunks that reached it, oldest first, with their index rows) through retained.c and
 * calls the system only through platform/platform.h and io/outfile.c. A new mode (appending to an
 * existing archive, uploading chunks) is one more file here and one more row in writer.c's
 * table of modes.
 */
#ifndef MCZ_WRITER_OUT_H
#define MCZ_WRITER_OUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/mcz_common.h"
#include "chunk.h"
#include "writer_test.h"

/* The bytes before the first chunk: the header frame (+ dictionary frame head), the
 * dictionary, the metadata frame (each may be empty but the first). */
typedef struct mcz_wr_head {
    const uint8_t *head;
    size_t head_len;
    const void *dict;
    size_t dict_len;
    const uint8_t *meta;
    size_t meta_len;
} mcz_wr_head;

/* Where the chunks begin. */
#define MCZ_WR_HEAD_SIZE(h) ((uint64_t)(h)->head_len + (h)->dict_len + (h)->meta_len)

/* Where the rows of the chunks in the output are once they exceed a bound (spill.c). */
typedef struct mcz_wr_spill {
    uint64_t bound; /* row bytes held in memory before chunks spill; UINT64_MAX: never */
    uint64_t held;  /* row bytes of the chunks stored that stayed in memory */
    int fd;         /* the temporary file, -1 until the first spill */
    uint64_t size;  /* bytes of rows in it */
    uint64_t frame_len; /* bytes of a compressed index after them (mcz_wr_spill_store) */
    int err;        /* errno of its first failure, 0: none */
    char dir[512];  /* where it was made (messages; cut short past 511 bytes) */
} mcz_wr_spill;

/* The retained list as an index describes it: count chunks from first, linked through
 * retained_next; next_number is an empty index's first context number; spill holds the rows
 * of the chunks marked rows_spilled (none in a collector's list, which a fatal-signal dump
 * reads). */
typedef struct mcz_wr_list {
    chunk *first;
    uint32_t count;
    uint32_t next_number;
    bool hashes;
    mcz_wr_spill *spill;
} mcz_wr_list;

typedef struct mcz_wr_out mcz_wr_out;

/* What the core may ask of an output besides storing chunks. */
enum {
    MCZ_WR_OUT_IN_MEMORY = 1, /* chunks keep their frames: nothing is written, and a fatal-signal
                               * dump can write them without reading a file */
    MCZ_WR_OUT_DUMPS = 2,     /* mcz_writer_dump: the retained chunks are readable */
    MCZ_WR_OUT_COLLECTS = 4,  /* a collector: the service thread runs (flush_ms, checkpoints) */
    MCZ_WR_OUT_SPILLS = 8,    /* the index is written once, at the end: past a bound the rows of
                               * the chunks stored go to a temporary file (spill.c) */
};

typedef struct mcz_wr_out_ops {
    unsigned flags;
    /* Writes the head. An output that lost its receiver (lost, below) returns MCZ_OK. */
    int (*begin)(mcz_wr_out *o, const mcz_wr_head *h, mcz_diag *d);
    /* Stores c's frames after the previous chunk and sets c->offset. Failing, it sets d, or
     * marks the output lost and leaves c to the core. */
    int (*chunk)(mcz_wr_out *o, chunk *c, mcz_diag *d);
    /* Optional: the chunks from gone (linked through next), oldest first, left the retained
     * list (max_bytes); the output may reclaim their room. */
    int (*discard)(mcz_wr_out *o, const chunk *gone, mcz_diag *d);
    /* Optional: c's frames from where chunk stored them, through sink (a dump; allocates). */
    int (*read_chunk)(mcz_wr_out *o, const chunk *c, mcz_arc_sink_fn sink, void *arg);
    /* Optional, periodic checkpoints. Lock held: ready (the head is in), wrote (a chunk of
     * bytes stored at now; the retained list holds chunks and contexts now), due (what to do at now;
     * *wake: when to ask again), checkpointed (after checkpoint succeeded at now). Token held,
     * lock not: checkpoint, which writes an index of l (index) or only syncs, *written the
     * bytes it wrote. */
    void (*ready)(mcz_wr_out *o);
    void (*wrote)(mcz_wr_out *o, uint64_t bytes, uint32_t chunks, uint32_t contexts,
                  uint64_t now);
    mcz_wr_live_step (*due)(mcz_wr_out *o, uint64_t now, uint64_t *wake);
    int (*checkpoint)(mcz_wr_out *o, bool index, const mcz_wr_list *l, uint64_t *written,
                      mcz_diag *d);
    void (*checkpointed)(mcz_wr_out *o, bool index, uint64_t now);
    /* Index and footer after the last chunk (the whole archive, for an output that kept it in
     * memory); the archive is complete where it goes. No other thread runs. */
    int (*finish)(mcz_wr_out *o, const mcz_wr_head *h, const mcz_wr_list *l, uint64_t *written,
                  mcz_diag *d);
    /* Frees the output. Unfinished, an atomic output leaves nothing behind and a LIVE file
     * stays as it is (FORMAT.md §12). */
    void (*free)(mcz_wr_out *o);
} mcz_wr_out_ops;

/* The part every output shares; each implementation's struct begins with it. */
struct mcz_wr_out {
    const mcz_wr_out_ops *ops;
    const char *path; /* for messages: the writer's name for its output */
    /* Set once the output takes nothing more without the writer having failed (a stream's
     * receiver went away): chunks then stay queued, appends meet the full policy, and close
     * reports lost_error. */
    atomic_bool lost;
    mcz_diag lost_error;
};

/* What opening an output needs. */
typedef struct mcz_wr_out_args {
    const char *path;   /* the writer's copy, alive until free */
    int stream_fd;      /* STREAM: the caller's descriptor (never closed here) */
    uint64_t max_bytes; /* 0: unbounded (LIVE then needs no holes) */
    bool hashes;        /* the index stores identity and dedup columns */
    uint32_t checkpoint_ms; /* LIVE: the checkpoint period */
} mcz_wr_out_args;

typedef mcz_wr_out *(*mcz_wr_out_open_fn)(const mcz_wr_out_args *a, mcz_diag *d);
mcz_wr_out *mcz_wr_out_atomic(const mcz_wr_out_args *a, mcz_diag *d);
mcz_wr_out *mcz_wr_out_live(const mcz_wr_out_args *a, mcz_diag *d);
mcz_wr_out *mcz_wr_out_memory(const mcz_wr_out_args *a, mcz_diag *d);
mcz_wr_out *mcz_wr_out_stream(const mcz_wr_out_args *a, mcz_diag *d);

/* For the implementations: fills the shared part (lost cleared). */
void mcz_wr_out_init(mcz_wr_out *o, const mcz_wr_out_ops *ops, const char *path);

/* ---- retained.c: the retained list read as an archive ---- */

/* Chunks in the list from first. */
uint32_t mcz_wr_list_count(chunk *first);
/* l's index and footer (compressed when smaller), its rows at the chunks' offsets, the index
 * itself at `at`. MCZ_EIO with l->spill->err set: its temporary file failed
 * (mcz_wr_spill_failure says so). */
int mcz_wr_index_write(const mcz_wr_list *l, uint64_t at, mcz_arc_sink_fn sink, void *arg);
/* An index that could not be encoded (rc ELIMIT or ENOMEM, as opposed to an output that refused
 * it), at `at` of path. */
int mcz_wr_index_failure(const char *path, uint64_t at, int rc, mcz_diag *d);
/* A whole archive of l: head, the chunks laid back to back (their frames, or read back through
 * from's read_chunk), index, footer. With raw_index the index is streamed raw: no allocation
 * and no lock, async-signal-safe when sink is and the chunks are in memory. */
int mcz_wr_archive_emit(const mcz_wr_head *h, const mcz_wr_list *l, mcz_wr_out *from,
                        bool raw_index, mcz_arc_sink_fn sink, void *arg);
/* The same to path, atomically (io/outfile.c). */
int mcz_wr_archive_to(const char *path, const mcz_wr_head *h, const mcz_wr_list *l,
                      mcz_wr_out *from, mcz_diag *d);

/* ---- spill.c: the rows of the chunks in an output, past a bound ---- */

/* No file yet; enabled false: every row stays in memory (the bound is never reached). */
void mcz_wr_spill_init(mcz_wr_spill *s, bool enabled);
/* Closes the file, if any (it has no name to remove). */
void mcz_wr_spill_close(mcz_wr_spill *s);
/* Bytes of count contexts' rows (lengths, and both hashes unless !hashes). */
size_t mcz_wr_rows_size(uint32_t count, bool hashes);
/* c was stored: its rows stay in memory while the bound allows, else go to the file and are
 * freed (rows_spilled). MCZ_EIO naming errno and the directory, about path, when they cannot. */
int mcz_wr_spill_chunk(mcz_wr_spill *s, chunk *c, bool hashes, const char *path, mcz_diag *d);
/* c's spilled rows into buf (mcz_wr_rows_size bytes): lengths, identity, dedup. MCZ_EIO. */
int mcz_wr_spill_read(mcz_wr_spill *s, const chunk *c, bool hashes, uint8_t *buf);
/* When rows were spilled, fills store to keep a compressed index frame in the file, after
 * them (mcz_arc_index_write_via): at that size it is not held in memory either. */
bool mcz_wr_spill_store(mcz_wr_spill *s, mcz_arc_store *store);
/* The file's first failure (err set) as a diag about path (context number, or -1): errno and
 * the directory. MCZ_EIO. */
int mcz_wr_spill_failure(const mcz_wr_spill *s, const char *path, int64_t number, mcz_diag *d);

#endif /* MCZ_WRITER_OUT_H */
