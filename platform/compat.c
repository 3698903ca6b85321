/*
 * compat.c - the few calls beyond POSIX.1-2008 that platform/'s own files make (a wait until a
 * CLOCK_MONOTONIC deadline on a condition or a semaphore, memmem), for the systems whose C
 * library lacks them: POSIX systems other than glibc's (platform/posix_compat.h,
 * MCZ_POSIX_COMPAT: threads_posix.c's waits) and Windows (os_win32.c's mcz_os_memmem); built
 * for those alone (sources.mk MCZ_PLATFORM_COMPAT): glibc has them all.
 *
 * A monotonic deadline becomes a relative wait where the system has one
 * (pthread_cond_timedwait_relative_np: winpthreads, macOS), else a CLOCK_REALTIME deadline: a
 * change of the wall clock during the wait then lengthens or shortens it, which a wait of the
 * writer's (a flush interval, a shutdown) tolerates.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "mcz_common.h"
#include "compat.h"

/* What remains until at on clock, as a relative time (zero once past). */
static struct timespec time_left(clockid_t clock, const struct timespec *at)
{
    struct timespec now, left = {0, 0};
    if (clock_gettime(clock, &now) != 0)
        return left;
    int64_t ns = ((int64_t)at->tv_sec - (int64_t)now.tv_sec) * 1000000000 +
                 ((int64_t)at->tv_nsec - (int64_t)now.tv_nsec);
    if (ns > 0) {
        left.tv_sec = (time_t)(ns / 1000000000);
        left.tv_nsec = (long)(ns % 1000000000);
    }
    return left;
}

/* The CLOCK_REALTIME time as far from now as at is on clock. */
static struct timespec realtime_deadline(clockid_t clock, const struct timespec *at)
{
    struct timespec left = time_left(clock, at), real = {0, 0};
    clock_gettime(CLOCK_REALTIME, &real);
    real.tv_sec += left.tv_sec;
    real.tv_nsec += left.tv_nsec;
    if (real.tv_nsec >= 1000000000) {
        real.tv_sec++;
        real.tv_nsec -= 1000000000;
    }
    return real;
}

int mcz_compat_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                              const struct timespec *at)
{
#if defined(_WIN32) || defined(__APPLE__)
    struct timespec left = time_left(clock, at);
    return pthread_cond_timedwait_relative_np(cond, mutex, &left);
#else
    struct timespec real = realtime_deadline(clock, at);
    return pthread_cond_timedwait(cond, mutex, &real);
#endif
}

int mcz_compat_sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *at)
{
    struct timespec real = realtime_deadline(clock, at);
    return sem_timedwait(sem, &real);
}

void *mcz_compat_memmem(const void *haystack, size_t hay_len, const void *needle, size_t len)
{
    const uint8_t *h = haystack, *n = needle;
    if (len == 0)
        return (void *)(uintptr_t)h;
    for (size_t i = 0; len <= hay_len && i <= hay_len - len; i++) {
        const uint8_t *first = memchr(h + i, n[0], hay_len - len - i + 1);
        if (!first)
            return NULL;
        i = (size_t)(first - h);
        if (memcmp(first, n, len) == 0)
            return (void *)(uintptr_t)first;
    }
    return NULL;
}
