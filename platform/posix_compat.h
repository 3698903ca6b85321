/*
 * posix_compat.h - the library on a POSIX system whose C library lacks glibc's extensions
 * (macOS, the BSDs): included ahead of every library file above io/ (-include) when
 * MCZ_POSIX_COMPAT is defined, and by platform/threads_posix.c. Those layers use C11 and
 * POSIX.1-2008 with XSI, and beyond them only the names below, mapped onto platform/compat.c
 * (threads_posix.c's timed waits; memmem is platform/platform.h's mcz_os_memmem). `make
 * test-posix` builds them here so (no _GNU_SOURCE, -Wpedantic) and runs the unit tests against
 * that library, so the fallbacks run on this machine too; io/ itself guards each system-specific call with its own fallback.
 */
#ifndef MCZ_IO_POSIX_COMPAT_H
#define MCZ_IO_POSIX_COMPAT_H
#if !defined(_WIN32)

#include <signal.h>

#include "compat.h"

#define pthread_cond_clockwait(c, m, clk, at) mcz_compat_cond_clockwait(c, m, clk, at)
#define sem_clockwait(s, clk, at) mcz_compat_sem_clockwait(s, clk, at)

/* The count of signal numbers: every system has one, POSIX.1-2008 names none. */
#if !defined(NSIG) && defined(_NSIG)
#define NSIG _NSIG
#endif

#endif /* !_WIN32 */
#endif /* MCZ_IO_POSIX_COMPAT_H */
