/*
 * platform.h - the operating-system calls of the library's writing side, behind one small
 * interface (platform/os_posix.c implements it for POSIX, platform/os_win32.c for Windows; each file is
 * empty on the other system, so that the Makefile builds io/ alike for both).
 * The writer makes no system call of its own: its files, descriptors, streams, signal handlers
 * and clocks all go through here (threads and their locks and waits excepted).
 *
 * Unless a function says otherwise it is async-signal-safe (a fatal-signal dump runs from a
 * handler), leaves errno as the failing call set it (callers name it in their messages), and
 * retries an interrupted call itself. Descriptors are ints, offsets and sizes uint64_t.
 */
#ifndef MCZ_IO_PLATFORM_H
#define MCZ_IO_PLATFORM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How mcz_os_create opens a file: truncated, for reading and writing (a file the writer reads
 * back), or write-only. */
typedef enum { MCZ_OS_WRITE_ONLY, MCZ_OS_READ_WRITE } mcz_os_access;

/* Creates or truncates path (mode 0666 less the umask, close-on-exec); -1 on failure. */
int mcz_os_create(const char *path, mcz_os_access access);
/* 0, or -1. */
int mcz_os_close(int fd);
/* Writes all of data at the file position (MCZ_OK, or MCZ_EIO). */
int mcz_os_write_all(int fd, const void *data, size_t len);
/* Writes all of data at off (MCZ_OK, or MCZ_EIO). */
int mcz_os_pwrite_all(int fd, const void *data, size_t len, uint64_t off);
/* Reads up to len bytes at off: the count (0 at the end), or -1. */
int64_t mcz_os_pread(int fd, void *buf, size_t len, uint64_t off);
/* The file's data on stable storage: with its metadata (fsync) or without (fdatasync); 0 or -1. */
int mcz_os_fsync(int fd);
int mcz_os_fdatasync(int fd);
/* Sets the file's size; 0 or -1. */
int mcz_os_truncate(int fd, uint64_t size);
/* Frees the blocks of [off, off + len) without changing the size: reads there give zeros.
 * 0, or -1 (errno EOPNOTSUPP when the file system cannot). */
int mcz_os_punch_hole(int fd, uint64_t off, uint64_t len);
/* Renames from over to; 0 or -1. */
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

/* The directory temporary files go to: $TMPDIR, else /tmp (Windows: %TEMP%, else "."). Not
 * async-signal-safe (getenv). */
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

#endif /* MCZ_IO_PLATFORM_H */
