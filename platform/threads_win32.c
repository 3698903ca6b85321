/*
 * threads_win32.c - platform/threads.h on Windows' own primitives (kernel32 only: no pthreads
 * library, so a collector DLL imports system DLLs alone), built for Windows only
 * (platform/threads_posix.c is POSIX's).
 * Slim reader/writer locks taken exclusively are the mutexes, condition variables wait on them,
 * a semaphore object is the semaphore. Timed waits turn the monotonic deadline into whole
 * milliseconds left, rounded up (a wait never ends before its deadline for the rounding).
 */
#include <windows.h>

#include <limits.h>
#include <process.h>

#include "mcz_common.h"
#include "platform.h"
#include "threads.h"

_Static_assert(sizeof(mcz_mutex) == sizeof(SRWLOCK), "mcz_mutex holds an SRWLOCK");
_Static_assert(sizeof(mcz_cond) == sizeof(CONDITION_VARIABLE),
               "mcz_cond holds a CONDITION_VARIABLE");
_Static_assert(sizeof(mcz_once) == sizeof(INIT_ONCE), "mcz_once holds an INIT_ONCE");

#define SRW(m) ((PSRWLOCK)(void *)&(m)->srw)
#define CV(c) ((PCONDITION_VARIABLE)(void *)&(c)->cv)

/* Milliseconds from now until deadline_ns, rounded up; 0 once past. */
static DWORD ms_until(uint64_t deadline_ns)
{
    uint64_t now = mcz_os_monotonic_ns();
    if (deadline_ns <= now)
        return 0;
    uint64_t ms = (deadline_ns - now + 999999u) / 1000000u;
    return ms >= INFINITE ? INFINITE - 1 : (DWORD)ms;
}

void mcz_mutex_init(mcz_mutex *m)
{
    InitializeSRWLock(SRW(m));
}

void mcz_mutex_destroy(mcz_mutex *m)
{
    (void)m; /* an SRWLOCK holds no resource */
}

void mcz_mutex_lock(mcz_mutex *m)
{
    AcquireSRWLockExclusive(SRW(m));
}

void mcz_mutex_unlock(mcz_mutex *m)
{
    ReleaseSRWLockExclusive(SRW(m));
}

void mcz_cond_init(mcz_cond *c)
{
    InitializeConditionVariable(CV(c));
}

void mcz_cond_destroy(mcz_cond *c)
{
    (void)c; /* nor does a condition variable */
}

void mcz_cond_wait(mcz_cond *c, mcz_mutex *m)
{
    SleepConditionVariableSRW(CV(c), SRW(m), INFINITE, 0);
}

void mcz_cond_wait_until(mcz_cond *c, mcz_mutex *m, uint64_t deadline_ns)
{
    SleepConditionVariableSRW(CV(c), SRW(m), ms_until(deadline_ns), 0);
}

void mcz_cond_signal(mcz_cond *c)
{
    WakeConditionVariable(CV(c));
}

void mcz_cond_broadcast(mcz_cond *c)
{
    WakeAllConditionVariable(CV(c));
}

/* The thread's start: fn(arg), as t recorded them (t outlives the thread: joined first). */
static unsigned __stdcall thread_start(void *t)
{
    mcz_thread *self = t;
    self->fn(self->arg);
    return 0;
}

/* _beginthreadex rather than CreateThread: the C runtime's per-thread state is set up and
 * freed with the thread. */
int mcz_thread_create(mcz_thread *t, void *(*fn)(void *), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    t->handle = (void *)_beginthreadex(NULL, 0, thread_start, t, 0, NULL);
    return t->handle ? 0 : -1;
}

void mcz_thread_join(mcz_thread *t)
{
    WaitForSingleObject(t->handle, INFINITE);
    CloseHandle(t->handle);
    t->handle = NULL;
}

int mcz_sem_init(mcz_sem *s, unsigned value)
{
    s->handle = CreateSemaphoreW(NULL, (LONG)value, LONG_MAX, NULL);
    return s->handle ? 0 : -1;
}

void mcz_sem_destroy(mcz_sem *s)
{
    if (s->handle)
        CloseHandle(s->handle);
    s->handle = NULL;
}

void mcz_sem_post(mcz_sem *s)
{
    ReleaseSemaphore(s->handle, 1, NULL);
}

void mcz_sem_wait(mcz_sem *s)
{
    WaitForSingleObject(s->handle, INFINITE);
}

void mcz_sem_wait_until(mcz_sem *s, uint64_t deadline_ns)
{
    WaitForSingleObject(s->handle, ms_until(deadline_ns));
}

static BOOL CALLBACK once_call(PINIT_ONCE once, void *fn, void **context)
{
    (void)once, (void)context;
    ((void (*)(void))(uintptr_t)fn)();
    return TRUE;
}

void mcz_once_run(mcz_once *once, void (*fn)(void))
{
    InitOnceExecuteOnce((PINIT_ONCE)(void *)&once->init, once_call, (void *)(uintptr_t)fn, NULL);
}
