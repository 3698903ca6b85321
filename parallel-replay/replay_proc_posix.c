/*
 * replay_proc_posix.c - mcz-replay's worker processes on POSIX systems: every fork, pipe, poll,
 * wait and kill of the pool (replay_pool.c) and of --exec commands is here. Compiled on every
 * system, empty on Windows (replay_proc_win32.c).
 *
 * Each worker has three pipes (requests from the parent, wake-ups to it, its stdout and stderr)
 * and a fresh shared ring (replay_ring.c), mapped before the fork. Every worker leads its own
 * process group, so killing the group also ends an --exec command and its children, and a
 * terminal's Ctrl-C reaches only the parent.
 */
#ifndef _WIN32
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay_proc.h"

extern char **environ;

struct replay_proc {
    pid_t pid;
    int req_fd, msg_fd, out_fd;
    replay_ring *ring;
    unsigned events;               /* REPLAY_PROC_*, from the last wait */
    replay_proc *prev, *next;      /* the started ones: closed in each new child */
};

static replay_proc *started;
static pid_t parent;
static volatile sig_atomic_t stop_signal;
static struct sigaction old_actions[4];
static struct pollfd *poll_fds; /* the last wait's, grown as needed */
static replay_proc **poll_owner;
static size_t poll_cap;

static void on_stop_signal(int sig) { stop_signal = sig; }

int replay_proc_stop_signal(void) { return stop_signal; }

bool replay_proc_attach(size_t *slot, int *req_fd, replay_chan *ch)
{
    (void)slot, (void)req_fd, (void)ch;
    return false;
}

bool replay_proc_workers_share_input(void) { return true; }

bool replay_proc_is_worker(void) { return false; }

const char *replay_proc_worker_temp_dir(void) { return NULL; }

replay_ring *replay_proc_ring(const replay_proc *p) { return p->ring; }

unsigned replay_proc_events(const replay_proc *p) { return p->events; }

bool replay_proc_output_open(const replay_proc *p) { return p->out_fd >= 0; }

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

/* A zero-filled ring in memory a forked child shares (MAP_SHARED); NULL when no mapping can be
 * made. */
static replay_ring *replay_ring_map(void)
{
    void *p = mmap(NULL, replay_ring_bytes(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void replay_ring_unmap(replay_ring **g)
{
    if (*g)
        munmap(*g, replay_ring_bytes());
    *g = NULL;
}

void replay_proc_kill(replay_proc *p)
{
    kill(-p->pid, SIGKILL);
    kill(p->pid, SIGKILL);
}

int replay_proc_send(replay_proc *p, const void *buf, size_t len)
{
    return mcz_os_write_all(p->req_fd, buf, len) == MCZ_OK ? 0 : -1;
}

void replay_proc_close_input(replay_proc *p) { close_fd(&p->req_fd); }

static _Noreturn void child_main(size_t slot, const replay_pool_ops *ops, replay_ring *ring,
                                 int req_fd, int msg_fd, int out_fd)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(REPLAY_EXIT_GENERAL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (replay_proc *p = started; p; p = p->next) {
        close_fd(&p->req_fd);
        close_fd(&p->msg_fd);
        close_fd(&p->out_fd);
        replay_ring_unmap(&p->ring); /* a wild write must not reach other rings */
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
    replay_chan ch = {msg_fd, ring, -1, NULL};
    ops->child(ops->arg, slot, req_fd, &ch);
    _exit(REPLAY_EXIT_GENERAL);
}

/*
 * What the parent freed before the fork (the reader it planned with: an archive's index and hash
 * columns, about 40 bytes a context) glibc keeps in its heap, and a fork hands every worker those
 * pages: 10 MiB at 250,000 contexts in the parent for the whole run and in each worker's count.
 * Returned to the system before each fork (mcz_os_heap_trim), a worker's heap is what it allocates itself
 * (bench/FIGURES.md §11). Other C libraries return large blocks when they are freed.
 */

replay_proc *replay_proc_start(size_t slot, const replay_pool_ops *ops)
{
    enum { REQ, MSG, OUT, PIPES };
    int fds[PIPES][2];
    for (size_t i = 0; i < PIPES; i++) {
        if (pipe2(fds[i], O_CLOEXEC) != 0) {
            close_pipes(fds, i);
            return NULL;
        }
    }
    replay_proc *p = calloc(1, sizeof *p);
    replay_ring *ring = p ? replay_ring_map() : NULL;
    if (!ring) {
        close_pipes(fds, PIPES);
        free(p);
        errno = ENOMEM;
        return NULL;
    }
    fflush(NULL);
    mcz_os_heap_trim();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[REQ][1]), close(fds[MSG][0]), close(fds[OUT][0]);
        child_main(slot, ops, ring, fds[REQ][0], fds[MSG][1], fds[OUT][1]);
    }
    if (pid < 0) {
        close_pipes(fds, PIPES);
        replay_ring_unmap(&ring);
        free(p);
        return NULL;
    }
    close(fds[REQ][0]), close(fds[MSG][1]), close(fds[OUT][1]);
    setpgid(pid, pid); /* also done by the child: whichever runs first wins the race */
    fcntl(fds[MSG][0], F_SETFL, O_NONBLOCK);
    fcntl(fds[OUT][0], F_SETFL, O_NONBLOCK);
    *p = (replay_proc){pid, fds[REQ][1], fds[MSG][0], fds[OUT][0], ring, 0, NULL, started};
    if (started)
        started->prev = p;
    started = p;
    return p;
}

bool replay_proc_wakeups(replay_proc *p)
{
    uint8_t bytes[256];
    for (;;) {
        ssize_t n = read(p->msg_fd, bytes, sizeof bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
}

long replay_proc_output(replay_proc *p, char *buf, size_t cap)
{
    for (;;) {
        ssize_t n = read(p->out_fd, buf, cap);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return -1;
        if (n <= 0)
            close_fd(&p->out_fd);
        return n < 0 ? 0 : (long)n;
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

int replay_proc_reap(replay_proc *p, char *how, size_t cap)
{
    int status = 0;
    bool waited = wait_pid(p->pid, &status) == MCZ_OK;
    describe_death(status, how, cap);
    return waited ? exit_code(status) : -1;
}

void replay_proc_free(replay_proc **pp)
{
    replay_proc *p = *pp;
    if (!p)
        return;
    close_fd(&p->msg_fd);
    close_fd(&p->out_fd);
    close_fd(&p->req_fd);
    replay_ring_unmap(&p->ring);
    if (p->prev)
        p->prev->next = p->next;
    else
        started = p->next;
    if (p->next)
        p->next->prev = p->prev;
    free(p);
    *pp = NULL;
}

/* Room for two descriptors of each of n workers. */
static int poll_room(size_t n)
{
    if (2 * n <= poll_cap)
        return MCZ_OK;
    struct pollfd *fds = realloc(poll_fds, 2 * n * sizeof *fds);
    if (fds)
        poll_fds = fds;
    replay_proc **owner = fds ? realloc(poll_owner, 2 * n * sizeof *owner) : NULL;
    if (!owner)
        return MCZ_ENOMEM;
    poll_owner = owner;
    poll_cap = 2 * n;
    return MCZ_OK;
}

/* Only live descriptors are polled (poll() refuses more entries than the descriptor limit). */
int replay_proc_wait(replay_proc *const *procs, size_t n, int timeout_ms, char *why,
                     size_t cap)
{
    if (poll_room(n) != MCZ_OK) {
        snprintf(why, cap, "out of memory");
        return MCZ_EIO;
    }
    size_t nfds = 0;
    for (size_t i = 0; i < n; i++) {
        replay_proc *p = procs[i];
        if (!p)
            continue;
        p->events = 0;
        poll_fds[nfds] = (struct pollfd){.fd = p->msg_fd, .events = POLLIN};
        poll_owner[nfds++] = p;
        if (p->out_fd >= 0) {
            poll_fds[nfds] = (struct pollfd){.fd = p->out_fd, .events = POLLIN};
            poll_owner[nfds++] = p;
        }
    }
    int got = poll(poll_fds, nfds, timeout_ms);
    if (got < 0 && errno != EINTR) { /* EINTR: a stop signal, looked at by the caller */
        snprintf(why, cap, "poll: %s", strerror(errno));
        return MCZ_EIO;
    }
    for (size_t k = 0; k < nfds && got > 0; k++)
        if (poll_fds[k].revents)
            poll_owner[k]->events |= poll_fds[k].fd == poll_owner[k]->msg_fd
                                         ? REPLAY_PROC_WAKE : REPLAY_PROC_OUTPUT;
    return MCZ_OK;
}

/* A pipe must never land on 0, 1 or 2, which each worker redirects: keep them open. */
static void standard_fds_open(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return;
}

void replay_proc_run_begin(void)
{
    standard_fds_open();
    parent = getpid();
    stop_signal = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal; /* no SA_RESTART: poll() returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_actions[0]);
    sigaction(SIGTERM, &sa, &old_actions[1]);
    sigaction(SIGHUP, &sa, &old_actions[3]);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old_actions[2]);
}

void replay_proc_run_end(void)
{
    sigaction(SIGINT, &old_actions[0], NULL);
    sigaction(SIGTERM, &old_actions[1], NULL);
    sigaction(SIGPIPE, &old_actions[2], NULL);
    sigaction(SIGHUP, &old_actions[3], NULL);
    free(poll_fds);
    free(poll_owner);
    poll_fds = NULL;
    poll_owner = NULL;
    poll_cap = 0;
}

double replay_proc_cpu_seconds(bool workers)
{
    struct rusage u;
    if (getrusage(workers ? RUSAGE_CHILDREN : RUSAGE_SELF, &u) != 0)
        return 0;
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* Points descriptor fd at a new file path (NULL: leaves it); false when it cannot. */
/* The command's stdout or stderr to a new file at path (NULL: this process's). */
static int redirect(posix_spawn_file_actions_t *fa, int fd, const char *path)
{
    return path ? posix_spawn_file_actions_addopen(fa, fd, path, O_WRONLY | O_CREAT | O_TRUNC,
                                                   0600)
                : 0;
}

/* posix_spawnp rather than fork: a worker holds its decoded unit and the collection's
 * mapping, which a fork would have the kernel copy the page tables of, once per command. An
 * exec that fails (no such file, not executable, a file that cannot be opened for the output)
 * is posix_spawnp's error. */
int replay_proc_command_start(char *const argv[], const char *out_path, const char *err_path,
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

int replay_proc_command_wait(int64_t handle)
{
    int status;
    if (wait_pid((pid_t)handle, &status) != MCZ_OK)
        return MCZ_EIO;
    return exit_code(status);
}

bool replay_proc_readable(int fd, int wait_ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    int rc;
    while ((rc = poll(&p, 1, wait_ms)) < 0 && errno == EINTR)
        ;
    return rc == 1 && (p.revents & POLLIN);
}

/* ---- The system beside processes ---- */

void *replay_os_library_open(const char *path, char *msg, size_t cap)
{
    /* dlopen() searches the library path for a bare name; a plugin is a file the user names. */
    char local[4096];
    if (!strchr(path, '/')) {
        snprintf(local, sizeof local, "./%s", path);
        path = local;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        snprintf(msg, cap, "cannot load plugin: %s", dlerror());
    return lib;
}

void *replay_os_library_symbol(void *lib, const char *name) { return dlsym(lib, name); }

void replay_os_library_close(void *lib) { dlclose(lib); }
#endif /* !_WIN32 */
