/*
 * os_posix.c - platform/platform.h's library part for POSIX systems (Linux: fallocate punches
 * the holes); built for them only (sources.mk), platform/os_win32.c is Windows'.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mcz_common.h"
#include "platform.h"

int mcz_os_create(const char *path, mcz_os_access access)
{
    int how = access == MCZ_OS_READ_WRITE ? O_RDWR : O_WRONLY;
    return open(path, how | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
}

int mcz_os_close(int fd)
{
    return close(fd);
}

/* Writes all of data: at off with pwrite, or at the file position when off is negative. */
static int write_fully(int fd, const void *data, size_t len, int64_t off)
{
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = EIO; /* nothing written, nothing said */
        if (n <= 0)
            return MCZ_EIO;
        p += n;
        len -= (size_t)n;
        off = off < 0 ? off : off + n;
    }
    return MCZ_OK;
}

int mcz_os_write_all(int fd, const void *data, size_t len)
{
    return write_fully(fd, data, len, -1);
}

int mcz_os_pwrite_all(int fd, const void *data, size_t len, uint64_t off)
{
    return write_fully(fd, data, len, (int64_t)off);
}

int64_t mcz_os_pread(int fd, void *buf, size_t len, uint64_t off)
{
    for (;;) {
        ssize_t n = pread(fd, buf, len, (off_t)off);
        if (n >= 0 || errno != EINTR)
            return n;
    }
}

int mcz_os_fsync(int fd)
{
    /* A pipe or terminal cannot be synced (EINVAL): nothing to do. */
    return fsync(fd) == 0 || errno == EINVAL ? 0 : -1;
}

int mcz_os_fdatasync(int fd)
{
    return fdatasync(fd);
}

int mcz_os_truncate(int fd, uint64_t size)
{
    return ftruncate(fd, (off_t)size);
}

/* Linux: fallocate; macOS: F_PUNCHHOLE (not tested here); elsewhere none, and the callers say
 * what needs holes (a rolling LIVE writer). */
int mcz_os_punch_hole(int fd, uint64_t off, uint64_t len)
{
#if defined(FALLOC_FL_PUNCH_HOLE)
    return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len);
#elif defined(F_PUNCHHOLE)
    struct fpunchhole hole = {0, 0, (off_t)off, (off_t)len};
    return fcntl(fd, F_PUNCHHOLE, &hole);
#else
    (void)fd, (void)off, (void)len;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int mcz_os_rename(const char *from, const char *to)
{
    return rename(from, to);
}

const char *mcz_os_temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

int mcz_os_temp_create(const char *dir, const char *prefix)
{
#ifdef O_TMPFILE
    int unnamed = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (unnamed >= 0)
        return unnamed; /* else the file system may lack O_TMPFILE: a name, removed at once */
#endif
    char name[4096];
    if ((size_t)snprintf(name, sizeof name, "%s/%s.XXXXXX", dir, prefix) >= sizeof name) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkostemp(name, O_CLOEXEC);
    if (fd >= 0)
        unlink(name);
    return fd;
}

bool mcz_os_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool mcz_os_descriptor(int fd, bool *is_socket)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        return false;
    *is_socket = S_ISSOCK(st.st_mode);
    return true;
}

/* One write to a pipe or file with SIGPIPE blocked in this thread; a SIGPIPE this write raised
 * (pending now, none before) is consumed before the mask is restored, so it never reaches the
 * process's handler or default action. A write the reader left in the middle of raises it too,
 * and returns the bytes it wrote, not EPIPE: the next write gets EPIPE. */
static ssize_t write_nosigpipe(int fd, const void *p, size_t len)
{
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE) == 1;
    ssize_t n = write(fd, p, len);
    int saved = errno;
    sigpending(&pending);
    if (!was_pending && sigismember(&pending, SIGPIPE) == 1) {
        struct timespec none = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &none) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return n;
}

/* A send that raises no SIGPIPE: MSG_NOSIGNAL where the system has it (not macOS). */
static ssize_t send_nosigpipe(int fd, const void *p, size_t len)
{
#ifdef MSG_NOSIGNAL
    return send(fd, p, len, MSG_NOSIGNAL);
#else
    return write_nosigpipe(fd, p, len);
#endif
}

int mcz_os_send_all(int fd, bool is_socket, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t n = is_socket ? send_nosigpipe(fd, p, len) : write_nosigpipe(fd, p, len);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pf = {fd, POLLOUT, 0};
            if (poll(&pf, 1, -1) >= 0 || errno == EINTR)
                continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return MCZ_EIO;
        p += n;
        len -= (size_t)n;
    }
    return MCZ_OK;
}

int mcz_os_signal_catch(int sig, void (*handler)(int), mcz_os_signal_saved *previous)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART | SA_ONSTACK; /* an alternate stack, if the thread has one */
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, &previous->action) == 0 ? MCZ_OK : MCZ_EINVAL;
}

void mcz_os_signal_restore(int sig, const mcz_os_signal_saved *previous)
{
    sigaction(sig, &previous->action, NULL);
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])

/* Set before the handlers are installed, left alone until they are removed. */
static void (*fatal_dump)(void);
static bool fatal_caught;
static mcz_os_signal_saved previous_fatal[FATAL_COUNT];

static void fatal_handler(int sig)
{
    int saved = errno;
    fatal_dump();
    for (size_t i = 0; i < FATAL_COUNT; i++)
        if (fatal_signals[i] == sig)
            mcz_os_signal_restore(sig, &previous_fatal[i]);
    raise(sig); /* pending until this handler returns, then the previous action runs */
    errno = saved;
}

int mcz_os_fatal_catch(void (*dump)(void))
{
    fatal_dump = dump;
    for (size_t i = 0; i < FATAL_COUNT; i++) {
        if (mcz_os_signal_catch(fatal_signals[i], fatal_handler, &previous_fatal[i]) != MCZ_OK) {
            while (i-- > 0)
                mcz_os_signal_restore(fatal_signals[i], &previous_fatal[i]);
            return MCZ_EINVAL;
        }
    }
    fatal_caught = true;
    return MCZ_OK;
}

void mcz_os_fatal_release(void)
{
    for (size_t i = 0; fatal_caught && i < FATAL_COUNT; i++)
        mcz_os_signal_restore(fatal_signals[i], &previous_fatal[i]);
    fatal_caught = false;
}

void mcz_os_nap(long ns)
{
    struct timespec pause = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&pause, NULL);
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t mcz_os_monotonic_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

uint64_t mcz_os_thread_cpu_ns(void)
{
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

int mcz_os_cores(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 && cores < INT_MAX ? (int)cores : 1;
}

void mcz_os_heap_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* ---- Files, directories and maps ---- */

/* What st is: the null device is told from other character devices by its device number,
 * whatever its name. */
static mcz_os_file_type type_of_stat(const struct stat *st)
{
    struct stat null;
    if (S_ISREG(st->st_mode))
        return MCZ_OS_FILE_REGULAR;
    if (S_ISDIR(st->st_mode))
        return MCZ_OS_FILE_DIRECTORY;
    if (S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 && st->st_rdev == null.st_rdev)
        return MCZ_OS_FILE_NULL;
    return MCZ_OS_FILE_OTHER;
}

static int info_of_stat(int rc, const struct stat *st, mcz_os_file_info *info)
{
    if (rc != 0)
        return -1;
    info->type = type_of_stat(st);
    info->size = info->type == MCZ_OS_FILE_REGULAR ? (uint64_t)st->st_size : 0;
    return 0;
}

int mcz_os_stat(const char *path, mcz_os_file_info *info)
{
    struct stat st;
    return info_of_stat(stat(path, &st), &st, info);
}

int mcz_os_fstat(int fd, mcz_os_file_info *info)
{
    struct stat st;
    return info_of_stat(fstat(fd, &st), &st, info);
}

int mcz_os_open(const char *path, int how, int mode)
{
    static const int access_modes[] = {0, O_RDONLY, O_WRONLY, O_RDWR};
    int flags = access_modes[how & MCZ_OS_OPEN_READ_WRITE] | O_CLOEXEC | O_NOCTTY;
    flags |= how & MCZ_OS_OPEN_CREATE ? O_CREAT : 0;
    flags |= how & MCZ_OS_OPEN_EXCLUSIVE ? O_EXCL : 0;
    flags |= how & MCZ_OS_OPEN_TRUNCATE ? O_TRUNC : 0;
    flags |= how & MCZ_OS_OPEN_APPEND ? O_APPEND : 0;
    return open(path, flags, (mode_t)mode);
}

ptrdiff_t mcz_os_read(int fd, void *buf, size_t len) { return read(fd, buf, len); }
int mcz_os_unlink(const char *path) { return unlink(path); }
long mcz_os_process_id(void) { return (long)getpid(); }

struct mcz_os_dir {
    DIR *d;
};

mcz_os_dir *mcz_os_dir_open(const char *dir)
{
    mcz_os_dir *d = malloc(sizeof *d);
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

const char *mcz_os_dir_next(mcz_os_dir *d)
{
    errno = 0;
    struct dirent *e = readdir(d->d);
    return e ? e->d_name : NULL;
}

void mcz_os_dir_close(mcz_os_dir *d)
{
    closedir(d->d);
    free(d);
}

void mcz_os_remove_in(mcz_os_dir *d, const char *dir, const char *name)
{
    (void)dir;
    unlinkat(dirfd(d->d), name, 0);
}

size_t mcz_os_dir_length(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

void mcz_os_stdin_binary(int fd)
{
    (void)fd;
}

FILE *mcz_os_fdopen(int fd, const char *mode)
{
    return fdopen(fd, mode);
}

int mcz_os_dup(int fd)
{
    return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

int mcz_os_rewind(int fd)
{
    return lseek(fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

bool mcz_os_is_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

ptrdiff_t mcz_os_readlink(const char *path, char *buf, size_t cap)
{
    return readlink(path, buf, cap);
}

int mcz_os_copy_attributes(int fd, const char *path)
{
    struct stat old;
    if (stat(path, &old) != 0)
        return -1;
    if (geteuid() == 0 && fchown(fd, old.st_uid, old.st_gid) != 0) {
        /* the file system may not keep owners: the mode below still applies */
    }
    return fchmod(fd, old.st_mode & 07777);
}

int mcz_os_may_write_in(const char *dir)
{
    return access(dir, W_OK | X_OK);
}

int mcz_os_mkdir(const char *path)
{
    return mkdir(path, 0755);
}

bool mcz_os_process_gone(long pid)
{
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Anonymous memory: MAP_ANON is its older name (macOS has both); MAP_NORESERVE is Linux's (no
 * swap reserved for the whole map). */
#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif
#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

void *mcz_os_map_file(int fd, size_t len)
{
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    return m == MAP_FAILED ? NULL : m;
}

void *mcz_os_map_zeroed(size_t len)
{
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

int mcz_os_unmap(void *at, size_t len)
{
    return munmap(at, len);
}

/* MADV_DONTNEED where the system has it; POSIX's own advice elsewhere (glibc ignores that one,
 * hence not used there). */
void mcz_os_map_drop(void *at, size_t len)
{
#ifdef MADV_DONTNEED
    madvise(at, len, MADV_DONTNEED);
#else
    posix_madvise(at, len, POSIX_MADV_DONTNEED);
#endif
}

size_t mcz_os_page_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

int mcz_os_data_extent(int fd, uint64_t from, uint64_t *start, uint64_t *end)
{
#ifdef SEEK_DATA
    off_t data = lseek(fd, (off_t)from, SEEK_DATA);
    if (data < 0)
        return errno == ENXIO ? 0 : -1;
    off_t hole = lseek(fd, data, SEEK_HOLE);
    if (hole < 0)
        return -1;
    *start = (uint64_t)data;
    *end = (uint64_t)hole;
    return 1;
#else
    (void)fd, (void)from, (void)start, (void)end;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

/* The C library's: glibc's, musl's, macOS's and the BSDs' (POSIX.1-2024 has it). */
void *mcz_os_memmem(const void *haystack, size_t hay_len, const void *needle, size_t len)
{
    return memmem(haystack, hay_len, needle, len);
}
