/*
 * win32_compat.h - the POSIX and GNU names the library uses that MinGW-w64 lacks, for the
 * Windows build only: packaging/windows.mk includes it ahead of every source file (-include),
 * so that the layers keep their POSIX spelling and Linux compiles exactly as before. What is a
 * function is implemented with Win32 calls in platform/os_win32.c; what Windows has no counterpart
 * for says so here. Each name is one the library needs now, not a general POSIX layer: the
 * layers above io/ use only the thread waits, SIGBUS and memmem; the rest is io/'s.
 *
 * Every descriptor the library opens is opened with O_CLOEXEC, which here also means binary
 * mode: Windows' C runtime would otherwise translate line ends in the archive's bytes.
 */
#ifndef MCZ_IO_WIN32_COMPAT_H
#define MCZ_IO_WIN32_COMPAT_H
#ifdef _WIN32

/* The headers that declare the names redefined below come first, so that the macros do not
 * rewrite their declarations. */
#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"

/* ---- descriptors ---- */
#define O_CLOEXEC (_O_NOINHERIT | _O_BINARY) /* not inherited by children, and binary */
#define O_NOCTTY 0                           /* no controlling terminals on Windows */
#define F_DUPFD_CLOEXEC 1030
#define fcntl(...) mcz_win_fcntl(__VA_ARGS__)
#define fsync(fd) mcz_win_fsync(fd)
#define fdatasync(fd) mcz_win_fsync(fd)
#define pread(fd, buf, len, off) mcz_win_pread(fd, buf, len, off)
#define pwrite(fd, buf, len, off) mcz_win_pwrite(fd, buf, len, off)
#define mkostemp(tmpl, flags) mcz_win_mkostemp(tmpl, flags)
/* fcntl(fd, F_DUPFD_CLOEXEC, min) only: a duplicate of fd in binary mode (min is not
 * honoured: Windows' descriptors are not a table a child inherits); -1 and EINVAL for any
 * other command. */
int mcz_win_fcntl(int fd, int cmd, ...);
/* pread and pwrite: the file position is kept (saved and put back around the positioned
 * call), so not safe against another thread using the position of the same descriptor. */
ssize_t mcz_win_pread(int fd, void *buf, size_t len, int64_t off);
ssize_t mcz_win_pwrite(int fd, const void *buf, size_t len, int64_t off);
/* The file's data on disk (FlushFileBuffers); 0 at once for what is not a disk file (a pipe,
 * where flushing would wait for the reader, or a console, which cannot be): as fsync is for a
 * stream on Linux, where the callers accept EINVAL. */
int mcz_win_fsync(int fd);
/* mkstemp with the flags (O_CLOEXEC) added. */
int mcz_win_mkostemp(char *tmpl, int flags);
/* mkdtemp, for the unit tests' scratch directories. */
#define mkdtemp(tmpl) mcz_win_mkdtemp(tmpl)
char *mcz_win_mkdtemp(char *tmpl);

/* ---- names and attributes: no symbolic links followed, no owners, no POSIX modes ---- */
#define lstat stat
#define S_ISLNK(m) 0
#define readlink(path, buf, cap) mcz_win_readlink(path, buf, cap)
ssize_t mcz_win_readlink(const char *path, char *buf, size_t cap); /* always -1, EINVAL */
#define geteuid() 1 /* never the administrator: the owner is not carried over */
#define fchown(fd, uid, gid) ((void)(fd), (void)(uid), (void)(gid), 0)
#define fchmod(fd, mode) ((void)(fd), (void)(mode), 0)
#define mkdir(path, mode) ((void)(mode), _mkdir(path))
/* kill(pid, 0) only: whether process pid exists (0), else -1 with ESRCH. */
#define kill(pid, sig) mcz_win_process_exists(pid, sig)
int mcz_win_process_exists(long pid, int sig);

/* ---- memory maps: what io/ asks of mmap, nothing more ---- */
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_PRIVATE 2
#define MAP_ANONYMOUS 0x20
#define MAP_NORESERVE 0x4000
#define MAP_FAILED ((void *)-1)
#define MADV_DONTNEED 4
/* A read-only copy-on-write view of a whole file (PROT_READ, MAP_PRIVATE, fd, offset 0), or
 * fresh zeroed memory (MAP_ANONYMOUS, fd -1); MAP_FAILED with errno otherwise. */
#define mmap(addr, len, prot, flags, fd, off) mcz_win_mmap(addr, len, prot, flags, fd, off)
#define munmap(addr, len) mcz_win_munmap(addr, len)
#define madvise(addr, len, advice) mcz_win_madvise(addr, len, advice)
void *mcz_win_mmap(void *addr, size_t len, int prot, int flags, int fd, int64_t off);
int mcz_win_munmap(void *addr, size_t len);
int mcz_win_madvise(void *addr, size_t len, int advice); /* lets the pages go from memory */
#define _SC_PAGESIZE 30
#define sysconf(name) mcz_win_sysconf(name)
long mcz_win_sysconf(int name); /* _SC_PAGESIZE only */

/* ---- threads: waits until a CLOCK_MONOTONIC deadline, on winpthreads' relative waits
 * (platform/compat.c) ---- */
#define pthread_cond_clockwait(c, m, clk, at) mcz_compat_cond_clockwait(c, m, clk, at)
#define sem_clockwait(s, clk, at) mcz_compat_sem_clockwait(s, clk, at)

/* ---- signals: Windows raises no SIGBUS; a number no other signal has, never delivered ---- */
#define SIGBUS 7

/* ---- strings ---- */
#define memmem(h, hl, n, nl) mcz_compat_memmem(h, hl, n, nl)

#endif /* _WIN32 */
#endif /* MCZ_IO_WIN32_COMPAT_H */
