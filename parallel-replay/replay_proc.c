/*
 * replay_proc.c - the process pool of mcz-replay: every fork, pipe, wait and kill is here, and
 * nothing about units or records (replay_sched.c gives the work through callbacks).
 *
 * Each worker has three pipes (requests from the parent, wake-ups to it, its stdout and stderr)
 * and a fresh shared ring (replay_ring.c). The parent looks at the rings when it wakes: a
 * wake-up byte, worker output, the progress tick, and every scan interval while deadlines run,
 * so a deadline counts from at most one scan after it was set. The end of the wake-up pipe says
 * the worker is gone. Every worker leads its own process group, so killing the group also ends
 * an --exec command and its children, and a terminal's Ctrl-C reaches only the parent, which
 * then stops every worker itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay_proc.h"

#define OUT_LINE_MAX 4096u

typedef struct worker {
    pid_t pid; /* 0: none */
    int req_fd, msg_fd, out_fd;
    replay_ring *ring;
    double deadline; /* 0: none */
    char out[OUT_LINE_MAX];
    size_t out_len;
} worker;

/* The one pool of the process (a run at a time). */
static struct {
    const replay_pool_ops *ops;
    worker *w;
    size_t n;
    int tick_ms;
    double scan_s;
    pid_t parent;
    bool killing;
} pool;

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

int replay_read_full(int fd, void *buf, size_t len)
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

static void close_pipes(int (*fds)[2], size_t n)
{
    int err = errno;
    for (size_t i = 0; i < n; i++)
        close(fds[i][0]), close(fds[i][1]);
    errno = err;
}

static void kill_worker(const worker *w)
{
    kill(-w->pid, SIGKILL);
    kill(w->pid, SIGKILL);
}

bool replay_pool_stopping(void) { return stop_signal != 0; }

void replay_pool_kill_all(void)
{
    pool.killing = true;
    for (size_t i = 0; i < pool.n; i++)
        if (pool.w[i].pid > 0)
            kill_worker(&pool.w[i]);
}

void replay_pool_send(size_t slot, const void *buf, size_t len)
{
    (void)tool_write_all(pool.w[slot].req_fd, buf, len);
}

void replay_pool_close_input(size_t slot) { close_fd(&pool.w[slot].req_fd); }

void replay_pool_deadline(size_t slot, double when) { pool.w[slot].deadline = when; }

static _Noreturn void child_main(size_t slot, int req_fd, int msg_fd, int out_fd)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != pool.parent)
        _exit(REPLAY_EXIT_GENERAL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (size_t i = 0; i < pool.n; i++) {
        close_fd(&pool.w[i].req_fd);
        close_fd(&pool.w[i].msg_fd);
        close_fd(&pool.w[i].out_fd);
        if (i != slot)
            replay_ring_unmap(&pool.w[i].ring); /* a wild write must not reach other rings */
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
    replay_chan ch = {msg_fd, pool.w[slot].ring, -1, NULL};
    pool.ops->child(pool.ops->arg, slot, req_fd, &ch);
    _exit(REPLAY_EXIT_GENERAL);
}

int replay_pool_start(size_t slot)
{
    worker *w = &pool.w[slot];
    enum { REQ, MSG, OUT, PIPES };
    int fds[PIPES][2];
    for (size_t i = 0; i < PIPES; i++) {
        if (pipe2(fds[i], O_CLOEXEC) != 0) {
            close_pipes(fds, i);
            return MCZ_EIO;
        }
    }
    w->ring = replay_ring_map();
    if (!w->ring) {
        close_pipes(fds, PIPES);
        return MCZ_EIO;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[REQ][1]), close(fds[MSG][0]), close(fds[OUT][0]);
        child_main(slot, fds[REQ][0], fds[MSG][1], fds[OUT][1]);
    }
    if (pid < 0) {
        close_pipes(fds, PIPES);
        replay_ring_unmap(&w->ring);
        return MCZ_EIO;
    }
    close(fds[REQ][0]), close(fds[MSG][1]), close(fds[OUT][1]);
    setpgid(pid, pid); /* also done by the child: whichever runs first wins the race */
    fcntl(fds[MSG][0], F_SETFL, O_NONBLOCK);
    fcntl(fds[OUT][0], F_SETFL, O_NONBLOCK);
    w->pid = pid;
    w->req_fd = fds[REQ][1];
    w->msg_fd = fds[MSG][0];
    w->out_fd = fds[OUT][0];
    w->deadline = 0;
    w->out_len = 0;
    return MCZ_OK;
}

/* Reads the worker's wake-up bytes, then has its ring drained; false at the end of the pipe
 * (the worker is gone, and everything it wrote has been taken). */
static bool drain(size_t slot)
{
    worker *w = &pool.w[slot];
    uint8_t bytes[256];
    bool open = true;
    for (;;) {
        ssize_t n = read(w->msg_fd, bytes, sizeof bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            open = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
            break;
        }
    }
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
        ssize_t n = read(w->out_fd, w->out + w->out_len, sizeof w->out - w->out_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                emit_output(w, true);
                close_fd(&w->out_fd);
            }
            return;
        }
        w->out_len += (size_t)n;
        emit_output(w, false);
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

/* After a worker ended: collect what it said and tell the scheduler (status -1: lost). */
static void reap(size_t slot, bool killed)
{
    worker *w = &pool.w[slot];
    int status = 0;
    bool waited = wait_pid(w->pid, &status) == MCZ_OK;
    (void)drain(slot);
    if (w->out_fd >= 0)
        read_output(w);
    emit_output(w, true);
    close_fd(&w->msg_fd);
    close_fd(&w->out_fd);
    close_fd(&w->req_fd);
    replay_ring_unmap(&w->ring);
    w->pid = 0;
    w->deadline = 0;
    char how[128];
    describe_death(status, how, sizeof how);
    pool.ops->ended(pool.ops->arg, slot, waited ? exit_code(status) : -1, how, killed);
}

static int poll_timeout_ms(void)
{
    double next = 0;
    for (size_t i = 0; i < pool.n; i++) {
        const worker *w = &pool.w[i];
        if (w->pid > 0 && w->deadline > 0 && (next == 0 || w->deadline < next))
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
        if (w->pid <= 0 || w->deadline <= 0 || now < w->deadline || pool.killing)
            continue;
        if (!drain(i)) { /* a result may have arrived meanwhile */
            reap(i, false);
            continue;
        }
        if (w->deadline <= 0 || now < w->deadline)
            continue;
        pool.ops->overdue(pool.ops->arg, i);
        kill_worker(w);
        reap(i, true);
    }
}

static size_t live_workers(void)
{
    size_t n = 0;
    for (size_t i = 0; i < pool.n; i++)
        n += pool.w[i].pid > 0;
    return n;
}

/* Waits for output, a wake-up, a deadline or a scan, and handles what came; then drains every
 * worker's ring. Only live descriptors are polled (poll() refuses more entries than the
 * descriptor limit). Returns false when poll itself failed (why set). */
static bool poll_once(struct pollfd *fds, size_t *owner, char *why, size_t cap)
{
    size_t nfds = 0;
    for (size_t i = 0; i < pool.n; i++) {
        const worker *w = &pool.w[i];
        if (w->pid <= 0)
            continue;
        fds[nfds] = (struct pollfd){.fd = w->msg_fd, .events = POLLIN};
        owner[nfds++] = 2 * i;
        if (w->out_fd >= 0) {
            fds[nfds] = (struct pollfd){.fd = w->out_fd, .events = POLLIN};
            owner[nfds++] = 2 * i + 1;
        }
    }
    int n = poll(fds, nfds, poll_timeout_ms());
    if (n < 0 && errno != EINTR) { /* EINTR: a stop signal, looked at by the caller */
        snprintf(why, cap, "poll: %s", strerror(errno));
        return false;
    }
    /* Output first, so a worker's last lines come out before its records are acted on. */
    for (size_t k = 0; k < nfds && n > 0; k++) {
        worker *w = &pool.w[owner[k] / 2];
        if (fds[k].revents && owner[k] % 2 == 1 && w->out_fd == fds[k].fd)
            read_output(w);
    }
    for (size_t k = 0; k < nfds && n > 0; k++) {
        size_t i = owner[k] / 2;
        worker *w = &pool.w[i];
        if (fds[k].revents && owner[k] % 2 == 0 && w->pid > 0 && w->msg_fd == fds[k].fd &&
            !drain(i))
            reap(i, false);
    }
    for (size_t i = 0; i < pool.n; i++)
        if (pool.w[i].pid > 0 && pool.w[i].ring)
            pool.ops->drain(pool.ops->arg, i, pool.w[i].ring);
    return true;
}

static void signals_install(struct sigaction old[4])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal; /* no SA_RESTART: poll() returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
    sigaction(SIGHUP, &sa, &old[3]);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old[2]);
}

static void signals_restore(const struct sigaction old[4])
{
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    sigaction(SIGPIPE, &old[2], NULL);
    sigaction(SIGHUP, &old[3], NULL);
}

/* A pipe must never land on 0, 1 or 2, which each worker redirects: keep them open. */
static void standard_fds_open(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return;
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
    struct pollfd *fds = calloc(2 * pool.n, sizeof *fds);
    size_t *owner = calloc(2 * pool.n, sizeof *owner);
    int rc = fds && owner ? MCZ_OK : MCZ_ENOMEM;
    while (rc == MCZ_OK && live_workers() > 0) {
        if (stop_signal && !*stopped) {
            *stopped = stop_signal;
            replay_pool_kill_all();
        }
        if (!poll_once(fds, owner, why, cap)) {
            rc = MCZ_EIO;
            replay_pool_kill_all();
            for (size_t i = 0; i < pool.n; i++)
                if (pool.w[i].pid > 0)
                    reap(i, false);
            break;
        }
        check_deadlines();
        pool.ops->tick(pool.ops->arg);
    }
    free(fds);
    free(owner);
    return rc;
}

int replay_pool_run(size_t *slots, bool few_ok, int tick_ms, double scan_s,
                    const replay_pool_ops *ops, int *stop_sig, char *why, size_t cap)
{
    *stop_sig = 0;
    standard_fds_open();
    worker *w = calloc(*slots, sizeof *w);
    if (!w)
        return MCZ_ENOMEM;
    for (size_t i = 0; i < *slots; i++)
        w[i].req_fd = w[i].msg_fd = w[i].out_fd = -1;
    pool.ops = ops;
    pool.w = w;
    pool.n = *slots;
    pool.tick_ms = tick_ms;
    pool.scan_s = scan_s;
    pool.parent = getpid();
    pool.killing = false;
    struct sigaction old[4];
    stop_signal = 0;
    signals_install(old);
    int rc = start_all(slots, few_ok);
    if (rc == MCZ_OK)
        rc = run_loop(stop_sig, why, cap);
    else
        snprintf(why, cap, "cannot start a worker: %s", strerror(errno));
    if (rc != MCZ_OK)
        replay_pool_kill_all();
    for (size_t i = 0; i < pool.n; i++)
        if (w[i].pid > 0)
            reap(i, false);
    signals_restore(old);
    free(w);
    memset(&pool, 0, sizeof pool);
    return rc;
}

/* Points descriptor fd at a new file path (NULL: leaves it); false when it cannot. */
static bool redirect(int fd, const char *path)
{
    if (!path)
        return true;
    int to = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    bool ok = to >= 0 && dup2(to, fd) == fd;
    if (to >= 0)
        close(to);
    return ok;
}

/* The child's side of replay_proc_command: the exec, or its errno on the status pipe. */
static _Noreturn void command_child(char *const argv[], const char *out_path,
                                    const char *err_path, int status_fd)
{
    if (redirect(1, out_path) && redirect(2, err_path))
        execvp(argv[0], argv);
    int err = errno;
    (void)tool_write_all(status_fd, &err, sizeof err);
    _exit(127);
}

int replay_proc_command(char *const argv[], const char *out_path, const char *err_path,
                        int *exec_errno)
{
    *exec_errno = 0;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return MCZ_EIO;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        command_child(argv, out_path, err_path, fds[1]);
    }
    if (pid < 0) {
        close_pipes(&fds, 1);
        return MCZ_EIO;
    }
    close(fds[1]);
    /* The exec closes the pipe (CLOEXEC): end of file means the command started. */
    int err = 0;
    bool failed = replay_read_full(fds[0], &err, sizeof err) == 1;
    close(fds[0]);
    int status;
    if (wait_pid(pid, &status) != MCZ_OK)
        return MCZ_EIO;
    if (failed)
        *exec_errno = err > 0 ? err : ENOEXEC;
    return exit_code(status);
}
