/*
 * platform.h - the operating-system calls of the library and of the programs, behind one
 * interface: each system has its own files (platform/NAME_posix.c, platform/NAME_win32.c),
 * and the build compiles one set (sources.mk). The writer makes no system call of its own:
 * its files, descriptors, streams, signal handlers and clocks all go through here (threads,
 * their locks and waits: platform/threads.h). The programs' part, at the end, is linked into
 * the programs only (libmcz.a; hidden in libmcz.so, left out of the collector).
 *
 * Unless a function says otherwise it is async-signal-safe (a fatal-signal dump runs from a
 * handler), leaves errno as the failing call set it (callers name it in their messages), and
 * retries an interrupted call itself. Descriptors are ints, offsets and sizes uint64_t.
 */
#ifndef MCZ_PLATFORM_H
#define MCZ_PLATFORM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* How mcz_os_create opens a file: truncated, for reading and writing (a file the writer reads
 * back), or write-only. */
typedef enum { MCZ_OS_WRITE_ONLY, MCZ_OS_READ_WRITE } mcz_os_access;

/* Creates or truncates path (mode 0666 less the umask, close-on-exec); -1 on failure. */
int mcz_os_create(const char *path, mcz_os_access access);
/* 0, or -1. */
int mcz_os_close(int fd);
/* Writes all of data at the file position, again after EINTR and short writes (MCZ_OK, or
 * MCZ_EIO with errno set). Async-signal-safe: a child between fork and exec may use it. */
int mcz_os_write_all(int fd, const void *data, size_t len);
/* Writes all of data at off (MCZ_OK, or MCZ_EIO). */
int mcz_os_pwrite_all(int fd, const void *data, size_t len, uint64_t off);
/* Reads up to len bytes at off without moving the file position (pread; Windows: ReadFile at
 * an offset): the count (0 at the end), or -1. Safe against other threads using the same
 * descriptor. */
int64_t mcz_os_pread(int fd, void *buf, size_t len, uint64_t off);
/* The file's data on stable storage: with its metadata (fsync) or without (fdatasync); 0 or
 * -1. mcz_os_fsync of what is not a disk file (a pipe, a terminal) is 0 at once. */
int mcz_os_fsync(int fd);
int mcz_os_fdatasync(int fd);
/* Sets the file's size (cut or extended); 0 or -1. */
int mcz_os_truncate(int fd, uint64_t size);
/* Frees the blocks of [off, off + len) without changing the size: reads there give zeros.
 * 0, or -1 (errno EOPNOTSUPP when the file system cannot). */
int mcz_os_punch_hole(int fd, uint64_t off, uint64_t len);
/* Renames from over to, replacing a file there (atomically where the system can); 0 or -1. */
int mcz_os_rename(const char *from, const char *to);

/*
 * An archive that appears atomically, written from a signal handler (io/outfile.c; the
 * mcz_outfile_* calls are the same mechanism for every other caller, and allocate): open
 * creates or truncates tmp_path, commit makes the data durable, closes and renames tmp_path
 * over path. A file whose writing failed or was cut short stays under tmp_path as the partial
 * archive a recovery reads: it is not listed for mcz_remove_temporaries. open: a descriptor or
 * -1; commit: MCZ_OK or MCZ_EIO (the descriptor closed either way).
 */
int mcz_outfile_raw_open(const char *tmp_path);
int mcz_outfile_raw_commit(int fd, const char *tmp_path, const char *path);

/* The directory temporary files go to: $TMPDIR, else the system's place (/tmp; Windows:
 * GetTempPath, which looks at %TMP% and %TEMP%, else "."). Not async-signal-safe (getenv). */
const char *mcz_os_temp_dir(void);
/* A new temporary file in dir, for reading and writing, with nothing to clean up however the
 * process ends (unnamed or unlinked at once; on Windows deleted when closed); prefix names it
 * while it has a name. A descriptor, or -1 with errno saying why. Not async-signal-safe. */
int mcz_os_temp_create(const char *dir, const char *prefix);

/* Whether path names a regular file (following links): false for anything else or nothing. */
bool mcz_os_is_file(const char *path);
/* Whether fd is an open descriptor (false: not one) and, if so, whether it is a socket. */
bool mcz_os_descriptor(int fd, bool *is_socket);
/*
 * Sends all of data to a stream (a pipe, a socket, a file, a terminal) that may be
 * non-blocking (it then waits for room), without ever raising SIGPIPE in the process: a socket
 * is sent to with MSG_NOSIGNAL, anything else is written with SIGPIPE blocked in this thread.
 * MCZ_OK, or MCZ_EIO with errno saying why (EPIPE: the reader is gone). Not async-signal-safe.
 */
int mcz_os_send_all(int fd, bool is_socket, const void *data, size_t len);

/* A signal's previous disposition, to put back. */
#ifdef _WIN32
typedef struct mcz_os_signal_saved {
    void (*handler)(int);
} mcz_os_signal_saved;
#else
typedef struct mcz_os_signal_saved {
    struct sigaction action;
} mcz_os_signal_saved;
#endif

/* Installs handler for sig (restarting interrupted calls, on the alternate stack if the
 * thread has one), saving the previous disposition; MCZ_OK, MCZ_EINVAL, or MCZ_EUNSUPPORTED
 * where the system delivers no such signals to a process (Windows: a request signal). */
int mcz_os_signal_catch(int sig, void (*handler)(int), mcz_os_signal_saved *previous);
/* Puts back what mcz_os_signal_catch saved. */
void mcz_os_signal_restore(int sig, const mcz_os_signal_saved *previous);

/*
 * The process's fatal faults, one hook per process: dump runs on the faulting thread, then
 * what was there before takes the fault over, so that the process ends (or the
 * previous handler runs) as it would have without mcz. dump must keep to what this header calls
 * async-signal-safe: the faulting thread may hold any lock (the heap's included).
 *  - POSIX: handlers of SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (as mcz_os_signal_catch
 *    installs them); each restores the previous action and raises the signal again.
 *  - Windows: the unhandled-exception filter (SetUnhandledExceptionFilter), so only a fault
 *    nothing else handled is fatal: a vectored handler would see first every exception a
 *    runtime handles on purpose (the .NET runtime turns access violations in managed code into
 *    NullReferenceException with one); it then chains the previous filter, or lets the search
 *    go on (the system's error reporting ends the process). And SIGABRT of the C runtime
 *    (abort), whose previous handler is restored and the signal raised again.
 * MCZ_OK, or MCZ_EINVAL (nothing installed). mcz_os_fatal_release puts back what was there
 * (not from the hook). Neither is async-signal-safe.
 */
int mcz_os_fatal_catch(void (*dump)(void));
void mcz_os_fatal_release(void);

/* Sleeps ns nanoseconds (less if a signal interrupts it). */
void mcz_os_nap(long ns);

/* Clocks, in nanoseconds: monotonic (the one the writer's timed waits use), and the CPU time
 * of the calling thread (0 when unknown). */
uint64_t mcz_os_monotonic_ns(void);
uint64_t mcz_os_thread_cpu_ns(void);
/* Processors online (at least 1). Not async-signal-safe. */
int mcz_os_cores(void);
/* Gives the heap's freed memory back to the system where the C library keeps it for later
 * (glibc: malloc_trim); nothing elsewhere, where large blocks go back when freed. For a process
 * about to make its largest allocations (an archive's index) or to fork. Not async-signal-safe. */
void mcz_os_heap_trim(void);

/* ---- Files, directories and maps: the POSIX calls of io/ (and of the programs), under one
 * name on every system. Each returns as its POSIX call does (-1 with errno set on failure)
 * unless it says otherwise; paths are the C runtime's, as fopen's. Not async-signal-safe
 * unless a function says so. ---- */

/* What a name (its symbolic links followed) or a descriptor reaches. */
typedef enum mcz_os_file_type {
    MCZ_OS_FILE_REGULAR,   /* a disk file */
    MCZ_OS_FILE_DIRECTORY,
    MCZ_OS_FILE_NULL,      /* the null device, whatever its name (POSIX: /dev/null's device;
                          * Windows reports it as MCZ_OS_FILE_OTHER) */
    MCZ_OS_FILE_OTHER      /* a FIFO, another device, a socket, a terminal */
} mcz_os_file_type;
typedef struct mcz_os_file_info {
    mcz_os_file_type type;
    uint64_t size; /* a regular file's length in bytes; 0 for the others */
} mcz_os_file_info;
int mcz_os_stat(const char *path, mcz_os_file_info *info); /* stat(2) */
int mcz_os_fstat(int fd, mcz_os_file_info *info);          /* fstat(2) */

/* The standard streams' descriptors. */
enum { MCZ_OS_STDIN_FD = 0, MCZ_OS_STDOUT_FD = 1, MCZ_OS_STDERR_FD = 2 };
/* How mcz_os_open opens: one of READ, WRITE and READ_WRITE, with any of the others (O_CREAT,
 * O_EXCL, O_TRUNC, O_APPEND). */
enum {
    MCZ_OS_OPEN_READ = 1,
    MCZ_OS_OPEN_WRITE = 2,
    MCZ_OS_OPEN_READ_WRITE = 3,
    MCZ_OS_OPEN_CREATE = 4,
    MCZ_OS_OPEN_EXCLUSIVE = 8,
    MCZ_OS_OPEN_TRUNCATE = 16,
    MCZ_OS_OPEN_APPEND = 32
};
/* open(2), the descriptor never inherited by the programs this one starts, never the process's
 * controlling terminal (O_NOCTTY) and, on Windows, binary (no line-end translation). mode: the permissions of a file it creates (POSIX's,
 * before the umask; Windows has none). */
int mcz_os_open(const char *path, int how, int mode);
ptrdiff_t mcz_os_read(int fd, void *buf, size_t len);       /* read(2): 0 at the end */
/* unlink(2): a file's name removed. Async-signal-safe, which ISO C's remove is not said to be. */
int mcz_os_unlink(const char *path);
/* This process's id (getpid(2); Windows: GetCurrentProcessId). */
long mcz_os_process_id(void);
/* The entries of a directory, one at a time, in the system's order. */
typedef struct mcz_os_dir mcz_os_dir;
mcz_os_dir *mcz_os_dir_open(const char *dir); /* NULL with errno set */
/* The next name (valid until the next call), . and .. included; NULL at the end (errno 0)
 * or on an error (errno set). */
const char *mcz_os_dir_next(mcz_os_dir *d);
void mcz_os_dir_close(mcz_os_dir *d);
/* Removes name from the directory d, open from dir (by path where the system has no dirfd). */
void mcz_os_remove_in(mcz_os_dir *d, const char *dir, const char *name);
/* The directory part of path: the length up to and including its last separator ('/', and on
 * Windows '\\' too); 0 when it has none. Async-signal-safe. */
size_t mcz_os_dir_length(const char *path);
/* Standard input as bytes (Windows' C runtime starts it in text mode; nothing to do on POSIX). */
void mcz_os_stdin_binary(int fd);
/* A stdio stream over descriptor fd (fdopen(3); binary on Windows), NULL with errno set. */
FILE *mcz_os_fdopen(int fd, const char *mode);
/* A duplicate of fd (sharing its position), not inherited by the programs this one starts:
 * POSIX: fcntl F_DUPFD_CLOEXEC, above the standard three; Windows: in binary mode, as standard
 * output starts in text mode. */
int mcz_os_dup(int fd);
/* Moves the position to the start (lseek(fd, 0, SEEK_SET)): 0, or -1. */
int mcz_os_rewind(int fd);
/* Whether path itself is a symbolic link (lstat(2); Windows: never, none is followed). */
bool mcz_os_is_link(const char *path);
/* The text of the symbolic link path (readlink(2), not NUL-terminated): its length, or -1
 * (EINVAL: not a link; always on Windows). */
ptrdiff_t mcz_os_readlink(const char *path, char *buf, size_t cap);
/* Gives the file open as fd the permission bits and, when this process may (root), the owner
 * of the file at path; 0, or -1. Windows has no POSIX modes or owners: 0 at once. */
int mcz_os_copy_attributes(int fd, const char *path);
/* Whether this process may create files in directory dir (access(dir, W_OK | X_OK); Windows:
 * W_OK, its directories have no execute permission): 0, or -1. */
int mcz_os_may_write_in(const char *dir);
/* A directory others may read (mode 0755 on POSIX, before the umask): 0, or -1 (EEXIST when
 * something has that name). */
int mcz_os_mkdir(const char *path);
/* True when no process has the id pid (kill(pid, 0) fails with ESRCH; Windows: none opens,
 * or it has ended): false when one exists, or cannot be told. */
bool mcz_os_process_gone(long pid);
/* Maps: a read-only, copy-on-write view of the first len bytes of the file open as fd, or
 * fresh anonymous memory of len bytes (zeroes; POSIX: pages made when first written, no swap
 * reserved where the system can); NULL with errno set. mcz_os_unmap releases either. */
void *mcz_os_map_file(int fd, size_t len);
void *mcz_os_map_zeroed(size_t len);
int mcz_os_unmap(void *at, size_t len);
/* Lets pages of a file's map go from memory (read again from the file if touched): advice,
 * which a system may ignore (Windows takes it from its own memory pressure). */
void mcz_os_map_drop(void *at, size_t len);
/* The size of a page of memory, a map's unit. */
size_t mcz_os_page_size(void);
/* The first extent of data at or after from in the file open as fd: [*start, *end), *end where
 * the next hole starts; 1 when found, 0 when only a hole follows from (ENXIO), -1 when the
 * system cannot tell (errno EOPNOTSUPP where it has no SEEK_DATA: Windows) or fails. Moves the
 * file position. */
int mcz_os_data_extent(int fd, uint64_t from, uint64_t *start, uint64_t *end);
/* memmem(3): the first place needle[0, len) occurs in haystack[0, hay_len), or NULL (the C
 * library's where it has one; platform/compat.c's elsewhere). Async-signal-safe. */
void *mcz_os_memmem(const void *haystack, size_t hay_len, const void *needle, size_t len);

/* ============================================================================================
 * The programs' part (sys_*.c, proc_*.c, cmdline.c; not in the collector, sources.mk): what
 * mcs, mcz-replay, mcz-superpmi and mchgen ask of the system beyond C11. Not
 * async-signal-safe unless a function says so; -1 with errno set on failure, unless it says
 * otherwise.
 * ============================================================================================ */

ptrdiff_t mcz_os_getline(char **line, size_t *cap, FILE *f); /* as getline(3) */
typedef long (*mcz_os_stream_write_fn)(void *cookie, const char *buf, size_t len);
/* A write-only stdio stream whose bytes reach write(cookie, buf, len) (returns len or -1);
 * NULL on failure. Closed by mcz_os_stream_close only. */
FILE *mcz_os_stream_open(mcz_os_stream_write_fn write, void *cookie);
/* A stream into memory (open_memstream(3)); *text (malloc'ed, NUL-terminated) and *len are
 * set once mcz_os_stream_close returned. */
FILE *mcz_os_memstream_open(char **text, size_t *len);
/* Flushes and closes either stream: 0, or EOF when a write failed. */
int mcz_os_stream_close(FILE *f);
/* True when name matches glob (* ? [...] wildcards; a leading dot matched only by a dot, as
 * fnmatch's FNM_PERIOD). */
bool mcz_os_glob_match(const char *glob, const char *name);

/* Standard input, output and error carry bytes unchanged: Windows' C runtime starts them in
 * text mode (LF written as CR LF, CR LF read as LF, Ctrl-Z read as the end), so that the same
 * run would print other bytes there. Called at the start of main; nothing to do elsewhere. */
void mcz_os_stdio_binary(void);

/* True when stdout is a pipe or socket whose reader is gone (a write would fail with EPIPE):
 * a program that stops early for that, as `| head` asks, is not failing. */
bool mcz_os_stdout_reader_gone(void);
/* True when stdout is a pipe or socket (whose reader may close it early). */
bool mcz_os_stdout_is_pipe(void);

/* Which file a name or a descriptor reaches: two names of one file (links, a different
 * spelling) give equal identities. Windows' stat has no inode numbers: its identity is the
 * volume's serial number and the file's index. */
typedef struct mcz_os_file_id {
    uint64_t volume;
    uint64_t file;
} mcz_os_file_id;
/* 0, or -1 with errno set (the file cannot be reached, or has no identity: a pipe on
 * Windows). The path's symbolic links are followed. */
int mcz_os_file_id_of(const char *path, mcz_os_file_id *id);
int mcz_os_file_id_of_fd(int fd, mcz_os_file_id *id);

/* True when path is a directory itself, not a symbolic link (or junction) to one. */
bool mcz_os_is_directory_not_link(const char *path);

/* More of the POSIX calls the programs make (the library part's "Files, directories and maps"
 * has the others), under one name on every system. */
/* write(2): may write fewer. Async-signal-safe. */
ptrdiff_t mcz_os_write(int fd, const void *buf, size_t len);
/* The descriptor's position (lseek(fd, 0, SEEK_CUR)), or -1 (a pipe has none). */
int64_t mcz_os_position(int fd);
/* Moves the position to the end (lseek(fd, 0, SEEK_END)): the file's length, or -1. */
int64_t mcz_os_seek_end(int fd);
bool mcz_os_isatty(int fd);                      /* isatty(3) */
bool mcz_os_exists(const char *path);            /* access(path, F_OK) == 0 */
/* rmdir(2): an empty directory removed (ISO C's remove removes files everywhere, directories
 * on POSIX only). */
int mcz_os_rmdir(const char *path);
/* The working directory (getcwd(3)), malloc'd; NULL with errno set. */
char *mcz_os_getcwd(void);
/* How the name of a shared library (a JIT) ends on this system: ".so", ".dylib" or ".dll". */
const char *mcz_os_shared_library_suffix(void);

/* Programs and files (proc_posix.c, proc_win32.c; mcz_os_command_line in cmdline.c). */
/* Runs the program at path with argv (argv[0] the name it sees) in this process's place, with
 * this process's standard streams and environment: execv on POSIX. Windows has no exec (its
 * _execv starts a new process and ends the caller at once, so whoever waits for the caller
 * would see it end before the work is done): the program is started, this process waits and
 * exits with the program's exit code, unchanged. A console control event meanwhile reaches
 * the program too (it shares the console); this process outlives it to pass its code on. The
 * program runs in a job object that ends it when this process ends, so none is left running.
 * Returns only when the program cannot be started: -1 with errno set. */
int mcz_os_exec(const char *path, char *const argv[]);
/* Starts path with argv, its standard input the read end of a new pipe whose write end is
 * *to_child (a descriptor, not inherited), its standard output and error this process's. One
 * such program at a time. 0, or -1 with errno set. When the program cannot be run once a
 * process was started for it (POSIX: exec failed in the child), cannot_run(path, errno) runs
 * there (to say so), and the process exits 255. */
int mcz_os_spawn_piped(const char *path, char *const argv[], int *to_child,
                       void (*cannot_run)(const char *path, int err));
/* Waits for that program and returns its exit code (128+N when signal N ended it). With
 * stop_signal (a signal number, 0: none) it is ended first: POSIX sends it that signal;
 * Windows, where the console gave it the event too, terminates it. */
int mcz_os_spawn_wait(int stop_signal);
/* argv as one Windows command line, which Windows' C runtimes split back into the same words.
 * Malloc'd; NULL when out of memory. */
char *mcz_os_command_line(char *const argv[]);
/* The running program's file (POSIX: /proc/self/exe; Windows: GetModuleFileNameW, the name it
 * was started by). Malloc'd; NULL with errno set. */
char *mcz_os_self_path(void);
/* path as an absolute name (POSIX: realpath, links resolved, the file must exist; Windows:
 * GetFullPathNameW, against the working directory). Malloc'd; NULL with errno set. */
char *mcz_os_absolute_path(const char *path);
/* A second name `to` for the file `from` (a hard link). 0, or -1 with errno set: EEXIST when
 * `to` exists; EPERM, ENOTSUP, EMLINK or EXDEV when the file system cannot link it there. */
int mcz_os_link(const char *from, const char *to);
/* mkdtemp(3): tmpl ends in XXXXXX, which is replaced; a directory only this user may enter
 * (mode 0700 on POSIX). tmpl, or NULL with errno set. */
char *mcz_os_mkdtemp(char *tmpl);
/* A temporary file under mcz_os_temp_dir(), open for reading and writing in binary mode, that
 * no name reaches: it is gone when it is closed or the process ends, however it ends (POSIX:
 * unlinked at once; Windows: deleted on its last close). NULL with errno set. */
FILE *mcz_os_temp_file(void);
/* A directory only this user may enter (mode 0700 on POSIX): 0, or -1 with errno set. */
int mcz_os_mkdir_private(const char *path);
/* Sets an environment variable for this process and the programs it starts: 0, or -1. */
int mcz_os_setenv(const char *name, const char *value);
/* Windows: a job object that ends the processes put in it when its last handle closes (this
 * process's, when it ends however it ends), as a HANDLE; NULL when none can be made. NULL
 * always on POSIX, which has none (process groups serve there). */
void *mcz_os_job_kill_on_close(void);

/*
 * The signals that end a program (SIGINT, SIGTERM, SIGHUP, SIGPIPE), or on Windows the console
 * control events (Ctrl-C, Ctrl-Break, the console closed, a log-off, a shutdown), handed to
 * hooks that undo what the run left half-done; the hooks are async-signal-safe (on Windows
 * they run on a thread the system starts for the event).
 *  - POSIX: undo_truncations, then undo_removals; when they undid nothing and the signal is
 *    SIGPIPE, the handler returns (the write fails with EPIPE instead); else abandon runs and
 *    the process ends by the same signal (the shell sees 128+signal). A signal the parent
 *    ignored (nohup, a background job) stays ignored, but SIGPIPE.
 *  - Windows: abandon, undo_truncations, every descriptor but the standard three closed
 *    (Windows removes no file a descriptor holds open), undo_removals, then the process ends
 *    as the event ends a console program (exit code STATUS_CONTROL_C_EXIT).
 */
typedef struct mcz_os_stop_hooks {
    unsigned (*undo_truncations)(void); /* each returns how many things it undid */
    unsigned (*undo_removals)(void);
    void (*abandon)(void); /* the terminal left tidy (a progress line ended) */
} mcz_os_stop_hooks;
void mcz_os_stop_catch(const mcz_os_stop_hooks *hooks);
/* Delivers the test event NAME (MCZ_TEST_SIGNAL: INT, TERM, HUP, PIPE) the way the system
 * delivers it; a name the system has no counterpart for is ignored. On Windows the calling
 * thread then waits for the event's handler to end the process; a process without a console
 * says so on stderr ("PROGRAM: MCZ_TEST_SIGNAL=NAME: waiting for the console control event"),
 * and after 30 s without the event says that none came and exits 125. */
void mcz_os_test_signal(const char *program, const char *name);


#endif /* MCZ_PLATFORM_H */
