/*
 * replay_proc.c - the one process module of mcz-replay: every fork, pipe, wait and kill is here.
 *
 * The parent plans, forks -j workers and hands out work units over a pipe per worker: each
 * worker has its current unit and one queued behind it (so it never waits for the parent), the
 * rest stay with the parent for whichever worker frees up first, so a slow unit never holds
 * others back. Each worker opens the collection itself after the fork (no zstd context, FILE
 * or reader crosses a fork) and reports back on its own pipe:
 *
 *   READY                       the replayer initialized; the worker wants a unit
 *   START   number [whole]      about to replay this context (or, whole: the rest of the unit)
 *   RESULT  number kind size    one context accounted
 *   UNIT_DONE                   every wanted context of the unit was reported
 *   FATAL   text                the replayer could not initialize
 *   STATS   4 x u64             I/O figures, sent once before a normal exit
 *
 * A record is a 12-byte header (u8 type, u8 kind, u16 text length, u32 number, u32 size) and its
 * text (at most 511 bytes), in native byte order. Records travel through a ring in memory shared
 * by the parent and that one worker (see ring): a record costs the worker no system call, and
 * what a worker wrote before it died is still there for the parent to read. The worker's pipe
 * only wakes the parent: a byte after READY, UNIT_DONE, FATAL and STATS, and while the ring is
 * full; its end says the worker is gone. Otherwise the parent looks at the rings when it wakes
 * for other reasons: worker output, the progress tick, and every SCAN_MS while --timeout runs, so
 * a timeout counts from at most SCAN_MS after its context was announced. Requests from the parent
 * are 16 bytes on a pipe (u32 unit, u32 resume, u32 stride, u32 slot); closing it means "no more
 * work".
 *
 * Because a worker announces each context before replaying it, the parent knows which context
 * was in flight when the worker died or overran --timeout: that context is accounted as crashed
 * or timed out, and a fresh worker resumes the unit just after it. Every worker leads its own
 * process group, so killing the group also ends an --exec command and its children, and a
 * terminal's Ctrl-C reaches only the parent, which then stops every worker itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay_int.h"

enum { MSG_READY = 1, MSG_START, MSG_RESULT, MSG_UNIT_DONE, MSG_FATAL, MSG_STATS };

#define MSG_HEADER 12u
#define MSG_MAX (MSG_HEADER + REPLAY_MESSAGE_MAX)
#define RING_SIZE 65536u   /* bytes of records in flight per worker; a power of two */
#define RING_WAIT_NS 100000 /* a worker's pause while its ring is full */
#define READ_BUFFER 16384u /* parent side: records taken at once */
#define REQUEST_SIZE 16u
#define OUT_LINE_MAX 4096u
#define PROGRESS_TICK_MS 250
#define SCAN_MS 10         /* how often the rings are looked at while --timeout runs */

_Static_assert(READ_BUFFER >= 2 * MSG_MAX, "a partial record and a whole one must fit");
_Static_assert((RING_SIZE & (RING_SIZE - 1)) == 0 && RING_SIZE >= 2 * MSG_MAX, "ring size");

/* The records of one worker, in a MAP_SHARED mapping made by the parent before the fork. The
 * positions count bytes ever written (tail, the worker's) and taken (head, the parent's); the
 * worker stores tail with release order after writing the bytes, so the parent, loading it with
 * acquire order, sees whole records. The parent keeps its own copy of head and treats tail and
 * the bytes as hostile: a crashing worker may have scribbled on them. */
typedef struct ring {
    alignas(64) _Atomic uint64_t tail;
    alignas(64) _Atomic uint64_t head;
    alignas(64) uint8_t data[RING_SIZE];
} ring;

_Static_assert(ATOMIC_LONG_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2,
               "the ring's positions must be lock-free, hence address-free across processes");

static ring *ring_map(void)
{
    void *p = mmap(NULL, sizeof(ring), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p; /* zero-filled: both positions 0 */
}

static void ring_unmap(ring **g)
{
    if (*g)
        munmap(*g, sizeof(ring));
    *g = NULL;
}

/* Bytes of the ring from position at up to its wrap (then the rest from its start). */
static size_t ring_first(uint64_t at, size_t len)
{
    size_t off = (size_t)(at & (RING_SIZE - 1));
    return len < RING_SIZE - off ? len : RING_SIZE - off;
}

static void ring_write(ring *g, uint64_t at, const void *src, size_t len)
{
    size_t first = ring_first(at, len);
    memcpy(g->data + (at & (RING_SIZE - 1)), src, first);
    memcpy(g->data, (const uint8_t *)src + first, len - first);
}

static void ring_read(const ring *g, uint64_t at, void *dst, size_t len)
{
    size_t first = ring_first(at, len);
    memcpy(dst, g->data + (at & (RING_SIZE - 1)), first);
    memcpy((uint8_t *)dst + first, g->data, len - first);
}

/* ---- Both sides: whole reads and writes ----------------------------------------------------- */

/* A whole write, as the callers' codes want it. */
static int write_all(int fd, const void *buf, size_t len)
{
    return tool_write_all(fd, buf, len) == 0 ? MCZ_OK : MCZ_EIO;
}

/* 1: len bytes read; 0: end of file before any byte; negative: error or a partial record. */
static int read_full(int fd, void *buf, size_t len)
{
    uint8_t *p = buf;
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, p + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return MCZ_EIO;
        if (n == 0)
            return got == 0 ? 0 : MCZ_ETRUNCATED;
        got += (size_t)n;
    }
    return 1;
}

static int wait_pid(pid_t pid, int *status)
{
    for (;;) {
        if (waitpid(pid, status, 0) == pid)
            return MCZ_OK;
        if (errno != EINTR)
            return MCZ_EIO;
    }
}

/* Exit status as a shell reports it: death by signal is 128 + the signal. */
static int exit_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 255;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ---- Worker side --------------------------------------------------------------------------- */

/* A worker's end of its ring and of the pipe that wakes the parent. */
struct replay_chan {
    int fd;
    ring *ring;
};

static int chan_wake(replay_chan *ch)
{
    static const uint8_t doorbell = 0;
    return write_all(ch->fd, &doorbell, 1);
}

/* Waits until the parent has taken enough of the ring for need more bytes. */
static int chan_room(replay_chan *ch, uint64_t tail, size_t need)
{
    while (RING_SIZE - (tail - atomic_load_explicit(&ch->ring->head, memory_order_acquire)) <
           need) {
        if (chan_wake(ch) != MCZ_OK)
            return MCZ_EIO;
        nanosleep(&(struct timespec){0, RING_WAIT_NS}, NULL);
    }
    return MCZ_OK;
}

static int chan_put(replay_chan *ch, int type, int kind, uint32_t number, uint32_t size,
                    const void *text, size_t text_len)
{
    if (text_len > REPLAY_MESSAGE_MAX - 1)
        text_len = REPLAY_MESSAGE_MAX - 1;
    uint64_t tail = atomic_load_explicit(&ch->ring->tail, memory_order_relaxed);
    if (chan_room(ch, tail, MSG_HEADER + text_len) != MCZ_OK)
        return MCZ_EIO;
    uint8_t rec[MSG_HEADER];
    uint16_t len16 = (uint16_t)text_len;
    rec[0] = (uint8_t)type;
    rec[1] = (uint8_t)kind;
    memcpy(rec + 2, &len16, 2);
    memcpy(rec + 4, &number, 4);
    memcpy(rec + 8, &size, 4);
    ring_write(ch->ring, tail, rec, MSG_HEADER);
    if (text_len)
        ring_write(ch->ring, tail + MSG_HEADER, text, text_len);
    atomic_store_explicit(&ch->ring->tail, tail + MSG_HEADER + text_len, memory_order_release);
    return MCZ_OK;
}

/* A record the parent must act on now. */
static int chan_send(replay_chan *ch, int type, int kind, uint32_t number, uint32_t size,
                     const void *text, size_t text_len)
{
    int rc = chan_put(ch, type, kind, number, size, text, text_len);
    return rc == MCZ_OK ? chan_wake(ch) : rc;
}

int replay_chan_start(replay_chan *ch, uint32_t number, uint32_t size, bool whole_unit)
{
    fflush(NULL); /* the replayer's output so far belongs before whatever comes next */
    return chan_put(ch, MSG_START, whole_unit, number, size, NULL, 0);
}

int replay_chan_result(replay_chan *ch, uint32_t number, int kind, uint32_t size, const char *msg)
{
    return chan_put(ch, MSG_RESULT, kind, number, size, msg, msg ? strlen(msg) : 0);
}

_Noreturn void replay_chan_fatal(replay_chan *ch, const char *msg)
{
    fflush(NULL);
    chan_send(ch, MSG_FATAL, 0, 0, 0, msg, strlen(msg));
    _exit(REPLAY_EXIT_INIT_FAILED);
}

static _Noreturn void worker_main(const replay_config *cfg, int req_fd, int msg_fd, ring *g)
{
    replay_chan ch = {msg_fd, g};
    replay_worker *w;
    char msg[REPLAY_MESSAGE_MAX];
    if (replay_worker_open(cfg, &w, msg, sizeof msg) != MCZ_OK)
        replay_chan_fatal(&ch, msg);
    chan_send(&ch, MSG_READY, 0, 0, 0, NULL, 0);
    uint32_t req[REQUEST_SIZE / 4];
    int rc;
    while ((rc = read_full(req_fd, req, sizeof req)) == 1) {
        replay_filter f = {req[2], req[3]};
        if (req[0] >= cfg->plan->unit_count ||
            replay_worker_unit(w, &cfg->plan->units[req[0]], req[1], f, &ch) != MCZ_OK)
            _exit(REPLAY_EXIT_GENERAL);
        fflush(NULL);
        chan_send(&ch, MSG_UNIT_DONE, 0, req[0], 0, NULL, 0);
    }
    replay_stats st;
    replay_worker_close(w, &st);
    fflush(NULL);
    uint64_t figures[4] = {st.units, st.contexts, st.bytes_read, st.bytes_decoded};
    chan_send(&ch, MSG_STATS, 0, 0, 0, figures, sizeof figures);
    _exit(rc == 0 ? 0 : REPLAY_EXIT_GENERAL);
}

/* ---- Parent side ----------------------------------------------------------------------------- */

typedef struct slot {
    pid_t pid;         /* 0: no worker */
    int req_fd, msg_fd, out_fd;
    bool ready;        /* READY seen */
    long unit;         /* unit being worked on, -1: none */
    long queued;       /* unit requested after it (so the worker never waits), -1: none */
    uint32_t resume;   /* where the current worker started in the unit */
    uint8_t *reported; /* per context of the unit: accounted */
    uint32_t high;     /* highest number of the unit accounted so far, 0: none */
    uint32_t inflight; /* announced context, 0: none */
    uint32_t inflight_size;
    bool inflight_unit;
    double deadline;   /* 0: no timeout running */
    replay_filter filter;
    size_t stride_next;
    ring *ring;        /* the worker's records (NULL: no worker) */
    uint64_t taken;    /* ring position up to which records were taken */
    uint8_t msg[READ_BUFFER];
    size_t msg_len;
    char out[OUT_LINE_MAX];
    size_t out_len;
    replay_stats stats;
} slot;

typedef struct run {
    const replay_config *cfg;
    const replay_plan *plan;
    const replay_run_options *o;
    replay_table *table;
    replay_outcome *outcome;
    slot *slots;
    size_t nslots;
    size_t next_unit;
    uint64_t done;
    bool stopping;
    int error;
    pid_t parent;
} run;

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

static void stop_all(run *r)
{
    r->stopping = true;
    for (size_t i = 0; i < r->nslots; i++) {
        if (r->slots[i].pid > 0) {
            kill(-r->slots[i].pid, SIGKILL);
            kill(r->slots[i].pid, SIGKILL);
        }
    }
}

static void fatal(run *r, int error, const char *what)
{
    if (!r->stopping) {
        snprintf(r->outcome->message, sizeof r->outcome->message, "%s", what);
        r->error = error;
    }
    stop_all(r);
}

static _Noreturn void child_main(run *r, slot *mine, int req_fd, int msg_fd, int out_fd)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != r->parent)
        _exit(REPLAY_EXIT_GENERAL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (size_t i = 0; i < r->nslots; i++) {
        close_fd(&r->slots[i].req_fd);
        close_fd(&r->slots[i].msg_fd);
        close_fd(&r->slots[i].out_fd);
        if (&r->slots[i] != mine)
            ring_unmap(&r->slots[i].ring); /* a wild write must not reach other workers' rings */
    }
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) {
        dup2(null_fd, 0);
        close(null_fd);
    }
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    close(out_fd);
    setvbuf(stdout, NULL, _IOLBF, 0);
    worker_main(r->cfg, req_fd, msg_fd, mine->ring);
}

static void close_pipes(int (*fds)[2], size_t n)
{
    int err = errno;
    for (size_t i = 0; i < n; i++)
        close(fds[i][0]), close(fds[i][1]);
    errno = err;
}

/* Starts a worker in slot s, with a fresh ring. On failure errno says why. */
static int spawn(run *r, slot *s)
{
    enum { REQ, MSG, OUT, PIPES };
    int fds[PIPES][2];
    for (size_t i = 0; i < PIPES; i++) {
        if (pipe2(fds[i], O_CLOEXEC) != 0) {
            close_pipes(fds, i);
            return MCZ_EIO;
        }
    }
    s->ring = ring_map();
    if (!s->ring) {
        close_pipes(fds, PIPES);
        return MCZ_EIO;
    }
    s->taken = 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[REQ][1]), close(fds[MSG][0]), close(fds[OUT][0]);
        child_main(r, s, fds[REQ][0], fds[MSG][1], fds[OUT][1]);
    }
    if (pid < 0) {
        close_pipes(fds, PIPES);
        ring_unmap(&s->ring);
        return MCZ_EIO;
    }
    close(fds[REQ][0]), close(fds[MSG][1]), close(fds[OUT][1]);
    setpgid(pid, pid); /* also done by the child: whichever runs first wins the race */
    fcntl(fds[MSG][0], F_SETFL, O_NONBLOCK);
    fcntl(fds[OUT][0], F_SETFL, O_NONBLOCK);
    s->pid = pid;
    s->req_fd = fds[REQ][1];
    s->msg_fd = fds[MSG][0];
    s->out_fd = fds[OUT][0];
    s->ready = false;
    s->inflight = 0;
    s->deadline = 0;
    s->msg_len = s->out_len = 0;
    return MCZ_OK;
}

static void spawn_failed(run *r)
{
    char why[REPLAY_MESSAGE_MAX];
    snprintf(why, sizeof why, "cannot start a worker: %s", strerror(errno));
    fatal(r, MCZ_EIO, why);
}

static const replay_unit *slot_unit(const run *r, const slot *s)
{
    return s->unit >= 0 ? &r->plan->units[s->unit] : NULL;
}

static void request(slot *s, long unit, uint32_t resume)
{
    uint32_t req[REQUEST_SIZE / 4] = {(uint32_t)unit, resume, s->filter.stride, s->filter.slot};
    /* A worker that died meanwhile is noticed by the end of its message pipe. */
    (void)write_all(s->req_fd, req, sizeof req);
}

/* Makes unit the current one; send: request it (false when it was requested as the queued
 * one already). */
static void begin_unit(run *r, slot *s, long unit, bool send)
{
    const replay_unit *u = &r->plan->units[unit];
    free(s->reported);
    s->reported = calloc(u->count, 1);
    if (!s->reported) {
        fatal(r, MCZ_ENOMEM, "out of memory");
        return;
    }
    s->unit = unit;
    s->resume = u->first;
    s->high = 0;
    if (send)
        request(s, unit, u->first);
}

static long take_unit(run *r, slot *s)
{
    size_t *next = r->o->stride ? &s->stride_next : &r->next_unit;
    return *next < r->plan->unit_count ? (long)(*next)++ : -1;
}

static bool work_left(const run *r, const slot *s)
{
    size_t next = r->o->stride ? s->stride_next : r->next_unit;
    return next < r->plan->unit_count;
}

/* Keeps a unit queued behind the current one; when none is left, closes the request pipe so
 * the worker ends after the units it has. */
static void queue_next(run *r, slot *s)
{
    if (s->queued >= 0 || r->stopping)
        return;
    long unit = take_unit(r, s);
    if (unit < 0) {
        close_fd(&s->req_fd);
        return;
    }
    s->queued = unit;
    request(s, unit, r->plan->units[unit].first);
}

/* A worker without a current unit: the queued one becomes current, or a new one is taken. */
static void assign(run *r, slot *s)
{
    bool requested = s->queued >= 0;
    long unit = requested ? s->queued : r->stopping ? -1 : take_unit(r, s);
    s->queued = -1;
    if (unit < 0) {
        s->unit = -1;
        close_fd(&s->req_fd);
        return;
    }
    begin_unit(r, s, unit, !requested);
    queue_next(r, s);
}

/* A new worker has been told nothing: repeat the current unit (from where its predecessor
 * stopped) and the queued one, or start afresh. */
static void on_ready(run *r, slot *s)
{
    s->ready = true;
    long queued = s->queued; /* requested from a predecessor, if any */
    s->queued = -1;
    if (s->unit >= 0) {
        request(s, s->unit, s->resume);
        if (queued >= 0) {
            s->queued = queued;
            request(s, queued, r->plan->units[queued].first);
        }
        queue_next(r, s);
    } else if (queued >= 0) {
        begin_unit(r, s, queued, true);
        queue_next(r, s);
    } else {
        assign(r, s);
    }
}

static void account(run *r, slot *s, uint32_t number, int kind, uint32_t size, const char *text)
{
    const replay_unit *u = slot_unit(r, s);
    if (!u || number < u->first || number - u->first >= u->count ||
        s->reported[number - u->first] || kind <= REPLAY_NONE || kind >= REPLAY_KIND_COUNT) {
        fatal(r, MCZ_ECORRUPT, "a worker reported a context it was not given");
        return;
    }
    s->reported[number - u->first] = 1;
    if (number > s->high)
        s->high = number;
    if (replay_table_add(r->table, number, kind, size, text) != MCZ_OK)
        fatal(r, MCZ_ENOMEM, "out of memory");
    r->done++;
}

/* First wanted, unreported context of the slot's unit numbered >= from; 0 when none. */
static uint32_t first_open(const run *r, const slot *s, uint32_t from)
{
    const replay_unit *u = slot_unit(r, s);
    for (uint32_t n = from; u && n - u->first < u->count; n++)
        if (!s->reported[n - u->first] && replay_plan_wants(r->plan, s->filter, n))
            return n;
    return 0;
}

static void unit_done(run *r, slot *s, uint32_t unit)
{
    if (s->unit < 0 || (uint32_t)s->unit != unit) {
        fatal(r, MCZ_ECORRUPT, "a worker finished a unit it was not given");
        return;
    }
    for (uint32_t n = first_open(r, s, slot_unit(r, s)->first); n; n = first_open(r, s, n + 1))
        account(r, s, n, REPLAY_ERROR, 0, "not reported by its worker");
    free(s->reported);
    s->reported = NULL;
    s->inflight = 0;
    s->deadline = 0;
    s->unit = -1;
    assign(r, s);
}

static void on_record(run *r, slot *s, int type, int kind, uint32_t number, uint32_t size,
                      const char *text, size_t text_len)
{
    switch (type) {
    case MSG_READY:
        on_ready(r, s);
        break;
    case MSG_START:
        s->inflight = number;
        s->inflight_size = size;
        s->inflight_unit = kind != 0;
        s->deadline = r->o->timeout > 0 ? tool_now() + r->o->timeout : 0;
        break;
    case MSG_RESULT:
        account(r, s, number, kind, size, text_len ? text : NULL);
        if (number == s->inflight) {
            s->inflight = 0;
            s->deadline = 0;
        }
        break;
    case MSG_UNIT_DONE:
        unit_done(r, s, number);
        break;
    case MSG_FATAL:
        r->outcome->init_failed = true;
        fatal(r, MCZ_EINVAL, text);
        break;
    case MSG_STATS:
        if (text_len == 4 * sizeof(uint64_t)) {
            uint64_t f[4];
            memcpy(f, text, sizeof f);
            s->stats.units += f[0];
            s->stats.contexts += f[1];
            s->stats.bytes_read += f[2];
            s->stats.bytes_decoded += f[3];
        }
        break;
    default:
        fatal(r, MCZ_ECORRUPT, "a worker sent an unknown record");
    }
}

/* Parses the complete records buffered for s. */
static void parse_records(run *r, slot *s)
{
    size_t at = 0;
    while (s->msg_len - at >= MSG_HEADER) {
        const uint8_t *rec = s->msg + at;
        uint16_t text_len;
        uint32_t number, size;
        memcpy(&text_len, rec + 2, 2);
        memcpy(&number, rec + 4, 4);
        memcpy(&size, rec + 8, 4);
        if (text_len >= REPLAY_MESSAGE_MAX) {
            fatal(r, MCZ_ECORRUPT, "a worker sent an oversized record");
            s->msg_len = 0;
            return;
        }
        if (s->msg_len - at < MSG_HEADER + text_len)
            break;
        char text[REPLAY_MESSAGE_MAX];
        memcpy(text, rec + MSG_HEADER, text_len);
        text[text_len] = '\0';
        at += MSG_HEADER + text_len;
        on_record(r, s, rec[0], rec[1], number, size, text, text_len);
    }
    memmove(s->msg, s->msg + at, s->msg_len - at);
    s->msg_len -= at;
}

/* Takes the records the worker has put in its ring since last time. */
static void take_records(run *r, slot *s)
{
    if (!s->ring)
        return;
    uint64_t tail = atomic_load_explicit(&s->ring->tail, memory_order_acquire);
    if (tail - s->taken > RING_SIZE) {
        fatal(r, MCZ_ECORRUPT, "a worker damaged its record ring");
        ring_unmap(&s->ring);
        return;
    }
    while (s->taken != tail) {
        size_t room = sizeof s->msg - s->msg_len;
        size_t n = tail - s->taken < room ? (size_t)(tail - s->taken) : room;
        ring_read(s->ring, s->taken, s->msg + s->msg_len, n);
        s->taken += n;
        s->msg_len += n;
        atomic_store_explicit(&s->ring->head, s->taken, memory_order_release);
        parse_records(r, s); /* leaves at most a partial record: room for more */
    }
}

/* Reads the worker's wake-up bytes, then its records; returns false at the end of the pipe (the
 * worker is gone, and everything it wrote has been taken). */
static bool read_records(run *r, slot *s)
{
    uint8_t bytes[256];
    bool open = true;
    for (;;) {
        ssize_t n = read(s->msg_fd, bytes, sizeof bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            open = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
            break;
        }
    }
    take_records(r, s);
    return open;
}

/* Copies a worker's output to stderr a whole line at a time, so lines never interleave. */
static void emit_output(slot *s, bool all)
{
    size_t start = 0;
    for (size_t i = 0; i < s->out_len; i++) {
        if (s->out[i] == '\n') {
            replay_progress_clear();
            fwrite(s->out + start, 1, i + 1 - start, stderr);
            start = i + 1;
        }
    }
    if (start == 0 && (all || s->out_len == sizeof s->out) && s->out_len > 0) {
        replay_progress_clear();
        fwrite(s->out, 1, s->out_len, stderr);
        fputc('\n', stderr);
        start = s->out_len;
    }
    memmove(s->out, s->out + start, s->out_len - start);
    s->out_len -= start;
}

static void read_output(slot *s)
{
    for (;;) {
        ssize_t n = read(s->out_fd, s->out + s->out_len, sizeof s->out - s->out_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                emit_output(s, true);
                close_fd(&s->out_fd);
            }
            return;
        }
        s->out_len += (size_t)n;
        emit_output(s, false);
    }
}

static void describe_death(int status, char *buf, size_t cap)
{
    if (WIFSIGNALED(status))
        snprintf(buf, cap, "worker killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, cap, "worker exited with status %d", exit_code(status));
}

/* The context a worker was busy with when it died or was killed: announced, or (whole: the
 * announcement covered the rest of the unit). */
typedef struct victim {
    int kind; /* REPLAY_CRASH or REPLAY_TIMEOUT */
    uint32_t number;
    uint32_t size;
    bool whole;
} victim;

/* Accounts what a dead worker left: its victim (when nothing was announced, the context it
 * was about to start), unless that context got its result after all. The replacement resumes
 * after the highest context accounted, as a worker replays in number order. */
static void blame(run *r, slot *s, const victim *v, int status)
{
    char why[REPLAY_MESSAGE_MAX];
    if (v->kind == REPLAY_TIMEOUT)
        snprintf(why, sizeof why, "timed out after %g s", r->o->timeout);
    else
        describe_death(status, why, sizeof why);
    const replay_unit *u = slot_unit(r, s);
    if (v->whole) {
        for (uint32_t n = first_open(r, s, u->first); n; n = first_open(r, s, n + 1))
            account(r, s, n, v->kind, 0, why);
    } else {
        uint32_t n = v->number ? v->number : first_open(r, s, s->high ? s->high + 1 : u->first);
        if (n && !s->reported[n - u->first])
            account(r, s, n, v->kind, v->number ? v->size : 0, why);
    }
    s->resume = s->high ? s->high + 1 : u->first;
    s->inflight = 0;
    s->deadline = 0;
}

/* After a worker ended: collect what it said, account the context it died on, and start a
 * replacement when work remains. A timed-out worker's victim is given (t); a crashed one's is
 * whatever it announced last. */
static void reap(run *r, slot *s, const victim *t)
{
    int status = 0;
    bool waited = wait_pid(s->pid, &status) == MCZ_OK;
    (void)read_records(r, s);
    if (s->out_fd >= 0)
        read_output(s);
    emit_output(s, true);
    close_fd(&s->msg_fd);
    close_fd(&s->out_fd);
    close_fd(&s->req_fd);
    ring_unmap(&s->ring);
    s->pid = 0;
    if (r->stopping)
        return;
    if (!waited) {
        fatal(r, MCZ_EIO, "lost track of a worker");
        return;
    }
    if (!s->ready) {
        char why[REPLAY_MESSAGE_MAX];
        describe_death(status, why, sizeof why);
        r->outcome->init_failed = true;
        fatal(r, MCZ_EINVAL, why);
        return;
    }
    if (s->unit < 0) {
        if (status != 0) {
            char why[REPLAY_MESSAGE_MAX];
            describe_death(status, why, sizeof why);
            replay_progress_clear();
            tool_warn("after its last unit, %s", why);
        }
        return;
    }
    victim v = {REPLAY_CRASH, s->inflight, s->inflight_size, s->inflight && s->inflight_unit};
    blame(r, s, t ? t : &v, status);
    if (!first_open(r, s, s->resume)) {
        free(s->reported);
        s->reported = NULL;
        s->unit = -1;
        if (!work_left(r, s) && s->queued < 0)
            return;
    }
    if (spawn(r, s) != MCZ_OK)
        spawn_failed(r);
}

static int poll_timeout_ms(const run *r)
{
    double next = 0;
    for (size_t i = 0; i < r->nslots; i++)
        if (r->slots[i].pid > 0 && r->slots[i].deadline > 0 &&
            (next == 0 || r->slots[i].deadline < next))
            next = r->slots[i].deadline;
    int ms = r->o->progress ? PROGRESS_TICK_MS : -1;
    if (r->o->timeout > 0) /* an announcement in a ring starts a deadline once it is seen */
        ms = ms < 0 || SCAN_MS < ms ? SCAN_MS : ms;
    if (next > 0) {
        double wait = (next - tool_now()) * 1000.0 + 1;
        int wait_ms = wait < 0 ? 0 : wait > 60000 ? 60000 : (int)wait;
        if (ms < 0 || wait_ms < ms)
            ms = wait_ms;
    }
    return ms;
}

static void check_deadlines(run *r)
{
    double now = tool_now();
    for (size_t i = 0; i < r->nslots; i++) {
        slot *s = &r->slots[i];
        if (s->pid <= 0 || s->deadline <= 0 || now < s->deadline || r->stopping)
            continue;
        if (!read_records(r, s)) { /* a result may have arrived meanwhile */
            reap(r, s, NULL);
            continue;
        }
        if (s->deadline <= 0 || now < s->deadline)
            continue;
        victim v = {REPLAY_TIMEOUT, s->inflight, s->inflight_size, s->inflight_unit};
        kill(-s->pid, SIGKILL);
        kill(s->pid, SIGKILL);
        reap(r, s, &v);
    }
}

static size_t live_workers(const run *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nslots; i++)
        n += r->slots[i].pid > 0;
    return n;
}

/* Waits for output, a wake-up, a deadline or a scan, and handles what came; then takes every
 * worker's records. Only live descriptors are polled (poll() refuses more entries than the
 * descriptor limit). */
static void poll_once(run *r, struct pollfd *fds, size_t *owner)
{
    size_t nfds = 0;
    for (size_t i = 0; i < r->nslots; i++) {
        const slot *s = &r->slots[i];
        if (s->pid <= 0)
            continue;
        fds[nfds] = (struct pollfd){.fd = s->msg_fd, .events = POLLIN};
        owner[nfds++] = 2 * i;
        if (s->out_fd >= 0) {
            fds[nfds] = (struct pollfd){.fd = s->out_fd, .events = POLLIN};
            owner[nfds++] = 2 * i + 1;
        }
    }
    int n = poll(fds, nfds, poll_timeout_ms(r));
    if (n < 0 && errno != EINTR) { /* EINTR: a stop signal, looked at by the caller */
        char why[REPLAY_MESSAGE_MAX];
        snprintf(why, sizeof why, "poll: %s", strerror(errno));
        fatal(r, MCZ_EIO, why);
        for (size_t i = 0; i < r->nslots; i++)
            if (r->slots[i].pid > 0)
                reap(r, &r->slots[i], NULL);
    }
    /* Output first, so a worker's last lines come out before its records are acted on. */
    for (size_t k = 0; k < nfds && n > 0; k++) {
        slot *s = &r->slots[owner[k] / 2];
        if (fds[k].revents && owner[k] % 2 == 1 && s->out_fd == fds[k].fd)
            read_output(s);
    }
    for (size_t k = 0; k < nfds && n > 0; k++) {
        slot *s = &r->slots[owner[k] / 2];
        if (fds[k].revents && owner[k] % 2 == 0 && s->pid > 0 && s->msg_fd == fds[k].fd &&
            !read_records(r, s))
            reap(r, s, NULL);
    }
    for (size_t i = 0; i < r->nslots; i++)
        take_records(r, &r->slots[i]);
}

static double cpu_seconds(int who)
{
    struct rusage u;
    if (getrusage(who, &u) != 0)
        return 0;
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static void print_stats(const run *r)
{
    fprintf(stderr, "cpu: parent %.3f s, workers %.3f s\n", cpu_seconds(RUSAGE_SELF),
            cpu_seconds(RUSAGE_CHILDREN));
    for (size_t i = 0; i < r->nslots; i++) {
        const replay_stats *st = &r->slots[i].stats;
        fprintf(stderr,
                "worker %zu: units %llu contexts %llu bytes-read %llu bytes-decompressed %llu\n",
                i + 1, (unsigned long long)st->units, (unsigned long long)st->contexts,
                (unsigned long long)st->bytes_read, (unsigned long long)st->bytes_decoded);
    }
}

static void signals_install(struct sigaction old[3])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal; /* no SA_RESTART: poll() returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old[2]);
}

static void signals_restore(const struct sigaction old[3])
{
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    sigaction(SIGPIPE, &old[2], NULL);
}

static void run_loop(run *r)
{
    struct pollfd *fds = calloc(2 * r->nslots, sizeof *fds);
    size_t *owner = calloc(2 * r->nslots, sizeof *owner);
    if (!fds || !owner) {
        free(fds);
        free(owner);
        r->error = MCZ_ENOMEM;
        return;
    }
    for (size_t i = 0; i < r->nslots; i++) {
        if (spawn(r, &r->slots[i]) == MCZ_OK)
            continue;
        if (i == 0 || r->o->stride) {
            spawn_failed(r);
            break;
        }
        tool_warn("running %zu workers: %s", i, strerror(errno));
        r->nslots = i;
    }
    while (live_workers(r) > 0) {
        if (stop_signal && !r->stopping) {
            r->outcome->stop_signal = stop_signal;
            stop_all(r);
        }
        poll_once(r, fds, owner);
        check_deadlines(r);
        if (r->o->progress)
            replay_progress_update(r->done, r->plan->selected);
    }
    free(fds);
    free(owner);
}

/* A pipe must never land on 0, 1 or 2, which each worker redirects: keep them open. */
static void standard_fds_open(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return;
}

int replay_proc_run(const replay_config *cfg, const replay_run_options *o, replay_table *t,
                    replay_outcome *out)
{
    memset(out, 0, sizeof *out);
    standard_fds_open();
    const replay_plan *plan = cfg->plan;
    size_t nslots = o->workers ? o->workers : 1;
    if (!o->stride && nslots > plan->unit_count)
        nslots = plan->unit_count;
    if (plan->unit_count == 0)
        return MCZ_OK;
    run r = {.cfg = cfg, .plan = plan, .o = o, .table = t, .outcome = out, .nslots = nslots,
             .parent = getpid()};
    r.slots = calloc(nslots, sizeof *r.slots);
    if (!r.slots)
        return MCZ_ENOMEM;
    for (size_t i = 0; i < nslots; i++) {
        slot *s = &r.slots[i];
        s->req_fd = s->msg_fd = s->out_fd = -1;
        s->unit = s->queued = -1;
        if (o->stride)
            s->filter = (replay_filter){(uint32_t)nslots, (uint32_t)i};
    }
    struct sigaction old[3];
    stop_signal = 0;
    signals_install(old);
    run_loop(&r);
    signals_restore(old);
    if (o->progress)
        replay_progress_clear();
    if (o->stats)
        print_stats(&r);
    for (size_t i = 0; i < nslots; i++) {
        free(r.slots[i].reported);
        ring_unmap(&r.slots[i].ring);
    }
    free(r.slots);
    return r.error;
}

/* The child's side of replay_proc_command: the exec, or its errno on the status pipe. */
static _Noreturn void command_child(char *const argv[], int status_fd)
{
    execvp(argv[0], argv);
    int err = errno;
    (void)write_all(status_fd, &err, sizeof err);
    _exit(127);
}

int replay_proc_command(char *const argv[], int *exec_errno)
{
    *exec_errno = 0;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return MCZ_EIO;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        command_child(argv, fds[1]);
    }
    if (pid < 0) {
        close_pipes(&fds, 1);
        return MCZ_EIO;
    }
    close(fds[1]);
    /* The exec closes the pipe (CLOEXEC): end of file means the command started. */
    int err = 0;
    bool failed = read_full(fds[0], &err, sizeof err) == 1;
    close(fds[0]);
    int status;
    if (wait_pid(pid, &status) != MCZ_OK)
        return MCZ_EIO;
    if (failed)
        *exec_errno = err > 0 ? err : ENOEXEC;
    return exit_code(status);
}
