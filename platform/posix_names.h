/*
 * posix_names.h - the POSIX names (open, read, mmap, stat, opendir, pthread_once...) that the
 * files of io/ still call directly, from the one place that asks which system it is on: POSIX's
 * own headers there; on Windows platform/win32_compat.h, which maps those MinGW-w64 lacks onto
 * platform/os_win32.c and platform/compat.c. The rest of the library and the programs call
 * mcz_os_* (platform/platform.h) instead; a file of io/ moves to it a call at a time, and this
 * header goes once none is left.
 */
#ifndef MCZ_PLATFORM_POSIX_NAMES_H
#define MCZ_PLATFORM_POSIX_NAMES_H

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _WIN32
#include "win32_compat.h"
#else
#include <sys/mman.h>
#endif

/* The directory part of path: the length up to and including its last separator ('/', and on
 * Windows '\\' too); 0 when it has none. */
size_t mcz_os_dir_length(const char *path);
/* Removes name from the directory d, open from dir (by path where the system has no dirfd). */
void mcz_os_remove_in(DIR *d, const char *dir, const char *name);
/* Standard input as bytes (Windows' C runtime starts it in text mode; nothing to do on POSIX). */
void mcz_os_stdin_binary(int fd);

#endif /* MCZ_PLATFORM_POSIX_NAMES_H */
