/*
 * worker.h - worker processes, and what a program running them asks of the system beside:
 * the stop signals watched rather than obeyed, commands started with their output to files,
 * a wait for a pipe, CPU time. platform/worker_posix.c and worker_win32.c implement it; part
 * of the programs' platform (sources.mk: not in the collector), as platform.h's last section.
 *
 * A worker is a process of this program that a parent starts in a numbered slot and talks to
 * through two pipes and a region of memory they share; what the worker prints (stdout and
 * stderr) comes to the parent through a third pipe. The facility knows nothing of what goes
 * through them (mcz-replay puts a byte ring in the region, parallel-replay/replay_ring.c).
 *  - POSIX: the worker is forked. It leads a process group of its own (a terminal's Ctrl-C
 *    reaches the parent only; killing the group ends what the worker started), dies with the
 *    parent (Linux: PR_SET_PDEATHSIG), gets the default stop signals back, closes every other
 *    worker's pipes and unmaps their regions (a wild write reaches no other region), reads
 *    /dev/null on stdin and runs fn(arg, self), which must not return (the worker exits 255
 *    if it does). The region is anonymous shared memory mapped before the fork.
 *  - Windows, which has no fork: the worker is this program started again with the same
 *    command line, told in its environment (MCZ_WORKER) its slot, three inherited handles and
 *    the parent's note. It repeats the parent's setup up to the point where it asks
 *    mcz_os_worker_attach, which finds it a worker, and does the worker's work there. Only the
 *    handles named are inherited (inheritable just for the CreateProcess call; the worker
 *    makes them private again). Each worker runs in a job object of its own that ends it and
 *    whatever it started when killed or when the parent ends, and without the parent's console
 *    (CREATE_NO_WINDOW), so a console's Ctrl-C reaches the parent only. The region is a
 *    section of the paging file. Pipes cannot be polled there: the wait looks at each pipe
 *    and process in turn, pausing 1 ms while nothing is there.
 * Not async-signal-safe; -1 (or NULL) with errno set on failure unless a function says
 * otherwise.
 */
#ifndef MCZ_PLATFORM_WORKER_H
#define MCZ_PLATFORM_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Worker processes ---- */

/* The parent's handle on one worker: its pipes, its process, the region mapped. */
typedef struct mcz_os_worker mcz_os_worker;

/* What a worker is given. */
typedef struct mcz_os_worker_self {
    size_t slot;   /* the slot it was started in */
    int in_fd;     /* reads what the parent sends (mcz_os_worker_send); its end: no more */
    int wake_fd;   /* writes bytes that wake the parent (mcz_os_worker_wakeups) */
    void *shared;  /* the region shared with the parent, mapped */
} mcz_os_worker_self;

/* The worker's work (POSIX: run in the forked child; never returns). */
typedef void (*mcz_os_worker_fn)(void *arg, const mcz_os_worker_self *self);

/* Starts a worker in slot with a new zero-filled region of shared_bytes. POSIX: forked, it runs
 * fn(arg, self). Windows: the program started again, given note (NULL: none), which it reads
 * back with mcz_os_worker_note; fn and arg are not used there. NULL with errno set. */
mcz_os_worker *mcz_os_worker_start(size_t slot, size_t shared_bytes, const char *note,
                                   mcz_os_worker_fn fn, void *arg);
/* True when workers are forked (they share the parent's memory and open files: a stream read
 * by the parent is theirs too); false where a worker is the program started again. */
bool mcz_os_workers_fork(void);
/* True in a worker the parent started again (Windows), false in any other process (always on
 * POSIX); looks at the environment once. */
bool mcz_os_worker_started_again(void);
/* In such a worker: the parent's note; NULL in other processes or when none was given. */
const char *mcz_os_worker_note(void);
/* In such a worker: its ends of the pipes and the region mapped, stdout unbuffered (what it
 * printed before a crash reaches the parent), a fault that nothing handles ending it at once
 * (no error dialog, no debugger): true. False in any other process. A worker whose handles
 * cannot be taken exits 255. */
bool mcz_os_worker_attach(mcz_os_worker_self *self);

/* The region, as the parent maps it. */
void *mcz_os_worker_shared(const mcz_os_worker *w);

#define MCZ_OS_WORKER_OUTPUT 1u /* the worker printed something (or its output ended) */
#define MCZ_OS_WORKER_WAKE 2u   /* a wake-up byte, or the end of the wake-up pipe */
/* Waits at most timeout_ms (-1: no limit) until one of the n workers (NULL: none in that slot)
 * prints or wakes the parent, or a stop signal comes (mcz_os_stop_watch_begin). 0, or -1
 * with errno set when the wait itself failed. */
int mcz_os_worker_wait(mcz_os_worker *const *workers, size_t n, int timeout_ms);
/* What the last wait saw of the worker (MCZ_OS_WORKER_*); both where the system cannot tell
 * which (Windows). */
unsigned mcz_os_worker_events(const mcz_os_worker *w);
/* Reads what the worker printed without waiting: the count; 0 at the end of its output (which
 * is then closed); -1 when there is nothing more now. */
long mcz_os_worker_output(mcz_os_worker *w, char *buf, size_t cap);
bool mcz_os_worker_output_open(const mcz_os_worker *w);
/* Takes the worker's wake-up bytes; false once it is gone (its wake-up pipe ended). */
bool mcz_os_worker_wakeups(mcz_os_worker *w);
/* Writes all of buf to the worker (0, or -1: it died meanwhile). */
int mcz_os_worker_send(mcz_os_worker *w, const void *buf, size_t len);
/* Closes the pipe the worker reads: it reads its end. */
void mcz_os_worker_close_input(mcz_os_worker *w);
/* Kills the worker and whatever it started (its process group; its job). */
void mcz_os_worker_kill(mcz_os_worker *w);
/* Waits for the worker's end: its status as a shell's (128+N for signal N; a Windows exception
 * as 128+SIGSEGV, a fault; -1: lost track of it), and how it ended in words ("exited with
 * status 3", "killed by signal 9 (Killed)", "died of exception 0xC0000005 (access
 * violation)", "killed"...). Its pipes and region stay to be read until mcz_os_worker_free. */
int mcz_os_worker_reap(mcz_os_worker *w, char *how, size_t cap);
void mcz_os_worker_free(mcz_os_worker **w);

/* CPU seconds (user and system) used by this process, or by its children that ended and were
 * waited for (children true; Windows: the workers reaped). */
double mcz_os_cpu_seconds(bool children);

/* ---- Stop signals watched ---- */

/* From mcz_os_stop_watch_begin on, the stop signals (SIGINT, SIGTERM, SIGHUP; Windows: the
 * console control events, Ctrl-C and Ctrl-Break as SIGINT, the console closed, a log-off or a
 * shutdown as SIGTERM) end no process: each is noted for mcz_os_stop_watched, a call it
 * interrupts returns (EINTR: not restarted) and a worker wait returns once. SIGPIPE is
 * ignored: a write to a reader gone fails with EPIPE. mcz_os_stop_watch_end puts back what was
 * there before. (platform.h's mcz_os_stop_catch, by contrast, ends the process.) */
void mcz_os_stop_watch_begin(void);
void mcz_os_stop_watch_end(void);
/* The stop signal that came since mcz_os_stop_watch_begin; 0: none. */
int mcz_os_stop_watched(void);

/* ---- Commands ---- */

/* Starts a command (argv[0] found as the system finds programs: PATH), its stdin this
 * process's, its stdout and stderr new files out_path and err_path (NULL: this process's):
 * MCZ_OK and *handle to wait for; 127 with *exec_errno, the errno of a start that failed
 * (as a shell's status); MCZ_EIO when no process could be made (errno says why). POSIX:
 * posix_spawnp rather than fork (a process holding a large mapping would have the kernel copy
 * its page tables once per command). Windows: the command joins this process's job. */
int mcz_os_command_start(char *const argv[], const char *out_path, const char *err_path,
                         int64_t *handle, int *exec_errno);
/* Waits for it: its exit status as a shell's (128+N when signal N ended it), or MCZ_EIO. */
int mcz_os_command_wait(int64_t handle);

/* True when a read of fd (a pipe) would not wait, waiting up to wait_ms for it (false at its
 * end too). */
bool mcz_os_readable(int fd, int wait_ms);

#endif /* MCZ_PLATFORM_WORKER_H */
