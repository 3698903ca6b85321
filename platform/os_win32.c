/*
 * os_win32.c - platform/platform.h's library part for Windows, the one table of Windows errors
 * and UTF-8 paths as wide characters (platform/os_win32.h). Built for Windows only (sources.mk): platform/os_posix.c is its
 * counterpart. One file per system rather than #ifdefs through one: the two share no code
 * worth sharing, and each reads as what it calls.
 *
 * Not on Windows: request signals (mcz_os_signal_catch returns MCZ_EUNSUPPORTED: no signal
 * comes to a process from outside; the writer then refuses a request signal, as it says), and
 * sockets as descriptors. The fatal dump runs from the unhandled-exception filter
 * (mcz_os_fatal_catch).
 */
#include <windows.h>

#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "mcz_common.h"
#include "os_win32.h"
#include "platform.h"
#include "compat.h"

/* The largest count one ReadFile or WriteFile is asked for. */
#define IO_CHUNK (1u << 30)

/* The one table of Windows errors: errno for a Win32 error code, roughly (the messages name
 * it); EIO for one without a counterpart. */
int mcz_os_errno_of_win32(unsigned long error)
{
    switch (error) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND: return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION: return EACCES;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS: return EEXIST;
    case ERROR_DIRECTORY: return ENOTDIR;
    case ERROR_NOT_SAME_DEVICE: return EXDEV;
    case ERROR_TOO_MANY_LINKS: return EMLINK;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_COMMITMENT_LIMIT: return ENOMEM;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL: return ENOSPC;
    case ERROR_NOT_SUPPORTED:
    case ERROR_INVALID_FUNCTION: return ENOTSUP;
    case ERROR_BROKEN_PIPE:
    case ERROR_NO_DATA: return EPIPE;
    case ERROR_BAD_EXE_FORMAT: return ENOEXEC;
    default: return EIO;
    }
}

/* errno for the thread's last Win32 error. */
static void set_errno_from_win32(void)
{
    errno = mcz_os_errno_of_win32(GetLastError());
}

static HANDLE os_handle(int fd)
{
    return (HANDLE)_get_osfhandle(fd);
}

/* A UTF-8 path as Windows' wide characters: in small (cap characters) when it fits, else
 * malloc'd; NULL with errno set. A path of MAX_PATH characters fits a small of MAX_PATH: the
 * fatal dump's rename (its paths within PATH_MAX, signal_dump.c) allocates nothing. */
static wchar_t *wide_path(const char *path, wchar_t *small, size_t cap)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
    wchar_t *w = n <= 0 ? NULL : (size_t)n <= cap ? small : malloc((size_t)n * sizeof *w);
    if (!w || MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, w, n) != n) {
        if (w != small)
            free(w);
        errno = n > 0 ? ENOMEM : EINVAL;
        return NULL;
    }
    return w;
}

wchar_t *mcz_os_wide(const char *text)
{
    return wide_path(text, NULL, 0); /* no small buffer: always malloc'd */
}

char *mcz_os_utf8(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = n > 0 ? malloc((size_t)n) : NULL;
    if (!s || WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL) != n) {
        free(s);
        errno = n > 0 ? ENOMEM : EINVAL;
        return NULL;
    }
    return s;
}

/* One ReadFile or WriteFile at off, the file position saved and put back: the positioned call
 * moves it, so not safe against another thread using the position of the same descriptor. */
static ssize_t transfer_at(int fd, void *buf, size_t len, int64_t off, bool writing)
{
    HANDLE h = os_handle(fd);
    LARGE_INTEGER zero = {0}, pos;
    if (h == INVALID_HANDLE_VALUE || off < 0 || !SetFilePointerEx(h, zero, &pos, FILE_CURRENT)) {
        errno = EBADF;
        return -1;
    }
    OVERLAPPED at;
    memset(&at, 0, sizeof at);
    at.Offset = (DWORD)((uint64_t)off & 0xFFFFFFFFu);
    at.OffsetHigh = (DWORD)((uint64_t)off >> 32);
    DWORD want = (DWORD)(len < IO_CHUNK ? len : IO_CHUNK), done = 0;
    BOOL ok = writing ? WriteFile(h, buf, want, &done, &at) : ReadFile(h, buf, want, &done, &at);
    DWORD err = ok ? 0 : GetLastError();
    SetFilePointerEx(h, pos, NULL, FILE_BEGIN);
    if (!ok && err == ERROR_HANDLE_EOF && !writing)
        return 0;
    if (!ok) {
        SetLastError(err);
        set_errno_from_win32();
        return -1;
    }
    return (ssize_t)done;
}

/* A new file of the name tmpl (ending in XXXXXX, replaced), for reading and writing, deleted
 * when its last descriptor closes (_O_TEMPORARY): Windows cannot unlink an open file, which is
 * what the POSIX side does next to the same end. */
static int temp_open(char *tmpl)
{
    if (_mktemp_s(tmpl, strlen(tmpl) + 1) != 0)
        return -1;
    return _open(tmpl, _O_RDWR | _O_CREAT | _O_EXCL | _O_TEMPORARY | _O_NOINHERIT | _O_BINARY,
                 _S_IREAD | _S_IWRITE);
}

/* ============================================================================================ */
/* platform/platform.h                                                                            */
/* ============================================================================================ */

int mcz_os_create(const char *path, mcz_os_access access)
{
    int how = access == MCZ_OS_READ_WRITE ? MCZ_OS_OPEN_READ_WRITE : MCZ_OS_OPEN_WRITE;
    return mcz_os_open(path, how | MCZ_OS_OPEN_CREATE | MCZ_OS_OPEN_TRUNCATE, _S_IREAD | _S_IWRITE);
}

int mcz_os_close(int fd)
{
    return close(fd);
}

int mcz_os_write_all(int fd, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        int n = write(fd, p, (unsigned)(len < IO_CHUNK ? len : IO_CHUNK));
        if (n == 0)
            errno = EIO; /* nothing written, nothing said */
        if (n <= 0)
            return MCZ_EIO;
        p += n;
        len -= (size_t)n;
    }
    return MCZ_OK;
}

int mcz_os_pwrite_all(int fd, const void *data, size_t len, uint64_t off)
{
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t n = transfer_at(fd, (void *)(uintptr_t)p, len, (int64_t)off, true);
        if (n <= 0)
            return MCZ_EIO;
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return MCZ_OK;
}

int64_t mcz_os_pread(int fd, void *buf, size_t len, uint64_t off)
{
    return transfer_at(fd, buf, len, (int64_t)off, false);
}

/* The file's data on disk (FlushFileBuffers); 0 at once for what is not a disk file (a pipe,
 * where flushing would wait for the reader, or a console, which cannot be): as fsync is for a
 * stream on Linux, where the callers accept EINVAL. */
int mcz_os_fsync(int fd)
{
    HANDLE h = os_handle(fd);
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    if (GetFileType(h) != FILE_TYPE_DISK)
        return 0;
    if (!FlushFileBuffers(h)) {
        set_errno_from_win32();
        return -1;
    }
    return 0;
}

int mcz_os_fdatasync(int fd)
{
    return mcz_os_fsync(fd);
}

int mcz_os_truncate(int fd, uint64_t size)
{
    if (size > INT64_MAX) {
        errno = EINVAL;
        return -1;
    }
    errno_t err = _chsize_s(fd, (long long)size);
    errno = err ? err : errno;
    return err ? -1 : 0;
}

/* The file made sparse (once is enough; asking again costs one call), then the range zeroed:
 * on a sparse file, FSCTL_SET_ZERO_DATA frees the whole blocks within it. A file system
 * without sparse files (FAT) refuses the first, one without zeroing the second (Wine 8 has
 * FSCTL_SET_SPARSE but answers ERROR_NOT_SUPPORTED to FSCTL_SET_ZERO_DATA): EOPNOTSUPP. */
int mcz_os_punch_hole(int fd, uint64_t off, uint64_t len)
{
    HANDLE h = os_handle(fd);
    DWORD got = 0;
    if (h == INVALID_HANDLE_VALUE || off > INT64_MAX || len > INT64_MAX - off) {
        errno = EINVAL;
        return -1;
    }
    if (!DeviceIoControl(h, FSCTL_SET_SPARSE, NULL, 0, NULL, 0, &got, NULL)) {
        errno = EOPNOTSUPP;
        return -1;
    }
    FILE_ZERO_DATA_INFORMATION zero;
    zero.FileOffset.QuadPart = (LONGLONG)off;
    zero.BeyondFinalZero.QuadPart = (LONGLONG)(off + len);
    if (!DeviceIoControl(h, FSCTL_SET_ZERO_DATA, &zero, sizeof zero, NULL, 0, &got, NULL)) {
        set_errno_from_win32();
        return -1;
    }
    return 0;
}

/* The atomic replace: MoveFileExW replaces an existing target, and with WRITE_THROUGH returns
 * only once the rename is on disk. */
int mcz_os_rename(const char *from, const char *to)
{
    wchar_t small_from[MAX_PATH], small_to[MAX_PATH];
    wchar_t *wfrom = wide_path(from, small_from, MAX_PATH);
    wchar_t *wto = wfrom ? wide_path(to, small_to, MAX_PATH) : NULL;
    BOOL ok = wto && MoveFileExW(wfrom, wto, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);
    if (wto && !ok)
        set_errno_from_win32();
    if (wfrom != small_from)
        free(wfrom);
    if (wto != small_to)
        free(wto);
    return ok ? 0 : -1;
}

const char *mcz_os_temp_dir(void)
{
    static char dir[MAX_PATH + 1];
    const char *tmp = getenv("TMPDIR");
    if (tmp && tmp[0])
        return tmp;
    DWORD len = GetTempPathA(sizeof dir, dir);
    if (len == 0 || len >= sizeof dir)
        return ".";
    if (len > 3 && (dir[len - 1] == '\\' || dir[len - 1] == '/'))
        dir[len - 1] = '\0'; /* without its final separator, but a drive's root keeps it */
    return dir;
}

int mcz_os_temp_create(const char *dir, const char *prefix)
{
    char name[4096];
    if ((size_t)snprintf(name, sizeof name, "%s/%s.XXXXXX", dir, prefix) >= sizeof name) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return temp_open(name); /* deleted when closed */
}

bool mcz_os_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Windows' sockets are not C runtime descriptors: a descriptor is never a socket here. */
bool mcz_os_descriptor(int fd, bool *is_socket)
{
    if (fd < 0 || os_handle(fd) == INVALID_HANDLE_VALUE)
        return false;
    *is_socket = false;
    return true;
}

/* Windows raises no SIGPIPE: a write to a pipe whose reader is gone fails with EPIPE. */
int mcz_os_send_all(int fd, bool is_socket, const void *data, size_t len)
{
    (void)is_socket;
    return mcz_os_write_all(fd, data, len);
}

/* The C runtime's signals are raised only by the process itself (raise, abort): none comes
 * from outside to ask for something. */
int mcz_os_signal_catch(int sig, void (*handler)(int), mcz_os_signal_saved *previous)
{
    (void)sig, (void)handler;
    previous->handler = SIG_DFL;
    return MCZ_EUNSUPPORTED;
}

void mcz_os_signal_restore(int sig, const mcz_os_signal_saved *previous)
{
    (void)sig, (void)previous;
}

/* The fatal hook. What the dump calls here allocates nothing (mcz_os_rename converts paths of
 * PATH_MAX into stack buffers), but the descriptors are the C runtime's: its open and close take
 * the lock of its descriptor table, so a fault inside one of them, on the faulting thread,
 * would leave the dump waiting (POSIX's open and close take none).
 * Set before the filter is installed, left alone until it is removed. */
static void (*fatal_dump)(void);
static bool fatal_caught;
static LPTOP_LEVEL_EXCEPTION_FILTER previous_filter;
static void (*previous_abort)(int);

/* An exception nothing handled: the dump, then the filter that was there before decides (the
 * .NET runtime's own, say), or the search goes on to the system's end of the process. The
 * filter stays installed (a filter installed later may chain to it, and would be replaced): a
 * second fault finds the dump done (signal_dump.c dumps once) and chains again. */
static LONG WINAPI fatal_filter(EXCEPTION_POINTERS *info)
{
    fatal_dump();
    return previous_filter ? previous_filter(info) : EXCEPTION_CONTINUE_SEARCH;
}

/* abort: the runtime resets SIGABRT to its default before calling the handler; the previous
 * handler is put back and the signal raised again (the default ends the process, exit 3). */
static void fatal_abort(int sig)
{
    fatal_dump();
    signal(sig, previous_abort);
    raise(sig);
}

int mcz_os_fatal_catch(void (*dump)(void))
{
    fatal_dump = dump;
    previous_abort = signal(SIGABRT, fatal_abort);
    if (previous_abort == SIG_ERR)
        return MCZ_EINVAL;
    previous_filter = SetUnhandledExceptionFilter(fatal_filter);
    fatal_caught = true;
    return MCZ_OK;
}

void mcz_os_fatal_release(void)
{
    if (!fatal_caught)
        return;
    SetUnhandledExceptionFilter(previous_filter);
    signal(SIGABRT, previous_abort);
    fatal_caught = false;
}

void mcz_os_nap(long ns)
{
    Sleep((DWORD)((ns + 999999) / 1000000)); /* whole milliseconds, rounded up */
}

uint64_t mcz_os_monotonic_ns(void)
{
    LARGE_INTEGER freq, now;
    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    uint64_t f = (uint64_t)freq.QuadPart, t = (uint64_t)now.QuadPart;
    return t / f * 1000000000u + t % f * 1000000000u / f;
}

uint64_t mcz_os_thread_cpu_ns(void)
{
    FILETIME created, exited, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user))
        return 0;
    uint64_t k = ((uint64_t)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime;
    uint64_t u = ((uint64_t)user.dwHighDateTime << 32) | user.dwLowDateTime;
    return (k + u) * 100; /* 100-nanosecond units */
}

int mcz_os_cores(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS); /* every group's, past 64 */
    return n >= 1 && n < INT_MAX ? (int)n : 1;
}

void mcz_os_heap_trim(void)
{
    /* the C runtime's heap gives large blocks back to the system when they are freed */
}

/* ---- Files, directories and maps ---- */

/* The C runtime's POSIX names (narrow paths, as fopen's), with Windows' counterparts where it
 * has none. */

static int info_of_stat(int rc, const struct stat *st, mcz_os_file_info *info)
{
    if (rc != 0)
        return -1;
    info->type = S_ISREG(st->st_mode)   ? MCZ_OS_FILE_REGULAR
                 : S_ISDIR(st->st_mode) ? MCZ_OS_FILE_DIRECTORY
                                        : MCZ_OS_FILE_OTHER;
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
    static const int access_modes[] = {0, _O_RDONLY, _O_WRONLY, _O_RDWR};
    int flags = access_modes[how & MCZ_OS_OPEN_READ_WRITE] | _O_NOINHERIT | _O_BINARY;
    flags |= how & MCZ_OS_OPEN_CREATE ? _O_CREAT : 0;
    flags |= how & MCZ_OS_OPEN_EXCLUSIVE ? _O_EXCL : 0;
    flags |= how & MCZ_OS_OPEN_TRUNCATE ? _O_TRUNC : 0;
    flags |= how & MCZ_OS_OPEN_APPEND ? _O_APPEND : 0;
    return open(path, flags, mode);
}

ptrdiff_t mcz_os_read(int fd, void *buf, size_t len)
{
    return read(fd, buf, len > INT_MAX ? INT_MAX : (unsigned)len);
}

int mcz_os_unlink(const char *path) { return unlink(path); }
long mcz_os_process_id(void) { return (long)GetCurrentProcessId(); }

/* ---- Directories ---- */

struct mcz_os_dir {
    HANDLE find;
    WIN32_FIND_DATAW entry;
    bool first;     /* entry holds the first name, not yet returned */
    char name[MAX_PATH * 3 + 1]; /* UTF-8 of a name of at most MAX_PATH wide characters */
};

mcz_os_dir *mcz_os_dir_open(const char *dir)
{
    size_t len = strlen(dir);
    char *pattern = malloc(len + 3);
    if (!pattern) {
        errno = ENOMEM;
        return NULL;
    }
    snprintf(pattern, len + 3, "%s%s*", dir, len && strchr("/\\", dir[len - 1]) ? "" : "\\");
    wchar_t *w = mcz_os_wide(pattern);
    free(pattern);
    mcz_os_dir *d = w ? calloc(1, sizeof *d) : NULL;
    if (!d) {
        free(w);
        errno = ENOMEM;
        return NULL;
    }
    d->find = FindFirstFileW(w, &d->entry);
    free(w);
    if (d->find == INVALID_HANDLE_VALUE) {
        DWORD err = GetLastError();
        free(d);
        errno = mcz_os_errno_of_win32(err);
        return NULL;
    }
    d->first = true;
    return d;
}

const char *mcz_os_dir_next(mcz_os_dir *d)
{
    errno = 0;
    if (!d->first && !FindNextFileW(d->find, &d->entry)) {
        if (GetLastError() != ERROR_NO_MORE_FILES)
            errno = EIO;
        return NULL;
    }
    d->first = false;
    if (!WideCharToMultiByte(CP_UTF8, 0, d->entry.cFileName, -1, d->name, sizeof d->name, NULL,
                             NULL)) {
        errno = EILSEQ;
        return NULL;
    }
    return d->name;
}

void mcz_os_dir_close(mcz_os_dir *d)
{
    FindClose(d->find);
    free(d);
}

/* Windows has no dirfd: by path (the UTF-8 name mcz_os_dir_next gave, as wide characters). */
void mcz_os_remove_in(mcz_os_dir *d, const char *dir, const char *name)
{
    (void)d;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return;
    wchar_t small[MAX_PATH], *w = wide_path(path, small, MAX_PATH);
    if (w)
        DeleteFileW(w);
    if (w != small)
        free(w);
}

size_t mcz_os_dir_length(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *backslash = strrchr(path, '\\'); /* Windows separates with either */
    slash = !slash || (backslash && backslash > slash) ? backslash : slash;
    return slash ? (size_t)(slash - path) + 1 : 0;
}

void mcz_os_stdin_binary(int fd)
{
    _setmode(fd, _O_BINARY); /* standard input starts in text mode there */
}

FILE *mcz_os_fdopen(int fd, const char *mode)
{
    return _fdopen(fd, mode);
}

/* Windows' descriptors are not a table a child inherits: no lowest number to keep. */
int mcz_os_dup(int fd)
{
    int dup = _dup(fd);
    if (dup >= 0)
        _setmode(dup, _O_BINARY); /* standard output starts in text mode; archives are bytes */
    return dup;
}

int mcz_os_rewind(int fd)
{
    return _lseeki64(fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

bool mcz_os_is_link(const char *path)
{
    (void)path;
    return false;
}

ptrdiff_t mcz_os_readlink(const char *path, char *buf, size_t cap)
{
    (void)path, (void)buf, (void)cap;
    errno = EINVAL;
    return -1;
}

/* No POSIX modes and no owners to carry over. */
int mcz_os_copy_attributes(int fd, const char *path)
{
    (void)fd, (void)path;
    return 0;
}

int mcz_os_may_write_in(const char *dir)
{
    return _access(dir, 2); /* W_OK: no execute permission on Windows */
}

int mcz_os_mkdir(const char *path)
{
    return _mkdir(path);
}

bool mcz_os_process_gone(long pid)
{
    HANDLE p = pid > 0 ? OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid) : NULL;
    if (!p)
        return GetLastError() == ERROR_INVALID_PARAMETER; /* else it exists, denied to us */
    DWORD code = 0;
    bool alive = GetExitCodeProcess(p, &code) && code == STILL_ACTIVE;
    CloseHandle(p);
    return !alive;
}

void *mcz_os_map_file(int fd, size_t len)
{
    if (len == 0) {
        errno = EINVAL;
        return NULL;
    }
    HANDLE map = CreateFileMappingW(os_handle(fd), NULL, PAGE_READONLY, 0, 0, NULL);
    void *view = map ? MapViewOfFile(map, FILE_MAP_READ, 0, 0, len) : NULL;
    if (!view)
        set_errno_from_win32();
    if (map)
        CloseHandle(map); /* the view keeps the mapping alive */
    return view;
}

void *mcz_os_map_zeroed(size_t len)
{
    void *m = len ? VirtualAlloc(NULL, len, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE) : NULL;
    if (!m)
        errno = len ? ENOMEM : EINVAL;
    return m;
}

int mcz_os_unmap(void *at, size_t len)
{
    (void)len;
    MEMORY_BASIC_INFORMATION info;
    if (VirtualQuery(at, &info, sizeof info) == 0) {
        errno = EINVAL;
        return -1;
    }
    BOOL ok = info.Type == MEM_MAPPED ? UnmapViewOfFile(at) : VirtualFree(at, 0, MEM_RELEASE);
    return ok ? 0 : -1;
}

/* A hint Windows takes from its own memory pressure. */
void mcz_os_map_drop(void *at, size_t len)
{
    (void)at, (void)len;
}

size_t mcz_os_page_size(void)
{
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return si.dwPageSize;
}

/* No SEEK_DATA (FSCTL_QUERY_ALLOCATED_RANGES would tell, later): every byte counts as data. */
int mcz_os_data_extent(int fd, uint64_t from, uint64_t *start, uint64_t *end)
{
    (void)fd, (void)from, (void)start, (void)end;
    errno = EOPNOTSUPP;
    return -1;
}

/* MinGW-w64's C runtime has no memmem. */
void *mcz_os_memmem(const void *haystack, size_t hay_len, const void *needle, size_t len)
{
    return mcz_compat_memmem(haystack, hay_len, needle, len);
}
