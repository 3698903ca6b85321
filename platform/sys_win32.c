/*
 * sys_win32.c - platform/platform.h's programs' part for Windows: streams, directories, files,
 * the console control events that end a program, temporary directories (what io/ calls too is
 * in platform/os_win32.c); platform/sys_posix.c is POSIX's.
 *
 * Paths are UTF-8, as the library's (platform/os_win32.c): they reach Windows as wide characters.
 * Windows has no cookie streams: a stream of mcz_os_stream_open is the write end of a pipe whose
 * read end a thread of its own drains into the write function (mcz_os_memstream_open's into a
 * growing buffer), until mcz_os_stream_close closes the pipe and waits for the thread.
 */
#include <windows.h>

#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <process.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcz_common.h"
#include "os_win32.h"
#include "platform.h"

/* ---- Temporary directories, the environment ---- */

char *mcz_os_mkdtemp(char *tmpl)
{
    size_t len = strlen(tmpl);
    if (len < 6 || strcmp(tmpl + len - 6, "XXXXXX") != 0) {
        errno = EINVAL;
        return NULL;
    }
    for (int attempt = 0; attempt < 26; attempt++) { /* _mktemp_s has 26 names a template */
        memcpy(tmpl + len - 6, "XXXXXX", 6);
        if (_mktemp_s(tmpl, len + 1) != 0)
            return NULL;
        if (_mkdir(tmpl) == 0)
            return tmpl;
        if (errno != EEXIST)
            return NULL;
    }
    errno = EEXIST;
    return NULL;
}

int mcz_os_mkdir_private(const char *path) { return _mkdir(path); }

FILE *mcz_os_temp_file(void)
{
    char name[MAX_PATH + 32];
    for (int attempt = 0; attempt < 26; attempt++) {
        if ((size_t)snprintf(name, sizeof name, "%s\\mcz-temp.XXXXXX", mcz_os_temp_dir()) >=
                sizeof name ||
            _mktemp_s(name, strlen(name) + 1) != 0)
            return NULL;
        /* _O_TEMPORARY: deleted on the last close, as Windows cannot unlink an open file */
        int fd = _open(name, _O_RDWR | _O_CREAT | _O_EXCL | _O_BINARY | _O_TEMPORARY |
                             _O_NOINHERIT, _S_IREAD | _S_IWRITE);
        if (fd < 0 && errno == EEXIST)
            continue;
        FILE *f = fd >= 0 ? _fdopen(fd, "w+b") : NULL;
        if (fd >= 0 && !f)
            _close(fd);
        return f;
    }
    errno = EEXIST;
    return NULL;
}

/* Both environments: the C runtime's (getenv, the library's) and the system's (inherited by
 * the processes CreateProcessW starts). */
int mcz_os_setenv(const char *name, const char *value)
{
    return _putenv_s(name, value) == 0 && SetEnvironmentVariableA(name, value) ? 0 : -1;
}

ptrdiff_t mcz_os_getline(char **line, size_t *cap, FILE *f)
{
    if (!line || !cap) {
        errno = EINVAL;
        return -1;
    }
    size_t len = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (len + 2 > *cap || !*line) {
            size_t grown_cap = *cap >= 64 ? 2 * *cap : 128;
            char *grown = realloc(*line, grown_cap);
            if (!grown) {
                errno = ENOMEM;
                return -1;
            }
            *line = grown;
            *cap = grown_cap;
        }
        (*line)[len++] = (char)c;
        if (c == '\n')
            break;
    }
    if (len == 0)
        return -1; /* the end of the file, or its error (ferror) */
    (*line)[len] = '\0';
    return (ptrdiff_t)len;
}

/* ---- Streams: a pipe drained by a thread ---- */

#define PIPE_BYTES (64 * 1024)

typedef struct pump {
    FILE *stream; /* the pipe's write end, the caller's */
    int read_fd;
    HANDLE thread;
    mcz_os_stream_write_fn write;
    void *cookie;
    bool failed;      /* a write failed: the rest is drained and dropped */
    char **text;      /* a memory stream's result, set at close; NULL: a cookie stream */
    size_t *text_len;
    char *buf;        /* a memory stream's bytes so far */
    size_t used, cap;
    struct pump *next;
} pump;

static SRWLOCK pumps_lock = SRWLOCK_INIT;
static pump *pumps;

static unsigned __stdcall pump_run(void *arg)
{
    pump *p = arg;
    char chunk[PIPE_BYTES];
    int n;
    /* After a failed write the rest is still read, so that the writer never blocks. */
    while ((n = _read(p->read_fd, chunk, sizeof chunk)) > 0)
        if (!p->failed && p->write(p->cookie, chunk, (size_t)n) != n)
            p->failed = true;
    return 0;
}

static FILE *pump_start(pump *p)
{
    int fds[2];
    if (_pipe(fds, PIPE_BYTES, _O_BINARY | _O_NOINHERIT) != 0)
        return NULL;
    p->read_fd = fds[0];
    p->stream = _fdopen(fds[1], "wb");
    uintptr_t thread = p->stream ? _beginthreadex(NULL, 0, pump_run, p, 0, NULL) : 0;
    if (!thread) {
        if (p->stream)
            fclose(p->stream);
        else
            _close(fds[1]);
        _close(fds[0]);
        return NULL;
    }
    p->thread = (HANDLE)thread;
    AcquireSRWLockExclusive(&pumps_lock);
    p->next = pumps;
    pumps = p;
    ReleaseSRWLockExclusive(&pumps_lock);
    return p->stream;
}

/* A pump into write(cookie, ...); with text set, a memory stream (write is memory_write, whose
 * cookie is the pump itself). */
static FILE *pump_open(mcz_os_stream_write_fn write, void *cookie, char **text, size_t *len)
{
    pump *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->write = write;
    p->cookie = text ? p : cookie;
    p->text = text;
    p->text_len = len;
    FILE *f = pump_start(p);
    if (!f)
        free(p);
    return f;
}

FILE *mcz_os_stream_open(mcz_os_stream_write_fn write, void *cookie)
{
    return pump_open(write, cookie, NULL, NULL);
}

static long memory_write(void *cookie, const char *buf, size_t len)
{
    pump *p = cookie;
    if (len >= p->cap - p->used) {
        size_t cap = p->cap ? p->cap : 256;
        while (len >= cap - p->used)
            cap *= 2;
        char *grown = realloc(p->buf, cap);
        if (!grown)
            return -1;
        p->buf = grown;
        p->cap = cap;
    }
    memcpy(p->buf + p->used, buf, len);
    p->used += len;
    return (long)len;
}

FILE *mcz_os_memstream_open(char **text, size_t *len)
{
    return pump_open(memory_write, NULL, text, len);
}

/* Takes f's pump off the list; NULL when f is no stream of ours. */
static pump *pump_take(FILE *f)
{
    AcquireSRWLockExclusive(&pumps_lock);
    pump **at = &pumps;
    while (*at && (*at)->stream != f)
        at = &(*at)->next;
    pump *p = *at;
    if (p)
        *at = p->next;
    ReleaseSRWLockExclusive(&pumps_lock);
    return p;
}

int mcz_os_stream_close(FILE *f)
{
    pump *p = pump_take(f);
    if (!p)
        return fclose(f);
    bool failed = fclose(f) != 0; /* the pipe's end: the thread reads the rest, then stops */
    WaitForSingleObject(p->thread, INFINITE);
    CloseHandle(p->thread);
    _close(p->read_fd);
    failed = failed || p->failed;
    if (p->text) {
        if (!failed && !p->buf)
            p->buf = calloc(1, 1);
        failed = failed || !p->buf;
        if (!failed)
            p->buf[p->used] = '\0'; /* memory_write keeps a byte free */
        *p->text = failed ? NULL : p->buf;
        *p->text_len = failed ? 0 : p->used;
        if (failed)
            free(p->buf);
    }
    free(p);
    return failed ? EOF : 0;
}

/* ---- Names ---- */

/* The end of the bracket expression at p (just past '['), with whether c is in it; NULL when
 * the bracket is not closed (it is then an ordinary character, as fnmatch has it). */
static const char *bracket_match(const char *p, unsigned char c, bool *in)
{
    bool negate = *p == '!' || *p == '^';
    p += negate;
    bool found = false;
    for (const char *start = p; *p && (*p != ']' || p == start); p++) {
        unsigned char lo = (unsigned char)*p, hi = lo;
        if (p[1] == '-' && p[2] && p[2] != ']') {
            hi = (unsigned char)p[2];
            p += 2;
        }
        found = found || (lo <= c && c <= hi);
    }
    if (*p != ']')
        return NULL;
    *in = found != negate;
    return p + 1;
}

/* fnmatch(glob, name, FNM_PERIOD) for the wildcards tool.h names: '*' backtracks to the last
 * star only, which suffices for a pattern without path separators. */
bool mcz_os_glob_match(const char *glob, const char *name)
{
    if (name[0] == '.' && glob[0] != '.')
        return false;
    const char *star = NULL, *star_name = NULL;
    while (*name) {
        bool in = false;
        const char *after = *glob == '[' ? bracket_match(glob + 1, (unsigned char)*name, &in)
                                         : NULL;
        if (*glob == '*') {
            star = ++glob;
            star_name = name;
            continue;
        }
        if (after && in) {
            glob = after;
            name++;
        } else if (!after && *glob && (*glob == '?' || *glob == *name)) {
            glob++;
            name++;
        } else if (star) {
            glob = star;
            name = ++star_name;
        } else {
            return false;
        }
    }
    while (*glob == '*')
        glob++;
    return *glob == '\0';
}

/* ---- Files ---- */

void mcz_os_stdio_binary(void)
{
    _setmode(_fileno(stdin), _O_BINARY);
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
}

static bool handle_is_pipe(HANDLE h)
{
    return h != INVALID_HANDLE_VALUE && GetFileType(h) == FILE_TYPE_PIPE;
}

bool mcz_os_stdout_is_pipe(void)
{
    return handle_is_pipe((HANDLE)_get_osfhandle(_fileno(stdout)));
}

/* Windows has no way to ask a pipe's write end whether its reader is gone without writing:
 * the write fails instead (EPIPE, EINVAL), and is reported. */
bool mcz_os_stdout_reader_gone(void)
{
    return false;
}

static int file_id_of_handle(HANDLE h, mcz_os_file_id *id)
{
    BY_HANDLE_FILE_INFORMATION info;
    if (h == INVALID_HANDLE_VALUE || GetFileType(h) != FILE_TYPE_DISK ||
        !GetFileInformationByHandle(h, &info)) {
        errno = EBADF;
        return -1;
    }
    id->volume = info.dwVolumeSerialNumber;
    id->file = (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow;
    return 0;
}

int mcz_os_file_id_of(const char *path, mcz_os_file_id *id)
{
    wchar_t *w = mcz_os_wide(path);
    if (!w)
        return -1;
    /* No access asked (attributes only), every sharing mode: opens what another process holds
     * open; FILE_FLAG_BACKUP_SEMANTICS opens directories too. */
    HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        errno = ENOENT;
        return -1;
    }
    int rc = file_id_of_handle(h, id);
    CloseHandle(h);
    return rc;
}

int mcz_os_file_id_of_fd(int fd, mcz_os_file_id *id)
{
    return file_id_of_handle((HANDLE)_get_osfhandle(fd), id);
}

bool mcz_os_is_directory_not_link(const char *path)
{
    wchar_t *w = mcz_os_wide(path);
    DWORD attributes = w ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;
    free(w);
    return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) &&
           !(attributes & FILE_ATTRIBUTE_REPARSE_POINT);
}

/* The C runtime's POSIX names (narrow paths, as fopen's), with Windows' counterparts where it
 * has none. */

ptrdiff_t mcz_os_write(int fd, const void *buf, size_t len)
{
    return write(fd, buf, len > INT_MAX ? INT_MAX : (unsigned)len);
}

int64_t mcz_os_position(int fd) { return _lseeki64(fd, 0, SEEK_CUR); }
int64_t mcz_os_seek_end(int fd) { return _lseeki64(fd, 0, SEEK_END); }
bool mcz_os_isatty(int fd) { return isatty(fd) != 0; }
bool mcz_os_exists(const char *path) { return access(path, F_OK) == 0; }
int mcz_os_rmdir(const char *path) { return rmdir(path); }
const char *mcz_os_shared_library_suffix(void) { return ".dll"; }

char *mcz_os_getcwd(void)
{
    return _getcwd(NULL, 0); /* msvcrt allocates a buffer of the length needed */
}

/* ---- Console control events ---- */

/* The most descriptors msvcrt holds (its _getmaxstdio() at most). */
#define DESCRIPTORS_MAX 2048

/* Closes every descriptor but the standard three: the process is ending, and Windows cannot
 * remove a file some descriptor holds open (the C runtime opens without FILE_SHARE_DELETE),
 * as the temporaries of an output being written are. */
static void close_descriptors(void)
{
    for (int fd = 3; fd < DESCRIPTORS_MAX; fd++)
        if (_get_osfhandle(fd) != (intptr_t)INVALID_HANDLE_VALUE)
            _close(fd);
}

/* Runs on a thread of its own, which the system starts for the event: undoes what the run
 * left half-done, then ends the process as the system's default handler does (every event
 * ends a console program with STATUS_CONTROL_C_EXIT). A Ctrl-C the parent disabled
 * (CREATE_NEW_PROCESS_GROUP) never reaches the handlers. */
static const mcz_os_stop_hooks *stop_hooks; /* set before the handler is installed */

static BOOL WINAPI on_console_event(DWORD event)
{
    (void)event;
    stop_hooks->abandon();
    stop_hooks->undo_truncations();
    close_descriptors();
    stop_hooks->undo_removals();
    ExitProcess(STATUS_CONTROL_C_EXIT);
    return TRUE;
}

void mcz_os_stop_catch(const mcz_os_stop_hooks *hooks)
{
    stop_hooks = hooks;
    SetConsoleCtrlHandler(on_console_event, TRUE);
}

/* Seconds the test event is waited for before the run says it never came. */
#define TEST_EVENT_WAIT_MS 30000

void mcz_os_test_signal(const char *program, const char *name)
{
    DWORD event;
    if (strcmp(name, "INT") == 0)
        event = CTRL_C_EVENT;
    else if (strcmp(name, "TERM") == 0 || strcmp(name, "HUP") == 0)
        event = CTRL_BREAK_EVENT;
    else
        return; /* no SIGPIPE on Windows: a write to a closed pipe fails instead */
    /* To every process of this console: the system runs the handlers on a new thread, which
     * ends the process; this thread stops here meanwhile, as a raised signal stops it. A
     * process without a console (Wine's, its output redirected) cannot send itself one: it
     * says so on stderr, and the test sends the event from outside (under Wine, SIGINT to the
     * process, which Wine turns into the console's Ctrl-C, as it does a terminal's). */
    if (!GenerateConsoleCtrlEvent(event, 0))
        fprintf(stderr, "%s: MCZ_TEST_SIGNAL=%s: waiting for the console control event\n",
                program, name);
    Sleep(TEST_EVENT_WAIT_MS);
    fprintf(stderr, "%s: MCZ_TEST_SIGNAL=%s: no console control event ended the process\n",
            program, name);
    exit(125);
}

