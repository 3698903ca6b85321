/*
 * program.h - what a program asks of the system about program files and paths, beside
 * platform.h's files: the names of programs and of the PATH list, path names taken apart,
 * executable files, a sparse file, shared libraries. platform/program_posix.c and
 * program_win32.c implement it; part of the programs' platform (sources.mk: not in the
 * collector), as platform.h's last section. Not async-signal-safe; -1 (or NULL) with errno set
 * on failure unless a function says otherwise.
 */
#ifndef MCZ_PLATFORM_PROGRAM_H
#define MCZ_PLATFORM_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Names ---- */

/* How the name of a program file ends: "" on POSIX, ".exe" on Windows. */
const char *mcz_os_program_suffix(void);
/* What separates PATH's entries: ':' on POSIX, ';' on Windows. */
char mcz_os_path_list_separator(void);
/* Whether path is absolute ("/..."; Windows: "X:\..." or "\\server\..."). */
bool mcz_os_path_is_absolute(const char *path);
/* The last component of path: what follows its last separator ('/'; on Windows '\' too), or
 * path itself when it has none. */
const char *mcz_os_base_name(const char *path);
/* The directory part of path, malloc'd: up to its last separator, the root keeping its own
 * ("/x" gives "/"; Windows: "C:\x" gives "C:\"). NULL when path has no separator (errno
 * EINVAL) or out of memory. */
char *mcz_os_dir_name(const char *path);
/* The program's file by the name it was started by, where the system keeps that name
 * (Windows: GetModuleFileNameW), malloc'd. NULL with errno ENOTSUP on POSIX, where argv[0]
 * and PATH tell it (/proc/self/exe is a symbolic link's target, not the link the program was
 * run by). */
char *mcz_os_started_path(void);

/* ---- Files ---- */

/* A regular file the system would run (POSIX: one this user may execute; Windows: any). */
bool mcz_os_is_executable_file(const char *path);
/* Whether a name exists, itself (POSIX: a dangling symbolic link does); false with errno set. */
bool mcz_os_name_exists(const char *path);
/* A descriptor to read path, not inherited, that (POSIX) does not wait for a FIFO's writer
 * (O_NONBLOCK). */
int mcz_os_open_to_read(const char *path);
/* Makes the open file fd executable (POSIX: mode 0755; Windows: nothing to do). 0, or -1. */
int mcz_os_make_executable(int fd);
/* A new file at path (not there before: EEXIST), read-write, not inherited, private to this
 * user, of size bytes that take no disk until written where the file system can (POSIX: a
 * hole; Windows: a sparse file on NTFS, zeros elsewhere all the same). A descriptor, or -1. */
int mcz_os_create_sparse(const char *path, uint64_t size);

/* ---- Shared libraries ---- */

/* Loads the shared library at path, a file the user names (a bare name is looked for in the
 * working directory, never on the system's search path); NULL with the system's reason in why
 * (POSIX: dlerror's; Windows: the path and the error number). */
void *mcz_os_library_open(const char *path, char *why, size_t cap);
/* One of its symbols (a function's address as an object pointer, as dlsym gives it); NULL:
 * none. */
void *mcz_os_library_symbol(void *lib, const char *name);
void mcz_os_library_close(void *lib);

#endif /* MCZ_PLATFORM_PROGRAM_H */
