/*
 * sys_posix.c - platform/platform.h's programs' part for POSIX systems: streams, directories,
 * files, the signals that end a program, temporary directories (what io/ calls too is in
 * platform/os_posix.c). Built for POSIX systems only
 * (sources.mk); platform/sys_win32.c is Windows'.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcz_common.h"
#include "platform.h"

ptrdiff_t mcz_os_getline(char **line, size_t *cap, FILE *f)
{
    return getline(line, cap, f);
}

/* ---- Streams ---- */

typedef struct write_cookie {
    mcz_os_stream_write_fn write;
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

FILE *mcz_os_stream_open(mcz_os_stream_write_fn write, void *cookie)
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

FILE *mcz_os_memstream_open(char **text, size_t *len)
{
    return open_memstream(text, len);
}

int mcz_os_stream_close(FILE *f)
{
    return fclose(f);
}

/* ---- Names ---- */

bool mcz_os_glob_match(const char *glob, const char *name)
{
    return fnmatch(glob, name, FNM_PERIOD) == 0;
}

/* ---- Files ---- */

void mcz_os_stdio_binary(void)
{
}

bool mcz_os_stdout_is_pipe(void)
{
    struct stat st;
    return fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

bool mcz_os_stdout_reader_gone(void)
{
    /* The write end of a pipe without a reader polls as an error (POLLERR), at once. */
    struct pollfd p = {STDOUT_FILENO, POLLOUT, 0};
    return mcz_os_stdout_is_pipe() && poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

static void file_id_of_stat(const struct stat *st, mcz_os_file_id *id)
{
    id->volume = (uint64_t)st->st_dev;
    id->file = (uint64_t)st->st_ino;
}

int mcz_os_file_id_of(const char *path, mcz_os_file_id *id)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    file_id_of_stat(&st, id);
    return 0;
}

int mcz_os_file_id_of_fd(int fd, mcz_os_file_id *id)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    file_id_of_stat(&st, id);
    return 0;
}

bool mcz_os_is_directory_not_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

ptrdiff_t mcz_os_write(int fd, const void *buf, size_t len) { return write(fd, buf, len); }
int64_t mcz_os_position(int fd) { return (int64_t)lseek(fd, 0, SEEK_CUR); }
int64_t mcz_os_seek_end(int fd) { return (int64_t)lseek(fd, 0, SEEK_END); }
bool mcz_os_isatty(int fd) { return isatty(fd) == 1; }
bool mcz_os_exists(const char *path) { return access(path, F_OK) == 0; }
int mcz_os_rmdir(const char *path) { return rmdir(path); }

const char *mcz_os_shared_library_suffix(void)
{
#if defined(__APPLE__)
    return ".dylib";
#else
    return ".so";
#endif
}

char *mcz_os_getcwd(void)
{
    for (size_t cap = 256;; cap *= 2) {
        char *dir = malloc(cap);
        if (!dir)
            return NULL;
        if (getcwd(dir, cap))
            return dir;
        int err = errno;
        free(dir);
        if (err != ERANGE) {
            errno = err;
            return NULL;
        }
    }
}

/* ---- The signals that end a program ---- */

static const mcz_os_stop_hooks *stop_hooks; /* set before the handlers are installed */

static void on_signal(int sig)
{
    unsigned undone = stop_hooks->undo_truncations(); /* first: they need their descriptors */
    undone += stop_hooks->undo_removals();
    if (undone == 0 && sig == SIGPIPE)
        return; /* the write fails with EPIPE instead */
    stop_hooks->abandon();
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: the process ends by sig */
}

void mcz_os_stop_catch(const mcz_os_stop_hooks *hooks)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    stop_hooks = hooks;
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

void mcz_os_test_signal(const char *program, const char *name)
{
    static const struct { const char *name; int sig; } names[] = {
        {"INT", SIGINT}, {"TERM", SIGTERM}, {"HUP", SIGHUP}, {"PIPE", SIGPIPE}};
    (void)program; /* a raised signal says nothing */
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].name) == 0)
            raise(names[i].sig);
}

/* ---- Temporary directories, the environment ---- */

char *mcz_os_mkdtemp(char *tmpl) { return mkdtemp(tmpl); }

FILE *mcz_os_temp_file(void)
{
    char name[4096];
    if ((size_t)snprintf(name, sizeof name, "%s/mcz-temp.XXXXXX", mcz_os_temp_dir()) >=
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

int mcz_os_mkdir_private(const char *path) { return mkdir(path, 0700); }

int mcz_os_setenv(const char *name, const char *value) { return setenv(name, value, 1); }

void *mcz_os_job_kill_on_close(void) { return NULL; }
