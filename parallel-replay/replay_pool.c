/*
 * replay_pool.c - the process pool of mcz-replay, the same on every system: which slots hold a
 * worker, their output passed on a whole line at a time, deadlines, and the loop that waits
 * for them. Every system call on processes is the platform's, below replay_proc.c (a fork
 * on POSIX; on Windows the program started again); nothing here knows units or records
 * (replay_sched.c gives the work through callbacks).
 *
 * The loop looks at the rings when it wakes: a wake-up byte, worker output, the progress tick,
 * and every scan interval while deadlines run, so a deadline counts from at most one scan after
 * it was set. The end of the wake-up pipe says the worker is gone. Killing a worker also ends
 * an --exec command and its children (a process group, a job object), and a terminal's Ctrl-C
 * reaches only the parent, which then stops every worker itself.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay_proc.h"

#define OUT_LINE_MAX 4096u

typedef struct worker {
    replay_proc *proc; /* NULL: none */
    replay_ring *ring;
    double deadline; /* 0: none */
    char out[OUT_LINE_MAX];
    size_t out_len;
} worker;

/* The one pool of the process (a run at a time). */
static struct {
    const replay_pool_ops *ops;
    worker *w;
    replay_proc **procs; /* each slot's process for replay_proc_wait (NULL: none) */
    size_t n;
    int tick_ms;
    double scan_s;
    bool killing;
} pool;

int replay_read_full(int fd, void *buf, size_t len)
{
    uint8_t *p = buf;
    size_t got = 0;
    while (got < len) {
        ptrdiff_t n = mcz_os_read(fd, p + got, len - got);
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

bool replay_pool_stopping(void) { return mcz_os_stop_watched() != 0; }

void replay_pool_kill_all(void)
{
    pool.killing = true;
    for (size_t i = 0; i < pool.n; i++)
        if (pool.w[i].proc)
            mcz_os_worker_kill(pool.w[i].proc);
}

void replay_pool_send(size_t slot, const void *buf, size_t len)
{
    if (pool.w[slot].proc)
        (void)mcz_os_worker_send(pool.w[slot].proc, buf, len);
}

void replay_pool_close_input(size_t slot)
{
    if (pool.w[slot].proc)
        mcz_os_worker_close_input(pool.w[slot].proc);
}

void replay_pool_deadline(size_t slot, double when) { pool.w[slot].deadline = when; }

int replay_pool_start(size_t slot)
{
    worker *w = &pool.w[slot];
    assert(!w->proc);
    w->proc = replay_proc_start(slot, pool.ops);
    if (!w->proc)
        return MCZ_EIO;
    w->ring = mcz_os_worker_shared(w->proc);
    w->deadline = 0;
    w->out_len = 0;
    return MCZ_OK;
}

/* Takes the worker's wake-up bytes, then has its ring drained; false once the worker is gone
 * (and everything it wrote has been taken). */
static bool drain(size_t slot)
{
    worker *w = &pool.w[slot];
    bool open = mcz_os_worker_wakeups(w->proc);
    if (w->ring)
        pool.ops->drain(pool.ops->arg, slot, w->ring);
    return open;
}

/* Copies a worker's output to stderr a whole line at a time, so lines never interleave. */
static void emit_output(worker *w, bool all)
{
    size_t start = 0;
    for (size_t i = 0; i < w->out_len; i++) {
        if (w->out[i] == '\n') {
            replay_progress_clear();
            fwrite(w->out + start, 1, i + 1 - start, stderr);
            start = i + 1;
        }
    }
    if (start == 0 && (all || w->out_len == sizeof w->out) && w->out_len > 0) {
        replay_progress_clear();
        fwrite(w->out, 1, w->out_len, stderr);
        fputc('\n', stderr);
        start = w->out_len;
    }
    memmove(w->out, w->out + start, w->out_len - start);
    w->out_len -= start;
}

static void read_output(worker *w)
{
    for (;;) {
        long n = mcz_os_worker_output(w->proc, w->out + w->out_len, sizeof w->out - w->out_len);
        if (n < 0)
            return;
        if (n == 0) {
            emit_output(w, true);
            return;
        }
        w->out_len += (size_t)n;
        emit_output(w, false);
    }
}

/* After a worker ended: collect what it said and tell the scheduler (status -1: lost). */
static void reap(size_t slot, bool killed)
{
    worker *w = &pool.w[slot];
    char how[128];
    int status = replay_proc_reap(w->proc, how, sizeof how);
    (void)drain(slot);
    if (mcz_os_worker_output_open(w->proc))
        read_output(w);
    emit_output(w, true);
    mcz_os_worker_free(&w->proc);
    w->ring = NULL;
    w->deadline = 0;
    pool.ops->ended(pool.ops->arg, slot, status, how, killed);
}

static int wait_timeout_ms(void)
{
    double next = 0;
    for (size_t i = 0; i < pool.n; i++) {
        const worker *w = &pool.w[i];
        if (w->proc && w->deadline > 0 && (next == 0 || w->deadline < next))
            next = w->deadline;
    }
    int ms = pool.tick_ms > 0 ? pool.tick_ms : -1;
    int scan_ms = (int)(pool.scan_s * 1000.0);
    if (pool.scan_s > 0) /* a deadline set in a ring is seen at the next scan */
        ms = ms < 0 || scan_ms < ms ? scan_ms : ms;
    if (next > 0) {
        double wait = (next - tool_now()) * 1000.0 + 1;
        int wait_ms = wait < 0 ? 0 : wait > 60000 ? 60000 : (int)wait;
        if (ms < 0 || wait_ms < ms)
            ms = wait_ms;
    }
    return ms;
}

static void check_deadlines(void)
{
    double now = tool_now();
    for (size_t i = 0; i < pool.n; i++) {
        worker *w = &pool.w[i];
        if (!w->proc || w->deadline <= 0 || now < w->deadline || pool.killing)
            continue;
        if (!drain(i)) { /* a result may have arrived meanwhile */
            reap(i, false);
            continue;
        }
        if (w->deadline <= 0 || now < w->deadline)
            continue;
        pool.ops->overdue(pool.ops->arg, i);
        mcz_os_worker_kill(w->proc);
        reap(i, true);
    }
}

static size_t live_workers(void)
{
    size_t n = 0;
    for (size_t i = 0; i < pool.n; i++)
        n += pool.w[i].proc != NULL;
    return n;
}

/* Waits for output, a wake-up, a deadline or a scan, and handles what came; then drains every
 * worker's ring. Returns false when the wait itself failed (why set). */
static bool wait_once(char *why, size_t cap)
{
    for (size_t i = 0; i < pool.n; i++)
        pool.procs[i] = pool.w[i].proc;
    if (replay_proc_wait(pool.procs, pool.n, wait_timeout_ms(), why, cap) != MCZ_OK)
        return false;
    /* Output first, so a worker's last lines come out before its records are acted on. */
    for (size_t i = 0; i < pool.n; i++) {
        worker *w = &pool.w[i];
        if (w->proc && (mcz_os_worker_events(w->proc) & MCZ_OS_WORKER_OUTPUT) &&
            mcz_os_worker_output_open(w->proc))
            read_output(w);
    }
    for (size_t i = 0; i < pool.n; i++) {
        worker *w = &pool.w[i];
        if (w->proc && (mcz_os_worker_events(w->proc) & MCZ_OS_WORKER_WAKE) && !drain(i))
            reap(i, false);
    }
    for (size_t i = 0; i < pool.n; i++)
        if (pool.w[i].proc && pool.w[i].ring)
            pool.ops->drain(pool.ops->arg, i, pool.w[i].ring);
    return true;
}

static int start_all(size_t *slots, bool few_ok)
{
    for (size_t i = 0; i < *slots; i++) {
        if (replay_pool_start(i) == MCZ_OK)
            continue;
        if (i == 0 || !few_ok)
            return MCZ_EIO;
        tool_warn("running %zu workers: %s", i, strerror(errno));
        *slots = pool.n = i;
    }
    return MCZ_OK;
}

static int run_loop(int *stopped, char *why, size_t cap)
{
    int rc = MCZ_OK;
    while (live_workers() > 0) {
        if (mcz_os_stop_watched() && !*stopped) {
            *stopped = mcz_os_stop_watched();
            replay_pool_kill_all();
        }
        if (!wait_once(why, cap)) {
            rc = MCZ_EIO;
            replay_pool_kill_all();
            for (size_t i = 0; i < pool.n; i++)
                if (pool.w[i].proc)
                    reap(i, false);
            break;
        }
        check_deadlines();
        pool.ops->tick(pool.ops->arg);
    }
    return rc;
}

int replay_pool_run(size_t *slots, bool few_ok, int tick_ms, double scan_s,
                    const replay_pool_ops *ops, int *stop_sig, char *why, size_t cap)
{
    *stop_sig = 0;
    size_t worker_slot;
    int req_fd;
    replay_chan ch;
    if (replay_proc_attach(&worker_slot, &req_fd, &ch))
        ops->child(ops->arg, worker_slot, req_fd, &ch); /* a worker started again: its work */
    worker *w = calloc(*slots, sizeof *w);
    replay_proc **procs = calloc(*slots, sizeof *procs);
    if (!w || !procs) {
        free(w);
        free(procs);
        return MCZ_ENOMEM;
    }
    pool.ops = ops;
    pool.w = w;
    pool.procs = procs;
    pool.n = *slots;
    pool.tick_ms = tick_ms;
    pool.scan_s = scan_s;
    pool.killing = false;
    mcz_os_stop_watch_begin();
    int rc = start_all(slots, few_ok);
    if (rc == MCZ_OK)
        rc = run_loop(stop_sig, why, cap);
    else
        snprintf(why, cap, "cannot start a worker: %s", strerror(errno));
    if (rc != MCZ_OK)
        replay_pool_kill_all();
    for (size_t i = 0; i < pool.n; i++)
        if (w[i].proc)
            reap(i, false);
    mcz_os_stop_watch_end();
    free(w);
    free(procs);
    memset(&pool, 0, sizeof pool);
    return rc;
}
