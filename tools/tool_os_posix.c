/*
 * tool_os_posix.c - tool.h's section "The operating system" and the signal handlers, for
 * POSIX systems. Empty on Windows, where tool_os_win32.c implements the same functions (as
 * io/os_posix.c and io/os_win32.c share io/platform.h).
 */
#ifndef _WIN32
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool_os.h"

ssize_t tool_getline(char **line, size_t *cap, FILE *f)
{
    return getline(line, cap, f);
}

long tool_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? n : 1;
}

/* ---- Streams ---- */

typedef struct write_cookie {
    tool_stream_write_fn write;
    void *cookie;
} write_cookie;

static ssize_t cookie_write(void *c, const char *buf, size_t len)
{
    const write_cookie *w = c;
    return w->write(w->cookie, buf, len);
}

static int cookie_close(void *c)
{
    free(c);
    return 0;
}

FILE *tool_stream_open(tool_stream_write_fn write, void *cookie)
{
    write_cookie *w = malloc(sizeof *w);
    if (!w)
        return NULL;
    *w = (write_cookie){write, cookie};
    cookie_io_functions_t io = {.write = cookie_write, .close = cookie_close};
    FILE *f = fopencookie(w, "w", io);
    if (!f)
        free(w);
    return f;
}

FILE *tool_memstream_open(char **text, size_t *len)
{
    return open_memstream(text, len);
}

int tool_stream_close(FILE *f)
{
    return fclose(f);
}

/* ---- Directories ---- */

struct tool_os_dir {
    DIR *d;
};

tool_os_dir *tool_os_dir_open(const char *dir)
{
    tool_os_dir *d = malloc(sizeof *d);
    if (!d)
        return NULL;
    d->d = opendir(dir);
    if (!d->d) {
        int err = errno;
        free(d);
        errno = err;
        return NULL;
    }
    return d;
}

const char *tool_os_dir_next(tool_os_dir *d)
{
    errno = 0;
    struct dirent *e = readdir(d->d);
    return e ? e->d_name : NULL;
}

void tool_os_dir_close(tool_os_dir *d)
{
    closedir(d->d);
    free(d);
}

bool tool_glob_match(const char *glob, const char *name)
{
    return fnmatch(glob, name, FNM_PERIOD) == 0;
}

/* ---- Files ---- */

void tool_stdio_binary(void)
{
}

bool tool_stdout_is_pipe(void)
{
    struct stat st;
    return fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

bool tool_stdout_reader_gone(void)
{
    /* The write end of a pipe without a reader polls as an error (POLLERR), at once. */
    struct pollfd p = {STDOUT_FILENO, POLLOUT, 0};
    return tool_stdout_is_pipe() && poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

static void file_id_of_stat(const struct stat *st, tool_file_id *id)
{
    id->volume = (uint64_t)st->st_dev;
    id->file = (uint64_t)st->st_ino;
}

int tool_file_id_of(const char *path, tool_file_id *id)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    file_id_of_stat(&st, id);
    return 0;
}

int tool_file_id_of_fd(int fd, tool_file_id *id)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    file_id_of_stat(&st, id);
    return 0;
}

bool tool_is_directory_not_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int tool_fsync(int fd)
{
    /* A pipe or terminal cannot be synced (EINVAL): nothing to do. */
    return fsync(fd) == 0 || errno == EINVAL ? 0 : -1;
}

ssize_t tool_pread(int fd, void *buf, size_t len, int64_t off)
{
    return pread(fd, buf, len, (off_t)off);
}

/* ---- Signals ---- */

static void on_signal(int sig)
{
    if (tool_undo_all() == 0 && sig == SIGPIPE)
        return; /* the write fails with EPIPE instead */
    tool_progress_abandon();
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: the process ends by sig */
}

void tool_signals_install(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* A signal the parent had ignored (nohup, a background job) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN &&
            sigs[i] != SIGPIPE)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

void tool_os_test_signal(const char *name)
{
    static const struct { const char *name; int sig; } names[] = {
        {"INT", SIGINT}, {"TERM", SIGTERM}, {"HUP", SIGHUP}, {"PIPE", SIGPIPE}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].name) == 0)
            raise(names[i].sig);
}

/* ---- Temporary directories, the environment ---- */

const char *tool_temp_base(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && tmp[0] ? tmp : "/tmp";
}

char *tool_mkdtemp(char *tmpl) { return mkdtemp(tmpl); }

FILE *tool_temp_file(void)
{
    char name[4096];
    if ((size_t)snprintf(name, sizeof name, "%s/mcz-temp.XXXXXX", tool_temp_base()) >=
        sizeof name) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    int fd = mkostemp(name, O_CLOEXEC);
    if (fd < 0)
        return NULL;
    unlink(name);
    FILE *f = fdopen(fd, "w+b");
    if (!f) {
        int err = errno;
        close(fd);
        errno = err;
    }
    return f;
}

int tool_mkdir_private(const char *path) { return mkdir(path, 0700); }

int tool_setenv(const char *name, const char *value) { return setenv(name, value, 1); }

void *tool_job_kill_on_close(void) { return NULL; }

#endif /* !_WIN32 */
