/*
 * compat.h - platform/compat.c: the waits and memmem of the systems whose C library lacks
 * them, for platform/'s own files: platform/posix_compat.h maps the waits' names onto these
 * for platform/threads_posix.c on POSIX systems without glibc's extensions; Windows'
 * mcz_os_memmem (platform/os_win32.c) is mcz_compat_memmem.
 */
#ifndef MCZ_IO_COMPAT_H
#define MCZ_IO_COMPAT_H
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <time.h>

/* pthread_cond_clockwait and sem_clockwait: wait until at on clock (CLOCK_MONOTONIC). */
int mcz_compat_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                              const struct timespec *at);
int mcz_compat_sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *at);
/* memmem: the first place needle[0..len) occurs in haystack[0..hay_len), or NULL. */
void *mcz_compat_memmem(const void *haystack, size_t hay_len, const void *needle, size_t len);

#endif /* MCZ_IO_COMPAT_H */
