/*
 * threads.h - threads, mutexes, condition variables, a semaphore and a once: what the writer's
 * workers, its service thread and its appenders use (io/'s HTTP source: a mutex and a once).
 * POSIX threads and semaphores on POSIX; on Windows the system's own primitives (SRWLOCK,
 * CONDITION_VARIABLE, CreateThread, a semaphore object, INIT_ONCE), so a Windows collector
 * imports system DLLs only, not a pthreads library. zstd's lib/common/threading.h is the model. platform/threads_posix.c and
 * threads_win32.c implement it; the writer calls no thread function of its own
 * (tests/cli/test_writer_layers.sh).
 *
 * Deadlines are mcz_os_monotonic_ns() times (platform/platform.h). Failures: create returns
 * non-zero when no thread could be started; the waits return when woken, spuriously (the caller
 * rechecks its condition), or at the deadline. Not async-signal-safe but for
 * mcz_sem_post on POSIX (sem_post is; a fatal-signal dump posts the writer's semaphore).
 * On Windows the types hold the system's objects by their pointer-sized values, so this header
 * needs no <windows.h> (platform/threads_win32.c checks the sizes).
 */
#ifndef MCZ_IO_THREADS_H
#define MCZ_IO_THREADS_H

#include <stdint.h>

#ifdef _WIN32
typedef struct { void *srw; } mcz_mutex;        /* SRWLOCK */
typedef struct { void *cv; } mcz_cond;          /* CONDITION_VARIABLE */
typedef struct { void *handle; } mcz_sem;       /* a semaphore object's HANDLE */
typedef struct { void *init; } mcz_once;        /* INIT_ONCE */
#define MCZ_ONCE_INIT {0}
typedef struct mcz_thread {
    void *handle;                               /* the thread's HANDLE */
    void *(*fn)(void *);
    void *arg;
} mcz_thread;
#else
#include <pthread.h>
#include <semaphore.h>
typedef pthread_mutex_t mcz_mutex;
typedef pthread_cond_t mcz_cond;
typedef sem_t mcz_sem;
typedef pthread_once_t mcz_once;
#define MCZ_ONCE_INIT PTHREAD_ONCE_INIT
typedef struct mcz_thread {
    pthread_t id;
} mcz_thread;
#endif

void mcz_mutex_init(mcz_mutex *m);
void mcz_mutex_destroy(mcz_mutex *m);
void mcz_mutex_lock(mcz_mutex *m);
void mcz_mutex_unlock(mcz_mutex *m);

void mcz_cond_init(mcz_cond *c);
void mcz_cond_destroy(mcz_cond *c);
/* Releases m, waits for a signal, takes m again. */
void mcz_cond_wait(mcz_cond *c, mcz_mutex *m);
/* The same, until the monotonic time deadline_ns at the latest. */
void mcz_cond_wait_until(mcz_cond *c, mcz_mutex *m, uint64_t deadline_ns);
void mcz_cond_signal(mcz_cond *c);
void mcz_cond_broadcast(mcz_cond *c);

/* Starts fn(arg) on a new thread; t stays where it is until joined (Windows passes it to the
 * thread). 0, or non-zero when the thread could not be started. */
int mcz_thread_create(mcz_thread *t, void *(*fn)(void *), void *arg);
void mcz_thread_join(mcz_thread *t);

/* A counting semaphore, starting at value. 0, or non-zero when it could not be made. */
int mcz_sem_init(mcz_sem *s, unsigned value);
void mcz_sem_destroy(mcz_sem *s);
void mcz_sem_post(mcz_sem *s);
void mcz_sem_wait(mcz_sem *s);
void mcz_sem_wait_until(mcz_sem *s, uint64_t deadline_ns);

/* Runs fn once in the process, however many threads get here at once (once starts as
 * MCZ_ONCE_INIT): the others wait until it has run. */
void mcz_once_run(mcz_once *once, void (*fn)(void));

#endif /* MCZ_IO_THREADS_H */
