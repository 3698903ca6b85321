/*
 * threads_posix.c - platform/threads.h on POSIX threads and semaphores, built for POSIX
 * systems (platform/threads_win32.c is Windows'). Timed waits are on CLOCK_MONOTONIC, the
 * clock of mcz_os_monotonic_ns:
 * glibc's pthread_cond_clockwait and sem_clockwait, platform/compat.c's on other systems.
 */
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include "mcz_common.h"
#include "threads.h"
#ifdef MCZ_POSIX_COMPAT
#include "posix_compat.h"
#endif

static struct timespec timespec_of(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    return ts;
}

void mcz_mutex_init(mcz_mutex *m)
{
    pthread_mutex_init(m, NULL);
}

void mcz_mutex_destroy(mcz_mutex *m)
{
    pthread_mutex_destroy(m);
}

void mcz_mutex_lock(mcz_mutex *m)
{
    pthread_mutex_lock(m);
}

void mcz_mutex_unlock(mcz_mutex *m)
{
    pthread_mutex_unlock(m);
}

void mcz_cond_init(mcz_cond *c)
{
    pthread_cond_init(c, NULL);
}

void mcz_cond_destroy(mcz_cond *c)
{
    pthread_cond_destroy(c);
}

void mcz_cond_wait(mcz_cond *c, mcz_mutex *m)
{
    pthread_cond_wait(c, m);
}

void mcz_cond_wait_until(mcz_cond *c, mcz_mutex *m, uint64_t deadline_ns)
{
    struct timespec at = timespec_of(deadline_ns);
    pthread_cond_clockwait(c, m, CLOCK_MONOTONIC, &at);
}

void mcz_cond_signal(mcz_cond *c)
{
    pthread_cond_signal(c);
}

void mcz_cond_broadcast(mcz_cond *c)
{
    pthread_cond_broadcast(c);
}

int mcz_thread_create(mcz_thread *t, void *(*fn)(void *), void *arg)
{
    return pthread_create(&t->id, NULL, fn, arg);
}

void mcz_thread_join(mcz_thread *t)
{
    pthread_join(t->id, NULL);
}

int mcz_sem_init(mcz_sem *s, unsigned value)
{
    return sem_init(s, 0, value);
}

void mcz_sem_destroy(mcz_sem *s)
{
    sem_destroy(s);
}

void mcz_sem_post(mcz_sem *s)
{
    sem_post(s);
}

void mcz_sem_wait(mcz_sem *s)
{
    sem_wait(s);
}

void mcz_sem_wait_until(mcz_sem *s, uint64_t deadline_ns)
{
    struct timespec at = timespec_of(deadline_ns);
    sem_clockwait(s, CLOCK_MONOTONIC, &at);
}

void mcz_once_run(mcz_once *once, void (*fn)(void))
{
    pthread_once(once, fn);
}
