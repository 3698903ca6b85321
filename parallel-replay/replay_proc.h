/*
 * replay_proc.h - the pieces behind replay_proc_run(), each knowing only what it needs:
 *
 *   replay_ring.c    a byte ring in memory shared by the parent and one worker
 *   replay_record.c  the records a worker sends through it (the protocol, both ends)
 *   replay_sched.c   the scheduler: work units handed out, results accounted, deaths blamed
 *   replay_pool.c    the process pool: slots, output lines, deadlines, the wait loop
 *   replay_proc.c    the worker processes: start, pipes, rings, waits, kills, stop signals,
 *                    reaping, on the platform's worker facility (platform/worker.h: a fork
 *                    on POSIX; on Windows the program started again, in a job object)
 *
 * The process pool knows nothing of units or records (its callbacks carry them, as git's
 * run_processes_parallel does for its tasks); the scheduler makes no system call on processes,
 * nor does the pool, nor replay_proc.c: every system call is the platform's (platform/), which
 * knows nothing of rings or records in turn.
 */
#ifndef MCZ_REPLAY_PROC_H
#define MCZ_REPLAY_PROC_H

#include "replay_int.h"
#include "worker.h"

/* ---- Shared-memory ring (replay_ring.c) ----------------------------------------------------- */

/* Bytes in flight from one worker to the parent; a power of two. */
#define REPLAY_RING_SIZE 65536u

typedef struct replay_ring replay_ring;

/* The size of a ring's memory (positions and bytes): a worker's shared region (platform/worker.h,
 * memory a forked child shares, or a section the worker inherits), which starts zero-filled:
 * both positions 0. */
size_t replay_ring_bytes(void);
/* Worker: appends a then b as one piece once the parent has left room for it, calling
 * wait(arg) while the ring is full (a nonzero return gives up: MCZ_EIO). */
int replay_ring_put(replay_ring *g, const void *a, size_t alen, const void *b, size_t blen,
                    int (*wait)(void *), void *arg);
/* Parent: copies at most cap bytes written since position *taken into dst and frees their room;
 * returns the count, or -1 when the worker's position is impossible (a damaged ring). */
long replay_ring_take(replay_ring *g, uint64_t *taken, void *dst, size_t cap);

/* ---- Record protocol (replay_record.c) ------------------------------------------------------- */

/* In a RESULT's kind: its text locates details rows in the slot's rows file ("OFFSET LENGTH"),
 * not a message; and (MISS) a JIT missed data. */
#define REPLAY_REC_ROW 0x80
#define REPLAY_REC_MISS 0x40
#define REPLAY_REC_KIND_MASK 0x3F

enum { REPLAY_REC_READY = 1, REPLAY_REC_START, REPLAY_REC_RESULT, REPLAY_REC_UNIT_DONE,
       REPLAY_REC_FATAL, REPLAY_REC_STATS, REPLAY_REC_COLUMNS };

/* A worker's end of its ring and of the pipe that wakes the parent, and the file its details
 * rows go to (records carry messages of at most REPLAY_MESSAGE_MAX bytes; rows are longer:
 * superpmi's reach 222 columns, N of them under -repeatCount). */
struct replay_chan {
    int fd;
    replay_ring *ring;
    int rows_fd;        /* the slot's rows file (replay_rows_path), append-only; -1: none */
    char *columns_sent; /* the header last sent (COLUMNS) */
};

/* The rows file of a slot: TEMP_DIR/rows.SLOT, appended to by each worker the slot runs. */
void replay_rows_path(const char *temp_dir, size_t slot, char *buf, size_t cap);

/* Parent: the place a COLUMNS or ROW record's text gives ("OFFSET LENGTH", as the worker
 * writes it: two decimal counts, one space); false when the text is not one, or LENGTH is
 * above REPLAY_ROWS_MAX (a damaged record). */
#define REPLAY_ROWS_MAX (1u << 30)
bool replay_rows_where(const char *text, uint64_t *at, size_t *len);

/* Worker: a record the parent must act on now (the pipe wakes it). */
int replay_chan_send(replay_chan *ch, int type, int kind, uint32_t number, uint32_t size,
                     const void *text, size_t text_len);

typedef struct replay_record {
    int type, kind;
    uint32_t number, size;
    const char *text; /* NUL-terminated */
    size_t text_len;
} replay_record;

#define REPLAY_RECORD_BUFFER 16384u /* parent side: bytes of records taken at once */

/* The parent's side of one worker's records: bytes taken but not yet parsed. */
typedef struct replay_record_reader {
    uint64_t taken;
    uint8_t buf[REPLAY_RECORD_BUFFER];
    size_t len;
} replay_record_reader;

/* Takes every record in the ring and hands each to on_record; returns MCZ_OK, or MCZ_ECORRUPT
 * with why set when the ring or a record is damaged (the rest is then dropped). */
int replay_records_take(replay_record_reader *rd, replay_ring *g,
                        void (*on_record)(void *arg, const replay_record *rec), void *arg,
                        const char **why);

/* ---- How many units an --exec command gets (replay_span.c) ---- */

/* The run's commands that ran alone so far: sums over (contexts, wall seconds) of each. */
typedef struct replay_span_model {
    double sum_n, sum_t, sum_nn, sum_nt;
    size_t samples;
} replay_span_model;

void replay_span_sample(replay_span_model *m, uint64_t contexts, double seconds);
/* The units, from plan unit `next` on, for a worker's next command: consecutive ones holding at
 * most `bound` bytes (at least one), no more than a worker's share of what remains unless that
 * is less work than a start; as many as make a start a small part of the command by the
 * samples, or while they cannot tell, four times the worker's `last` span (0: none yet).
 * bound 0: one. */
uint32_t replay_span_next(const replay_span_model *m, const replay_plan *p, size_t next,
                          uint32_t last, uint64_t bound, size_t workers);

/* ---- Process pool (replay_pool.c) ------------------------------------------------------------ */

typedef struct replay_pool replay_pool;

typedef struct replay_pool_ops {
    void *arg;
    /* In a fresh worker (stdin /dev/null, stdout and stderr to the parent): its work. On
     * Windows the worker is the program started again, which reaches replay_pool_run with the
     * same arguments, and the pool calls this there. */
    void (*child)(void *arg, size_t slot, int req_fd, replay_chan *ch); /* must not return */
    /* The worker in slot woke the parent or may have written records: take them. */
    void (*drain)(void *arg, size_t slot, replay_ring *ring);
    /* The worker in slot runs past its deadline: about to be killed. */
    void (*overdue)(void *arg, size_t slot);
    /* The worker in slot is gone (reaped; everything it wrote drained): status as a shell's
     * (-1: lost track of it), how: that in words; killed: the pool killed it for overrunning
     * its deadline. */
    void (*ended)(void *arg, size_t slot, int status, const char *how, bool killed);
    /* After each wait, to show progress. */
    void (*tick)(void *arg);
    /* The run's temporary directory (NULL: none), named to a worker started again. */
    const char *temp_dir;
} replay_pool_ops;

/* Runs workers in slots 0..*slots-1, started at once; when fewer can start and few_ok, warns
 * and runs fewer (*slots lowered), else fails with errno set. Returns when none is left; the
 * signal that interrupted the run (SIGINT, SIGTERM, SIGHUP), 0 when none, in *stop_signal. */
int replay_pool_run(size_t *slots, bool few_ok, int tick_ms, double scan_s,
                    const replay_pool_ops *ops, int *stop_signal, char *why, size_t cap);
/* From a callback: (re)starts a worker in an empty slot; on failure errno says why. */
int replay_pool_start(size_t slot);
/* Writes to the worker's request pipe (a worker that died meanwhile is noticed later). */
void replay_pool_send(size_t slot, const void *buf, size_t len);
/* Closes the worker's request pipe: no more work. */
void replay_pool_close_input(size_t slot);
/* When the worker overruns (0: no deadline). */
void replay_pool_deadline(size_t slot, double when);
/* True once a stop signal (SIGINT, SIGTERM, SIGHUP) came: no worker may be started or blamed
 * any more; the pool is ending them all. */
bool replay_pool_stopping(void);
/* Kills every worker (their process groups). */
void replay_pool_kill_all(void);

/* A whole read: 1 read, 0 end of file before any byte, negative an error or partial read. */
int replay_read_full(int fd, void *buf, size_t len);

/* ---- Worker processes (replay_proc.c) -------------------------------------------------------- */

/* One worker process: its pipes (requests to it, wake-ups and output from it) and its ring,
 * the platform's worker (platform/worker.h), its shared region the ring. */
typedef struct mcz_os_worker replay_proc;

/* Starts the worker of slot with a fresh ring, the end of its request pipe that it reads and
 * the pipes it writes; NULL with errno set when it cannot. POSIX: the forked child runs
 * ops->child itself. Windows: the program is started again, told its slot and handles. */
replay_proc *replay_proc_start(size_t slot, const replay_pool_ops *ops);
/* True in a worker the pool started again (Windows), with its slot, its request descriptor and
 * its channel; false in the parent, and always on POSIX, where workers are forked. */
bool replay_proc_attach(size_t *slot, int *req_fd, replay_chan *ch);

/* Waits at most timeout_ms (-1: no limit) until one of the n workers (NULL: an empty slot)
 * prints or wakes the parent, or a stop signal comes. MCZ_OK, or MCZ_EIO with why set. */
int replay_proc_wait(replay_proc *const *procs, size_t n, int timeout_ms, char *why,
                     size_t cap);
/* What the last wait saw, the output, the requests, kills, freeing: platform/worker.h's
 * mcz_os_worker_* on the worker itself; around a run, its stop watch (mcz_os_stop_watch_*). */
/* Waits for the worker's end: its status as a shell's (-1: lost track of it), and how it ended
 * in words ("worker ..."). Its pipes and ring stay to be read until mcz_os_worker_free. */
int replay_proc_reap(replay_proc *p, char *how, size_t cap);

#endif /* MCZ_REPLAY_PROC_H */
