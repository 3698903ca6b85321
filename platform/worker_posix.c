/*
 * worker_posix.c - platform/worker.h for POSIX systems: workers forked, each with three pipes
 * and a region of anonymous shared memory mapped before the fork; platform/worker_win32.c is
 * Windows'.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "mcz_common.h"
#include "platform.h"
#include "worker.h"

extern char **environ;

struct mcz_os_worker {
    pid_t pid;
    int req_fd, msg_fd, out_fd; /* the parent's ends; -1: closed */
    void *shared;
    size_t shared_bytes;
    unsigned events;                /* MCZ_OS_WORKER_*, from the last wait */
    mcz_os_worker *prev, *next;     /* the started ones: closed in each new child */
};

static mcz_os_worker *started;

/* ---- Stop signals watched ---- */

static volatile sig_atomic_t stop_signal;
static const int watched[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
static struct sigaction watched_before[sizeof watched / sizeof watched[0]];

static void on_stop_signal(int sig) { stop_signal = sig; }

void mcz_os_stop_watch_begin(void)
{
    stop_signal = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++) {
        /* no SA_RESTART: a blocking call (poll, read) returns EINTR */
        sa.sa_handler = watched[i] == SIGPIPE ? SIG_IGN : on_stop_signal;
        sigaction(watched[i], &sa, &watched_before[i]);
    }
}

void mcz_os_stop_watch_end(void)
{
    for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++)
        sigaction(watched[i], &watched_before[i], NULL);
}

int mcz_os_stop_watched(void) { return stop_signal; }

/* ---- Worker processes ---- */

bool mcz_os_workers_fork(void) { return true; }
bool mcz_os_worker_started_again(void) { return false; }
const char *mcz_os_worker_note(void) { return NULL; }

bool mcz_os_worker_attach(mcz_os_worker_self *self)
{
    (void)self;
    return false;
}

void *mcz_os_worker_shared(const mcz_os_worker *w) { return w->shared; }
unsigned mcz_os_worker_events(const mcz_os_worker *w) { return w->events; }
bool mcz_os_worker_output_open(const mcz_os_worker *w) { return w->out_fd >= 0; }

static int wait_pid(pid_t pid, int *status)
{
    for (;;) {
        if (waitpid(pid, status, 0) == pid)
            return 0;
        if (errno != EINTR)
            return -1;
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

static void unmap(void **shared, size_t bytes)
{
    if (*shared)
        munmap(*shared, bytes);
    *shared = NULL;
}

/* A pipe must never land on 0, 1 or 2, which each worker redirects: keep them open. */
static void standard_fds_open(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return;
}

static _Noreturn void child_main(pid_t parent, mcz_os_worker_self *self, int out_fd,
                                 mcz_os_worker_fn fn, void *arg)
{
    setpgid(0, 0);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    if (getppid() != parent)
        _exit(255);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (mcz_os_worker *w = started; w; w = w->next) {
        close_fd(&w->req_fd);
        close_fd(&w->msg_fd);
        close_fd(&w->out_fd);
        unmap(&w->shared, w->shared_bytes); /* a wild write must not reach other regions */
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
    fn(arg, self);
    _exit(255);
}

/*
 * What the parent freed before the fork (mcz-replay's planning reader: an archive's index and
 * hash columns, about 40 bytes a context) glibc keeps in its heap, and a fork hands every
 * worker those pages: 10 MiB at 250,000 contexts in the parent for the whole run and in each
 * worker's count. Returned to the system before each fork (mcz_os_heap_trim), a worker's heap
 * is what it allocates itself (bench/FIGURES.md §11). Other C libraries return large blocks
 * when they are freed.
 */
mcz_os_worker *mcz_os_worker_start(size_t slot, size_t shared_bytes, const char *note,
                                   mcz_os_worker_fn fn, void *arg)
{
    (void)note; /* a forked worker has the parent's memory */
    standard_fds_open();
    enum { REQ, MSG, OUT, PIPES };
    int fds[PIPES][2];
    for (size_t i = 0; i < PIPES; i++) {
        if (pipe2(fds[i], O_CLOEXEC) != 0) {
            close_pipes(fds, i);
            return NULL;
        }
    }
    mcz_os_worker *w = calloc(1, sizeof *w);
    void *shared = w ? mmap(NULL, shared_bytes, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0)
                     : MAP_FAILED;
    if (shared == MAP_FAILED) {
        close_pipes(fds, PIPES);
        free(w);
        errno = ENOMEM;
        return NULL;
    }
    pid_t parent = getpid();
    fflush(NULL);
    mcz_os_heap_trim();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[REQ][1]), close(fds[MSG][0]), close(fds[OUT][0]);
        mcz_os_worker_self self = {slot, fds[REQ][0], fds[MSG][1], shared};
        child_main(parent, &self, fds[OUT][1], fn, arg);
    }
    if (pid < 0) {
        close_pipes(fds, PIPES);
        unmap(&shared, shared_bytes);
        free(w);
        return NULL;
    }
    close(fds[REQ][0]), close(fds[MSG][1]), close(fds[OUT][1]);
    setpgid(pid, pid); /* also done by the child: whichever runs first wins the race */
    fcntl(fds[MSG][0], F_SETFL, O_NONBLOCK);
    fcntl(fds[OUT][0], F_SETFL, O_NONBLOCK);
    *w = (mcz_os_worker){pid,  fds[REQ][1], fds[MSG][0], fds[OUT][0], shared, shared_bytes,
                         0,    NULL,        started};
    if (started)
        started->prev = w;
    started = w;
    return w;
}

void mcz_os_worker_kill(mcz_os_worker *w)
{
    kill(-w->pid, SIGKILL);
    kill(w->pid, SIGKILL);
}

int mcz_os_worker_send(mcz_os_worker *w, const void *buf, size_t len)
{
    return w->req_fd >= 0 && mcz_os_write_all(w->req_fd, buf, len) == MCZ_OK ? 0 : -1;
}

void mcz_os_worker_close_input(mcz_os_worker *w) { close_fd(&w->req_fd); }

bool mcz_os_worker_wakeups(mcz_os_worker *w)
{
    uint8_t bytes[256];
    for (;;) {
        ssize_t n = read(w->msg_fd, bytes, sizeof bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
}

long mcz_os_worker_output(mcz_os_worker *w, char *buf, size_t cap)
{
    for (;;) {
        ssize_t n = read(w->out_fd, buf, cap);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return -1;
        if (n <= 0)
            close_fd(&w->out_fd);
        return n < 0 ? 0 : (long)n;
    }
}

int mcz_os_worker_reap(mcz_os_worker *w, char *how, size_t cap)
{
    int status = 0;
    bool waited = wait_pid(w->pid, &status) == 0;
    if (WIFSIGNALED(status))
        snprintf(how, cap, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(how, cap, "exited with status %d", exit_code(status));
    return waited ? exit_code(status) : -1;
}

void mcz_os_worker_free(mcz_os_worker **pw)
{
    mcz_os_worker *w = *pw;
    if (!w)
        return;
    close_fd(&w->msg_fd);
    close_fd(&w->out_fd);
    close_fd(&w->req_fd);
    unmap(&w->shared, w->shared_bytes);
    if (w->prev)
        w->prev->next = w->next;
    else
        started = w->next;
    if (w->next)
        w->next->prev = w->prev;
    free(w);
    *pw = NULL;
}

/* Only live descriptors are polled (poll() refuses more entries than the descriptor limit). */
int mcz_os_worker_wait(mcz_os_worker *const *workers, size_t n, int timeout_ms)
{
    struct pollfd *fds = malloc((2 * n + 1) * sizeof *fds);
    mcz_os_worker **owner = fds ? malloc((2 * n + 1) * sizeof *owner) : NULL;
    if (!owner) {
        free(fds);
        errno = ENOMEM;
        return -1;
    }
    nfds_t nfds = 0;
    for (size_t i = 0; i < n; i++) {
        mcz_os_worker *w = workers[i];
        if (!w)
            continue;
        w->events = 0;
        fds[nfds] = (struct pollfd){.fd = w->msg_fd, .events = POLLIN};
        owner[nfds++] = w;
        if (w->out_fd >= 0) {
            fds[nfds] = (struct pollfd){.fd = w->out_fd, .events = POLLIN};
            owner[nfds++] = w;
        }
    }
    int got = poll(fds, nfds, timeout_ms);
    int err = errno;
    for (nfds_t k = 0; k < nfds && got > 0; k++)
        if (fds[k].revents)
            owner[k]->events |= fds[k].fd == owner[k]->msg_fd ? MCZ_OS_WORKER_WAKE
                                                               : MCZ_OS_WORKER_OUTPUT;
    free(fds);
    free(owner);
    if (got < 0 && err != EINTR) { /* EINTR: a stop signal, looked at by the caller */
        errno = err;
        return -1;
    }
    return 0;
}

double mcz_os_cpu_seconds(bool children)
{
    struct rusage u;
    if (getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &u) != 0)
        return 0;
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* ---- Commands ---- */

/* The command's stdout or stderr to a new file at path (NULL: this process's). */
static int redirect(posix_spawn_file_actions_t *fa, int fd, const char *path)
{
    return path ? posix_spawn_file_actions_addopen(fa, fd, path, O_WRONLY | O_CREAT | O_TRUNC,
                                                   0600)
                : 0;
}

/* An exec that fails (no such file, not executable, a file that cannot be opened for the
 * output) is posix_spawnp's error. */
int mcz_os_command_start(char *const argv[], const char *out_path, const char *err_path,
                         int64_t *handle, int *exec_errno)
{
    *exec_errno = 0;
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return MCZ_EIO;
    int err = redirect(&fa, 1, out_path);
    if (!err)
        err = redirect(&fa, 2, err_path);
    fflush(NULL);
    pid_t pid = -1;
    if (!err)
        err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err) {
        *exec_errno = err;
        return 127;
    }
    *handle = pid;
    return MCZ_OK;
}

int mcz_os_command_wait(int64_t handle)
{
    int status;
    if (wait_pid((pid_t)handle, &status) != 0)
        return MCZ_EIO;
    return exit_code(status);
}

bool mcz_os_readable(int fd, int wait_ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    int rc;
    while ((rc = poll(&p, 1, wait_ms)) < 0 && errno == EINTR)
        ;
    return rc == 1 && (p.revents & POLLIN);
}
